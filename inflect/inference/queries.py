"""Queries: one input of the predictor checked and read, and the form in which it is searched.

An inflection query is an :class:`inflect.text.records.Example` whose form is ignored: made from
typed text by :func:`make_query` (the lemma stripped of surrounding whitespace, the tag bundle
parsed as a multiset of UniMorph features, bytes that are not UTF-8 and control characters
refused), or read lazily from a file or standard input by :func:`read_queries` (the layouts of
:mod:`inflect.text.layouts`). A query the model cannot take raises :class:`InputError`. A
searcher (:class:`inflect.inference.searcher.Searcher`) turns each query into a
:class:`Prepared` input (the model's symbols, the codec that made them, the tag features, the
language) before it is searched.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from inflect.text.codec import Codec
from inflect.text.parsing import iter_examples
from inflect.text.records import (
    DataFormatError,
    Example,
    Format,
    TagBundle,
    control_problem,
    quoted,
)

__all__ = ["InputError", "Prepared", "clean_edges", "make_query", "read_queries", "strip_lemma"]


class InputError(ValueError):
    """A query the model cannot take: empty lemma, unknown feature, too long, unknown language.

    The message reads ``FILE:LINE: what (value)`` for an input read from a file, ``what (value)``
    otherwise; the parts are attributes.

    Attributes:
        what: what is wrong, in words.
        value: the offending text, or None.
        source: the file the input came from, or None.
        line: its 1-based line number, or None.
    """

    def __init__(
        self,
        what: str,
        value: str | None = None,
        source: str | None = None,
        line: int | None = None,
    ) -> None:
        self.what, self.value, self.source, self.line = what, value, source, line
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        shown = f" ({quoted(value)})" if value is not None else ""
        super().__init__(f"{where}{what}{shown}")


@dataclass
class Prepared:
    """A validated input as the model's symbols, ready to be searched.

    Attributes:
        query: the input as given (an :class:`~inflect.text.records.Example` for inflection, a
            :class:`~inflect.inference.translator.SentenceQuery` for translation).
        symbols: its source symbols (made by ``codec``).
        codec: the :class:`~inflect.text.codec.Codec` that made ``symbols``; it also turns output
            symbols back into text.
        features: the UniMorph features the model will see, sorted, repeats kept (the bundle's
            multiset; a model reading bundles as sets drops the repeats); empty without tags.
        language: the language name the model knows the input by, or None (no language symbol).
        direction: the writing direction of the source (``"ltr"`` or ``"rtl"``), for display.
        warnings: e.g. symbols unseen in training.
        unknown_features: the features of the bundle that a member of the model has not seen
            in training (sorted; read as the unknown feature, noted in ``warnings``), as
            ``prepare`` found them; ``()``: the model knows every one, so batching maps them to
            ids without a second test; None: not checked (batching tests each feature).
        asked: the tag bundle the model and the lexicons are asked, where the query's tags (as
            written) were read as another (UniMorph 4, UD, :mod:`inflect.text.dialects`); None:
            the query's own.
        attested: what the lexicons say about the input (an
            :class:`inflect.lexicon.Consultation`), looked up when it was prepared; None: not
            looked up (no lexicon, or a query that is not an inflection).
    """

    query: Any
    symbols: list[str]
    codec: Codec
    features: tuple[str, ...] = ()
    language: str | None = None
    direction: str = "ltr"
    warnings: list[str] = field(default_factory=list)
    unknown_features: tuple[str, ...] | None = None
    asked: TagBundle | None = None
    attested: Any = None


def make_query(lemma: str, tags: str | TagBundle, language: str | None = None) -> Example:
    """One input as an :class:`~inflect.text.records.Example` without a form.

    Args:
        lemma: the lemma as typed.
        tags: a tag bundle (``"N;DAT;PL"``) or a parsed :class:`~inflect.text.records.TagBundle`.
        language: any name or code of the language; None or ``""``: the model's only language.

    Raises:
        InputError: the tag bundle is malformed (empty, an empty feature, ...), or the lemma or
            the tag bundle holds bytes that are not UTF-8 (command-line arguments decoded with
            ``surrogateescape``) or a control character
            (:func:`inflect.text.records.control_problem`).
    """
    for what, text in (("lemma", lemma), ("tag bundle", tags)):
        if isinstance(text, str) and not text.isprintable() and _not_utf8(text):
            raise InputError(
                f"the {what} holds bytes that are not UTF-8 (is the terminal's encoding UTF-8?)",
                text,
            )
        text = text if isinstance(text, str) else text.text
        problem = control_problem(text, what)
        if problem is not None:
            raise InputError(problem, text)
    if not isinstance(tags, TagBundle):
        try:
            tags = TagBundle.parse(tags)
        except ValueError as exc:
            raise InputError(str(exc), tags) from None
    return Example(lemma=strip_lemma(lemma), tags=tags, form=None, language=language or "")


def _edge(ch: str) -> bool:
    """Whitespace, or an invisible format character (Unicode category Cf: a zero-width space
    U+200B, a direction mark U+200E/U+200F, a byte order mark U+FEFF, ...)."""
    import unicodedata

    return ch.isspace() or unicodedata.category(ch) == "Cf"


def clean_edges(text: str) -> str:
    """``text`` without whitespace and invisible format characters at its ends (``"\u200bHaus "``
    -> ``"Haus"``); inside it both are kept (``wandert aus``; a zero-width non-joiner inside a
    Persian word). No lemma or form of the shared task's data starts or ends with either."""
    start, end = 0, len(text)
    while start < end and _edge(text[start]):
        start += 1
    while end > start and _edge(text[end - 1]):
        end -= 1
    return text[start:end]


