"""Lines for a pipe: TSV with a header (what every command prints when standard output is not a
terminal), the shared task's ``lemma<TAB>form<TAB>tags`` lines, and the problem lines
of ``inflect data check``. Numbers at full precision (floats by their shortest round-trip
``repr``). Rendering only — no computation here.

User text (lemmas, forms, tag bundles, language names, paths, model names) is written verbatim;
TSV refuses a control character in a field (:func:`tsv_line`) instead of letting it shift the
columns. This module does not import rich: a pipe does not pay for the terminal's tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from inflect.render.common import attention_panels, is_error

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


# --- inflect data ----------------------------------------------------------------------------


#: Columns of :func:`stats_tsv`: the fields of :class:`inflect.corpora.stats.SplitStats`, in order.
STATS_TSV_COLUMNS = (
    "language",
    "split",
    "pairs",
    "lemmas",
    "characters",
    "symbols",
    "features",
    "bundles",
    "with_spaces",
    "longest_lemma",
    "longest_form",
    "multi_order_bundles",
    "duplicate_feature_bundles",
    "padded_feature_bundles",
    "blank_lines",
)


def stats_tsv(stats: Sequence[SplitStats]) -> str:
    """Statistics of a language's files as TSV (:data:`STATS_TSV_COLUMNS`): one line per split,
    each column the record's field of that name."""
    return tsv_table(STATS_TSV_COLUMNS, [[getattr(s, n) for n in STATS_TSV_COLUMNS] for s in stats])


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


def check_lines(errors: Sequence[DataFormatError]) -> list[str]:
    """One line per problem: ``FILE:LINE: what (value)``."""
    return [str(e) for e in errors]


def read_summary(stats: ReadStats, errors: int, warnings: int = 0) -> str:
    """A one-line summary of what the reader saw in a file: ``OK`` only with no problem and no
    warning (``readable, N warnings`` where lines need a look)."""
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
    verdict = (f"{errors:,} problem{'s' if errors != 1 else ''}" if errors
               else f"readable, {warnings:,} warning{'s' if warnings != 1 else ''}" if warnings
               else "OK")
    return f"{stats.source}: {verdict} — " + ", ".join(notes)


# --- inflect predict / translate / models / queue ------------------------------------------


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
    "asked",
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
    form, probability, source, asked`` (``tags`` as written, ``asked`` the bundle they were read
    as: :mod:`inflect.text.dialects`); a translation (:class:`inflect.inference.translator.Translation`) has
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
    ``probability`` (and ``source``) empty. An :class:`~inflect.inference.outcomes.ErrorRecord` (an input
    that got no answer; its message goes to standard error) has one line with the input's
    fields as far as they were read, certificate ``error``, count ``0`` and the rest empty
    (``asked`` too).

    Raises:
        ValueError: a field holds a control character (see :func:`tsv_line`).
    """
    if is_error(pred):
        return tsv_line([*_printable(pred.inputs), "error", "0", None, None, None, None, None])
    from inflect.inference.outcomes import MODEL_SOURCE, Prediction

    with_source = isinstance(pred, Prediction)
    model_count = len(pred.model_forms)
    count = f">{pred.more_than}" if pred.more_than is not None else str(model_count)
    head = [*pred.inputs, pred.certificate.value, count]

    def line(rank: int | None, f: Form | None) -> str:
        cells = [rank, f.form, f.probability] if f is not None else [None, None, None]
        if with_source:
            cells.append(None if f is None else (f.source or MODEL_SOURCE))
            cells.append(pred.asked_tags)
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


def prediction_2018(pred: Prediction) -> str:
    """One prediction in the shared task's format, ``lemma<TAB>form<TAB>tags``: the first form
    of the answer (the first attested form where a lexicon holds the input, else the model's
    most probable; empty when there is none), as `inflect evaluate --pred` reads it. An
    :class:`~inflect.inference.outcomes.ErrorRecord` gives a line too, so that the output has one
    line per input (the shared task scores a missing form as the empty string): with its lemma
    and tags where they were read and an empty form (scored as wrong), else three empty fields
    (a line that could not be read; its message goes to standard error)."""
    if is_error(pred):
        if pred.lemma is None or pred.tags is None:
            return tsv_line(["", "", ""])
        lemma, tags = _printable((pred.lemma, pred.tags))
        return tsv_line([lemma, "", tags])
    best = pred.best.form if pred.best is not None else ""
    return tsv_line([pred.lemma, best, pred.tags])


def models_tsv(models: Sequence[ShippedModel]) -> str:
    """The shipped default models as tab-separated lines with a header: language, model (its
    registry name), members (their number, as in :func:`inflect.render.tables.models_table`),
    member_files (the member checkpoint paths, comma-separated), dev_accuracy (percent
    on the language's dev file, empty if unknown), setting, size_bytes, method (how the members
    were made: from scratch, warm start, hallucinated pairs, ensemble), data, commands
    (``" && "``-joined), start_commands (the warm start's, ``" && "``-joined, run first) and
    start_note."""
    header = [
        "language",
        "model",
        "members",
        "member_files",
        "dev_accuracy",
        "setting",
        "size_bytes",
        "method",
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
            str(len(m.members)),
            ",".join(str(p) for p in m.members),
            "" if m.dev_accuracy is None else f"{m.dev_accuracy:.2f}",
            m.setting,
            str(m.size_bytes),
            m.method,
            m.data,
            " && ".join(m.commands),
            " && ".join(m.start_commands),
            m.start_note,
        ]
        rows.append([" ".join(f.split()) for f in fields])
    return tsv_table(header, rows)


#: Columns of :func:`queue_tsv` (and, ``_`` as a space, the header of
#: :func:`inflect.render.tables.queue_table`).
QUEUE_TSV_COLUMNS = (
    "language",
    "state",
    "epochs",
    "best_dev_accuracy",
    "best_epoch",
    "cpu_minutes",
)


def queue_cells(s: LanguageStatus) -> list[str]:
    """A queue's language as the text of :data:`QUEUE_TSV_COLUMNS`: epochs ``done/at most``,
    the best dev accuracy at 1 decimal (empty before the first epoch), CPU minutes at 1 decimal."""
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


def queue_tsv(statuses: Sequence[LanguageStatus]) -> str:
    """The queue as TSV with a header: language, state, epochs (``done/at most``),
    best_dev_accuracy (percent, empty before the first epoch), best_epoch, cpu_minutes."""
    return tsv_table(QUEUE_TSV_COLUMNS, [queue_cells(s) for s in statuses])


# --- inflect explain / inflect report ambiguity -------------------------------------------


#: Columns of :func:`attention_tsv` (``inflect explain`` in a pipe).
ATTENTION_TSV_COLUMNS = ("form", "probability", "step", "output", "position", "source", "weight")


def attention_tsv(explanation: Explanation) -> str:
    """The attention of an explanation's strings as TSV (:data:`ATTENTION_TSV_COLUMNS`), one line
    per cell of each string's matrix, most probable string first: the form and its probability;
    ``step`` (1-based decoding step) and ``output`` (the symbol it emitted, ``</s>`` last);
    ``position`` (1-based) and ``source`` (the lemma's symbol); ``weight`` (exact zeros as
    ``0.0``; floats by ``repr``)."""
    rows = []
    for panel in attention_panels(explanation):
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
    bundle as :func:`inflect.render.tables.ambiguity_rich` orders them: ``gold`` empty where unknown;
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
