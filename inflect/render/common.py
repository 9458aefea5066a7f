"""What every renderer shares: how a number is written (a probability, a share in percent, a size
in bytes), the terminal's console and a renderable that shows the widest layout the terminal
holds (a table's numbers never cut), HTML escaping, the words of a certificate's badge, the
answer-first split of a record's forms (:func:`model_shown`, :func:`attested_words`), the words
of a conflict between sources, and the attention panels of an explanation. Rendering only.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only
    from collections.abc import Sequence

    from inflect.inference.explain import AttentionPanel, Explanation
    from inflect.inference.outcomes import Form

#: A certificate's words on an HTML badge (:class:`inflect.decoding.Certificate` values).
CERTIFICATE_BADGES = {
    "full_support": "full support",
    "mode_only": "mode only",
    "none": "not certified",
}


#: Said of an answer whose sources disagree (``say V;PST``: lemminflect ``said``, the shared-task
#: data ``sayed``; :attr:`inflect.inference.outcomes.Prediction.conflict`).
CONFLICT = ("conflict: the sources disagree (each attested form is listed with its source, "
            "the earlier source's first)")


def guesses_note(attested: int, cells: int) -> str | None:
    """What a paradigm says of its forms that no source attests: ``attested`` of its ``cells``
    cells have an attested form; None when all do."""
    if attested >= cells:
        return None
    if attested == 0:
        return "no source attests a form of this paradigm: every form is the model's guess"
    return (f"{attested} of {cells} cells attested (marked attested); the forms of the other "
            f"{cells - attested} are the model's guesses")


def model_shown(
    forms: Sequence[Form], fold_below: float
) -> tuple[tuple[Form, ...], tuple[Form, ...]]:
    """The model's distribution as shown under the answer: its forms (those without a source)
    but the texts an attested form already shows (that form's row says what the model gives
    it: each form once), most probable first; the first always, then those of probability at
    least ``fold_below``; and the folded tail (the rest)."""
    said = {f.form for f in forms if f.attested}
    model = [f for f in forms if not f.attested and f.form not in said]
    head = tuple(f for k, f in enumerate(model) if k == 0 or f.probability >= fold_below)
    return head, tuple(model[len(head) :])


def attested_words(form: Form, forms: Sequence[Form], complete: bool) -> str:
    """What the model gives an attested ``form``, in words: ``"model: 0.0812"`` where its
    distribution (``forms``) lists the text, ``"model: 0"`` where it does not and the list is
    the whole support (``complete``: the model gives it no probability), else ``"model: not
    found"``."""
    if any(not f.attested and f.form == form.form for f in forms):
        return f"model: {probability_text(form.probability)}"
    return "model: 0" if complete else "model: not found"


