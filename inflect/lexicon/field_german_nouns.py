"""German nouns from ``german-nouns`` (German Wiktionary's noun tables, 100,000 nouns): the rows
of a lemma in the package's table, its case and number columns mapped to UniMorph bundles.

The library's own lookup (``german_nouns.lookup.Nouns``) reads the whole 20 MB table into Python
lists (about a second); this adapter memory-maps the installed table, indexes where each lemma's
lines start once, at the first German lookup (one pass over the bytes: about 0.3 s, a dictionary
of 100,000 lemmas), and reads a lemma's lines with :mod:`csv` (microseconds). A byte search of
the table per lemma, as earlier versions did, cost 20–100 ms a lemma: 85 % of a 1,000-word
German request of ``inflect serve``. Every row of the lemma counts (``Bank``:
``Bänke`` and ``Banken``).

=================================================  ===========================================
german-nouns column                                UniMorph bundle
=================================================  ===========================================
``nominativ`` / ``genitiv`` / ``dativ`` /          ``N;NOM`` / ``N;GEN`` / ``N;DAT`` /
``akkusativ``                                      ``N;ACC``
``singular`` / ``plural``                          ``SG`` / ``PL``
=================================================  ===========================================

Within a bundle the forms are taken in the column order :data:`VARIANTS`: the main column
(``genitiv singular``: ``Hauses``), the numbered ones (``1`` to ``4``: further genders or
plurals), the adjectival declension (``stark``, ``gemischt``, ``schwach``: ``Beamter``), then
the marked alternative (``*``: ``dativ singular*``, ``Hause``). In the genitive singular, a form
in ``-es`` comes before the same form in ``-s`` whichever column holds it (``Gebrauches``,
``Gebrauchs``): the order of the Wiktionary tables the 2018 data were drawn from (the data
write the ``-es`` form on 116 of the 128 pairs where german-nouns gives both).
"""

from __future__ import annotations

import csv
import mmap
from typing import Any, ClassVar

from inflect.lexicon.field import FieldDictionary, Paradigm, add_form
from inflect.text.records import TagBundle

__all__ = ["CASES", "NUMBERS", "VARIANTS", "GermanNouns"]

CASES = {"nominativ": "NOM", "genitiv": "GEN", "dativ": "DAT", "akkusativ": "ACC"}
NUMBERS = {"singular": "SG", "plural": "PL"}
#: The column suffixes of one case and number, in the order their forms are listed.
VARIANTS = ("", " 1", " 2", " 3", " 4", " stark", " gemischt", " schwach", "*")
_GENITIVE = TagBundle.parse("N;GEN;SG")


class _Table:
    """The installed ``nouns.csv``: its header, a memory map of its bytes and an index of where
    each lemma's lines start (lemma as UTF-8 bytes -> offsets, in the file's order)."""

    def __init__(self, path: Any) -> None:
        with open(path, "rb") as handle:
            self.data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        end = self.data.find(b"\n")
        self.header = next(csv.reader([self.data[:end].decode("utf-8").rstrip("\r")]))
        self.index: dict[bytes, list[int]] = {}
        at = end + 1
        for line in self.data[at:].split(b"\n"):
            if line.strip():
                key = line.split(b",", 1)[0]
                if key.startswith(b'"'):  # csv quotes a lemma holding , or "
                    key = next(csv.reader([line.decode("utf-8")]))[0].encode("utf-8")
                self.index.setdefault(key, []).append(at)
            at += len(line) + 1

    def _line(self, at: int) -> list[str]:
        end = self.data.find(b"\n", at)
        line = self.data[at : end if end >= 0 else len(self.data)]
        return next(csv.reader([line.decode("utf-8").rstrip("\r")]))

    def rows(self, lemma: str) -> list[dict[str, str]]:
        """The rows whose ``lemma`` column is ``lemma``, as column -> value."""
        return [
            dict(zip(self.header, self._line(at), strict=False))
            for at in self.index.get(lemma.encode("utf-8"), ())
        ]


class GermanNouns(FieldDictionary):
    """German nouns from the ``german-nouns`` package's table."""

    library = "german-nouns"
    module = "german_nouns"
    codes: ClassVar[dict[str, str]] = {"german": "de"}
    parts_of_speech = frozenset({"N"})

    def load(self, code: str) -> Any:
        from german_nouns.config import CSV_FILE_PATH

        return _Table(CSV_FILE_PATH)

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        table: Paradigm = {}
        for row in backend.rows(lemma):
            for case, case_tag in CASES.items():
                for number, number_tag in NUMBERS.items():
                    for variant in VARIANTS:
                        form = row.get(f"{case} {number}{variant}", "")
                        add_form(table, f"N;{case_tag};{number_tag}", form)
        genitive = table.get(_GENITIVE)
        if genitive:
            table[_GENITIVE] = sorted(genitive, key=lambda f: not (
                f.endswith("es") and f[:-2] + "s" in genitive))
        return table
