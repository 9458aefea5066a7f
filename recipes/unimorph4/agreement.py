"""How often the UniMorph 4 conversion finds the 2018 cell: the agreement table per language, and
the conversions not to trust (``inflect/text/tagsets/unconverted.toml``).

For each language of a SIGMORPHON 2023 folder (``LANG.trn`` and ``LANG.dev``, lemma<TAB>tags<TAB>
form, ISO 639-3 names: ``deu``, ``fin``; a suffixed name such as ``heb_unvoc``, the unvocalised
Hebrew files, is its language's; Goldman et al., 2023) that the CoNLL–SIGMORPHON 2018 data also
have: its train and dev lines whose lemma the 2018 files (every split with forms) have, their
tags read by :func:`inflect.text.dialects.read_tags` (the refusal off) as the language's 2018
bundle; a line whose bundle read is a cell the 2018 files give the lemma agrees when its form is
that cell's 2018 form, compared after :func:`normalise` (marks only the 2018 files write: the
stress of Belarusian, the shin and sin dots of Hebrew; a question mark; the visarga). The 2023
test files are not read.

What is not converted (:func:`unconverted_toml`), each with at least :data:`MINIMUM` lines of which
most disagree (fewer than :data:`UNTRUSTED` agree):

- a cell (the tags as written), unless :data:`EXCLUDED` names it (a disagreement of the
  datasets, not of the conversion: the README gives the evidence);
- a feature that readings leave out (Turkish ``NEC``), its lines pooled over the cells whose
  reading leaves it out (most have one or two lines each): the measured cells are a sample of a
  paradigm, and a cell not measured whose reading leaves out the same feature answers another
  cell too. Features are taken one at a time, the one that agrees least first, each judged on
  the cells the features before it leave (:meth:`Row.refused_features`).

Usage::

    python recipes/unimorph4/agreement.py --data-2023 PATH/2023InflectionST/part1/data \\
        --data-2018 ../shared/data/conll2018-task1 --out recipes/unimorph4/agreement.md \\
        --table inflect/text/tagsets/unconverted.toml
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from inflect.corpora.bundles import language_bundles
from inflect.io.atomic import write_text
from inflect.text.dialects import TagError, read_tags
from inflect.text.languages import UnknownLanguageError, resolve
from inflect.text.records import SPLITS, TagBundle
from inflect.text.tagsets import REASONS

#: Fewer than this share of a cell's (or a feature's) lines agree, most disagree: its conversion
#: is not trusted.
UNTRUSTED = 0.5
#: Cells and features with fewer lines are noise: neither listed as untrusted nor refused.
MINIMUM = 3
#: A combining diacritic (:func:`mark_shares`) the 2018 forms of a language carry on at least this
#: share of forms...
MARKED_2018 = 0.01
#: ... and its 2023 forms on less than this fraction of that share is written by the 2018 files
#: only (Belarusian stress, U+0301; Hebrew shin and sin dots, U+05C1, U+05C2): :func:`normalise`
#: leaves it out on both sides.
MARKED_2023 = 0.2


@dataclass(frozen=True)
class Excluded:
    """Cells whose disagreement is the datasets', not the conversion's: not refused.

    Attributes:
        language: the shared-task name.
        pattern: the 2023 tags as written, a :func:`fnmatch.fnmatchcase` pattern.
        reason: why, in words (the README gives a sample pair as evidence).
    """

    language: str
    pattern: str
    reason: str


#: The cells whose lines disagree because a dataset is wrong (README, "Excluded").
EXCLUDED: tuple[Excluded, ...] = (
    Excluded(
        "danish",
        "N;NOM(DEF;*)",
        "the 2023 files write the genitive definite under the nominative definite (they have no "
        "N;GEN(DEF;...) cell); the conversion to N;DEF;NOM;SG / PL is the nominative's",
    ),
    Excluded(
        "hebrew",
        "N;PL;PSSD;PSS(3,PL,*)",
        "a plural noun's 3rd-person plural possessor has a short and a long form; the 2023 "
        "files give the short one, the 2018 files the long one, of the same cell",
    ),
)


#: A word-final Devanagari s or r (स्, र्): the 2023 Sanskrit files write it so, the 2018 files
#: write the visarga (ः) there, the pausal form (no 2018 form ends in स्, no 2023 form in ः).
_FINAL_S_R = re.compile(r"[सर]\u094d(?=\s|$)")


def normalise(form: str, marks: frozenset[str] = frozenset()) -> str:
    """A form as compared: NFC, the typographic apostrophe (U+2019) as ``'``, a final ``?`` left
    out (the 2018 Turkish files end interrogative forms with it: ``değişiyor mu?``), a
    word-final Devanagari s or r as the visarga (Sanskrit: 2023 ``मषेस्``, 2018 ``मषेः``), and
    the combining ``marks`` left out (those only the 2018 files of the language write:
    :func:`marks_of_2018`)."""
    form = unicodedata.normalize("NFC", form).replace("\u2019", "'")
    if form.endswith("?"):
        form = form[:-1].rstrip()
    form = _FINAL_S_R.sub("\u0903", form)
    if marks:
        decomposed = unicodedata.normalize("NFD", form)
        form = unicodedata.normalize("NFC", "".join(c for c in decomposed if c not in marks))
    return form


def mark_shares(forms: list[str]) -> dict[str, float]:
    """Per combining diacritic (Unicode category Mn with a combining class above 0, once
    decomposed: NFD; accents and points, not the vowel signs or anusvara of Indic scripts), the
    share of ``forms`` that carry it."""
    counts: dict[str, int] = defaultdict(int)
    for form in forms:
        for mark in {c for c in unicodedata.normalize("NFD", form)
                     if unicodedata.category(c) == "Mn" and unicodedata.combining(c)}:
            counts[mark] += 1
    return {m: n / max(len(forms), 1) for m, n in counts.items()}


def marks_of_2018(forms_2018: list[str], forms_2023: list[str]) -> frozenset[str]:
    """The combining marks the 2018 forms carry on at least :data:`MARKED_2018` of them and the
    2023 forms on less than :data:`MARKED_2023` of that share: marks only the 2018 files write
    (Belarusian's stress: 94% of the 2018 forms, 7% of the 2023 forms; Hebrew's shin dot: 11%
    and none)."""
    shares_2023 = mark_shares(forms_2023)
    return frozenset(
        m for m, share in mark_shares(forms_2018).items()
        if share >= MARKED_2018 and shares_2023.get(m, 0.0) < MARKED_2023 * share
    )


def cells_2018(folder: Path, language: str) -> dict[tuple[str, tuple[str, ...]], set[str]]:
    """(lemma, bundle as a multiset) -> the forms the 2018 files of ``language`` give it."""
    found: dict[tuple[str, tuple[str, ...]], set[str]] = defaultdict(set)
    for split in SPLITS:
        path = folder / f"{language}-{split}"
        if split == "covered-test" or not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if len(fields) == 3:
                found[(fields[0], TagBundle.parse(fields[2]).multiset)].add(fields[1])
    return found


def language_of_code(code: str) -> str | None:
    """The shared-task name of a 2023 file name's code (``deu``; ``heb_unvoc`` -> hebrew), or
    None."""
    for name in (code, code.split("_")[0]):
        try:
            return resolve(name).name
        except UnknownLanguageError:
            continue
    return None


@dataclass
class Cell:
    """One 2023 cell (tags as written) of a language: how it is read and how its lines agree.

    Attributes:
        tags: the 2023 tags as written.
        read_as: the 2018 bundle read (the refusal off).
        key: that bundle as a multiset.
        dropped: the features the reading leaves out.
        dialect: the dialect the tags were read in (``"unimorph"``: no layer, read as written).
        agree, total: the lines with the 2018 form (after :func:`normalise`), the lines.
        as_written: the lines with the 2018 form before :func:`normalise`.
        sample: a line that disagrees: (lemma, 2023 form, the 2018 forms).
    """

    tags: str
    read_as: str
    key: tuple[str, ...]
    dropped: tuple[str, ...]
    dialect: str
    agree: int = 0
    total: int = 0
    as_written: int = 0
    sample: tuple[str, str, tuple[str, ...]] | None = None

    @property
    def untrusted(self) -> bool:
        return self.total >= MINIMUM and self.agree < UNTRUSTED * self.total

    @property
    def mostly_disagree(self) -> bool:
        return self.agree < UNTRUSTED * self.total


@dataclass
class Pool:
    """The lines of the cells whose reading leaves out one feature."""

    feature: str
    agree: int = 0
    total: int = 0
    cells: int = 0

    @property
    def untrusted(self) -> bool:
        return self.total >= MINIMUM and self.agree < UNTRUSTED * self.total


@dataclass
class Row:
    """The measurement of one language (see the module docstring)."""

    language: str
    codes: list[str]
    other: int = 0
    marks: frozenset[str] = frozenset()
    cells: dict[str, Cell] = field(default_factory=dict)

    @property
    def pairs(self) -> int:
        return sum(c.total for c in self.cells.values())

    @property
    def agree(self) -> int:
        return sum(c.agree for c in self.cells.values())

    @property
    def as_written(self) -> int:
        return sum(c.as_written for c in self.cells.values())

    def excluded(self) -> list[tuple[Excluded, Cell]]:
        """The cells :data:`EXCLUDED` names, where most lines disagree."""
        found = []
        for cell in self.cells.values():
            rule = next((e for e in EXCLUDED if e.language == self.language
                         and fnmatch.fnmatchcase(cell.tags, e.pattern)), None)
            if rule is not None and cell.mostly_disagree:
                found.append((rule, cell))
        return found

    def candidates(self) -> list[Cell]:
        """The cells that may be refused: converted (not read as written), not excluded."""
        excluded = {id(c) for _, c in self.excluded()}
        return [c for c in self.cells.values()
                if c.dialect != "unimorph" and id(c) not in excluded]

    def refused_cells(self) -> list[Cell]:
        return sorted((c for c in self.candidates() if c.untrusted), key=lambda c: c.tags)

    def pools(self, cells: list[Cell] | None = None) -> list[Pool]:
        """One pool per feature left out by the reading of a cell of ``cells`` (default: the
        candidates)."""
        pools: dict[str, Pool] = {}
        for cell in self.candidates() if cells is None else cells:
            for feature in dict.fromkeys(cell.dropped):
                pool = pools.setdefault(feature, Pool(feature))
                pool.agree, pool.total = pool.agree + cell.agree, pool.total + cell.total
                pool.cells += 1
        return sorted(pools.values(), key=lambda p: p.feature)

    def refused_features(self) -> list[Pool]:
        """The features refused, one at a time: the untrusted pool that agrees least, then the
        pools of the cells it does not cover, so that a feature left out beside a refused one
        (Swahili ``POS`` beside ``NEG``) is judged by its own cells."""
        cells, refused = [c for c in self.candidates() if c.dropped], []
        while True:
            worst = min((p for p in self.pools(cells) if p.untrusted),
                        key=lambda p: (p.agree / p.total, -p.total, p.feature), default=None)
            if worst is None:
                return sorted(refused, key=lambda p: p.feature)
            refused.append(worst)
            cells = [c for c in cells if worst.feature not in c.dropped]

    def caught(self) -> list[Cell]:
        """Cells of :data:`MINIMUM` lines or more where most agree, but whose reading leaves out
        a refused feature (the refusal refuses them too)."""
        features = {p.feature for p in self.refused_features()}
        return [c for c in self.candidates()
                if c.total >= MINIMUM and not c.mostly_disagree and features & set(c.dropped)]

    def noise(self) -> list[Cell]:
        """The candidate cells where most lines disagree, with fewer than :data:`MINIMUM`, that
        no refused feature covers: left as they are."""
        features = {p.feature for p in self.refused_features()}
        return sorted((c for c in self.candidates() if c.total < MINIMUM and c.mostly_disagree
                       and not features & set(c.dropped)), key=lambda c: c.tags)

    def converted(self) -> list[Cell]:
        """The cells the reader converts now: not excluded, not refused as a cell or by a
        feature left out."""
        refused = {id(c) for c in self.refused_cells()}
        features = {p.feature for p in self.refused_features()}
        excluded = {id(c) for _, c in self.excluded()}
        return [c for c in self.cells.values() if id(c) not in refused | excluded
                and (c.dialect == "unimorph" or not features & set(c.dropped))]

    def written_untrusted(self) -> list[Cell]:
        """Cells read as written (no layer: nothing converted) where most lines disagree."""
        return [c for c in self.cells.values() if c.dialect == "unimorph" and c.untrusted]


def agreement(language: str, codes: list[str], folder_2023: Path, folder_2018: Path) -> Row | None:
    """The :class:`Row` of one language from its 2023 files (``CODE.trn``, ``CODE.dev`` of each
    of ``codes``); None where the 2018 data do not have it."""
    known = language_bundles(language)
    shared = cells_2018(folder_2018, language)
    if known is None or not shared:
        return None
    lemmas = {lemma for lemma, _ in shared}
    lines = []
    for code in codes:
        for suffix in ("trn", "dev"):
            path = folder_2023 / f"{code}.{suffix}"
            if path.is_file():
                for line in path.read_text(encoding="utf-8").splitlines():
                    fields = line.split("\t")
                    if len(fields) == 3:
                        lines.append(fields)
    forms_2018 = [f for forms in shared.values() for f in forms]
    compared = [f[2] for f in lines if f[0] in lemmas]  # the 2023 forms of the lemmas shared
    row = Row(language, codes, marks=marks_of_2018(forms_2018, compared))
    readings: dict[str, Cell | None] = {}
    for lemma, tags, form in lines:
        if lemma not in lemmas:
            continue
        if tags not in readings:
            try:
                reading = read_tags(tags, "auto", known, language, refuse=False)
                readings[tags] = Cell(tags, reading.asked.text, reading.asked.multiset,
                                      reading.dropped, reading.dialect)
            except TagError:
                readings[tags] = None
        cell = readings[tags]
        forms = shared.get((lemma, cell.key)) if cell else None
        if cell is None or forms is None:
            row.other += 1
            continue
        row.cells[tags] = cell
        agree = normalise(form, row.marks) in {normalise(f, row.marks) for f in forms}
        cell.total += 1
        cell.agree += agree
        cell.as_written += form in forms
        if not agree and cell.sample is None:
            cell.sample = (lemma, form, tuple(sorted(forms)))
    return row


def measure(folder_2023: Path, folder_2018: Path) -> list[Row]:
    """A :class:`Row` per language of ``folder_2023`` that the 2018 data have, by name."""
    by_language: dict[str, list[str]] = defaultdict(list)
    for code in sorted({p.stem for p in folder_2023.glob("*.trn")}):
        language = language_of_code(code)
        if language is not None:
            by_language[language].append(code)
    rows = (agreement(lang, codes, folder_2023, folder_2018) for lang, codes in by_language.items())
    return sorted((r for r in rows if r is not None), key=lambda r: r.codes[0])


# ------------------------------------------------------------------ the table of the package
def _reason(cell_dropped: tuple[str, ...]) -> str:
    return "dropped-feature" if cell_dropped else "other-forms"


def _q(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def unconverted_toml(rows: list[Row], source: str = "") -> str:
    """``unconverted.toml`` (read by :func:`inflect.text.tagsets.unconverted`): a ``[[cell]]``
    per refused cell and a ``[[feature]]`` per refused feature left out, by language."""
    q = _q
    out = [
        "# UniMorph 4 conversions not trusted: inflect/text/dialects.py reads these tags as they",
        "# are written (TagReading.refused), not as the 2018 bundle. Written by",
        "# recipes/unimorph4/agreement.py --table (its README says why each is here); do not",
        "# edit by hand, rerun the recipe.",
        f"# Measured on: {source or 'the SIGMORPHON 2023 train and dev files'}.",
        "# reasons:",
        *(f"#   {k}: {v}" for k, v in REASONS.items()),
        f"minimum = {MINIMUM}",
        f"untrusted = {UNTRUSTED}",
    ]
    for row in rows:
        for cell in row.refused_cells():
            out += ["", "[[cell]]", f"language = {q(row.language)}", f"tags = {q(cell.tags)}",
                    f"read_as = {q(cell.read_as)}",
                    f"dropped = [{', '.join(q(f) for f in cell.dropped)}]",
                    f"agree = {cell.agree}", f"total = {cell.total}",
                    f"reason = {q(_reason(cell.dropped))}"]
        for pool in row.refused_features():
            out += ["", "[[feature]]", f"language = {q(row.language)}",
                    f"feature = {q(pool.feature)}", f"agree = {pool.agree}",
                    f"total = {pool.total}", f"cells = {pool.cells}",
                    f"reason = {q('dropped-feature')}"]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ the Markdown report
def _share(a: int, n: int) -> str:
    return f"{100 * a / n:.1f}%" if n else "—"


def _listed(items: list[str], n: int = 8) -> str:
    more = f" (+{len(items) - n})" if len(items) > n else ""
    return (", ".join(items[:n]) + more) or "—"


def table(rows: list[Row]) -> str:
    """The Markdown summary: a row per language."""
    lines = [
        "| language | lines in a 2018 cell | same form | share | as written | lines in no 2018 "
        "cell | not converted: cells (lines) | not converted: features left out (lines) | "
        "excluded (lines) | under the minimum, left (lines) | converted now: same form |",
        "|---|---:|---:|---:|---:|---:|---|---|---|---|---:|",
    ]
    for r in rows:
        cells = r.refused_cells()
        features = r.refused_features()
        excluded = r.excluded()
        noise = r.noise()
        kept = r.converted()
        kept_agree, kept_total = sum(c.agree for c in kept), sum(c.total for c in kept)
        lines.append(
            f"| {r.language} ({', '.join(r.codes)}) | {r.pairs:,} | {r.agree:,} | "
            f"{_share(r.agree, r.pairs)} | {_share(r.as_written, r.pairs)} | {r.other:,} | "
            f"{len(cells)} ({sum(c.total for c in cells):,}) | "
            f"{_listed([f'`{p.feature}` ({p.total:,})' for p in features])} | "
            f"{len(excluded)} ({sum(c.total for _, c in excluded):,}) | "
            f"{len(noise)} ({sum(c.total for c in noise):,}) | "
            f"{kept_agree:,} of {kept_total:,} ({_share(kept_agree, kept_total)}) |"
        )
    return "\n".join(lines) + "\n"


def details(rows: list[Row]) -> str:
    """Per language, every refused cell and feature, the excluded cells and a sample each."""

    def sample(cell: Cell) -> str:
        if cell.sample is None:
            return ""
        lemma, form, forms = cell.sample
        return f"`{lemma}` → 2023 `{form}`, 2018 `{' / '.join(forms)}`"

    out = []
    for r in rows:
        cells, features, excluded = r.refused_cells(), r.refused_features(), r.excluded()
        if not (cells or features or excluded or r.marks or r.written_untrusted()
                or r.caught() or r.noise()):
            continue
        out.append(f"\n### {r.language}\n")
        if r.marks:
            names = ", ".join(f"U+{ord(m):04X} {unicodedata.name(m, '?').lower()}"
                              for m in sorted(r.marks))
            out.append(f"Marks only the 2018 files write, left out before comparing: {names}; "
                       f"same form {_share(r.as_written, r.pairs)} as written, "
                       f"{_share(r.agree, r.pairs)} after every normalisation.\n")
        if cells:
            out += ["| not converted: cell | read as | left out | same form | a line |",
                    "|---|---|---|---:|---|"]
            out += [f"| `{c.tags}` | `{c.read_as}` | {', '.join(c.dropped) or '—'} | "
                    f"{c.agree} of {c.total} | {sample(c)} |" for c in cells]
            out.append("")
        if features:
            out += ["| not converted: feature left out | cells | same form |", "|---|---:|---:|"]
            out += [f"| `{p.feature}` | {p.cells} | {p.agree} of {p.total} |" for p in features]
            out.append("")
        if excluded:
            out += ["| excluded: cell | same form | why | a line |", "|---|---:|---|---|"]
            out += [f"| `{c.tags}` | {c.agree} of {c.total} | {e.reason} | {sample(c)} |"
                    for e, c in excluded]
            out.append("")
        noise = r.noise()
        if noise:
            out += ["Under the minimum, no refused feature left out (left as they are): "
                    + "; ".join(f"`{c.tags}` {c.agree} of {c.total}" for c in noise[:12])
                    + (f"; +{len(noise) - 12} more" if len(noise) > 12 else "") + ".\n"]
        for c in r.caught():
            out.append(f"Most lines agree, but refused with a feature left out: `{c.tags}` "
                       f"{c.agree} of {c.total}.\n")
        for c in r.written_untrusted():
            out.append(f"Read as written (no layer, nothing converted), most disagree: `{c.tags}` "
                       f"{c.agree} of {c.total}.\n")
    return "\n".join(out)


def report(rows: list[Row]) -> str:
    """The Markdown file: the summary, then the details."""
    return (
        f"Cells and features with fewer than {MINIMUM} lines are not judged; not converted: "
        f"fewer than {UNTRUSTED:.0%} of the lines have the 2018 form (most disagree).\n\n"
        + table(rows) + details(rows)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-2023", required=True, type=Path,
                        help="the folder of LANG.trn and LANG.dev (2023 layout)")
    parser.add_argument("--data-2018", required=True, type=Path,
                        help="the CoNLL-SIGMORPHON 2018 task 1 folder")
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown report here")
    parser.add_argument("--table", type=Path, default=None,
                        help="write the table of conversions not trusted here "
                             "(inflect/text/tagsets/unconverted.toml)")
    parser.add_argument("--source", default="",
                        help="what the 2023 data are, named in the table's header "
                             "(e.g. sigmorphon/2023InflectionST at commit e7f1b32)")
    args = parser.parse_args(argv)
    rows = measure(args.data_2023, args.data_2018)
    text = report(rows)
    print(text, end="")
    if args.out is not None:
        write_text(args.out, text)
    if args.table is not None:
        write_text(args.table, unconverted_toml(rows, args.source))


if __name__ == "__main__":
    main()
