"""How often each field dictionary agrees with the shared-task files on the pairs both hold.

For every installed dictionary (``inflect.lexicon.dictionaries``) and each of its languages, every
(lemma, tag bundle) of the language's train-high, train-medium, train-low and dev files is looked
up; where the dictionary holds the pair, it *agrees* when the data's form is among its forms, and
agrees *first* when its first form is the data's. Prints a Markdown table (the one in this
folder's README) and writes every difference to ``OUT/<language>-<library>.tsv`` (lemma, tags,
the data's form, the dictionary's forms), outside the repository: the data are not copied here.

    python recipes/dictionaries/agreement.py --data-dir ../shared/data/conll2018-task1 \\
        --out runs/dictionary-agreement
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from inflect.corpora.manifests import locate
from inflect.lexicon.core import lemma_key
from inflect.lexicon.dictionaries import field_dictionaries
from inflect.text.reading import read_examples

SPLITS = ("train-high", "train-medium", "train-low", "dev")


def data_pairs(language: str, data_dir: str | None) -> dict[tuple[str, object], tuple[str, str]]:
    """``(lemma, bundle) -> (form, where)`` of the language's files, the first line of a pair."""
    pairs: dict[tuple[str, object], tuple[str, str]] = {}
    for split in SPLITS:
        try:
            path = locate(language, split, data_dir)
        except FileNotFoundError:
            continue
        for example in read_examples(path, language):
            key = (lemma_key(language, example.lemma), example.tags)
            pairs.setdefault(key, (lemma_key(language, example.form or ""),
                                   f"{path.name}:{example.line}"))
    return pairs


def measure(dictionary, language: str, data_dir: str | None, out: Path | None) -> dict:
    """One dictionary's agreement with the language's train/dev pairs (the table's row):
    ``pairs`` in the files, ``held`` by the dictionary, ``agree`` (the data's form among its
    forms), ``first`` (its first form is the data's), ``differences`` (first forms that
    differ, each written to ``out/LANGUAGE-DICTIONARY.tsv`` with the data's file and line
    where ``out`` is given)."""
    pairs = data_pairs(language, data_dir)
    held = agree = first = 0
    missed_bundles: Counter[str] = Counter()
    differences = []
    for (lemma, tags), (form, where) in pairs.items():
        found = [a.form for a in dictionary.lookup(language, lemma, tags)]
        if not found:
            missed_bundles[tags.text] += 1
            continue
        held += 1
        agree += form in found
        first += found[0] == form
        if found[0] != form:
            differences.append((lemma, tags.text, form, " | ".join(found), where))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        with open(out / f"{language}-{dictionary.name}.tsv", "w", encoding="utf-8") as handle:
            handle.write("lemma\ttags\tdata\tdictionary\twhere\n")
            handle.writelines("\t".join(d) + "\n" for d in differences)
    return {"language": language, "source": dictionary.source(language), "pairs": len(pairs),
            "held": held, "agree": agree, "first": first, "differences": len(differences)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None, help="the CoNLL-SIGMORPHON 2018 folder")
    parser.add_argument("--out", type=Path, default=None,
                        help="write each language's differences here (TSV)")
    parser.add_argument("--lang", action="append", default=None, help="only these languages")
    parser.add_argument("--untaken", action="store_true",
                        help="also the languages an adapter maps but does not take (below the "
                             "gate: verbecc's Catalan and Romanian)")
    args = parser.parse_args(argv)
    rows = []
    for dictionary in field_dictionaries():
        if args.untaken:  # this instance answers for them too, for the measurement
            dictionary.codes = {**dictionary.codes, **getattr(dictionary, "untaken", {})}
        for language in sorted(dictionary.languages()):
            if args.lang and language not in args.lang:
                continue
            print(f"{dictionary.name}: {language} ...", file=sys.stderr, flush=True)
            rows.append(measure(dictionary, language, args.data_dir, args.out))
    print("| language | dictionary | pairs in the files | held by the dictionary | data form "
          "among its forms | its first form = data | first forms that differ |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        held = max(r["held"], 1)
        print(f"| {r['language']} | {r['source']} | {r['pairs']:,} | {r['held']:,} "
              f"({100 * r['held'] / max(r['pairs'], 1):.1f}%) | {100 * r['agree'] / held:.1f}% | "
              f"{100 * r['first'] / held:.1f}% | {r['differences']:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
