"""Rendering paradigms (:class:`inflect.inference.paradigm.Paradigm`): a rich grid on a terminal, TSV
in a pipe, one line per cell (JSON Lines: :mod:`inflect.render.jsonl`). Rendering only: the
figures come from :mod:`inflect.inference.paradigm`; user text (lemmas, forms) is shown verbatim.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from inflect import defaults
from inflect.render.common import (
    CONFLICT,
    attested_words,
    guesses_note,
    model_shown,
    probability_text,
)
from inflect.render.tsv import tsv_line

if TYPE_CHECKING:  # annotations only
    from inflect.inference.paradigm import Cell, CellForm, Paradigm

__all__ = [
    "CERTIFICATE_MARKS",
    "PARADIGM_TSV_COLUMNS",
    "paradigm_table",
    "paradigm_tsv",
]

#: Columns of :func:`paradigm_tsv` (``inflect paradigm`` in a pipe).
PARADIGM_TSV_COLUMNS = (
    "lemma",
    "language",
    "pos",
    "tags",
    "block",
    "row",
    "column",
    "certificate",
    "count",
    "uncertain",
    "form",
    "probability",
    "attested",
    "others",
)

#: The mark of each certificate in the grid, with its style and meaning.
CERTIFICATE_MARKS: dict[str, tuple[str, str, str]] = {
    "full_support": ("✓", "green", "full support: search exact, every form the model gives any "
                     "probability is listed"),
    "mode_only": ("•", "yellow", "mode only: search exact for the first form, the model's most "
                  "probable"),
    "none": ("?", "red", "not certified: the model may give a form not listed more probability"),
}


def _count(cell: Cell) -> str:
    return f">{cell.more_than}" if cell.more_than is not None else str(len(cell.forms))


def _form_json(f: CellForm) -> list[Any]:
    return [f.form, f.probability] if f.source is None else [f.form, f.probability, f.source]


def paradigm_tsv(paradigm: Paradigm) -> str:
    """A paradigm as TSV lines (no final newline), one per cell in reading order, in the layout
    :data:`PARADIGM_TSV_COLUMNS`.

    ``pos`` is the part of speech asked for; ``block``, ``row``, ``column`` the cell's place (its
    features of the block dimensions, joined by ``;``; empty where the paradigm has none);
    ``certificate`` ``full_support``, ``mode_only`` or ``none``; ``count`` the number of forms
    listed (``>N``: more than N have nonzero probability); ``uncertain`` 1 or 0
    (:attr:`inflect.inference.paradigm.Cell.uncertain`); ``form`` and ``probability`` the most probable
    form (empty when none finished); ``attested`` where that form is attested (a lexicon's
    ``source``), else empty; ``others`` the other forms as a JSON array of ``[form,
    probability]`` (``[form, probability, source]`` for an attested one), most probable first.
    Probabilities are Python's shortest round-trip ``repr``.

    Raises:
        ValueError: a field holds a control character (:func:`inflect.render.tsv.tsv_line`).
    """
    lines = []
    for cell in paradigm.cells:
        best = cell.best
        others = json.dumps([_form_json(f) for f in cell.forms[1:]], ensure_ascii=False)
        lines.append(
            tsv_line(
                [
                    paradigm.lemma,
                    paradigm.language,
                    paradigm.part_of_speech,
                    cell.tags,
                    ";".join(cell.block),
                    cell.row,
                    cell.column,
                    cell.certificate.value,
                    _count(cell),
                    int(cell.uncertain),
                    best.form if best else None,
                    best.probability if best else None,
                    best.source if best else None,
                    others,
                ]
            )
        )
    return "\n".join(lines)


def _cell_text(cell: Cell, fold_below: float) -> Text:
    """A cell in the grid, the answer first: each attested form (the first bold) marked
    ``attested`` with what the model gives it in words, else the model's first form (bold,
    yellow where uncertain) with its probability; the certificate mark; then the model's other
    forms above ``fold_below`` one a line (each form once: :func:`model_shown`), then
    ``+N < 5%``."""
    mark, style, _ = CERTIFICATE_MARKS[cell.certificate.value]
    if not cell.forms:
        return Text.assemble(("no form", "dim"), " ", (mark, style))
    text = Text()
    attested = cell.attested
    for k, f in enumerate(attested):
        if k:
            text.append("\n")
        text.append(f.form, style="bold" if k == 0 else "")
        text.append(" attested", style="cyan")
        text.append(f" {attested_words(f, cell.forms, cell.complete)}", style="dim")
        if k == 0 and cell.conflict:
            text.append(" conflict", style="magenta")
        if k == 0:
            text.append(f" {mark}", style=style)
    head, tail = model_shown(cell.forms, fold_below)
    for k, f in enumerate(head):
        first = k == 0 and not attested
        if text:
            text.append("\n")
        form_style = ("bold yellow" if cell.uncertain else "bold") if first else ""
        text.append(f.form, style=form_style)
        if f.probability < 1.0 or not first:
            text.append(f" {probability_text(f.probability)}", style="" if first else "dim")
        if first:
            text.append(f" {mark}", style=style)
    if tail or cell.more_than is not None:
        more = f">{cell.more_than - len(head)}" if cell.more_than is not None else len(tail)
        text.append(f"\n+{more} below {100 * fold_below:g}%", style="dim")
    return text


def paradigm_table(paradigm: Paradigm, fold_below: float = defaults.PARADIGM_FOLD_BELOW) -> Group:
    """A paradigm on a terminal: a title, one table per block (rows by columns where the block
    has both, else a list of cells), a legend, which forms are the model's guesses (as
    ``inflect predict``'s table says it: :func:`inflect.render.common.guesses_note`), whether
    the sources of a cell disagree, then any warnings. Each cell shows its first form (yellow
    where uncertain) with its probability and certificate mark (``attested``, ``conflict``), the
    other forms of probability at least ``fold_below``, and how many are folded. Tables shrink to the terminal
    as ``inflect predict``'s (long forms fold)."""
    where = f" — {paradigm.where}" if paradigm.where is not None else ""
    parts: list[Any] = [
        Text.assemble(
            (paradigm.lemma, "bold"),
            f"  {paradigm.part_of_speech}  ({paradigm.language}){where}: "
            f"{len(paradigm.cells)} cells of {paradigm.cells_from}",
        )
    ]
    for block in paradigm.blocks:
        title = " ".join(block.label) or None
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_lines=False)
        if block.is_grid:
            table.add_column(paradigm.row_dimension or "", style="bold", no_wrap=True)
            for column in block.columns:
                table.add_column(column, overflow="fold")
            for row in block.rows:
                cells = [block.cells.get((row, c)) for c in block.columns]
                table.add_row(
                    row,
                    *(
                        _cell_text(paradigm.cells[i], fold_below)
                        if i is not None
                        else Text("—", style="dim")
                        for i in cells
                    ),
                )
        else:
            label = paradigm.row_dimension or paradigm.column_dimension or ""
            table.add_column(label if label else "tags", style="bold", no_wrap=True)
            table.add_column("forms", overflow="fold")
            for (row, column), i in block.cells.items():
                cell = paradigm.cells[i]
                name = row or column or cell.tags
                table.add_row(name, _cell_text(cell, fold_below))
        parts.append(table)
    legend = " · ".join(
        Text.assemble((m, s), f" {w.split(':')[0]}").plain for m, s, w in CERTIFICATE_MARKS.values()
    )
    uncertain = len(paradigm.uncertain)
    parts.append(
        Text(
            f"{legend}; attested: the answer (then the model's other forms); yellow: uncertain "
            f"(none attested, the model's first below {100 * defaults.PARADIGM_SURE:g}%), "
            f"{uncertain} of {len(paradigm.cells)} cells",
            style="dim",
        )
    )
    guesses = guesses_note(len(paradigm.attested), len(paradigm.cells))
    if guesses:
        parts.append(Text(guesses, style="bold yellow"))
    if any(c.conflict for c in paradigm.cells):
        parts.append(Text(f"{CONFLICT.split(' (')[0]} in the cells marked conflict", style="magenta"))
    for note in paradigm.warnings:
        parts.append(Text(f"warning: {note}", style="dim yellow"))
    return Group(*parts)
