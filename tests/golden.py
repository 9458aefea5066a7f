"""Golden predictions: SHA-256 digests of `inflect predict --format jsonl` on dev inputs.

The digests in ``tests/golden_predictions.json`` were written by the code before the package was
split into sub-packages (issue 35), so the test that reads them checks that every shipped model
still gives byte-identical answers. Only digests are stored, never the data or the answers: the
inputs are read in place from the shared task's dev files.

Regenerate (only where a change is meant to alter predictions, and say so in its note)::

    python tests/golden.py --data-dir ../shared/data/conll2018-task1 --write
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden_predictions.json"
REGISTRY = REPO / "inflect" / "models" / "registry.toml"

# 5 languages x 1,000 dev inputs, each answered by its default high and medium model
WIDE_LANGUAGES = ("finnish", "german", "latvian", "albanian", "navajo")
WIDE_INPUTS = 1000
# every shipped model on a few inputs of a language it serves
NARROW_INPUTS = 12


def cases() -> list[dict]:
    """Every (language, setting, inputs) case: the wide five, then one per shipped model."""
    registry = tomllib.loads(REGISTRY.read_text(encoding="utf-8"))
    out = [
        {"language": lang, "setting": setting, "inputs": WIDE_INPUTS}
        for lang in WIDE_LANGUAGES
        for setting in ("high", "medium")
    ]
    wide = {(c["language"], c["setting"]) for c in out}
    settings = {name: m["setting"] for name, m in registry["model"].items()}
    served: dict[str, tuple[str, str]] = {}
    for lang, scores in sorted(registry["language"].items()):
        for setting in ("high", "medium"):
            mine = {m: a for m, a in scores.items() if settings.get(m) == setting}
            if mine:
                served.setdefault(max(mine, key=mine.get), (lang, setting))
    for name, (lang, setting) in sorted(served.items()):
        if (lang, setting) not in wide:
            out.append({"language": lang, "setting": setting, "inputs": NARROW_INPUTS, "model": name})
    return out


def digest(data_dir: Path, case: dict, tmp: Path) -> dict:
    """Run `inflect predict` in-process on the case's first dev lines; the output's digest."""
    from click.testing import CliRunner

    from inflect.cli import main

    lines = (data_dir / f"{case['language']}-dev").read_text(encoding="utf-8").splitlines()
    path = tmp / f"{case['language']}-{case['setting']}.tsv"
    path.write_text("\n".join(lines[: case["inputs"]]) + "\n", encoding="utf-8")
    args = ["predict", "--lang", case["language"], "--setting", case["setting"], "--no-lexicon",
            "--format", "jsonl", "--input", path.name]
    with contextlib.chdir(tmp):  # records name their source file: the same relative name each run
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"{args}: exit {result.exit_code}: {result.output[-2000:]}")
    out = result.stdout
    models = sorted({json.loads(line).get("model") or "" for line in out.splitlines() if line})
    return {**case, "models": models, "records": out.count("\n"),
            "sha256": hashlib.sha256(out.encode("utf-8")).hexdigest()}


def main(argv: list[str] | None = None) -> int:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--write", action="store_true", help=f"write {GOLDEN.name}")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        got = [digest(args.data_dir, c, Path(tmp)) for c in cases()]
    text = json.dumps(got, indent=1, ensure_ascii=False) + "\n"
    if args.write:
        GOLDEN.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
