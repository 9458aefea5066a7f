"""Russian and Ukrainian from ``pymorphy3`` and its dictionaries (``pymorphy3-dicts-ru``,
OpenCorpora; ``pymorphy3-dicts-uk``, VESUM): the lexeme of a dictionary word, its OpenCorpora
grammemes mapped to the UniMorph bundles of the shared-task files.

Only analyses by the dictionary itself count (pymorphy3's guesses for unknown words are left out),
and only the lexemes whose normal form is the lemma, found as people type it:

- letter case: pymorphy3 writes every word in lower case; the lemma's case is carried into the
  forms (:func:`inflect.lexicon.field.carry_case`: ``Санкт-Петербург`` -> ``Санкт-Петербурга``,
  ``МОСКВА`` -> ``МОСКВЫ``; an abbreviation or an organisation's name, ``Abbr`` or ``Orgn``,
  keeps its ending in lower case: ``ЗАГС`` -> ``ЗАГСы``, ``СМЕРШ`` -> ``СМЕРШе``). A lemma in lower case is
  answered from common nouns only, a capitalised one from proper names only (``Name``,
  ``Surn``, ``Patr``, ``Geox``, ``Orgn``, ``Trad``): the indeclinable surname ``Горобець`` stays
  out of ``горобець`` (a sparrow: ``горобця``), and the other way round;
- spelling: the apostrophes of Ukrainian (’ ʼ ') are one for the lookup, and ``е`` finds a
  lemma the dictionary writes with ``ё`` (``пес`` -> ``пёс``; a lemma written so is preferred);
  the forms are written as the dictionary writes them (``пса``), with the apostrophe the
  Ukrainian data write (U+2019: ``м’яса``), and the lemma as listed (:class:`~inflect.lexicon.
  field.Entry`) says which word answered;
- forms the dictionary marks as no form of the language are left out: a hypothetical form
  (``Hypo``: ``побежу``, the 1st person singular future that ``победить`` does not have), an
  error or distortion (``Erro``, ``Dist``), and an abbreviated form of a word that is not an
  abbreviation (``е`` for ``есть``).

The mapping:

============================  ============================================================
pymorphy3 (OpenCorpora)       UniMorph bundle of the 2018 files
============================  ============================================================
NOUN case, number             ``N;<case>;<number>``
ADJF case, gender|plur        ``ADJ;<case>;<gender>;SG`` / ``ADJ;<case>;PL``, with ``ANIM`` or
                              ``INAN`` in the accusative where the form has it
ADJS gender|plur              ``ADJ;<gender>;SG;LGSPEC1`` / ``ADJ;PL;LGSPEC1`` (short form)
INFN (ru), VERB infn (uk)     ``V;NFIN`` (the lemma itself first); the Ukrainian
                              dictionary writes some infinitives with the case the verb governs
                              and no ``infn`` (``могти``: ``rv_accs``): those too
VERB indc past                ``V;PST;<gender>;SG`` / ``V;PST;PL``
VERB indc pres / futr         ``V;PRS;<person>;<number>`` / ``V;FUT;<person>;<number>``
imperfective future           ``V;FUT;<person>;<number>``: ``буду`` + the imperfective infinitive
                              (ru, uk), first, then the synthetic forms (Ukrainian ``бачитиму``;
                              the perfective ``воздействую`` of a verb of both aspects, whose
                              aspect pymorphy3 gives form by form); none for the auxiliary's own
                              verb (``быть``: ``буду``)
VERB impr excl / incl         ``V;IMP;2;<number>`` / ``V;IMP;1;PL`` (``отмахнём``)
GRND pres / past              ``V.CVB;PRS`` / ``V.CVB;PST``
PRTF voice, tense (nomn masc  ``V.PTCP;<voice>;<tense>`` (the citation form of the participle)
sing)
============================  ============================================================

Where the Ukrainian dictionary (VESUM) gives two endings of one bundle, it lists them in an order
that is no preference; they are put in the order of the grammar's preference (and of the 2018
data, which agree with it on 1,100 of 1,160 such pairs):

==============================  ===========================================================
bundle                          first
==============================  ===========================================================
``N;DAT;SG`` (masculine)        a person or animal: ``-ові/-еві/-єві`` (``ішакові``); a thing:
                                ``-у/-ю`` (``принципу``)
``N;ESS;SG`` (masculine)        a person or animal: ``-ові``; a thing: ``-і/-ї`` (``дощі``),
                                then ``-у/-ю`` (``соку``), then ``-ові``
``ADJ;ESS;SG`` (masc., neut.)   the full ending ``-ому/-ьому`` before the short ``-ім``
``V;IMP;1;PL``                  the full ``-імо/-мо`` (``зробімо``) before the short ``-ім``
==============================  ===========================================================

each lexeme by its own animacy, a living being's before a homonym that is not one (``комар``).

Cases ``nomn gent datv accs ablt loct voct`` are ``NOM GEN DAT ACC INS ESS VOC``; the second
genitive and locative (``gen2``, ``loc2``), comparatives, superlatives (``Supr``) and
impersonal forms have no bundle in the shared-task files and are left out. Variant forms
(``V-oy``: ``красною``) follow the main form of their bundle.
"""

