"""Output length limits from the data: the longest output searched for an input.

A search needs a largest output length (:mod:`inflect.decoding`). It is a property of one input,
never of the batch it is searched in (an answer must not depend on its neighbours), and it comes
from the training data: :class:`OutputLengths` records, per language, the longest target of the
training items for each source length (in model symbols), and is stored in the checkpoint
(``model.output_lengths`` in the model's metadata, :meth:`inflect.nn.model.Seq2Seq.metadata`).

The limit for a source of ``S`` symbols of language ``l`` (:meth:`OutputLengths.limit`):

* ``E(S) = max over recorded S' <= S of (T(S') + S - S')``: the longest output recorded for a
  source of that length, or of a shorter one grown by one symbol per extra source symbol; for
  ``S`` below every recorded length, the output recorded for the shortest;
* ``limit = max(2·S + 10, E(S) + margin(E(S)))`` with
  :func:`inflect.defaults.output_length_margin` (``10 + E // 4``): never lower than the limit of
  earlier versions, :func:`inflect.defaults.max_output_length`.

A checkpoint without the record (written before it existed) gets
:func:`inflect.defaults.fallback_output_length` (``2·S + 30``), which depends on the input alone
too.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from typing import Any

from inflect import defaults

__all__ = ["OutputLengths", "output_limit"]


class OutputLengths:
    """The longest training output per language and source length.

    Args:
        table: language name (``""`` for a model without a language symbol) -> source length
            (int >= 1) -> longest target length (int >= 0).

    Raises:
        ValueError: a length that is not a non-negative int (a source length below 1).
    """

    def __init__(self, table: Mapping[str, Mapping[int, int]]) -> None:
        self.table: dict[str, dict[int, int]] = {}
        for language, lengths in table.items():
            rows: dict[int, int] = {}
            for source, target in lengths.items():
                source, target = int(source), int(target)
                if source < 1 or target < 0:
                    raise ValueError(
                        f"output lengths of {language!r}: source length {source} with target "
                        f"length {target} (needs source >= 1, target >= 0)"
                    )
                rows[source] = target
            self.table[language] = dict(sorted(rows.items()))
        # E(S) at each recorded S (a running maximum of T(S') - S'), for the envelope
        self._keys: dict[str, list[int]] = {}
        self._best: dict[str, list[int]] = {}
        for language, rows in self.table.items():
            keys, best, run = [], [], None
            for source, target in rows.items():
                run = target - source if run is None else max(run, target - source)
                keys.append(source)
                best.append(run)
            self._keys[language], self._best[language] = keys, best

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str | None, int, int]]) -> OutputLengths:
        """The record of ``(language, source length, target length)`` triples (the training
        items; language None is stored as ``""``)."""
        table: dict[str, dict[int, int]] = {}
        for language, source, target in pairs:
            rows = table.setdefault(language or "", {})
            if source >= 1:
                rows[source] = max(rows.get(source, 0), target)
        return cls(table)

    def longest(self, language: str | None, source_length: int) -> int | None:
        """``E(S)`` (see the module docstring), or None when ``language`` has no record."""
        keys = self._keys.get(language or "")
        if not keys:
            return None
        i = bisect.bisect_right(keys, source_length)
        if i == 0:
            return self.table[language or ""][keys[0]]
        return self._best[language or ""][i - 1] + source_length

    def limit(self, language: str | None, source_length: int) -> int | None:
        """The output length limit of a source of ``source_length`` symbols of ``language``,
        or None when the language has no record."""
        longest = self.longest(language, source_length)
        if longest is None:
            return None
        return max(
            defaults.max_output_length(source_length),
            longest + defaults.output_length_margin(longest),
        )

    def to_dict(self) -> dict[str, dict[str, int]]:
        """JSON-able: language -> {source length as a string: longest target}."""
        return {lang: {str(s): t for s, t in rows.items()} for lang, rows in self.table.items()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OutputLengths:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: a malformed record.
        """
        try:
            return cls(
                {lang: {int(s): int(t) for s, t in rows.items()} for lang, rows in d.items()}
            )
        except (AttributeError, TypeError) as exc:
            raise ValueError(f"malformed output-length record ({exc})") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutputLengths) and self.table == other.table

    def __repr__(self) -> str:
        return f"OutputLengths({len(self.table)} languages)"


def output_limit(record: OutputLengths | None, language: str | None, source_length: int) -> int:
    """The output length limit of one input: the record's (:meth:`OutputLengths.limit`), else
    :func:`inflect.defaults.fallback_output_length` (no record, or none for the language)."""
    limit = None if record is None else record.limit(language, source_length)
    return defaults.fallback_output_length(source_length) if limit is None else limit
