"""Rendering: rich tables for a terminal, TSV with a header for a pipe. Rendering only — no
computation here.

User text (lemmas, forms, tag bundles, language names, paths, model names) is shown verbatim:
every such string enters a rich renderable as a :class:`rich.text.Text` (never parsed as console
markup), and TSV refuses a control character in a field (:func:`tsv_line`) instead of letting
it shift the columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # annotations only: `inflect predict` must not import the data rooms
    import pandas as pd

    from inflect.corpora.manifests import LanguageSummary, Manifest
    from inflect.corpora.stats import SplitStats
    from inflect.evaluation.ambiguity import AmbiguityReport
    from inflect.inference.explain import Explanation
    from inflect.inference.outcomes import Form, Prediction, Record
    from inflect.inference.registry import ShippedModel
    from inflect.text.records import DataFormatError, ReadStats
    from inflect.training.queue import LanguageStatus

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


# --- TSV: what every command prints in a pipe -------------------------------------------------


def _tsv_value(value: object) -> str:
    """A field: text as is, None and NaN empty, a float by its shortest round-trip ``repr``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        value = float(value)  # type: ignore[arg-type]
        return "" if value != value else repr(value)
    if type(value).__name__.startswith(("int", "uint")):
        return str(int(value))  # type: ignore[call-overload]
    return "" if str(value) in ("<NA>", "nan", "NaT") else str(value)


def tsv_line(fields: Sequence[object]) -> str:
    """One TSV line (no newline): the fields joined by TAB (see :func:`_tsv_value`).

    Raises:
        ValueError: a field holds a control character (a TAB or a line break would shift or split
            the columns); the message names the field and the character.
    """
    from inflect.text.records import control_character

    texts = [_tsv_value(f) for f in fields]
    for text in texts:
        found = control_character(text)
        if found is not None:
            raise ValueError(f"cannot write {text!r} as a TSV field: control character {found}")
    return "\t".join(texts)