from __future__ import annotations

from typing import Any, ClassVar

from inflect.lexicon.field import (
    Entry,
    FieldDictionary,
    Paradigm,
    add_form,
    carry_case,
    fold_apostrophes,
    letter_case,
)
from inflect.text.records import TagBundle

__all__ = ["CASES", "FUTURE_AUXILIARY", "NOT_A_FORM", "PROPER", "Pymorphy"]

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
#: The grammemes of a proper name's lexeme (OpenCorpora; VESUM's as pymorphy3 reads them).
PROPER = frozenset({"Name", "Surn", "Patr", "Geox", "Orgn", "Trad"})
#: The grammemes of a form that is no form of the language: hypothetical, an error, a distortion.
NOT_A_FORM = frozenset({"Hypo", "Erro", "Dist"})
_INFINITIVE = TagBundle.parse("V;NFIN")
#: The apostrophe each language's shared-task data write (pymorphy3's dictionaries write U+0027).
DATA_APOSTROPHE = {"ukrainian": "\u2019"}


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
    if (pos == "VERB" and any(g.startswith("rv_") for g in grammemes)  # VESUM's infinitive of
            and not tag.tense and not tag.person and "impr" not in grammemes):  # a governing verb
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

    def entry_of(self, backend: Any, language: str, lemma: str, pos: str) -> Entry | None:
        lexemes = _lexemes(backend, fold_apostrophes(lemma), pos)
        if not lexemes:
            return None
        if language == "ukrainian":  # a living being's lexeme before a homonym that is not one
            lexemes.sort(key=lambda p: "anim" not in p.tag.grammemes)  # (комар): its forms lead
        table: Paradigm = {}
        analytic: Paradigm = {}  # the imperfective future, first in its bundles
        for parse in lexemes:
            for tags, forms in self._lexeme(parse, language, lemma, analytic).items():
                for form in forms:
                    add_form(table, tags.text, form)
        for tags, forms in analytic.items():
            table[tags] = [*forms, *(f for f in table.get(tags, ()) if f not in forms)]
        infinitive = table.get(_INFINITIVE)
        if infinitive and lemma in infinitive:  # the citation form first (бути before буть)
            table[_INFINITIVE] = [lemma, *(f for f in infinitive if f != lemma)]
        listed = carry_case(lemma, lexemes[0].normal_form) or lemma
        return Entry(listed.replace("'", DATA_APOSTROPHE.get(language, "'")), table) \
            if table else None

    @staticmethod
    def _lexeme(parse: Any, language: str, lemma: str, analytic: Paradigm) -> Paradigm:
        """The forms of one lexeme in the lemma's letter case (Ukrainian variants in the
        grammar's order); its imperfective future is added to ``analytic``."""
        apostrophe = DATA_APOSTROPHE.get(language, "'")
        abbreviation = bool({"Abbr", "Orgn"} & set(parse.tag.grammemes))
        lexeme = parse.lexeme
        auxiliary = set(FUTURE_AUXILIARY[language].values())
        own_future = any(f.word in auxiliary and f.tag.tense == "futr" for f in lexeme)
        table: Paradigm = {}
        for form in lexeme:
            grammemes = set(form.tag.grammemes)
            if grammemes & NOT_A_FORM or ("Abbr" in grammemes
                                           and "Abbr" not in parse.tag.grammemes):
                continue
            tags = unimorph_bundle(form.tag)
            text = carry_case(lemma, form.word, abbreviation)
            if tags is None or text is None:
                continue
            text = text.replace("'", apostrophe)
            if tags == "V;NFIN" and form.tag.aspect == "impf" and not own_future:
                for (person, number), aux in FUTURE_AUXILIARY[language].items():
                    add_form(analytic, f"V;FUT;{person};{number}", f"{aux} {text}")
            add_form(table, tags, text)
        if language == "ukrainian":
            _preferred(table, "anim" in parse.tag.grammemes)
        return table


