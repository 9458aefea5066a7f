"""Rich tables for a terminal: ``inflect predict``, ``translate`` and ``explain`` (the forms, the
certificate, the attention heat map), ``inflect evaluate`` (scores and sparsity), ``inflect report
ambiguity``, ``inflect models``, ``inflect data`` (datasets, languages, statistics) and a training
queue. Rendering only — no computation here.

User text (lemmas, forms, tag bundles, language names, paths, model names) is shown verbatim:
every such string enters a rich renderable as a :class:`rich.text.Text` (never parsed as console
markup). A table too wide for the terminal gives way to a narrower layout
(:class:`inflect.render.common.Fitted`): a form or a number is never cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from inflect.render.ambiguity_parts import forms_text, summary_lines
from inflect.render.common import (
    CONFLICT,
    Fitted,
    human_size,
    is_error,
    percent_text,
    probability_text,
)
from inflect.render.tsv import QUEUE_TSV_COLUMNS, queue_cells

if TYPE_CHECKING:  # annotations only: `inflect predict` must not import the data rooms
    import pandas as pd

    from inflect.corpora.manifests import LanguageSummary, Manifest
    from inflect.corpora.stats import SplitStats
    from inflect.evaluation.ambiguity import AmbiguityReport
    from inflect.inference.explain import Explanation
    from inflect.inference.outcomes import Record
    from inflect.inference.registry import ShippedModel
    from inflect.training.queue import LanguageStatus


_SHORT_SPLITS = {
    "train-high": "high",
    "train-medium": "medium",
    "train-low": "low",
    "covered-test": "test",
}


def _length(text: str | None) -> str:
    """Length in code points, or a dash."""
    return "—" if text is None else f"{len(text)}"


def stats_table(stats: Sequence[SplitStats]) -> Group:
    """Statistics of a language's files: one column per split, one row per statistic, then the
    longest lemma and form of each split (see :class:`inflect.corpora.stats.SplitStats`)."""
    title = stats[0].language if stats else ""
    table = Table(title=Text(f"{title} (CoNLL–SIGMORPHON 2018 task 1)"))
    table.add_column("", overflow="fold")  # the statistic's name: its words wrap
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


def datasets_table(manifests: Sequence[Manifest], present: Sequence[int]) -> Table:
    """The shipped datasets: name, description, files (present locally), size, licence."""
    table = Table(title="datasets")
    for column in ("dataset", "description", "files (here)", "size", "licence"):
        table.add_column(column, overflow="fold",
                         justify="right" if column in ("files (here)", "size") else "left")
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


def languages_table(name: str, rows: Sequence[LanguageSummary], splits: Sequence[str]) -> Table:
    """Per-language examples per split (— where a split does not exist), size and how many of
    the language's files are in the data folder."""
    table = Table(title=Text(f"{name}: examples per split"))
    table.add_column("language", overflow="fold")
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


def scores_table(frame: pd.DataFrame, title: str = "CoNLL–SIGMORPHON 2018 task 1 scores") -> Table:
    """The frame of :func:`inflect.evaluation.scoring.score_predictions` as a table: one row per language,
    the macro-average last; accuracy (percent) and mean Levenshtein distance at 2 decimals, as
    the shared-task scorer prints them."""
    table = Table(title=Text(title))
    table.add_column("language", overflow="fold")
    table.add_column("n", justify="right")
    table.add_column("accuracy %", justify="right")
    table.add_column("levenshtein", justify="right")
    counts = [
        c for c in ("missing", "extra", "gold_duplicates", "pred_duplicates") if c in frame.columns
    ]
    for column in counts:  # a header's words on lines of their own: the column stays narrow
        table.add_column(column.replace("_", "\n"), justify="right")
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


# --- inflect predict / inflect models / a queue ---------------------------------------------


_CERTIFICATE_STYLE = {"full_support": "green", "mode_only": "yellow", "none": "red"}

#: Said under an answer that no source attests: the certificate is about the search, and the
#: forms are what the model guesses (German ``Frau N;NOM;PL``: ``Fräue`` 0.51, ``Frauen`` 0).
GUESSES = "no source attests a form of this input: the forms are the model's guesses"


