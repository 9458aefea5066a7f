"""Field dictionaries: inflection libraries people already use, as lexicons, where installed.

Each adapter (:class:`FieldDictionary`) wraps one installed library and answers for its
languages only (:mod:`inflect.lexicon.dictionaries` lists those installed): ``pymorphy3``
(Russian, Ukrainian, each where its dictionary package is installed;
:mod:`inflect.lexicon.field_pymorphy`), ``lemminflect`` (English;
:mod:`inflect.lexicon.field_lemminflect`), ``german-nouns`` (German nouns;
:mod:`inflect.lexicon.field_german_nouns`) and ``verbecc`` 1.10 (French, Italian and Spanish
verbs; :mod:`inflect.lexicon.field_verbecc`; its Catalan, Portuguese and Romanian tables have no
mapping here yet). The library is
imported, and its data loaded, at the first lookup of one of its languages (a German query never
loads pymorphy3). Only the dictionary's own entries answer: a library's guesser for unknown words
(pymorphy3's predictor, verbecc's classifier, lemminflect's rules) is never asked, so an answer is
always a written form.

Each adapter maps the library's analyses to the UniMorph tag bundles the language's shared-task
files use, by a table at the top of its module; ``recipes/dictionaries/agreement.py`` measures how
often the result agrees with the language's train and dev files. No data of the libraries is
copied into this package (their licences: CC BY-SA data, LGPL code): they are used as installed.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
from collections import OrderedDict
from typing import Any, ClassVar

from inflect.lexicon.core import Attestation, lemma_key
from inflect.text.records import TagBundle

__all__ = ["FieldDictionary", "Paradigm", "add_form"]

#: A lemma's paradigm as a dictionary gives it: bundle -> its forms, the preferred one first.
Paradigm = dict[TagBundle, list[str]]

_CACHED_LEMMAS = 4096


class FieldDictionary:
    """One library as a lexicon (one layer of :class:`~inflect.lexicon.Lexicons`).

    A subclass sets :attr:`library` (the distribution, whose version names every answer),
    :attr:`module` (what is imported), :attr:`codes` (shared-task language name -> the library's
    code for it) and implements :meth:`load` and :meth:`paradigm`. Paradigms are cached per
    lemma (the last 4,096).

    Attributes:
        name: the library's name (``pymorphy3``), as predict's report names it.
    """

    library: str = ""
    module: str = ""
    codes: ClassVar[dict[str, str]] = {}
    #: UniMorph part-of-speech features the dictionary covers (others are not looked up).
    parts_of_speech: frozenset[str] = frozenset()

    def __init__(self) -> None:
        self.name = self.library
        self._backends: dict[str, Any] = {}
        self._paradigms: OrderedDict[tuple[str, str, str], Paradigm] = OrderedDict()
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

    def lookup(self, language: str, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """The dictionary's forms of the input (see :class:`~inflect.lexicon.Lexicon`); empty
        for another language, another part of speech, or a lemma it does not hold."""
        code = self.codes.get(language) if language in self.languages() else None
        pos = next((f for f in tags.multiset if f.split(".")[0] in self.parts_of_speech), None)
        if code is None or pos is None:
            return ()
        key = (language, lemma, pos.split(".")[0])
        table = self._paradigms.get(key)
        if table is None:
            backend = self._backends.get(code)
            if backend is None:
                backend = self._backends[code] = self.load(code)
            table = self.paradigm(backend, language, lemma, key[2])
            self._paradigms[key] = table
            if len(self._paradigms) > _CACHED_LEMMAS:
                self._paradigms.popitem(last=False)
        else:
            self._paradigms.move_to_end(key)
        source = self.source(language)
        forms = dict.fromkeys(lemma_key(language, f) for f in table.get(tags, ()))
        return tuple(Attestation(form, source) for form in forms)


#: The adapters' bundles, parsed once each (a paradigm's table has tens of them, each built
#: for every lemma looked up; the bundles are only the tables' keys, never changed).
_bundle = functools.lru_cache(maxsize=4096)(TagBundle.parse)


def add_form(table: Paradigm, tags: str, form: str) -> None:
    """Add ``form`` to ``table`` under the bundle ``tags`` (once, after the forms there)."""
    forms = table.setdefault(_bundle(tags), [])
    if form and form not in forms:
        forms.append(form)
