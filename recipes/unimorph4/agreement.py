"""How often the UniMorph 4 conversion finds the 2018 cell: the agreement table per language.

For each language of a SIGMORPHON 2023 folder (``LANG.trn`` and ``LANG.dev``, lemma<TAB>tags<TAB>
form, ISO 639-3 names: ``deu``, ``fin``; Goldman et al., 2023) that the CoNLL–SIGMORPHON 2018
data also have, the pairs (lemma, form) of its train and dev files that the 2018 files (every
split with forms) also hold: the share whose 2023 tags, read by :func:`inflect.text.dialects.
read_tags` as the language's 2018 bundle, give one of the bundles the 2018 files give that pair
(a form may fill several cells: the pair agrees when the bundle read is one of them). Cells (2023
tags) where most pairs disagree are listed: their conversion is not to be trusted. The 2023 test
files are not read.

Usage::

    python recipes/unimorph4/agreement.py --data-2023 PATH/2023InflectionST/data \\
        --data-2018 ../shared/data/conll2018-task1 --out recipes/unimorph4/agreement.md

Writes a Markdown table (language, pairs shared, agreeing, share, the cells where most disagree).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from inflect.corpora.bundles import language_bundles
from inflect.io.atomic import write_text
from inflect.text.dialects import TagError, read_tags
from inflect.text.languages import UnknownLanguageError, resolve
from inflect.text.records import SPLITS, TagBundle

#: A cell is listed as not converted where at most this share of its pairs agree.
UNTRUSTED = 0.5


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


def agreement(code: str, folder_2023: Path, folder_2018: Path) -> dict | None:
    """The row of one 2023 language (None where the 2018 data do not have it): its train and dev
    lines whose lemma the 2018 files have; of those, the lines whose tags read as a cell the 2018
    files give that lemma (``pairs``), and the lines among them whose form is the 2018 form of
    that cell (``agree``); the lines whose tags read as no cell of the lemma in 2018 (``other``:
    the 2018 files sample a paradigm's cells, so most of these are cells they left out)."""
    try:
        language = resolve(code).name
    except UnknownLanguageError:
        return None
    known = language_bundles(language)
    shared = cells_2018(folder_2018, language)
    if known is None or not shared:
        return None
    lemmas = {lemma for lemma, _ in shared}
    cells: dict[str, Counter] = defaultdict(Counter)
    readings: dict[str, tuple[str, ...] | None] = {}
    other = 0
    for suffix in ("trn", "dev"):
        path = folder_2023 / f"{code}.{suffix}"
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if len(fields) != 3 or fields[0] not in lemmas:
                continue
            tags = fields[1]
            if tags not in readings:
                try:
                    readings[tags] = read_tags(tags, "auto", known, language).asked.multiset
                except TagError:
                    readings[tags] = None
            forms = shared.get((fields[0], readings[tags])) if readings[tags] else None
            if forms is None:
                other += 1
                continue
            cells[tags][fields[2] in forms] += 1
    total = sum(sum(c.values()) for c in cells.values())
    agree = sum(c[True] for c in cells.values())
    untrusted = sorted(t for t, c in cells.items() if c[True] <= UNTRUSTED * sum(c.values()))
    return {"language": language, "code": code, "pairs": total, "agree": agree,
            "other": other, "untrusted": untrusted}


def table(rows: list[dict]) -> str:
    """The Markdown table of the rows."""
    lines = ["| language | lines in a 2018 cell | same form | share | lines in no 2018 cell | "
             "cells where most disagree |",
             "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        share = f"{100 * r['agree'] / r['pairs']:.1f}%" if r["pairs"] else "—"
        cells = ", ".join(f"`{c}`" for c in r["untrusted"][:10]) or "—"
        more = f" (+{len(r['untrusted']) - 10})" if len(r["untrusted"]) > 10 else ""
        lines.append(f"| {r['language']} ({r['code']}) | {r['pairs']:,} | {r['agree']:,} | "
                     f"{share} | {r['other']:,} | {cells}{more} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-2023", required=True, type=Path,
                        help="the folder of LANG.trn and LANG.dev (2023 layout)")
    parser.add_argument("--data-2018", required=True, type=Path,
                        help="the CoNLL-SIGMORPHON 2018 task 1 folder")
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown table here")
    args = parser.parse_args(argv)
    codes = sorted({p.stem for p in args.data_2023.glob("*.trn")})
    rows = [r for r in (agreement(c, args.data_2023, args.data_2018) for c in codes) if r]
    text = table(rows)
    print(text, end="")
    if args.out is not None:
        write_text(args.out, text)


if __name__ == "__main__":
    main()
