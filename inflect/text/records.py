"""The records of inflection data: examples, tag bundles, and what a reader reports.

An :class:`Example` is one line of a SIGMORPHON-style file: a lemma, a :class:`TagBundle`, the
inflected form (None in a covered test file), the language and where it was read. Lemmas and
forms are kept exactly as written, spaces included (German ``wandert aus``; Kurmanji forms end in
a space). The tag bundle is a *multiset* of UniMorph features (Sylak-Glassman, 2016, "The
Composition and Use of the Universal Morphological Feature Schema"): ``V;IND;PRS;2;PL`` and
``V;PL;2;PRS;IND`` are the same bundle, but a repeated feature counts (the 2018 data write the
Albanian pluperfect ``V;2;PL;IND;PRF;PRF``, the perfect ``V;2;PL;IND;PRF``). The features of the
2023 data may take a bracketed argument, itself separated by commas or semicolons
(``NOM(1,SG)``, ``ACC(PL)``, ``DAT(PL;LGSPEC2)``): such a feature is *one* feature; a ``;`` inside
brackets does not separate features (:func:`split_features`).

A control character (Unicode category Cc: C0 and C1 controls, DEL; and the line and paragraph
separators U+2028, U+2029) in a lemma, form, tag bundle or sentence is refused
(:func:`control_problem`): it would break every line-based output. A malformed line is a
:class:`DataFormatError` naming the file, the line and the value.

The layouts of the files (2018, covered, 2023) are :mod:`inflect.text.layouts`; lines become
examples in :mod:`inflect.text.parsing`; files are read by :mod:`inflect.text.reading`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from inflect.text.layers import canonical_feature

__all__ = [
    "BOM",
    "FORMATS",
    "SHOWN_VALUE_CHARS",
    "SPLITS",
    "WHITESPACE",
    "DataFormatError",
    "Example",
    "Format",
    "Key",
    "ParsedFile",
    "ReadStats",
    "TagBundle",
    "control_character",
    "control_problem",
    "input_key",
    "new_example",
    "quoted",
    "split_features",
    "written_features",
]

#: The layouts of an inflection file (:mod:`inflect.text.layouts`); ``"auto"``: detected.
Format = Literal["auto", "2018", "covered", "2023"]
FORMATS: tuple[str, ...] = ("auto", "2018", "covered", "2023")
#: The splits of CoNLL–SIGMORPHON 2018 task 1, as its file names end.
SPLITS: tuple[str, ...] = ("train-high", "train-medium", "train-low", "dev", "covered-test")

#: The byte-order mark a file may begin with (removed, counted).
BOM = "\ufeff"
#: The whitespace stripped around a field or a feature (and that makes a line blank).
WHITESPACE = " \t\r\f\v\u00a0"
# Control characters (category Cc) and the Unicode line / paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_NAMES = {
    0x00: "NUL",
    0x09: "TAB",
    0x0A: "LF",
    0x0B: "VT",
    0x0C: "FF",
    0x0D: "CR",
    0x1B: "ESC",
    0x7F: "DEL",
    0x85: "NEL",
    0x2028: "LINE SEPARATOR",
    0x2029: "PARAGRAPH SEPARATOR",
}
_OPENING = "([{"
_CLOSING = ")]}"


def split_features(text: str) -> list[str]:
    """The features of a tag bundle as written: ``text`` split on the ``;`` that are outside
    brackets, so that a 2023 feature with an argument stays one (``V;NOM(1,SG)`` -> ``V``,
    ``NOM(1,SG)``; ``N;DAT(PL;LGSPEC2)`` -> ``N``, ``DAT(PL;LGSPEC2)``). Whitespace is kept.

    A bracket that is never closed (or closed without being opened) is not counted: the text
    is then split on every ``;`` outside the brackets that do match."""
    if "(" not in text and "[" not in text and "{" not in text:
        return text.split(";")
    parts: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c in _OPENING:
            depth += 1
        elif c in _CLOSING:
            depth = max(depth - 1, 0)
        elif c == ";" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    if depth:  # an unclosed bracket: do not swallow the rest of the bundle
        return text.split(";")
    return parts


def control_character(text: str) -> str | None:
    """The first control character of ``text``, described for a message, or None.

    Control characters are Unicode category Cc (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F)
    and the separators U+2028 and U+2029: a TAB, CR or LF in a lemma, form or tag bundle would
    shift or split the columns of every line-based output (TSV, the 2018 format).

    Returns:
        ``"U+0009 (TAB)"``, ``"U+0000 (NUL)"``, ``"U+0001"``, ... or None when there is none.
    """
    found = _CONTROL.search(text)
    if found is None:
        return None
    code = ord(found.group())
    name = _CONTROL_NAMES.get(code)
    return f"U+{code:04X}" + (f" ({name})" if name else "")


def control_problem(text: str, what: str) -> str | None:
    """The message refusing a control character in user text, or None when it has none: the one
    validation of lemmas, forms, tag bundles and sentences, from files and the command line alike
    (see :func:`control_character`).

    Args:
        text: a lemma, form, tag bundle or sentence.
        what: its name in the message (``"lemma"``, ``"tag bundle"``, ...).

    Returns:
        ``"control character U+0009 (TAB) in the lemma"``, or None.
    """
    found = control_character(text)
    return None if found is None else f"control character {found} in the {what}"

class DataFormatError(ValueError):
    """A malformed line in a data file.

    The message reads ``FILE:LINE: what is wrong (value)``; the parts are also attributes.

    Attributes:
        source: the file name (or ``"<string>"``).
        line: 1-based line number, or None for a whole-file problem.
        what: what is wrong, in words.
        value: the offending text (the line, field or feature), or None.
    """

    def __init__(self, source: str, line: int | None, what: str, value: str | None = None):
        self.source = source
        self.line = line
        self.what = what
        self.value = value
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {what}{_shown_value(value)}")


#: Characters of an offending value shown in an error message; a longer one is cut there.
SHOWN_VALUE_CHARS = 120


def quoted(text: str, limit: int = SHOWN_VALUE_CHARS) -> str:
    """``repr(text)`` for an error message; a text longer than ``limit`` characters is cut there:
    ``'aaaa'… (20,000 characters in all)``."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters in all)"


