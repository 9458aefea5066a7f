"""Building the layers ``inflect predict`` consults, in the order their forms are listed: the
user's lexicon files, the field dictionaries installed, the UniMorph languages installed, the
shipped lexicon of the shared-task data."""

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
    dictionaries: bool = True,
    unimorph: bool = True,
    data_dir: str | os.PathLike[str] | None = None,
) -> Lexicons:
    """The lexicons of ``inflect predict``, in the order their forms come: the user's files (one
    layer, read now), the field dictionaries whose library is installed
    (:func:`inflect.lexicon.dictionaries.field_dictionaries`, each loaded at the first lookup of one of
    its languages), the UniMorph languages installed (:class:`inflect.lexicon.unimorph.UniMorphLexicon`,
    each index opened at its first lookup), then the shipped lexicon (read lazily, one
    language at a time).

    Why this order: a user's file says what the user wants; a field dictionary is curated for
    its language by lexicographers; UniMorph is a newer release of the source the shared-task
    files were sampled from (with its later corrections); the shared-task files come last of
    the sources (they hold known errors, such as ``sayed``). Every source that holds an input
    adds its forms (:class:`Lexicons`), so a disagreement is shown, not hidden.

    Args:
        files: the user's lexicon files (see :class:`~inflect.lexicon.FileLexicon`).
        shipped: consult the shipped lexicon.
        language: the language of files whose name does not give one.
        store: the shipped store (default :data:`~inflect.lexicon.SHIPPED_STORE`).
        dictionaries: consult the installed field dictionaries.
        unimorph: consult the installed UniMorph languages (of ``data_dir``).
        data_dir: the data folder of UniMorph (default
            :func:`inflect.corpora.manifests.data_dir`).

    Raises:
        DataFormatError: a malformed line (``FILE:LINE: what (value)``).
        LexiconError: a file of no known language; a missing or broken store.
        OSError: a file that cannot be read.
    """
    layers: list[Lexicon] = []
    if files:
        layers.append(FileLexicon(files, language=language))
    if dictionaries:
        from inflect.lexicon.dictionaries import field_dictionaries

        layers += field_dictionaries()
    if unimorph:
        from inflect.lexicon.unimorph import UniMorphLexicon

        layers.append(UniMorphLexicon(data_dir))
    if shipped:
        layers.append(ShippedLexicon(store))
    return Lexicons(layers)
