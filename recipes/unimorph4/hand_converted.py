"""A 2023 dev file scored as it is and with its tags converted by hand: does the UniMorph 4 reader
cost accuracy?

For each language with a hand table (``hand/LANGUAGE.tsv``: every distinct tag bundle of its
SIGMORPHON 2023 dev file, Goldman et al., 2023, and the CoNLL–SIGMORPHON 2018 bundle of the same
cell, written by hand from the UniMorph 4 schema, Batsuren et al., 2022, §3.2, and the language's
2018 bundles; ``-`` where the 2018 data have no such cell), ``inflect evaluate`` scores the
language's shipped model twice on the same lines of ``LANG.dev``: once with the tags as written
(the tag dialects' reader, ``inflect/text/dialects.py``, converts them), once with the tags
replaced by the hand table's. Lines whose bundle has no 2018 cell are left out of both runs (the
accuracy of the whole file as written, those lines scored as the model answers them, is given
beside). A hand table is an independent reference: it is not made by the reader; the reader is
only asked afterwards which bundles it reads otherwise (the last column). The 2023 test files
are not read.

Usage::

    python recipes/unimorph4/hand_converted.py --data-2023 PATH/2023InflectionST/part1/data \\
        --data-2018 ../shared/data/conll2018-task1 --out recipes/unimorph4/hand_converted.md

Writes a Markdown table (language, lines, lines with no 2018 cell, accuracy of the whole file as
written, accuracy as written and hand-converted on the same lines, their difference, whether it
is within the issue's 2 points, the hand table's agreement on the pairs (lemma, form) the 2018
files share, the bundles the reader reads otherwise).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agreement import cells_2018  # the recipe beside this one

from inflect.corpora.bundles import language_bundles
from inflect.io.atomic import write_text
from inflect.text.dialects import TagError, read_tags
from inflect.text.languages import resolve
from inflect.text.records import TagBundle

HAND = Path(__file__).resolve().parent / "hand"
#: The issue's criterion: the file as written scores within this many points of the hand one.
WITHIN = 2.0
#: A hand table's line for a 2023 bundle with no 2018 cell.
NO_CELL = "-"


class HandTableError(ValueError):
    """A hand table that is malformed, misses a bundle of the dev file, or names a bundle the
    language's 2018 data do not have (the message names the file, line and value)."""


@dataclass
class Row:
    """One language's figures (accuracies in percent; None where not run)."""

    language: str
    code: str
    lines: int = 0
    no_cell: int = 0
    whole: float | None = None
    written: float | None = None
    hand: float | None = None
    pairs: int = 0
    pairs_agree: int = 0
    otherwise: list[str] = field(default_factory=list)

    @property
    def difference(self) -> float | None:
        if self.written is None or self.hand is None:
            return None
        return self.written - self.hand


def read_table(path: Path, language: str) -> dict[str, str]:
    """A hand table: 2023 bundle -> the 2018 bundle as the data write it (or ``-``).

    Raises:
        HandTableError: a line without two fields, a bundle given twice, or a 2018 bundle that
            is not one of the language's (as a multiset, :func:`language_bundles`).
    """
    known = language_bundles(language)
    table: dict[str, str] = {}
    header = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise HandTableError(f"{path}:{number}: expected 2023 bundle<TAB>2018 bundle: {line!r}")
        if not header:  # the column names
            header = True
            continue
        written, cell = fields
        if written in table:
            raise HandTableError(f"{path}:{number}: {written!r} is given twice")
        if cell != NO_CELL and (known is None or not known.knows(TagBundle.parse(cell))):
            raise HandTableError(f"{path}:{number}: {cell!r} is not a 2018 bundle of {language}")
        table[written] = cell
    return table


def read_dev(path: Path, table: dict[str, str], table_path: Path) -> list[tuple[str, str, str]]:
    """The dev file's lines (lemma, tags, form), each bundle checked to be in the table.

    Raises:
        HandTableError: a line whose bundle the table lacks, or a malformed line.
    """
    lines = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("\t")
        if len(fields) != 3:
            raise HandTableError(f"{path}:{number}: expected lemma<TAB>tags<TAB>form")
        if fields[1] not in table:
            raise HandTableError(
                f"{path}:{number}: the bundle {fields[1]!r} is not in {table_path}"
            )
        lines.append((fields[0], fields[1], fields[2]))
    return lines


