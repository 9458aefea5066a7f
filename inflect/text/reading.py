"""Reading inflection files: bytes -> lines -> examples, with the reader's statistics.

:func:`parse_file` reads a whole file (UTF-8, strict: a line that is not is an error naming its
first bad byte) through :func:`inflect.text.parsing.parse_lines`; :func:`read_examples` and
:func:`read_inflections` (forms required) give its examples; :func:`check_file` and
:func:`check_warnings` collect every problem and every oddity of a file for ``inflect data
check``. The language of a shared-task file comes from its name (:func:`language_from_filename`,
:func:`language_of_file`).
"""

from __future__ import annotations

import os
from pathlib import Path

from inflect.text.encodings import not_utf8, refuse_wide
from inflect.text.parsing import parse_lines
from inflect.text.records import (
    SPLITS,
    DataFormatError,
    Example,
    Format,
    ParsedFile,
    split_features,
)

__all__ = [
    "check_file",
    "check_warnings",
    "duplicate_warnings",
    "language_from_filename",
    "language_of_file",
    "layer_warnings",
    "parse_file",
    "read_examples",
    "read_inflections",
]

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
    then :func:`inflect.text.languages.resolve`): ``german-dev`` -> ``german``, ``de-dev`` ->
    ``german``. A name that is not a language's is read by its longest leading part that is,
    cut at ``-``, ``_``, ``.`` or a space: ``de-words.tsv`` and ``en-GB.tsv`` (a language tag
    with its region) -> ``german``, ``english``; ``english_verbs.tsv`` -> ``english``;
    ``north-frisian-nouns`` -> ``north-frisian``.

    Raises:
        ValueError: the name gives no known language (the message names the file, the closest
            languages, and says to give the language, ``--lang``, instead), or a name that is
            several languages' (``kurdish.tsv``: the message lists them).
    """
    import re

    from inflect.text.languages import AmbiguousLanguageError, UnknownLanguageError, resolve

    name = language_from_filename(path)
    parts = re.split(r"([-_. ]+)", name)
    for end in range(len(parts), 0, -2):
        candidate = "".join(parts[:end])
        try:
            return resolve(candidate).name
        except AmbiguousLanguageError as exc:
            raise ValueError(f"{path}: its language is taken from the file name, and {exc}; "
                             "name the file after one of them or give it with --lang") from None
        except UnknownLanguageError:
            continue
    try:
        resolve(name)
    except UnknownLanguageError as exc:
        raise ValueError(
            f"{path}: its language is taken from the file name, and {exc}; name the file "
            "LANGUAGE-dev (or LANGUAGE-test ...) or give the language with --lang"
        ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def _decode_lines(data: bytes, source: str, errors: list[DataFormatError] | None) -> list[str]:
    """Split bytes on LF and decode each line as UTF-8 (strict).

    Raises DataFormatError at the first undecodable line, unless ``errors`` collects them: such
    a line is then reported there and replaced by an empty placeholder, so that the numbering of
    the others stays right. A file in UTF-16 or UTF-32 is one error of the whole file
    (:func:`inflect.text.encodings.refuse_wide`), its lines not read.
    """
    wide = refuse_wide(data[:512])
    if wide is not None:
        error = DataFormatError(source, None, wide)
        if errors is None:
            raise error
        errors.append(error)
        return []
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
                not_utf8(raw, exc.start),  # with the encoding it reads in (Windows-1252)
                raw.decode("utf-8", "replace"),  # U+FFFD where the bytes are
            )
            if errors is None:
                raise error from None
            errors.append(error)
            lines.append("")  # reported; kept as a placeholder so numbering stays right
    return lines

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
        fmt: ``"auto"`` (:func:`inflect.text.layouts.detect_layout`), ``"2018"``, ``"covered"``,
            ``"2023"``.
        collect_errors: report every problem in :attr:`~inflect.text.records.ParsedFile.errors`
            instead of raising.
        empty_form: accept an empty form (see :func:`inflect.text.parsing.parse_lines`).

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
        fmt: ``"auto"`` (:func:`inflect.text.layouts.detect_layout`), ``"2018"`` or ``"2023"``.
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
    """Read a data file into a list of :class:`~inflect.text.records.Example` (see
    :func:`parse_file`).

    Raises:
        DataFormatError: at the first malformed line, with file, line and value.
        OSError: the file cannot be read.
    """
    return parse_file(path, language, fmt).examples

def check_file(path: str | os.PathLike[str], fmt: Format = "auto") -> ParsedFile:
    """Validate a file and collect *every* problem (see
    :attr:`~inflect.text.records.ParsedFile.errors`).

    Raises:
        OSError: the file cannot be read.
    """
    return parse_file(path, fmt=fmt, collect_errors=True)


def check_warnings(parsed: ParsedFile) -> list[DataFormatError]:
    """The lines a reader accepts but a user should look at, one record each (``FILE:LINE:``).

    A header line (skipped), a tag bundle that repeated a feature (counted: a multiset) or had spaces around a feature
    (removed), a lemma or form with leading or trailing whitespace (kept: spaces are data), and
    the repeats :func:`duplicate_warnings` finds.
    """
    found: list[DataFormatError] = []
    if parsed.stats.header is not None:
        found.append(DataFormatError(
            parsed.stats.source, 1, f"a header line, skipped (it names the layout "
            f"{parsed.stats.fmt}: {' '.join(parsed.stats.header.split(chr(9)))})",
            parsed.stats.header))
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
    found += duplicate_warnings(parsed)
    found += layer_warnings(parsed)
    found.sort(key=lambda e: e.line or 0)
    return found


def layer_warnings(parsed: ParsedFile) -> list[DataFormatError]:
    """The UniMorph 4 layered features of a file that a user should look at
    (:mod:`inflect.text.layers`): a layer written in another order of its parts (or with other
    separators) than the file wrote it first (``NOM(MASC;3,SG)`` after ``NOM(3,SG,MASC)``: the
    same feature, :func:`inflect.text.layers.canonical_feature`), once per spelling, on its first
    line, with the number of lines that write it so. A layer that cannot be read (``PSS(1,PL``:
    a bracket never closed) is an error of ``data check`` (:func:`inflect.corpora.bundles.
    tag_problems`), not a warning here."""
    from inflect.text.layers import canonical_feature, is_layer, layer_problem

    found: list[DataFormatError] = []
    first: dict[str, tuple[str, int | None]] = {}
    others: dict[tuple[str, str], list[int | None]] = {}
    for ex in parsed.examples:
        for raw in split_features(ex.tags.text):
            feature = raw.strip()
            if layer_problem(feature) is not None or not is_layer(feature):
                continue
            canonical = canonical_feature(feature)
            spelled, line = first.setdefault(canonical, (feature, ex.line))
            if feature != spelled:
                others.setdefault((canonical, feature), []).append(ex.line)
    for (canonical, feature), lines in others.items():
        spelled, line = first[canonical]
        more = f"; {len(lines)} lines write it so" if len(lines) > 1 else ""
        found.append(DataFormatError(
            parsed.stats.source, lines[0],
            f"layered feature with its parts in another order than line {line} wrote it "
            f"({spelled}; the same feature: {canonical}){more}", feature))
    return found


def duplicate_warnings(parsed: ParsedFile) -> list[DataFormatError]:
    """The lines that repeat an input (lemma and tag bundle, order-free) of an earlier line,
    each naming that line: the same line again, the same pair with the features in another
    order, or another form of the same input (conflicting: ``inflect evaluate`` scores the
    last form of a repeated gold input and counts the repeat as ``gold_duplicates``)."""
    found: list[DataFormatError] = []
    first: dict[tuple[str, tuple[str, ...]], list[Example]] = {}
    for ex in parsed.examples:
        source = ex.source or parsed.stats.source
        earlier = first.setdefault((ex.lemma, ex.tags.multiset), [])
        same = next((e for e in earlier if e.form == ex.form), None)
        if same is not None and same.tags.text == ex.tags.text:
            what = f"repeats line {same.line} exactly"
        elif same is not None:
            what = (f"repeats line {same.line} ({same.tags.text}) with the features in another "
                    "order")
        elif earlier:
            forms = ", ".join(f"{e.form!r} at line {e.line}" for e in earlier)
            what = (f"another form of the input {ex.lemma!r} {ex.tags.text} than {forms} "
                    "(inflect evaluate scores a repeated gold input's last form)")
        else:
            earlier.append(ex)
            continue
        if same is None:
            earlier.append(ex)
        found.append(DataFormatError(source, ex.line, what, ex.form if ex.form is not None
                                     else ex.tags.text))
    return found
