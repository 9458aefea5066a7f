"""A lexicon index on disk that answers one lemma without reading the rest: Parquet sorted by lemma.

Written once when a large lexicon file is installed (a UniMorph file: up to a million lines), read
at every lookup: the rows are sorted by the lemma in the language's data normalisation
(:func:`inflect.lexicon.core.lemma_key`) and cut into row groups of :data:`GROUP_ROWS` rows, and
the file's key-value metadata (``inflect.lexicon.index``, JSON) lists the first lemma of each
group. A lookup bisects that list and reads the one or two groups that can hold the lemma: a cold
lookup reads a few kilobytes, not the file.

Columns: ``lemma`` (normalised), ``tags`` (as written), ``form`` (normalised), ``file`` (int16,
an index into the metadata's ``files``) and ``line`` (int32, 1-based line in that file). The
metadata also holds ``format``, ``language`` and whatever the writer adds (``files``: their names
and versions).
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from inflect.lexicon.core import Attestation, LexiconError
from inflect.text.records import TagBundle

__all__ = ["GROUP_ROWS", "INDEX_KEY", "IndexedStore", "write_index"]

#: Rows per Parquet row group: what one cold lookup reads (about 100 KB uncompressed).
GROUP_ROWS = 2048
#: The Parquet key-value metadata key of the index.
INDEX_KEY = b"inflect.lexicon.index"
_FORMAT = 1

#: One row: ``(lemma, tags as written, form, file index, line)``.
IndexRow = tuple[str, str, str, int, int]


def write_index(
    path: str | os.PathLike[str], rows: Iterable[IndexRow], meta: Mapping[str, Any]
) -> int:
    """Write an index (replacing ``path`` atomically): the rows sorted by lemma, then file and
    line; a row repeated (same lemma, tags and form) is kept once, at its first place.

    Args:
        path: the ``.parquet`` file.
        rows: ``(lemma, tags, form, file, line)``, lemma and form already normalised.
        meta: JSON-able fields stored beside the index (``language``, ``files``, ...).

    Returns:
        The number of rows written.

    Raises:
        OutputError: the file cannot be written.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from inflect.io.atomic import atomic_write

    seen: set[tuple[str, str, str]] = set()
    kept = []
    for row in rows:
        if row[:3] not in seen:
            seen.add(row[:3])
            kept.append(row)
    kept.sort(key=lambda r: (r[0], r[3], r[4]))
    schema = pa.schema([("lemma", pa.string()), ("tags", pa.string()), ("form", pa.string()),
                        ("file", pa.int16()), ("line", pa.int32())])
    starts = range(0, len(kept), GROUP_ROWS)
    index = {**meta, "format": _FORMAT, "rows": len(kept), "keys": [kept[i][0] for i in starts]}
    schema = schema.with_metadata({INDEX_KEY: json.dumps(index, ensure_ascii=False).encode()})

    def write(temp: Path) -> None:
        with pq.ParquetWriter(temp, schema, compression="zstd", use_dictionary=["tags"]) as out:
            for start in starts:
                chunk = kept[start : start + GROUP_ROWS]
                columns = list(zip(*chunk, strict=True))
                out.write_table(pa.table(
                    [pa.array(c, type=f.type) for c, f in zip(columns, schema, strict=True)],
                    schema=schema))

    atomic_write(path, write)
    return len(kept)


def read_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata of an index (its ``language``, ``files``, ``rows``, ...).

    Raises:
        LexiconError: not an index of this format (the message says to install it again).
    """
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(path).metadata or {}
        index = json.loads(meta[INDEX_KEY])
    except Exception as exc:  # pyarrow raises its own errors for a broken file
        raise LexiconError(f"{path}: not a lexicon index ({exc}); install it again") from None
    if index.get("format") != _FORMAT:
        raise LexiconError(f"{path}: lexicon index format {index.get('format')!r}, this "
                           f"version reads {_FORMAT}; install it again")
    return index


class IndexedStore:
    """The attested forms of one index (:func:`write_index`), opened at the first lookup.

    Args:
        path: the index.
        sources: per file index, the words a form's source begins with (``UniMorph eng
            66e0e9e (eng``): the source is ``<words>:<line>)``.
    """

    def __init__(self, path: str | os.PathLike[str], sources: list[str]) -> None:
        self.path = Path(path)
        self.sources = sources
        self._file: Any = None
        self._keys: list[str] = []
        self._groups: dict[int, dict[str, list[tuple[str, str, int, int]]]] = {}

    def _group(self, i: int) -> dict[str, list[tuple[str, str, int, int]]]:
        group = self._groups.get(i)
        if group is None:
            data = self._file.read_row_group(i).to_pydict()
            group = {}
            for lemma, tags, form, file, line in zip(
                data["lemma"], data["tags"], data["form"], data["file"], data["line"],
                strict=True,
            ):
                group.setdefault(lemma, []).append((tags, form, file, line))
            if len(self._groups) >= 64:  # a few MB at most
                self._groups.pop(next(iter(self._groups)))
            self._groups[i] = group
        return group

    def lookup(self, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """The forms of ``lemma`` (normalised) for the bundle ``tags`` (order-free), in the
        files' order.

        Raises:
            LexiconError: the index is missing or broken.
        """
        if self._file is None:
            import pyarrow.parquet as pq

            self._keys = read_meta(self.path)["keys"]
            self._file = pq.ParquetFile(self.path)
        i = max(bisect.bisect_left(self._keys, lemma) - 1, 0)
        found = []
        while i < len(self._keys) and self._keys[i] <= lemma:
            for written, form, file, line in self._group(i).get(lemma, ()):
                if TagBundle.parse(written) == tags:
                    found.append(Attestation(form, f"{self.sources[file]}:{line})"))
            i += 1
        return tuple(found)
