"""Polish nouns, adjectives and verbs from ``morfeusz2`` (Morfeusz 2 with the SGJP dictionary in its
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

Verbs (:func:`verb_table`): ``inf`` ``V;NFIN``; ``fin`` ``V;PRS`` (imperfective) or ``V;FUT``
(perfective) with person and number; ``impt`` ``V;IMP`` (2sg, 1pl, 2pl) and ``niech`` with the
finite form for 1sg, 3sg, 3pl (``niech zrobi``; ``być``: ``niech będzie``); ``praet`` the past
(``V;PST;3;SG;FEM`` ``zrobiła``; the first and second persons with the agglutinate from SGJP's
``aglt``: ``zrobiłam``), the conditional (``zrobiłaby``, ``zrobiłabym``) and the imperfective
future with ``będę`` (``będę robiła``, then ``będę robić``), the singular by gender (the neuter
in the third person, as the files have it), the plural ``MASC;HUM`` (m1) or none; ``ger``
``V.MSDR``; ``pcon`` ``V.CVB``; ``pant`` ``V.CVB;PST``; ``pact`` / ``ppas`` in the nominative
``V.PTCP;PST;ACT`` / ``V.PTCP;PST;PASS`` (the 2018 files' names) by number and gender; ``imps``
``V.PTCP;PST;PASS``. A reflexive lemma (``ogolić się``) answers as its verb, the forms without
``się``, as the files write them.

Left out: the depreciative plural (``depr``: ``profesory``), the comparative and superlative
(``com``, ``sup``: no bundle in the 2018 files), the adjectival vocative (none there either),
and the negated gerunds and participles (``niebycie``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from inflect.lexicon.field import FieldDictionary, Paradigm, add_form

__all__ = ["CASES", "Morfeusz", "adjective_bundles", "noun_bundles", "verb_table"]

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

_PERSON = {"pri": "1", "sec": "2", "ter": "3"}
#: SGJP's participles (nominative, affirmative) -> the bundle's head in the 2018 files.
_PARTICIPLES = {"pact": "V.PTCP;PST;ACT", "ppas": "V.PTCP;PST;PASS"}
#: Single SGJP tags (their first fields) -> bundle.
_SINGLE = {"inf": "V;NFIN", "pcon": "V.CVB", "pant": "V.CVB;PST", "imps": "V.PTCP;PST;PASS"}
#: The imperative persons SGJP has (``impt``) and those the 2018 files write with ``niech`` and
#: the finite form (``niech zrobi``).
_IMPERATIVE = {
    ("sg", "sec"): "V;IMP;2;SG",
    ("pl", "pri"): "V;IMP;1;PL",
    ("pl", "sec"): "V;IMP;2;PL",
}
_NIECH = {("sg", "pri"): "V;IMP;1;SG", ("sg", "ter"): "V;IMP;3;SG", ("pl", "ter"): "V;IMP;3;PL"}


def _genders(number: str, genders: str, person: str) -> list[str]:
    """The gender features of a past form in the 2018 bundles (``MASC``, ``FEM``, ``NEUT`` in
    the singular, the neuter in the third person only; ``MASC;HUM`` or none in the plural)."""
    found = []
    for gender in genders.split("."):
        if number == "sg" and (gender != "n" or person == "3"):
            found.append(_SINGULAR_GENDER[gender])
        elif number == "pl":
            found.append("MASC;HUM" if gender == "m1" else "")
    return list(dict.fromkeys(found))


def _bundle(head: str, person: str, number: str, gender: str) -> str:
    return ";".join(x for x in (head, person, number.upper(), gender) if x)


def verb_table(entries: list[tuple[str, str]], be: dict[str, list[str]]) -> Paradigm:
    """A verb's bundles from SGJP's ``(form, tag)`` list of it, the past, conditional and
    imperfective future written as the 2018 files write them: the past participle ``praet``
    with the agglutinate (``zrobił`` + ``em``, the ``agl`` form where SGJP has one: ``mogł`` +
    ``em``), the conditional with ``by`` (``zrobiłbym``), the future with ``będę`` (``będę
    robił``, then ``będę robić``). ``be`` holds ``być``'s agglutinates and future, from SGJP:
    ``aglt:sg:pri:wok`` -> ``["em"]``, ``bedzie:sg:pri`` -> ``["będę"]``."""
    table: Paradigm = {}
    analytic = not any(t.startswith("bedzie:") for _, t in entries)  # być has its own future
    infinitive = next((f for f, t in entries if t.startswith("inf:")), "")
    for form, tag in entries:
        parts = tag.split(":")
        kind = parts[0]
        if kind in _SINGLE:
            add_form(table, _SINGLE[kind], form)
        elif (
            kind == "ger"
            and "nom" in parts[2].split(".")
            and parts[1] == "sg"
            and (parts[-1] == "aff")
        ):
            add_form(table, "V.MSDR", form)
        elif kind == "fin":
            head = "V;PRS" if parts[3] == "imperf" else "V;FUT"
            add_form(table, f"{head};{_PERSON[parts[2]]};{parts[1].upper()}", form)
            if (parts[1], parts[2]) in _NIECH and not any(
                t.startswith("bedzie:") for _, t in entries
            ):
                add_form(table, _NIECH[parts[1], parts[2]], f"niech {form}")
        elif kind == "bedzie":  # być's own future: będę, niech będzie
            add_form(table, f"V;FUT;{_PERSON[parts[2]]};{parts[1].upper()}", form)
            if (parts[1], parts[2]) in _NIECH:
                add_form(table, _NIECH[parts[1], parts[2]], f"niech {form}")
        elif kind == "impt" and (parts[1], parts[2]) in _IMPERATIVE:
            add_form(table, _IMPERATIVE[parts[1], parts[2]], form)
        elif kind in _PARTICIPLES and "nom" in parts[2].split(".") and parts[-1] == "aff":
            for gender in _genders(parts[1], parts[3], "3"):
                add_form(table, _bundle(_PARTICIPLES[kind], "", parts[1], gender), form)
    futures: list[tuple[str, str]] = []  # (bundle, będę): then with the infinitive, after
    for form, tag in entries:  # the past, the conditional, the imperfective future
        parts = tag.split(":")
        if parts[0] != "praet":
            continue
        number, genders, aspect = parts[1], parts[2], parts[3]
        agglutinating = parts[-1] != "nagl"  # the form before an agglutinate
        plain = parts[-1] != "agl"  # the form on its own (third person, conditional)
        for code, person in _PERSON.items():
            for gender in _genders(number, genders, person):
                if person == "3" and plain:
                    add_form(table, _bundle("V;PST", "3", number, gender), form)
                    add_form(table, _bundle("V;COND", "3", number, gender), f"{form}by")
                elif person != "3":
                    vowel = "nwok" if form[-1] in "aeiouyąęó" else "wok"
                    for suffix in be.get(f"aglt:{number}:{code}:{vowel}", [])[:1]:
                        if agglutinating:
                            add_form(table, _bundle("V;PST", person, number, gender), form + suffix)
                    for suffix in be.get(f"aglt:{number}:{code}:nwok", [])[:1]:
                        if plain:
                            add_form(
                                table,
                                _bundle("V;COND", person, number, gender),
                                f"{form}by{suffix}",
                            )
                if aspect == "imperf" and plain and analytic:
                    for will in be.get(f"bedzie:{number}:{code}", [])[:1]:
                        head = _bundle("V;FUT", person, number, gender)
                        add_form(table, head, f"{will} {form}")
                        futures.append((head, will))
    for head, will in futures:
        add_form(table, head, f"{will} {infinitive}")
    return table


class Morfeusz(FieldDictionary):
    """Polish nouns, adjectives and verbs from Morfeusz 2's SGJP generator."""

    library = "morfeusz2"
    module = "morfeusz2"
    codes: ClassVar[dict[str, str]] = {"polish": "pl"}
    parts_of_speech = frozenset({"N", "ADJ", "V"})

    def load(self, code: str) -> Any:
        import morfeusz2

        return morfeusz2.Morfeusz(analyse=False, generate=True)

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        if pos == "V":
            return self._verb(backend, lemma)
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

    def _verb(self, backend: Any, lemma: str) -> Paradigm:
        """A verb's paradigm; a reflexive lemma (``ogolić się``) is the verb's, its forms
        written without ``się``, as the 2018 files write them."""
        verb = lemma.removesuffix(" się")
        try:
            generated = backend.generate(verb)
            be = backend.generate("być")
        except RuntimeError:
            return {}
        entries = [
            (g[0], g[2])
            for g in sorted(generated, key=lambda g: bool(g[4]))
            if g[1].split(":")[0] == verb and g[2].split(":")[0] != "ign"
        ]
        parts: dict[str, list[str]] = {}
        for form, _entry, tag, _names, _labels in be:
            if tag.startswith(("aglt:", "bedzie:")):
                fields = tag.split(":")
                key = ":".join(fields[:3] + fields[4:])  # without the aspect
                parts.setdefault(key, []).append(form)
        return verb_table(entries, parts)
