"""`inflect train` (one model, on one or more languages) and `inflect queue` (one model per
language, several at a time, restartable)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable
from typing import Any

import click

from inflect import defaults
from inflect.cli.options import (
    FiniteFloat,
    a_folder,
    device_option,
    languages_or_all,
    threads_option,
)
from inflect.cli.output import output_format
from inflect.cli.resolve import set_threads
from inflect.nn.config import ATTENTION_SCORES, ENCODERS, LAYERED_FEATURES, ModelConfig
from inflect.training.config import PRESETS, TrainConfig

#: `inflect train` options that set a config field: option name -> field.
_TRAIN_CONFIG_OPTIONS = {
    "attention": "attention_mapping", "output_mapping": "output_mapping",
    "score": "attention_score", "learn_alpha": "learn_attention_alpha", "seed": "seed",
    "batch_size": "batch_size", "learning_rate": "learning_rate", "dev_sample": "dev_sample",
    "language_temperature": "language_temperature", "emb_dim": "emb_dim",
    "hidden_dim": "hidden_dim", "layers": "layers", "dropout": "dropout",
    "hallucinate": "hallucinate",
    "long_pairs": "long_pairs", "encoder": "encoder", "layered_features": "layered_features",
}

#: ``--data-dir`` of train and queue (the other commands':
#: :data:`inflect.cli.options.data_dir_option`).
_run_data_dir_option = click.option(
    "--data-dir", type=click.Path(file_okay=False), default=None,
    help="Folder with the shared-task files (default: $INFLECT_DATA_DIR or the cache).")


def _default(field: str) -> Any:
    """A config field's default (:class:`~inflect.nn.config.ModelConfig`'s or
    :class:`~inflect.training.config.TrainConfig`'s): the paper's value."""
    for config_class in (ModelConfig, TrainConfig):
        for f in dataclasses.fields(config_class):
            if f.name == field:
                return f.default
    raise KeyError(field)


def _by_preset(field: str, fmt: Callable[[Any], str] = str) -> str:
    """Each preset's value of ``field``, as ``paper 30, cpu-small 150, ...`` (from
    :data:`~inflect.training.config.PRESETS`, the field's default where a preset leaves it)."""
    return ", ".join(f"{name} {fmt(values.get(field, _default(field)))}"
                     for name, values in PRESETS.items())


def _mappings() -> str:
    """The registered mapping names (:func:`inflect.sparse.mapping_names`), and α."""
    from inflect.sparse import mapping_names

    return ", ".join(mapping_names()) + " or a number (alpha >= 1)"


