"""`inflect predict`: the forms of a lemma for a tag bundle (one input, or a file or a pipe of
them streamed), attested forms first, each with its probability and a certificate."""

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
    strict_option,
    tag_format_option,
    threads_option,
)
from inflect.cli.output import output_format, say_blank, say_header, stream_records
from inflect.cli.resolve import (
    check_setting,
    chosen_lexicons,
    chosen_siblings,
    input_idle,
    lexicon_report,
    set_threads,
)


@click.command("predict")
@click.argument("lemma", required=False)
@click.argument("tags", required=False)
@click.option("--lang", default=None, callback=one_language,
              help="Language: any name or code (german, de, deu). Needed without --model; with "
                   "--model, optional when the model knows one language.")
@click.option("--model", "models", is_eager=True, multiple=True, type=click.Path(exists=True),
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
@beam_option()
@max_forms_option("forms")
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
@lexicon_option
@click.option("--no-lexicon", is_flag=True, default=False,
              help="Ask the model alone: no attested forms (neither --lexicon's nor those of the "
                   "field dictionaries, UniMorph and the shipped lexicon, consulted by default).")
@siblings_option
@strict_option
@tag_format_option
@device_option
@setting_option
@threads_option
@models_dir_option
def predict_command(lemma, tags, lang, models, input_path, input_format, beam, max_forms,
                    support, out_format, lexicon_files, no_lexicon, siblings, strict, tag_format,
                    device, models_dir, threads, setting):
    """Inflect LEMMA for the tag bundle TAGS: every form of nonzero probability, its probability
    and a certificate of exact search.

    Attested forms first: the forms written in a lexicon (--lexicon FILE, then the field
    dictionaries installed, the UniMorph languages fetched, the shipped lexicon of the
    shared-task data: inflect lexicon list) are listed first, each marked attested with its
    source, and the model's own forms follow; --no-lexicon asks the model alone. With --input
    (or a pipe), stderr says at the end how many inputs each lexicon answered.

    Example: inflect predict --lang german Haus "N;DAT;PL"; the same in UniMorph 4, "N;DAT(PL)",
    or in UD, "NOUN|Case=Dat|Number=Plur" (--tag-format). Many inputs: inflect predict --lang
    german --input german-covered-test (or - for standard input, read also when it is a pipe:
    cut -f1,3 german-dev | inflect predict --lang german); results stream out as they come.
    Whitespace around a lemma (an argument or a line's field) is removed, spaces inside it
    kept; around the tag bundle's features likewise. Every line gets an answer or an error record (a line that cannot be read, or an input the
    model cannot take, with its line number) and the run goes on; an unseen UniMorph feature is
    read as the unknown feature, with a warning. The exit status is 1 when any line failed;
    --strict stops at the first.
    """
    set_threads(threads)
    import sys
    import warnings

    if input_path is not None and lemma is not None:
        raise click.UsageError("give either LEMMA TAGS or --input FILE, not both")
    if input_path is None and lemma is None and not sys.stdin.isatty():
        input_path = "-"  # a pipe, as translate reads it
    if input_path is None and (lemma is None or tags is None):
        raise click.UsageError("give LEMMA and TAGS (e.g. Haus 'N;DAT;PL'), or --input FILE "
                               "('-' or a pipe: standard input)")
    check_setting(setting, models)
    siblings = chosen_siblings(siblings, no_lexicon)
    fmt = output_format(out_format)

    from inflect.inference.predictor import InputError, load_predictor, make_query
    from inflect.inference.queries import read_queries
    from inflect.inference.registry import NoDefaultModelError
    from inflect.lexicon import LexiconError
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.jsonl import prediction_jsonl
    from inflect.render.tables import prediction_table
    from inflect.render.tsv import PREDICTION_TSV_COLUMNS, prediction_2018, prediction_tsv

    warnings.simplefilter("ignore", UnknownSymbolWarning)  # kept in each record instead
    try:
        lexicons = chosen_lexicons(lexicon_files, no_lexicon, lang)
        predictor = load_predictor(models, lang, models_dir=models_dir, device=device,
                                   setting=setting, lexicons=lexicons, strict=strict,
                                   tag_format=tag_format, beam_size=beam, max_forms=max_forms,
                                   support=support, siblings=siblings)
        if input_path is None:
            queries = iter([make_query(lemma, tags, lang)])
        else:
            queries = read_queries(input_path, lang, input_format, on_blank=say_blank,
                                   errors="raise" if strict else "yield", on_header=say_header)
    except (ValueError, LookupError, OSError) as exc:
        raise click.ClickException(str(exc)) from None

    renderers = {"tsv": prediction_tsv, "jsonl": prediction_jsonl, "2018": prediction_2018}
    try:
        stream_records(predictor.stream(queries, idle=input_idle(input_path)), fmt, renderers,
                       prediction_table,
                       (InputError, NoDefaultModelError, LexiconError, ValueError, OSError),
                       PREDICTION_TSV_COLUMNS)
    finally:
        if input_path is not None and lexicons and lexicons.asked:
            click.echo(lexicon_report(lexicons), err=True)
