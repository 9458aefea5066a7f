"""A user's lexicon: files of attested forms in the UniMorph layouts."""

from __future__ import annotations

import os
from collections.abc import Sequence

from inflect.lexicon.core import Attestation, LexiconError, lemma_key
from inflect.text.reading import language_of_file, read_inflections
from inflect.text.records import Format, TagBundle

__all__ = ["FileLexicon"]


def file_language(path: str | os.PathLike[str], language: str | None) -> str:
    """The language of a lexicon file: the one its name gives (``german.tsv``, ``de-words.tsv``,
    ``en-GB.tsv``, ``english_verbs.tsv``, ``german-train-high``:
    :func:`inflect.text.reading.language_of_file`), else ``language``.

    Raises:
        LexiconError: neither names a known language (the message says how to give one).
        UnknownLanguageError: ``language`` is not a known name.
    """
    return _file_language(path, language)[0]


def _file_language(path: str | os.PathLike[str], language: str | None) -> tuple[str, str | None]:
    """:func:`file_language`, and a note where the file name gave none and ``language`` was
    taken instead (None where the name gave it)."""
    try:
        return language_of_file(path), None
    except ValueError:
        if language:
            from inflect.text.languages import resolve

            name = resolve(language).name
            return name, (f"{path}: the file name names no language, so its forms are read as "
                          f"{name} (--lang); name it after its language (e.g. {name}.tsv)")
    raise LexiconError(
        f"{path}: the lexicon's language is taken from the file name (german.tsv, "
        "german-train-high), and this name gives none; rename the file or give the language "
        "(--lang)"
    )


class FileLexicon:
    """Attested forms read from files, all read at once (one layer of :class:`Lexicons`).

    Each file is ``lemma<TAB>form<TAB>tags`` (2018) or ``lemma<TAB>tags<TAB>form`` (2023), told
    apart by where the tag bundles are (:func:`inflect.text.layouts.detect_format`) unless ``fmt`` says;
    read by :func:`inflect.text.reading.read_inflections`: UTF-8, blank lines skipped, every other defect
    an error naming the file and the line. Lemmas and forms are brought to the language's data
    normalisation; the tag bundle is a :class:`~inflect.text.records.TagBundle` (order-free). Several
    forms of one input are all kept, in file order (the files in the order given); a form
    repeated for the same input is kept once, at its first line.

    Args:
        paths: the files.
        language: the language of files whose name gives none (:func:`file_language`).
        fmt: ``"auto"``, ``"2018"`` or ``"2023"``.

    Attributes:
        name: the files' names, joined by ``, ``.
        size: the number of attested (input, form) pairs held.
        notes: what a user should know about the files (a file read as ``language`` because
            its name names none).
        features: language -> UniMorph feature -> ``FILE:LINE`` of its first use (to check
            the features against the language's, :mod:`inflect.corpora.bundles`).

    Raises:
        DataFormatError: a malformed line (``FILE:LINE: what (value)``), or a file without forms
            (the covered layout, two fields).
        LexiconError: a file whose language is not known (see :func:`file_language`).
        OSError: a file that cannot be read.
    """

    #: A user's own forms: they come first in :class:`~inflect.lexicon.Lexicons`, whatever the
    #: other layers attest.
    user = True

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        *,
        language: str | None = None,
        fmt: Format = "auto",
    ) -> None:
        self.paths = tuple(str(p) for p in paths)
        self.name = ", ".join(self.paths)
        self._entries: dict[tuple[str, str, TagBundle], list[Attestation]] = {}
        self._languages: set[str] = set()
        self.size = 0
        self.notes: list[str] = []
        self.features: dict[str, dict[str, str]] = {}
        for path in self.paths:
            name, note = _file_language(path, language)
            if note is not None:
                self.notes.append(note)
            self._languages.add(name)
            used = self.features.setdefault(name, {})
            for example in read_inflections(path, name, fmt):
                for feature in example.tags.features:
                    used.setdefault(feature, f"{path}:{example.line}")
                key = (name, lemma_key(name, example.lemma), example.tags)
                form = lemma_key(name, example.form or "")
                found = self._entries.setdefault(key, [])
                if all(a.form != form for a in found):
                    found.append(Attestation(form, f"{path}:{example.line}"))
                    self.size += 1

    def lookup(self, language: str, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """The attested forms of the input, in file order (see :class:`Lexicon`)."""
        return tuple(self._entries.get((language, lemma, tags), ()))

    def languages(self) -> frozenset[str]:
        """The languages of the files."""
        return frozenset(self._languages)

    def attested_pairs(self, language: str) -> list[tuple[str, str, TagBundle]]:
        """Every ``(lemma, form, tags)`` of ``language`` in the files (a cell's first form):
        the paradigms of :class:`~inflect.inference.siblings.SiblingEvidence`."""
        return [(lemma, found[0].form, tags)
                for (name, lemma, tags), found in self._entries.items() if name == language]