def _shown_value(value: str | None) -> str:
    """`` (value)`` for a message, a long value cut (:func:`quoted`)."""
    return "" if value is None else f" ({quoted(value)})"

class TagBundle:
    """An order-free multiset of UniMorph features, e.g. ``N;DAT;PL``.

    Order does not matter, counts do: ``V;IND;PRS;2;PL == V;PL;2;PRS;IND``, but the 2018 data
    write the Albanian pluperfect ``V;2;PL;IND;PRF;PRF`` and the perfect ``V;2;PL;IND;PRF``, two
    cells, so ``PRF;PRF != PRF``. Equality and hashing use :attr:`multiset` only. A UniMorph 4
    layered feature is a name and an order-free set of parts, held in its canonical spelling
    (:func:`inflect.text.layers.canonical_feature`): ``V;PSS(PL,1) == V;PSS(1,PL)``.
    ``str(bundle)`` gives the features as written (order and repeats kept, surrounding
    whitespace removed), joined with ``;``.

    Use :meth:`parse` to build one.
    """

    __slots__ = (
        "_features",
        "_hash",
        "_multiset",
        "_order",
        "_written",
        "had_duplicates",
        "had_padding",
        "text",
    )

    def __init__(self, features: Iterable[str]):
        written = tuple(features)
        order = tuple(dict.fromkeys(canonical_feature(f) for f in written))
        self._written: tuple[str, ...] = written
        self._order: tuple[str, ...] = order
        self._features: frozenset[str] = frozenset(order)
        self._multiset: tuple[str, ...] = tuple(sorted(canonical_feature(f) for f in written))
        self._hash = hash(self._multiset)
        #: True when a feature occurred more than once in the text (it is counted each time).
        self.had_duplicates: bool = len(order) != len(written)
        #: True when a feature had whitespace around it in the text (it was removed).
        self.had_padding: bool = False
        #: The text as written (by :meth:`parse`); ``str(bundle)`` when built from features.
        self.text: str = ";".join(written)

    @classmethod
    def parse(cls, text: str) -> TagBundle:
        """Parse a ``;``-separated tag bundle.

        Args:
            text: the bundle as written, e.g. ``"V;IND;PRS;2;PL"``.

        Returns:
            The bundle; :attr:`had_duplicates` / :attr:`had_padding` tell whether a feature was
            repeated / had whitespace around it.

        Raises:
            ValueError: the bundle is empty, has an empty feature (``V;;PL``, a leading or
                trailing ``;``) or a feature with whitespace inside it.
        """
        if not text.strip(WHITESPACE):
            raise ValueError("empty tag bundle")
        raw = split_features(text)
        features = []
        padded = False
        for item in raw:
            feature = item.strip(WHITESPACE)
            if not feature:
                raise ValueError("empty UniMorph feature in tag bundle")
            if feature != item:
                padded = True
            if any(c.isspace() for c in feature):
                raise ValueError(f"whitespace inside UniMorph feature {feature!r}")
            features.append(feature)
        bundle = cls(features)
        bundle.had_padding = padded
        bundle.text = text
        return bundle

    @property
    def features(self) -> frozenset[str]:
        """The distinct UniMorph features of the bundle (a set: repeats not counted; layers in
        their canonical spelling)."""
        return self._features

    @property
    def multiset(self) -> tuple[str, ...]:
        """The features with their repeats, sorted: the bundle's canonical form (what a model
        that reads bundles as multisets sees, and what equality compares)."""
        return self._multiset

    @property
    def order(self) -> tuple[str, ...]:
        """The distinct features in first-occurrence order."""
        return self._order

    def sorted(self) -> tuple[str, ...]:
        """The distinct features in sorted order."""
        return tuple(sorted(self._features))

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, feature: object) -> bool:
        return isinstance(feature, str) and canonical_feature(feature) in self._features

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TagBundle):
            return NotImplemented
        return self._multiset == other._multiset

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return ";".join(self._written)

    def __repr__(self) -> str:
        return f"TagBundle({str(self)!r})"


