"""`inflect data`: get (fetch, with checksums), list, describe (stats) and check the data."""

from __future__ import annotations

import click

from inflect import defaults
from inflect.cli.options import data_dir_option, format_option, one_language, tag_format_option
from inflect.cli.output import echo_tsv, output_format


@click.group()
def data() -> None:
    """Get, list, describe and check data (CoNLL–SIGMORPHON 2018 task 1, Multi30k)."""


@data.command("fetch")
@click.argument("dataset")
@click.option("--lang", "languages", multiple=True, help="Only this language (repeatable).")
@data_dir_option
def data_fetch(dataset: str, languages: tuple[str, ...], data_dir: str | None) -> None:
    """Download DATASET (see `inflect data list`) and verify every file's SHA-256."""
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
    from inflect.render.common import terminal_console

    folder = resolve_data_dir(data_dir)
    console = terminal_console(stderr=True)
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
@data_dir_option
@format_option("one line per dataset (dataset, description, files, files_here, size_bytes, "
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
    from inflect.render.tables import datasets_table, languages_table
    from inflect.render.tsv import datasets_tsv, languages_tsv

    fmt = output_format(out_format)
    try:
        chosen = load_manifest(dataset or "conll2018-task1")
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="DATASET") from None
    splits = list(dict.fromkeys(f.split for f in chosen.files if f.split))
    manifests = [load_manifest(name) for name in manifest_names()]
    present = [count_present(m, data_dir) for m in manifests]
    if fmt == "tsv":
        echo_tsv(lambda: languages_tsv(chosen.name, language_summary(chosen, data_dir), splits)
                  if dataset else datasets_tsv(manifests, present))
        return
    from inflect.render.common import fitted, terminal_console

    console = terminal_console()
    console.print(fitted(datasets_table(manifests, present)))
    console.print(fitted(languages_table(chosen.name, language_summary(chosen, data_dir), splits)))


@data.command("stats")
@click.argument("language", callback=one_language)
@click.option(
    "--setting",
    type=click.Choice(list(defaults.SETTINGS)),
    default=None,
    help="Training setting (default: every one the language has).",
)
@data_dir_option
@format_option("one line per split: language, split, pairs, lemmas, characters, symbols, "
                "features, bundles, with_spaces, longest_lemma, longest_form, "
                "multi_order_bundles, duplicate_feature_bundles, padded_feature_bundles, "
                "blank_lines")
def data_stats(language: str, setting: str | None, data_dir: str | None,
               out_format: str | None) -> None:
    """Describe LANGUAGE's CoNLL–SIGMORPHON 2018 files (training, dev, covered test)."""
    from inflect.corpora.stats import language_stats
    from inflect.render.tables import stats_table
    from inflect.render.tsv import stats_tsv
    from inflect.text.records import DataFormatError

    fmt = output_format(out_format)
    try:
        stats = language_stats(language, [setting] if setting else None, data_dir)
    except (FileNotFoundError, DataFormatError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if fmt == "tsv":
        echo_tsv(lambda: stats_tsv(stats))
        return
    from inflect.render.common import fitted, terminal_console

    terminal_console().print(fitted(stats_table(stats)))


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
@click.option("--lang", "language", default=None,
              help="The file's language (default: from its name where it names one): tags in "
                   "UniMorph 4 or UD are checked against its 2018 bundles.")
@tag_format_option
def data_check(file: str, fmt: str, language: str | None, tag_format: str) -> None:
    """Validate FILE and report every problem with its line (exit status 1 if any), then every
    line to look at (warnings: a repeated input, exactly, with its features in another order or
    with another form; a feature given twice; spaces around a field), naming the earlier line.

    Tags in any dialect are read (--tag-format): UniMorph (N;DAT;PL), UniMorph 4 (N;DAT(PL)),
    UD (NOUN|Case=Dat|Number=Plur); tags that cannot be read (an unbalanced layer, a UD value
    that does not exist, a layer with no cell in the language's 2018 data) are problems, UniMorph
    4 or UD tags read as none of the language's 2018 bundles warnings."""
    from inflect.corpora.bundles import tag_problems
    from inflect.render.tsv import check_lines, read_summary
    from inflect.text.reading import check_file, check_warnings, language_of_file

    if language is None:
        try:
            language = language_of_file(file)
        except ValueError:
            language = None  # the tags are checked without a language's bundles
    parsed = check_file(file, fmt)  # type: ignore[arg-type]
    try:
        tag_errors, tag_warnings = tag_problems(parsed.examples, language, tag_format)
    except LookupError as exc:
        raise click.ClickException(str(exc)) from None
    parsed.errors = sorted([*parsed.errors, *tag_errors], key=lambda e: e.line or 0)
    for line in check_lines(parsed.errors):
        click.echo(line)
    found = sorted([*check_warnings(parsed), *tag_warnings], key=lambda e: e.line or 0)
    for warning in found:
        click.echo(f"warning: {warning}")
    click.echo(read_summary(parsed.stats, len(parsed.errors), len(found)))
    if parsed.errors:
        raise SystemExit(1)
