"""The ``inflect`` command line: parse, call the library, render. No logic of its own."""

from __future__ import annotations

import contextlib
import errno
import os

import click

from inflect import __version__, defaults

#: Options shared by the commands that search (predict, translate, evaluate, report, explain).
#: The beam's upper bound (defaults.MAX_BEAM_SIZE) keeps a typo (``--beam 50000``) from
#: exhausting memory.


def _beam_option(when: str = ""):
    return click.option("--beam", type=click.IntRange(min=1, max=defaults.MAX_BEAM_SIZE),
                        default=defaults.BEAM_SIZE, show_default=True,
                        help=f"Beam size k, 1 to {defaults.MAX_BEAM_SIZE}{when}.")


def _max_forms_option(what: str):
    return click.option("--max-forms", type=click.IntRange(min=1), default=defaults.MAX_FORMS,
                        show_default=True,
                        help=f"List at most this many {what} per input (then: 'more than N').")


def _output_format(chosen: str | None) -> str:
    """The --format given, else ``table`` on a terminal and ``tsv`` in a pipe."""
    import sys

    return chosen or ("table" if sys.stdout.isatty() else "tsv")


def _idle(input_path) -> float | None:
    """The pause after which the lines read so far are answered
    (:data:`inflect.defaults.STREAM_IDLE_SECONDS`) where the input can be slow: standard input
    (a terminal, a pipe) or a file that is not a regular one (a FIFO); None for a regular file,
    which is read in whole chunks."""
    import stat
    import sys

    if input_path is None:
        return None
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode if input_path == "-" else os.stat(
            input_path).st_mode
    except (OSError, ValueError, AttributeError):
        return defaults.STREAM_IDLE_SECONDS
    return None if stat.S_ISREG(mode) else defaults.STREAM_IDLE_SECONDS


def _comma_list(ctx, param, value):
    """A repeatable option that also takes a comma-separated list (``--lang a,b`` as
    ``--lang a --lang b``, the way `inflect train --lang` reads it), blanks dropped."""
    return tuple(n.strip() for v in value or () for n in v.split(",") if n.strip())


def _format_option(columns: str):
    """``--format table|tsv`` of a command that prints a table; ``columns`` names the TSV's."""
    return click.option("--format", "out_format", type=click.Choice(["table", "tsv"]),
                        default=None,
                        help=f"table (default on a terminal) or tsv (default in a pipe; a header "
                             f"line, then {columns}).")


def _check_outputs(*paths: str) -> None:
    """Before any work: each output file can be written (else a clear error naming it)."""
    from inflect.io.outputs import OutputError, check_output_file

    try:
        for path in paths:
            check_output_file(path)
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None


_DEVICE_OPTION = click.option("--device", default="auto", show_default=True,
                              help="auto (CUDA when available, else CPU), cpu, cuda, cuda:1, ...")

_threads_option = click.option(
    "--threads", type=click.IntRange(min=1), default=None,
    help="CPU threads for torch (default: $INFLECT_THREADS, $OMP_NUM_THREADS, else the idle "
         "cores: cores minus the load average, at least 1).")


class _FiniteFloat(click.FloatRange):
    """A float option that must be finite (``nan``, ``inf`` refused) and in its range."""

    name = "finite float"

    def convert(self, value, param, ctx):
        import math

        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


def _set_threads(threads: int | None) -> None:
    """Apply --threads (or the environment's / the idle cores' count); errors are usage errors."""
    from inflect.nn.threads import set_threads

    try:
        set_threads(threads)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


class _InflectGroup(click.Group):
    """The ``inflect`` group: one place where a closed or broken standard stream (``<&-``,
    ``>&-``, a pipe whose reader went away) becomes a one-line error with exit status 1, not a
    traceback, whichever command meets it."""

    def main(self, *args, **kwargs):
        from inflect.io.stdio import guard_standard_streams

        guard_standard_streams()
        return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context):
        import sys

        try:
            return super().invoke(ctx)
        except (OSError, ValueError) as exc:
            from inflect.io.stdio import stream_problem

            problem = stream_problem(exc)
            if problem is None:
                raise
            if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
                # the reader went away: quiet the flush at exit (no "Exception ignored")
                with contextlib.suppress(OSError, ValueError):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.ClickException(problem) from None


@click.group(cls=_InflectGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="inflect")
def main() -> None:
    """Morphological inflection with sparse sequence-to-sequence models.

    Given a lemma, a UniMorph tag bundle and a language, produce the inflected form, with every
    form the model considers possible, its probability, and a certificate when beam search was
    provably exact.
    """


#: `inflect train` options that set a config field: option name -> field.
_TRAIN_CONFIG_OPTIONS = {
    "attention": "attention_mapping", "output_mapping": "output_mapping",
    "score": "attention_score", "learn_alpha": "learn_attention_alpha", "seed": "seed",
    "batch_size": "batch_size", "learning_rate": "learning_rate", "dev_sample": "dev_sample",
    "language_temperature": "language_temperature", "emb_dim": "emb_dim",
    "hidden_dim": "hidden_dim", "layers": "layers",
}


@main.command("train")
@click.option("--lang", "lang", default=None,
              help="Language(s): a name or alias, a comma-separated list, or 'all' (one "
                   "multilingual model with language symbols). Not needed with --resume.")
@click.option("--setting", type=click.Choice(list(defaults.SETTINGS)), default=None,
              help="Training-data size of CoNLL-SIGMORPHON 2018 task 1 (default: high; with "
                   "--resume: the run's).")
@click.option("--attention", default="entmax15", show_default=True,
              help="Attention mapping: softmax, sparsemax, entmax15, entmax:<alpha> or alpha.")
@click.option("--output", "output_mapping", default="entmax15", show_default=True,
              help="Output mapping (trained with its Fenchel-Young loss); same choices.")
@click.option("--score", type=click.Choice(["general", "dot", "mlp"]), default=None,
              help="Attention score function (default: general).")
@click.option("--learn-alpha", is_flag=True, default=False,
              help="Learn the attention alpha (starting from --attention's).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder (model.safetensors, metrics.csv, trainer_state.safetensors).")
@click.option("--preset", default=None,
              help="Named hyperparameters (paper, cpu-small, cpu-small-plain, tiny); default: the "
                   "paper's.")
@click.option("--epochs", type=click.IntRange(min=1), default=None,
              help="Maximum number of epochs (default: the preset's: paper 30, cpu-small 150, "
                   "cpu-small-plain 40, tiny 60).")
@click.option("--patience", type=click.IntRange(min=1), default=None,
              help="Stop after this many epochs without better dev accuracy (default: the "
                   "preset's: paper 10, cpu-small 25, cpu-small-plain 5, tiny 60).")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Training items per update (default: the preset's: paper 64, cpu-small and "
                   "cpu-small-plain 32, tiny 16).")
@click.option("--emb-dim", type=click.IntRange(min=1), default=None,
              help="Size of the symbol embeddings, and of the UniMorph feature and language "
                   "embeddings (default: the preset's; 300 in the paper, 100 for cpu-small).")
