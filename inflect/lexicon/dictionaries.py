"""The field dictionaries this version reads, and those installed here (see
:mod:`inflect.lexicon.field`)."""

from __future__ import annotations

from inflect.lexicon.field import FieldDictionary
from inflect.lexicon.field_ablaut import Ablaut
from inflect.lexicon.field_german_nouns import GermanNouns
from inflect.lexicon.field_lemminflect import LemmInflect
from inflect.lexicon.field_morfeusz import Morfeusz
from inflect.lexicon.field_pymorphy import Pymorphy
from inflect.lexicon.field_verbecc import Verbecc

__all__ = ["ADAPTERS", "field_dictionaries", "installed_dictionaries"]

#: Every adapter, in the order their forms are listed (one language has one at most today).
ADAPTERS: tuple[type[FieldDictionary], ...] = (
    LemmInflect,
    Pymorphy,
    GermanNouns,
    Verbecc,
    Ablaut,
    Morfeusz,
)


def installed_dictionaries() -> list[type[FieldDictionary]]:
    """The adapters whose library is installed (found without importing it), in order."""
    return [cls for cls in ADAPTERS if cls.available()]


def field_dictionaries() -> list[FieldDictionary]:
    """One lexicon per installed field dictionary (nothing is imported or loaded yet)."""
    return [cls() for cls in installed_dictionaries()]
