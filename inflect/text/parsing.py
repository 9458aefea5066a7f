"""Lines of an inflection file -> :class:`~inflect.text.records.Example` records.

:func:`parse_lines` reads the decoded lines of a whole file at once (the layout told from all of
them, :func:`inflect.text.layouts.detect_layout`); :func:`iter_examples` reads lines one at a
time as they arrive (standard input), with the same rules. CRLF line endings and a leading
byte-order mark are accepted; a blank line is skipped and counted. Whitespace around a feature
(``ADJ;ABL; PL`` in the Latin data) is removed and counted, as are bundles that repeat a feature;
lemmas and forms are kept exactly as written. Every other defect — a wrong number of fields, an
empty field, a control character, a line that plainly has the other layout, a malformed tag
bundle — is a :class:`~inflect.text.records.DataFormatError` naming the file, the line and the
value; nothing is dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Literal

from inflect.text.encodings import decode_line, refuse_wide
from inflect.text.layouts import (
    LAYOUT_STREAM_LINES,
    bundle_score,
    contradiction,
    detect_format,
    detect_layout,
    header_layout,
    layout_vote,
)
from inflect.text.records import (
    BOM,
    FORMATS,
    WHITESPACE,
    DataFormatError,
    Example,
    Format,
    ParsedFile,
    ReadStats,
    TagBundle,
    control_problem,
    new_example,
)

__all__ = ["iter_examples", "parse_lines"]

#: The fields of each layout, in order.
_FIELDS = {
    "2018": ("lemma", "form", "tags"),
    "covered": ("lemma", "tags"),
    "2023": ("lemma", "tags", "form"),
}
_FIELD_WORDS = {"lemma": "lemma", "form": "form", "tags": "tag bundle"}
# Control characters (category Cc) and the Unicode line / paragraph separators, without TAB (the
# field separator), to test whole lines at once (:data:`inflect.text.records` tests fields).
_CONTROL_IN_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
_TSV_HEADER = ["lemma", "tags", "language"]


def _positions(names: tuple[str, ...]) -> tuple[int, int, int]:
    """Indices of lemma, form (-1 if absent) and tags in a format's fields."""
    if not names:
        return 0, -1, 0
    return names.index("lemma"), names.index("form") if "form" in names else -1, names.index("tags")


def _file_lines(lines: list[str], bad_lines: set[int | None], stats: ReadStats) -> list[str]:
    """The lines without the empty string after a final newline and without a leading BOM
    (counted in ``stats``)."""
    if lines and lines[-1] == "" and len(lines) not in bad_lines:
        lines = lines[:-1]  # the final newline does not start another line
    stats.lines = len(lines)
    if lines and lines[0].startswith(BOM):
        stats.bom = True
        lines = [lines[0][1:], *lines[1:]]
    return lines


