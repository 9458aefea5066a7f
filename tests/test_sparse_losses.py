"""inflect.sparse Fenchel–Young losses: values, ignore_index, reductions, masking, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _sparse_ref import fy_loss_ref

from inflect import sparse as S

INF = math.inf

LOSSES = [
    ("cross-entropy", 1.0, lambda x, t, **kw: S.entmax_loss(x, t, 1.0, **kw)),
    ("bisect-1", 1.0, lambda x, t, **kw: S.entmax_bisect_loss(x, t, 1.0, **kw)),
    ("sparsemax", 2.0, S.sparsemax_loss),
    ("sparsemax-k1", 2.0, lambda x, t, **kw: S.sparsemax_loss(x, t, k=1, **kw)),
    ("sparsemax-bisect", 2.0, S.sparsemax_bisect_loss),
    ("module-sparsemax-bisect", 2.0, lambda x, t, **kw: S.SparsemaxBisectLoss(**kw)(x, t)),
    ("entmax(2)", 2.0, lambda x, t, **kw: S.entmax_loss(x, t, 2.0, **kw)),
    ("entmax15", 1.5, S.entmax15_loss),
    ("entmax(1.5)", 1.5, lambda x, t, **kw: S.entmax_loss(x, t, 1.5, **kw)),
    ("bisect-1.5", 1.5, lambda x, t, **kw: S.entmax_bisect_loss(x, t, 1.5, **kw)),
    ("bisect-1.33", 1.33, lambda x, t, **kw: S.entmax_bisect_loss(x, t, 1.33, **kw)),
    ("bisect-3", 3.0, lambda x, t, **kw: S.entmax_bisect_loss(x, t, 3.0, **kw)),
    ("module-entmax", 1.25, lambda x, t, **kw: S.EntmaxLoss(1.25, **kw)(x, t)),
]
IDS = [n for n, _, _ in LOSSES]


def test_hand_derived_loss_values():
    # x = [-2, 0, 0.5], y = 2: sparsemax p = [0, .25, .75]:
    #   <p - e_y, x> = .75*.5 - .5 = -.125 ; (1 - Σp²)/2 = (1 - .625)/2 = .1875 -> 0.0625
    x = torch.tensor([[-2.0, 0.0, 0.5]], dtype=torch.float64)
    y = torch.tensor([2])
    assert float(S.sparsemax_loss(x, y)) == pytest.approx(0.0625, abs=1e-15)
    # cross-entropy: log Σ exp(x) - x_y
    ce = math.log(math.exp(-2) + 1 + math.exp(0.5)) - 0.5
    assert float(S.entmax_loss(x, y, 1.0)) == pytest.approx(ce, abs=1e-15)
    # 1.5-entmax: τ = (0.5 - sqrt(7.75))/4 on x/2; p = [0, τ², (.25-τ)²]
    tau = (0.5 - math.sqrt(7.75)) / 4
    p = [0.0, tau**2, (0.25 - tau) ** 2]
    expected = p[1] * 0.0 + p[2] * 0.5 - 0.5 + (1 - p[1] ** 1.5 - p[2] ** 1.5) / 0.75
    assert float(S.entmax15_loss(x, y)) == pytest.approx(expected, abs=1e-14)


@pytest.mark.parametrize(("name", "alpha", "loss"), LOSSES, ids=IDS)
def test_loss_matches_reference_and_gradient_is_p_minus_onehot(name, alpha, loss):
    g = torch.Generator().manual_seed(11)
    x = (torch.randn(2, 3, 7, generator=g, dtype=torch.float64) * 2).requires_grad_(True)
    t = torch.randint(0, 7, (2, 3), generator=g)
    out = loss(x, t, reduction="none")
    assert out.shape == (2, 3)
    ref = [
        fy_loss_ref(r, int(c), alpha)
        for r, c in zip(x.detach().reshape(-1, 7).numpy(), t.reshape(-1).tolist(), strict=True)
    ]
    np.testing.assert_allclose(out.detach().reshape(-1).numpy(), ref, atol=1e-9)
    assert bool((out >= 0).all())
    out.sum().backward()
    p = S.entmax(x.detach(), alpha) if alpha != 1.25 else S.entmax_bisect(x.detach(), 1.25)
    torch.testing.assert_close(x.grad, p - F.one_hot(t, 7).double(), atol=1e-9, rtol=0)


@pytest.mark.parametrize(("name", "alpha", "loss"), LOSSES, ids=IDS)
@pytest.mark.parametrize("ignore_index", [-100, -1, 0, 3])
def test_ignore_index_and_mean(name, alpha, loss, ignore_index):
    g = torch.Generator().manual_seed(12)
    x = torch.randn(10, 5, generator=g, dtype=torch.float64).requires_grad_(True)
    t = torch.randint(0, 5, (10,), generator=g)
    if ignore_index >= 0:
        t = torch.where(t == ignore_index, (ignore_index + 1) % 5, t)  # the pad id only where set
    ignored = torch.tensor([1, 0, 0, 1, 0, 1, 0, 0, 0, 1], dtype=torch.bool)
    t = t.masked_fill(ignored, ignore_index)
    per = loss(x, t, ignore_index=ignore_index, reduction="none")
    assert bool((per[ignored] == 0).all())
    kept = ~ignored
    ref = torch.tensor(
        [
            fy_loss_ref(r, int(c), alpha)
            for r, c in zip(x.detach()[kept].numpy(), t[kept].tolist(), strict=True)
        ],
        dtype=torch.float64,
    )
    torch.testing.assert_close(per[kept].detach(), ref, atol=1e-9, rtol=0)
    total = loss(x, t, ignore_index=ignore_index, reduction="sum")
    mean = loss(x, t, ignore_index=ignore_index, reduction="mean")
    torch.testing.assert_close(total.detach(), ref.sum(), atol=1e-9, rtol=0)
    torch.testing.assert_close(mean.detach(), ref.sum() / int(kept.sum()), atol=1e-9, rtol=0)
    mean.backward()
    assert bool((x.grad[ignored] == 0).all())
    if alpha == 1.0:  # exactly torch's cross-entropy, reductions included
        for red in ("none", "sum", "mean"):
            torch.testing.assert_close(
                loss(x, t, ignore_index=ignore_index, reduction=red),
                F.cross_entropy(x, t, ignore_index=ignore_index, reduction=red),
                atol=1e-12,
                rtol=0,
            )


@pytest.mark.parametrize(("name", "alpha", "loss"), LOSSES, ids=IDS)
def test_all_targets_ignored_mean_is_nan_with_zero_gradient_like_torch(name, alpha, loss):
    # torch's cross_entropy: every target ignored -> 'mean' is 0/0 = NaN, but its gradient is 0
    g = torch.Generator().manual_seed(16)
    x0 = torch.randn(3, 4, generator=g)
    t = torch.full((3,), -100)
    xr = x0.clone().requires_grad_(True)
    ref = F.cross_entropy(xr, t)
    ref.backward()
    assert math.isnan(float(ref.detach())) and bool((xr.grad == 0).all())
    x = x0.clone().requires_grad_(True)
    out = loss(x, t, reduction="mean")
    assert math.isnan(float(out.detach()))
    out.backward()
    torch.testing.assert_close(x.grad, xr.grad, atol=0, rtol=0)  # zeros, not NaN
    assert float(loss(x.detach(), t, reduction="sum")) == 0.0
    assert bool((loss(x, t, reduction="none") == 0).all())


@pytest.mark.parametrize(
    "make", [S.SparsemaxLoss, S.Entmax15Loss, S.SparsemaxBisectLoss, lambda: S.EntmaxLoss(1.5)]
)
def test_all_padding_micro_batch_leaves_weights_finite_after_adam(make):
    # gradient accumulation over a real batch and an all-padding one, then one Adam step: the
    # weights change as for the real batch alone (Adam's first step is lr * sign(grad))
    torch.manual_seed(0)
    lin = torch.nn.Linear(5, 4)
    ref = torch.nn.Linear(5, 4)
    ref.load_state_dict(lin.state_dict())
    x = torch.randn(6, 5)
    real = torch.tensor([0, 1, 2, 3, 0, 1])
    pad = torch.full((6,), -100)
    crit = make()
    opt = torch.optim.Adam(lin.parameters(), lr=0.1)
    opt_ref = torch.optim.Adam(ref.parameters(), lr=0.1)
    crit(lin(x), real).backward()
    padded = crit(lin(x), pad)
    assert math.isnan(float(padded.detach()))
    padded.backward()
    crit(ref(x), real).backward()
    opt.step()
    opt_ref.step()
    for w, w_ref in zip(lin.parameters(), ref.parameters(), strict=True):
        assert bool(torch.isfinite(w).all())
        torch.testing.assert_close(w, w_ref, atol=0, rtol=0)


@pytest.mark.parametrize(("name", "alpha", "loss"), LOSSES, ids=IDS)
def test_masked_classes(name, alpha, loss):
    g = torch.Generator().manual_seed(13)
    z = torch.randn(4, 8, generator=g, dtype=torch.float64)
    mask = torch.zeros(4, 8, dtype=torch.bool)
    mask[0, [0, 5]] = True
    mask[1, 1:4] = True
    mask[3, :] = True  # fully masked row
    x = z.masked_fill(mask, -INF).requires_grad_(True)
    t = torch.tensor([2, 0, 7, 4])
    per = loss(x, t, reduction="none")
    for i in range(3):  # equals the loss on the finite columns alone
        keep = ~mask[i]
        y = int(keep[: int(t[i])].sum())
        assert float(per[i].detach()) == pytest.approx(
            fy_loss_ref(z[i, keep].numpy(), y, alpha), abs=1e-9
        )
    assert float(per[3].detach()) == INF  # documented: a fully masked row has loss +inf
    per[:3].sum().backward()
    assert bool(torch.isfinite(x.grad).all())
    assert bool((x.grad[mask] == 0).all())
    # a masked target: +inf loss, finite gradient
    x2 = x.detach().clone().requires_grad_(True)
    t2 = torch.tensor([0, 4, 7, -100])
    per2 = loss(x2, t2, reduction="none")
    assert float(per2[0].detach()) == INF and math.isfinite(float(per2[1].detach()))
    per2[0].backward()
    assert bool(torch.isfinite(x2.grad).all())
    # the fully masked row with an ignored target: contributes nothing
    t3 = torch.tensor([2, 0, 7, -100])
    assert math.isfinite(float(loss(x.detach(), t3, reduction="mean")))


@pytest.mark.parametrize(("name", "alpha", "loss"), LOSSES, ids=IDS)
def test_half_precision_and_huge_logits(name, alpha, loss):
    g = torch.Generator().manual_seed(14)
    x = torch.randn(6, 9, generator=g) * 3
    t = torch.randint(0, 9, (6,), generator=g)
    for dtype in (torch.float16, torch.bfloat16):
        out = loss(x.to(dtype), t, reduction="none")
        assert out.dtype == dtype
        ref = loss(x.to(dtype).float(), t, reduction="none")
        torch.testing.assert_close(out, ref.to(dtype), atol=0, rtol=0)
    big = (x * 1e30).float()
    out = loss(big, t, reduction="none")
    assert bool(torch.isfinite(out).all())
    ref = [
        fy_loss_ref(r, int(c), alpha) for r, c in zip(big.double().numpy(), t.tolist(), strict=True)
    ]
    np.testing.assert_allclose(out.double().numpy(), ref, rtol=1e-5)


@pytest.mark.parametrize("alpha", [1.25, 1.5, 2.0, 3.0])
def test_loss_zero_exactly_at_margin(alpha):
    # the loss is 0 iff z_y - z_j >= 1/(α-1) for all j != y
    margin = 1 / (alpha - 1)
    x = torch.tensor([[0.0, margin * 1.001, -1.0], [0.0, margin * 0.9, -1.0]], dtype=torch.float64)
    t = torch.tensor([1, 1])
    out = S.entmax_loss(x, t, alpha, reduction="none")
    assert float(out[0]) == 0.0
    assert float(out[1]) > 0.0


def test_invalid_arguments():
    x = torch.randn(4, 5)
    with pytest.raises(ValueError, match="integer"):
        S.sparsemax_loss(x, torch.tensor([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="integer"):
        S.entmax15_loss(x, torch.tensor([True, False, True, True]))
    with pytest.raises(ValueError, match="outside"):
        S.entmax15_loss(x, torch.tensor([0, 1, 5, 2]))
    with pytest.raises(ValueError, match="outside"):
        S.entmax_loss(x, torch.tensor([0, -1, 2, 2]), 1.3)
    with pytest.raises(ValueError, match="shape"):
        S.sparsemax_loss(x, torch.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="reduction"):
        S.sparsemax_loss(x, torch.tensor([0, 1, 2, 3]), reduction="average")
    with pytest.raises(ValueError, match="reduction"):
        S.Entmax15Loss(reduction="avg")
    with pytest.raises(ValueError, match="alpha"):
        S.entmax_loss(x, torch.tensor([0, 1, 2, 3]), 0.0)
    with pytest.raises(ValueError, match="k must be >= 1"):
        S.SparsemaxLoss(k=0)


def test_loss_modules_and_learnable_alpha():
    g = torch.Generator().manual_seed(15)
    x = torch.randn(6, 5, generator=g)
    t = torch.tensor([0, 1, 2, 3, 4, -100])
    for mod, fn in [
        (S.SparsemaxLoss(), lambda a, b: S.sparsemax_loss(a, b, reduction="mean")),
        (S.Entmax15Loss(reduction="sum"), lambda a, b: S.entmax15_loss(a, b, reduction="sum")),
        (S.EntmaxBisectLoss(1.7), lambda a, b: S.entmax_bisect_loss(a, b, 1.7, reduction="mean")),
        (S.EntmaxLoss(1.0), lambda a, b: F.cross_entropy(a, b)),
    ]:
        torch.testing.assert_close(mod(x, t), fn(x, t), atol=1e-6, rtol=0)
    alpha = torch.nn.Parameter(torch.tensor(1.4, dtype=torch.float64))
    mod = S.EntmaxLoss(alpha)
    assert [n for n, _ in mod.named_parameters()] == ["alpha"]
    x64 = x.double()
    mod(x64, t).backward()
    assert alpha.grad is not None and math.isfinite(float(alpha.grad))
    # dL/dα against a central finite difference of the loss in α (float64)
    h = 1e-5
    with torch.no_grad():
        up = float(S.EntmaxLoss(torch.tensor(1.4 + h, dtype=torch.float64))(x64, t))
        down = float(S.EntmaxLoss(torch.tensor(1.4 - h, dtype=torch.float64))(x64, t))
    assert abs((up - down) / (2 * h)) > 1e-3  # a gradient there is to check
    assert float(alpha.grad) == pytest.approx((up - down) / (2 * h), rel=1e-4, abs=1e-7)