@dataclass(frozen=True, slots=True)
class Example:
    """One inflection example.

    Attributes:
        lemma: the citation form, exactly as written (spaces included).
        tags: the tag bundle.
        form: the inflected form, or None in a covered test file.
        language: the language name (shared-task name, e.g. ``"north-frisian"``).
        source: the file it was read from, if any.
        line: its 1-based line number in ``source``, if any.
    """

    lemma: str
    tags: TagBundle
    form: str | None
    language: str
    source: str | None = None
    line: int | None = None


_SETTERS = tuple(Example.__dict__[n].__set__ for n in Example.__slots__)


def new_example(
    lemma: str, tags: TagBundle, form: str | None, language: str, source: str, line: int
) -> Example:
    """``Example(...)`` without the cost of the frozen dataclass ``__init__`` (the reader's hot
    loop builds ~10^6 of them); sets the same slots, so the result is identical."""
    example = object.__new__(Example)
    set_lemma, set_tags, set_form, set_language, set_source, set_line = _SETTERS
    set_lemma(example, lemma)
    set_tags(example, tags)
    set_form(example, form)
    set_language(example, language)
    set_source(example, source)
    set_line(example, line)
    return example


@dataclass
class ReadStats:
    """What a reader saw besides the examples.

    Attributes:
        source: the file name.
        fmt: the format used (``"2018"``, ``"covered"`` or ``"2023"``; ``"auto"`` resolved).
        lines: physical lines in the file.
        examples: examples read.
        blank_lines: blank (empty or whitespace-only) lines skipped.
        duplicate_feature_bundles: examples whose tag bundle repeated a feature (counted).
        padded_feature_bundles: examples whose tag bundle had whitespace around a feature
            (removed).
        bom: whether the file began with a byte-order mark.
        crlf_lines: lines that ended in CRLF.
        header: the first line where it names the columns (``lemma<TAB>form<TAB>tags``,
            :func:`inflect.text.layouts.header_layout`), skipped; else None.
    """

    source: str
    fmt: str
    lines: int = 0
    examples: int = 0
    blank_lines: int = 0
    duplicate_feature_bundles: int = 0
    padded_feature_bundles: int = 0
    bom: bool = False
    crlf_lines: int = 0
    header: str | None = None


@dataclass
class ParsedFile:
    """The examples of one file and the reader's statistics."""

    examples: list[Example]
    stats: ReadStats
    errors: list[DataFormatError] = field(default_factory=list)


#: The key of an input: ``(language, lemma, UniMorph features as written)``.
Key = tuple[str, str, tuple[str, ...]]


def input_key(example: Example) -> Key:
    """The key by which a prediction is matched to a gold input (as the shared task's scorer
    ``evalm.py`` does, which compares the lemma and the tag text).

    Returns:
        ``(language, lemma, features)``: the lemma exactly as written and the UniMorph features
        in the order written, repeats kept, whitespace around each feature removed.
    """
    return example.language, example.lemma, written_features(example.tags)


def written_features(tags: TagBundle) -> tuple[str, ...]:
    """The features of a tag bundle in the order written, repeats kept, whitespace removed."""
    return tuple(feature.strip() for feature in split_features(tags.text))
