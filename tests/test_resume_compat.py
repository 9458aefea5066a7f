"""A run started by the flat-package code (before the sub-packages) resumes to the weights
its uninterrupted run had then.

``tests/fixtures/run-flat-0.1`` was written by that code: the ``tiny`` preset on
``synthetic.items(120, seed=11)`` (dev: 24, seed 12), dropout 0.3, lr decay 0.5, copy examples 0.5,
3 epochs, stopped inside epoch 2 after batch 3 (the trainer state saved every batch). The same
code, run without the stop, ended with the weights whose digest is ``FINAL`` (the SHA-256 of the
tensors' bytes in name order), so the expected value does not come from the code under test.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
import synthetic
import torch
from safetensors import safe_open

from inflect.training.trainer import TrainingData, train

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "run-flat-0.1"
FINAL = "cdd8e2830ff70077dc2a39b6b7bccfb9401f75c6f71eff507eab18f7c97fd985"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with safe_open(str(path), "pt") as f:
        for k in sorted(f.keys()):
            h.update(k.encode())
            h.update(f.get_tensor(k).contiguous().numpy().tobytes())
    return h.hexdigest()


@pytest.mark.slow
def test_a_run_of_the_flat_package_resumes_to_its_uninterrupted_weights(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(FIXTURE, run)
    data = TrainingData(synthetic.items(120, seed=11), synthetic.items(24, seed=12))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        result = train(None, data, run, resume=True, device="cpu", max_epochs=3, patience=10)
    finally:
        torch.set_num_threads(threads)
    assert result.epochs == 3
    assert _digest(run / "model.safetensors") == FINAL
