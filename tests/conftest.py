"""Shared fixtures: where the real data live (``INFLECT_DATA_DIR`` or ``../shared/data``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def conll2018_dir() -> Path | None:
    """The CoNLL–SIGMORPHON 2018 task 1 folder, or None where it is absent."""
    env = os.environ.get("INFLECT_DATA_DIR")
    candidates = [Path(env)] if env else []
    candidates += [Path(env) / "conll2018-task1"] if env else []
    candidates.append(SHARED_DATA / "conll2018-task1")
    for c in candidates:
        if (c / "german-dev").is_file():
            return c
    return None


@pytest.fixture(scope="session")
def conll2018() -> Path:
    path = conll2018_dir()
    if path is None:
        pytest.skip("CoNLL-SIGMORPHON 2018 data not found (set INFLECT_DATA_DIR)")
    return path


@pytest.fixture(scope="session")
def multi30k() -> Path:
    path = SHARED_DATA / "multi30k"
    if not (path / "train.de").is_file():
        pytest.skip("Multi30k data not found under ../shared/data/multi30k")
    return path


@pytest.fixture
def one_thread():
    """Run a test with one torch thread (model tests: steady timings, no oversubscription under
    xdist), restoring the previous count."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
