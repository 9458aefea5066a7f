"""Rendering with rich: tables for the command line. Rendering only — no computation here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # annotations only: `inflect predict` must not import the data rooms
    import pandas as pd

    from inflect.data import DataFormatError, ReadStats
    from inflect.datasets import LanguageSummary, Manifest
    from inflect.models import ShippedModel
    from inflect.predict import Prediction
    from inflect.stats import SplitStats

_SHORT_SPLITS = {
    "train-high": "high",
    "train-medium": "medium",
    "train-low": "low",
    "covered-test": "test",
}


def human_size(size: int) -> str:
    """Bytes as a short human-readable text (``1.5 MB``), decimal units."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def _length(text: str | None) -> str:
    """Length in code points, or a dash."""
    return "—" if text is None else f"{len(text)}"


def stats_table(stats: Sequence[SplitStats]) -> Group:
    """Statistics of a language's files: one column per split, one row per statistic, then the
    longest lemma and form of each split (see :class:`inflect.stats.SplitStats`)."""
    title = stats[0].language if stats else ""
    table = Table(title=f"{title} (CoNLL–SIGMORPHON 2018 task 1)")
    table.add_column("", no_wrap=True)
    for s in stats:
        table.add_column(_SHORT_SPLITS.get(s.split, s.split), justify="right")
    rows: list[tuple[str, list[str]]] = [
        ("pairs", [f"{s.pairs:,}" for s in stats]),
        ("lemmas", [f"{s.lemmas:,}" for s in stats]),
        ("characters", [f"{s.characters:,}" for s in stats]),
        ("symbols", ["—" if s.symbols is None else f"{s.symbols:,}" for s in stats]),
        ("features", [f"{s.features:,}" for s in stats]),
        ("bundles", [f"{s.bundles:,}" for s in stats]),
        ("bundles in >1 order", [f"{s.multi_order_bundles:,}" for s in stats]),
        ("with spaces", [f"{s.with_spaces:,} ({100 * s.space_share:.1f}%)" for s in stats]),
        ("longest lemma", [_length(s.longest_lemma) for s in stats]),
        ("longest form", [_length(s.longest_form) for s in stats]),
        ("repeated feature", [f"{s.duplicate_feature_bundles:,}" for s in stats]),
        ("padded feature", [f"{s.padded_feature_bundles:,}" for s in stats]),
        ("blank lines", [f"{s.blank_lines:,}" for s in stats]),
    ]
    for name, values in rows:
        table.add_row(name, *values)
    longest = Table(title="longest lemma and form", box=box.SIMPLE_HEAD, show_header=False)
    longest.add_column("split", no_wrap=True)
    longest.add_column("what", no_wrap=True)
    longest.add_column("text", overflow="fold")
    for s in stats:
        longest.add_row(s.split, "lemma", s.longest_lemma)
        if s.longest_form is not None:
            longest.add_row("", "form", s.longest_form)
    notes = Text(
        "characters: distinct code points of lemmas and forms; symbols: the language spec's "
        "model-side symbols; bundles: distinct sets of UniMorph features; with spaces: pairs "
        "with a space in the lemma or form; repeated / padded feature: pairs whose tag bundle "
        "repeated a feature / had spaces around one",
        style="dim",
    )
    return Group(table, longest, notes)


def datasets_table(manifests: Sequence[Manifest], present: Sequence[int]) -> Table:
    """The shipped datasets: name, description, files (present locally), size, licence."""
    table = Table(title="datasets")
    for column in ("dataset", "description", "files (here)", "size", "licence"):
        table.add_column(column, overflow="fold")
    for manifest, here in zip(manifests, present, strict=True):
        size = sum(f.size for f in manifest.files)
        table.add_row(
            manifest.name,
            manifest.title,
            f"{len(manifest.files)} ({here})",
            human_size(size),
            manifest.licence,
        )
    return table


def languages_table(name: str, rows: Sequence[LanguageSummary], splits: Sequence[str]) -> Table:
    """Per-language examples per split (— where a split does not exist), size and how many of
    the language's files are in the data folder."""
    table = Table(title=f"{name}: examples per split")
    table.add_column("language", no_wrap=True)
    for split in splits:
        table.add_column(_SHORT_SPLITS.get(split, split), justify="right")
    table.add_column("size", justify="right", no_wrap=True)
    table.add_column("here", justify="right")
    for row in rows:
        table.add_row(
            row.language,
            *(f"{row.records[s]:,}" if s in row.records else "—" for s in splits),
            human_size(row.size),
            f"{row.present}/{row.files}",
        )
    return table


def check_lines(errors: Sequence[DataFormatError]) -> list[str]:
    """One line per problem: ``FILE:LINE: what (value)``."""
    return [str(e) for e in errors]


def read_summary(stats: ReadStats, errors: int) -> str:
    """A one-line summary of what the reader saw in a file."""
    notes = [
        f"{stats.examples:,} examples",
        f"format {stats.fmt}",
        f"{stats.lines:,} lines",
    ]
    if stats.blank_lines:
        notes.append(f"{stats.blank_lines:,} blank line(s) skipped")
    if stats.duplicate_feature_bundles:
        notes.append(f"{stats.duplicate_feature_bundles:,} bundle(s) with a repeated feature")
    if stats.padded_feature_bundles:
        notes.append(f"{stats.padded_feature_bundles:,} bundle(s) with spaces around a feature")
    if stats.bom:
        notes.append("byte-order mark")
    if stats.crlf_lines:
        notes.append(f"{stats.crlf_lines:,} CRLF line ending(s)")
    verdict = f"{errors:,} problem{'s' if errors != 1 else ''}" if errors else "OK"
    return f"{stats.source}: {verdict} — " + ", ".join(notes)


