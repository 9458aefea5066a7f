"""`inflect evaluate`: the CoNLL–SIGMORPHON 2018 scorer's accuracy and Levenshtein distance, of
a model predicting here (with its sparsity statistics) or of predictions made elsewhere."""

from __future__ import annotations

import os

import click

from inflect.cli.options import (
    beam_option,
    data_dir_option,
    device_option,
    format_option,
    language_list,
    setting_option,
    tag_format_option,
    threads_option,
)
from inflect.cli.output import echo_tsv, output_format
from inflect.cli.resolve import (
    check_outputs,
    check_setting,
    given_lexicons,
    models_or_shipped,
    set_threads,
)


@click.command("evaluate")
@click.option("--model", "models", is_eager=True, multiple=True, type=click.Path(exists=True),
              help="Checkpoint, or a folder of member checkpoints; repeat for an ensemble "
                   "(default with one --lang and no --pred: the shipped model). Predicts the "
                   "gold inputs (beam --beam) and adds the sparsity statistics.")
@click.option("--pred", "pred_files", is_eager=True, multiple=True,
              type=click.Path(exists=True, dir_okay=False),
              help="Predictions made elsewhere, lemma<TAB>form<TAB>tags (repeatable, one per "
                   "--gold).")
@click.option("--gold", "gold_files", multiple=True,
              type=click.Path(exists=True, dir_okay=False),
              help="Gold file, lemma<TAB>form<TAB>tags (repeatable, paired with --pred in order).")
@click.option("--lang", "languages", multiple=True, metavar="L", callback=language_list,
              help="Language of each --gold file (default: from the file name, german-dev -> "
                   "german, else the name is the row's label); with --model and no --gold, the "
                   "language(s) whose --split is read (repeatable, or a comma-separated list).")
@click.option("--split", default="dev", show_default=True,
              help="With --model and no --gold: the shared-task split to evaluate on.")
@beam_option(" (with --model)")
@device_option
@setting_option
@threads_option
@data_dir_option
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
@click.option("--lexicon", "lexicon_files", multiple=True,
              metavar="FILE|shipped|unimorph|dictionaries",
              help="Score the model with this lexicon consulted first (repeatable; 'shipped': "
                   "the shipped lexicon of the shared-task data; 'unimorph': the UniMorph "
                   "languages fetched, which contain the shared-task dev and test pairs; "
                   "'dictionaries': the field dictionaries installed). Without it the model "
                   "alone is scored (INFLECT_LEXICON is not read here). A lexicon that attests "
                   "the gold forms of more than half a language's inputs is refused.")
@click.option("--siblings", "siblings_split", default=None, metavar="SPLIT",
              type=click.Choice(["train-high", "train-medium", "train-low"]),
              help="Re-rank the model's forms of each input by the lemma's other forms in this "
                   "training split of its language (analogy over the split's paradigms: "
                   "inflect.inference.siblings; probabilities and certificates stay the "
                   "model's). Without it the model's own order is scored.")
@tag_format_option
@format_option("the results' columns: language, n, accuracy (percent), levenshtein, ... at "
                "full precision")