@click.option("--hidden-dim", type=click.IntRange(min=2), default=None,
              help="Size of the decoder state and the encoder output (even; half per direction "
                   "of the BiLSTM; default: the preset's, 300 in the paper, 200 for cpu-small).")
@click.option("--layers", type=click.IntRange(min=1), default=None,
              help="LSTM layers of the encoder and of the decoder (default: the preset's: "
                   "paper 2, the others 1).")
@click.option("--learning-rate", type=_FiniteFloat(min=0, max=10, min_open=True), default=None,
              help="Adam's initial step size, in (0, 10] (default: the preset's, 1e-3; tiny "
                   "5e-3; halved whenever the dev loss rises).")
@click.option("--dev-sample", type=click.IntRange(min=0), default=None,
              help="Select the model on at most this many dev words per language (a fixed "
                   "sample; 0 = all; default: the preset's, 100 for cpu-small-plain, else "
                   "all).")
@click.option("--language-temperature", type=_FiniteFloat(0.5, 100), default=None,
              help="Mix of languages per epoch: 1 = every item once (as given); T > 1 draws "
                   "language l in proportion to n_l^(1/T) (small languages more often).")
@click.option("--checkpoint-minutes", type=_FiniteFloat(min=0), default=None,
              help="Save the resumable trainer state at least this often inside an epoch "
                   f"(default {defaults.CHECKPOINT_SECONDS / 60:g}).")
@click.option("--precision", type=click.Choice(["auto", "float32"]), default="auto",
              show_default=True,
              help="auto: bfloat16 products where the hardware has them (CUDA; CPUs with "
                   "AVX512-BF16), float32 elsewhere.")
@_DEVICE_OPTION
@_threads_option
@click.option("--resume", is_flag=True, default=False,
              help="Continue the interrupted run saved in --out (its languages, setting and "
                   "hyperparameters).")
@click.option("--init-from", type=click.Path(exists=True), default=None,
              help="Start a new run from this model checkpoint's weights instead of random ones "
                   "(a warm start: fine-tune it, or go on training a model whose run folder is "
                   "gone). Its network and vocabularies are kept; the training options given "
                   "here (--learning-rate, --seed, --epochs, ...) replace its own.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Folder with the shared-task files (default: $INFLECT_DATA_DIR or the cache).")
def train_command(lang, setting, attention, output_mapping, score, learn_alpha, seed, out_dir,
                  preset, epochs, patience, batch_size, emb_dim, hidden_dim, layers,
                  learning_rate, dev_sample,
                  language_temperature, checkpoint_minutes, precision, device, threads, resume,
                  init_from, data_dir):
    """Train a model on one or more languages and select it on dev accuracy.

    Example: inflect train --lang german --setting medium --attention entmax15 --output entmax15
    --preset cpu-small --seed 1 --out runs/de. Ctrl-C or SIGTERM saves a state that --resume
    continues (the state is also saved every few minutes inside an epoch, so even a killed run
    loses at most those minutes). Data parallel on N processes (GPUs, or CPUs with gloo):
    torchrun --nproc-per-node N -m inflect train ... (each process takes --batch-size rows of
    every update).
    """
    from rich.console import Console

    from inflect.nn.checkpoint import CheckpointError
    from inflect.nn.config import Config
    from inflect.nn.model import resolve_device
    from inflect.training.distributed import World
    from inflect.training.progress import RichProgress
    from inflect.training.trainer import (
        TrainingInterrupted,
        initial_config,
        load_data,
        saved_run,
        train,
    )

    try:  # under torchrun, rank 0 alone speaks
        console = Console(stderr=True, quiet=not World.from_environment().is_main)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    _set_threads(threads)
    options = dict(
        attention_mapping=attention, output_mapping=output_mapping, attention_score=score,
        learn_attention_alpha=learn_alpha or None, seed=seed, batch_size=batch_size,
        learning_rate=learning_rate, dev_sample=dev_sample,
        language_temperature=language_temperature, emb_dim=emb_dim,
        feature_dim=emb_dim, hidden_dim=hidden_dim, layers=layers,
    )
    ctx = click.get_current_context()
    given = {field: options[field] for name, field in _TRAIN_CONFIG_OPTIONS.items()
             if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE}
    if resume and init_from:
        raise click.UsageError("--init-from starts a new run and --resume continues one; give "
                               "one of them")
    try:
        config = Config.from_preset(preset, **options)
        if init_from:  # the checkpoint's config with the options given on the command line
            config = initial_config(init_from, preset, **given)
        if resume:  # the saved run's settings, unless some are given (then they must agree)
            config = config if given or preset else None
            saved = saved_run(out_dir)
            lang, setting = lang or saved["lang"], setting or saved["setting"]
        elif lang is None:
            raise click.UsageError("give --lang (a language, a comma-separated list or 'all')")
        resolve_device(device)  # a wrong --device fails before the data are read
        data = load_data(lang, setting or "high", data_dir)
    except (ValueError, FileNotFoundError, CheckpointError) as exc:
        raise click.ClickException(str(exc)) from None
    extra = data.description.get("smaller_settings")
    console.print(f"{len(data.train)} training and {len(data.dev)} dev examples "
                  f"({', '.join(data.description['languages'][:8])}"
                  f"{', ...' if len(data.languages) > 8 else ''}; {setting or 'high'}"
                  + (f"; with the low data of {', '.join(extra)}" if extra else "") + ")",
                  markup=False)
    seconds = defaults.CHECKPOINT_SECONDS if checkpoint_minutes is None else 60 * checkpoint_minutes
    with RichProgress(console) as progress:
        try:
            result = train(config, data, out_dir, device=device, resume=resume,
                           max_epochs=epochs, patience=patience, progress=progress,
                           checkpoint_seconds=seconds, precision=precision,
                           init_from=init_from)
        except TrainingInterrupted as exc:
            console.print(str(exc), style="yellow", markup=False)
            raise SystemExit(130) from None
        except (ValueError, FileExistsError, FileNotFoundError) as exc:
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
    console.print(
        f"best dev accuracy {result.best_dev_accuracy:.2f}% at epoch {result.best_epoch} of "
        f"{result.epochs}{' (early stop)' if result.stopped_early else ''}; "
        f"{result.seconds:.0f} s; checkpoint {result.out_dir}", markup=False
    )


# --- inflect queue: one model per language ------------------------------------------------------


@main.command("queue", context_settings={"ignore_unknown_options": True})
@click.option("--lang", "lang", default=None,
              help="Languages: a comma-separated list or 'all' (every language with data in "
                   "--setting). Not needed to restart a queue (its own languages; given, they "
                   "are added).")
@click.option("--setting", type=click.Choice(list(defaults.SETTINGS)), default=None,
              help="Training-data size (default: high; restarting: the queue's).")