def _empty_fields(names: tuple[str, ...], fields: list[str], empty_form: bool) -> str:
    """``"empty lemma and tag bundle"``: the fields of a line that are empty or blank (the form
    not counted when ``empty_form`` accepts an empty one)."""
    empty = [
        n
        for n in names
        if not fields[names.index(n)].strip(WHITESPACE) and not (n == "form" and empty_form)
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


def _header_conflict(named: str, given: str) -> str:
    """The message for a header line that names another layout than the one given."""
    return (f"the header line names the layout {' '.join(_FIELDS[named])} ({named}), but the "
            f"layout given is {given} ({' '.join(_FIELDS[given])}); drop the layout given, or "
            "correct the header")


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
        language: stored in every :class:`~inflect.text.records.Example`.
        fmt: ``"auto"``, ``"2018"``, ``"covered"`` or ``"2023"``.
        collect_errors: when True, report every problem in
            :attr:`~inflect.text.records.ParsedFile.errors` instead of raising at the first one.
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
    resolved = None if fmt == "auto" else fmt
    named = header_layout(lines[0].removesuffix("\r").split("\t")) if lines else None
    if named is not None:  # a header line: skipped (its number kept), and it tells the layout
        stats.header = lines[0].removesuffix("\r")
        bad_lines = bad_lines | {1}
        if resolved is None:
            resolved = named
        elif resolved != named:
            problem = DataFormatError(source, 1, _header_conflict(named, resolved), lines[0])
            if not collect_errors:
                raise problem
            errors.append(problem)
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
            return ParsedFile([], stats, errors)
    reader = _LineReader(source, language, resolved, collect_errors, empty_form, errors)
    reader.check_layout = fmt == "auto" and resolved in ("2018", "2023")
    examples = reader.read(lines, bad_lines, stats)
    errors.sort(key=lambda e: e.line or 0)
    stats.fmt = reader.resolved or fmt
    stats.examples = len(examples)
    return ParsedFile(examples, stats, errors)


class _LineReader:
    """The state of one :func:`parse_lines`: the layout (told, or detected from the first line
    that tells it), the tag bundles parsed so far, and the errors."""

    def __init__(
        self,
        source: str,
        language: str,
        resolved: str | None,
        collect_errors: bool,
        empty_form: bool,
        errors: list[DataFormatError],
    ) -> None:
        self.source, self.language = source, language
        self.collect_errors, self.empty_form, self.errors = collect_errors, empty_form, errors
        self.check_layout = False
        self.bundles: dict[str, TagBundle] = {}
        self.tag_words: dict[str, bool] = {}  # tag field -> it is no feature at all
        self.use(resolved)

    def use(self, resolved: str | None) -> None:
        """Read the lines in layout ``resolved`` (None: not told yet)."""
        self.resolved = resolved
        self.names: tuple[str, ...] = _FIELDS[resolved] if resolved else ()
        self.width = len(self.names)
        self.positions = _positions(self.names)

    def fail(self, number: int, what: str, value: str | None) -> None:
        """Report a malformed line: raise, or collect the error (``collect_errors``)."""
        error = DataFormatError(self.source, number, what, value)
        if not self.collect_errors:
            raise error
        self.errors.append(error)

    def read(self, lines: list[str], bad_lines: set[int | None], stats: ReadStats) -> list[Example]:
        """The examples of ``lines`` (the hot loop: one split and a few tests a good line; the
        rest, :meth:`odd_width`, :meth:`empty` and :meth:`contradicts`, only where needed)."""
        examples: list[Example] = []
        append, bundles, tag_words = examples.append, self.bundles, self.tag_words
        source, language, empty_form = self.source, self.language, self.empty_form
        width, (lemma_at, form_at, tags_at) = self.width, self.positions
        check_layout = self.check_layout
        duplicates = padded = 0
        # one search over the whole text; lines are searched one by one only when it finds one
        controls = _CONTROL_IN_LINE.search("\t".join(lines)) is not None
        for number, line in enumerate(lines, start=1):
            if line and line[-1] == "\r":
                line = line[:-1]
                stats.crlf_lines += int("\r" not in line)  # not a bare-CR file read as one line
            fields = line.split("\t")
            if len(fields) != width or number in bad_lines:
                if not self.odd_width(number, line, fields, bad_lines, stats):
                    continue
                width, (lemma_at, form_at, tags_at) = self.width, self.positions
            lemma = fields[lemma_at]
            tags_text = fields[tags_at]
            form = fields[form_at] if form_at >= 0 else None
            if (
                not lemma.strip(WHITESPACE)
                or not tags_text.strip(WHITESPACE)
                or (form is not None and not empty_form and not form.strip(WHITESPACE))
            ):
                self.empty(number, line, fields, stats)
                continue
            if controls and _CONTROL_IN_LINE.search(line):
                self.fail(number, _control_in_fields(self.names, fields) + _cr_hint(line), line)
                continue
            if check_layout:
                # only a tag field that is no feature at all can contradict the layout (cached)
                word = tag_words.get(tags_text)
                if word is None:
                    word = tag_words[tags_text] = bundle_score(tags_text) == 0
                if word and self.contradicts(number, line, fields):
                    continue
            bundle = bundles.get(tags_text)
            if bundle is None:
                bundle = self.bundle(number, tags_text)
                if bundle is None:
                    continue
            if bundle.had_duplicates:
                duplicates += 1
            if bundle.had_padding:
                padded += 1
            append(new_example(lemma, bundle, form, language, source, number))
        stats.duplicate_feature_bundles = duplicates
        stats.padded_feature_bundles = padded
        return examples

    def odd_width(
        self,
        number: int,
        line: str,
        fields: list[str],
        bad_lines: set[int | None],
        stats: ReadStats,
    ) -> bool:
        """A line of another number of fields than the layout's (or one already reported): a
        blank line (counted), the first line that tells the layout (when none was told yet),
        or an error. True when the line is to be read on."""
        if number in bad_lines:
            return False
        if not line.strip(WHITESPACE):
            stats.blank_lines += 1
            return False
        if self.resolved is None:
            found = detect_format(fields)
            if found is not None:
                self.use(found)
        if len(fields) == self.width:  # width 0: the format could not be detected
            return True
        problem = _width_problem(len(fields), self.names, self.resolved)
        if number == 1 and fields[:3] == _TSV_HEADER:
            problem += (
                "; this is the header of `inflect predict --format tsv` output: for "
                "scoring, write the predictions with `inflect predict --format 2018`"
            )
        self.fail(number, problem + _cr_hint(line), line)
        return False

    def empty(self, number: int, line: str, fields: list[str], stats: ReadStats) -> None:
        """A line with an empty field: blank (counted), else an error."""
        if not line.strip(WHITESPACE):
            stats.blank_lines += 1
            return
        self.fail(number, _empty_fields(self.names, fields, self.empty_form), line)

    def contradicts(self, number: int, line: str, fields: list[str]) -> bool:
        """True (and the line reported) when it plainly has the other layout."""
        problem = contradiction(fields, self.resolved)  # type: ignore[arg-type]
        if problem is None:
            return False
        self.fail(number, problem, line)
        return True

    def bundle(self, number: int, tags_text: str) -> TagBundle | None:
        """The tag bundle of a tag field (parsed once per distinct text), or None (reported)."""
        try:
            bundle = TagBundle.parse(tags_text)
        except ValueError as exc:
            self.fail(number, str(exc), tags_text)
            return None
        self.bundles[tags_text] = bundle
        return bundle


def iter_examples(
    lines: Iterable[str | bytes],
    *,
    source: str = "<string>",
    language: str = "",
    fmt: Format = "auto",
    on_blank: Callable[[int], None] | None = None,
    errors: Literal["raise", "yield"] = "raise",
    on_header: Callable[[int, str], None] | None = None,
) -> Iterator[Example | DataFormatError]:
    """Parse lines one at a time, lazily: the streaming form of :func:`parse_lines`.

    Each line goes through :func:`parse_lines` (the same rules, blank lines skipped), so a
    consumer gets every example before a malformed line and then the error. With ``fmt="auto"``
    the layout is told by :func:`detect_layout` from the first lines: they wait until one tells it
    plainly (2 fields; or 3, one tag field a bundle of several features and the other no feature
    at all), or :data:`LAYOUT_STREAM_LINES` have come, or the input ends; a later line that plainly
    has the other layout is an error of its own. With ``errors="raise"`` nothing after it is read;
    with ``errors="yield"`` the error is yielded in the line's place and reading goes on (every line
    gets an example or an error). Used to read standard input as it arrives.

    Args:
        lines: text lines (with or without their ``\\n``) or raw byte lines (decoded as strict
            UTF-8), e.g. an open file or ``sys.stdin.buffer``.
        source: the name used in error messages and :attr:`Example.source`.
        language: stored in every example.
        fmt: ``"auto"``, ``"2018"``, ``"covered"`` or ``"2023"``.
        on_blank: called with the 1-based number of each blank (or whitespace-only) line, which
            is skipped.
        on_header: called with (1, the line) for a first line that names the columns
            (:func:`inflect.text.layouts.header_layout`), which is skipped and tells the layout
            (as :func:`parse_lines` reads it).
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
    stream = _LineStream(source, language, fmt, errors)
    for number, raw in enumerate(lines, start=1):
        line = _decoded(raw, source, number) if isinstance(raw, bytes) else raw
        if isinstance(line, DataFormatError) and line.line is None:  # UTF-16: nothing readable
            raise line from None
        if isinstance(line, DataFormatError):
            if errors == "raise":
                yield from stream.release()
                raise line from None
            if stream.waiting:
                stream.waiting.append((number, line))
            else:
                yield line
            continue
        if line.endswith("\n"):
            line = line[:-1]
        if on_blank is not None and not line.strip():
            on_blank(number)
            continue
        if number == 1:
            named = header_layout(line.removeprefix(BOM).removesuffix("\r").split("\t"))
            if named is not None and stream.header(named, line):
                if on_header is not None:
                    on_header(number, line.removeprefix(BOM).removesuffix("\r"))
                continue
        if stream.resolved is not None or stream.ambiguous is not None:
            yield from stream.read(number, line)
        else:
            yield from stream.wait(number, line)
    yield from stream.release()


def _decoded(raw: bytes, source: str, number: int) -> str | DataFormatError:
    """A raw line decoded as strict UTF-8 (:func:`inflect.text.encodings.decode_line`), or the
    error naming the first bad byte and the encoding the line reads in; a first line in UTF-16
    or UTF-32 is an error of the whole input (its line None)."""
    text, why = decode_line(raw, number)
    if text is not None:
        return text
    if number == 1 and refuse_wide(raw) is not None:
        return DataFormatError(source, None, why or "", None)
    return DataFormatError(source, number, why or "", raw.decode("utf-8", "replace"))


class _LineStream:
    """The state of one :func:`iter_examples`: the layout once told (or the error of a stream
    whose first lines disagree), and the lines waiting until it is told."""

    def __init__(self, source: str, language: str, fmt: Format, errors: str) -> None:
        self.source, self.language, self.fmt, self.errors = source, language, fmt, errors
        self.resolved: Format | None = None if fmt == "auto" else fmt
        self.ambiguous: DataFormatError | None = None
        self.waiting: list[tuple[int, str | DataFormatError]] = []

    def header(self, named: Format, line: str) -> bool:
        """A first line that names the layout ``named``: True (skip it), the layout told where
        none was given; a header that names another layout than the one given is an error."""
        if self.resolved is None:
            self.resolved = named
        elif self.resolved != named:
            problem = DataFormatError(self.source, 1, _header_conflict(named, self.resolved), line)
            if self.errors == "raise":
                raise problem
            self.ambiguous = problem
        return True

    def read(self, number: int, line: str) -> Iterator[Example | DataFormatError]:
        """The example of one line by :func:`parse_lines` (or its error), in the layout told."""
        problem = None
        if self.ambiguous is not None:
            problem = DataFormatError(self.source, number, self.ambiguous.what, line)
        elif self.fmt == "auto" and self.resolved in ("2018", "2023"):
            fields = line.rstrip("\r").split("\t")
            if len(fields) == 3:
                what = contradiction(fields, self.resolved)
                if what is not None:
                    problem = DataFormatError(self.source, number, what, line)
        if problem is None:
            # a blank first line keeps parse_lines from treating a later line as a file start (BOM)
            chunk = [line] if number == 1 else ["", line]
            parsed = parse_lines(
                chunk, source=self.source, language=self.language, fmt=self.resolved or "auto",
                collect_errors=True,
            )
            if not parsed.errors:
                for example in parsed.examples:
                    yield new_example(
                        example.lemma, example.tags, example.form, self.language, self.source,
                        number,
                    )
                return
            first = parsed.errors[0]
            problem = DataFormatError(self.source, number, first.what, first.value)
        if self.errors == "raise":
            raise problem
        yield problem

    def wait(self, number: int, line: str) -> Iterator[Example | DataFormatError]:
        """Keep a line until the layout is told; release the lines kept once one tells it
        plainly (2 fields; or 3, one tag field a bundle of several features and the other no
        feature at all) or :data:`~inflect.text.layouts.LAYOUT_STREAM_LINES` have come."""
        self.waiting.append((number, line))
        fields = line.rstrip("\r").split("\t")
        if (
            len(self.waiting) >= LAYOUT_STREAM_LINES
            or len(fields) == 2
            or (len(fields) == 3 and layout_vote(fields)[1])
        ):
            yield from self.release()

    def release(self) -> Iterator[Example | DataFormatError]:
        """Tell the layout from the lines kept (:func:`inflect.text.layouts.detect_layout`) and
        read them."""
        if self.resolved is None and self.waiting:
            try:
                self.resolved = detect_layout(
                    [line for _, line in self.waiting if isinstance(line, str)], self.source,
                    sample=0,
                )
            except DataFormatError as exc:
                if self.errors == "raise":
                    raise
                self.ambiguous = exc
        for number, line in self.waiting:
            if isinstance(line, str):
                yield from self.read(number, line)
            else:
                yield line  # a line that was not UTF-8 (errors="yield")
        self.waiting.clear()
