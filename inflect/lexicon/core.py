"""The records and the layering of lexicons (see :mod:`inflect.lexicon`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple, Protocol, runtime_checkable

from inflect.text.records import TagBundle

__all__ = [
    "APOSTROPHES",
    "SHARED_TASK_SOURCE",
    "Attestation",
    "Consultation",
    "Lexicon",
    "LexiconError",
    "Lexicons",
    "fold_apostrophes",
    "lemma_key",
]

#: How the shipped lexicon names where its forms come from: ``shared-task data (FILE:LINE)``.
SHARED_TASK_SOURCE = "shared-task data"


class LexiconError(ValueError):
    """A lexicon that cannot be used: a file whose language is unknown, a missing or broken
    shipped store. (A malformed line is a :class:`inflect.text.records.DataFormatError`, naming the file
    and the line.)"""


class Attestation(NamedTuple):
    """One attested form.

    Attributes:
        form: the form, in the language's data normalisation.
        source: where it is written: ``FILE:LINE`` for a user's file, ``shared-task data
            (english-train-high:1234)`` for the shipped lexicon, the library and its version for
            a field dictionary (``lemminflect 0.2.3``), ``UniMorph eng 66e0e9e (eng:1234)`` for
            a UniMorph file (its commit, file and line); sources that attest the same form are
            joined by ``; `` (:class:`Lexicons`).
    """

    form: str
    source: str


class Consultation(NamedTuple):
    """What the lexicons say about one input (:meth:`Lexicons.consult`).

    Attributes:
        forms: the attested forms (:class:`Attestation`), the answer's first first.
        conflict: True where the sources disagree: two lexicons that hold the input share no
            form (``say V;PST``: lemminflect ``said``, the shared-task data ``sayed``); both
            forms are listed, the earlier lexicon's first.
        notes: what the user should know: the lemma was read as another spelling the
            dictionaries list (``haus`` as ``Haus``), or the dictionaries know it only as another
            part of speech than the tags ask (``Haus V;PST``).
        read_as: the spelling the answer is for where it is not the lemma as given (``Haus``
            for ``haus``, ``ребёнок`` for ``ребенок``), else None.
    """

    forms: tuple[Attestation, ...]
    conflict: bool = False
    notes: tuple[str, ...] = ()
    read_as: str | None = None


@runtime_checkable
class Lexicon(Protocol):
    """What the predictor asks of a lexicon."""

    #: A short name for messages (``words.tsv``, ``shared-task data``).
    name: str

    def lookup(self, language: str, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """The attested forms of ``lemma`` for the bundle ``tags`` in ``language`` (a shared-task
        name), in the order written; empty when none is attested. ``lemma`` is already in the
        language's data normalisation."""
        ...

    def languages(self) -> frozenset[str]:
        """The shared-task names of the languages it holds forms of."""
        ...


@lru_cache(maxsize=128)
def _spec(language: str):
    from inflect.text.languages import resolve

    return resolve(language)


def lemma_key(language: str, text: str) -> str:
    """``text`` (a lemma or form) in ``language``'s data normalisation
    (:meth:`~inflect.text.languages.LanguageSpec.normalize_input`): how lexicons and the model read it.

    Raises:
        UnknownLanguageError: no language has this name.
    """
    return _spec(language).normalize_input(text)


#: The apostrophes people type for one another (Ukrainian ``м’ясо``, ``мʼясо``, ``м'ясо``): the
#: right single quotation mark U+2019, the modifier letter apostrophe U+02BC and the ASCII
#: apostrophe U+0027 (and the grave accent and prime, typed for them); folded to U+0027 for a
#: lookup.
APOSTROPHES = "\u2019\u02bc'`\u2032"


def fold_apostrophes(text: str) -> str:
    """``text`` with every apostrophe of :data:`APOSTROPHES` written U+0027 (``м’ясо`` ->
    ``м'ясо``): how a lookup compares spellings that differ only in the apostrophe typed."""
    return text.translate(_APOSTROPHE_FOLD)


_APOSTROPHE_FOLD = str.maketrans(dict.fromkeys(APOSTROPHES, "'"))


def _spellings(lemma: str) -> list[str]:
    """The other capitalisations of ``lemma`` a user may have meant (``haus``: ``Haus``;
    ``Дом``: ``дом``; ``санкт-петербург``: ``Санкт-петербург``, ``Санкт-Петербург``)."""
    parts = lemma.split("-")
    found = [lemma.lower(), lemma[:1].upper() + lemma[1:].lower(),
             "-".join(p[:1].upper() + p[1:].lower() for p in parts)]
    return [s for s in dict.fromkeys(found) if s != lemma]


def _same_spelling(a: str, b: str) -> bool:
    return fold_apostrophes(a) == fold_apostrophes(b)