@click.option("--out", "root", required=True, type=click.Path(file_okay=False),
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
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Folder with the shared-task files (default: $INFLECT_DATA_DIR or the cache).")
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
        _print_queue(queue_status(root_path), root_path, out_format)
        raise SystemExit(130) from None
    except (ValueError, FileNotFoundError, CheckpointError) as exc:
        raise click.ClickException(str(exc)) from None
    _print_queue(statuses, root_path, out_format)
    failed = [s.language for s in statuses if s.state == "failed"]
    if failed:
        raise click.ClickException(f"{len(failed)} language(s) failed: {', '.join(failed)} (see "
                                   f"{root_path / 'logs'}); start the queue again to retry them")


def _print_queue(statuses, root, out_format) -> None:
    from inflect.render.report import queue_table, queue_tsv

    if _output_format(out_format) == "tsv":
        click.echo(queue_tsv(statuses), nl=False)
    else:
        from rich.console import Console

        Console().print(queue_table(statuses, f"queue {root}"))


# --- inflect data: get, list, describe and check the data ---------------------------------------

_DATA_DIR_OPTION = click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Data folder (default: $INFLECT_DATA_DIR, else the user cache folder).",
)


@main.group()
def data() -> None:
    """Get, list, describe and check data (CoNLL–SIGMORPHON 2018 task 1, Multi30k)."""


@data.command("fetch")
@click.argument("dataset")
@click.option("--lang", "languages", multiple=True, help="Only this language (repeatable).")
@_DATA_DIR_OPTION
def data_fetch(dataset: str, languages: tuple[str, ...], data_dir: str | None) -> None:
    """Download DATASET (see `inflect data list`) and verify every file's SHA-256."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    from inflect.corpora.manifests import (
        ChecksumError,
        FetchError,
        FetchProgress,
        fetch,
        load_manifest,
    )
    from inflect.corpora.manifests import data_dir as resolve_data_dir

    try:
        manifest = load_manifest(dataset)
        manifest.select(languages or None)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="DATASET / --lang") from None
    folder = resolve_data_dir(data_dir)
    console = Console(stderr=True)
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), DownloadColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(f"{manifest.name}", total=None)

        def progress(event: FetchProgress) -> None:
            label = f"[{event.index + 1}/{event.count}] {event.file.name}"
            bar.update(task, description=label, completed=event.done, total=event.total)

        try:
            result = fetch(manifest, languages or None, data_dir, progress=progress)
        except (FetchError, ChecksumError, OSError) as exc:  # OSError: OutputError, the folder
            raise click.ClickException(str(exc)) from None
    click.echo(
        f"{manifest.name}: {len(result.downloaded)} downloaded, {len(result.present)} already "
        f"present, in {folder}"
    )


@data.command("list")
@click.argument("dataset", required=False, default=None)
@_DATA_DIR_OPTION
@_format_option("one line per dataset (dataset, description, files, files_here, size_bytes, "
                "licence), or with DATASET one per language (dataset, language, examples per "
                "split, size_bytes, files_here, files)")
def data_list(dataset: str | None, data_dir: str | None, out_format: str | None) -> None:
    """List the datasets, then DATASET's languages, settings and sizes (on a terminal: the
    datasets and the languages of DATASET, default conll2018-task1)."""
    from inflect.corpora.manifests import (
        count_present,
        language_summary,
        load_manifest,
        manifest_names,
    )
    from inflect.render.report import datasets_table, datasets_tsv, languages_table, languages_tsv

    fmt = _output_format(out_format)
    try:
        chosen = load_manifest(dataset or "conll2018-task1")
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="DATASET") from None
    splits = list(dict.fromkeys(f.split for f in chosen.files if f.split))
    manifests = [load_manifest(name) for name in manifest_names()]
    present = [count_present(m, data_dir) for m in manifests]
    if fmt == "tsv":
        _echo_tsv(lambda: languages_tsv(chosen.name, language_summary(chosen, data_dir), splits)
                  if dataset else datasets_tsv(manifests, present))
        return
    from rich.console import Console

    console = Console()
    console.print(datasets_table(manifests, present))
    console.print(languages_table(chosen.name, language_summary(chosen, data_dir), splits))


def _echo_tsv(render) -> None:
    """Print ``render()`` (TSV text); a field it cannot write is a clear error."""
    try:
        text = render()
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(text, nl=False)


@data.command("stats")
@click.argument("language")
@click.option(
    "--setting",
    type=click.Choice(list(defaults.SETTINGS)),
    default=None,
    help="Training setting (default: every one the language has).",
)
@_DATA_DIR_OPTION
@_format_option("one line per split: language, split, pairs, lemmas, characters, symbols, "
                "features, bundles, with_spaces, longest_lemma, longest_form, "
                "multi_order_bundles, duplicate_feature_bundles, padded_feature_bundles, "
                "blank_lines")
def data_stats(language: str, setting: str | None, data_dir: str | None,
               out_format: str | None) -> None:
    """Describe LANGUAGE's CoNLL–SIGMORPHON 2018 files (training, dev, covered test)."""
    from inflect.corpora.stats import language_stats
    from inflect.render.report import stats_table, stats_tsv
    from inflect.text.records import DataFormatError

    fmt = _output_format(out_format)
    try:
        stats = language_stats(language, [setting] if setting else None, data_dir)
    except (FileNotFoundError, DataFormatError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if fmt == "tsv":
        _echo_tsv(lambda: stats_tsv(stats))
        return
    from rich.console import Console

    Console().print(stats_table(stats))


@data.command("check")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "2018", "covered", "2023"]),
    default="auto",
    show_default=True,
    help="auto: lemma-tags (2 fields); with 3, lemma-form-tags (2018) or lemma-tags-form "
    "(2023), from where the tag bundles are.",
)
def data_check(file: str, fmt: str) -> None:
    """Validate FILE and report every problem with its line; exit status 1 if any."""
    from inflect.render.report import check_lines, read_summary
    from inflect.text.reading import check_file, check_warnings

    parsed = check_file(file, fmt)  # type: ignore[arg-type]
    for line in check_lines(parsed.errors):
        click.echo(line)
    for warning in check_warnings(parsed):
        click.echo(f"warning: {warning}")
    click.echo(read_summary(parsed.stats, len(parsed.errors)))
    if parsed.errors:
        raise SystemExit(1)


# --- inflect evaluate: the shared task's metrics -----------------------------------------------


_SETTING_OPTION = click.option(
    "--setting", type=click.Choice(list(defaults.SETTINGS)), default=None,
    help="Without --model: the shipped model of this training setting (default: the "
         "language's best on its dev set; `inflect models` lists them).")


def _check_setting(setting: str | None, models: tuple[str, ...], pred_files: tuple = ()) -> None:
    """``--setting`` chooses a shipped model: with ``--model`` (or ``--pred``) it would be
    silently ignored, so it is refused."""
    if setting is not None and (models or pred_files):
        given = "--model" if models else "--pred"
        raise click.UsageError(
            f"--setting chooses among the shipped models; with {given} it has no effect "
            "(drop one of them)")