def _lexemes(backend: Any, word: str, pos: str) -> list[Any]:
    """pymorphy3's dictionary analyses of ``word`` whose normal form is ``word`` (up to ``ё``
    written ``е``, a lemma written as asked preferred), of a part of speech of ``pos``, one per
    paradigm; a lemma in lower case finds common words only, a capitalised one proper names
    only (see the module's docstring)."""
    import pymorphy3.units

    case = letter_case(word)
    key = word.lower()
    found: dict[int, Any] = {}
    for parse in backend.parse(key):
        stack = parse.methods_stack
        if (parse.tag.POS not in _POS[pos] or len(stack) != 1
                or not isinstance(stack[0][0], pymorphy3.units.DictionaryAnalyzer)
                or _yo(parse.normal_form) != _yo(key)):
            continue
        proper = bool(PROPER & set(parse.tag.grammemes))
        if (case == "lower" and proper) or (case == "title" and not proper):
            continue
        found.setdefault(stack[0][2], parse)  # the paradigm's id: each lexeme once
    return [p for p in found.values() if p.normal_form == key] or list(found.values())


#: Ukrainian endings in the order of preference per bundle (see the module's docstring): each
#: form ranks by the longest ending of the list it ends with (none: after them).
_UKRAINIAN_ORDER = {
    ("N;DAT;SG", True): ("ові", "еві", "єві", "у", "ю"),
    ("N;DAT;SG", False): ("у", "ю", "ові", "еві", "єві"),
    ("N;ESS;SG", True): ("ові", "еві", "єві", "у", "ю", "і", "ї"),
    ("N;ESS;SG", False): ("і", "ї", "у", "ю", "ові", "еві", "єві"),
    ("ADJ;ESS;MASC;SG", None): ("ому", "ім", "їм"),
    ("ADJ;ESS;NEUT;SG", None): ("ому", "ім", "їм"),
    ("V;IMP;1;PL", None): ("мо", "м"),
}


def _preferred(table: Paradigm, animate: bool) -> None:
    """Order the forms of the bundles of :data:`_UKRAINIAN_ORDER` by the grammar's preference
    (a stable sort: forms of one ending keep the dictionary's order)."""
    for (name, anim), endings in _UKRAINIAN_ORDER.items():
        if anim is not None and anim != animate:
            continue
        tags = TagBundle.parse(name)
        forms = table.get(tags)
        if forms and len(forms) > 1:
            table[tags] = sorted(forms, key=lambda f, e=endings: _rank(f, e))


def _rank(form: str, endings: tuple[str, ...]) -> int:
    """The place of ``form``'s ending among ``endings`` (its longest ending listed: ``дощеві``
    ends in ``-еві``, not ``-і``); after them where none is listed."""
    ending = max((e for e in endings if form.endswith(e)), key=len, default=None)
    return endings.index(ending) if ending is not None else len(endings)


def _yo(text: str) -> str:
    return text.replace("ё", "е")
