"""Read SIGMORPHON-style inflection files into typed records.

Formats (one example a line, fields separated by a TAB):

- ``"2018"``: ``lemma<TAB>form<TAB>tags`` — CoNLL–SIGMORPHON 2018 task 1 (Cotterell et al., 2018,
  "The CoNLL–SIGMORPHON 2018 Shared Task: Universal Morphological Reinflection", §2) train and
  dev files.
- ``"covered"``: ``lemma<TAB>tags`` — the shared task's covered test files (no form).
- ``"2023"``: ``lemma<TAB>tags<TAB>form`` — the SIGMORPHON 2023 order.
- ``"auto"``: detected from the evidence of the whole file by :func:`detect_layout` (every line,
  or :data:`LAYOUT_SAMPLE_LINES` spread over a longer file): ``"covered"`` if most lines have two
  fields; with three, ``"2023"`` if on most of the lines that tell the layouts apart the second
  field is the one that looks like a tag bundle, ``"2018"`` if the third; a file whose lines
  disagree (more than :data:`LAYOUT_MAX_DISSENT` of them) is refused with a message asking for
  the layout, and a line that plainly contradicts the layout found is an error of its own.

The features of the 2023 data may take a bracketed argument, itself separated by commas or
semicolons (``NOM(1,SG)``, ``ACC(PL)``, ``DAT(PL;LGSPEC2)``): such a feature is *one* feature; a
``;`` inside brackets does not separate features.

Text is UTF-8; CRLF line endings and a leading byte-order mark are accepted; a blank line is
skipped and counted. Lemmas and forms are kept exactly as written, spaces included (German
``wandert aus``; Kurmanji forms end in a space). The tag bundle is a *multiset* of UniMorph
features (Sylak-Glassman, 2016, "The Composition and Use of the Universal Morphological Feature
Schema"): ``V;IND;PRS;2;PL`` and ``V;PL;2;PRS;IND`` are the same bundle, but a repeated feature
counts (the 2018 data write the Albanian pluperfect ``V;2;PL;IND;PRF;PRF``, the perfect
``V;2;PL;IND;PRF``); the reader counts the bundles that repeat a feature; whitespace around a feature (``ADJ;ABL; PL`` in the
Latin data) is removed and counted too. A control character (Unicode category Cc: C0 and C1
controls, DEL; and the line and paragraph separators U+2028, U+2029) in a lemma, form or tag
bundle is refused (:func:`control_character`): it would break every line-based output. Every
other defect raises :class:`DataFormatError` naming the file, the line and the value; nothing is
dropped silently.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Format = Literal["auto", "2018", "covered", "2023"]
FORMATS: tuple[str, ...] = ("auto", "2018", "covered", "2023")
SPLITS: tuple[str, ...] = ("train-high", "train-medium", "train-low", "dev", "covered-test")

_FIELDS = {
    "2018": ("lemma", "form", "tags"),
    "covered": ("lemma", "tags"),
    "2023": ("lemma", "tags", "form"),
}
_FIELD_WORDS = {"lemma": "lemma", "form": "form", "tags": "tag bundle"}
_BOM = "\ufeff"
_WHITESPACE = " \t\r\f\v\u00a0"
# Control characters (category Cc) and the Unicode line / paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# The same without TAB (the field separator), to test whole lines at once.
_CONTROL_IN_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
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
# The characters of a UniMorph feature, with an upper-case letter or a digit (N, V.PTCP, 1+EXCL,
# and the 2023 data's features with an argument: NOM(1,SG), DAT(PL;LGSPEC2)).
_FEATURE = re.compile(r"[A-Za-z0-9.+/:_{}()\[\],;\-]*[A-Z0-9][A-Za-z0-9.+/:_{}()\[\],;\-]*")
_OPENING = "([{"
_CLOSING = ")]}"

#: Lines of a file that :func:`detect_layout` reads: all of a file up to this many, else this many
#: spread evenly over it.
LAYOUT_SAMPLE_LINES = 5000
#: The largest share of the telling lines (those where one field looks more like a tag bundle than
#: the other) that may disagree with the rest before a file's layout is called ambiguous.
LAYOUT_MAX_DISSENT = 0.1
#: Lines of a stream (``iter_examples``) that wait for the layout to be told before the first is
#: answered, unless one tells it plainly before (2 fields; or 3 with a bundle of several features
#: in one tag field and no feature in the other).
LAYOUT_STREAM_LINES = 64


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


def _looks_like_feature(text: str) -> bool:
    """A UniMorph feature as the shared tasks write them: ASCII letters, digits and
    ``.+/:_{}()[],;-`` with at least as many upper-case letters and digits as lower-case letters
    (``N``, ``V.PTCP``, ``LgSPEC8``, ``non{NOM}``, the 2023 ``NOM(1,SG)``; not ``Haus``)."""
    if not _FEATURE.fullmatch(text):
        return False
    lower = sum(c.islower() for c in text)
    return lower <= sum(c.isupper() or c.isdigit() for c in text)


def _bundle_score(text: str) -> int:
    """How much ``text`` looks like a tag bundle: 2 for features joined by ``;``, 1 for one
    feature, 0 otherwise (a word)."""
    parts = [p.strip(_WHITESPACE) for p in split_features(text)]
    if not all(_looks_like_feature(p) for p in parts):
        return 0
    return 2 if len(parts) > 1 else 1


def detect_format(fields: list[str]) -> Format | None:
    """The format of a line split on TAB, for ``fmt="auto"``: where the tag bundle is.

    Two fields: ``"covered"`` (lemma, tags). Three: ``"2023"`` (lemma, tags, form) when the
    second field looks more like a tag bundle than the third (UniMorph features — upper-case
    letters and digits, e.g. ``N;NOM;PL`` or ``V.PTCP`` — joined by ``;``), else ``"2018"``
    (lemma, form, tags; also when neither or both look like one).

    Returns:
        The format, or None for another number of fields.
    """
    if len(fields) == 2:
        return "covered"
    if len(fields) != 3:
        return None
    return "2023" if _bundle_score(fields[1]) > _bundle_score(fields[2]) else "2018"


def _vote(fields: list[str]) -> tuple[str | None, bool]:
    """What one line of 3 fields says about the layout: ``("2023", strong)`` when its second
    field looks more like a tag bundle than its third, ``("2018", strong)`` the other way round,
    ``(None, False)`` when it cannot tell; ``strong`` when one is a bundle of several features
    and the other no feature at all."""
    second, third = _bundle_score(fields[1]), _bundle_score(fields[2])
    if second == third:
        return None, False
    return ("2023" if second > third else "2018"), abs(second - third) == 2


_LAYOUT_WORDS = {"2018": "lemma<TAB>form<TAB>tags (2018)", "2023": "lemma<TAB>tags<TAB>form (2023)"}


def detect_layout(
    lines: Iterable[str], source: str = "<string>", *, sample: int = LAYOUT_SAMPLE_LINES
) -> Format | None:
    """The layout of a file from all of its lines (or ``sample`` of them spread evenly over it),
    for ``fmt="auto"``.

    Most lines of 2 fields: ``"covered"``. Most of 3: each line votes for the layout whose tag
    field looks more like a tag bundle (:func:`detect_format`); the majority wins, ``"2018"``
    (the shared task's) when no line can tell. When more than :data:`LAYOUT_MAX_DISSENT` of the
    lines that tell disagree with the majority, the file is ambiguous.

    Args:
        lines: the lines (a trailing CR, blank lines and a leading BOM are ignored).
        source: the file name for the message.
        sample: at most this many lines are read, spread evenly.

    Returns:
        The layout, or None when no line has 2 or 3 fields.

    Raises:
        DataFormatError: the lines disagree; the message names the file, counts both kinds with
            a line of each, and asks for the layout (``--input-format`` / ``--format``).
    """
    lines = lines if isinstance(lines, list) else list(lines)
    step = max(1, -(-len(lines) // sample)) if sample > 0 else 1
    widths = {2: 0, 3: 0}
    first_width = 0
    votes = {"2018": 0, "2023": 0}
    example: dict[str, int] = {}
    for index in range(0, len(lines), step):
        line = lines[index]
        if line.endswith("\r"):
            line = line[:-1]
        if index == 0 and line.startswith(_BOM):
            line = line[1:]
        if not line.strip(_WHITESPACE):
            continue
        fields = line.split("\t")
        if len(fields) not in widths:
            continue
        widths[len(fields)] += 1
        first_width = first_width or len(fields)
        if len(fields) == 3:
            vote, _ = _vote(fields)
            if vote is not None:
                votes[vote] += 1
                example.setdefault(vote, index + 1)
    if not widths[2] and not widths[3]:
        return None
    if widths[2] > widths[3] or (widths[2] == widths[3] and first_width == 2):
        return "covered"
    major, minor = ("2023", "2018") if votes["2023"] > votes["2018"] else ("2018", "2023")
    telling = votes[major] + votes[minor]
    if votes[minor] and votes[minor] > LAYOUT_MAX_DISSENT * telling:
        raise DataFormatError(
            source,
            None,
            "cannot tell the layout of the file: "
            f"{votes['2018']:,} of the lines read look like {_LAYOUT_WORDS['2018']} (e.g. line "
            f"{example['2018']}), {votes['2023']:,} like {_LAYOUT_WORDS['2023']} (e.g. line "
            f"{example['2023']}); give the layout (--input-format 2018 or 2023; `inflect data "
            "check` takes --format)",
        )
    return major  # type: ignore[return-value]


def _contradiction(fields: list[str], resolved: str) -> str | None:
    """The message for a line of 3 fields that plainly has the other layout than ``resolved``
    (its form field a bundle of several features, its tag field no feature), or None."""
    vote, strong = _vote(fields)
    if not strong or vote == resolved:
        return None
    return (
        f"the line looks like {_LAYOUT_WORDS[vote]}, but the file's layout is "
        f"{_LAYOUT_WORDS[resolved]}; give the layout if it was detected wrong "
        "(--input-format 2018 or 2023)"
    )


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
    cells, so ``PRF;PRF != PRF``. Equality and hashing use :attr:`multiset` only.
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
        order = tuple(dict.fromkeys(written))
        self._written: tuple[str, ...] = written
        self._order: tuple[str, ...] = order
        self._features: frozenset[str] = frozenset(order)
        self._multiset: tuple[str, ...] = tuple(sorted(written))
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
        if not text.strip(_WHITESPACE):
            raise ValueError("empty tag bundle")
        raw = split_features(text)
        features = []
        padded = False
        for item in raw:
            feature = item.strip(_WHITESPACE)
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
        """The distinct UniMorph features of the bundle (a set: repeats not counted)."""
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
        return feature in self._features

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


def _new_example(
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


def _positions(names: tuple[str, ...]) -> tuple[int, int, int]:
    """Indices of lemma, form (-1 if absent) and tags in a format's fields."""
    if not names:
        return 0, -1, 0
    return names.index("lemma"), names.index("form") if "form" in names else -1, names.index("tags")


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


@dataclass
class ParsedFile:
    """The examples of one file and the reader's statistics."""

    examples: list[Example]
    stats: ReadStats
    errors: list[DataFormatError] = field(default_factory=list)


def language_from_filename(path: str | os.PathLike[str]) -> str:
    """The language of a shared-task file from its name: ``german-train-high`` -> ``german``,
    and ``german-test`` (the name of the shared task's gold test files) -> ``german``.

    Falls back to the file's stem when the name does not end with a known split.
    """
    name = Path(path).name
    for split in (*SPLITS, "test"):
        if name.endswith("-" + split) and len(name) > len(split) + 1:
            return name[: -len(split) - 1]
    return Path(path).stem


def language_of_file(path: str | os.PathLike[str]) -> str:
    """The shared-task name of the language a file's name gives (:func:`language_from_filename`,
    then :func:`inflect.text.languages.resolve`): ``german-dev`` -> ``german``, ``de-dev`` -> ``german``.

    Raises:
        ValueError: the name gives no known language; the message names the file, the closest
            languages, and says to give the language (``--lang``) instead.
    """
    from inflect.text.languages import UnknownLanguageError, resolve

    name = language_from_filename(path)
    try:
        return resolve(name).name
    except UnknownLanguageError as exc:
        raise ValueError(
            f"{path}: its language is taken from the file name, and {exc}; name the file "
            "LANGUAGE-dev (or LANGUAGE-test ...) or give the language with --lang"
        ) from None


def _decode_lines(data: bytes, source: str, errors: list[DataFormatError] | None) -> list[str]:
    """Split bytes on LF and decode each line as UTF-8 (strict).

    Raises DataFormatError at the first undecodable line, unless ``errors`` collects them: such
    a line is then reported there and replaced by an empty placeholder, so that the numbering of
    the others stays right.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return text.split("\n")
    lines = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            error = DataFormatError(
                source,
                number,
                f"bytes that are not UTF-8 at byte {exc.start + 1} of the line",
                raw.decode("utf-8", "replace"),  # U+FFFD where the bytes are
            )
            if errors is None:
                raise error from None
            errors.append(error)
            lines.append("")  # reported; kept as a placeholder so numbering stays right
    return lines


def _file_lines(lines: list[str], bad_lines: set[int | None], stats: ReadStats) -> list[str]:
    """The lines without the empty string after a final newline and without a leading BOM
    (counted in ``stats``)."""
    if lines and lines[-1] == "" and len(lines) not in bad_lines:
        lines = lines[:-1]  # the final newline does not start another line
    stats.lines = len(lines)
    if lines and lines[0].startswith(_BOM):
        stats.bom = True
        lines = [lines[0][1:], *lines[1:]]
    return lines


def _empty_fields(names: tuple[str, ...], fields: list[str], empty_form: bool) -> str:
    """``"empty lemma and tag bundle"``: the fields of a line that are empty or blank (the form
    not counted when ``empty_form`` accepts an empty one)."""
    empty = [
        n
        for n in names
        if not fields[names.index(n)].strip(_WHITESPACE) and not (n == "form" and empty_form)
    ]
    return f"empty {' and '.join(_FIELD_WORDS[n] for n in empty)}"


def _width_problem(found: int, names: tuple[str, ...], resolved: str | None) -> str:
    """The message for a line of ``found`` fields where ``names`` were expected (none: the
    format could not be detected from it)."""
    if resolved is None:
        return (
            "cannot detect the format: expected 3 tab-separated fields (lemma, form, tags) or "
            f"2 (lemma, tags), found {found}"
        )
    return (
        f"expected {len(names)} tab-separated fields ({', '.join(names)}; format {resolved}), "
        f"found {found}"
    )


def _cr_hint(line: str) -> str:
    """What to do about carriage returns inside a line (a file with CR-only line endings is read
    as one line), or ``""``."""
    if "\r" not in line:
        return ""
    return (
        "; the line holds carriage returns (CR): if the file has old Mac line endings (CR alone), "
        "convert them to LF (tr '\\r' '\\n')"
    )


def _control_in_fields(names: tuple[str, ...], fields: list[str]) -> str:
    """The message for the first field of a line that holds a control character."""
    for name, text in zip(names, fields, strict=True):
        problem = control_problem(text, _FIELD_WORDS[name])
        if problem is not None:
            return problem
    raise AssertionError("no control character in the fields")


def parse_lines(
    lines: list[str],
    *,
    source: str = "<string>",
    language: str = "",
    fmt: Format = "auto",
    collect_errors: bool = False,
    line_errors: list[DataFormatError] | None = None,
    empty_form: bool = False,
) -> ParsedFile:
    """Parse already-decoded lines (without their ``\\n``) into examples.

    Args:
        lines: the lines of a file, e.g. ``text.split("\\n")``; a trailing CR is removed, a BOM
            at the start of the first line is removed.
        source: the file name used in error messages and :attr:`Example.source`.
        language: stored in every :class:`Example`.
        fmt: ``"auto"``, ``"2018"``, ``"covered"`` or ``"2023"``.
        collect_errors: when True, report every problem in :attr:`ParsedFile.errors` instead of
            raising at the first one.
        line_errors: problems already found while decoding (their lines are skipped).
        empty_form: accept an empty (or whitespace-only) form, kept as written (a predictions
            file: a model may predict the empty string).

    Returns:
        The examples and the reader's statistics.

    Raises:
        DataFormatError: a malformed line (unless ``collect_errors``), e.g. a control character
            (``FILE:LINE: control character U+0000 (NUL) in the lemma (line)``).
        ValueError: an unknown ``fmt``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    errors: list[DataFormatError] = list(line_errors or [])
    bad_lines = {e.line for e in errors}
    stats = ReadStats(source=source, fmt=fmt)
    lines = _file_lines(lines, bad_lines, stats)

    def fail(number: int, what: str, value: str | None) -> None:
        error = DataFormatError(source, number, what, value)
        if not collect_errors:
            raise error
        errors.append(error)

    examples: list[Example] = []
    append = examples.append
    bundles: dict[str, TagBundle] = {}
    resolved = None if fmt == "auto" else fmt
    if resolved is None:
        try:
            resolved = detect_layout(
                [line for number, line in enumerate(lines, 1) if number not in bad_lines], source
            )
        except DataFormatError as exc:
            if not collect_errors:
                raise
            errors.append(exc)
            stats.fmt = "auto"
            return ParsedFile(examples, stats, errors)
    check_layout = fmt == "auto" and resolved in ("2018", "2023")
    tag_words: dict[str, bool] = {}
    names: tuple[str, ...] = _FIELDS[resolved] if resolved else ()
    width = len(names)
    lemma_at, form_at, tags_at = _positions(names)
    duplicates = padded = 0
    # one search over the whole text; lines are searched one by one only when it finds one
    controls = _CONTROL_IN_LINE.search("\t".join(lines)) is not None
    for number, line in enumerate(lines, start=1):
        if line and line[-1] == "\r":
            line = line[:-1]
            stats.crlf_lines += int("\r" not in line)  # not a bare-CR file read as one line
        fields = line.split("\t")
        if len(fields) != width or number in bad_lines:
            # The slow path: blank lines, format detection, wrong field counts.
            if number in bad_lines:
                continue
            if not line.strip(_WHITESPACE):
                stats.blank_lines += 1
                continue
            if resolved is None:
                resolved = detect_format(fields)
                if resolved is not None:
                    names = _FIELDS[resolved]
                    width = len(names)
                    lemma_at, form_at, tags_at = _positions(names)
            if len(fields) != width:  # width 0: the format could not be detected
                problem = _width_problem(len(fields), names, resolved)
                if number == 1 and fields[:3] == ["lemma", "tags", "language"]:
                    problem += (
                        "; this is the header of `inflect predict --format tsv` output: for "
                        "scoring, write the predictions with `inflect predict --format 2018`"
                    )
                fail(number, problem + _cr_hint(line), line)
                continue
        lemma = fields[lemma_at]
        tags_text = fields[tags_at]
        form = fields[form_at] if form_at >= 0 else None
        if (
            not lemma.strip(_WHITESPACE)
            or not tags_text.strip(_WHITESPACE)
            or (form is not None and not empty_form and not form.strip(_WHITESPACE))
        ):
            if not line.strip(_WHITESPACE):
                stats.blank_lines += 1
                continue
            fail(number, _empty_fields(names, fields, empty_form), line)
            continue
        if controls and _CONTROL_IN_LINE.search(line):
            fail(number, _control_in_fields(names, fields) + _cr_hint(line), line)
            continue
        if check_layout:
            # only a tag field that is no feature at all can contradict the layout (cached)
            word = tag_words.get(tags_text)
            if word is None:
                word = tag_words[tags_text] = _bundle_score(tags_text) == 0
            if word:
                contradiction = _contradiction(fields, resolved)  # type: ignore[arg-type]
                if contradiction is not None:
                    fail(number, contradiction, line)
                    continue
        bundle = bundles.get(tags_text)
        if bundle is None:
            try:
                bundle = TagBundle.parse(tags_text)
            except ValueError as exc:
                fail(number, str(exc), tags_text)
                continue
            bundles[tags_text] = bundle
        if bundle.had_duplicates:
            duplicates += 1
        if bundle.had_padding:
            padded += 1
        append(_new_example(lemma, bundle, form, language, source, number))
    errors.sort(key=lambda e: e.line or 0)
    stats.duplicate_feature_bundles = duplicates
    stats.padded_feature_bundles = padded
    stats.fmt = resolved or fmt
    stats.examples = len(examples)
    return ParsedFile(examples, stats, errors)


def parse_file(
    path: str | os.PathLike[str],
    language: str | None = None,
    fmt: Format = "auto",
    *,
    collect_errors: bool = False,
    empty_form: bool = False,
) -> ParsedFile:
    """Read a data file into examples plus the reader's statistics.

    Args:
        path: the file.
        language: the language stored in each example; by default taken from the file name
            (``german-train-high`` -> ``german``).
        fmt: ``"auto"`` (:func:`detect_format`), ``"2018"``, ``"covered"``, ``"2023"``.
        collect_errors: report every problem in :attr:`ParsedFile.errors` instead of raising.
        empty_form: accept an empty form (see :func:`parse_lines`).

    Raises:
        DataFormatError: a malformed line (unless ``collect_errors``).
        OSError: the file cannot be read.
    """
    source = str(path)
    data = Path(path).read_bytes()
    line_errors: list[DataFormatError] | None = [] if collect_errors else None
    lines = _decode_lines(data, source, line_errors)
    return parse_lines(
        lines,
        source=source,
        language=language if language is not None else language_from_filename(path),
        fmt=fmt,
        collect_errors=collect_errors,
        line_errors=line_errors,
        empty_form=empty_form,
    )


def read_inflections(
    path: str | os.PathLike[str],
    language: str | None = None,
    fmt: Format = "auto",
    *,
    empty_form: bool = False,
) -> list[Example]:
    """Read a file of lemmas, tag bundles *and forms* (gold or predictions): 2018 or 2023 layout.

    Args:
        path: the file.
        language: as :func:`parse_file`.
        fmt: ``"auto"`` (:func:`detect_format`), ``"2018"`` or ``"2023"``.
        empty_form: accept an empty form, kept as written (a predictions file).

    Raises:
        DataFormatError: a malformed line, or a file without forms (two fields: the covered
            layout).
        OSError: the file cannot be read.
    """
    parsed = parse_file(path, language, fmt, empty_form=empty_form)
    if parsed.stats.fmt == "covered":
        raise DataFormatError(
            str(path),
            None,
            "the file has no forms (2 fields: lemma, tags); "
            "give lemma<TAB>form<TAB>tags (2018) or lemma<TAB>tags<TAB>form "
            "(2023)",
        )
    return parsed.examples


def read_examples(
    path: str | os.PathLike[str], language: str | None = None, fmt: Format = "auto"
) -> list[Example]:
    """Read a data file into a list of :class:`Example` (see :func:`parse_file`).

    Raises:
        DataFormatError: at the first malformed line, with file, line and value.
        OSError: the file cannot be read.
    """
    return parse_file(path, language, fmt).examples


def iter_examples(
    lines: Iterable[str | bytes],
    *,
    source: str = "<string>",
    language: str = "",
    fmt: Format = "auto",
    on_blank: Callable[[int], None] | None = None,
    errors: Literal["raise", "yield"] = "raise",
) -> Iterator[Example | DataFormatError]:
    """Parse lines one at a time, lazily: the streaming form of :func:`parse_lines`.

    Each line goes through :func:`parse_lines` (the same rules, blank lines skipped), so a
    consumer gets every example before a malformed line and then the error. With ``fmt="auto"``
    the layout is told by :func:`detect_layout` from the first lines: they wait until one tells it
    plainly (2 fields; or 3, one tag field a bundle of several features and the other no feature
    at all), or :data:`LAYOUT_STREAM_LINES` have come, or the input ends; a later line that plainly
    has the other layout is an error of its own. With ``errors="raise"`` nothing after it is read; with
    ``errors="yield"`` the error is yielded in the line's place and reading goes on (every line
    gets an example or an error). Used to read standard input as it arrives.

    Args:
        lines: text lines (with or without their ``\\n``) or raw byte lines (decoded as strict
            UTF-8), e.g. an open file or ``sys.stdin.buffer``.
        source: the name used in error messages and :attr:`Example.source`.
        language: stored in every example.
        fmt: ``"auto"``, ``"2018"``, ``"covered"`` or ``"2023"``.
        on_blank: called with the 1-based number of each blank (or whitespace-only) line, which
            is skipped.
        errors: ``"raise"`` (stop at the first malformed line) or ``"yield"`` (yield its
            :class:`DataFormatError` and go on).

    Yields:
        The examples in order, with their 1-based line numbers (and, with ``errors="yield"``,
        a :class:`DataFormatError` for each malformed line).

    Raises:
        DataFormatError: with ``errors="raise"``, at the first malformed or non-UTF-8 line
            (``FILE:LINE: what (value)``).
        ValueError: an unknown ``fmt`` or ``errors``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if errors not in ("raise", "yield"):
        raise ValueError(f"errors must be 'raise' or 'yield', got {errors!r}")
    resolved: Format | None = None if fmt == "auto" else fmt
    ambiguous: DataFormatError | None = None
    # with fmt="auto", lines wait here until the layout is told (detect_layout over them)
    waiting: list[tuple[int, str | DataFormatError]] = []

    def read(number: int, line: str) -> Iterator[Example | DataFormatError]:
        if ambiguous is not None:
            problem = DataFormatError(source, number, ambiguous.what, line)
        else:
            problem = None
            if fmt == "auto" and resolved in ("2018", "2023"):
                fields = line.rstrip("\r").split("\t")
                if len(fields) == 3:
                    what = _contradiction(fields, resolved)
                    if what is not None:
                        problem = DataFormatError(source, number, what, line)
            if problem is None:
                # a blank first line keeps parse_lines from treating a later line as a file
                # start (BOM)
                chunk = [line] if number == 1 else ["", line]
                parsed = parse_lines(
                    chunk, source=source, language=language, fmt=resolved or "auto",
                    collect_errors=True,
                )
                if parsed.errors:
                    first = parsed.errors[0]
                    problem = DataFormatError(source, number, first.what, first.value)
                else:
                    for example in parsed.examples:
                        yield _new_example(
                            example.lemma, example.tags, example.form, language, source, number
                        )
                    return
        if errors == "raise":
            raise problem
        yield problem

    def release() -> Iterator[Example | DataFormatError]:
        nonlocal resolved, ambiguous
        if resolved is None and waiting:
            try:
                resolved = detect_layout(
                    [line for _, line in waiting if isinstance(line, str)], source, sample=0
                )
            except DataFormatError as exc:
                if errors == "raise":
                    raise
                ambiguous = exc
        for number, line in waiting:
            if isinstance(line, str):
                yield from read(number, line)
            else:
                yield line  # a line that was not UTF-8 (errors="yield")
        waiting.clear()

    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                error = DataFormatError(
                    source,
                    number,
                    f"bytes that are not UTF-8 at byte {exc.start + 1} of the line",
                    raw.decode("utf-8", "replace"),  # U+FFFD where the bytes are
                )
                if errors == "raise":
                    yield from release()
                    raise error from None
                if waiting:
                    waiting.append((number, error))
                else:
                    yield error
                continue
        else:
            line = raw
        if line.endswith("\n"):
            line = line[:-1]
        if on_blank is not None and not line.strip():
            on_blank(number)
            continue
        if resolved is not None or ambiguous is not None:
            yield from read(number, line)
            continue
        waiting.append((number, line))
        fields = line.rstrip("\r").split("\t")
        if (
            len(waiting) >= LAYOUT_STREAM_LINES
            or len(fields) == 2
            or (len(fields) == 3 and _vote(fields)[1])
        ):
            yield from release()
    yield from release()


def check_file(path: str | os.PathLike[str], fmt: Format = "auto") -> ParsedFile:
    """Validate a file and collect *every* problem (see :attr:`ParsedFile.errors`).

    Raises:
        OSError: the file cannot be read.
    """
    return parse_file(path, fmt=fmt, collect_errors=True)


def check_warnings(parsed: ParsedFile) -> list[DataFormatError]:
    """The lines a reader accepts but a user should look at, one record each (``FILE:LINE:``).

    A tag bundle that repeated a feature (counted: a multiset) or had spaces around a feature
    (removed), and a lemma or form with leading or trailing whitespace (kept: spaces are data).
    """
    found: list[DataFormatError] = []
    for ex in parsed.examples:
        source = ex.source or parsed.stats.source
        if ex.tags.had_duplicates:
            found.append(
                DataFormatError(
                    source,
                    ex.line,
                    "tag bundle repeats a feature (counted: a bundle is a multiset)",
                    ex.tags.text,
                )
            )
        if ex.tags.had_padding:
            found.append(
                DataFormatError(
                    source,
                    ex.line,
                    "spaces around a feature of the tag bundle (removed)",
                    ex.tags.text,
                )
            )
        for what, text in (("lemma", ex.lemma), ("form", ex.form)):
            if text is not None and text != text.strip():
                found.append(
                    DataFormatError(
                        source,
                        ex.line,
                        f"{what} begins or ends with whitespace (kept as data)",
                        text,
                    )
                )
    return found


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


def load_split(
    language: str,
    split: str,
    data_dir: str | os.PathLike[str] | None = None,
) -> list[Example]:
    """Read one split of CoNLL–SIGMORPHON 2018 task 1 for a language.

    Args:
        language: the shared-task name or any alias known to :mod:`inflect.text.languages`.
        split: ``"train-high"``, ``"train-medium"``, ``"train-low"``, ``"dev"`` or
            ``"covered-test"``.
        data_dir: the data folder (default: :func:`inflect.corpora.manifests.data_dir`).

    Returns:
        The examples, ``language`` set to the shared-task name (``"german"`` for ``"de"``).

    Raises:
        ValueError: an unknown split.
        UnknownLanguageError: (a ValueError) an unknown language.
        FileNotFoundError: the file is absent (the message says how to get it).
        DataFormatError: a malformed line.
    """
    from inflect.corpora.manifests import locate

    path = locate(language, split, data_dir)
    return read_examples(path, language_from_filename(path))
