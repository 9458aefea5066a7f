"""Write the shipped table of paradigm cells: the tag bundles each language's training data attest,
by part of speech, one gzip-compressed JSON file per training setting
(``inflect/cells/conll2018-task1-SETTING.json.gz``).

For every language of ``langs/`` with a ``train-SETTING`` file of CoNLL–SIGMORPHON 2018 task 1,
each distinct tag bundle (a *multiset* of UniMorph features, as everywhere in the package:
``N;PL;DAT`` and ``N;DAT;PL`` are one, Albanian's pluperfect ``V;2;PL;IND;PRF;PRF`` and perfect
``V;2;PL;IND;PRF`` are two) is kept once, written as the data write it most often (ties: the first seen), under its part of
speech (:func:`inflect.text.unimorph.part_of_speech`: the part-of-speech feature, the most specific
where a bundle has several, e.g. ``V.PTCP`` for ``V;V.PTCP;PST``). Bundles without a
part-of-speech feature (Navajo's possessives ``PSS1P``, ...) are no paradigm's cells: they are
kept apart, under ``"without_part_of_speech"`` (language -> bundles), for the check of a user's
tag bundle against the language's (:mod:`inflect.corpora.bundles`).
Only the tag bundles are stored, no lemma and no form. The layout is described in
:mod:`inflect.corpora.cells`.

Usage::

    python recipes/paradigms/make_cells.py --data-dir ../shared/data [--out-dir inflect/cells]
"""

from __future__ import annotations

import argparse
import gzip
import json

from inflect.corpora.cells import FORMAT, attested_cells, cells_file
from inflect.corpora.manifests import locate
from inflect.corpora.splits import load_split
from inflect.defaults import SETTINGS
from inflect.text.languages import all_languages


def attested(
    language: str, setting: str, data_dir: str | None
) -> tuple[dict[str, list[str]], list[str]]:
    """Part of speech -> the language's tag bundles in ``train-SETTING`` (sorted texts), and the
    bundles without a part of speech (sorted texts): :func:`inflect.corpora.cells.attested_cells`."""
    return attested_cells(load_split(language, f"train-{setting}", data_dir))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None, help="the shared-task data folder")
    parser.add_argument("--out-dir", default=None, help="default: the package's inflect/cells")
    args = parser.parse_args(argv)
    for setting in SETTINGS:
        languages: dict[str, dict[str, list[str]]] = {}
        apart: dict[str, list[str]] = {}
        for spec in all_languages():
            try:
                locate(spec.name, f"train-{setting}", args.data_dir)
            except FileNotFoundError:
                continue
            languages[spec.name], without = attested(spec.name, setting, args.data_dir)
            if without:
                apart[spec.name] = without
        table = {
            "format": FORMAT,
            "dataset": "conll2018-task1",
            "split": f"train-{setting}",
            "made_by": "recipes/paradigms/make_cells.py",
            "languages": languages,
            "without_part_of_speech": apart,
        }
        path = cells_file(setting, args.out_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        # one language a line: small, and a change to one language is a one-line diff
        head = {k: v for k, v in table.items() if k not in ("languages", "without_part_of_speech")}
        head["without_part_of_speech"] = apart
        lines = [json.dumps(head, ensure_ascii=False)[:-1]]
        lines[0] += ', "languages": {'
        items = [
            f"{json.dumps(n)}: {json.dumps(c, ensure_ascii=False)}" for n, c in languages.items()
        ]
        text = lines[0] + "\n" + ",\n".join(items) + "\n}}\n"
        assert json.loads(text) == table, "the file must read back as the table"
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))  # mtime 0: reproducible
        cells = sum(len(b) for c in languages.values() for b in c.values())
        print(
            f"{path}: {len(languages)} languages, {cells} cells, {path.stat().st_size:,} bytes"
            f"; {sum(len(b) for b in apart.values())} bundles without a part of speech kept apart"
        )


if __name__ == "__main__":
    main()
