"""How often each field dictionary agrees with the shared-task files on the pairs both hold.

For every installed dictionary (``inflect.lexicon.dictionaries``) and each of its languages, every
(lemma, tag bundle) of the language's train-high, train-medium, train-low and dev files is looked
up; where the dictionary holds the pair, it *agrees* when the data's form is among its forms, and
agrees *first* when its first form is the data's. Prints a Markdown table (the one in this
folder's README), then how many differences of each kind (:func:`classify`) each row has, and
writes every difference with its kind to ``OUT/<language>-<library>.tsv`` (lemma, tags, the
data's form, the dictionary's forms, the kind, the data's file and line), outside the
repository: the data are not copied here.

    python recipes/dictionaries/agreement.py --data-dir ../shared/data/conll2018-task1 \\
        --out runs/dictionary-agreement

The fidelity gate (``tests/test_dictionary_fidelity.py``) recomputes the table on a fixed sample
(:func:`sample`) and holds every dictionary to :data:`GATE`.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

from inflect.corpora.manifests import locate
from inflect.lexicon.core import lemma_key
from inflect.lexicon.dictionaries import field_dictionaries
from inflect.text.reading import read_examples

SPLITS = ("train-high", "train-medium", "train-low", "dev")
#: The fidelity gate: the share of held pairs whose data form is among the dictionary's forms,
#: and whose data form is its first form.
GATE = {"agree": 0.985, "first": 0.975}

#: The kinds of difference (:func:`classify`), in the order they are tried, with what each
#: means. The first four are what an adapter bug looks like: none is expected.
KINDS = {
    "joined": "a form holding several written as one (a/b): an adapter bug",
    "bare stem": "the dictionary's form is a bare stem of the lemma: an adapter bug",
    "letter case": "the forms differ in letter case only: an adapter bug",
    "hyphen or space": "the dictionary's form has a hyphen or a space more, and no other "
                       "difference: a form of another lemma",
    "variant": "the data choose another of the dictionary's forms",
    "pronoun": "the data write the pronoun of a reflexive or pronominal verb that the lemma, "
               "or the dictionary, does not",
    "analytic future": "one writes the future with буду/будет..., the other the synthetic form "
                       "(a verb of both aspects, or one the data take for the other aspect)",
    "diacritics": "the forms differ in diacritics only (ё/е, é/è, í/i, ü/u)",
    "near": "one or two letters apart: a typo of the data or a misspelling of the dictionary",
    "other": "another form (an error of either, or a variant the other lacks)",
}

#: The kinds an adapter bug makes (none is allowed by the gate).
BUG_KINDS = ("joined", "bare stem", "letter case", "hyphen or space")

_PRONOUNS = re.compile(r"^(?:no )?(?:en )?(?:me |te |se |nos |os |nous |vous |m’|t’|s’|m'|t'|s')"
                       r"|-(?:toi|nous|vous|te|se|nos|os)$")
_FUTURE = re.compile(r"^буд[а-яіїє]* ")


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


def sample(pairs: dict, every: int) -> dict:
    """The pairs of every ``every``-th lemma (in sorted order; all of its pairs): a fixed sample
    that asks each lemma sampled once."""
    lemmas = sorted({lemma for lemma, _ in pairs})[::every]
    chosen = set(lemmas)
    return {key: value for key, value in pairs.items() if key[0] in chosen}


def _joints(text: str) -> int:
    return text.count("-") + text.count(" ")


def _bare(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text)
                   if unicodedata.category(c) != "Mn")


def _distance(a: str, b: str) -> int:
    """The optimal string alignment distance (Damerau-Levenshtein with adjacent swaps)."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            cost = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, rows[-2][j - 2] + 1)
            row.append(cost)
        rows.append(row)
    return rows[-1][-1]


def classify(lemma: str, tags: str, data: str, found: list[str]) -> str:
    """The kind of one difference (a key of :data:`KINDS`): the data's form ``data`` of
    ``lemma`` for ``tags`` against the dictionary's forms ``found`` (its first is not the
    data's)."""
    first = found[0]
    if any("/" in f for f in found):
        return "joined"
    if tags.startswith("V") and len(first) <= len(lemma) - 2 and \
            lemma.lower().startswith(first.lower()) and data.lower().startswith(first.lower()):
        return "bare stem"  # a verb's form that is its infinitive less the ending
    if first.lower() == data.lower():
        return "letter case"
    if first.replace("-", "").replace(" ", "") == data.replace("-", "").replace(" ", "") and \
            _joints(first) > _joints(data):  # the dictionary's hyphen or space
        return "hyphen or space"
    if data in found:
        return "variant"
    if _PRONOUNS.sub("", data) != data and _PRONOUNS.sub("", data).replace("no ", "") in {
            _PRONOUNS.sub("", f).replace("no ", "") for f in found}:
        return "pronoun"
    if bool(_FUTURE.match(data)) != bool(_FUTURE.match(first)):
        return "analytic future"
    if _bare(first) == _bare(data):
        return "diacritics"
    if _distance(first, data) <= 2:
        return "near"
    return "other"


