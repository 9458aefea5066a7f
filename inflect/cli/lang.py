"""`inflect lang`: your own languages (add, list, show, remove): specs in your folder of
languages, which every command reads beside the shipped ``langs/``."""

from __future__ import annotations

import click

from inflect.cli.options import format_option
from inflect.cli.output import echo_tsv, output_format

#: The columns of ``inflect lang list``.
LANG_COLUMNS = ("name", "display_name", "iso639_3", "aliases", "scripts", "direction",
                "normalization", "model_transform", "file")


@click.group("lang")
def lang() -> None:
    """Your own languages: a spec (names, scripts, direction, text normalisation) for a language
    the package does not ship, kept in your folder of languages ($INFLECT_LANGS_DIR, else the
    user config folder), which every command reads.

    A model trained on your files (inflect train --train FILE --dev FILE --lang NAME) carries
    its language's spec, so its commands need no step here; `inflect lang add` makes the
    language known without the model (inflect evaluate --pred, lexicon files, a new run on the
    same spec) and lets you correct what was measured (--display-name, --direction, ...).
    """


@lang.command("add")
@click.argument("name")
@click.option("--from", "sources", multiple=True, required=True,
              type=click.Path(exists=True),
              help="Where the spec comes from: data files (lemma<TAB>form<TAB>tags or "
                   "lemma<TAB>tags<TAB>form; repeatable: the spec is measured from their lemmas "
                   "and forms), a run folder or checkpoint (the spec stored in it), or a spec "
                   "file (.toml).")
@click.option("--display-name", default=None, help="The language's name in words (any script).")
@click.option("--iso639-3", "iso639_3", default=None, help="Its ISO 639-3 code (e.g. amh).")
@click.option("--alias", "aliases", multiple=True,
              help="Another name it answers to (repeatable).")
@click.option("--direction", type=click.Choice(["ltr", "rtl"]), default=None,
              help="Writing direction (default: the main script's).")
@click.option("--force", is_flag=True, default=False,
              help="Replace a spec of yours of the same name.")
def lang_add(name, sources, display_name, iso639_3, aliases, direction, force):
    """Add NAME to your languages, its spec made from --from.

    Example: inflect lang add amharic --from amh.trn --from amh.dev --display-name አማርኛ
    --iso639-3 amh (or --from runs/amh, the spec a run on your files stored).
    """
    import dataclasses

    from inflect.corpora.user_langs import add_user_spec
    from inflect.inference.user_models import spec_from
    from inflect.nn.checkpoint import CheckpointError
    from inflect.text.languages import LanguageSpecError
    from inflect.text.records import DataFormatError

    try:
        spec, notes = spec_from(sources, name)
        changes = {k: v for k, v in (("display_name", display_name), ("iso639_3", iso639_3),
                                     ("direction", direction)) if v is not None}
        if aliases:
            changes["aliases"] = tuple(dict.fromkeys((*spec.aliases, *aliases)))
        spec = dataclasses.replace(spec, **changes)
        path = add_user_spec(spec, notes, force=force)
    except (LanguageSpecError, CheckpointError, DataFormatError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{spec.name}: {spec.display_name}, scripts {', '.join(spec.scripts)}, "
               f"{spec.direction}, {spec.normalization}; written to {path}", err=True)


@lang.command("list")
@format_option("one line per language of yours: " + ", ".join(LANG_COLUMNS))
def lang_list(out_format):
    """List your languages (the folder's specs) and where the folder is."""
    from inflect.render.tsv import tsv_table
    from inflect.text.languages import LanguageSpecError, user_langs_dir, user_languages

    try:
        specs = user_languages()
    except LanguageSpecError as exc:
        raise click.ClickException(str(exc)) from None
    folder = user_langs_dir()
    rows = [(s.name, s.display_name, s.iso639_3 or "", ",".join(s.aliases), ",".join(s.scripts),
             s.direction, s.normalization, s.model_transform, str(folder / f"{s.name}.toml"))
            for s in specs]
    if output_format(out_format) == "tsv":
        echo_tsv(lambda: tsv_table(LANG_COLUMNS, rows))
        return
    from rich.console import Console

    from inflect.render.tables import rows_table

    Console().print(rows_table(LANG_COLUMNS[:-1], [r[:-1] for r in rows],
                               title=f"your languages ({folder})",
                               caption=None if rows else "none yet: inflect lang add NAME "
                                                         "--from FILE"))


@lang.command("show")
@click.argument("name")
@click.option("--from", "sources", multiple=True, type=click.Path(exists=True),
              help="As `lang add`: show the spec that would be made (nothing is written).")
def lang_show(name, sources):
    """Print NAME's spec as TOML (a shipped language's, yours, or one made --from data or a
    run): the file `lang add` writes, to read or to edit."""
    from inflect.corpora.user_langs import spec_toml
    from inflect.inference.user_models import spec_from
    from inflect.nn.checkpoint import CheckpointError
    from inflect.text.languages import LanguageSpecError, resolve
    from inflect.text.records import DataFormatError

    try:
        spec, notes = spec_from(sources, name) if sources else (resolve(name), ())
    except (LanguageSpecError, CheckpointError, DataFormatError, OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(spec_toml(spec, notes), nl=False)


@lang.command("remove")
@click.argument("name")
def lang_remove(name):
    """Remove NAME from your languages (its spec file; models keep their own copy)."""
    from inflect.corpora.user_langs import remove_user_spec
    from inflect.text.languages import LanguageSpecError

    try:
        path = remove_user_spec(name)
    except LanguageSpecError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"removed {path}", err=True)