def passes(lines: list[tuple[str, str, str]], table: dict[str, str]) -> list[list[int]]:
    """The lines split into as few groups as need be so that no group holds one input (lemma,
    bundle) twice, as written or hand-converted: ``inflect evaluate`` scores a repeated input
    once (the shared task's scorer does), and two 2023 cells may be one 2018 cell (Navajo's 3rd
    person SG and PL are the 2018 SG/DU/PL): each line is then still scored once."""
    groups: list[tuple[list[int], set]] = []
    for i, (lemma, tags, _) in enumerate(lines):
        keys = {(lemma, "w", tags), (lemma, "h", TagBundle.parse(table[tags]).multiset)}
        for members, seen in groups:
            if not keys & seen:
                members.append(i)
                seen |= keys
                break
        else:
            groups.append(([i], set(keys)))
    return [members for members, _ in groups]


def evaluate(path: Path, language: str, beam: int, setting: str | None) -> tuple[int, float]:
    """``inflect evaluate`` of a gold file in the 2023 layout: (inputs scored, accuracy %).

    Raises:
        RuntimeError: the command failed (its standard error in the message).
    """
    command = [
        sys.executable,
        "-m",
        "inflect",
        "evaluate",
        "--gold",
        str(path),
        "--lang",
        language,
        "--beam",
        str(beam),
        "--input-format",
        "2023",
        "--format",
        "tsv",
    ]
    if setting:
        command += ["--setting", setting]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy())
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
    for row in csv.DictReader(io.StringIO(done.stdout), delimiter="\t"):
        if row["language"] == language:
            return int(row["n"]), float(row["accuracy"])
    raise RuntimeError(f"{' '.join(command)}: no row for {language} in {done.stdout!r}")


def scored(
    lines: list[tuple[str, str, str]],
    groups: list[list[int]],
    folder: Path,
    name: str,
    language: str,
    beam: int,
    setting: str | None,
) -> float:
    """The accuracy over ``lines`` (each scored once), one ``inflect evaluate`` per group."""
    correct = 0.0
    for k, members in enumerate(groups):
        path = folder / f"{name}-{k}.tsv"
        path.write_text(
            "".join(f"{lines[i][0]}\t{lines[i][1]}\t{lines[i][2]}\n" for i in members),
            encoding="utf-8",
        )
        n, accuracy = evaluate(path, language, beam, setting)
        if n != len(members):
            raise RuntimeError(f"{path}: {len(members)} lines written, {n} scored")
        correct += accuracy * n / 100
    return 100 * correct / sum(len(m) for m in groups)


def read_otherwise(table: dict[str, str], language: str) -> list[str]:
    """The bundles the reader (:func:`read_tags`) reads otherwise than the hand table:
    ``2023 bundle: reader's bundle (hand: 2018 bundle)``; a reader's error is ``no cell``."""
    known = language_bundles(language)
    out = []
    for written, cell in sorted(table.items()):
        try:
            read = read_tags(written, "auto", known, language)
            got = read.asked if read.known else None
        except TagError:
            got = None
        hand = None if cell == NO_CELL else TagBundle.parse(cell)
        if got != hand:
            shown = got.text if got is not None else "no cell"
            out.append(f"{written}: {shown} (hand: {cell})")
    return out


def shared_pairs(
    table: dict[str, str], code: str, language: str, folder_2023: Path, folder_2018: Path
) -> tuple[int, int]:
    """The hand table checked on the data: of the 2023 train and dev lines whose bundle it
    converts to a cell the 2018 files give their lemma, how many have the 2018 form."""
    cells = cells_2018(folder_2018, language)
    total = agree = 0
    for suffix in ("trn", "dev"):
        for line in (folder_2023 / f"{code}.{suffix}").read_text(encoding="utf-8").splitlines():
            lemma, tags, form = line.split("\t")
            cell = table.get(tags, NO_CELL)
            if cell == NO_CELL:
                continue
            forms = cells.get((lemma, TagBundle.parse(cell).multiset))
            if forms is not None:
                total += 1
                agree += form in forms
    return total, agree