def measure(dictionary, language: str, data_dir: str | None, out: Path | None,
            every: int = 1) -> dict:
    """One dictionary's agreement with the language's train/dev pairs (the table's row):
    ``pairs`` in the files, ``held`` by the dictionary, ``agree`` (the data's form among its
    forms), ``first`` (its first form is the data's), ``differences`` (first forms that
    differ, each written to ``out/LANGUAGE-DICTIONARY.tsv`` with its kind and the data's file
    and line where ``out`` is given), ``kinds`` (a Counter of the differences' kinds).
    ``every``: the pairs of every so many lemmas only (:func:`sample`)."""
    pairs = data_pairs(language, data_dir)
    if every > 1:
        pairs = sample(pairs, every)
    held = agree = first = 0
    differences = []
    kinds: Counter[str] = Counter()
    for (lemma, tags), (form, where) in pairs.items():
        found = [a.form for a in dictionary.lookup(language, lemma, tags)]
        if not found:
            continue
        held += 1
        agree += form in found
        first += found[0] == form
        if found[0] != form:
            kind = classify(lemma, tags.text, form, found)
            kinds[kind] += 1
            differences.append((lemma, tags.text, form, " | ".join(found), kind, where))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        with open(out / f"{language}-{dictionary.name}.tsv", "w", encoding="utf-8") as handle:
            handle.write("lemma\ttags\tdata\tdictionary\tkind\twhere\n")
            handle.writelines("\t".join(d) + "\n" for d in differences)
    return {"language": language, "source": dictionary.source(language), "pairs": len(pairs),
            "held": held, "agree": agree, "first": first, "differences": len(differences),
            "kinds": kinds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None, help="the CoNLL-SIGMORPHON 2018 folder")
    parser.add_argument("--out", type=Path, default=None,
                        help="write each language's differences here (TSV)")
    parser.add_argument("--lang", action="append", default=None, help="only these languages")
    parser.add_argument("--untaken", action="store_true",
                        help="also the languages an adapter maps but does not take (below the "
                             "gate: verbecc's Catalan and Romanian)")
    parser.add_argument("--every", type=int, default=1,
                        help="the pairs of every N-th lemma only (the gate test's sample)")
    args = parser.parse_args(argv)
    rows = []
    for dictionary in field_dictionaries():
        if args.untaken:  # this instance answers for them too, for the measurement
            dictionary.codes = {**dictionary.codes, **getattr(dictionary, "untaken", {})}
        for language in sorted(dictionary.languages()):
            if args.lang and language not in args.lang:
                continue
            print(f"{dictionary.name}: {language} ...", file=sys.stderr, flush=True)
            rows.append(measure(dictionary, language, args.data_dir, args.out, args.every))
    print("| language | dictionary | pairs in the files | held by the dictionary | data form "
          "among its forms | its first form = data | first forms that differ |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        held = max(r["held"], 1)
        print(f"| {r['language']} | {r['source']} | {r['pairs']:,} | {r['held']:,} "
              f"({100 * r['held'] / max(r['pairs'], 1):.1f}%) | {100 * r['agree'] / held:.1f}% | "
              f"{100 * r['first'] / held:.1f}% | {r['differences']:,} |")
    print()
    print("| language | dictionary | " + " | ".join(KINDS) + " |")
    print("|---|---|" + "---:|" * len(KINDS))
    for r in rows:
        print(f"| {r['language']} | {r['source'].split(' (')[0]} | "
              + " | ".join(f"{r['kinds'].get(k, 0):,}" for k in KINDS) + " |")
    failed = [r["language"] for r in rows if r["held"] and (
        r["agree"] / r["held"] < GATE["agree"] or r["first"] / r["held"] < GATE["first"])]
    if failed:
        print(f"\nbelow the gate (>= {GATE['agree']:.1%} among, >= {GATE['first']:.1%} first): "
              f"{', '.join(failed)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
