"""Write the shipped record of the symbols each language's forms write
(``inflect/alphabets/conll2018-task1.json``, read by :func:`inflect.nn.alphabets.shipped_written`).

For every language of ``langs/`` and every ``train-SETTING`` file of CoNLL–SIGMORPHON 2018 task 1
it has, the model symbols (:meth:`inflect.text.languages.LanguageSpec.to_symbols`) that a form
has and its lemma has not: what a model must be able to write without copying it. The other
symbols of a language's output alphabet are only ever copied from a lemma (English: the digits
of ``86 -> 86ed``, capitals), and a search lets a model write them only where the input's lemma
has them. Only symbols are stored, no lemma and no form.

Usage::

    python recipes/alphabets/make_written.py --data-dir ../shared/data [--out FILE]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from inflect.corpora.manifests import locate
from inflect.corpora.splits import load_split
from inflect.defaults import SETTINGS
from inflect.io.atomic import write_text
from inflect.nn.alphabets import SHIPPED_WRITTEN, WRITTEN_FORMAT, written_symbols
from inflect.text.languages import all_languages


def written(language: str, data_dir: str | None) -> list[str]:
    """The sorted symbols that ``language``'s training forms (every setting) write beyond
    their lemma."""
    from inflect.text.languages import resolve

    spec = resolve(language)
    found: set[str] = set()
    for setting in SETTINGS:
        try:
            locate(language, f"train-{setting}", data_dir)
        except FileNotFoundError:
            continue
        found |= written_symbols(
            (spec.to_symbols(ex.lemma), spec.to_symbols(ex.form or ""))
            for ex in load_split(language, f"train-{setting}", data_dir))
    return sorted(found)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None, help="the shared-task data folder")
    parser.add_argument("--out", type=Path, default=SHIPPED_WRITTEN, help="the file to write")
    args = parser.parse_args(argv)
    languages = {spec.name: written(spec.name, args.data_dir) for spec in all_languages()}
    languages = {name: symbols for name, symbols in languages.items() if symbols}
    head = {"format": WRITTEN_FORMAT, "dataset": "conll2018-task1",
            "made_by": "recipes/alphabets/make_written.py"}
    # one language a line: a change to one language is a one-line diff
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ', "languages": {']
    lines.append(",\n".join(f"{json.dumps(n)}: {json.dumps(s, ensure_ascii=False)}"
                            for n, s in languages.items()))
    text = "\n".join(lines) + "\n}}\n"
    if json.loads(text) != {**head, "languages": languages}:
        raise RuntimeError("the record does not read back as written")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text(args.out, text)
    print(f"{args.out}: {len(languages)} languages, {args.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
