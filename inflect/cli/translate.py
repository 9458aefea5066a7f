"""`inflect translate`: sentences with a translation checkpoint (its subword model inside): the
n-best translations, their probabilities and a certificate."""

from __future__ import annotations

import click

from inflect import defaults
from inflect.cli.options import (
    beam_option,
    device_option,
    max_forms_option,
    strict_option,
    threads_option,
)
from inflect.cli.output import output_format, stream_records
from inflect.cli.resolve import input_idle, set_threads


@click.command("translate")
@click.argument("sentences", nargs=-1)
@click.option("--model", "models", multiple=True, required=True, type=click.Path(exists=True),
              help="Translation checkpoint (folder or .safetensors; its subword model is inside), "
                   "or a folder of members; repeat for an ensemble.")
@click.option("--input", "input_path",
              type=click.Path(exists=True, dir_okay=False, allow_dash=True),
              default=None, help="Read sentences from FILE ('-': standard input), one a line.")
@beam_option()
@max_forms_option("translations")
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
@strict_option
@device_option
@threads_option
def translate_command(sentences, models, input_path, beam, max_forms, support, out_format,
                      strict, device, threads):
    """Translate SENTENCES (or --input FILE, or standard input when neither is given) with a
    checkpoint that carries its subword model: the n-best translations, their probabilities and
    a certificate of exact search.

    Example: inflect translate --model runs/mt/out-entmax15_att-entmax15 "Ein Hund läuft."
    """
    set_threads(threads)
    import warnings

    from inflect.inference.predictor import InputError
    from inflect.inference.translator import SentenceQuery, Translator, read_sentences
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.jsonl import prediction_jsonl
    from inflect.render.tables import prediction_table
    from inflect.render.tsv import TRANSLATION_TSV_COLUMNS, prediction_tsv

    if sentences and input_path is not None:
        raise click.UsageError("give either SENTENCES or --input FILE, not both")
    fmt = output_format(out_format)
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
    idle = None if sentences else input_idle(input_path or "-")
    stream_records(translator.stream(queries, idle=idle), fmt, renderers, prediction_table,
                   (InputError, ValueError, OSError), TRANSLATION_TSV_COLUMNS)
