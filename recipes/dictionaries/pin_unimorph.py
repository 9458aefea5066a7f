"""Write ``datasets/lexicons/unimorph.toml``: the UniMorph files ``inflect lexicon fetch`` downloads,
each pinned to a commit of its ``unimorph/<iso639-3>`` repository and verified by its git blob id.

Reads local clones (or bare git folders) of the repositories, one per language, at the commit to
pin (their ``HEAD``); nothing is downloaded. For each language of ``langs/`` whose ISO 639-3 code
names a given repository, the inflection files are the tree's files named ``<iso>`` or
``<iso>.<n>`` (``fin.1``, ``fin.2``): the UniMorph layout ``lemma<TAB>form<TAB>tags``. Git LFS
pointers and compressed files (``ces.xz``) are left out: the raw address would serve a pointer.

    python recipes/dictionaries/pin_unimorph.py ~/clones/unimorph/*   # one folder per language
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "datasets" / "lexicons" / "unimorph.toml"
HEADER = '''\
# UniMorph (https://unimorph.github.io): one inflection file (or several) per language, each
# pinned to a commit of its unimorph/<iso639-3> repository and verified after download by its git
# blob id (SHA-1 of "blob <size>\\0" + the bytes: the id the repository's tree lists). Written by
# recipes/dictionaries/pin_unimorph.py from clones of the repositories; do not edit by hand.
# `inflect lexicon fetch LANGUAGE` downloads a language's files into <data folder>/unimorph/.
name = "unimorph"
title = "UniMorph inflection tables (Wiktionary and other sources), one repository per language"
repository = "unimorph"
homepage = "https://unimorph.github.io"
url_template = "https://raw.githubusercontent.com/unimorph/{upstream}"
licence = "CC BY-SA"
licence_note = "UniMorph's Wiktionary-derived files are released under CC BY-SA 3.0 (each repository's README)."
citation = "Batsuren et al. (2022), UniMorph 4.0: Universal Morphology, Proceedings of LREC 2022, pp. 840-855"
format = "2018"  # lemma<TAB>form<TAB>tags
offline_hint = "Download the file from that address by other means, then add it: inflect lexicon add FILE --lang LANGUAGE"
'''


def languages() -> dict[str, str]:
    """ISO 639-3 code -> shared-task name, from ``langs/*.toml``."""
    found = {}
    for path in sorted((REPO / "langs").glob("*.toml")):
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
        found[spec["iso639_3"]] = spec["name"]
    return found


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                          text=True).stdout


def is_lfs_pointer(folder: Path, blob: str) -> bool:
    """Whether a blob is a Git LFS pointer (a small text that starts
    ``version https://git-lfs``), read with ``git cat-file`` from the clone."""
    if int(git(folder, "cat-file", "-s", blob)) > 1024:
        return False
    return git(folder, "cat-file", "-p", blob).startswith("version https://git-lfs")


def entries(folder: Path, iso: str, name: str) -> list[str]:
    """The TOML entries of one repository's inflection files at its HEAD."""
    commit = git(folder, "rev-parse", "HEAD").strip()
    blocks = []
    for line in git(folder, "ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind != "blob" or not re.fullmatch(rf"{iso}(\.\d+)?", path):
            continue
        if is_lfs_pointer(folder, blob):  # the raw address would serve the pointer
            print(f"{name}: {path} is a Git LFS pointer; left out", file=sys.stderr)
            continue
        blocks.append(
            f'\n[[files]]\nlanguage = "{name}"\niso639_3 = "{iso}"\n'
            f'path = "unimorph/{iso}/{path}"\nupstream = "{iso}/{commit}/{path}"\n'
            f'commit = "{commit}"\ngit_blob = "{blob}"\n'
        )
    return blocks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clones", nargs="+", type=Path,
                        help="clones of unimorph/<iso> repositories (a folder of the path ends in "
                             "the code: unimorph+eng/repo, eng, unimorph-eng)")
    args = parser.parse_args(argv)
    names = languages()
    blocks = []
    for folder in sorted(args.clones):
        codes = [re.split(r"[+_-]", part)[-1] for part in reversed(folder.resolve().parts)]
        iso = next((c for c in codes if c in names), None)
        if iso is None:
            print(f"{folder}: no part of the path ends in a code of langs/; skipped",
                  file=sys.stderr)
            continue
        found = entries(folder, iso, names[iso])
        if not found:
            print(f"{folder}: no file named {iso} or {iso}.N at HEAD; skipped", file=sys.stderr)
        blocks += found
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(HEADER + "".join(blocks), encoding="utf-8")
    print(f"wrote {OUT}: {len(blocks)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