def strip_lemma(lemma: str) -> str:
    """The lemma of a query without surrounding whitespace and invisible format characters
    (:func:`clean_edges`: ``" Haus "`` and ``"\u200fHaus"`` -> ``"Haus"``): a space, a direction
    mark or a byte order mark typed or pasted around a lemma is no part of it (the model would
    read it as an unknown symbol and copy a neighbour: ``HHaus``).

    Raises:
        InputError: nothing is left (the lemma is empty, only whitespace or invisible).
    """
    stripped = clean_edges(lemma)
    if not stripped:
        raise InputError("empty lemma", lemma)
    return stripped


def _stripped(examples: Iterator[Example | DataFormatError]) -> Iterator[Example | DataFormatError]:
    """The queries of an input file with their lemmas stripped (:func:`clean_edges`); the tag
    bundle's surrounding whitespace is already removed by its parser."""
    for example in examples:
        if isinstance(example, Example) and example.lemma != clean_edges(example.lemma):
            example = dataclasses.replace(example, lemma=clean_edges(example.lemma))
        yield example


def _not_utf8(text: str) -> bool:
    """True for text holding lone surrogates: bytes that were not UTF-8 (``surrogateescape``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def read_queries(
    path: str | os.PathLike[str],
    language: str | None = None,
    fmt: Format = "auto",
    on_blank: Callable[[str, int], None] | None = None,
    errors: Literal["raise", "yield"] = "raise",
    on_header: Callable[[str, int, str], None] | None = None,
) -> Iterator[Example | DataFormatError]:
    """Read inputs lazily from a file, or from standard input when ``path`` is ``"-"``.

    One input a line: ``lemma<TAB>tags`` (covered format) or ``lemma<TAB>form<TAB>tags`` (2018
    format, the form is ignored); ``fmt="2023"`` reads ``lemma<TAB>tags<TAB>form``. Parsing is
    :func:`inflect.text.parsing.iter_examples`: blank lines are skipped, everything else malformed
    raises.

    Args:
        path: the file, or ``"-"`` for standard input (read as bytes, decoded as UTF-8).
        language: stored in every query (None: the model's only language).
        fmt: ``"auto"``, ``"covered"``, ``"2018"`` or ``"2023"``.
        on_blank: called with (source, line number) for each blank line skipped.
        on_header: called with (source, 1, the line) for a first line that names the columns
            (``lemma<TAB>tags``; :func:`inflect.text.layouts.header_layout`), skipped.
        errors: ``"raise"`` (stop at the first malformed line) or ``"yield"`` (yield its
            :class:`~inflect.text.records.DataFormatError` in its place and read on; a
            :class:`~inflect.inference.searcher.Searcher` turns it into an
            :class:`~inflect.inference.outcomes.ErrorRecord`).

    Yields:
        One :class:`~inflect.text.records.Example` per input line, with ``source`` and ``line`` set
        (or, with ``errors="yield"``, a :class:`~inflect.text.records.DataFormatError` per malformed
        line).

    Raises:
        DataFormatError: with ``errors="raise"``, at the first malformed line, naming the file
            and the line.
        OSError: the file cannot be read.
    """
    from inflect.io.stdio import open_input

    with open_input(path) as (source, handle):
        blank = None if on_blank is None else (lambda number: on_blank(source, number))
        header = None if on_header is None else (
            lambda number, line: on_header(source, number, line))
        yield from _stripped(
            iter_examples(
                handle, source=source, language=language or "", fmt=fmt, on_blank=blank,
                errors=errors, on_header=header,
            )
        )
