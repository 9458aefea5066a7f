"""Golden predictions: digests of `inflect predict --format jsonl` on dev inputs.

A case's digest has two parts. ``sha256`` covers everything but the probabilities' last digits:
each record with its forms (text, source, attested) in their order, certificate, method, limits,
warnings and the model named (and the bundle asked where it is not the tags as written). ``checksums`` are two weighted sums of every probability (fixed
pseudo-random weights per position), compared within a tolerance: a probability is a float32
result whose last bits depend on the CPU's kernels (AVX2 against AVX-512: up to 7e-6 apart on
the same model and input), while a change of model, search or mapping moves them by far more.
Only digests are stored, never the data or the answers: the inputs are read in place from the
shared task's dev files.

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

from registry_rule import chosen

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
            if any(settings.get(m) == setting for m in scores):
                served.setdefault(chosen(registry, lang, setting), (lang, setting))
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
    records = [json.loads(line) for line in result.stdout.splitlines() if line]
    for r in records:  # the bundle asked is the tags as written here: it adds nothing to a digest
        if r.get("asked") == r.get("tags"):
            del r["asked"]
    for record in records:  # whether lexicons disagree: always false without them,
        assert record.pop("conflict") is False  # and not in the records the digests were of
    models = sorted({r.get("model") or "" for r in records})
    probabilities = [f.pop("probability") for r in records for f in r["forms"]]
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
    return {**case, "models": models, "records": len(records), "forms": len(probabilities),
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "checksums": checksums(probabilities)}


def weights(n: int, k: int) -> list[float]:
    """The ``k``-th fixed weight vector of length ``n``: values in [0.5, 1.5) from a seeded
    generator (the same on every machine and Python)."""
    import random

    rng = random.Random(1000 + k)
    return [0.5 + rng.random() for _ in range(n)]


def checksums(probabilities: list[float]) -> list[float]:
    """Two weighted sums of ``probabilities`` (see the module docstring)."""
    return [sum(w * p for w, p in zip(weights(len(probabilities), k), probabilities, strict=True))
            for k in range(2)]


#: How far a stored checksum may be from the computed one, per probability summed. Measured:
#: finnish-dev's 1,000 inputs with the medium model, AVX2 kernels against the portable ones
#: (ATEN_CPU_CAPABILITY=default), 16,515 probabilities up to 6.7e-6 apart, checksums 3.0e-6
#: apart (2e-10 a probability); one probability moved by 0.01 moves a checksum by at least 0.005.
CHECKSUM_TOLERANCE = 1e-7


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