def measure(
    language: str,
    folder_2023: Path,
    folder_2018: Path | None,
    hand: Path,
    beam: int,
    setting: str | None,
    limit: int | None,
) -> Row:
    """One language's row (see the module docstring)."""
    code = resolve(language).iso639_3
    table_path = hand / f"{language}.tsv"
    table = read_table(table_path, language)
    lines = read_dev(folder_2023 / f"{code}.dev", table, table_path)[:limit]
    kept = [(lemma, tags, form) for lemma, tags, form in lines if table[tags] != NO_CELL]
    converted = [(lemma, table[tags], form) for lemma, tags, form in kept]
    row = Row(language, code, len(lines), len(lines) - len(kept))
    with tempfile.TemporaryDirectory(prefix="hand-converted-") as temp:
        folder = Path(temp)
        groups = passes(kept, table)
        row.written = scored(kept, groups, folder, "written", language, beam, setting)
        row.hand = scored(converted, groups, folder, "hand", language, beam, setting)
        if row.no_cell:
            whole = passes(lines, {t: (c if c != NO_CELL else t) for t, c in table.items()})
            row.whole = scored(lines, whole, folder, "whole", language, beam, setting)
        else:
            row.whole = row.written
    row.otherwise = read_otherwise({t: table[t] for _, t, _ in lines}, language)
    if folder_2018 is not None:
        row.pairs, row.pairs_agree = shared_pairs(table, code, language, folder_2023, folder_2018)
    return row


def markdown(rows: list[Row], beam: int) -> str:
    """The Markdown table of the rows."""

    def pct(x: float | None) -> str:
        return "—" if x is None else f"{x:.1f}"

    out = [
        f"| language | lines | no 2018 cell | whole file as written | as written | "
        f"hand-converted | difference | within {WITHIN:g} | hand table on shared pairs | "
        f"bundles the reader reads otherwise |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---|",
    ]
    for r in rows:
        diff = r.difference
        within = "—" if diff is None else ("yes" if abs(diff) <= WITHIN else "**no**")
        pairs = f"{r.pairs_agree:,}/{r.pairs:,}" if r.pairs else "—"
        other = "; ".join(f"`{o}`" for o in r.otherwise[:6]) or "—"
        if len(r.otherwise) > 6:
            other += f" (+{len(r.otherwise) - 6})"
        out.append(
            f"| {r.language} ({r.code}) | {r.lines:,} | {r.no_cell:,} | {pct(r.whole)} | "
            f"{pct(r.written)} | {pct(r.hand)} | "
            f"{'—' if diff is None else f'{diff:+.1f}'} | {within} | {pairs} | {other} |"
        )
    out.append("")
    out.append(
        f"Accuracy in percent, beam {beam}, the shipped model of each language (`inflect "
        'evaluate --lang L`); "as written" and "hand-converted" on the same lines (those '
        'with a 2018 cell); "whole file" with every line of the dev file, as written.'
    )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-2023",
        required=True,
        type=Path,
        help="the folder of LANG.dev (2023 layout: lemma<TAB>tags<TAB>form)",
    )
    parser.add_argument(
        "--data-2018",
        type=Path,
        default=None,
        help="the CoNLL-SIGMORPHON 2018 task 1 folder (checks the hand tables "
        "on the pairs both data hold)",
    )
    parser.add_argument(
        "--hand",
        type=Path,
        default=HAND,
        help="the folder of the hand tables, LANGUAGE.tsv (default: %(default)s)",
    )
    parser.add_argument(
        "--lang",
        action="append",
        default=None,
        help="a language (repeatable; default: every hand table)",
    )
    parser.add_argument("--beam", type=int, default=5, help="beam size (default: %(default)s)")
    parser.add_argument(
        "--setting",
        choices=["high", "medium", "low"],
        default=None,
        help="the shipped model's setting (default: the language's best)",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N lines of each dev file"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown table here")
    args = parser.parse_args(argv)
    languages = args.lang or sorted(p.stem for p in args.hand.glob("*.tsv"))
    rows = []
    for language in languages:
        row = measure(
            language, args.data_2023, args.data_2018, args.hand, args.beam, args.setting, args.limit
        )
        print(f"{language}: as written {row.written:.1f}, hand {row.hand:.1f}", file=sys.stderr)
        rows.append(row)
    text = markdown(rows, args.beam)
    print(text, end="")
    if args.out is not None:
        write_text(args.out, text)


if __name__ == "__main__":
    main()
