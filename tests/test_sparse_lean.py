"""The lean small-row path of sparsemax / 1.5-entmax and their losses equals the general path.

The lean path (float32/float64, last dimension, no ``k``, sort algorithm) must give bit-for-bit
the values and gradients of the general path (``_apply`` + ``shift_rows`` + ``*_tau_sort``),
which is forced here by disabling the lean dispatch; the general path itself is checked against
independent references in the other ``test_sparse_*`` files.
"""

from __future__ import annotations

import pytest
import torch

from inflect import sparse as S
from inflect.sparse import activations as A
from inflect.sparse import losses as L


def _logits(shape, dtype, seed, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(*shape, generator=g) * scale).to(dtype)
    x[torch.rand(*shape, generator=g) < 0.3] = -torch.inf  # masked positions
    flat = x.reshape(-1, shape[-1])
    flat[1] = -torch.inf  # a fully masked row
    if flat.shape[0] > 3:
        flat[3] = flat[3].round()  # ties
    return x


def _general(monkeypatch):
    monkeypatch.setattr(A, "_lean_ok", lambda *a: False)
    monkeypatch.setattr(L, "SORT_MAX_D", 0)


@pytest.mark.parametrize("name", ["sparsemax", "entmax15"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(5, 1), (6, 2), (16, 7), (64, 30), (2, 8, 100)])
def test_lean_mapping_equals_general(monkeypatch, name, dtype, shape):
    f = getattr(S, name)
    for seed in range(3):
        x = _logits(shape, dtype, seed)
        g = torch.randn(shape, generator=torch.Generator().manual_seed(99 + seed)).to(dtype)
        xa = x.clone().requires_grad_(True)
        pa = f(xa)
        pa.backward(g)
        with torch.inference_mode():
            pi = f(x)
        with torch.no_grad():
            pn = f(x, method="sort")
        with monkeypatch.context() as m:
            _general(m)
            xb = x.clone().requires_grad_(True)
            pb = f(xb)
            pb.backward(g)
        assert torch.equal(pa, pb)
        assert torch.equal(pi, pb.detach())
        assert torch.equal(pn, pb.detach())
        assert torch.equal(xa.grad, xb.grad)
        empty = torch.isneginf(x).all(dim=-1)
        assert (pa[empty] == 0).all() and (xa.grad[empty] == 0).all()
        assert torch.allclose(pa[~empty].sum(-1), torch.ones((), dtype=dtype), atol=1e-5)


@pytest.mark.parametrize("fn", [S.sparsemax_loss, S.entmax15_loss,
                                lambda x, t, **kw: S.entmax_loss(x, t, 1.5, **kw)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(6, 2), (64, 30), (32, 100)])
def test_lean_loss_equals_general(monkeypatch, fn, dtype, shape):
    for seed in range(3):
        x = _logits(shape, dtype, seed)
        x[0, 0] = 5.0  # make row 0's target finite
        t = torch.randint(0, shape[-1], shape[:-1], generator=torch.Generator().manual_seed(seed))
        t[0] = 0
        t[2] = -100  # ignored
        xa = x.clone().requires_grad_(True)
        la = fn(xa, t, reduction="none")
        la[torch.isfinite(la)].sum().backward()
        with torch.inference_mode():
            li = fn(x, t, reduction="none")
        with monkeypatch.context() as m:
            _general(m)
            xb = x.clone().requires_grad_(True)
            lb = fn(xb, t, reduction="none")
            lb[torch.isfinite(lb)].sum().backward()
        assert torch.equal(la, lb)
        assert torch.equal(li, lb.detach())
        assert torch.equal(xa.grad, xb.grad)
        assert torch.isinf(la[1]) and la[2] == 0


def test_lean_not_taken_where_general_needed():
    x = torch.randn(3, 5, dtype=torch.float16)
    assert A._lean_ok(torch.randn(3, 5), -1, None, "auto")
    assert A._lean_ok(torch.randn(3, 300), 1, None, "sort")
    assert not A._lean_ok(x, -1, None, "auto")  # half precision
    assert not A._lean_ok(torch.randn(3, 5), 0, None, "auto")  # not the last dim
    assert not A._lean_ok(torch.randn(3, 5), True, None, "auto")  # bool dim: general raises
    assert not A._lean_ok(torch.randn(3, 5), -1, 2, "auto")  # partial sort
    assert not A._lean_ok(torch.randn(3, 300), -1, None, "auto")  # long rows: sort-free path
    assert not A._lean_ok(torch.randn(3, 0), -1, None, "auto")  # empty dim: general raises
    with pytest.raises(ValueError):
        S.sparsemax(torch.randn(3, 5), dim=True)


def test_cached_rho_made_in_inference_mode_works_with_autograd():
    d = 37  # a size no other test uses first
    x = torch.randn(4, d, dtype=torch.float64)
    with torch.inference_mode():
        p_inf = S.entmax15(x)
    xr = x.clone().requires_grad_(True)
    p = S.entmax15(xr)
    p.sum().backward()
    assert torch.equal(p.detach(), p_inf)
    assert not A._rho_cached(d, x).is_inference()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_lean_sparsemax_huge_negative_logits_equal_general(monkeypatch, dtype):
    # the lean sparsemax skips the floor at -2 (see _shift_lean): huge finite negatives, ties
    big = torch.finfo(dtype).max
    x = torch.tensor([[0.0, -big, -big, 0.5, -1e30, -2.5, -2.5, 0.25],
                      [-big, -big, -big, -big, -big, -big, -big, -big],
                      [1.0, 1.0, 1.0, -3.0, -3.0, -torch.inf, -1e20, 0.999]], dtype=dtype)
    x = torch.cat([x, torch.randn(61, 8, dtype=dtype) * 50], dim=0)
    xa = x.clone().requires_grad_(True)
    pa = S.sparsemax(xa)
    pa.backward(torch.arange(8, dtype=dtype).expand(64, 8))
    with monkeypatch.context() as m:
        _general(m)
        xb = x.clone().requires_grad_(True)
        pb = S.sparsemax(xb)
        pb.backward(torch.arange(8, dtype=dtype).expand(64, 8))
    assert torch.equal(pa, pb) and torch.equal(xa.grad, xb.grad)
    # by hand: support {0.5, 0.25, 0}, τ = (0.75 - 1)/3 = -1/12
    assert pa[0].tolist() == pytest.approx([1 / 12, 0, 0, 7 / 12, 0, 0, 0, 1 / 3])


def test_lean_dispatch_handles_zero_rows():
    x = torch.randn(0, 5, requires_grad=True)
    for f in (S.sparsemax, S.entmax15):
        assert f(x).shape == (0, 5)
        with torch.inference_mode():
            assert f(x.detach()).shape == (0, 5)
    for f in (S.sparsemax_loss, S.entmax15_loss):
        out = f(x, torch.zeros(0, dtype=torch.long), reduction="sum")
        assert out.item() == 0.0
