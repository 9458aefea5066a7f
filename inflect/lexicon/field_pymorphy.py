"""Russian and Ukrainian from ``pymorphy3`` and its dictionaries (``pymorphy3-dicts-ru``,
OpenCorpora; ``pymorphy3-dicts-uk``, VESUM): the lexeme of a dictionary word, its OpenCorpora
grammemes mapped to the UniMorph bundles of the shared-task files.

Only analyses by the dictionary itself count (pymorphy3's guesses for unknown words are left out),
and only the lexemes whose normal form is the lemma. The mapping:

============================  ============================================================
pymorphy3 (OpenCorpora)       UniMorph bundle of the 2018 files
============================  ============================================================
NOUN case, number             ``N;<case>;<number>``
ADJF case, gender|plur        ``ADJ;<case>;<gender>;SG`` / ``ADJ;<case>;PL``, with ``ANIM`` or
                              ``INAN`` in the accusative where the form has it
ADJS gender|plur              ``ADJ;<gender>;SG;LGSPEC1`` / ``ADJ;PL;LGSPEC1`` (short form)
INFN (ru), VERB infn (uk)     ``V;NFIN``
VERB indc past                ``V;PST;<gender>;SG`` / ``V;PST;PL``
VERB indc pres / futr         ``V;PRS;<person>;<number>`` / ``V;FUT;<person>;<number>``
imperfective future           ``V;FUT;<person>;<number>``: ``буду`` + infinitive (ru, uk), first;
                              the Ukrainian synthetic form (``бачитиму``) after it
VERB impr excl / incl         ``V;IMP;2;<number>`` / ``V;IMP;1;PL`` (``отмахнём``)
GRND pres / past              ``V.CVB;PRS`` / ``V.CVB;PST``
PRTF voice, tense (nomn masc  ``V.PTCP;<voice>;<tense>`` (the citation form of the participle)
sing)
============================  ============================================================

Cases ``nomn gent datv accs ablt loct voct`` are ``NOM GEN DAT ACC INS ESS VOC``; the second
genitive and locative (``gen2``, ``loc2``), comparatives, superlatives (``Supr``) and
impersonal forms have no bundle in the shared-task files and are left out. Variant forms
(``V-oy``: ``красною``) follow the main form of their bundle.
"""

from __future__ import annotations

from typing import Any, ClassVar

from inflect.lexicon.field import FieldDictionary, Paradigm, add_form

__all__ = ["CASES", "FUTURE_AUXILIARY", "Pymorphy"]

CASES = {"nomn": "NOM", "gent": "GEN", "datv": "DAT", "accs": "ACC", "ablt": "INS",
         "loct": "ESS", "voct": "VOC"}
NUMBERS = {"sing": "SG", "plur": "PL"}
GENDERS = {"masc": "MASC", "femn": "FEM", "neut": "NEUT"}
PERSONS = {"1per": "1", "2per": "2", "3per": "3"}
TENSES = {"pres": "PRS", "past": "PST", "futr": "FUT"}
VOICES = {"actv": "ACT", "pssv": "PASS"}
ANIMACY = {"anim": "ANIM", "inan": "INAN"}
#: The imperfective future's auxiliary by (person, number): ``буду делать``.
FUTURE_AUXILIARY = {
    "russian": {("1", "SG"): "буду", ("2", "SG"): "будешь", ("3", "SG"): "будет",
                ("1", "PL"): "будем", ("2", "PL"): "будете", ("3", "PL"): "будут"},
    "ukrainian": {("1", "SG"): "буду", ("2", "SG"): "будеш", ("3", "SG"): "буде",
                  ("1", "PL"): "будемо", ("2", "PL"): "будете", ("3", "PL"): "будуть"},
}
#: pymorphy3's parts of speech per UniMorph part of speech of the query.
_POS = {"N": {"NOUN"}, "ADJ": {"ADJF", "ADJS"}, "V": {"INFN", "VERB", "GRND", "PRTF"}}
_LEFT_OUT = {"gen2", "loc2", "Supr", "Impe", "COMP", "Cmp2"}


def _number(tag: Any) -> str:
    """SG or PL (the Ukrainian dictionary leaves ``sing`` unwritten where a gender is)."""
    return NUMBERS.get(tag.number or "sing", "SG")


