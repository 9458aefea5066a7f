"""The records and the layering of lexicons (see :mod:`inflect.lexicon`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple, Protocol, runtime_checkable

from inflect.text.records import TagBundle

__all__ = [
    "SHARED_TASK_SOURCE",
    "Attestation",
    "Lexicon",
    "LexiconError",
    "Lexicons",
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


class Lexicons:
    """Lexicons asked in order; every layer that holds an input adds its forms.

    ``Lexicons([FileLexicon(["mine.tsv"]), *field_dictionaries(), UniMorphLexicon(),
    ShippedLexicon()])`` (what :func:`inflect.lexicon.load_lexicons` builds): the user's forms
    first, then the field dictionaries', UniMorph's and the shared-task data's, each form once
    (at its first place), with the sources that attest it joined by ``; ``. Where two layers
    disagree, both forms are listed and the earlier layer's comes first.

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
        """Every layer's forms of the input, in layer order, each form once with the sources
        that attest it (see :meth:`Lexicon.lookup`); counted in :attr:`answered`."""
        self.asked += 1
        forms: dict[str, list[str]] = {}
        first = None
        for layer in self.layers:
            for found in layer.lookup(language, lemma, tags):
                first = first or layer.name
                sources = forms.setdefault(found.form, [])
                if found.source not in sources:
                    sources.append(found.source)
        if first is not None:
            self.answered[first] += 1
        return tuple(Attestation(form, "; ".join(sources)) for form, sources in forms.items())

    def languages(self) -> frozenset[str]:
        """The languages any layer holds."""
        return frozenset().union(*(layer.languages() for layer in self.layers))
