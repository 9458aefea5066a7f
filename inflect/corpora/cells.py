"""The shipped paradigm cells: the tag bundles each language's training data attest, by part of
speech, so that ``inflect paradigm`` needs no data folder.

One JSON file per training setting of CoNLL–SIGMORPHON 2018 task 1,
``conll2018-task1-SETTING.json.gz`` in this folder (gzip-compressed JSON), written by ``recipes/paradigms/make_cells.py``
from ``LANGUAGE-train-SETTING`` (the tag bundles only: no lemma, no form)::

    {"format": "sparse-inflect-cells/1", "dataset": "conll2018-task1", "split": "train-high",
     "made_by": "recipes/paradigms/make_cells.py", "languages": {
    "finnish": {"ADJ": ["ADJ;ABL;PL", ...], "N": ["N;ACC;PL", ...], "V": [...]},
    ...}, "without_part_of_speech": {"navajo": ["PSS1P", ...]}}

A bundle is stored once per language (as a multiset of UniMorph features: ``V;PRF;PRF`` and
``V;PRF`` are two), as the data write it most often, under its part of speech (:func:`inflect.text.unimorph.part_of_speech`; ``V.PTCP``, ``V.CVB``
and ``V.MSDR`` are parts of speech of their own, asked for together with ``V``). This module
imports only the standard library and :mod:`inflect.text.records`, :mod:`inflect.text.unimorph`.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inflect.defaults import SETTINGS
from inflect.text.records import Example, TagBundle

__all__ = [
    "FORMAT",
    "CellTable",
    "CellsError",
    "attested_cells",
    "cells_file",
    "cells_record",
    "load_cells",
]

#: The ``format`` of a cells file this version reads.
FORMAT = "sparse-inflect-cells/1"
_FOLDER = Path(__file__).resolve().parent.parent / "cells"


class CellsError(ValueError):
    """A cells file is missing or malformed; the message names the file and what to do."""


def cells_file(setting: str, folder: str | os.PathLike[str] | None = None) -> Path:
    """The cells file of ``setting`` (``"high"``, ``"medium"`` or ``"low"``) in ``folder``
    (default: this package folder)."""
    return Path(folder or _FOLDER) / f"conll2018-task1-{setting}.json.gz"


@dataclass(frozen=True)
class CellTable:
    """The attested tag bundles of one training setting.

    Attributes:
        setting: ``"high"``, ``"medium"`` or ``"low"``.
        path: the file read.
        languages: shared-task language name -> part of speech -> the tag bundles (as written,
            sorted by text).
        without_part_of_speech: language -> its bundles without a part-of-speech feature
            (Navajo's possessives ``PSS1P``, ...): no paradigm's cells, but bundles its data use.
        source: where the cells come from, in words (default: ``conll2018-task1 train-SETTING``;
            a checkpoint's: its training files, :func:`cells_record`).
    """

    setting: str
    path: Path
    languages: dict[str, dict[str, tuple[str, ...]]]
    without_part_of_speech: dict[str, tuple[str, ...]] = field(default_factory=dict)
    source: str = ""

    @property
    def split_name(self) -> str:
        """The split the cells come from (``"train-high"``; a checkpoint's training files)."""
        return f"train-{self.setting}" if self.setting else "training data"

    @property
    def described(self) -> str:
        """Where the cells come from, in words (a paradigm's ``cells_from``)."""
        return self.source or f"conll2018-task1 {self.split_name}"

    @classmethod
    def from_record(cls, record: Any, path: str | Path) -> CellTable:
        """The table of a :func:`cells_record` (stored in a checkpoint, ``path``).

        Raises:
            CellsError: a malformed record (naming ``path``).
        """
        return _table(record, Path(path), "", str((record or {}).get("source", "")))

    def bundles(self, language: str, pos: str) -> tuple[TagBundle, ...]:
        """The tag bundles of ``language`` (shared-task name) for the part of speech ``pos``
        (exactly, plus its subtypes: ``"V"`` gives ``V``, ``V.PTCP``, ``V.CVB``, ...). Empty
        where there are none."""
        table = self.languages.get(language, {})
        texts = [
            t
            for p, bundles in table.items()
            if p == pos or p.startswith(pos + ".")
            for t in bundles
        ]
        return tuple(TagBundle.parse(t) for t in texts)

    def parts_of_speech(self, language: str) -> dict[str, int]:
        """Part of speech -> number of its tag bundles, for ``language`` (empty if absent)."""
        return {p: len(b) for p, b in self.languages.get(language, {}).items()}


@functools.cache
def _load(path: Path, setting: str) -> CellTable:
    try:
        data = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    except FileNotFoundError:
        raise CellsError(
            f"{path}: the paradigm cells of the {setting} setting are missing; reinstall "
            "sparse-inflect, or write them with `python recipes/paradigms/make_cells.py "
            "--data-dir DATA`"
        ) from None
    except (OSError, ValueError) as exc:
        raise CellsError(
            f"{path}: not a readable cells file ({exc}); write it again with "
            "recipes/paradigms/make_cells.py"
        ) from None
    return _table(data, path, setting)


def _table(data: Any, path: Path, setting: str, source: str = "") -> CellTable:
    """The :class:`CellTable` of a cells file's (or record's) JSON, checked."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise CellsError(
            f"{path}: format {found!r}, expected {FORMAT!r}; write it again with "
            "recipes/paradigms/make_cells.py"
        )
    languages = data.get("languages")
    if not isinstance(languages, dict):
        raise CellsError(f"{path}: no 'languages' table")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for name, table in languages.items():
        if not isinstance(table, dict) or not all(
            isinstance(v, list) and all(isinstance(t, str) for t in v) for v in table.values()
        ):
            raise CellsError(
                f"{path}: language {name!r} must map parts of speech to lists of tag bundles"
            )
        out[name] = {pos: tuple(v) for pos, v in table.items()}
    apart = data.get("without_part_of_speech", {})
    if not isinstance(apart, dict) or not all(
        isinstance(v, list) and all(isinstance(t, str) for t in v) for v in apart.values()
    ):
        raise CellsError(f"{path}: 'without_part_of_speech' must map languages to tag bundles")
    return CellTable(setting, path, out, {name: tuple(v) for name, v in apart.items()}, source)


def attested_cells(examples: Iterable[Example]) -> tuple[dict[str, list[str]], list[str]]:
    """The cells a language's training examples attest: part of speech -> its tag bundles, and
    the bundles without a part of speech, each list sorted by text.

    Each distinct tag bundle (a multiset of UniMorph features) is kept once, written as the data
    write it most often (ties: the first seen), under its part of speech
    (:func:`inflect.text.unimorph.part_of_speech`: the most specific part-of-speech feature).
    """
    from inflect.text.unimorph import part_of_speech

    spellings: dict[tuple[str, ...], Counter[str]] = {}
    for example in examples:
        spellings.setdefault(example.tags.multiset, Counter())[example.tags.text] += 1
    by_pos: dict[str, list[str]] = {}
    without: list[str] = []
    for features, written in spellings.items():
        pos = part_of_speech(features)
        if pos is None:
            without.append(written.most_common(1)[0][0])
            continue
        by_pos.setdefault(pos, []).append(written.most_common(1)[0][0])
    return {pos: sorted(b) for pos, b in sorted(by_pos.items())}, sorted(without)


def cells_record(language: str, examples: Iterable[Example], source: str) -> dict[str, Any]:
    """The cells of one language's training ``examples`` as a cells file's JSON (the shipped
    files' layout, with ``source``: the files, in words), to store in a checkpoint; read back by
    :meth:`CellTable.from_record`."""
    by_pos, without = attested_cells(examples)
    return {"format": FORMAT, "source": source, "languages": {language: by_pos},
            "without_part_of_speech": {language: without} if without else {}}


def load_cells(setting: str, folder: str | os.PathLike[str] | None = None) -> CellTable:
    """The :class:`CellTable` of ``setting`` (read once, then cached).

    Raises:
        ValueError: an unknown setting.
        CellsError: the file is missing or malformed (the message names it).
    """
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
    return _load(cells_file(setting, folder).resolve(), setting)
