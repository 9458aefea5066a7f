"""Every shipped model answers as it did when its digests were written.

The expected digests were written by ``tests/golden.py`` (first with the flat-package code,
before the sub-package redesign; written again only where a change was meant to alter predictions,
as the notes say): 1,000 dev inputs of each of 5 languages answered by their default high and
medium models, and 12 dev inputs answered by each other shipped model. The SHA-256 covers every
record of `inflect predict --no-lexicon --format jsonl` but its probabilities, so any change in a
form, its rank, a certificate or the model named fails it; the probabilities are compared
through two weighted sums, within what float32 kernels of different CPUs leave
(``golden.CHECKSUM_TOLERANCE`` per probability).
"""

from __future__ import annotations

import json

import golden
import pytest

CASES = json.loads(golden.GOLDEN.read_text(encoding="utf-8"))


def test_every_shipped_model_has_a_case():
    """The stored cases still cover every model the registry ships (a new model needs a digest)."""
    import tomllib

    registry = tomllib.loads(golden.REGISTRY.read_text(encoding="utf-8"))
    covered = {m for c in CASES for m in c["models"]}
    assert covered == set(registry["model"])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['language']}-{c['setting']}")
def test_predictions_are_identical(case, conll2018, tmp_path):
    got = golden.digest(conll2018, case, tmp_path)
    assert (got["models"], got["records"]) == (case["models"], case["records"])
    assert got["sha256"] == case["sha256"]
    assert got["forms"] == case["forms"]
    n = case["forms"]
    for computed, stored in zip(got["checksums"], case["checksums"], strict=True):
        assert computed == pytest.approx(stored, abs=golden.CHECKSUM_TOLERANCE * n)


def test_checksums_see_a_small_change_and_forgive_float32_noise():
    """The checksums' tolerance against a hand-made change: every probability off by 1e-7
    (float32 noise) passes; one probability of 10,000 moved by 0.02 fails."""
    import random

    rng = random.Random(7)
    probabilities = [rng.random() for _ in range(10_000)]
    base = golden.checksums(probabilities)
    tol = golden.CHECKSUM_TOLERANCE * len(probabilities)
    noisy = golden.checksums([p + rng.choice((-1e-7, 1e-7)) for p in probabilities])
    assert all(abs(a - b) <= tol for a, b in zip(base, noisy, strict=True))
    moved = list(probabilities)
    moved[1234] += 0.02
    assert all(abs(a - b) > tol for a, b in zip(base, golden.checksums(moved), strict=True))
