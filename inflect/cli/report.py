"""`inflect report`: reports on a model's predictions (`inflect report ambiguity`: the inputs
with more than one nonzero-probability form)."""

from __future__ import annotations

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
from inflect.cli.resolve import check_outputs, given_lexicons, models_or_shipped, set_threads


@click.group()
def report() -> None:
    """Reports on a model's predictions."""


@report.command("ambiguity")
@click.option("--model", "models", is_eager=True, multiple=True, type=click.Path(exists=True),
              help="Checkpoint, or a folder of members; repeat for an ensemble. Default: the "
                   "shipped model of --lang.")
@click.option("--lang", "languages", multiple=True, metavar="L", callback=language_list,
              help="Language(s) whose --split is read (or of each --gold file): repeatable, or "
                   "a comma-separated list (--lang german,finnish).")
@click.option("--split", default="dev", show_default=True)
@click.option("--gold", "gold_files", multiple=True,
              type=click.Path(exists=True, dir_okay=False), help="Gold file(s) instead of --split.")
@beam_option()
@device_option
@setting_option
@threads_option
@data_dir_option
@click.option("--out", "out_file", type=click.Path(dir_okay=False, allow_dash=True),
              default=None,
              help="Write the report to FILE.md (Markdown) or FILE.html instead of the terminal "
                   "('-': the Markdown report to standard output).")
@click.option("--maps", type=click.IntRange(min=0), default=2, show_default=True,
              help="Attention maps per ambiguous input in the HTML report (its most probable "
                   "output strings); 0 for none.")
@click.option("--lexicon", "lexicon_files", multiple=True, metavar="FILE|shipped",
              help="Mark the forms this lexicon attests (repeatable; 'shipped': the shipped "
                   "lexicon). Without it the report is the model's alone.")
@tag_format_option
@format_option("without --out, one line per form of each ambiguous input: tags, lemma, "
                "language, gold, gold_in_support, certificate, count, rank, form, probability")
def report_ambiguity(models, languages, split, gold_files, beam, device, data_dir, out_file,
                     maps, threads, setting, lexicon_files, tag_format, out_format):
    """The inputs with more than one nonzero-probability form, grouped by tag bundle, with the
    gold form and whether it is in the support. Gold tags in UniMorph 4 or UD (--tag-format)
    are read as the language's 2018 bundles, as inflect evaluate reads them.

    Example: inflect report ambiguity --model runs/de --lang german --split dev --out amb.md
    """
    set_threads(threads)
    import warnings
    from pathlib import Path

    from inflect.evaluation.ambiguity import ambiguity_report
    from inflect.evaluation.runner import evaluate_predictor, load_gold
    from inflect.inference.explain import explain_all
    from inflect.inference.predictor import Predictor
    from inflect.inference.user_models import checkpoint_languages
    from inflect.io.outputs import is_stdout
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.markdown import ambiguity_markdown
    from inflect.render.report_html import ambiguity_html
    from inflect.render.tables import ambiguity_rich
    from inflect.render.tsv import ambiguity_tsv
    from inflect.text.records import DataFormatError

    suffix = Path(out_file).suffix.lower() if out_file else None
    if is_stdout(out_file):
        suffix = ".md"
    if suffix not in (None, ".md", ".markdown", ".html", ".htm"):
        raise click.BadParameter(f"{out_file}: the file must end in .md or .html",
                                 param_hint="--out")
    fmt = output_format(out_format)
    if out_file:
        check_outputs(out_file)
    warnings.simplefilter("ignore", UnknownSymbolWarning)
    models = models_or_shipped(models, languages, setting)
    if not models:
        raise click.UsageError("give --model, or one --lang that has a shipped model")
    html = suffix in (".html", ".htm")
    from inflect.lexicon import LexiconError

    try:
        lexicons = given_lexicons(lexicon_files, languages)
        gold = load_gold(languages, split, gold_files, data_dir,
                         model_languages=checkpoint_languages(models))
        predictor = Predictor.from_checkpoints(models, device=device, beam_size=beam,
                                               lexicons=lexicons, tag_format=tag_format)
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
            echo_tsv(lambda: ambiguity_tsv(found))
            return
        from inflect.render.common import fitted, terminal_console

        terminal_console().print(fitted(ambiguity_rich(found)))
        return
    where = ", ".join(languages) or ", ".join(gold_files)
    title = f"Ambiguity report: {where} {split if not gold_files else ''}".rstrip()
    read = ", ".join(dict.fromkeys(e.language for e in gold))  # the files' or the model's
    about = {"models": ", ".join(models), "language": ", ".join(languages) or read or "—",
             "split": f"gold files {where}" if gold_files else split, "beam": str(beam)}
    text = (ambiguity_html(found, title, about) if html
            else ambiguity_markdown(found, title, about))
    from inflect.io.outputs import write_outputs

    try:
        write_outputs([(out_file, lambda temp: temp.write_text(text, encoding="utf-8"))])
    except OSError as exc:
        raise click.ClickException(str(exc)) from None
    where = "the report to standard output" if is_stdout(out_file) else out_file
    click.echo(f"wrote {where} ({found.ambiguous} ambiguous inputs of {found.inputs})", err=True)
