"""Every shipped model answers as it did before the package was split into sub-packages.

The expected digests were written by ``tests/golden.py`` with the flat-package code (before issue
35's redesign): 1,000 dev inputs of each of 5 languages answered by their default high and medium
models, and 12 dev inputs answered by each other shipped model. A digest is the SHA-256 of the
whole JSON Lines output of `inflect predict --no-lexicon --format jsonl`, so any change in a form,
a probability's printed digits, a certificate or the model named fails it.
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
def test_predictions_are_byte_identical(case, conll2018, tmp_path):
    got = golden.digest(conll2018, case, tmp_path)
    assert (got["models"], got["records"]) == (case["models"], case["records"])
    assert got["sha256"] == case["sha256"]
