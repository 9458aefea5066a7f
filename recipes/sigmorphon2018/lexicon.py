"""Generate the shipped lexicon: the attested pairs of CoNLL–SIGMORPHON 2018 task 1.

Reads train-high, train-medium, train-low and dev of every language of ``langs/`` (the files a
language has; the data the shipped models were trained and selected on) with the project's reader
(:func:`inflect.text.reading.read_inflections`) and writes them with
:func:`inflect.lexicon.write_store`: one Parquet row group per language, each pair kept once with
the first split (in the order above) and line that holds it.

Usage::

    python recipes/sigmorphon2018/lexicon.py --data-dir ../shared/data/conll2018-task1 \\
        --out inflect/lexicon_data/conll2018-task1.parquet
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

#: The splits stored, in the order of precedence (a pair in several keeps the first).
SPLITS = ("train-high", "train-medium", "train-low", "dev")


def main(argv: list[str] | None = None) -> int:
    from inflect.corpora.manifests import locate
    from inflect.lexicon.store import SHIPPED_STORE, write_store
    from inflect.text.languages import all_languages
    from inflect.text.reading import read_inflections

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="The conll2018-task1 folder (or parent).")
    parser.add_argument("--out", default=str(SHIPPED_STORE), help="The store to write.")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    rows: dict[str, list] = {}
    for spec in all_languages():
        found = rows.setdefault(spec.name, [])
        for split in SPLITS:
            if split.startswith("train-") and split.removeprefix("train-") not in spec.settings:
                continue  # the language has no data of this setting
            path = locate(spec.name, split, args.data_dir)  # a missing file is an error
            for ex in read_inflections(path, spec.name, "2018"):
                found.append((ex.lemma, ex.tags.text, ex.form, split, ex.line))
    pairs = write_store(args.out, rows, dataset="conll2018-task1", splits=SPLITS)
    size = Path(args.out).stat().st_size
    print(
        f"wrote {args.out}: {sum(pairs.values()):,} pairs of {len(pairs)} languages, "
        f"{size / 1e6:.2f} MB, {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
