"""The layouts of inflection files, and how one is told from the lines (``fmt="auto"``).

One example a line, fields separated by a TAB:

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
  the layout, and a line that plainly contradicts the layout found is an error of its own
  (:func:`contradiction`).

A first line that names the columns (``lemma<TAB>form<TAB>tags``, :func:`header_layout`) is a
header: every reader skips it (as a blank line, counted and said), and it tells the layout.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from inflect.text.records import BOM, WHITESPACE, DataFormatError, Format, split_features

__all__ = [
    "LAYOUT_MAX_DISSENT",
    "LAYOUT_SAMPLE_LINES",
    "LAYOUT_STREAM_LINES",
    "bundle_score",
    "contradiction",
    "detect_format",
    "detect_layout",
    "header_layout",
    "layout_vote",
]

# The characters of a UniMorph feature, with an upper-case letter or a digit (N, V.PTCP, 1+EXCL,
# and the 2023 data's features with an argument: NOM(1,SG), DAT(PL;LGSPEC2)).
_FEATURE = re.compile(r"[A-Za-z0-9.+/:_{}()\[\],;\-]*[A-Z0-9][A-Za-z0-9.+/:_{}()\[\],;\-]*")

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


def _looks_like_feature(text: str) -> bool:
    """A UniMorph feature as the shared tasks write them: ASCII letters, digits and
    ``.+/:_{}()[],;-`` with at least as many upper-case letters and digits as lower-case letters
    (``N``, ``V.PTCP``, ``LgSPEC8``, ``non{NOM}``, the 2023 ``NOM(1,SG)``; not ``Haus``)."""
    if not _FEATURE.fullmatch(text):
        return False
    lower = sum(c.islower() for c in text)
    return lower <= sum(c.isupper() or c.isdigit() for c in text)


# Universal Dependencies tags: an optional UPOS, then Name=Value pairs joined by | (or _).
_UD_TAGS = re.compile(
    r"(?:[A-Z]+\|)?(?:_|[A-Za-z0-9]+(?:\[[a-z0-9]+\])?=[A-Za-z0-9,]+"
    r"(?:\|[A-Za-z0-9]+(?:\[[a-z0-9]+\])?=[A-Za-z0-9,]+)*)"
)
#: The names a header line gives each field (lower case), as spreadsheets and other tools
#: write them.
HEADER_NAMES = {
    "lemma": frozenset({"lemma", "lemmas"}),
    "form": frozenset({"form", "forms", "inflected form", "inflection", "word form", "wordform",
                       "target"}),
    "tags": frozenset({"tags", "tag", "tag bundle", "msd", "features", "feats", "unimorph"}),
}
_HEADERS: dict[tuple[str, ...], Format] = {
    ("lemma", "form", "tags"): "2018", ("lemma", "tags", "form"): "2023",
    ("lemma", "tags"): "covered",
}


def header_layout(fields: list[str]) -> Format | None:
    """The layout a header line names, its fields split on TAB (``lemma``, ``form``, ``tags``
    and their usual names, :data:`HEADER_NAMES`, in any case): ``lemma form tags`` -> ``"2018"``,
    ``lemma tags form`` -> ``"2023"``, ``lemma tags`` -> ``"covered"``; None for a line that is
    not such a header (no word names a column: a header needs a lemma and a tag column, so
    ``lemma`` alone, a real word, is data)."""
    names = []
    for field in fields:
        key = " ".join(field.strip(WHITESPACE).lower().replace("_", " ").split())
        name = next((n for n, words in HEADER_NAMES.items() if key in words), None)
        if name is None:
            return None
        names.append(name)
    return _HEADERS.get(tuple(names))


def bundle_score(text: str) -> int:
    """How much ``text`` looks like a tag bundle: 2 for features joined by ``;`` (or UD tags,
    ``NOUN|Case=Dat|Number=Plur``), 1 for one feature, 0 otherwise (a word)."""
    if "=" in text and _UD_TAGS.fullmatch(text.strip()):
        return 2
    parts = [p.strip(WHITESPACE) for p in split_features(text)]
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
    return "2023" if bundle_score(fields[1]) > bundle_score(fields[2]) else "2018"


def layout_vote(fields: list[str]) -> tuple[str | None, bool]:
    """What one line of 3 fields says about the layout: ``("2023", strong)`` when its second
    field looks more like a tag bundle than its third, ``("2018", strong)`` the other way round,
    ``(None, False)`` when it cannot tell; ``strong`` when one is a bundle of several features
    and the other no feature at all."""
    second, third = bundle_score(fields[1]), bundle_score(fields[2])
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
        if index == 0 and line.startswith(BOM):
            line = line[1:]
        if not line.strip(WHITESPACE):
            continue
        fields = line.split("\t")
        if len(fields) not in widths:
            continue
        widths[len(fields)] += 1
        first_width = first_width or len(fields)
        if len(fields) == 3:
            vote, _ = layout_vote(fields)
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


def contradiction(fields: list[str], resolved: str) -> str | None:
    """The message for a line of 3 fields that plainly has the other layout than ``resolved``
    (its form field a bundle of several features, its tag field no feature), or None."""
    vote, strong = layout_vote(fields)
    if not strong or vote == resolved:
        return None
    return (
        f"the line looks like {_LAYOUT_WORDS[vote]}, but the file's layout is "
        f"{_LAYOUT_WORDS[resolved]}; give the layout if it was detected wrong "
        "(--input-format 2018 or 2023)"
    )
