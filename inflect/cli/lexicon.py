"""`inflect lexicon`: the dictionaries consulted before the model: fetch UniMorph for a language,
add a UniMorph file copied by hand, list what is installed, remove a language."""

from __future__ import annotations

import click

from inflect.cli.options import data_dir_option, format_option, one_language
from inflect.cli.output import echo_tsv, output_format


@click.group("lexicon")
def lexicon() -> None:
    """Dictionaries consulted before the model: UniMorph on demand, field libraries.

    Answers list, before the model's distribution, the forms written in: your --lexicon files,
    the field dictionaries installed (pip install 'sparse-inflect[dictionaries]': pymorphy3,
    lemminflect, german-nouns), the UniMorph languages fetched here, and the shipped lexicon of
    the shared-task data.
    """


@lexicon.command("fetch")
@click.argument("languages", nargs=-1, required=True)
@data_dir_option
@click.option("--timeout", type=click.FloatRange(min=1), default=30.0, show_default=True,
              help="Seconds to wait for the server.")
def lexicon_fetch(languages: tuple[str, ...], data_dir: str | None, timeout: float) -> None:
    """Download LANGUAGES' UniMorph files (any names or codes: english, en, eng), verify each
    by its git blob id, and index them; from then on predict and paradigm consult them.

    The files are pinned to commits of the unimorph/<iso639-3> repositories and go to the data
    folder (--data-dir, else $INFLECT_DATA_DIR, else the user cache folder), under unimorph/.
    Offline: inflect lexicon add FILE --lang L installs a file copied by other means.
    """
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    from inflect.corpora.manifests import ChecksumError, FetchError, FetchProgress
    from inflect.lexicon import LexiconError
    from inflect.lexicon.unimorph import fetch_unimorph

    columns = (TextColumn("{task.description}", markup=False), BarColumn(), DownloadColumn())
    from inflect.render.common import terminal_console

    with Progress(*columns, console=terminal_console(stderr=True), transient=True) as bar:
        task = bar.add_task("UniMorph", total=None)

        def progress(event: FetchProgress) -> None:
            label = f"[{event.index + 1}/{event.count}] {event.file.path}"
            bar.update(task, description=label, completed=event.done, total=event.total)

        try:
            done = fetch_unimorph(languages, data_dir, progress=progress, timeout=timeout)
        except (FetchError, ChecksumError, LexiconError, OSError) as exc:  # OutputError too
            raise click.ClickException(str(exc)) from None
        except ValueError as exc:  # a language without a pinned file: a usage error
            raise click.BadParameter(str(exc), param_hint="LANGUAGES") from None
    for language in done:
        _say_installed(language)


@lexicon.command("add")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--lang", "language", required=True, callback=one_language,
              help="The file's language: any name or code (english, en, eng).")
@data_dir_option
def lexicon_add(file: str, language: str, data_dir: str | None) -> None:
    """Install FILE, a UniMorph file (lemma<TAB>form<TAB>tags) copied by hand, for --lang.

    A file whose git blob id is the pinned one is installed as fetched; another is installed
    all the same, its answers named by its blob id (UniMorph eng unpinned blob 1a2b3c4).
    """
    from inflect.lexicon import LexiconError
    from inflect.lexicon.unimorph import add_unimorph

    try:
        installed, pinned = add_unimorph(file, language, data_dir)
    except (LexiconError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    if not pinned:
        click.echo(f"warning: {file} is not the pinned UniMorph file of {installed.language} "
                   "(its git blob id differs); installed as an unpinned file", err=True)
    _say_installed(installed)


@lexicon.command("remove")
@click.argument("languages", nargs=-1, required=True)
@data_dir_option
def lexicon_remove(languages: tuple[str, ...], data_dir: str | None) -> None:
    """Uninstall LANGUAGES' UniMorph files and index (the counterpart of fetch and add): from
    then on predict and paradigm no longer consult them. Every name is checked first: a
    language that is not installed removes nothing (exit status 1)."""
    from inflect.lexicon import LexiconError
    from inflect.lexicon.unimorph import remove_unimorph
    from inflect.render.common import human_size
    from inflect.text.languages import UnknownLanguageError

    try:
        removed = remove_unimorph(languages, data_dir)
    except UnknownLanguageError as exc:  # a name that is no language's: a usage error
        raise click.BadParameter(str(exc), param_hint="LANGUAGES") from None
    except (LexiconError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    for language in removed:
        click.echo(f"removed UniMorph {language.language} ({language.iso}): {language.forms:,} "
                   f"forms, {len(language.files)} file(s), {human_size(language.size)}")


def _say_installed(language) -> None:
    """One line per installed language: forms, files, commit, skipped lines."""
    skipped = sum(int(f["skipped"]) for f in language.files)
    first = next((f["first_skipped"] for f in language.files if f["first_skipped"]), None)
    click.echo(f"UniMorph {language.language} ({language.iso}, {language.commits}): "
               f"{language.forms:,} forms from {len(language.files)} file(s), index "
               f"{language.index}")
    if skipped:
        click.echo(f"warning: {skipped:,} line(s) not in the layout lemma<TAB>form<TAB>tags were "
                   f"left out (the first: {first})", err=True)


@lexicon.command("list")
@data_dir_option
@format_option("one line per source and language: source, language, version, forms, "
                "size_bytes, note")
def lexicon_list(data_dir: str | None, out_format: str | None) -> None:
    """What is installed, per source and language, in the order answers list it: field
    dictionaries, UniMorph languages (commit, forms, size), the shipped lexicon."""
    from inflect.lexicon import LexiconError, ShippedLexicon
    from inflect.lexicon.dictionaries import field_dictionaries
    from inflect.lexicon.unimorph import installed, pins
    from inflect.render.lexicons import lexicons_table, lexicons_tsv

    rows = []
    for dictionary in field_dictionaries():
        for language in sorted(dictionary.languages()):
            rows.append({"source": dictionary.name, "language": language,
                         "version": dictionary.source(language).split(" ", 1)[1],
                         "note": "loaded at the language's first lookup"})
    here = installed(data_dir)
    for language in here:
        skipped = sum(int(f["skipped"]) for f in language.files)
        rows.append({"source": "UniMorph", "language": language.language,
                     "version": language.commits, "forms": language.forms,
                     "size_bytes": language.size,
                     "note": f"{skipped:,} line(s) left out" if skipped else ""})
    try:
        shipped = ShippedLexicon()
        pairs = sum(shipped.pairs(name) for name in shipped.languages())
        rows.append({"source": "shared-task data", "language": f"{len(shipped.languages())} "
                     "languages", "version": "CoNLL-SIGMORPHON 2018", "forms": pairs,
                     "size_bytes": shipped.path.stat().st_size, "note": "shipped"})
    except (LexiconError, OSError) as exc:
        click.echo(f"warning: {exc}", err=True)
    if output_format(out_format) == "tsv":
        echo_tsv(lambda: lexicons_tsv(rows))
        return
    missing = [n for n in pins().languages if n not in {i.language for i in here}]
    footer = (f"UniMorph is pinned for {len(missing)} more languages ({', '.join(missing[:6])}"
              f"{', ...' if len(missing) > 6 else ''}): inflect lexicon fetch LANGUAGE")
    from inflect.render.common import fitted, terminal_console

    terminal_console().print(fitted(lexicons_table(rows, footer if missing else "")))