def _models_or_shipped(models: tuple[str, ...], languages: tuple[str, ...],
                       setting: str | None = None) -> tuple[str, ...]:
    """``models`` as given, or else the shipped model of the ``--lang`` given (several: the
    model they share; languages whose defaults differ are refused, naming each one's)."""
    _check_setting(setting, models)
    if models or not languages:
        return models
    from inflect.inference.registry import NoDefaultModelError, RegistryError, default_model

    try:
        chosen = {lang: default_model(lang, setting=setting) for lang in languages}
    except (NoDefaultModelError, RegistryError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    names = {m.name for m in chosen.values()}
    if len(names) > 1:
        each = ", ".join(f"{lang}: {m.name}" for lang, m in chosen.items())
        raise click.ClickException(f"the languages have different shipped models ({each}); "
                                   "give --model, or languages of one model")
    return tuple(str(m) for m in next(iter(chosen.values())).members)


def _given_lexicons(lexicon_files: tuple[str, ...], languages: tuple[str, ...]):
    """The lexicons of evaluate's / report's ``--lexicon FILE|shipped`` (None when not given:
    the model alone)."""
    if not lexicon_files:
        return None
    files = tuple(f for f in lexicon_files if f != "shipped")
    for path in files:
        if not os.path.isfile(path):
            raise click.BadParameter(f"{path}: no such file (or 'shipped')",
                                     param_hint="--lexicon")
    return _lexicons(files, False, languages[0] if len(languages) == 1 else None,
                     shipped="shipped" in lexicon_files)


@main.command("evaluate")
@click.option("--model", "models", multiple=True, type=click.Path(exists=True),
              help="Checkpoint, or a folder of member checkpoints; repeat for an ensemble "
                   "(default with one --lang and no --pred: the shipped model). Predicts the "
                   "gold inputs (beam --beam) and adds the sparsity statistics.")
@click.option("--pred", "pred_files", multiple=True,
              type=click.Path(exists=True, dir_okay=False),
              help="Predictions made elsewhere, lemma<TAB>form<TAB>tags (repeatable, one per "
                   "--gold).")
@click.option("--gold", "gold_files", multiple=True,
              type=click.Path(exists=True, dir_okay=False),
              help="Gold file, lemma<TAB>form<TAB>tags (repeatable, paired with --pred in order).")
@click.option("--lang", "languages", multiple=True, metavar="L", callback=_comma_list,
              help="Language of each --gold file (default: from the file name, german-dev -> "
                   "german); with --model and no --gold, the language(s) whose --split is read "
                   "(repeatable, or a comma-separated list).")
@click.option("--split", default="dev", show_default=True,
              help="With --model and no --gold: the shared-task split to evaluate on.")
@_beam_option(" (with --model)")
@_DEVICE_OPTION
@_SETTING_OPTION
@_threads_option
@_DATA_DIR_OPTION
@click.option("--out", "out_prefix", default=None, metavar="PREFIX",
              help="Also write PREFIX.parquet, PREFIX.csv and PREFIX.svg (accuracy per language "
                   "beside the official baseline).")
@click.option("--baseline", type=click.Path(exists=True, dir_okay=False), default=None,
              help="The official baseline table for PREFIX.svg (default: "
                   "conll2018-task1-baseline-dev.csv in or beside the data folder, if there).")
@click.option("--input-format", "input_format", type=click.Choice(["auto", "2018", "2023"]),
              default="auto", show_default=True,
              help="Layout of the --pred and --gold files: 2018 lemma<TAB>form<TAB>tags, 2023 "
                   "lemma<TAB>tags<TAB>form; auto: each file's, from where its tag bundles are.")
@click.option("--lexicon", "lexicon_files", multiple=True, metavar="FILE|shipped",
              help="Score the model with this lexicon consulted first (repeatable; 'shipped': "
                   "the shipped lexicon of the shared-task data). Without it the model alone "
                   "is scored (INFLECT_LEXICON is not read here). A lexicon that attests the "
                   "gold forms of more than half a language's inputs is refused.")
@_format_option("the results' columns: language, n, accuracy (percent), levenshtein, ... at "
                "full precision")
def evaluate_command(models, pred_files, gold_files, languages, split, beam, device, data_dir,
                     out_prefix, baseline, threads, setting, input_format, lexicon_files,
                     out_format):
    """Score as the CoNLL-SIGMORPHON 2018 scorer does: accuracy and mean Levenshtein distance
    per language, and their macro-average; with --model, also the sparsity statistics.

    Inputs are matched by lemma and tag bundle (not by line); a gold input with no prediction
    counts as the empty prediction. Examples: inflect evaluate --model runs/de --lang german
    --split dev --out results/de; inflect evaluate --pred german.pred --gold german-dev.
    """
    _set_threads(threads)
    import warnings

    from inflect.evaluation.runner import evaluate_checkpoints, write_results
    from inflect.evaluation.scoring import score_files
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.report import evaluation_table, frame_tsv, scores_table
    from inflect.text.records import DataFormatError

    if models and pred_files:
        raise click.UsageError("give either --model (predict here) or --pred (predictions "
                               "made elsewhere), not both")
    _check_setting(setting, models, pred_files)
    if not pred_files:
        models = _models_or_shipped(models, languages, setting)
    if not models and not (pred_files and gold_files):
        raise click.UsageError("give --model (or one --lang with a shipped model) with "
                               "--lang/--split or --gold, or --pred with --gold")
    fmt = _output_format(out_format)
    if out_prefix is not None and (
        out_prefix.endswith(("/", os.sep)) or os.path.isdir(out_prefix) or not out_prefix.strip()
    ):
        raise click.BadParameter(
            f"{out_prefix!r} names a folder; --out takes a PREFIX of file names (results/de "
            "writes results/de.parquet, results/de.csv and results/de.svg)", param_hint="--out")
    outputs = [f"{out_prefix}.{suffix}" for suffix in ("parquet", "csv", "svg")] if out_prefix else []
    _check_outputs(*outputs)
    if lexicon_files and pred_files:
        raise click.UsageError("--lexicon is consulted when the model predicts here (--model); "
                               "with --pred the predictions are already made")
    from inflect.lexicon import LexiconError

    try:
        lexicons = _given_lexicons(lexicon_files, languages)
        if models:
            warnings.simplefilter("ignore", UnknownSymbolWarning)
            result = evaluate_checkpoints(models, languages, split, gold_files,
                                          data_dir=data_dir, beam_size=beam, device=device,
                                          fmt=input_format, lexicons=lexicons)
            frame = result.frame
            title = f"{', '.join(models)} (beam {beam}, {int(frame['members'][0])} member(s))"
            if result.lexicon is None:
                scored = "the model alone (no lexicon; --lexicon consults one)"
            else:
                answered = sum(a for a, _ in result.attested.values())
                scored = (f"the model with the lexicon {result.lexicon} first (it answered "
                          f"{answered:,} of {len(result.gold):,} inputs)")
            title += f"; scored: {scored}"
            click.echo(f"scored: {scored}", err=True)
            for error in result.errors:
                click.echo(f"rejected (scored as empty): {error}", err=True)
        else:
            frame = score_files(pred_files, gold_files, languages or None, fmt=input_format)
    except click.ClickException:
        raise
    except (DataFormatError, LexiconError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    if out_prefix:  # written before rendering: a rendering failure cannot lose them
        from inflect.corpora.baseline import official_baseline
        from inflect.render.report_html import accuracy_svg

        try:
            svg = accuracy_svg(frame, official_baseline(baseline, data_dir))
            paths = write_results(frame, out_prefix, svg)
        except (OSError, ValueError) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo("wrote " + ", ".join(str(p) for p in paths), err=True)
    if fmt == "tsv":
        _echo_tsv(lambda: frame_tsv(frame))
        return
    from rich.console import Console

    Console().print(evaluation_table(frame, title) if models else scores_table(frame))


# --- inflect report ambiguity / inflect explain -------------------------------------------------


@main.group()
def report() -> None:
    """Reports on a model's predictions."""


@report.command("ambiguity")
@click.option("--model", "models", multiple=True, type=click.Path(exists=True),
              help="Checkpoint, or a folder of members; repeat for an ensemble. Default: the "
                   "shipped model of --lang.")
@click.option("--lang", "languages", multiple=True, metavar="L", callback=_comma_list,
              help="Language(s) whose --split is read (or of each --gold file): repeatable, or "
                   "a comma-separated list (--lang german,finnish).")
@click.option("--split", default="dev", show_default=True)
@click.option("--gold", "gold_files", multiple=True,
              type=click.Path(exists=True, dir_okay=False), help="Gold file(s) instead of --split.")
@_beam_option()
@_DEVICE_OPTION
@_SETTING_OPTION
@_threads_option
@_DATA_DIR_OPTION
@click.option("--out", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Write the report to FILE.md (Markdown) or FILE.html instead of the terminal.")
@click.option("--maps", type=click.IntRange(min=0), default=2, show_default=True,
              help="Attention maps per ambiguous input in the HTML report (its most probable "
                   "output strings); 0 for none.")
@click.option("--lexicon", "lexicon_files", multiple=True, metavar="FILE|shipped",
              help="Mark the forms this lexicon attests (repeatable; 'shipped': the shipped "
                   "lexicon). Without it the report is the model's alone.")
@_format_option("without --out, one line per form of each ambiguous input: tags, lemma, "
                "language, gold, gold_in_support, certificate, count, rank, form, probability")
def report_ambiguity(models, languages, split, gold_files, beam, device, data_dir, out_file,
                     maps, threads, setting, lexicon_files, out_format):
    """The inputs with more than one nonzero-probability form, grouped by tag bundle, with the
    gold form and whether it is in the support.

    Example: inflect report ambiguity --model runs/de --lang german --split dev --out amb.md
    """
    _set_threads(threads)
    import warnings
    from pathlib import Path

    from inflect.evaluation.ambiguity import ambiguity_report
    from inflect.evaluation.runner import evaluate_predictor, load_gold
    from inflect.inference.explain import explain_all
    from inflect.inference.predictor import Predictor
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.report import (
        ambiguity_html,
        ambiguity_markdown,
        ambiguity_rich,
        ambiguity_tsv,
    )
    from inflect.text.records import DataFormatError

    suffix = Path(out_file).suffix.lower() if out_file else None
    if suffix not in (None, ".md", ".markdown", ".html", ".htm"):
        raise click.BadParameter(f"{out_file}: the file must end in .md or .html",
                                 param_hint="--out")
    fmt = _output_format(out_format)
    if out_file:
        _check_outputs(out_file)
    warnings.simplefilter("ignore", UnknownSymbolWarning)
    models = _models_or_shipped(models, languages, setting)
    if not models:
        raise click.UsageError("give --model, or one --lang that has a shipped model")
    html = suffix in (".html", ".htm")
    from inflect.lexicon import LexiconError

    try:
        lexicons = _given_lexicons(lexicon_files, languages)
        gold = load_gold(languages, split, gold_files, data_dir)
        predictor = Predictor.from_checkpoints(models, device=device, beam_size=beam,
                                               lexicons=lexicons)
        result = evaluate_predictor(predictor, gold, check_lexicon=False)
        done = [s for s in result.searched if s is not None]
        found = ambiguity_report([s.prediction for s in done], result.gold,
                                 explain_all(predictor, done, maps) if html and maps else None,
                                 rejected=len(result.errors))
    except (DataFormatError, LexiconError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    for error in result.errors:
        click.echo(f"rejected (not in the report): {error}", err=True)
    if out_file is None:
        if fmt == "tsv":
            _echo_tsv(lambda: ambiguity_tsv(found))
            return
        from rich.console import Console

        Console().print(ambiguity_rich(found))
        return
    where = ", ".join(languages) or ", ".join(gold_files)
    title = f"Ambiguity report: {where} {split if not gold_files else ''}".rstrip()
    about = {"models": ", ".join(models), "language": ", ".join(languages) or "—",
             "split": f"gold files {where}" if gold_files else split, "beam": str(beam)}
    text = (ambiguity_html(found, title, about) if html
            else ambiguity_markdown(found, title, about))
    from inflect.io.outputs import write_outputs

    try:
        write_outputs([(out_file, lambda temp: temp.write_text(text, encoding="utf-8"))])
    except OSError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {out_file} ({found.ambiguous} ambiguous inputs of {found.inputs})",
               err=True)


# --- inflect predict / inflect models: the main job -------------------------------------------

_MODELS_DIR_OPTION = click.option(
    "--models-dir",
    type=click.Path(file_okay=False),
    envvar="INFLECT_MODELS_DIR",
    default=None,
    help="Folder with a registry.toml replacing the shipped models (env: INFLECT_MODELS_DIR).",
)


_LEXICON_OPTION = click.option(
    "--lexicon", "lexicon_files", multiple=True, envvar="INFLECT_LEXICON",
    type=click.Path(exists=True, dir_okay=False),
    help="Lexicon of attested forms, lemma<TAB>form<TAB>tags (2018) or lemma<TAB>tags<TAB>form "
         "(2023); repeatable (env: INFLECT_LEXICON, paths separated by ':'). Its language is the "
         "file name's (german.tsv, german-train-high), else --lang's. Consulted before the "
         "shipped lexicon: it overrides it for the inputs it holds.")


def _lexicons(lexicon_files: tuple[str, ...], no_lexicon: bool, lang: str | None,
              shipped: bool = True):
    """The lexicons of --lexicon / --no-lexicon (the user's files, then the shipped store);
    a lexicon of another language than --lang is named on stderr (it is not consulted)."""
    from inflect.lexicon import load_lexicons

    if no_lexicon:
        ctx = click.get_current_context()
        given = ctx.get_parameter_source("lexicon_files") == click.core.ParameterSource.COMMANDLINE
        if lexicon_files and given:  # INFLECT_LEXICON alone: --no-lexicon overrides it
            raise click.UsageError("--no-lexicon asks the model alone; drop it or --lexicon")
        return None
    lexicons = load_lexicons(lexicon_files, shipped=shipped, language=lang)
    if lang and lexicon_files:
        from inflect.text.languages import resolve

        wanted = resolve(lang).name
        user = lexicons.layers[0]
        if wanted not in user.languages():
            click.echo(f"warning: the lexicon {user.name} holds {', '.join(sorted(user.languages()))}"
                       f" forms, not {wanted}: it is not consulted", err=True)
    return lexicons
_STRICT_OPTION = click.option(
    "--strict", is_flag=True, default=False,
    help="Stop at the first input that cannot be answered (a line that cannot be read, an "
         "unknown UniMorph feature, ...). Default: each such line gets an error record in the "
         "output, the run goes on and the exit status is 1 at the end.")


@main.command("predict")
@click.argument("lemma", required=False)
@click.argument("tags", required=False)
@click.option("--lang", default=None,
              help="Language: any name or code (german, de, deu). Needed without --model; with "
                   "--model, optional when the model knows one language.")
@click.option("--model", "models", multiple=True, type=click.Path(exists=True),
              help="Checkpoint (folder or .safetensors), or a folder of member checkpoints; "
                   "repeat for an ensemble. Default: the shipped model of --lang.")
@click.option("--input", "input_path",
              type=click.Path(exists=True, dir_okay=False, allow_dash=True),
              default=None, help="Read inputs from FILE ('-': standard input, also read when "
                                 "it is a pipe and no LEMMA is given), one a line: "
                                 "lemma<TAB>tags, or lemma<TAB>form<TAB>tags (form ignored).")
@click.option("--input-format", type=click.Choice(["auto", "covered", "2018", "2023"]),
              default="auto", show_default=True,
              help="auto: 2 fields covered; 3 fields 2018 (lemma, form, tags) or 2023 (lemma, "
                   "tags, form), from where the tag bundles are.")
@_beam_option()
@_max_forms_option("forms")
@click.option("--support", type=click.Choice(["auto", "always", "never"]), default="auto",
              show_default=True,
              help="Listing every nonzero-probability form: auto widens the beam (up to "
                   f"{defaults.WIDE_BEAM_SIZE}) "
                   "where it is not certified full support; always enumerates best-first "
                   "(slower, exact order up to --max-forms); never keeps the beam's n-best.")
@click.option("--format", "out_format", type=click.Choice(["table", "tsv", "jsonl", "2018"]),
              default=None,
              help="Output: table (default on a terminal); tsv (default in a pipe): a header "
                   "line, then one line per form listed with the columns lemma, tags, language, "
                   "certificate (the model's: full_support, mode_only, none), count (forms the "
                   "model lists, or >N), rank (1 = the first form: an attested one where there "
                   "is one), form, probability (the model's), source (model, or where the form "
                   "is attested); rank, form, probability and source empty when the model "
                   "finished no form; an input that got no answer: certificate 'error'; jsonl "
                   "(one object per input, with the shipped model that answered); "
                   "or 2018 (lemma, first form, tags: for inflect evaluate).")
@_LEXICON_OPTION
@click.option("--no-lexicon", is_flag=True, default=False,
              help="Ask the model alone: no attested forms (neither --lexicon's nor the shipped "
                   "lexicon of the shared-task data, which is consulted by default).")
@_STRICT_OPTION
@_DEVICE_OPTION
@_SETTING_OPTION
@_threads_option
@_MODELS_DIR_OPTION
def predict_command(lemma, tags, lang, models, input_path, input_format, beam, max_forms,
                    support, out_format, lexicon_files, no_lexicon, strict, device, models_dir,
                    threads, setting):
    """Inflect LEMMA for the tag bundle TAGS: every form of nonzero probability, its probability
    and a certificate of exact search.

    Attested forms first: a form written in a lexicon (--lexicon FILE, then the shipped lexicon
    of the shared-task data) is listed first, marked attested with its source, and the model's
    own forms follow; --no-lexicon asks the model alone.

    Example: inflect predict --lang german Haus "N;DAT;PL". Many inputs: inflect predict --lang
    german --input german-covered-test (or - for standard input, read also when it is a pipe:
    cut -f1,3 german-dev | inflect predict --lang german); results stream out as they come.
    Whitespace around a lemma (an argument or a line's field) is removed, spaces inside it
    kept; around the tag bundle's features likewise. Every line gets an answer or an error record (a line that cannot be read, or an input the
    model cannot take, with its line number) and the run goes on; an unseen UniMorph feature is
    read as the unknown feature, with a warning. The exit status is 1 when any line failed;
    --strict stops at the first.
    """
    _set_threads(threads)
    import sys
    import warnings

    if input_path is not None and lemma is not None:
        raise click.UsageError("give either LEMMA TAGS or --input FILE, not both")
    if input_path is None and lemma is None and not sys.stdin.isatty():
        input_path = "-"  # a pipe, as translate reads it
    if input_path is None and (lemma is None or tags is None):
        raise click.UsageError("give LEMMA and TAGS (e.g. Haus 'N;DAT;PL'), or --input FILE "
                               "('-' or a pipe: standard input)")
    _check_setting(setting, models)
    fmt = _output_format(out_format)

    from inflect.inference.predictor import load_predictor
    from inflect.inference.queries import InputError, make_query, read_queries
    from inflect.inference.registry import NoDefaultModelError
    from inflect.lexicon import LexiconError
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.report import (
        PREDICTION_TSV_COLUMNS,
        prediction_2018,
        prediction_jsonl,
        prediction_table,
        prediction_tsv,
    )

    warnings.simplefilter("ignore", UnknownSymbolWarning)  # kept in each record instead
    try:
        lexicons = _lexicons(lexicon_files, no_lexicon, lang)
        predictor = load_predictor(models, lang, models_dir=models_dir, device=device,
                                   setting=setting, lexicons=lexicons, strict=strict,
                                   beam_size=beam, max_forms=max_forms, support=support)
        if input_path is None:
            queries = iter([make_query(lemma, tags, lang)])
        else:
            queries = read_queries(
                input_path, lang, input_format,
                on_blank=lambda src, n: click.echo(f"warning: {src}:{n}: blank line skipped",
                                                   err=True),
                errors="raise" if strict else "yield")
    except (ValueError, LookupError, OSError) as exc:
        raise click.ClickException(str(exc)) from None

    renderers = {"tsv": prediction_tsv, "jsonl": prediction_jsonl, "2018": prediction_2018}
    _stream_records(predictor.stream(queries, idle=_idle(input_path)), fmt, renderers,
                    prediction_table,
                    (InputError, NoDefaultModelError, LexiconError, ValueError, OSError),
                    PREDICTION_TSV_COLUMNS)


@main.command("paradigm")
@click.argument("lemma", required=False)
@click.option("--lang", default=None,
              help="Language: any name or code (finnish, fi, fin). Needed without --model; with "
                   "--model, optional when the model knows one language.")
@click.option("--pos", default=None,
              help="Part of speech: a UniMorph part-of-speech feature (N, V, ADJ, V.PTCP, ...; V "
                   "includes V.PTCP, V.CVB, ...). Without it, the language's only one; a "
                   "language with several lists them.")
@click.option("--model", "models", multiple=True, type=click.Path(exists=True),
              help="Checkpoint (folder or .safetensors), or a folder of member checkpoints; "
                   "repeat for an ensemble. Default: the shipped model of --lang.")
@click.option("--input", "input_path",
              type=click.Path(exists=True, dir_okay=False, allow_dash=True), default=None,
              help="Read lemmas from FILE ('-': standard input, also read when it is a pipe and "
                   "no LEMMA is given), one a line: lemma, or lemma<TAB>pos; each paradigm is "
                   "written as soon as it is made.")
@_beam_option()
@_max_forms_option("forms")
@click.option("--support", type=click.Choice(["auto", "always", "never"]), default="auto",
              show_default=True,
              help="As inflect predict's: auto widens the beam where it is not certified full "
                   "support; always enumerates best-first; never keeps the beam's n-best.")
@click.option("--fold", "fold_below", type=click.FloatRange(0, 1), show_default=True,
              default=defaults.PARADIGM_FOLD_BELOW,
              help="In the table and the HTML page, fold a cell's forms below this probability "
                   "under its first ones.")
@click.option("--format", "out_format", type=click.Choice(["table", "tsv", "jsonl", "html"]),
              default=None,
              help="Output: table (default on a terminal: a grid by UniMorph dimension); tsv "
                   "(default in a pipe): a header line, then one line per cell with the columns "
                   "lemma, language, pos, tags, block, row, column, certificate, count, "
                   "uncertain (1/0), form, probability (the most probable form), attested (its "
                   "source, if attested), others (the other forms: a JSON array of [form, "
                   "probability]); jsonl: one JSON object per cell; html: one self-contained "
                   "page, written to --out.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="With --format html: the page to write.")
@_DEVICE_OPTION
@_SETTING_OPTION
@_threads_option
@_MODELS_DIR_OPTION
def paradigm_command(lemma, lang, pos, models, input_path, beam, max_forms, support, fold_below,
                     out_format, out_path, device, setting, threads, models_dir):
    """Every cell of LEMMA's paradigm at once: the tag bundles the language's training data
    attest for its part of speech, each with its forms, their probabilities and a certificate.

    Example: inflect paradigm --lang finnish talo --pos N (a case x number grid). Many lemmas:
    inflect paradigm --lang spanish --pos V --input verbs.txt --format jsonl.
    """
    _set_threads(threads)
    import sys
    import warnings

    if input_path is not None and lemma is not None:
        raise click.UsageError("give either LEMMA or --input FILE, not both")
    if input_path is None and lemma is None and not sys.stdin.isatty():
        input_path = "-"
    if input_path is None and lemma is None:
        raise click.UsageError("give a LEMMA (e.g. inflect paradigm --lang finnish talo --pos N), "
                               "or --input FILE ('-' or a pipe: standard input)")
    _check_setting(setting, models)
    fmt = _output_format(out_format)
    if fmt == "html" and out_path is None:
        raise click.UsageError("--format html writes a page: give --out FILE (e.g. --out "
                               "talo.html)")
    if out_path is not None and fmt != "html":
        raise click.UsageError("--out is for --format html; the other formats go to standard "
                               "output")
    if out_path is not None:
        _check_outputs(out_path)

    from inflect.inference.paradigm import ParadigmRequest, Paradigms, read_requests
    from inflect.inference.predictor import load_predictor
    from inflect.inference.queries import InputError
    from inflect.inference.registry import NoDefaultModelError
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.paradigm import (
        PARADIGM_TSV_COLUMNS,
        paradigm_jsonl,
        paradigm_table,
        paradigm_tsv,
    )

    warnings.simplefilter("ignore", UnknownSymbolWarning)  # kept in each paradigm instead
    try:
        predictor = load_predictor(models, lang, models_dir=models_dir, device=device,
                                   setting=setting, beam_size=beam, max_forms=max_forms,
                                   support=support, chunk_size=defaults.PARADIGM_CHUNK_SIZE)
        paradigms = Paradigms(predictor, setting=setting)
        if input_path is None:
            requests = iter([ParadigmRequest(lemma, pos, lang)])
        else:
            requests = read_requests(
                input_path,
                on_blank=lambda src, n: click.echo(f"warning: {src}:{n}: blank line skipped",
                                                   err=True))
    except (ValueError, LookupError, OSError) as exc:
        raise click.ClickException(str(exc)) from None

    errors = (InputError, NoDefaultModelError, ValueError, OSError)
    found = paradigms.stream(requests, lang, pos)
    if fmt == "html":
        from inflect.io.outputs import write_outputs
        from inflect.render.paradigm_html import paradigm_page

        try:
            made = list(found)
        except errors as exc:
            raise click.ClickException(str(exc)) from None
        for p in made:
            for note in p.warnings:
                click.echo(f"warning: {p.where + ': ' if p.where else ''}{note}", err=True)
        try:
            write_outputs([(out_path, lambda temp: temp.write_text(
                paradigm_page(made, fold_below=fold_below), encoding="utf-8"))])
        except (OSError, ValueError) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"wrote {out_path}: {len(made)} paradigm(s), "
                   f"{sum(len(p.cells) for p in made)} cells", err=True)
        return
    renderers = {"tsv": paradigm_tsv, "jsonl": paradigm_jsonl}
    _stream_records(found, fmt, renderers, lambda p: paradigm_table(p, fold_below), errors,
                    PARADIGM_TSV_COLUMNS)


def _stream_records(records, fmt, renderers, table, errors, tsv_header) -> None:
    """Write each record as it comes (a rich table, or its lines flushed per record; TSV after a
    header line), warnings to stderr (each text once; a table shows them itself); an error record
    (:class:`inflect.inference.predictor.ErrorRecord`) is written in its place and its message goes to
    stderr, and the command ends with status 1 after the last record when there was one; an
    error raised (``--strict``) ends it at once, what was written stays written."""
    import sys

    from inflect.inference.outcomes import ErrorRecord

    console = None
    if fmt == "table":
        from rich.console import Console

        console = Console()
    failed, first, seen = 0, None, set()
    try:
        if fmt == "tsv":
            sys.stdout.write("\t".join(tsv_header) + "\n")
        for record in records:
            is_error = isinstance(record, ErrorRecord)
            if console is not None:
                console.print(table(record))
            else:
                text = renderers[fmt](record)
                if text is not None:
                    sys.stdout.write(text + "\n")
                sys.stdout.flush()
            if is_error:
                failed += 1
                first = first or record.message
                if console is None:
                    click.echo(f"error: {record.message}", err=True)
                continue
            if console is not None:
                continue  # the table shows the record's warnings: not again on stderr
            where = f"{record.where}: " if record.where is not None else ""
            for note in record.warnings:
                if note not in seen:  # once per text (a feature, a symbol of a lemma)
                    seen.add(note)
                    click.echo(f"warning: {where}{note}", err=True)
    except BrokenPipeError:  # e.g. `inflect predict ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None
    except errors as exc:
        sys.stdout.flush()
        raise click.ClickException(str(exc)) from None
    if failed:
        plural = "s" if failed > 1 else ""
        raise click.ClickException(f"{failed} input{plural} got no answer (the first: {first})")


@main.command("models")
@click.option("--format", "out_format", type=click.Choice(["table", "tsv"]), default=None,
              help="table (default on a terminal) or tsv (default in a pipe: language, model, "
                   "members, dev_accuracy, setting, size_bytes, data, commands, "
                   "start_commands, start_note; with a header).")
@click.option("--all", "every", is_flag=True, default=False,
              help="Every model of every language (not only the default `inflect predict` uses).")
@click.option("--verbose", "-v", is_flag=True, default=False,
              help="After the table, every row's data and training commands (the whole "
                   "record), not each model's once.")
@_MODELS_DIR_OPTION
def models_command(out_format, every, verbose, models_dir):
    """List the shipped models by language: one line per language with the model `inflect
    predict --lang L` uses, its setting, dev accuracy on L's dev set and size; then, once per
    model, the commands that trained it (a warm start's first)."""

    from inflect.inference.registry import REGISTRY_FILE, RegistryError, list_models
    from inflect.inference.registry import models_dir as resolve_models_dir

    try:
        entries = list_models(models_dir, every=every)
    except RegistryError as exc:
        raise click.ClickException(str(exc)) from None
    lacking = {entry.name: entry.missing for entry in entries if entry.missing}
    for name, missing in lacking.items():
        click.echo(f"warning: the model {name!r} lacks {', '.join(map(str, missing))}", err=True)
    if not entries:
        registry = resolve_models_dir(models_dir) / REGISTRY_FILE
        click.echo(
            f"no shipped models: {registry} lists none. Train one with `inflect train` and use "
            "it with `inflect predict --model PATH`."
        )
        return
    if _output_format(out_format) == "tsv":
        from inflect.render.report import models_tsv

        click.echo(models_tsv(entries), nl=False)
        return
    from rich.console import Console

    from inflect.render.report import models_commands, models_table

    console = Console()
    console.print(models_table(entries))
    for line in models_commands(entries, every_row=verbose):  # a command: one line, whole
        console.print(line, soft_wrap=True)


# --- inflect explain: attention of one prediction -----------------------------------------------


@main.command("explain")
@click.argument("lemma")
@click.argument("tags")
@click.option("--lang", default=None, help="Language: any name or code.")
@click.option("--model", "models", multiple=True, type=click.Path(exists=True),
              help="Checkpoint or folder of members; repeat for an ensemble. Default: the "
                   "shipped model of --lang.")
@_beam_option()
@click.option("--png", "png", type=click.Path(dir_okay=False), default=None,
              help="Also write the heat maps as a PNG, one panel per form (needs matplotlib: the "
                   "'plot' extra).")
@click.option("--max-forms", type=click.IntRange(min=1), default=4, show_default=True,
              help="Draw at most this many forms of the support in the PNG (most probable first).")
@_format_option("one line per attention weight of each string drawn: form, probability, step, "
                "output, position, source, weight")
@_DEVICE_OPTION
@_SETTING_OPTION
@_threads_option
@_MODELS_DIR_OPTION
def explain_command(lemma, tags, lang, models, beam, png, max_forms, out_format, device,
                    models_dir, threads, setting):
    """The attention matrix of the best output for LEMMA and TAGS: output symbols (rows) by lemma
    symbols (columns), weights in percent, exact zeros blank.

    Example: inflect explain --lang german Haus "N;DAT;PL" --png haus.png
    """
    _set_threads(threads)
    import warnings

    from inflect.inference.explain import explain
    from inflect.inference.predictor import load_predictor
    from inflect.inference.registry import NoDefaultModelError
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.report import (
        attention_heatmap,
        attention_png,
        attention_tsv,
        check_plotting,
        prediction_table,
    )

    _check_setting(setting, models)
    fmt = _output_format(out_format)
    if png:  # before any work: the file can be written, matplotlib is there
        _check_outputs(png)
        try:
            check_plotting()
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from None
    warnings.simplefilter("ignore", UnknownSymbolWarning)
    try:
        predictor = load_predictor(models, lang, models_dir=models_dir, device=device,
                                   setting=setting,
                                   beam_size=beam)
        found = explain(predictor, lemma, tags, lang, max_forms)
    except (NoDefaultModelError, ValueError, LookupError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    for note in found.prediction.warnings:  # e.g. symbols unseen in training, as predict says
        click.echo(f"warning: {note}", err=True)
    if png:  # written before rendering: a rendering failure cannot lose it
        try:
            attention_png(found, png, max_forms)
        except (RuntimeError, OSError) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"wrote {png}", err=True)
    if fmt == "tsv":
        _echo_tsv(lambda: attention_tsv(found))
        return
    from rich.console import Console

    console = Console()
    console.print(prediction_table(found.prediction))
    console.print(attention_heatmap(found))


# --- inflect translate: sentences with a translation checkpoint -------------------------------


@main.command("translate")
@click.argument("sentences", nargs=-1)
@click.option("--model", "models", multiple=True, required=True, type=click.Path(exists=True),
              help="Translation checkpoint (folder or .safetensors; its subword model is inside), "
                   "or a folder of members; repeat for an ensemble.")
@click.option("--input", "input_path",
              type=click.Path(exists=True, dir_okay=False, allow_dash=True),
              default=None, help="Read sentences from FILE ('-': standard input), one a line.")
@_beam_option()
@_max_forms_option("translations")
@click.option("--support", type=click.Choice(["auto", "always", "never"]), default="never",
              show_default=True,
              help=f"never: the beam's n-best list; auto: widen the beam (up to "
                   f"{defaults.WIDE_BEAM_SIZE}) where it is not certified full support; always: "
                   "enumerate best-first (slow).")
@click.option("--format", "out_format", type=click.Choice(["table", "tsv", "jsonl", "text"]),
              default=None,
              help="Output: table (default on a terminal); tsv (default in a pipe): a header "
                   "line, then one line per translation listed with the columns sentence, tags "
                   "(empty), pair, certificate, count, rank, translation, probability; jsonl; or "
                   "text (the best translation, one a line).")
@_STRICT_OPTION
@_DEVICE_OPTION
@_threads_option
def translate_command(sentences, models, input_path, beam, max_forms, support, out_format,
                      strict, device, threads):
    """Translate SENTENCES (or --input FILE, or standard input when neither is given) with a
    checkpoint that carries its subword model: the n-best translations, their probabilities and
    a certificate of exact search.

    Example: inflect translate --model runs/mt/out-entmax15_att-entmax15 "Ein Hund läuft."
    """
    _set_threads(threads)
    import warnings

    from inflect.inference.queries import InputError
    from inflect.inference.translator import SentenceQuery, Translator, read_sentences
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.report import (
        TRANSLATION_TSV_COLUMNS,
        prediction_jsonl,
        prediction_table,
        prediction_tsv,
    )

    if sentences and input_path is not None:
        raise click.UsageError("give either SENTENCES or --input FILE, not both")
    fmt = _output_format(out_format)
    warnings.simplefilter("ignore", UnknownSymbolWarning)  # kept in each record instead
    try:
        translator = Translator.from_checkpoints(models, device, beam_size=beam,
                                                 max_forms=max_forms, support=support,
                                                 strict=strict)
        if sentences:
            queries = iter([SentenceQuery(s, "<argument>", i + 1)
                            for i, s in enumerate(sentences)])
        else:
            queries = read_sentences(input_path or "-")
    except (ValueError, ImportError, OSError) as exc:
        raise click.ClickException(str(exc)) from None

    def text(pred):  # an error record: an empty line, keeping the lines in step
        best = getattr(pred, "best", None)
        return best.form if best is not None else ""

    renderers = {"tsv": prediction_tsv, "jsonl": prediction_jsonl, "text": text}
    _stream_records(translator.stream(queries, idle=None if sentences else _idle(
                        input_path or "-")), fmt, renderers, prediction_table,
                    (InputError, ValueError, OSError), TRANSLATION_TSV_COLUMNS)


if __name__ == "__main__":  # pragma: no cover
    main()