class _ReadHelp(click.Option):
    """An option whose help is written when it is shown, by ``make_help()``, from where its
    values live (the presets, the configs' defaults, the registered mappings): nothing is
    restated here, and what only the help needs (the mappings: torch) is not imported at start.
    """

    def __init__(self, *args: Any, make_help: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.make_help = make_help

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self.make_help()
        return super().get_help_record(ctx)


@click.command("train")
@click.option("--lang", "lang", default=None, callback=languages_or_all,
              help="Language(s): a name or alias, a comma-separated list, or 'all' (one "
                   "multilingual model with language symbols). With --train: the files' "
                   "language, any name (a new one gets a spec made from the files). Not needed "
                   "with --resume.")
@click.option("--setting", type=click.Choice(list(defaults.SETTINGS)), default=None,
              help="Training-data size of CoNLL-SIGMORPHON 2018 task 1 (default: high; with "
                   "--resume: the run's).")
@click.option("--train", "train_files", is_eager=True, multiple=True,
              type=click.Path(exists=True, dir_okay=False),
              help="Train on your own file instead of the shared task's data (repeatable): "
                   "lemma<TAB>form<TAB>tags (2018) or lemma<TAB>tags<TAB>form (2023). Needs "
                   "--dev; the language is --lang (default: the file name's).")
@click.option("--dev", "dev_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="With --train: the dev file(s) the model is selected on.")
@click.option("--input-format", type=click.Choice(["auto", "2018", "2023"]), default="auto",
              show_default=True,
              help="Layout of the --train and --dev files (auto: each file's, from where its "
                   "tag bundles are).")
@click.option("--attention", default=_default("attention_mapping"), show_default=True,
              cls=_ReadHelp, make_help=lambda: f"Attention mapping: {_mappings()}.")
@click.option("--output", "output_mapping", default=_default("output_mapping"),
              show_default=True,
              help="Output mapping (trained with its Fenchel-Young loss); same choices.")
@click.option("--score", type=click.Choice(ATTENTION_SCORES), default=None,
              help=f"Attention score function (default: {_default('attention_score')}).")
@click.option("--encoder", type=click.Choice(ENCODERS), default=None,
              help=f"The encoder: {', '.join(ENCODERS)} (default: {_default('encoder')}, the "
                   "paper's BiLSTM).")
@click.option("--layered-features", type=click.Choice(LAYERED_FEATURES), default=None,
              help=f"How a UniMorph 4 layered feature (NOM(1,SG)) is read: parts (a symbol "
                   f"per part with its layer's name, NOM(1) and NOM(SG): NOM(1,SG) and "
                   f"NOM(1,PL) share NOM(1)) or opaque (one symbol); default: "
                   f"{_default('layered_features')}.")
@click.option("--learn-alpha", is_flag=True, default=False,
              help="Learn the attention alpha (starting from --attention's).")
@click.option("--seed", type=click.IntRange(0, defaults.MAX_SEED), default=_default("seed"),
              show_default=True,
              help=f"Random seed of the weights, the batches and dropout (0 to "
                   f"{defaults.MAX_SEED}).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              callback=a_folder,
              help="Run folder (model.safetensors, metrics.csv, trainer_state.safetensors).")
@click.option("--preset", default=None, cls=_ReadHelp,
              make_help=lambda: f"Named hyperparameters ({', '.join(PRESETS)}); default: the "
                                "paper's.")
@click.option("--epochs", type=click.IntRange(min=1), default=None, cls=_ReadHelp,
              make_help=lambda: "Maximum number of epochs (default: the preset's: "
                                f"{_by_preset('max_epochs')}).")
@click.option("--patience", type=click.IntRange(min=1), default=None, cls=_ReadHelp,
              make_help=lambda: "Stop after this many epochs without better dev accuracy "
                                f"(default: the preset's: {_by_preset('patience')}).")
@click.option("--batch-size", type=click.IntRange(min=1), default=None, cls=_ReadHelp,
              make_help=lambda: "Training items per update (default: the preset's: "
                                f"{_by_preset('batch_size')}).")
@click.option("--emb-dim", type=click.IntRange(min=1), default=None, cls=_ReadHelp,
              make_help=lambda: "Size of the symbol embeddings, and of the UniMorph feature and "
                                "language embeddings (default: the preset's: "
                                f"{_by_preset('emb_dim')}).")
@click.option("--hidden-dim", type=click.IntRange(min=2), default=None, cls=_ReadHelp,
              make_help=lambda: "Size of the decoder state and the encoder output (even; half "
                                "per direction of the BiLSTM; default: the preset's: "
                                f"{_by_preset('hidden_dim')}).")
@click.option("--layers", type=click.IntRange(min=1), default=None, cls=_ReadHelp,
              make_help=lambda: "Layers of the encoder and LSTM layers of the decoder "
                                f"(default: the preset's: {_by_preset('layers')}).")
@click.option("--dropout", type=FiniteFloat(min=0, max=1, max_open=True), default=None,
              cls=_ReadHelp,
              make_help=lambda: "Dropout on the embeddings, between LSTM layers and on the "
                                "attentional hidden state, in [0, 1) (default: the preset's: "
                                f"{_by_preset('dropout', '{:g}'.format)}; a warm start may "
                                "change it).")
@click.option("--learning-rate", type=FiniteFloat(min=0, max=10, min_open=True), default=None,
              cls=_ReadHelp,
              make_help=lambda: "Adam's initial step size, in (0, 10] (default: the preset's: "
                                f"{_by_preset('learning_rate', '{:g}'.format)}; halved whenever "
                                "the dev loss rises).")
@click.option("--dev-sample", type=click.IntRange(min=0), default=None, cls=_ReadHelp,
              make_help=lambda: "Select the model on at most this many dev words per language "
                                "(a fixed sample; 0 = all; default: the preset's: "
                                f"{_by_preset('dev_sample')}).")
@click.option("--language-temperature", type=FiniteFloat(0.5, 100), default=None,
              help="Mix of languages per epoch: 1 = every item once (as given); T > 1 draws "
                   "language l in proportion to n_l^(1/T) (small languages more often).")
@click.option("--hallucinate", type=click.IntRange(min=0, max=defaults.MAX_HALLUCINATE),
              default=None, metavar="N", cls=_ReadHelp,
              make_help=lambda: "Data augmentation for small training sets (Anastasopoulos & "
                                "Neubig 2019): bring each language's training set up to N pairs "
                                "with copies of its pairs whose stem (runs of 3+ aligned "
                                "identical letters) has random letters of the language, made "
                                "once from --seed (default: the preset's: "
                                f"{_by_preset('hallucinate')}; 0: none).")
@click.option("--long-pairs", type=click.IntRange(min=0, max=defaults.MAX_HALLUCINATE),
              default=None, metavar="N", cls=_ReadHelp,
              make_help=lambda: "Add N long pairs per language for long new words (compounds): "
                                "copies of its pairs whose stem has pieces of its other lemmas "
                                "inserted, in lemma and form alike (up to twice its "
                                "longest lemma); made once from --seed (default: the preset's: "
                                f"{_by_preset('long_pairs')}; 0: none).")
@click.option("--checkpoint-minutes", type=FiniteFloat(min=0), default=None,
              help="Save the resumable trainer state at least this often inside an epoch "
                   f"(default {defaults.CHECKPOINT_SECONDS / 60:g}).")
@click.option("--precision", type=click.Choice(["auto", "float32"]), default="auto",
              show_default=True,
              help="auto: bfloat16 products where the hardware has them (CUDA; CPUs with "
                   "AVX512-BF16), float32 elsewhere.")
@device_option
@threads_option
@click.option("--resume", is_flag=True, default=False,
              help="Continue the interrupted run saved in --out (its languages, setting and "
                   "hyperparameters).")
@click.option("--init-from", type=click.Path(exists=True), default=None,
              help="Start a new run from this model checkpoint's weights instead of random ones "
                   "(a warm start: fine-tune it, or go on training a model whose run folder is "
                   "gone). Its network and vocabularies are kept; the training options given "
                   "here (--learning-rate, --seed, --epochs, ...) replace its own.")
@_run_data_dir_option
def train_command(lang, setting, train_files, dev_files, input_format, attention, output_mapping,
                  score, encoder, layered_features, learn_alpha, seed, out_dir,
                  preset, epochs, patience, batch_size, emb_dim, hidden_dim, layers,
                  dropout, learning_rate, dev_sample,
                  language_temperature, hallucinate, long_pairs, checkpoint_minutes, precision,
                  device, threads, resume, init_from, data_dir):
    """Train a model on one or more languages and select it on dev accuracy.

    Example: inflect train --lang german --setting medium --attention entmax15 --output entmax15
    --preset cpu-small --seed 1 --out runs/de. Your own files, of any language: inflect train
    --train amh.trn --dev amh.dev --lang amharic --preset cpu-small --out runs/amh (a language
    the package does not know gets a spec made from the files, stored in the checkpoint; see
    inflect lang add). Ctrl-C or SIGTERM saves a state that --resume
    continues (the state is also saved every few minutes inside an epoch, so even a killed run
    loses at most those minutes). Data parallel on N processes (GPUs, or CPUs with gloo):
    torchrun --nproc-per-node N -m inflect train ... (each process takes --batch-size rows of
    every update).
    """
    from inflect.io.provenance import command_line
    from inflect.nn.checkpoint import CheckpointError
    from inflect.nn.model import resolve_device
    from inflect.render.common import terminal_console
    from inflect.text.records import DataFormatError
    from inflect.training.distributed import World
    from inflect.training.items import load_data
    from inflect.training.run_start import start_config
    from inflect.training.state import saved_run

    try:  # under torchrun, rank 0 alone speaks
        console = terminal_console(stderr=True, quiet=not World.from_environment().is_main)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    set_threads(threads)
    options = dict(
        attention_mapping=attention, output_mapping=output_mapping, attention_score=score,
        learn_attention_alpha=learn_alpha or None, encoder=encoder, seed=seed,
        layered_features=layered_features,
        batch_size=batch_size,
        learning_rate=learning_rate, dev_sample=dev_sample,
        language_temperature=language_temperature, emb_dim=emb_dim,
        feature_dim=emb_dim, hidden_dim=hidden_dim, layers=layers, dropout=dropout,
        hallucinate=hallucinate, long_pairs=long_pairs,
    )
    ctx = click.get_current_context()
    given = {field: options[field] for name, field in _TRAIN_CONFIG_OPTIONS.items()
             if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE}
    if resume and init_from:
        raise click.UsageError("--init-from starts a new run and --resume continues one; give "
                               "one of them")
    if (train_files or dev_files) and (setting or ctx.get_parameter_source("data_dir")
                                       == click.core.ParameterSource.COMMANDLINE):
        raise click.UsageError("--setting and --data-dir choose the shared task's data; with "
                               "--train and --dev they have no effect (drop them)")
    try:
        config = start_config(preset, options, given, init_from=init_from, resume=resume)
        saved = saved_run(out_dir) if resume else None
        resolve_device(device)  # a wrong --device fails before the data are read
        if train_files or dev_files or (saved and "train" in saved):
            data = _file_data(console, train_files, dev_files, lang, input_format, saved,
                              out_dir)
        else:
            if saved:
                lang, setting = lang or saved["lang"], setting or saved["setting"]
            elif lang is None:
                raise click.UsageError("give --lang (a language, a comma-separated list or "
                                       "'all'), or your own files with --train and --dev")
            data = load_data(lang, setting or "high", data_dir)
    except (ValueError, FileNotFoundError, CheckpointError, DataFormatError) as exc:
        raise click.ClickException(str(exc)) from None
    console.print(_data_line(data, setting or "high"), markup=False)
    seconds = defaults.CHECKPOINT_SECONDS if checkpoint_minutes is None else 60 * checkpoint_minutes
    result = _train(console, config, data, out_dir, device=device, resume=resume,
                    max_epochs=epochs, patience=patience, checkpoint_seconds=seconds,
                    precision=precision, init_from=init_from,
                    command=command_line(ctx.find_root().meta.get("inflect.argv")))
    console.print(
        f"best dev accuracy {result.best_dev_accuracy:.2f}% at epoch {result.best_epoch} of "
        f"{result.epochs}{' (early stop)' if result.stopped_early else ''}; "
        f"{result.seconds:.0f} s; checkpoint {result.out_dir}", markup=False
    )


def _file_data(console, train_files, dev_files, lang, input_format, saved, out_dir):
    """The data of a run on the user's files (:func:`inflect.training.files.load_files`): those
    given, or a resumed run's own (its paths, its language's spec); the note, on ``console``,
    that a new language's spec was made from them and where it is kept."""
    from inflect.text.languages import user_langs_dir
    from inflect.training.files import load_files

    spec = None
    if saved is not None:
        if "train" not in saved:
            raise click.UsageError(f"{out_dir} was trained on the shared task's data; resume it "
                                   "without --train/--dev")
        train_files, dev_files = train_files or saved["train"], dev_files or saved["dev"]
        lang, spec = saved["lang"], saved["spec"]
        for path in (*train_files, *dev_files):
            if not os.path.isfile(path):
                raise FileNotFoundError(f"{out_dir} was trained on {path}, which is not there "
                                        "any more; give its files with --train FILE --dev FILE")
    found = load_files(train_files, dev_files, lang, input_format, spec)
    if found.derived is not None:
        name = found.language
        console.print(
            f"{name}: a language the package does not know; its spec was made from the data "
            f"({found.derived.summary()}) and is stored in the checkpoint "
            f"({os.path.join(out_dir, 'model.safetensors')}). To see or edit it, or to make it "
            f"known to every command: inflect lang add {name} --from {out_dir} (your languages "
            f"folder: {user_langs_dir()})", markup=False, style="yellow")
    return found.data


def _data_line(data, setting: str) -> str:
    """The line that says what a run trains on: its training and dev examples, its first
    languages, the setting (or the files), and the languages that took a smaller setting's
    data."""
    if "train_files" in data.description:
        files = [r["file"] for r in data.description["train_files"]]
        return (f"{len(data.train)} training and {len(data.dev)} dev examples "
                f"({data.description['languages'][0]}; {', '.join(files)})")
    extra = data.description.get("smaller_settings")
    return (f"{len(data.train)} training and {len(data.dev)} dev examples "
            f"({', '.join(data.description['languages'][:8])}"
            f"{', ...' if len(data.languages) > 8 else ''}; {setting}"
            + (f"; with the low data of {', '.join(extra)}" if extra else "") + ")")


def _train(console, config, data, out_dir, **options):
    """:func:`inflect.training.trainer.train` with a progress display on ``console``: an
    interrupt exits with status 130 (the run resumable), a bad option or folder and a full disk
    are one-line errors (the full disk's naming the folder and --resume)."""
    from inflect.training.progress import RichProgress
    from inflect.training.trainer import TrainingInterrupted, train

    created = not os.path.exists(out_dir)
    with RichProgress(console) as progress:
        try:
            return train(config, data, out_dir, progress=progress, **options)
        except TrainingInterrupted as exc:
            console.print(str(exc), style="yellow", markup=False)
            raise SystemExit(130) from None
        except (ValueError, FileExistsError, FileNotFoundError, OverflowError) as exc:
            if created:
                _remove_if_unused(out_dir)
            raise click.ClickException(str(exc)) from None
        except Exception as exc:
            from inflect.io.stdio import disk_full

            if not disk_full(exc):
                raise
            raise click.ClickException(
                f"cannot write into {out_dir}: the disk is full ({exc}); the files saved there "
                "before are intact: free some space, then continue the run with --resume (or "
                "remove the folder to start anew)"
            ) from None


def _remove_if_unused(out_dir) -> None:
    """Remove the run folder this command created where the run failed before saving anything
    in it (only its lock file, if that): no empty folder is left behind."""
    import shutil
    from pathlib import Path

    folder = Path(out_dir)
    with contextlib.suppress(OSError):
        if folder.is_dir() and all(p.name.startswith(".") for p in folder.iterdir()):
            shutil.rmtree(folder)


# --- inflect queue: one model per language ------------------------------------------------------


@click.command("queue", context_settings={"ignore_unknown_options": True})
@click.option("--lang", "lang", default=None, callback=languages_or_all,
              help="Languages: a comma-separated list or 'all' (every language with data in "
                   "--setting). Not needed to restart a queue (its own languages; given, they "
                   "are added).")
@click.option("--setting", type=click.Choice(list(defaults.SETTINGS)), default=None,
              help="Training-data size (default: high; restarting: the queue's).")
@click.option("--out", "root", required=True, type=click.Path(file_okay=False),
              callback=a_folder,
              help="The queue's folder: queue.json, one run folder per language, logs/.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Languages trained at a time (one process each; one per core).")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True,
              help="Torch threads of each training process.")
@click.option("--status", "only_status", is_flag=True, default=False,
              help="Print the queue's table (language, state, epochs, best dev accuracy, CPU "
                   "minutes) and exit; trains nothing.")
@click.option("--format", "out_format", type=click.Choice(["table", "tsv"]), default=None,
              help="Of the status table: table (on a terminal) or tsv (in a pipe).")
@_run_data_dir_option
@click.argument("train_args", nargs=-1, type=click.UNPROCESSED)
def queue_command(lang, setting, root, jobs, threads, only_status, out_format, data_dir,
                  train_args):
    """Train one model per language, --jobs at a time; restartable.

    The options after `--` go to every language's `inflect train` (all but --lang, --setting,
    --out, --threads, --resume and --data-dir, which the queue sets). Started again on the same
    --out, the queue skips the finished languages, resumes the interrupted ones and starts the
    rest; it prints a line per epoch per language, and the status table at the end.

    Example: inflect queue --lang finnish,latin --setting high --jobs 2 --out runs/per-language
    -- --preset cpu-small-plain --dev-sample 0 --epochs 30
    """
    import time
    from pathlib import Path

    from inflect.nn.checkpoint import CheckpointError
    from inflect.text.languages import all_languages, resolve
    from inflect.training.queue import QUEUE_FILE, QueueSpec, queue_status, run_queue

    root_path = Path(root)
    saved = None
    try:
        if (root_path / QUEUE_FILE).is_file():
            saved = QueueSpec.load(root_path)
        if only_status:
            if saved is None:
                raise click.ClickException(f"{root_path / QUEUE_FILE}: no queue here")
            _print_queue(queue_status(root_path), root_path, out_format)
            return
        if saved is None and lang is None:
            raise click.UsageError("give --lang (a comma-separated list or 'all') for a new queue")
        setting = setting or (saved.setting if saved else "high")
        if lang is None:
            languages = saved.languages
        elif lang.strip() == "all":
            languages = tuple(spec.name for spec in all_languages() if setting in spec.settings)
        else:
            languages = tuple(dict.fromkeys(resolve(n.strip()).name
                                            for n in lang.split(",") if n.strip()))
        args = tuple(train_args) if train_args or saved is None else saved.train_args
        spec = QueueSpec(setting, languages, args)
    except (ValueError, FileNotFoundError, CheckpointError) as exc:
        raise click.ClickException(str(exc)) from None

    def log(message: str) -> None:
        click.echo(f"[{time.strftime('%H:%M:%S')}] {message}", err=True)

    try:
        statuses = run_queue(spec, root_path, jobs=jobs, threads=threads, data_dir=data_dir,
                             log=log)
    except KeyboardInterrupt:
        with contextlib.suppress(FileNotFoundError, ValueError):  # interrupted before it began
            _print_queue(queue_status(root_path), root_path, out_format)
        raise
    except (ValueError, FileNotFoundError, CheckpointError) as exc:
        raise click.ClickException(str(exc)) from None
    _print_queue(statuses, root_path, out_format)
    failed = [s.language for s in statuses if s.state == "failed"]
    if failed:
        raise click.ClickException(f"{len(failed)} language(s) failed: {', '.join(failed)} (see "
                                   f"{root_path / 'logs'}); start the queue again to retry them")


def _print_queue(statuses, root, out_format) -> None:
    from inflect.render.tables import queue_table
    from inflect.render.tsv import queue_tsv

    if output_format(out_format) == "tsv":
        click.echo(queue_tsv(statuses), nl=False)
    else:
        from inflect.render.common import fitted, terminal_console

        terminal_console().print(fitted(queue_table(statuses, f"queue {root}")))