def certificate_words(pred: Record) -> str:
    """The certificate of a prediction in words, with its notes (:attr:`Outcome.certificate_words`:
    "more than N", the length limit where the search stopped at it)."""
    return pred.certificate_words


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
        model = f"model {probability_text(f.probability)}" if f.form in listed else "not the model's"
        table.add_row(
            Text(f.form, style="bold"),
            Text("attested", style="bold green"),
            *([Text(model, style="dim")] if bars else []),
            f.source,
            end_section=i == len(attested) - 1,
        )
    for f in model_forms:
        bar = [Bar(1.0, 0.0, f.probability, width=24)] if bars else []
        table.add_row(Text(f.form), probability_text(f.probability), *bar,
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
        lines.append(Text(f"{f.form}  {probability_text(f.probability)}"))
    if not pred.model_forms:
        lines.append(Text("no form finished", style="dim"))
    return Group(*lines)


def prediction_table(pred: Record) -> Group:
    """One prediction as a table: the attested forms first (marked ``attested``, with their
    source), then the model's forms with probabilities (number and bar), the model's certificate
    in words, whether the sources disagree (:data:`CONFLICT`), the model that answered, then any
    warnings; an
    :class:`~inflect.inference.outcomes.ErrorRecord` as one line ``error: …``. On a narrow terminal the
    bars go first, then the table becomes plain lines: a form or a number is never dropped,
    cut or wrapped inside a table cell."""
    if is_error(pred):
        return Group(Text(f"error: {pred.message}", style="bold red"))
    parts: list = [Fitted(_forms_table(pred, True), _forms_table(pred, False), _forms_lines(pred))]
    style = _CERTIFICATE_STYLE[pred.certificate.value]
    words = certificate_words(pred)
    parts.append(Text(f"the model's forms: {words}" if pred.attested else words, style=style))
    if getattr(pred, "conflict", False):
        parts.append(Text(CONFLICT, style="bold magenta"))
    if not pred.attested and pred.model_forms:
        parts.append(Text(GUESSES, style="bold yellow"))
    if getattr(pred, "model", None):
        parts.append(Text(f"model: {pred.model} (inflect models)", style="dim"))
    if getattr(pred, "asked", None) and pred.asked != pred.tags:
        parts.append(Text(f"asked: {pred.asked} (the tags as written: {pred.tags})", style="dim"))
    parts.extend(Text(f"warning: {w}", style="dim yellow") for w in pred.warnings)
    return Group(*parts)


def short_method(method: str | None) -> str:
    """A registry ``method`` in a table's few columns: ``ensemble of 2: from scratch; from
    scratch, hallucinated pairs to 5,000 a language`` -> ``2: scratch; scratch + halluc.
    5,000``; ``, 3,000 long pairs a language`` -> `` + long 3,000``; ``—`` where none is
    recorded."""
    if not method:
        return "—"
    for long, short in (("ensemble of ", ""), ("from scratch", "scratch"),
                        ("warm start", "warm"), (", hallucinated pairs to ", " + halluc. "),
                        (" a language", "")):
        method = method.replace(long, short)
    return re.sub(r", ([\d,]+) long pairs", r" + long \1", method)


#: The fewest columns the ``method`` column of :func:`models_table` is given (its words wrap).
METHOD_MIN_COLUMNS = 20


def models_table(models: Sequence[ShippedModel], method: bool = True,
                 fold_names: bool = False) -> Table:
    """The shipped default models: one line per language and model (language, model, members,
    dev accuracy in percent, setting, size, and with ``method`` how the members were made, its
    words wrapped in no fewer than :data:`METHOD_MIN_COLUMNS`: a terminal narrower than the
    other columns and those leaves it to :func:`models_commands`); ``fold_names``: the language
    and model names fold (a narrow terminal). How each model was trained is
    :func:`models_commands`. Show it in :class:`~inflect.render.common.Fitted`: the numbers stay
    whole."""
    table = Table(title="shipped default models", box=None, header_style="bold underline",
                  pad_edge=False, collapse_padding=True)
    table.add_column("language", no_wrap=not fold_names, overflow="fold")
    table.add_column("model", no_wrap=not fold_names, overflow="fold")
    table.add_column("members", justify="right", no_wrap=True)
    table.add_column("dev %", justify="right", no_wrap=True)
    table.add_column("setting", no_wrap=True)
    table.add_column("size", justify="right", no_wrap=True)
    if method:
        table.add_column("method", min_width=METHOD_MIN_COLUMNS)
    for m in models:
        missing = f" ({len(m.missing)} missing)" if m.missing else ""
        table.add_row(
            Text(m.language),
            Text(m.name or m.language),
            f"{len(m.members)}{missing}",
            "—" if m.dev_accuracy is None else f"{m.dev_accuracy:.2f}",
            Text(m.setting or "—"),
            human_size(m.size_bytes),
            *([Text(short_method(m.method))] if method else []),
        )
    return table


def models_commands(models: Sequence[ShippedModel], *, every_row: bool = False) -> list[Text]:
    """Once per model (in the order first listed; ``every_row``: once per row, the whole
    record): its name, description and data, then the commands that made it: a warm start's
    (``start_commands``, with ``start_note``) first, then one per member. Print the lines with
    ``soft_wrap=True``: a command stays one line (the terminal folds it; a copy is the whole
    command)."""
    title = "every row's record" if every_row else (
        "how each model was trained (--commands --verbose: every row's record)")
    lines = [Text(""), Text(title, style="bold")]
    seen: set[str] = set()
    for m in models:
        name = m.name or m.language
        if name in seen and not every_row:
            continue
        seen.add(name)
        lines.append(Text(""))
        about = "; ".join(x for x in (m.description, m.method, m.data) if x)
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


def rows_table(header: Sequence[str], rows: Sequence[Sequence[object]], title: str | None = None,
               caption: str | None = None) -> Table:
    """A plain table of ``rows`` under ``header`` (numbers right-aligned, every cell verbatim):
    the terminal form of a table whose TSV is :func:`inflect.render.tsv.tsv_table` of the same
    rows (``inflect lang list``, ``inflect runs compare``)."""
    table = Table(title=title, caption=caption)
    numeric = [bool(rows) and all(isinstance(r[i], int | float) or r[i] in ("", None)
                                  for r in rows) for i in range(len(header))]
    for name, right in zip(header, numeric, strict=True):
        table.add_column(name.replace("_", " "), justify="right" if right else "left")
    for row in rows:
        table.add_row(*(Text("" if v is None else f"{v:g}" if isinstance(v, float) else str(v))
                        for v in row))
    return table


def queue_table(statuses: Sequence[LanguageStatus], title: str) -> Table:
    """A per-language training queue: language, state, epochs (done/at most), best dev accuracy
    (%), its epoch, CPU minutes spent; a last line counts the states."""
    table = Table(title=title)
    for name, right in zip(QUEUE_TSV_COLUMNS, (0, 0, 1, 1, 1, 1), strict=True):
        table.add_column(name.replace("_", " "), justify="right" if right else "left", no_wrap=True)
    for s in statuses:
        table.add_row(*(Text(c) for c in queue_cells(s)))
    counts: dict[str, int] = {}
    for s in statuses:
        counts[s.state] = counts.get(s.state, 0) + 1
    table.caption = ", ".join(f"{n} {state}" for state, n in counts.items())
    return table


# --- inflect evaluate --model / inflect report ambiguity / inflect explain ---------------------


def _mean(value: float) -> str:
    return "—" if value != value else f"{value:.2f}"


def _frame_table(frame: pd.DataFrame, title: str | None, columns: list) -> Group:
    """``title`` (a line, where given), then a table of ``columns`` (header, key, format) of ``frame``, one row
    per record; on a terminal too narrow for it, one plain line per value (``header: value``),
    never cut."""
    columns = [c for c in columns if c[1] in frame.columns]
    lines: list[Text] = []
    for row in frame.to_dict("records"):
        first, *rest = columns
        lines.append(Text(first[2](row[first[1]]), style="bold"))
        lines += [Text(f"  {header}: {fmt(row[key])}") for header, key, fmt in rest]
    fitted = Fitted(_frame_grid(frame, columns), Group(*lines))
    return Group(Text(title, style="bold"), fitted) if title else Group(fitted)


def _frame_grid(frame: pd.DataFrame, columns: list) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
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


def evaluation_table(frame: pd.DataFrame, title: str | None = "evaluation") -> Group:
    """The frame of :func:`inflect.evaluation.runner.evaluate_predictor` as two tables (under
    ``title``, where given: the command line prints its own, soft-wrapped), one row per
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
        ("1-str %", "single_string", percent_text),
        ("full %", "full_support", percent_text),
        ("mode %", "mode_only", percent_text),
        ("strings", "mean_strings", _mean),
        ("step", "mean_step_support", _mean),
        ("attended", "mean_attended", _mean),
        ("dens. %", "attention_density", percent_text),
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


def ambiguity_rich(report: AmbiguityReport) -> Group:
    """The ambiguity report for a terminal: summary counts, then one table per tag bundle
    (lemma, forms with probabilities — the gold form in green —, gold, gold in support); user
    text is shown verbatim (never read as rich markup)."""
    parts: list = [Text("\n".join(summary_lines(report)), style="bold")]
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
            for j, (form, p, is_gold) in enumerate(forms_text(item.forms, item.gold)):
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
