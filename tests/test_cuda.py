"""The CUDA path against the CPU: sparse mappings, the model's fused recurrences, training and
search (skipped without CUDA; ``benchmarks/gpu_check.sh`` runs them on a GPU machine)."""

from __future__ import annotations

import pytest
import synthetic
import torch
from synthetic import item_batch

from inflect import sparse
from inflect.decoding.beam import beam_search
from inflect.decoding.ensemble import Ensemble
from inflect.nn.checkpoint import load_model
from inflect.training.config import Config
from inflect.training.items import TrainingData
from inflect.training.trainer import train
from inflect.training.warm_start import build_model

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA"),
]


@pytest.mark.parametrize("name", ["sparsemax", "entmax15", "bisect"])
@pytest.mark.parametrize("shape", [(64, 30), (8, 5000)])
def test_mappings_and_losses_on_cuda_equal_the_cpu(name, shape):
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=torch.float64)
    x[0, : shape[1] // 3] = float("-inf")
    target = torch.randint(0, shape[1], shape[:1])
    target[0] = shape[1] - 1
    fn = {
        "sparsemax": (sparse.sparsemax, sparse.sparsemax_loss),
        "entmax15": (sparse.entmax15, sparse.entmax15_loss),
        "bisect": (
            lambda z: sparse.entmax_bisect(z, 1.3),
            lambda z, t: sparse.entmax_bisect_loss(z, t, 1.3),
        ),
    }[name]
    results = {}
    for device in ("cpu", "cuda"):
        z = x.to(device).requires_grad_(True)
        p = fn[0](z)
        loss = fn[1](z, target.to(device)).sum()
        (g,) = torch.autograd.grad((p * torch.arange(shape[1], device=device)).sum() + loss, z)
        results[device] = (p.detach().cpu(), loss.detach().cpu(), g.cpu())
    for a, b in zip(results["cpu"], results["cuda"], strict=True):
        torch.testing.assert_close(b, a, atol=1e-9, rtol=1e-7)


def _model_and_batch():
    items = synthetic.items(48, seed=1)
    cfg = Config.from_preset("tiny", dropout=0.0, copy_bias=True, layers=2)
    model = build_model(cfg, items)
    return model, items


def test_fused_recurrences_on_cuda_equal_the_cpu_in_float32():
    model, items = _model_and_batch()
    model.train()
    grads = {}
    for device in ("cpu", "cuda"):
        model.to(device)
        loss, _ = model.loss(item_batch(model, items))
        grads[device] = [g.cpu() for g in torch.autograd.grad(loss, list(model.parameters()))]
        grads[device].append(loss.detach().cpu())
    for a, b in zip(grads["cpu"], grads["cuda"], strict=True):
        torch.testing.assert_close(b, a, atol=2e-4, rtol=2e-3)


def test_bfloat16_training_step_on_cuda_is_close_to_float32():
    model, items = _model_and_batch()
    model.to("cuda").train()
    batch = item_batch(model, items)
    loss32, _ = model.loss(batch)
    model.matmul_dtype = torch.bfloat16
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss16, _ = model.loss(batch)
    assert loss16.dtype == torch.float32 and torch.isfinite(loss16)
    assert abs(float(loss16) - float(loss32)) <= 0.03 * abs(float(loss32))


def test_training_on_cuda_then_search_agrees_with_the_cpu(tmp_path):
    train_items, dev_items = synthetic.items(300, seed=3), synthetic.items(40, seed=4)
    result = train(
        Config.from_preset("tiny"), TrainingData(train_items, dev_items), tmp_path,
        device="cuda", max_epochs=3,
    )
    assert result.epochs == 3 and result.best_dev_accuracy > 0
    answers = {}
    for device in ("cpu", "cuda"):
        model = load_model(tmp_path, device=device)
        batch = item_batch(model, dev_items[:16], targets=False)
        found = beam_search(Ensemble([model]), batch, 5, max_len=30)
        answers[device] = [
            ([h.tokens for h in r.hypotheses[:3]], r.certificate) for r in found
        ]
    same = sum(a == b for a, b in zip(answers["cpu"], answers["cuda"], strict=True))
    assert same >= 15  # float rounding may reorder near-ties in one input at most