def tsv_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A header line and one line per row, each ending in a newline."""
    return "".join(tsv_line(row) + "\n" for row in [header, *rows])


def frame_tsv(frame: pd.DataFrame) -> str:
    """A DataFrame as TSV: its column names as the header, one line per row, numbers at full
    precision (floats by ``repr``), NaN empty."""
    return tsv_table([str(c) for c in frame.columns], list(frame.itertuples(index=False)))


def _length(text: str | None) -> str:
    """Length in code points, or a dash."""
    return "—" if text is None else f"{len(text)}"


def stats_table(stats: Sequence[SplitStats]) -> Group:
    """Statistics of a language's files: one column per split, one row per statistic, then the
    longest lemma and form of each split (see :class:`inflect.corpora.stats.SplitStats`)."""
    title = stats[0].language if stats else ""
    table = Table(title=Text(f"{title} (CoNLL–SIGMORPHON 2018 task 1)"))
    table.add_column("", no_wrap=True)
    for s in stats:
        table.add_column(Text(_SHORT_SPLITS.get(s.split, s.split)), justify="right")
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
        longest.add_row(Text(s.split), "lemma", Text(s.longest_lemma))
        if s.longest_form is not None:
            longest.add_row("", "form", Text(s.longest_form))
    notes = Text(
        "characters: distinct code points of lemmas and forms; symbols: the language spec's "
        "model-side symbols; bundles: distinct sets of UniMorph features; with spaces: pairs "
        "with a space in the lemma or form; repeated / padded feature: pairs whose tag bundle "
        "repeated a feature / had spaces around one",
        style="dim",
    )
    return Group(table, longest, notes)


def stats_tsv(stats: Sequence[SplitStats]) -> str:
    """Statistics of a language's files as TSV: one line per split; the columns are the fields
    of :class:`inflect.corpora.stats.SplitStats` in order (language, split, pairs, lemmas, characters,
    symbols, features, bundles, with_spaces, longest_lemma, longest_form, multi_order_bundles,
    duplicate_feature_bundles, padded_feature_bundles, blank_lines)."""
    import dataclasses

    from inflect.corpora.stats import SplitStats

    names = [f.name for f in dataclasses.fields(SplitStats)]
    return tsv_table(names, [[getattr(s, n) for n in names] for s in stats])


def datasets_table(manifests: Sequence[Manifest], present: Sequence[int]) -> Table:
    """The shipped datasets: name, description, files (present locally), size, licence."""
    table = Table(title="datasets")
    for column in ("dataset", "description", "files (here)", "size", "licence"):
        table.add_column(column, overflow="fold")
    for manifest, here in zip(manifests, present, strict=True):
        size = sum(f.size for f in manifest.files)
        table.add_row(
            Text(manifest.name),
            Text(manifest.title),
            f"{len(manifest.files)} ({here})",
            human_size(size),
            Text(manifest.licence),
        )
    return table


#: Columns of :func:`datasets_tsv`.
DATASETS_TSV_COLUMNS = ("dataset", "description", "files", "files_here", "size_bytes", "licence")


def datasets_tsv(manifests: Sequence[Manifest], present: Sequence[int]) -> str:
    """The shipped datasets as TSV (:data:`DATASETS_TSV_COLUMNS`): name, description, number of
    files, how many are in the data folder, bytes, licence."""
    rows = [
        (m.name, m.title, len(m.files), here, sum(f.size for f in m.files), m.licence)
        for m, here in zip(manifests, present, strict=True)
    ]
    return tsv_table(DATASETS_TSV_COLUMNS, rows)


def languages_tsv(name: str, rows: Sequence[LanguageSummary], splits: Sequence[str]) -> str:
    """A dataset's languages as TSV: dataset, language, examples per split (one column per
    split, named as the split, e.g. ``train-high``; empty where the language has none),
    size_bytes, files_here, files."""
    header = ["dataset", "language", *splits, "size_bytes", "files_here", "files"]
    lines = [
        [name, r.language, *(r.records.get(s) for s in splits), r.size, r.present, r.files]
        for r in rows
    ]
    return tsv_table(header, lines)


def languages_table(name: str, rows: Sequence[LanguageSummary], splits: Sequence[str]) -> Table:
    """Per-language examples per split (— where a split does not exist), size and how many of
    the language's files are in the data folder."""
    table = Table(title=Text(f"{name}: examples per split"))
    table.add_column("language", no_wrap=True)
    for split in splits:
        table.add_column(Text(_SHORT_SPLITS.get(split, split)), justify="right")
    table.add_column("size", justify="right", no_wrap=True)
    table.add_column("here", justify="right")
    for row in rows:
        table.add_row(
            Text(row.language),
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
    """The frame of :func:`inflect.evaluation.scoring.score_predictions` as a table: one row per language,
    the macro-average last; accuracy (percent) and mean Levenshtein distance at 2 decimals, as
    the shared-task scorer prints them."""
    table = Table(title=Text(title))
    table.add_column("language", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("accuracy %", justify="right")
    table.add_column("levenshtein", justify="right")
    counts = [
        c for c in ("missing", "extra", "gold_duplicates", "pred_duplicates") if c in frame.columns
    ]
    for column in counts:
        table.add_column(column.replace("_", " "), justify="right")
    last = len(frame) - 1
    for i, row in enumerate(frame.itertuples(index=False)):
        values = row._asdict()
        table.add_row(
            Text(str(values["language"])),
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


def certificate_words(pred: Record) -> str:
    """The certificate of a prediction in words, with its notes (:attr:`Outcome.certificate_words`:
    "more than N", the length limit where the search stopped at it)."""
    return pred.certificate_words


def _is_error(pred: Any) -> bool:
    """True for an :class:`inflect.inference.predictor.ErrorRecord` (an input that got no answer)."""
    return hasattr(pred, "message") and not hasattr(pred, "forms")


class _Fitted:
    """A renderable that shows the first of ``layouts`` whose natural width (nothing wrapped
    or cut) fits the console, else the last (which must fit any width)."""

    def __init__(self, *layouts: Any) -> None:
        self.layouts = layouts

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        for layout in self.layouts[:-1]:
            wide = options.update(width=1_000_000)  # Measurement.get clamps to the width
            if Measurement.get(console, wide, layout).maximum <= options.max_width:
                yield layout
                return
        yield self.layouts[-1]


def _forms_table(pred: Record, bars: bool) -> Table:
    """The forms of a prediction as a table: form, probability, (``bars``: a bar, or for an
    attested form the model's probability of it), and the source where a form is attested.
    No cell wraps, so a form or a number is never cut."""
    from rich.bar import Bar

    where = f" — {pred.where}" if pred.where is not None else ""
    first, tags, language = pred.inputs
    table = Table(
        title=Text.assemble((first, "bold"), f"  {tags}  ({language}){where}"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("form", no_wrap=True)
    table.add_column("probability", justify="right", no_wrap=True)
    if bars:
        table.add_column("", width=24, no_wrap=True)
    attested = pred.attested
    model_forms = pred.model_forms
    if attested:
        table.add_column("source", no_wrap=True, style="dim")
    listed = {f.form for f in model_forms}
    for i, f in enumerate(attested):
        model = f"model {_probability(f.probability)}" if f.form in listed else "not the model's"
        table.add_row(
            Text(f.form, style="bold"),
            Text("attested", style="bold green"),
            *([Text(model, style="dim")] if bars else []),
            f.source,
            end_section=i == len(attested) - 1,
        )
    for f in model_forms:
        bar = [Bar(1.0, 0.0, f.probability, width=24)] if bars else []
        table.add_row(Text(f.form), _probability(f.probability), *bar,
                      *(["model"] if attested else []))
    if not model_forms:
        table.add_row(Text("no form finished", style="dim"), "—", *([""] if bars else []),
                      *([""] if attested else []))
    return table


def _forms_lines(pred: Record) -> Group:
    """The forms of a prediction as plain lines (a terminal too narrow for any table): the
    input, then ``form  probability  [source]`` a line, wrapped by the terminal, never cut."""
    first, tags, language = pred.inputs
    where = f" — {pred.where}" if pred.where is not None else ""
    lines = [Text.assemble((first, "bold"), f"  {tags}  ({language}){where}")]
    for f in pred.attested:
        lines.append(Text.assemble((f.form, "bold"), "  ", ("attested", "bold green"),
                                   f"  {f.source}"))
    for f in pred.model_forms:
        lines.append(Text(f"{f.form}  {_probability(f.probability)}"))
    if not pred.model_forms:
        lines.append(Text("no form finished", style="dim"))
    return Group(*lines)


def prediction_table(pred: Record) -> Group:
    """One prediction as a table: the attested forms first (marked ``attested``, with their
    source), then the model's forms with probabilities (number and bar), the model's certificate
    in words, the model that answered, then any warnings; an
    :class:`~inflect.inference.predictor.ErrorRecord` as one line ``error: …``. On a narrow terminal the
    bars go first, then the table becomes plain lines: a form or a number is never dropped,
    cut or wrapped inside a table cell."""
    if _is_error(pred):
        return Group(Text(f"error: {pred.message}", style="bold red"))
    parts: list = [_Fitted(_forms_table(pred, True), _forms_table(pred, False), _forms_lines(pred))]
    style = _CERTIFICATE_STYLE[pred.certificate.value]
    words = certificate_words(pred)
    parts.append(Text(f"the model's forms: {words}" if pred.attested else words, style=style))
    if getattr(pred, "model", None):
        parts.append(Text(f"model: {pred.model} (inflect models)", style="dim"))
    parts.extend(Text(f"warning: {w}", style="dim yellow") for w in pred.warnings)
    return Group(*parts)


#: Columns of :func:`prediction_tsv` (``inflect predict`` in a pipe).
PREDICTION_TSV_COLUMNS = (
    "lemma",
    "tags",
    "language",
    "certificate",
    "count",
    "rank",
    "form",
    "probability",
    "source",
)
#: The columns of ``inflect translate``'s TSV (no ``source``: translations are the model's).
TRANSLATION_TSV_COLUMNS = (
    "sentence",
    "tags",
    "pair",
    "certificate",
    "count",
    "rank",
    "translation",
    "probability",
)


def prediction_tsv(pred: Record) -> str:
    """One prediction as TSV lines (no final newline), one per form listed, in the fixed
    layout :data:`PREDICTION_TSV_COLUMNS`: ``lemma, tags, language, certificate, count, rank,
    form, probability, source``; a translation (:class:`inflect.inference.translator.Translation`) has
    ``source, "", pair`` in the first three columns and no ``source`` column
    (:data:`TRANSLATION_TSV_COLUMNS`).

    The attested forms come first (``source``: where they are written, ``FILE:LINE`` or
    ``shared-task data (english-train-high:8920)``; ``probability``: the model's probability of
    the same text, 0.0 where the model does not list it), then the model's distribution
    (``source`` ``model``). ``certificate`` is the model's: ``full_support``, ``mode_only`` or
    ``none``; ``count`` is the number of forms the model lists, or ``>N`` when more than N forms
    have nonzero probability; ``rank`` is the form's place in the answer (1: the first, an
    attested form where there is one); probabilities are written with Python's shortest
    round-trip ``repr``. Where the model finished no form, one line has ``rank``, ``form``,
    ``probability`` (and ``source``) empty. An :class:`~inflect.inference.predictor.ErrorRecord` (an input
    that got no answer; its message goes to standard error) has one line with the input's
    fields as far as they were read, certificate ``error``, count ``0`` and the rest empty.

    Raises:
        ValueError: a field holds a control character (see :func:`tsv_line`).
    """
    if _is_error(pred):
        return tsv_line([*_printable(pred.inputs), "error", "0", None, None, None, None])
    from inflect.inference.outcomes import MODEL_SOURCE, Prediction

    with_source = isinstance(pred, Prediction)
    model_count = len(pred.model_forms)
    count = f">{pred.more_than}" if pred.more_than is not None else str(model_count)
    head = [*pred.inputs, pred.certificate.value, count]

    def line(rank: int | None, f: Form | None) -> str:
        cells = [rank, f.form, f.probability] if f is not None else [None, None, None]
        if with_source:
            cells.append(None if f is None else (f.source or MODEL_SOURCE))
        return tsv_line([*head, *cells])

    lines = [line(rank, f) for rank, f in enumerate(pred.forms, start=1)]
    if not model_count:
        lines.append(line(None, None))
    return "\n".join(lines)


def _printable(fields: Sequence[str]) -> list[str]:
    """Fields of an error record for a TSV line: a control character (what made the input
    unreadable, maybe) becomes its ``\\uXXXX`` escape."""
    return [
        "".join(c if c.isprintable() or c == " " else f"\\u{ord(c):04x}" for c in text)
        for text in fields
    ]


def prediction_jsonl(pred: Record) -> str:
    """One prediction as one JSON Lines record (no newline), :meth:`Prediction.to_dict`."""
    import json

    return json.dumps(pred.to_dict(), ensure_ascii=False)


def prediction_2018(pred: Prediction) -> str | None:
    """One prediction in the shared task's format, ``lemma<TAB>form<TAB>tags``: the first form
    of the answer (the first attested form where a lexicon holds the input, else the model's
    most probable; empty when there is none), as `inflect evaluate --pred` reads it. An
    :class:`~inflect.inference.predictor.ErrorRecord` with its lemma and tags read gives the line with an
    empty form (scored as wrong); one of a line that could not be read gives None (no line: its
    message goes to standard error)."""
    if _is_error(pred):
        if pred.lemma is None or pred.tags is None:
            return None
        lemma, tags = _printable((pred.lemma, pred.tags))
        return tsv_line([lemma, "", tags])
    best = pred.best.form if pred.best is not None else ""
    return tsv_line([pred.lemma, best, pred.tags])


def models_table(models: Sequence[ShippedModel]) -> Table:
    """The shipped default models: one line per language and model (language, model, members,
    dev accuracy in percent, setting, size); how each model was trained is
    :func:`models_commands`."""
    table = Table(title="shipped default models", box=None, header_style="bold underline",
                  pad_edge=False, collapse_padding=True)
    table.add_column("language", no_wrap=True)
    table.add_column("model", no_wrap=True)
    table.add_column("members", justify="right", no_wrap=True)
    table.add_column("dev %", justify="right", no_wrap=True)
    table.add_column("setting", no_wrap=True)
    table.add_column("size", justify="right", no_wrap=True)
    for m in models:
        missing = f" ({len(m.missing)} missing)" if m.missing else ""
        table.add_row(
            Text(m.language),
            Text(m.name or m.language),
            f"{len(m.members)}{missing}",
            "—" if m.dev_accuracy is None else f"{m.dev_accuracy:.2f}",
            Text(m.setting or "—"),
            human_size(m.size_bytes),
        )
    return table


def models_commands(models: Sequence[ShippedModel], *, every_row: bool = False) -> list[Text]:
    """Once per model (in the order first listed; ``every_row``: once per row, the whole
    record): its name, description and data, then the commands that made it: a warm start's
    (``start_commands``, with ``start_note``) first, then one per member. Print the lines with
    ``soft_wrap=True``: a command stays one line (the terminal folds it; a copy is the whole
    command)."""
    title = "every row's record" if every_row else (
        "how each model was trained (--verbose: every row's record)")
    lines = [Text(""), Text(title, style="bold")]
    seen: set[str] = set()
    for m in models:
        name = m.name or m.language
        if name in seen and not every_row:
            continue
        seen.add(name)
        lines.append(Text(""))
        about = "; ".join(x for x in (m.description, m.data) if x)
        head = f"{m.language} ({name})" if every_row and m.language else name
        lines.append(Text.assemble((head, "bold"), f": {about}" if about else ""))
        if m.start_note and not m.start_commands:  # e.g. from a member of a shipped model
            lines.append(Text(f"  (warm-started from {m.start_note})"))
        elif m.start_commands:
            lines.append(Text("  first, the run its members were warm-started from:"))
            lines += [Text(c) for c in m.start_commands]
            if m.start_note:
                lines.append(Text(f"  ({m.start_note})"))
            lines.append(Text("  then, one command per member:"))
        lines += [Text(c) for c in m.commands]
        if not m.commands:
            lines.append(Text("  (no training commands recorded)"))
    return lines


def models_tsv(models: Sequence[ShippedModel]) -> str:
    """The shipped default models as tab-separated lines with a header: language, model (its
    registry name), members (the member checkpoint paths, comma-separated), dev_accuracy (percent
    on the language's dev file, empty if unknown), setting, size_bytes, data, commands
    (``" && "``-joined), start_commands (the warm start's, ``" && "``-joined, run first) and
    start_note."""
    header = [
        "language",
        "model",
        "members",
        "dev_accuracy",
        "setting",
        "size_bytes",
        "data",
        "commands",
        "start_commands",
        "start_note",
    ]
    rows = []
    for m in models:
        fields = [
            m.language,
            m.name or m.language,
            ",".join(str(p) for p in m.members),
            "" if m.dev_accuracy is None else f"{m.dev_accuracy:.2f}",
            m.setting,
            str(m.size_bytes),
            m.data,
            " && ".join(m.commands),
            " && ".join(m.start_commands),
            m.start_note,
        ]
        rows.append([" ".join(f.split()) for f in fields])
    return tsv_table(header, rows)


def _queue_cells(s: LanguageStatus) -> list[str]:
    of = f"/{s.max_epochs}" if s.max_epochs else ""
    best = "" if s.best_accuracy is None else f"{s.best_accuracy:.1f}"
    return [
        s.language,
        s.state,
        f"{s.epochs}{of}",
        best,
        str(s.best_epoch or ""),
        f"{s.cpu_seconds / 60:.1f}",
    ]


_QUEUE_HEADER = ["language", "state", "epochs", "best_dev_accuracy", "best_epoch", "cpu_minutes"]


def queue_table(statuses: Sequence[LanguageStatus], title: str) -> Table:
    """A per-language training queue: language, state, epochs (done/at most), best dev accuracy
    (%), its epoch, CPU minutes spent; a last line counts the states."""
    table = Table(title=title)
    for name, right in zip(_QUEUE_HEADER, (0, 0, 1, 1, 1, 1), strict=True):
        table.add_column(name.replace("_", " "), justify="right" if right else "left", no_wrap=True)
    for s in statuses:
        table.add_row(*(Text(c) for c in _queue_cells(s)))
    counts: dict[str, int] = {}
    for s in statuses:
        counts[s.state] = counts.get(s.state, 0) + 1
    table.caption = ", ".join(f"{n} {state}" for state, n in counts.items())
    return table


def queue_tsv(statuses: Sequence[LanguageStatus]) -> str:
    """The queue as TSV with a header: language, state, epochs (``done/at most``),
    best_dev_accuracy (percent, empty before the first epoch), best_epoch, cpu_minutes."""
    return tsv_table(_QUEUE_HEADER, [_queue_cells(s) for s in statuses])


# --- inflect evaluate --model / inflect report ambiguity / inflect explain ---------------------


def _share(value: float) -> str:
    return "—" if value != value else f"{100.0 * value:.1f}"


def _mean(value: float) -> str:
    return "—" if value != value else f"{value:.2f}"


def _frame_table(frame: pd.DataFrame, title: str, columns: list) -> _Fitted:
    """A table of ``columns`` (header, key, format) of ``frame``, one row per record; on a
    terminal too narrow for it, one plain line per value (``header: value``), never cut."""
    columns = [c for c in columns if c[1] in frame.columns]
    lines: list[Text] = [Text(title, style="bold")]
    for row in frame.to_dict("records"):
        first, *rest = columns
        lines.append(Text(first[2](row[first[1]]), style="bold"))
        lines += [Text(f"  {header}: {fmt(row[key])}") for header, key, fmt in rest]
    return _Fitted(_frame_grid(frame, title, columns), Group(*lines))


def _frame_grid(frame: pd.DataFrame, title: str, columns: list) -> Table:
    table = Table(title=Text(title), box=box.SIMPLE_HEAD, pad_edge=False)
    columns = [c for c in columns if c[1] in frame.columns]
    for header, key, _ in columns:
        table.add_column(
            header,
            justify="left" if key == "language" else "right",
            no_wrap=True,
            min_width=len(header),
        )
    last = len(frame) - 1
    for i, row in enumerate(frame.to_dict("records")):
        table.add_row(
            *(Text(fmt(row[key])) for _, key, fmt in columns),
            style="bold" if i == last and len(frame) > 1 else None,
            end_section=i == last - 1,
        )
    return table


def evaluation_table(frame: pd.DataFrame, title: str = "evaluation") -> Group:
    """The frame of :func:`inflect.evaluation.runner.evaluate_predictor` as two tables, one row per
    language and the macro-average last: the shared task's scores (accuracy in percent, mean
    Levenshtein distance, 2 decimals as the scorer prints them; inputs the model rejected), then
    the sparsity statistics (shares in percent, 1 decimal; means at 2 decimals)."""

    def count(v: int) -> str:
        return f"{v:,}"

    scores = [
        ("language", "language", str),
        ("n", "n", count),
        ("accuracy %", "accuracy", lambda v: f"{v:.2f}"),
        ("levenshtein", "levenshtein", lambda v: f"{v:.2f}"),
        ("missing", "missing", count),
        ("rejected", "rejected", count),
    ]
    sparsity = [
        ("language", "language", str),
        ("1-str %", "single_string", _share),
        ("full %", "full_support", _share),
        ("mode %", "mode_only", _share),
        ("strings", "mean_strings", _mean),
        ("step", "mean_step_support", _mean),
        ("attended", "mean_attended", _mean),
        ("dens. %", "attention_density", _share),
    ]
    return Group(
        _frame_table(frame, title, scores),
        _frame_table(frame, "sparsity", sparsity),
        Text(
            "1-str: all probability on one form; full / mode: certified full support / "
            "mode only; strings: forms of nonzero probability; step: output support "
            "size per decoding step; attended: source symbols per output symbol; dens.: "
            "nonzero attention weights / all",
            style="dim",
        ),
    )


def _forms_text(
    forms: Sequence[tuple[str, float]], gold: str | None
) -> list[tuple[str, str, bool]]:
    return [(form, _probability(p), form == gold) for form, p in forms]


def _summary_lines(report: AmbiguityReport) -> list[str]:
    lines = [
        f"inputs: {report.inputs:,}"
        + (
            f" (and {report.rejected:,} rejected: the model cannot take them)"
            if report.rejected
            else ""
        ),
        f"ambiguous (more than one nonzero-probability form): {report.ambiguous:,} "
        f"({_share(report.ambiguous_share)} %)",
        f"tag bundles with ambiguous inputs: {len(report.groups):,}",
    ]
    if report.inputs:
        none = report.inputs - report.full_support - report.mode_only
        lines.append(
            f"certified full support: {report.full_support:,} of {report.inputs:,} "
            f"inputs ({_share(report.full_support / report.inputs)} %); mode only: "
            f"{report.mode_only:,}; not certified: {none:,}"
        )
    if report.with_gold:
        lines.append(
            f"gold form in the support: {report.gold_in_support:,} of "
            f"{report.with_gold:,} ambiguous inputs with gold "
            f"({_share(report.gold_in_support / report.with_gold)} %)"
        )
    if report.incomplete:
        lines.append(f"not certified full support (list may be incomplete): {report.incomplete:,}")
    return lines


def ambiguity_rich(report: AmbiguityReport) -> Group:
    """The ambiguity report for a terminal: summary counts, then one table per tag bundle
    (lemma, forms with probabilities — the gold form in green —, gold, gold in support); user
    text is shown verbatim (never read as rich markup)."""
    parts: list = [Text("\n".join(_summary_lines(report)), style="bold")]
    for group in report.groups:
        table = Table(
            title=Text(f"{group.tags}  ({len(group.inputs)} of {group.total})"),  # no markup
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        table.add_column("lemma")
        table.add_column("forms (probability)", overflow="fold")
        table.add_column("gold")
        table.add_column("gold in support", justify="center")
        for item in group.inputs:
            text = Text()
            for j, (form, p, is_gold) in enumerate(_forms_text(item.forms, item.gold)):
                if j:
                    text.append(", ")
                text.append(form, style="green" if is_gold else None)
                text.append(f" ({p})", style="dim")
                if item.source_of(form) is not None:
                    text.append(" attested", style="bold green")
            listed = {form for form, _ in item.forms}
            for form, source in item.attested:
                if form not in listed:
                    text.append(f"; attested {form} ({source}), not the model's", style="green")
            hit = {None: "—", True: "yes", False: "no"}[item.gold_in_support]
            if item.gold_in_support is False and not item.complete:
                hit = "no (list incomplete)"
            table.add_row(Text(item.lemma), text, Text(item.gold or "—"), hit)
        parts.append(table)
    return Group(*parts)


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_text(text: str) -> str:
    """User text for Markdown: table-cell escapes, ``<``/``&`` as entities so that no renderer
    reads it as HTML, and backslashes before the emphasis, code and link characters."""
    text = _md_cell(text).replace("&", "&amp;").replace("<", "&lt;")
    for char in "`*_[]":
        text = text.replace(char, "\\" + char)
    return text


def _md_forms(forms: Sequence[tuple[str, float]], gold: str | None) -> str:
    """``form (p), ...`` with the gold form in bold."""
    return ", ".join(
        (f"**{_md_text(f)}**" if g else _md_text(f)) + f" ({p})"
        for f, p, g in _forms_text(forms, gold)
    )


def markdown_slug(heading: str, seen: dict[str, int]) -> str:
    """The anchor a Markdown renderer gives a heading, as GitHub does: lower case, characters
    other than letters, digits, ``-``, ``_`` and spaces removed, spaces as ``-``; a repeated slug
    gets ``-1``, ``-2``, ... (``seen`` counts them)."""
    import re

    slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def ambiguity_markdown(
    report: AmbiguityReport,
    title: str = "Ambiguity report",
    about: dict[str, str] | None = None,
) -> str:
    """The ambiguity report as Markdown, the content of the HTML report as text: the ``about``
    lines and summary; the forms per input by tag bundle as a table (the HTML chart's figures);
    contents linking to each tag bundle; one table per tag bundle (lemma; forms with
    probabilities, the gold form in bold, the folded tail of the HTML report after its "+ N
    forms below 0.1 %" line; gold; gold in support; number of forms; entropy in bits; certificate).
    Attention maps are left to the HTML report and ``inflect explain``."""
    from inflect.render.report_html import SIZE_CLASSES, _size_class, split_tail, tail_summary

    lines = [f"# {_md_text(title)}", ""]
    if about:
        lines += [f"- {_md_text(k)}: {_md_text(v)}" for k, v in about.items()]
        lines.append("")
    lines += [f"- {line}" for line in _summary_lines(report)]
    if report.bundles:
        lines += [
            "",
            "Forms of nonzero probability per input, by tag bundle (inputs):",
            "",
            "| tag bundle | inputs | ambiguous | "
            + " | ".join(label for label, _, _ in SIZE_CLASSES)
            + " |",
            "|---|" + "---:|" * (2 + len(SIZE_CLASSES)),
        ]
        for bundle in report.bundles:
            counts = [0] * len(SIZE_CLASSES)
            for size, n in bundle.sizes.items():
                counts[_size_class(size)] += n
            lines.append(
                f"| {_md_text(bundle.tags)} | {bundle.inputs:,} | {bundle.ambiguous:,} | "
                + " | ".join(f"{n:,}" if n else "" for n in counts)
                + " |"
            )
    seen: dict[str, int] = {}
    headings = [f"{group.tags} ({len(group.inputs)} of {group.total})" for group in report.groups]
    slugs = [markdown_slug(h, seen) for h in headings]
    if report.groups:
        lines += ["", "Contents:", ""]
        lines += [
            f"- [{_md_text(g.tags)}](#{slug}): {len(g.inputs):,} ambiguous of {g.total:,}"
            for g, slug in zip(report.groups, slugs, strict=True)
        ]
    for group, heading in zip(report.groups, headings, strict=True):
        lines += [
            "",
            f"## {_md_text(heading)}",
            "",
            "| lemma | forms (probability) | gold | gold in support | forms | "
            "entropy (bits) | certificate |",
            "|---|---|---|---|---:|---:|---|",
        ]
        for item in group.inputs:
            head, tail = split_tail(item.forms)
            forms = _md_forms(head, item.gold)
            if tail:
                forms += f"; {tail_summary(tail, item.gold)}: {_md_forms(tail, item.gold)}"
            if item.attested:
                forms += "; attested: " + ", ".join(
                    f"{_md_text(form)} ({_md_text(source)})" for form, source in item.attested
                )
            hit = {None: "—", True: "yes", False: "no"}[item.gold_in_support]
            count = (
                f"more than {item.more_than}"
                if item.more_than is not None
                else f"{len(item.forms)}"
            )
            lines.append(
                f"| {_md_text(item.lemma)} | {forms} | {_md_text(item.gold or '—')} "
                f"| {hit} | {count} | {item.entropy:.2f} | "
                f"{item.certificate.replace('_', ' ')} |"
            )
    return "\n".join(lines) + "\n"


def ambiguity_html(
    report: AmbiguityReport,
    title: str = "Ambiguity report",
    about: dict[str, str] | None = None,
) -> str:
    """The ambiguity report as one self-contained HTML page: see
    :func:`inflect.render.report_html.ambiguity_page`."""
    from inflect.render.report_html import ambiguity_page

    return ambiguity_page(report, title, about)


def attention_heatmap(explanation: Explanation) -> Table:
    """The attention matrix as a terminal heat map: rows are target symbols (then ``</s>``),
    columns source symbols; a nonzero weight is a shaded cell showing the weight in percent
    (rounded; ``·`` below 0.5 %), an exact zero is blank."""
    matrix = explanation.attention
    title = Text(f"attention: {explanation.prediction.lemma} {explanation.prediction.tags}")
    table = Table(title=title, box=box.SIMPLE, padding=(0, 0))
    table.add_column("", justify="right", no_wrap=True)
    for symbol in explanation.source:
        table.add_column(Text(symbol), justify="center", width=4, no_wrap=True)
    for label, row in zip(explanation.target, matrix, strict=True):
        cells = []
        for weight in row:
            weight = float(weight)
            if weight == 0.0:
                cells.append(Text(""))
                continue
            level = round(80 + 175 * (1.0 - weight))
            shown = f"{round(100 * weight)}" if weight >= 0.005 else "·"
            cells.append(Text(shown.center(4), style=f"black on rgb({level},{level},255)"))
        table.add_row(Text(label), *cells)
    return table


def _panels(explanation: Explanation) -> list:
    """The explanation's panels, or the best string alone where it has none."""
    from inflect.inference.explain import AttentionPanel

    best = explanation.prediction.best
    return list(explanation.panels) or [
        AttentionPanel(
            best.form if best else "",
            best.probability if best else float("nan"),
            explanation.target,
            explanation.attention,
        )
    ]


#: Columns of :func:`attention_tsv` (``inflect explain`` in a pipe).
ATTENTION_TSV_COLUMNS = ("form", "probability", "step", "output", "position", "source", "weight")


def attention_tsv(explanation: Explanation) -> str:
    """The attention of an explanation's strings as TSV (:data:`ATTENTION_TSV_COLUMNS`), one line
    per cell of each string's matrix, most probable string first: the form and its probability;
    ``step`` (1-based decoding step) and ``output`` (the symbol it emitted, ``</s>`` last);
    ``position`` (1-based) and ``source`` (the lemma's symbol); ``weight`` (exact zeros as
    ``0.0``; floats by ``repr``)."""
    rows = []
    for panel in _panels(explanation):
        for step, (label, weights) in enumerate(zip(panel.target, panel.attention, strict=True)):
            for position, (symbol, weight) in enumerate(
                zip(explanation.source, weights, strict=True)
            ):
                rows.append(
                    (
                        panel.form,
                        panel.probability,
                        step + 1,
                        label,
                        position + 1,
                        symbol,
                        float(weight),
                    )
                )
    return tsv_table(ATTENTION_TSV_COLUMNS, rows)


#: Columns of :func:`ambiguity_tsv` (``inflect report ambiguity`` in a pipe).
AMBIGUITY_TSV_COLUMNS = (
    "tags",
    "lemma",
    "language",
    "gold",
    "gold_in_support",
    "certificate",
    "count",
    "rank",
    "form",
    "probability",
)


def ambiguity_tsv(report: AmbiguityReport) -> str:
    """The ambiguous inputs as TSV (:data:`AMBIGUITY_TSV_COLUMNS`), one line per form, by tag
    bundle as :func:`ambiguity_rich` orders them: ``gold`` empty where unknown;
    ``gold_in_support`` ``true``, ``false`` or empty; ``count`` the number of forms, ``>N`` when
    more than N have nonzero probability; ``rank`` 1 for the most probable form."""
    rows = []
    for group in report.groups:
        for item in group.inputs:
            count = f">{item.more_than}" if item.more_than is not None else len(item.forms)
            head = (
                item.tags,
                item.lemma,
                item.language,
                item.gold,
                item.gold_in_support,
                item.certificate,
                count,
            )
            rows += [(*head, rank, form, p) for rank, (form, p) in enumerate(item.forms, 1)]
    return tsv_table(AMBIGUITY_TSV_COLUMNS, rows)


def _weight_text(weight: float) -> str:
    """A nonzero attention weight written in its cell: two decimals, ``<.01`` below 0.005."""
    return "<.01" if weight < 0.005 else f"{weight:.2f}".lstrip("0")


def check_plotting() -> Any:
    """``matplotlib.pyplot`` with the file-only Agg backend.

    Raises:
        RuntimeError: matplotlib is not installed (``pip install 'sparse-inflect[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError(
            "--png needs matplotlib: pip install 'sparse-inflect[plot]' (or pip install matplotlib)"
        ) from None
    return plt


def _plain(text: str) -> str:
    """User text for a matplotlib label: ``$`` escaped, so that it is never read as mathtext."""
    return text.replace("$", r"\$")


def attention_figure(explanation: Explanation, max_forms: int | None = None) -> Any:
    """The attention of an explanation's strings as a matplotlib figure: one heat map panel per
    string (``explanation.panels``, at most ``max_forms``; the best string alone where there are
    no panels), each titled with its form and probability; rows are target symbols then
    ``</s>``, columns source symbols (right to left for a right-to-left language); each nonzero
    weight is written in its cell, exact zeros are blank (white); one shared colour scale.

    Raises:
        RuntimeError: matplotlib is not installed (``pip install 'sparse-inflect[plot]'``).
    """
    plt = check_plotting()
    import numpy as np

    panels = _panels(explanation)
    panels = panels[:max_forms] if max_forms else panels
    cols = len(explanation.source)
    rows = max(len(p.target) for p in panels)
    per_row = min(len(panels), 3)
    lines = -(-len(panels) // per_row)
    cell = 0.42
    fig, axes = plt.subplots(
        lines,
        per_row,
        squeeze=False,
        layout="constrained",
        figsize=(per_row * (1.2 + cell * cols) + 1.0, lines * (1.1 + cell * rows) + 0.5),
    )
    cmap = plt.get_cmap("Blues").with_extremes(bad="white")  # exact zeros: no attention
    image = None
    for ax, panel in zip(axes.flat, panels, strict=False):
        matrix = np.asarray(panel.attention, dtype=np.float64)
        image = ax.imshow(
            np.ma.masked_equal(matrix, 0.0), cmap=cmap, vmin=0.0, vmax=1.0, aspect="equal"
        )
        for (i, j), weight in np.ndenumerate(matrix):
            if weight != 0.0:
                ax.text(
                    j,
                    i,
                    _weight_text(weight),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if weight > 0.55 else "black",
                )
        ax.set_xticks(
            range(cols), labels=[_plain(s) if s != " " else "␣" for s in explanation.source]
        )
        ax.set_yticks(
            range(len(panel.target)), labels=[_plain(s) if s != " " else "␣" for s in panel.target]
        )
        ax.tick_params(length=0)
        if explanation.direction == "rtl":
            ax.invert_xaxis()  # the lemma reads right to left
        ax.set_xlabel(
            "source (lemma)" + (", right to left" if explanation.direction == "rtl" else "")
        )
        ax.set_ylabel("output")
        ax.set_title(f"{_plain(panel.form)}   p = {_probability(panel.probability)}")
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    pred = explanation.prediction
    fig.suptitle(
        f"{_plain(pred.lemma)}  {_plain(pred.tags)}  ({pred.language}): attention, "
        f"{len(panels)} of {len(pred.forms)} form(s)"
    )
    fig.colorbar(image, ax=axes, label="attention weight (blank: exactly 0)", shrink=0.8)
    return fig


def attention_png(explanation: Explanation, path: str, max_forms: int | None = None) -> None:
    """Write :func:`attention_figure` as a PNG (atomically, nothing left behind on a failure:
    :func:`inflect.io.outputs.write_outputs`).

    Raises:
        RuntimeError: matplotlib is not installed.
        OSError: the file cannot be written (an :class:`inflect.io.outputs.OutputError` naming it).
    """
    from inflect.io.outputs import write_outputs

    fig = attention_figure(explanation, max_forms)
    import matplotlib.pyplot as plt

    try:
        write_outputs([(path, lambda temp: fig.savefig(temp, format="png", dpi=120))])
    finally:
        plt.close(fig)


def frame_markdown(frame: pd.DataFrame, digits: int = 2) -> str:
    """A DataFrame as a Markdown table: floats at ``digits`` decimals, NaN as an em dash, ``|``
    escaped."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            return "—" if value != value else f"{value:.{digits}f}"
        return _md_cell(str(value))

    lines = [
        "| " + " | ".join(_md_cell(str(c)) for c in frame.columns) + " |",
        "|" + "|".join("---" if i < 2 else "---:" for i in range(len(frame.columns))) + "|",
    ]
    lines += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines) + "\n"