def evaluate_command(models, pred_files, gold_files, languages, split, beam, device, data_dir,
                     out_prefix, baseline, threads, setting, input_format, lexicon_files,
                     siblings_split, tag_format, out_format):
    """Score as the CoNLL-SIGMORPHON 2018 scorer does: accuracy and mean Levenshtein distance
    per language, and their macro-average; with --model, also the sparsity statistics.

    Inputs are matched by lemma and tag bundle (not by line); a gold input with no prediction
    counts as the empty prediction. Gold tags in UniMorph 4 or UD (--tag-format) are read as the
    language's 2018 bundles when the model predicts here; --pred files are matched to --gold
    by the tags as written (inflect predict --format 2018 writes them so). Examples: inflect
    evaluate --model runs/de --lang german --split dev --out results/de; inflect evaluate --pred
    german.pred --gold german-dev; any two files, as the shared task's evalm.py: inflect
    evaluate --pred pred --gold gold (the row is named by the gold file's language, or else its
    name).
    """
    set_threads(threads)
    import warnings

    from inflect.evaluation.runner import evaluate_checkpoints
    from inflect.evaluation.scoring import score_files
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.tables import evaluation_table, scores_table
    from inflect.render.tsv import frame_tsv
    from inflect.text.records import DataFormatError

    models = _checked_sources(models, pred_files, gold_files, languages, setting, lexicon_files,
                              tag_format, siblings_split)
    fmt = output_format(out_format)
    check_outputs(*_output_files(out_prefix))
    from inflect.lexicon import LexiconError

    try:
        lexicons = given_lexicons(lexicon_files, languages)
        if models:
            warnings.simplefilter("ignore", UnknownSymbolWarning)
            result = evaluate_checkpoints(models, languages, split, gold_files,
                                          data_dir=data_dir, beam_size=beam, device=device,
                                          fmt=input_format, lexicons=lexicons,
                                          tag_format=tag_format, siblings_split=siblings_split)
            frame = result.frame
            scored = _scored(result, siblings_split)
            # one model path a line (a path is never broken across lines); what was scored is
            # said once, on stderr, where it is seen in a pipe too
            title = "\n".join([*models, f"beam {beam}, {int(frame['members'][0])} member(s)"])
            click.echo(f"scored: {scored}", err=True)
            for error in result.errors:
                click.echo(f"rejected (scored as empty): {error}", err=True)
            for note, count in result.tag_notes.items():  # as predict notes them, with counts
                click.echo(f"warning: {count:,} input(s): {note}", err=True)
        else:
            _name_new_languages(languages)
            frame = score_files(pred_files, gold_files, languages or None, fmt=input_format)
    except click.ClickException:
        raise
    except (DataFormatError, LexiconError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    if out_prefix:  # written before rendering: a rendering failure cannot lose them
        _write_results(frame, out_prefix, baseline, data_dir)
    if fmt == "tsv":
        echo_tsv(lambda: frame_tsv(frame))
        return
    from inflect.render.common import fitted, terminal_console

    console = terminal_console()
    if models:  # the title soft-wrapped: a model path is folded by the terminal, never cut
        console.print(title, style="bold", soft_wrap=True, markup=False, highlight=False)
    console.print(fitted(evaluation_table(frame, None) if models else scores_table(frame)))


def _checked_sources(models, pred_files, gold_files, languages, setting, lexicon_files,
                     tag_format, siblings_split=None) -> tuple[str, ...]:
    """The models to predict with (the shipped one of one --lang where none is given and no
    --pred), after refusing the options that do not go together (a click.UsageError naming them)."""
    if models and pred_files:
        raise click.UsageError("give either --model (predict here) or --pred (predictions "
                               "made elsewhere), not both")
    check_setting(setting, models, pred_files)
    if not pred_files:
        models = models_or_shipped(models, languages, setting)
    if not models and not (pred_files and gold_files):
        raise click.UsageError("give --model (or one --lang with a shipped model) with "
                               "--lang/--split or --gold, or --pred with --gold")
    for given, option in ((lexicon_files, "--lexicon"), (siblings_split, "--siblings")):
        if given and pred_files:
            raise click.UsageError(f"{option} is used when the model predicts here (--model); "
                                   "with --pred the predictions are already made")
    if tag_format != "auto" and pred_files:
        raise click.UsageError("--tag-format reads the gold tags when the model predicts here "
                               "(--model); with --pred the files are matched by the tags as "
                               "written (drop --tag-format)")
    return models


def _name_new_languages(languages: tuple[str, ...]) -> None:
    """On stderr, each --lang of --pred/--gold scoring that no spec has (a new language's name,
    or a misspelling: the closest known names are offered); its scores are labelled with it."""
    from inflect.evaluation.scoring import language_label
    from inflect.text.languages import AmbiguousLanguageError, UnknownLanguageError, resolve

    for name in languages:
        try:
            resolve(name)
        except AmbiguousLanguageError:
            continue  # refused by the scoring, with the languages it names
        except UnknownLanguageError as exc:
            hint = (f"; did you mean {', '.join(repr(s) for s in exc.suggestions)}?"
                    if exc.suggestions else "")
            click.echo(f"warning: {name!r} is a language neither the package nor your folder "
                       f"of languages knows{hint} (scored as {language_label(name)!r})", err=True)


def _output_files(out_prefix: str | None) -> list[str]:
    """The files ``--out PREFIX`` writes (PREFIX.parquet, .csv, .svg; none without it); a
    PREFIX that names a folder is a usage error."""
    if out_prefix == "-":
        raise click.BadParameter(
            "'-': --out takes a PREFIX of three files (PREFIX.parquet, .csv, .svg), which "
            "standard output cannot hold; the results go to standard output without --out "
            "(--format tsv in full)", param_hint="--out")
    if out_prefix is not None and (
        out_prefix.endswith(("/", os.sep)) or os.path.isdir(out_prefix) or not out_prefix.strip()
    ):
        raise click.BadParameter(
            f"{out_prefix!r} names a folder; --out takes a PREFIX of file names (results/de "
            "writes results/de.parquet, results/de.csv and results/de.svg)", param_hint="--out")
    return [f"{out_prefix}.{suffix}" for suffix in ("parquet", "csv", "svg")] if out_prefix else []


def _scored(result, siblings_split: str | None = None) -> str:
    """What was scored, in words: the model alone, or the model after a lexicon and how many
    inputs the lexicon answered (of an :class:`inflect.evaluation.runner` result), and whether
    its forms were re-ranked by the lemma's other forms of a training split."""
    ranked = (f", its forms re-ranked by the lemma's other forms in {siblings_split}"
              if siblings_split else "")
    if result.lexicon is None:
        return (f"the model{ranked}" if ranked else "the model alone") + (
            " (no lexicon; --lexicon consults one)")
    answered = sum(a for a, _ in result.attested.values())
    return (f"the model{ranked}, with the lexicon {result.lexicon} first (it answered "
            f"{answered:,} of {len(result.gold):,} inputs)")


def _write_results(frame, out_prefix: str, baseline: str | None, data_dir: str | None) -> None:
    """Write PREFIX.parquet, PREFIX.csv and PREFIX.svg (accuracy per language beside the
    official baseline) and name them on stderr; a failure is a one-line error."""
    from inflect.corpora.baseline import official_baseline
    from inflect.evaluation.runner import write_results
    from inflect.render.figures import accuracy_svg

    try:
        svg = accuracy_svg(frame, official_baseline(baseline, data_dir))
        paths = write_results(frame, out_prefix, svg)
    except (OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo("wrote " + ", ".join(str(p) for p in paths), err=True)
