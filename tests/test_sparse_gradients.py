"""inflect.sparse gradients: gradcheck in float64 for every mapping, loss and α; ∂/∂α."""

from __future__ import annotations

import math

import pytest
import torch
from torch.autograd import gradcheck

from inflect import sparse as S

ALPHAS = [1.0, 1.0001, 1.01, 1.25, 1.5, 1.8, 2.0, 2.5, 0.75]


def _x(rows=3, cols=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    # spread so that supports are neither full nor single
    return (torch.randn(rows, cols, generator=g, dtype=torch.float64) * 2).requires_grad_(True)


@pytest.mark.parametrize(
    "f",
    [
        S.softmax,
        lambda x: S.sparsemax(x, method="sort"),
        lambda x: S.sparsemax(x, method="fast"),
        lambda x: S.sparsemax(x, k=2),
        lambda x: S.entmax15(x, method="sort"),
        lambda x: S.entmax15(x, method="fast"),
        lambda x: S.entmax15(x, k=2),
        lambda x: S.sparsemax(x, dim=0),
        lambda x: S.entmax15(x, dim=-2),
    ],
    ids=["softmax", "sparsemax-sort", "sparsemax-fast", "sparsemax-k2", "entmax15-sort",
         "entmax15-fast", "entmax15-k2", "sparsemax-dim0", "entmax15-dim-2"],
)
def test_gradcheck_exact_mappings(f):
    assert gradcheck(f, (_x(),))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_gradcheck_entmax_bisect_float_alpha(alpha):
    assert gradcheck(lambda x: S.entmax_bisect(x, alpha), (_x(),))
    assert gradcheck(lambda x: S.entmax(x, alpha, dim=0), (_x(),))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_gradcheck_entmax_bisect_tensor_alpha(alpha):
    a = torch.full((3, 1), alpha, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, a: S.entmax_bisect(x, a), (_x(), a))
    # a scalar tensor α broadcast to every row, and α along dim 0
    a0 = torch.tensor(alpha, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, a: S.entmax_bisect(x, a, dim=0), (_x(), a0))


def test_gradcheck_mixed_alpha_rows_and_parameter():
    a = torch.nn.Parameter(torch.tensor([[1.0], [1.3], [2.0], [0.8]], dtype=torch.float64))
    assert gradcheck(lambda x, a: S.entmax(x, a), (_x(4, 3), a))
    tgt = torch.tensor([0, 1, 2, 2])
    assert gradcheck(lambda x, a: S.entmax_bisect_loss(x, tgt, a, reduction="none"), (_x(4, 3), a))


@pytest.mark.parametrize(
    "loss",
    [
        S.sparsemax_loss,
        S.entmax15_loss,
        lambda x, t, **kw: S.entmax_loss(x, t, 1.0, **kw),
        lambda x, t, **kw: S.entmax_bisect_loss(x, t, 1.33, **kw),
    ],
    ids=["sparsemax", "entmax15", "cross-entropy", "bisect-1.33"],
)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_gradcheck_losses(loss, reduction):
    tgt = torch.tensor([0, 5, 2])
    assert gradcheck(lambda x: loss(x, tgt, reduction=reduction), (_x(),))
    tgt_ign = torch.tensor([0, -100, 2])
    assert gradcheck(lambda x: loss(x, tgt_ign, reduction=reduction), (_x(),))


@pytest.mark.parametrize("alpha", [2.5, 0.75])
def test_gradcheck_loss_root_finding_outside_1_2(alpha):
    # α outside (1, 2] uses the bracketed root finder: one reduction suffices
    tgt = torch.tensor([0, 5, -100])
    assert gradcheck(lambda x: S.entmax_bisect_loss(x, tgt, alpha), (_x(),))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_gradcheck_loss_alpha(alpha):
    tgt = torch.tensor([1, 0, 3])
    a = torch.full((3, 1), alpha, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, a: S.entmax_bisect_loss(x, tgt, a, reduction="sum"), (_x(), a))


def test_alpha_one_is_softmax_with_its_gradient():
    x = _x(4, 7, seed=3)
    a = torch.ones(4, 1, dtype=torch.float64, requires_grad=True)
    p = S.entmax_bisect(x, a)
    torch.testing.assert_close(p, torch.softmax(x, -1), atol=1e-15, rtol=0)
    g = torch.randn(4, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    (dx,) = torch.autograd.grad((p * g).sum(), x, retain_graph=True)
    (dx_ref,) = torch.autograd.grad((torch.softmax(x, -1) * g).sum(), x)
    torch.testing.assert_close(dx, dx_ref, atol=1e-14, rtol=0)
    # ∂/∂α at α = 1: central finite difference through the root-finding path at 1 ± h
    (da,) = torch.autograd.grad((S.entmax_bisect(x, a) * g).sum(), a)
    h = 1e-5
    with torch.no_grad():
        fd = ((S.entmax_bisect(x, 1 + h) - S.entmax_bisect(x, 1 - h)) * g).sum(-1) / (2 * h)
    torch.testing.assert_close(da.squeeze(-1), fd, atol=1e-6, rtol=1e-5)
    # same for the loss
    tgt = torch.tensor([0, 3, 6, 2])
    (dl,) = torch.autograd.grad(S.entmax_bisect_loss(x, tgt, a, reduction="sum"), a)
    with torch.no_grad():
        lp = S.entmax_bisect_loss(x, tgt, 1 + h, reduction="none")
        lm = S.entmax_bisect_loss(x, tgt, 1 - h, reduction="none")
    torch.testing.assert_close(dl.squeeze(-1), (lp - lm) / (2 * h), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("alpha", [1.0001, 1.001, 1.1])
def test_alpha_gradient_finite_near_one(dtype, alpha):
    g = torch.Generator().manual_seed(9)
    x = (torch.randn(8, 300, generator=g) * 3).to(dtype)
    a = torch.tensor(alpha, dtype=dtype, requires_grad=True)
    y = torch.randn(8, 300, generator=g).to(dtype)
    (S.entmax_bisect(x, a) * y).sum().backward()
    assert math.isfinite(float(a.grad))
    # agrees with a float64 finite difference
    h = 1e-6
    xd, yd = x.double(), y.double()
    fd = ((S.entmax_bisect(xd, alpha + h) - S.entmax_bisect(xd, alpha - h)) * yd).sum() / (2 * h)
    tol = 1e-4 if dtype == torch.float64 else 5e-2
    assert abs(float(a.grad) - float(fd)) <= tol * max(1.0, abs(float(fd)))