def scores_table(frame: pd.DataFrame, title: str = "CoNLL–SIGMORPHON 2018 task 1 scores") -> Table:
    """The frame of :func:`inflect.evaluate.score_predictions` as a table: one row per language,
    the macro-average last; accuracy (percent) and mean Levenshtein distance at 2 decimals, as
    the shared-task scorer prints them."""
    table = Table(title=title)
    table.add_column("language", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("accuracy %", justify="right")
    table.add_column("levenshtein", justify="right")
    counts = [c for c in ("missing", "extra", "gold_duplicates", "pred_duplicates")
              if c in frame.columns]
    for column in counts:
        table.add_column(column.replace("_", " "), justify="right")
    last = len(frame) - 1
    for i, row in enumerate(frame.itertuples(index=False)):
        values = row._asdict()
        table.add_row(
            str(values["language"]),
            f"{values['n']:,}",
            f"{values['accuracy']:.2f}",
            f"{values['levenshtein']:.2f}",
            *(f"{values[c]:,}" for c in counts),
            style="bold" if i == last and len(frame) > 1 else None,
            end_section=i == last - 1,
        )
    return table


# --- inflect predict / inflect models ----------------------------------------------------------

_CERTIFICATE_STYLE = {"full_support": "green", "mode_only": "yellow", "none": "red"}


def _probability(p: float) -> str:
    """A probability for a table: 4 decimals, or 2 significant digits below 10^-4."""
    return f"{p:.4f}" if p >= 1e-4 or p == 0 else f"{p:.1e}"


def certificate_words(pred: Prediction) -> str:
    """The certificate of a prediction in words, with the "more than N" note."""
    words = pred.certificate.description
    if pred.more_than is not None:
        words += f"; more than {pred.more_than} forms have nonzero probability, the "
        words += f"{pred.more_than} most probable are listed"
    return words


def prediction_table(pred: Prediction) -> Group:
    """One prediction as a table: forms, probabilities (number and bar), certificate in words,
    then any warnings."""
    from rich.bar import Bar

    where = f" — {pred.source}:{pred.line}" if pred.source is not None else ""
    table = Table(
        title=f"[bold]{pred.lemma}[/bold]  {pred.tags}  ({pred.language}){where}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("form", overflow="fold")
    table.add_column("probability", justify="right", no_wrap=True)
    table.add_column("", width=24, no_wrap=True)
    for f in pred.forms:
        table.add_row(f.form, _probability(f.probability), Bar(1.0, 0.0, f.probability, width=24))
    if not pred.forms:
        table.add_row(Text("no form finished", style="dim"), "—", "")
    parts: list = [table]
    style = _CERTIFICATE_STYLE[pred.certificate.value]
    parts.append(Text(certificate_words(pred), style=style))
    parts.extend(Text(f"warning: {w}", style="dim yellow") for w in pred.warnings)
    return Group(*parts)


def prediction_tsv(pred: Prediction) -> str:
    """One prediction as one TSV line (no newline): ``lemma, tags, language, certificate, count``
    then the forms and their probabilities alternating (``form_1, p_1, form_2, p_2, ...``).

    ``certificate`` is ``full_support``, ``mode_only`` or ``none``; ``count`` is the number of
    forms listed, or ``>N`` when more than N forms have nonzero probability. Probabilities are
    written with Python's shortest round-trip ``repr``.
    """
    count = f">{pred.more_than}" if pred.more_than is not None else str(len(pred.forms))
    fields = [pred.lemma, pred.tags, pred.language, pred.certificate.value, count]
    for f in pred.forms:
        fields += [f.form, repr(f.probability)]
    return "\t".join(fields)


def prediction_jsonl(pred: Prediction) -> str:
    """One prediction as one JSON Lines record (no newline), :meth:`Prediction.to_dict`."""
    import json

    return json.dumps(pred.to_dict(), ensure_ascii=False)


def prediction_2018(pred: Prediction) -> str:
    """One prediction in the shared task's format, ``lemma<TAB>form<TAB>tags`` (the most
    probable form; empty when none finished), as `inflect evaluate --pred` reads it."""
    best = pred.best.form if pred.best is not None else ""
    return f"{pred.lemma}\t{best}\t{pred.tags}"


def models_table(models: Sequence[ShippedModel]) -> Table:
    """The shipped default models: language, members, dev accuracy, setting, size, data and the
    commands that trained them."""
    table = Table(title="shipped default models")
    table.add_column("language", no_wrap=True)
    table.add_column("members", justify="right")
    table.add_column("dev accuracy %", justify="right")
    table.add_column("setting")
    table.add_column("size", justify="right", no_wrap=True)
    table.add_column("data and training commands", overflow="fold")
    for m in models:
        missing = f" ({len(m.missing)} missing)" if m.missing else ""
        about = "\n".join([m.data, *m.commands] if m.data else m.commands)
        table.add_row(
            m.language,
            f"{len(m.members)}{missing}",
            "—" if m.dev_accuracy is None else f"{m.dev_accuracy:.2f}",
            m.setting or "—",
            human_size(m.size_bytes),
            about or "—",
        )
    return table
