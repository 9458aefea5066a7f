"""Field dictionaries: inflection libraries people already use, as lexicons, where installed.

Each adapter (:class:`FieldDictionary`) wraps one installed library and answers for its
languages only (:mod:`inflect.lexicon.dictionaries` lists those installed): ``pymorphy3``
(Russian, Ukrainian, each where its dictionary package is installed;
:mod:`inflect.lexicon.field_pymorphy`), ``lemminflect`` (English;
:mod:`inflect.lexicon.field_lemminflect`), ``german-nouns`` (German nouns;
:mod:`inflect.lexicon.field_german_nouns`) and ``verbecc`` 1.10 (French, Italian and Spanish
verbs; :mod:`inflect.lexicon.field_verbecc`; Portuguese verbs:
:mod:`inflect.lexicon.field_verbecc_more`), ``ablaut`` (German verbs it stores;
:mod:`inflect.lexicon.field_ablaut`) and ``morfeusz2`` (Polish nouns, adjectives and verbs;
:mod:`inflect.lexicon.field_morfeusz`). The library is
imported, and its data loaded, at the first lookup of one of its languages (a German query never
loads pymorphy3). Only the dictionary's own entries answer: a library's guesser for unknown words
(pymorphy3's predictor, verbecc's classifier, lemminflect's rules) is never asked, so an answer is
always a written form.

Each adapter maps the library's analyses to the UniMorph tag bundles the language's shared-task
files use, by a table at the top of its module; ``recipes/dictionaries/agreement.py`` measures how
often the result agrees with the language's train and dev files, and
``tests/test_dictionary_fidelity.py`` holds every adapter to it (at least 98.5% of the pairs it
holds with the data's form among its forms, 97.5% with it first). A library that writes its forms
in lower case gets the lemma's letter case carried into them (:func:`carry_case`), or does not
answer; an adapter that finds a lemma under another spelling says so in its :class:`Entry`. No data of the libraries is
copied into this package (their licences: CC BY-SA data, LGPL code): they are used as installed.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
from collections import OrderedDict
from typing import Any, ClassVar, NamedTuple

from inflect.lexicon.core import APOSTROPHES, Attestation, fold_apostrophes, lemma_key
from inflect.text.records import TagBundle

__all__ = [
    "APOSTROPHES",
    "PERSONS",
    "Entry",
    "FieldDictionary",
    "Paradigm",
    "add_form",
    "carry_case",
    "cased",
    "fold_apostrophes",
    "letter_case",
    "split_alternatives",
]

#: The six persons in the order conjugation tables list them (verbecc's lists).
PERSONS = ("1;SG", "2;SG", "3;SG", "1;PL", "2;PL", "3;PL")

#: A lemma's paradigm as a dictionary gives it: bundle -> its forms, the preferred one first.
Paradigm = dict[TagBundle, list[str]]

_CACHED_LEMMAS = 4096


class Entry(NamedTuple):
    """A lemma as a dictionary lists it.

    Attributes:
        listed: the lemma as the dictionary writes it, in the letter case of the lemma asked
            (``пёс`` for ``пес``; ``Москва`` for ``Москва``); it differs from the lemma asked
            where the dictionary found it under another spelling (``ё`` for ``е``).
        table: its paradigm in the bundles of the shared-task data (forms in the lemma's letter
            case, each bundle's preferred form first).
    """

    listed: str
    table: Paradigm




def split_alternatives(text: str) -> list[str]:
    """The forms a library writes as one string of alternatives separated by ``/``
    (``scommessero/scommisero`` -> two forms), each once, in the library's order; empty parts
    dropped."""
    return list(dict.fromkeys(part.strip() for part in text.split("/") if part.strip()))


def letter_case(text: str) -> str:
    """``lower``, ``title`` (``Москва``, ``Санкт-Петербург``: each hyphenated part capitalised),
    ``upper`` (``ЗАГС``: two cased letters at least, all capitals) or ``mixed`` (``MiST``,
    ``Ростов-на-Дону``): the letter case of a lemma."""
    parts = {_case_of(part) for part in text.split("-") if part}
    return parts.pop() if len(parts) == 1 else "mixed" if parts else "lower"


def _case_of(part: str) -> str:
    letters = [c for c in part if c.lower() != c.upper()]
    if all(c.islower() for c in letters):
        return "lower"
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return "upper"
    if letters[0].isupper() and all(c.islower() for c in letters[1:]):
        return "title"
    return "mixed"


def _carry_part(lemma: str, form: str, abbreviation: bool) -> str | None:
    case = _case_of(lemma) if lemma else "lower"
    if case == "lower":
        return form
    if case == "title":
        return form[:1].upper() + form[1:]
    shared = 0
    while shared < min(len(lemma), len(form)) and lemma[shared].lower() == form[shared]:
        shared += 1
    if case == "upper":  # ЗАГС -> ЗАГСы (an abbreviation's ending), МОСКВА -> МОСКВЫ
        return form[:shared].upper() + form[shared:] if abbreviation else form.upper()
    if any(c.isupper() for c in lemma[shared:]):  # a capital the form has no place for
        return None
    head = zip(lemma[:shared], form[:shared], strict=True)
    return "".join(c.upper() if c.isupper() else f for c, f in head) + form[shared:]


def carry_case(lemma: str, form: str, abbreviation: bool = False) -> str | None:
    """``form`` (written in lower case by the dictionary) in the letter case of ``lemma``, the
    lemma as asked, part by part where both are hyphenated alike (``Санкт-Петербург``:
    ``санкт-петербурга`` -> ``Санкт-Петербурга``).

    A part in lower case leaves the form's part as it is; a capitalised one capitalises it; one
    in capitals writes it in capitals (``МОСКВА`` -> ``МОСКВЫ``), or, for an ``abbreviation``,
    the letters it shares with the lemma (``ЗАГС`` -> ``ЗАГСы``); mixed case (``MiST``) is copied
    letter by letter over the letters the form shares with the lemma.

    Returns:
        The form, or None where the lemma's case cannot be carried (a capital beyond what the
        form shares with it, or parts hyphenated differently): then the dictionary does not
        answer.
    """
    form = form.lower()
    if lemma == lemma.lower():
        return form
    lemma_parts, form_parts = lemma.split("-"), form.split("-")
    if len(lemma_parts) != len(form_parts):
        if len(lemma_parts) > 1:
            return None
        lemma_parts, form_parts = [lemma], [form]
    out = [_carry_part(a, b, abbreviation) for a, b in zip(lemma_parts, form_parts, strict=True)]
    return None if any(part is None for part in out) else "-".join(out)  # type: ignore[arg-type]


class FieldDictionary:
    """One library as a lexicon (one layer of :class:`~inflect.lexicon.Lexicons`).

    A subclass sets :attr:`library` (the distribution, whose version names every answer),
    :attr:`module` (what is imported), :attr:`codes` (shared-task language name -> the library's
    code for it) and implements :meth:`load` and :meth:`paradigm` (or :meth:`entry_of`, where
    the dictionary finds a lemma under another spelling). Entries are cached per lemma and
    part of speech (the last 4,096).

    Attributes:
        name: the library's name (``pymorphy3``), as predict's report names it.
    """

    library: str = ""
    module: str = ""
    codes: ClassVar[dict[str, str]] = {}
    #: UniMorph part-of-speech features the dictionary covers (others are not looked up).
    parts_of_speech: frozenset[str] = frozenset()
    #: True where the library writes its forms in lower case whatever the lemma's case: the
    #: lemma's case is then carried into every form (:func:`carry_case`), or, where it cannot
    #: be, the form is not given.
    lower_case: bool = False

    def __init__(self) -> None:
        self.name = self.library
        self._backends: dict[str, Any] = {}
        self._entries: OrderedDict[tuple[str, str, str], Entry | None] = OrderedDict()
        self._version: str | None = None

    @classmethod
    def available(cls) -> bool:
        """True where the library is installed (found without importing it)."""
        try:
            return importlib.util.find_spec(cls.module) is not None
        except (ImportError, ValueError):
            return False

    def version(self) -> str:
        """The installed library's version (``2.0.6``)."""
        if self._version is None:
            self._version = importlib.metadata.version(self.library)
        return self._version

    def source(self, language: str) -> str:
        """How an answer names the dictionary: the library and its version (and a subclass's
        data version)."""
        return f"{self.library} {self.version()}"

    def languages(self) -> frozenset[str]:
        """The shared-task names of the languages it answers for."""
        return frozenset(self.codes)

    def load(self, code: str) -> Any:
        """Import the library and load its data for the language ``code`` (called once per
        language, at its first lookup)."""
        raise NotImplementedError

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        """The forms of ``lemma`` (part of speech ``pos``, a UniMorph feature) in the bundles
        of the shared-task data; empty where the dictionary does not hold it."""
        raise NotImplementedError

    def entry_of(self, backend: Any, language: str, lemma: str, pos: str) -> Entry | None:
        """``lemma`` (part of speech ``pos``) as the dictionary lists it, or None where it does
        not: by default the :meth:`paradigm` of the lemma as asked, with the lemma's letter
        case carried into its forms where the library writes them in lower case
        (:attr:`lower_case`)."""
        table = self.paradigm(backend, language, lemma.lower() if self.lower_case else lemma,
                              pos)
        if self.lower_case:
            table = cased(table, lemma)
        return Entry(lemma, table) if table else None

    def entry(self, language: str, lemma: str, pos: str) -> Entry | None:
        """``lemma`` as the dictionary lists it for the part of speech ``pos`` (a UniMorph
        feature: ``N``, ``V``, ...), or None: another language, another part of speech, a lemma
        it does not list (cached; the library is loaded at its language's first lookup)."""
        code = self.codes.get(language) if language in self.languages() else None
        if code is None or pos not in self.parts_of_speech:
            return None
        key = (language, lemma, pos)
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key]
        backend = self._backends.get(code)
        if backend is None:
            backend = self._backends[code] = self.load(code)
        found = self.entry_of(backend, language, lemma, pos)
        self._entries[key] = found
        if len(self._entries) > _CACHED_LEMMAS:
            self._entries.popitem(last=False)
        return found

    def part_of_speech(self, tags: TagBundle) -> str | None:
        """The part of speech of ``tags`` that the dictionary covers (``V`` for ``V.PTCP;PST``),
        or None."""
        return next((f.split(".")[0] for f in tags.multiset
                     if f.split(".")[0] in self.parts_of_speech), None)

    def lookup(self, language: str, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """The dictionary's forms of the input (see :class:`~inflect.lexicon.Lexicon`); empty
        for another language, another part of speech, or a lemma it does not hold."""
        pos = self.part_of_speech(tags)
        found = self.entry(language, lemma, pos) if pos is not None else None
        if found is None:
            return ()
        source = self.source(language)
        forms = dict.fromkeys(lemma_key(language, f) for f in found.table.get(tags, ()))
        return tuple(Attestation(form, source) for form in forms)


def cased(table: Paradigm, lemma: str, abbreviation: bool = False) -> Paradigm:
    """``table`` with ``lemma``'s letter case carried into each form (:func:`carry_case`); a
    form it cannot be carried into is left out, and a bundle left without forms with it."""
    out: Paradigm = {}
    for tags, forms in table.items():
        kept = [f for f in (carry_case(lemma, form, abbreviation) for form in forms) if f]
        if kept:
            out[tags] = list(dict.fromkeys(kept))
    return out


#: The adapters' bundles, parsed once each (a paradigm's table has tens of them, each built
#: for every lemma looked up; the bundles are only the tables' keys, never changed).
_bundle = functools.lru_cache(maxsize=4096)(TagBundle.parse)


def add_form(table: Paradigm, tags: str, form: str) -> None:
    """Add ``form`` to ``table`` under the bundle ``tags`` (once, after the forms there)."""
    forms = table.setdefault(_bundle(tags), [])
    if form and form not in forms:
        forms.append(form)
