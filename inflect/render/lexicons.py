"""The table of installed lexicons (``inflect lexicon list``): a rich table and TSV, drawn from
plain rows the command gathers (one per source and language)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inflect.render.common import human_size

__all__ = ["LEXICON_COLUMNS", "lexicons_table", "lexicons_tsv"]

#: The columns of a row, in order.
LEXICON_COLUMNS = ("source", "language", "version", "forms", "size_bytes", "note")


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def lexicons_tsv(rows: Sequence[dict[str, Any]]) -> str:
    """TSV with a header line; ``forms`` and ``size_bytes`` empty where unknown.

    Raises:
        ValueError: a value holding a TAB or a line break.
    """
    lines = ["\t".join(LEXICON_COLUMNS)]
    for row in rows:
        cells = [_cell(row.get(c)) for c in LEXICON_COLUMNS]
        bad = next((c for c in cells if any(ch in c for ch in "\t\r\n")), None)
        if bad is not None:
            raise ValueError(f"a lexicon field holds a TAB or a line break: {bad!r}")
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def lexicons_table(rows: Sequence[dict[str, Any]], footer: str = ""):
    """A rich table of the rows (sizes in human units), with ``footer`` under it."""
    from rich.table import Table

    table = Table(title="lexicons consulted before the model, in this order", caption=footer,
                  caption_justify="left")
    for column in ("source", "language", "version", "forms", "size", "note"):
        table.add_column(column, justify="right" if column in ("forms", "size") else "left")
    for row in rows:
        forms, size = row.get("forms"), row.get("size_bytes")
        table.add_row(
            row["source"], row["language"], _cell(row.get("version")),
            f"{forms:,}" if forms is not None else "",
            human_size(size) if size is not None else "",
            _cell(row.get("note")),
        )
    return table
