"""`inflect paradigm`: every cell of a lemma's paradigm (the tag bundles the training data
attest for its part of speech) as a grid, TSV, JSON Lines or an HTML page."""

from __future__ import annotations

import click

from inflect import defaults
from inflect.cli.options import (
    beam_option,
    device_option,
    lexicon_option,
    max_forms_option,
    models_dir_option,
    one_language,
    setting_option,
    siblings_option,
    threads_option,
)
from inflect.cli.output import output_format, say_blank, say_header, stream_records
from inflect.cli.resolve import (
    check_outputs,
    check_setting,
    chosen_lexicons,
    chosen_siblings,
    set_threads,
)


@click.command("paradigm")
@click.argument("lemma", required=False)
@click.option("--lang", default=None, callback=one_language,
              help="Language: any name or code (finnish, fi, fin). Needed without --model; with "
                   "--model, optional when the model knows one language.")
@click.option("--pos", default=None,
              help="Part of speech: a UniMorph part-of-speech feature (N, V, ADJ, V.PTCP, ...; V "
                   "includes V.PTCP, V.CVB, ...). Without it, the language's only one; a "
                   "language with several lists them.")
@click.option("--model", "models", is_eager=True, multiple=True, type=click.Path(exists=True),
              help="Checkpoint (folder or .safetensors), or a folder of member checkpoints; "
                   "repeat for an ensemble. Default: the shipped model of --lang.")
@click.option("--input", "input_path",
              type=click.Path(exists=True, dir_okay=False, allow_dash=True), default=None,
              help="Read lemmas from FILE ('-': standard input, also read when it is a pipe and "
                   "no LEMMA is given), one a line: lemma, or lemma<TAB>pos; each paradigm is "
                   "written as soon as it is made.")
@beam_option()
@max_forms_option("forms")
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
@click.option("--out", "out_path", type=click.Path(dir_okay=False, allow_dash=True),
              default=None,
              help="With --format html: the page to write ('-': standard output).")
@lexicon_option
@click.option("--no-lexicon", is_flag=True, default=False,
              help="The model alone in every cell: no attested forms (as inflect predict's).")
@siblings_option
@device_option
@setting_option
@threads_option
@models_dir_option
def paradigm_command(lemma, lang, pos, models, input_path, beam, max_forms, support, fold_below,
                     out_format, out_path, lexicon_files, no_lexicon, siblings, device, setting,
                     threads, models_dir):
    """Every cell of LEMMA's paradigm at once: the tag bundles the language's training data
    attest for its part of speech, each with its forms, their probabilities and a certificate.

    As in inflect predict, each cell lists first the forms the lexicons attest (your --lexicon
    files, the field dictionaries, UniMorph, the shared-task data), marked with their source,
    then the model's; --no-lexicon shows the model alone.

    Example: inflect paradigm --lang finnish talo --pos N (a case x number grid). Many lemmas:
    inflect paradigm --lang spanish --pos V --input verbs.txt --format jsonl.
    """
    set_threads(threads)
    import sys
    import warnings

    if input_path is not None and lemma is not None:
        raise click.UsageError("give either LEMMA or --input FILE, not both")
    if input_path is None and lemma is None and not sys.stdin.isatty():
        input_path = "-"
    if input_path is None and lemma is None:
        raise click.UsageError("give a LEMMA (e.g. inflect paradigm --lang finnish talo --pos N), "
                               "or --input FILE ('-' or a pipe: standard input)")
    check_setting(setting, models)
    fmt = output_format(out_format)
    if fmt == "html" and out_path is None:
        raise click.UsageError("--format html writes a page: give --out FILE (e.g. --out "
                               "talo.html; --out - for standard output)")
    if out_path is not None and fmt != "html":
        raise click.UsageError("--out is for --format html; the other formats go to standard "
                               "output")
    if out_path is not None:
        check_outputs(out_path)

    from inflect.inference.paradigm import ParadigmRequest, Paradigms, read_requests
    from inflect.inference.predictor import InputError, load_predictor
    from inflect.inference.registry import NoDefaultModelError
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.jsonl import paradigm_jsonl
    from inflect.render.paradigm import PARADIGM_TSV_COLUMNS, paradigm_table, paradigm_tsv

    warnings.simplefilter("ignore", UnknownSymbolWarning)  # kept in each paradigm instead
    try:
        lexicons = chosen_lexicons(lexicon_files, no_lexicon, lang)
        predictor = load_predictor(models, lang, models_dir=models_dir, device=device,
                                   setting=setting, beam_size=beam, max_forms=max_forms,
                                   support=support, chunk_size=defaults.PARADIGM_CHUNK_SIZE,
                                   lexicons=lexicons,
                                   siblings=chosen_siblings(siblings, no_lexicon))
        paradigms = Paradigms(predictor, setting=setting)
        if input_path is None:
            requests = iter([ParadigmRequest(lemma, pos, lang)])
        else:
            requests = read_requests(input_path, on_blank=say_blank, on_header=say_header)
    except (ValueError, LookupError, OSError) as exc:
        raise click.ClickException(str(exc)) from None

    errors = (InputError, NoDefaultModelError, ValueError, OSError)
    found = paradigms.stream(requests, lang, pos)
    if fmt == "html":
        _write_page(found, out_path, fold_below, errors)
        return
    renderers = {"tsv": paradigm_tsv, "jsonl": paradigm_jsonl}
    stream_records(found, fmt, renderers, lambda p: paradigm_table(p, fold_below), errors,
                   PARADIGM_TSV_COLUMNS)


def _write_page(found, out_path: str, fold_below: float, errors: tuple) -> None:
    """Make every paradigm of ``found`` (their warnings to stderr), then write them as one HTML
    page to ``out_path`` and say so on stderr. One of ``errors`` raised (a bad ``--input``
    line) or Ctrl-C stops the making, as in the other formats: the page is written with the
    paradigms made before it, then the error is a one-line error (exit status 1) and Ctrl-C an
    interruption (130); a failed write is a one-line error."""
    made, failure, interrupted = [], None, False
    try:
        for paradigm in found:
            made.append(paradigm)
    except errors as exc:
        failure = exc
    except KeyboardInterrupt:
        interrupted = True
    if made:
        _save_page(made, out_path, fold_below)
    if interrupted:
        raise KeyboardInterrupt
    if failure is not None:
        kept = f" (the page {out_path} holds the {len(made)} paradigm(s) made before it)" if made \
            else " (no page written)"
        raise click.ClickException(f"{failure}{kept}")


def _save_page(made: list, out_path: str, fold_below: float) -> None:
    """Write ``made`` (paradigms) as one HTML page to ``out_path``, their warnings to stderr."""
    from inflect.io.outputs import is_stdout, write_outputs
    from inflect.render.paradigm_html import paradigm_page

    for p in made:
        for note in p.warnings:
            click.echo(f"warning: {p.where + ': ' if p.where else ''}{note}", err=True)
    try:
        write_outputs([(out_path, lambda temp: temp.write_text(
            paradigm_page(made, fold_below=fold_below), encoding="utf-8"))])
    except (OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    where = "the page to standard output" if is_stdout(out_path) else out_path
    click.echo(f"wrote {where}: {len(made)} paradigm(s), "
               f"{sum(len(p.cells) for p in made)} cells", err=True)
