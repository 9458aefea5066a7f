"""`inflect explain`: the attention matrix of one prediction (a table, TSV, or a PNG)."""

from __future__ import annotations

import click

from inflect.cli.options import (
    beam_option,
    device_option,
    format_option,
    lexicon_option,
    models_dir_option,
    one_language,
    setting_option,
    siblings_option,
    tag_format_option,
    threads_option,
)
from inflect.cli.output import echo_tsv, output_format
from inflect.cli.resolve import (
    check_outputs,
    check_setting,
    chosen_lexicons,
    chosen_siblings,
    set_threads,
)


@click.command("explain")
@click.argument("lemma")
@click.argument("tags")
@click.option("--lang", default=None, callback=one_language,
              help="Language: any name or code.")
@click.option("--model", "models", is_eager=True, multiple=True, type=click.Path(exists=True),
              help="Checkpoint or folder of members; repeat for an ensemble. Default: the "
                   "shipped model of --lang.")
@beam_option()
@click.option("--png", "png", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Also write the heat maps as a PNG, one panel per form (needs matplotlib: the "
                   "'plot' extra); '-': the PNG alone to standard output, no table.")
@click.option("--max-forms", type=click.IntRange(min=1), default=4, show_default=True,
              help="Draw at most this many forms of the support in the PNG (most probable first).")
@format_option("one line per attention weight of each string drawn: form, probability, step, "
                "output, position, source, weight")
@lexicon_option
@click.option("--no-lexicon", is_flag=True, default=False,
              help="The model alone: no attested forms (as inflect predict's).")
@siblings_option
@tag_format_option
@device_option
@setting_option
@threads_option
@models_dir_option
def explain_command(lemma, tags, lang, models, beam, png, max_forms, out_format, lexicon_files,
                    no_lexicon, siblings, tag_format, device, models_dir, threads, setting):
    """The attention matrix of the best output for LEMMA and TAGS: output symbols (rows) by lemma
    symbols (columns), weights in percent, exact zeros blank.

    The forms above the matrix are inflect predict's for the same input: the attested ones first
    (--lexicon FILE, the field dictionaries, UniMorph, the shared-task data), marked with their
    source, then the model's; the matrix is the model's, of its most probable form.

    TAGS in any dialect, as inflect predict reads them (--tag-format): "N;DAT;PL", "N;DAT(PL)"
    or "NOUN|Case=Dat|Number=Plur".

    Example: inflect explain --lang german Haus "N;DAT;PL" --png haus.png
    """
    set_threads(threads)
    import warnings

    from inflect.inference.explain import explain
    from inflect.inference.predictor import load_predictor
    from inflect.inference.registry import NoDefaultModelError
    from inflect.io.outputs import is_stdout
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.render.figures import attention_png, check_plotting, figure_texts, font_note
    from inflect.render.tables import attention_heatmap, prediction_table
    from inflect.render.tsv import attention_tsv

    check_setting(setting, models)
    fmt = output_format(out_format)
    to_stdout = is_stdout(png)
    if to_stdout and out_format is not None:
        raise click.UsageError("--png - writes the PNG to standard output: drop --format (or "
                               "give --png FILE.png)")
    if png:  # before any work: a PNG's name, the file can be written, matplotlib is there
        if not to_stdout and not png.lower().endswith(".png"):
            raise click.BadParameter(
                f"{png!r}: --png writes a PNG image; give a file name ending in .png (a .jpg or "
                ".svg name would hold PNG bytes)", param_hint="--png")
        check_outputs(png)
        try:
            check_plotting()
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from None
    warnings.simplefilter("ignore", UnknownSymbolWarning)
    try:
        lexicons = chosen_lexicons(lexicon_files, no_lexicon, lang)
        predictor = load_predictor(models, lang, models_dir=models_dir, device=device,
                                   setting=setting, lexicons=lexicons, beam_size=beam,
                                   tag_format=tag_format,
                                   siblings=chosen_siblings(siblings, no_lexicon))
        found = explain(predictor, lemma, tags, lang, max_forms)
    except (NoDefaultModelError, ValueError, LookupError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    for note in found.prediction.warnings:  # e.g. symbols unseen in training, as predict says
        click.echo(f"warning: {note}", err=True)
    if png:  # written before rendering: a rendering failure cannot lose it
        from inflect.io.outputs import write_outputs

        try:
            picture = attention_png(found, max_forms)
            write_outputs([(png, lambda temp: temp.write_bytes(picture))])
        except (RuntimeError, OSError) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo("wrote the PNG to standard output" if to_stdout else f"wrote {png}", err=True)
        note = font_note(figure_texts(found))
        if note:
            click.echo(f"warning: {note}", err=True)
    if to_stdout:  # standard output holds the picture: no table after it
        return
    if fmt == "tsv":
        echo_tsv(lambda: attention_tsv(found))
        return
    from inflect.render.common import fitted, terminal_console

    console = terminal_console()
    console.print(fitted(prediction_table(found.prediction)))
    console.print(fitted(attention_heatmap(found)))