class Lexicons:
    """Lexicons asked in order; every layer that holds an input adds its forms.

    ``Lexicons([FileLexicon(["mine.tsv"]), *field_dictionaries(), UniMorphLexicon(),
    ShippedLexicon()])`` (what :func:`inflect.lexicon.load_lexicons` builds): the user's forms
    first, then the others', each form once with the sources that attest it joined by ``; ``.
    Among the forms of the other layers, a form that more independent sources attest comes
    first (the shared-task data confirm ``scommisero`` of verbecc's ``scommessero/scommisero``;
    UniMorph and the shared-task data sampled from it are one source: a layer's ``family``);
    between forms attested alike, the earlier layer's first. Where two layers share no form, both are
    listed and the input is marked as a conflict (:class:`Consultation`).

    A lemma that no field dictionary lists, but one lists under another capitalisation
    (``haus``: ``Haus``), or under the spelling a dictionary finds it by (``ребенок``:
    ``ребёнок``), is answered for the listed word, with a note (:meth:`consult`).

    Args:
        layers: the lexicons, the one whose forms come first first.

    Attributes:
        answered: per layer name, how many lookups its form came first in (the input was
            answered from it); ``asked``: how many lookups were made. Read by ``inflect predict``
            to say on stderr how many inputs each lexicon answered.
    """

    def __init__(self, layers: Iterable[Lexicon]) -> None:
        self.layers: tuple[Lexicon, ...] = tuple(layers)
        self.name = " + ".join(layer.name for layer in self.layers) or "no lexicon"
        self.answered: Counter[str] = Counter()
        self.asked = 0

    def __bool__(self) -> bool:
        return bool(self.layers)

    def lookup(self, language: str, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """Every layer's forms of the input (:meth:`consult`'s ``forms``)."""
        return self.consult(language, lemma, tags).forms

    def consult(self, language: str, lemma: str, tags: TagBundle) -> Consultation:
        """What the layers say about the input (see :class:`Consultation`), counted in
        :attr:`answered`.

        The lemma is looked up as given; where no field dictionary (a layer with an ``entry``
        method, :class:`inflect.lexicon.field.FieldDictionary`) lists it, each of its other
        capitalisations is tried, and the first a dictionary lists is answered for (every layer
        asked for it). A spelling that differs from the lemma only in its apostrophe
        (``м'ясо``, ``м’ясо``) is the same word and gets no note.
        """
        self.asked += 1
        dictionaries = [layer for layer in self.layers if hasattr(layer, "entry")]
        listed, by = self._listed(dictionaries, language, lemma, tags)
        spellings = [lemma]
        if listed is not None and listed != lemma:
            spellings.append(listed)
        found: dict[str, list[str]] = {}
        layers_of: dict[str, set[int]] = {}
        families: dict[str, set[str]] = {}  # the independent sources of each form
        held: list[set[str]] = []
        user = set()
        for index, layer in enumerate(self.layers):
            mine: set[str] = set()
            for spelling in spellings:
                for attested in layer.lookup(language, spelling, tags):
                    sources = found.setdefault(attested.form, [])
                    if attested.source not in sources:
                        sources.append(attested.source)
                    layers_of.setdefault(attested.form, set()).add(index)
                    families.setdefault(attested.form, set()).add(
                        getattr(layer, "family", layer.name))
                    mine.add(attested.form)
                    if getattr(layer, "user", False):
                        user.add(attested.form)
            if mine:
                held.append(mine)
        # the user's forms first, in the user's order; then by independent sources
        order = sorted(found, key=lambda f: (0, 0) if f in user else (1, -len(families[f])))
        forms = tuple(Attestation(form, "; ".join(found[form])) for form in order)
        if forms:
            self.answered[self.layers[min(layers_of[order[0]])].name] += 1
        conflict = any(not (a & b) for i, a in enumerate(held) for b in held[i + 1:])
        notes = []
        read_as = None
        if listed is not None and not _same_spelling(listed, lemma):
            read_as = listed
            notes.append(f"{lemma!r} is not listed as written: answered for {listed!r}, the "
                         f"spelling {by} lists (--strict refuses it)")
        if listed is None and not forms:
            notes.extend(self._other_parts_of_speech(dictionaries, language, lemma, tags))
        return Consultation(forms, conflict, tuple(notes), read_as)

    @staticmethod
    def _listed(dictionaries: list, language: str, lemma: str,
                tags: TagBundle) -> tuple[str | None, str | None]:
        """The lemma as the first dictionary that lists it writes it, and that dictionary's
        name; else its first other capitalisation a dictionary lists; else ``(None, None)``."""
        asked = [(d, d.part_of_speech(tags)) for d in dictionaries]
        asked = [(d, pos) for d, pos in asked if pos is not None and language in d.languages()]
        for spelling in (lemma, *_spellings(lemma)):
            for dictionary, pos in asked:
                entry = dictionary.entry(language, spelling, pos)
                if entry is not None:
                    return entry.listed, dictionary.name
        return None, None

    @staticmethod
    def _other_parts_of_speech(dictionaries: list, language: str, lemma: str,
                               tags: TagBundle) -> list[str]:
        """A note where a dictionary lists ``lemma`` (or another capitalisation of it) only as
        another part of speech than ``tags`` ask (``Haus V;PST``: german-nouns lists ``Haus``
        as a noun); none otherwise."""
        from inflect.text.unimorph import part_of_speech

        asked = part_of_speech(tags.multiset)
        asked = asked.split(".")[0] if asked else None
        for spelling in (lemma, *_spellings(lemma)):
            for dictionary in dictionaries:
                if language not in dictionary.languages():
                    continue
                other = sorted(p for p in dictionary.parts_of_speech if p != asked
                               and dictionary.entry(language, spelling, p) is not None)
                if other:
                    return [f"{spelling!r} is listed by {dictionary.name} as "
                            f"{' and '.join(_POS_NAMES.get(p, p) for p in other)}, not as "
                            f"{_POS_NAMES.get(asked, asked or 'the part of speech asked')} (the "
                            f"tags {tags.text}): the forms are the model's guesses"]
        return []

    def languages(self) -> frozenset[str]:
        """The languages any layer holds."""
        return frozenset().union(*(layer.languages() for layer in self.layers))


#: The parts of speech by name, for notes.
_POS_NAMES = {"N": "a noun (N)", "V": "a verb (V)", "ADJ": "an adjective (ADJ)",
              "ADV": "an adverb (ADV)"}
