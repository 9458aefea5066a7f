"""The records and the layering of lexicons (see :mod:`inflect.lexicon`)."""

from __future__ import annotations

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
            (english-train-high:1234)`` for the shipped lexicon.
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
    """Lexicons asked in order: the first that holds an input answers it alone.

    ``Lexicons([FileLexicon(["mine.tsv"]), ShippedLexicon()])``: the user's forms replace the
    shipped ones for the inputs the user's file holds; the others are answered by the shipped
    lexicon.

    Args:
        layers: the lexicons, the one that takes precedence first.
    """

    def __init__(self, layers: Iterable[Lexicon]) -> None:
        self.layers: tuple[Lexicon, ...] = tuple(layers)
        self.name = " + ".join(layer.name for layer in self.layers) or "no lexicon"

    def __bool__(self) -> bool:
        return bool(self.layers)

    def lookup(self, language: str, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """The answer of the first layer that holds the input (see :meth:`Lexicon.lookup`)."""
        for layer in self.layers:
            found = layer.lookup(language, lemma, tags)
            if found:
                return found
        return ()

    def languages(self) -> frozenset[str]:
        """The languages any layer holds."""
        return frozenset().union(*(layer.languages() for layer in self.layers))
