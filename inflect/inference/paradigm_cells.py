"""The cells of a paradigm: which tag bundles a language's paradigm has, and where each goes.

:class:`CellCatalogue` gives the attested cells of a language and part of speech (the tag bundles
of its training data, :mod:`inflect.corpora.cells`, of a training setting), with the checks and
messages of ``inflect paradigm`` for a part of speech it lacks. :func:`layout` places the cells as
a reader expects: the dimensions of the UniMorph schema that vary across the cells
(:mod:`inflect.text.unimorph`) give the columns (number), the rows (case, else person) and the
blocks (every other varying dimension: mood, tense, aspect, ... for verbs), each ordered by the
dimension's values (``SG`` before ``PL``; ``NOM``, ``GEN``, ...). No model is involved: the
paradigms themselves are :mod:`inflect.inference.paradigm`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from inflect import defaults
from inflect.corpora.cells import CellTable, load_cells
from inflect.inference.queries import InputError
from inflect.text.languages import resolve
from inflect.text.records import TagBundle
from inflect.text.unimorph import DIMENSIONS, by_dimension, value_key

__all__ = [
    "COLUMN_DIMENSIONS",
    "POS_ALIASES",
    "ROW_DIMENSIONS",
    "CellCatalogue",
    "Layout",
    "ParadigmError",
    "features_key",
    "layout",
]

#: Dimensions that give a grid's columns, and its rows, in order of preference.
COLUMN_DIMENSIONS: tuple[str, ...] = ("number",)
ROW_DIMENSIONS: tuple[str, ...] = ("case", "person")
#: Names a user may give for a part of speech (any case), beside the UniMorph features.
POS_ALIASES: Mapping[str, str] = {
    "noun": "N",
    "verb": "V",
    "adjective": "ADJ",
    "adj": "ADJ",
    "adverb": "ADV",
    "participle": "V.PTCP",
}


class ParadigmError(InputError):
    """A paradigm that cannot be made: a part of speech the language lacks (or none given where
    the language has several: the message lists them with their cell counts), a language without
    shipped cells, a malformed ``--input`` line. An :class:`~inflect.inference.queries.InputError`,
    so its message reads ``FILE:LINE: what (value)`` where the input came from a file."""


@dataclass(frozen=True)
class Layout:
    """Where each cell of a paradigm goes.

    Attributes:
        row_dimension, column_dimension: the UniMorph dimension of the rows and of the columns
            (None: none).
        block_dimensions: the dimensions that make the blocks, in
            :data:`inflect.text.unimorph.DIMENSIONS` order.
        places: for each tag bundle given, in order, ``(block, row, column)``.
        order: the indices of the bundles in reading order (block by block, row by row).
    """

    row_dimension: str | None
    column_dimension: str | None
    block_dimensions: tuple[str, ...]
    places: tuple[tuple[tuple[str, ...], str, str], ...]
    order: tuple[int, ...]


def features_key(features: Sequence[str]) -> tuple:
    """The sort key of a cell's features in one dimension (:func:`inflect.text.unimorph.value_key`
    of each): ``SG`` before ``PL``, ``NOM`` before ``GEN``."""
    return tuple(value_key(f) for f in features)


def layout(bundles: Sequence[Iterable[str]]) -> Layout:
    """Lay out a paradigm's cells by UniMorph dimension.

    The dimensions whose features differ between the bundles are the *varying* ones. The column
    dimension is the first of :data:`COLUMN_DIMENSIONS` that varies, the row dimension the first
    of :data:`ROW_DIMENSIONS`; where neither list varies and exactly two dimensions do, the one
    with fewer values gives the columns, the other the rows; where one dimension varies, it gives
    the rows (a list). Every other varying dimension makes the blocks. Blocks, rows and columns
    are ordered by :func:`inflect.text.unimorph.value_key` of their features (a bundle without a
    feature of the dimension first).

    Args:
        bundles: the tag bundles (sets of UniMorph features), N of them.

    Returns:
        The :class:`Layout`; two bundles of one place are an error.

    Raises:
        ValueError: two bundles with the same features.
    """
    grouped = [by_dimension(b) for b in bundles]
    seen: set[tuple] = set()
    for g in grouped:
        key = tuple(sorted(g.items()))
        if key in seen:
            raise ValueError(f"tag bundle {';'.join(f for v in g.values() for f in v)} given twice")
        seen.add(key)
    varying = [d for d in DIMENSIONS if len({g.get(d, ()) for g in grouped}) > 1]
    column = next((d for d in COLUMN_DIMENSIONS if d in varying), None)
    row = next((d for d in ROW_DIMENSIONS if d in varying), None)
    if column is None and row is None and len(varying) == 2:
        a, b = varying
        if len({g.get(a, ()) for g in grouped}) <= len({g.get(b, ()) for g in grouped}):
            column, row = a, b
        else:
            column, row = b, a
    elif column is None and row is None and len(varying) == 1:
        row = varying[0]
    blocks = tuple(d for d in varying if d not in (row, column))
    places = []
    keys = []
    for g in grouped:
        block = tuple(f for d in blocks for f in g.get(d, ()))
        r = g.get(row, ()) if row else ()
        c = g.get(column, ()) if column else ()
        places.append((block, ";".join(r), ";".join(c)))
        block_key = tuple(features_key(g.get(d, ())) for d in blocks)
        keys.append((block_key, features_key(r), features_key(c)))
    order = tuple(sorted(range(len(places)), key=lambda i: keys[i]))
    return Layout(row, column, blocks, tuple(places), order)


def _coarse(pos: str) -> str:
    return pos.split(".", 1)[0]


class CellCatalogue:
    """The attested cells of every language (:mod:`inflect.corpora.cells`), chosen for a training
    setting, with the part-of-speech checks and messages of ``inflect paradigm``; no model.

    Args:
        setting: the preferred training setting (``"high"``, ...; None: the largest with data
            for the language); a language without data of it falls back to the largest setting
            that has some.
        cells_dir: folder of the cells files (default: the shipped :mod:`inflect.corpora.cells`).
        tables: cells stored in checkpoints (a model trained on a user's files,
            :meth:`~inflect.corpora.cells.CellTable.from_record`), consulted first for the
            languages they hold.
    """

    def __init__(
        self, setting: str | None = None, cells_dir: str | os.PathLike[str] | None = None,
        tables: Sequence[CellTable] = (),
    ) -> None:
        if setting is not None and setting not in defaults.SETTINGS:
            raise ValueError(
                f"unknown setting {setting!r}; choose one of {', '.join(defaults.SETTINGS)}"
            )
        self.setting = setting
        self.cells_dir = Path(cells_dir) if cells_dir is not None else None
        self.tables = tuple(tables)

    def table(self, language: str) -> CellTable:
        """The :class:`~inflect.corpora.cells.CellTable` for ``language`` (shared-task name).

        Raises:
            ParadigmError: no cells are shipped for the language.
        """
        for table in self.tables:
            if language in table.languages:
                return table
        order = list(defaults.SETTINGS)
        if self.setting is not None:
            order.remove(self.setting)
            order.insert(0, self.setting)
        for setting in order:
            table = load_cells(setting, self.cells_dir)
            if language in table.languages:
                return table
        raise ParadigmError(
            f"no paradigm cells are shipped for {language}: the shared task has no training "
            "data for it (a model trained on your files with `inflect train --train FILE` "
            "carries the cells of its training data)"
        )

    def parts_of_speech(self, language: str) -> dict[str, int]:
        """Part of speech (as ``--pos`` takes it: ``N``, ``V``, ...) -> number of cells, for
        ``language`` (any name or code), in :data:`inflect.text.unimorph.VALUES` order; ``V``
        counts ``V.PTCP`` and the other verbal subtypes too.

        Raises:
            UnknownLanguageError: no language has this name.
            ParadigmError: no cells are shipped for it.
        """
        name = resolve(language).name
        counts: dict[str, int] = {}
        for pos, n in self.table(name).parts_of_speech(name).items():
            counts[_coarse(pos)] = counts.get(_coarse(pos), 0) + n
            if "." in pos:
                counts[pos] = n
        return dict(sorted(counts.items(), key=lambda kv: value_key(kv[0])))

    def _offer(self, name: str) -> str:
        counts = self.parts_of_speech(name)

        def cells(n: int) -> str:
            return f"{n} cell{'s' if n != 1 else ''}"

        offered = []
        for pos, n in counts.items():
            if "." in pos:
                continue
            subtypes = [f"{p} {m}" for p, m in counts.items() if p.startswith(pos + ".")]
            inside = f", of which {', '.join(subtypes)}" if subtypes else ""
            offered.append(f"{pos} ({cells(n)}{inside})")
        return ", ".join(offered)

    def part_of_speech(
        self, name: str, pos: str | None, source: str | None, line: int | None
    ) -> str:
        """The part of speech asked for (any case, or an English name of :data:`POS_ALIASES`),
        checked against the language's; ``source``/``line`` go into the error.

        Raises:
            ParadigmError: the language lacks it, or has several and none is given (the
                message lists them with their cell counts).
        """
        counts = self.parts_of_speech(name)
        coarse = [p for p in counts if "." not in p]
        if pos is None or not pos.strip():
            if len(coarse) == 1:
                return coarse[0]
            raise ParadigmError(
                f"{name} has {len(coarse)} parts of speech; choose one with --pos (or a second "
                f"column in --input): {self._offer(name)}",
                None,
                source,
                line,
            )
        given = pos.strip()
        given = POS_ALIASES.get(given.casefold(), given)
        match = next((p for p in counts if p.casefold() == given.casefold()), None)
        if match is None:
            table = self.table(name)
            split = f"the {table.split_name} data" if not table.source else table.source
            raise ParadigmError(
                f"{name} has no {given} cells in {split}; it has: {self._offer(name)}",
                None,
                source,
                line,
            )
        return match

    def cells(self, language: str, pos: str | None = None) -> tuple[TagBundle, ...]:
        """The cells of ``language`` and ``pos`` in reading order (:func:`layout`).

        Raises:
            UnknownLanguageError: no language has this name.
            ParadigmError: the language has no such part of speech (or several and none given).
        """
        name = resolve(language).name
        chosen = self.part_of_speech(name, pos, None, None)
        bundles = self.table(name).bundles(name, chosen)
        found = layout([b.features for b in bundles])
        return tuple(bundles[i] for i in found.order)
