"""Polish nouns and adjectives from ``morfeusz2`` (Morfeusz 2 with the SGJP dictionary in its
wheel, BSD-2-Clause): the forms its generator lists for a lemma, their SGJP tags mapped to the
UniMorph bundles of the Polish shared-task files. In the ``dictionaries`` extra.

Only the dictionary's lemmas answer: a word it does not hold comes back as ``ign`` (the
generator's "unknown") and has no paradigm. SGJP writes syncretic values with a dot
(``subst:sg:nom.acc:m3``): each value is a bundle of its own. A lemma is matched as written,
its letter case included (``Polska`` the country, ``polska`` the adjective's feminine); SGJP's
homonym marks (``zamek:Sm3~a``) are not part of the lemma. A lower-case lemma takes the common
nouns only (SGJP's ``nazwa_pospolita``, or no name type), a capitalised one every entry. Where
SGJP has an indeclinable homonym beside a declined one (``reżyser:Sf``, a woman director, beside
``reżyser:Sm1``), the indeclinable one is left out; forms SGJP labels (colloquial ``pot.``,
archaic ``daw.``, ``po_liczebniku``: after a numeral) come after the unlabelled ones.

============================  =================================================================
SGJP                          UniMorph (Polish 2018 files)
============================  =================================================================
``subst:NUM:CASE:GEN``        ``N;CASE;NUM`` (the gender is not in the bundle)
``adj:sg:CASE:m1.m2.m3:pos``  ``ADJ;MASC;CASE;SG``; the accusative ``ADJ;MASC;HUM;ACC;SG``
                              (m1), ``ADJ;MASC;ANIM;ACC;SG`` (m2), ``ADJ;MASC;INAN;ACC;SG`` (m3)
``adj:sg:CASE:f`` / ``:n``    ``ADJ;FEM;CASE;SG`` / ``ADJ;NEUT;CASE;SG``
``adj:pl:nom`` / ``acc:m1``   ``ADJ;MASC;HUM;NOM;PL`` / ``ADJ;MASC;HUM;ACC;PL``
``adj:pl:CASE`` (other)       ``ADJ;CASE;PL``
``sg`` / ``pl``               ``SG`` / ``PL``
``nom gen dat acc inst loc    ``NOM GEN DAT ACC INS ESS VOC``
voc``
============================  =================================================================

Left out: the depreciative plural (``depr``: ``profesory``), the comparative and superlative
(``com``, ``sup``: no bundle in the 2018 files), the adjectival vocative (none there either),
and verbs (the 2018 files write their past, conditional and future as SGJP's ``praet`` with
the agglutinate or ``będę``, which the generator gives as parts; not mapped yet).
"""

from __future__ import annotations

from typing import Any, ClassVar

from inflect.lexicon.field import FieldDictionary, Paradigm, add_form

__all__ = ["CASES", "Morfeusz", "adjective_bundles", "noun_bundles"]

CASES = {
    "nom": "NOM",
    "gen": "GEN",
    "dat": "DAT",
    "acc": "ACC",
    "inst": "INS",
    "loc": "ESS",
    "voc": "VOC",
}
NUMBERS = {"sg": "SG", "pl": "PL"}
_ACCUSATIVE_MASCULINE = {"m1": "MASC;HUM", "m2": "MASC;ANIM", "m3": "MASC;INAN"}
_SINGULAR_GENDER = {"m1": "MASC", "m2": "MASC", "m3": "MASC", "f": "FEM", "n": "NEUT"}


def noun_bundles(tag: str) -> list[str]:
    """The UniMorph bundles of an SGJP noun tag (``subst:sg:nom.acc:m3`` -> ``N;NOM;SG``,
    ``N;ACC;SG``); none for another class."""
    parts = tag.split(":")
    if parts[0] != "subst" or len(parts) < 3:
        return []
    return [
        f"N;{CASES[c]};{NUMBERS[n]}"
        for n in parts[1].split(".")
        if n in NUMBERS
        for c in parts[2].split(".")
        if c in CASES
    ]


def adjective_bundles(tag: str) -> list[str]:
    """The UniMorph bundles of an SGJP adjective tag in the positive degree
    (``adj:sg:acc:m1.m2:pos`` -> ``ADJ;MASC;HUM;ACC;SG``, ``ADJ;MASC;ANIM;ACC;SG``)."""
    parts = tag.split(":")
    if parts[0] != "adj" or len(parts) < 5 or parts[4] != "pos":
        return []
    numbers, cases, genders = parts[1].split("."), parts[2].split("."), parts[3].split(".")
    bundles: list[str] = []
    for number, case, gender in ((n, c, g) for n in numbers for c in cases for g in genders):
        if case != "voc":
            bundle = _adjective_bundle(number, case, gender)
            if bundle not in bundles:
                bundles.append(bundle)
    return bundles


def _adjective_bundle(number: str, case: str, gender: str) -> str:
    if number == "sg" and case == "acc" and gender in _ACCUSATIVE_MASCULINE:
        return f"ADJ;{_ACCUSATIVE_MASCULINE[gender]};ACC;SG"
    if number == "sg":
        return f"ADJ;{_SINGULAR_GENDER[gender]};{CASES[case]};SG"
    if case in ("nom", "acc") and gender == "m1":
        return f"ADJ;MASC;HUM;{CASES[case]};PL"
    return f"ADJ;{CASES[case]};PL"


_BUNDLES = {"N": noun_bundles, "ADJ": adjective_bundles}


class Morfeusz(FieldDictionary):
    """Polish nouns and adjectives from Morfeusz 2's SGJP generator."""

    library = "morfeusz2"
    module = "morfeusz2"
    codes: ClassVar[dict[str, str]] = {"polish": "pl"}
    parts_of_speech = frozenset({"N", "ADJ"})

    def load(self, code: str) -> Any:
        import morfeusz2

        return morfeusz2.Morfeusz(analyse=False, generate=True)

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        common_only = lemma[:1].islower()
        bundles = _BUNDLES[pos]
        try:
            generated = backend.generate(lemma)
        except RuntimeError:  # a string the generator cannot take
            return {}
        entries = [
            g
            for g in generated
            if g[1].split(":")[0] == lemma
            and not (common_only and g[3] and "nazwa_pospolita" not in g[3])
        ]
        declined = {g[1] for g in entries if g[0] != lemma}
        table: Paradigm = {}
        # unmarked forms before those SGJP labels (colloquial, archaic, after a numeral)
        for form, entry, tag, _names, _labels in sorted(entries, key=lambda g: bool(g[4])):
            if entry not in declined and declined:  # an indeclinable homonym (reżyser:Sf)
                continue
            for bundle in bundles(tag):
                add_form(table, bundle, form)
        return table