def human_size(size: int) -> str:
    """Bytes as a short human-readable text (``1.5 MB``), decimal units."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def probability_text(p: float) -> str:
    """A probability for a table: 4 decimals, or 2 significant digits below 10^-4."""
    return f"{p:.4f}" if p >= 1e-4 or p == 0 else f"{p:.1e}"


def percent_text(value: float) -> str:
    """A share in [0, 1] as percent at 1 decimal (``0.125`` -> ``12.5``), a dash for NaN."""
    return "—" if value != value else f"{100.0 * value:.1f}"


def is_error(pred: Any) -> bool:
    """True for an :class:`inflect.inference.outcomes.ErrorRecord` (an input that got no answer)."""
    return hasattr(pred, "message") and not hasattr(pred, "forms")


class Fitted:
    """A renderable that shows the first of ``layouts`` that fits the console, else the last
    (which should fit any width), so that a form or a number is never cut.

    A layout fits when its natural width (nothing wrapped or cut) does, or, for a
    :class:`rich.table.Table`, when it does without borders (:func:`compact`), or then with its
    numbers whole and its text folded (:func:`narrowed`): a right-justified column holds numbers, each kept whole (its header's
    words may wrap); a column of text that wraps is narrowed to its ``min_width`` or
    :data:`inflect.defaults.TABLE_TEXT_MIN_COLUMNS`, no fewer; a ``no_wrap`` or fixed-width
    column keeps its width. Where no layout fits and the last is a table, its rows are shown
    as plain lines (:func:`table_lines`), which fit any width.
    """

    def __init__(self, *layouts: Any) -> None:
        self.layouts = layouts

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement
        from rich.table import Table

        wide = options.update(width=1_000_000)  # Measurement.get clamps to the width
        for layout in self.layouts:
            tries = [layout]
            if isinstance(layout, Table):  # without its borders, then narrowed
                tries.append(compact(layout))
            for shown in tries:
                if Measurement.get(console, wide, shown).maximum <= options.max_width:
                    yield shown
                    return
            narrow = narrowed(console, options, tries[-1]) if len(tries) > 1 else None
            if narrow is not None:
                yield narrow
                return
        last = self.layouts[-1]
        yield table_lines(last) if isinstance(last, Table) else last


def compact(table: Any) -> Any:
    """A copy of ``table`` without borders: its columns one space apart."""
    import copy

    bare = copy.copy(table)
    bare.box, bare.show_edge, bare.pad_edge, bare.collapse_padding = None, False, False, True
    bare.padding = (0, 1)
    return bare


def fitted(renderable: Any) -> Any:
    """``renderable`` for a terminal of any width: a table as :class:`Fitted` (its numbers
    whole, its text folded, else plain lines), a group with each of its tables so; anything
    else (a :class:`Fitted` already, text) as it is."""
    from rich.console import Group
    from rich.table import Table

    if isinstance(renderable, Table):
        return Fitted(renderable)
    if isinstance(renderable, Group):
        return Group(*(fitted(r) for r in renderable.renderables), fit=renderable.fit)
    return renderable


def narrowed(console: Any, options: Any, table: Any) -> Any:
    """A copy of ``table`` whose columns have fixed widths that fit ``options.max_width`` with
    every number whole, or None where none do. A right-justified column (numbers) is as wide
    as its widest cell (and its header's longest word); a column of text that wraps, at least
    its ``min_width`` or :data:`inflect.defaults.TABLE_TEXT_MIN_COLUMNS` (its natural width
    where narrower), its words folded; a ``no_wrap`` or fixed-width column as wide as it is.
    The room left goes first to the numbers' headers, then to the text furthest from holding
    its longest word, then to the text furthest from its natural width."""
    import copy
    import dataclasses

    from rich.measure import Measurement

    from inflect import defaults

    wide = options.update(width=1_000_000)

    def width(cell: Any) -> int:
        return Measurement.get(console, wide, cell).maximum

    def longest_word(cell: Any) -> int:
        return Measurement.get(console, wide, cell).minimum

    natural, least, words = [], [], []
    for column in table.columns:
        cells = list(column.cells)
        header = [column.header] if table.show_header else []
        full = max(map(width, cells + header), default=1)
        full = max(full, column.min_width or 0)
        if column.width is not None:
            full = need = column.width
        elif column.no_wrap:
            need = full
        elif column.justify == "right":  # numbers: whole; the header's words may wrap
            need = max([*map(width, cells), *map(longest_word, header), column.min_width or 0])
        else:
            need = min(full, column.min_width or defaults.TABLE_TEXT_MIN_COLUMNS)
        natural.append(full)
        least.append(need)
        words.append(max(map(longest_word, cells + header), default=1))
    chrome = Measurement.get(console, wide, table).maximum - sum(natural)
    room = options.max_width - chrome - sum(least)
    if room < 0:
        return None
    widths = list(least)
    numbers = [i for i, c in enumerate(table.columns) if c.justify == "right"]
    for i in numbers:  # the numbers' headers on one line where there is room
        grow = min(room, natural[i] - widths[i])
        widths[i] += grow
        room -= grow
    for goal in ([min(w, n) for w, n in zip(words, natural, strict=True)], natural):
        while room > 0:  # one column at a time: the one furthest from its goal
            i = max(range(len(widths)), key=lambda j: goal[j] - widths[j])
            if goal[i] <= widths[i]:
                break
            widths[i] += 1
            room -= 1
    def fixed(column: Any, width: int) -> Any:
        if column.justify == "right":  # as wide as its numbers: only the header wraps
            return dataclasses.replace(column, width=width, no_wrap=False)
        if column.no_wrap or column.width is not None:
            return dataclasses.replace(column, width=width)
        return dataclasses.replace(column, width=width, overflow="fold")  # a word: folded

    shown = copy.copy(table)
    shown.columns = [fixed(c, w) for c, w in zip(table.columns, widths, strict=True)]
    return shown


def table_lines(table: Any) -> Any:
    """``table`` as plain lines, for a terminal too narrow for it: its title, its header (dim),
    then one line per row, the cells of text two spaces apart (other cells, a bar, left out);
    a line wraps between words, so a number is never cut."""
    from rich.console import Group
    from rich.text import Text

    def text(cell: Any) -> Text | None:  # a header's lines joined
        if isinstance(cell, Text):
            return Text(" ").join(cell.split("\n")) if "\n" in cell.plain else cell
        return Text(" ".join(cell.split("\n"))) if isinstance(cell, str) else None

    def line(cells: list[Any], style: str = "") -> Text:
        parts = [t for t in map(text, cells) if t is not None and t.plain]
        return Text("  ", style=style).join(parts) if parts else Text("")

    lines: list[Any] = []
    if table.title:
        lines.append(text(table.title) or Text(""))
    if table.show_header:
        lines.append(line([column.header for column in table.columns], "dim"))
    rows = zip(*(list(column.cells) for column in table.columns), strict=True)
    lines += [line(list(row)) for row in rows]
    return Group(*lines)


def terminal_console(**options: Any) -> Any:
    """A :class:`rich.console.Console` (``options`` as its own, ``stderr=True`` ...) whose width
    is the terminal's: ``$COLUMNS`` where it is a whole number of at least
    :data:`inflect.defaults.TERMINAL_MIN_COLUMNS`, else (``COLUMNS=0``, ``COLUMNS=abc``) the
    terminal's own size, else 80, never 0 (a width of 0 prints nothing)."""
    import os
    import shutil

    from rich.console import Console

    from inflect import defaults

    columns = os.environ.get("COLUMNS")
    if columns is not None and not (columns.strip().isdigit()
                                    and int(columns) >= defaults.TERMINAL_MIN_COLUMNS):
        # the terminal's size where $COLUMNS is no width (shutil then asks the terminal)
        size = shutil.get_terminal_size((80, 24)).columns
        options.setdefault("width", size if size >= defaults.TERMINAL_MIN_COLUMNS else 80)
    return Console(**options)


def html_text(text: object) -> str:
    """``str(text)`` escaped for HTML or SVG text and attribute values (``&``, ``<``, ``>``,
    ``"`` and ``'``)."""
    return escape(str(text), quote=True)


def attention_panels(explanation: Explanation) -> list[AttentionPanel]:
    """The explanation's panels (one per string, most probable first), or the best string alone
    where it has none (its form and probability, the explanation's target and attention)."""
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