def _gender_number(tag: Any) -> str:
    return f"{GENDERS[tag.gender]};SG" if tag.gender and tag.number != "plur" else "PL"


def unimorph_bundle(tag: Any) -> str | None:
    """The UniMorph bundle of one pymorphy3 tag (see the table above), or None."""
    pos, grammemes = tag.POS, set(tag.grammemes)
    if grammemes & _LEFT_OUT:
        return None
    if pos == "NOUN" and tag.case in CASES:
        return f"N;{CASES[tag.case]};{_number(tag)}"
    if pos == "ADJF" and tag.case in CASES:
        animacy = f";{ANIMACY[tag.animacy]}" if tag.case == "accs" and tag.animacy else ""
        return f"ADJ;{CASES[tag.case]};{_gender_number(tag)}{animacy}"
    if pos == "ADJS":
        return f"ADJ;{_gender_number(tag)};LGSPEC1"
    if pos == "INFN" or (pos == "VERB" and "infn" in grammemes):
        return "V;NFIN"
    if pos == "VERB" and "impr" in grammemes:
        inclusive = "incl" in grammemes or tag.person == "1per"  # отмахнём, зробімо
        return "V;IMP;1;PL" if inclusive else f"V;IMP;2;{_number(tag)}"
    if pos == "VERB" and tag.tense == "past":
        return f"V;PST;{_gender_number(tag)}"
    if pos == "VERB" and tag.tense in TENSES and tag.person in PERSONS:
        return f"V;{TENSES[tag.tense]};{PERSONS[tag.person]};{_number(tag)}"
    if pos == "GRND" and tag.tense in TENSES:
        return f"V.CVB;{TENSES[tag.tense]}"
    if (pos == "PRTF" and tag.case == "nomn" and tag.gender == "masc" and tag.voice in VOICES
            and tag.tense in TENSES):
        return f"V.PTCP;{VOICES[tag.voice]};{TENSES[tag.tense]}"
    return None


class Pymorphy(FieldDictionary):
    """Russian and Ukrainian nouns, adjectives and verbs from ``pymorphy3``'s dictionaries."""

    library = "pymorphy3"
    module = "pymorphy3"
    codes: ClassVar[dict[str, str]] = {"russian": "ru", "ukrainian": "uk"}
    parts_of_speech = frozenset({"N", "ADJ", "V"})
    _installed: frozenset[str] | None = None

    def languages(self) -> frozenset[str]:
        """Russian and Ukrainian where its dictionary package (``pymorphy3-dicts-ru``,
        ``-uk``) is installed: pymorphy3 without one cannot answer for that language."""
        import importlib.util

        if self._installed is None:
            self._installed = frozenset(
                lang for lang, code in self.codes.items()
                if importlib.util.find_spec(f"pymorphy3_dicts_{code}") is not None)
        return self._installed

    def source(self, language: str) -> str:
        """``pymorphy3 2.0.6 (pymorphy3-dicts-ru 2.4.417150.4580142)``."""
        import importlib.metadata

        data = f"pymorphy3-dicts-{self.codes[language]}"
        return f"{super().source(language)} ({data} {importlib.metadata.version(data)})"

    def load(self, code: str) -> Any:
        import pymorphy3

        return pymorphy3.MorphAnalyzer(lang=code)

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        import pymorphy3.units

        word = lemma.lower()
        capital = lemma[:1].isupper() and lemma[1:] == lemma[1:].lower()
        table: Paradigm = {}
        seen = set()
        for parse in backend.parse(word):
            stack = parse.methods_stack
            if (parse.normal_form != word or parse.tag.POS not in _POS[pos] or len(stack) != 1
                    or not isinstance(stack[0][0], pymorphy3.units.DictionaryAnalyzer)
                    or stack[0][2] in seen):
                continue
            seen.add(stack[0][2])  # the paradigm's id: each lexeme once
            imperfective = parse.tag.aspect == "impf"
            for form in parse.lexeme:
                text = form.word.capitalize() if capital else form.word
                tags = unimorph_bundle(form.tag)
                if tags == "V;NFIN" and imperfective and pos == "V":
                    for (person, number), aux in FUTURE_AUXILIARY[language].items():
                        add_form(table, f"V;FUT;{person};{number}", f"{aux} {text}")
                if tags is not None:
                    add_form(table, tags, text)
        return table
