"""Building the layers ``inflect predict`` consults: the user's lexicon files, then the shipped one."""

from __future__ import annotations

import os
from collections.abc import Sequence

from inflect.lexicon.core import Lexicon, Lexicons
from inflect.lexicon.files import FileLexicon
from inflect.lexicon.store import ShippedLexicon


def load_lexicons(
    files: Sequence[str | os.PathLike[str]] = (),
    *,
    shipped: bool = True,
    language: str | None = None,
    store: str | os.PathLike[str] | None = None,
) -> Lexicons:
    """The lexicons of ``inflect predict``: the user's files (one layer, read now), then the
    shipped lexicon (read lazily, one language at a time).

    Args:
        files: the user's lexicon files (see :class:`~inflect.lexicon.FileLexicon`).
        shipped: consult the shipped lexicon after them.
        language: the language of files whose name does not give one.
        store: the shipped store (default :data:`~inflect.lexicon.SHIPPED_STORE`).

    Raises:
        DataFormatError: a malformed line (``FILE:LINE: what (value)``).
        LexiconError: a file of no known language; a missing or broken store.
        OSError: a file that cannot be read.
    """
    layers: list[Lexicon] = []
    if files:
        layers.append(FileLexicon(files, language=language))
    if shipped:
        layers.append(ShippedLexicon(store))
    return Lexicons(layers)
