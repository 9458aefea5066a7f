"""German nouns from ``german-nouns`` (German Wiktionary's noun tables, 100,000 nouns): the rows
of a lemma in the package's table, its case and number columns mapped to UniMorph bundles.

The library's own lookup (``german_nouns.lookup.Nouns``) reads the whole 20 MB table into Python
lists (about a second); this adapter finds the lemma's rows in the installed table itself
(memory-mapped, a byte search for the line that starts with the lemma: milliseconds) and reads
them with :mod:`csv`. Every row of the lemma counts (``Bank``: ``Bänke`` and ``Banken``).

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
    """The installed ``nouns.csv``: its header and a memory map of its bytes."""

    def __init__(self, path: Any) -> None:
        with open(path, "rb") as handle:
            self.data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        end = self.data.find(b"\n")
        self.header = next(csv.reader([self.data[:end].decode("utf-8").rstrip("\r")]))

    def rows(self, lemma: str) -> list[dict[str, str]]:
        """The rows whose ``lemma`` column is ``lemma``, as column -> value."""
        found = []
        raw = lemma.encode("utf-8")
        quoted = b'\n"' + raw.replace(b'"', b'""') + b'",'  # csv quotes a , or " only
        for start_text in (b"\n" + raw + b",", *([quoted] if b"," in raw or b'"' in raw else [])):
            at = self.data.find(start_text)
            while at >= 0:
                end = self.data.find(b"\n", at + 1)
                line = self.data[at + 1 : end if end >= 0 else len(self.data)]
                values = next(csv.reader([line.decode("utf-8").rstrip("\r")]))
                found.append(dict(zip(self.header, values, strict=False)))
                at = self.data.find(start_text, at + 1)
        return found


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
