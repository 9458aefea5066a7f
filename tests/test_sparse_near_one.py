"""α-entmax and its Fenchel–Young loss for a float α just above 1: as exact as a tensor α, and
tending to the α → 1 limit (softmax, cross-entropy).

References: the limit itself (torch's softmax and cross_entropy), and a 50-digit mpmath
bisection of eq. 9 of Peters et al. (2019) for α = 1.05.
"""

from __future__ import annotations

import itertools

import mpmath
import pytest
import torch

import inflect.sparse as S

X = torch.tensor([[0.0, 0.0, 1.0], [3.0, -2.0, 2.5], [0.5, -1.0, 4.0]])
Y = torch.tensor([2, 0, 1])


def _reference(row: list[float], alpha: float) -> list[float]:
    """α-entmax of one row at 50 digits: bisection on τ of Σ [1 + (α-1)(x_i - τ)]_+^(1/(α-1))."""
    mpmath.mp.dps = 50
    a = mpmath.mpf(alpha)
    xs = [mpmath.mpf(v) for v in row]

    def mass(tau):
        return sum(max(mpmath.mpf(0), 1 + (a - 1) * (x - tau)) ** (1 / (a - 1)) for x in xs)

    lo, hi = max(xs), max(xs) + 10  # the mass is 1 + (the others) >= 1 at τ = max x
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mass(mid) > 1 else (lo, mid)
    p = [max(mpmath.mpf(0), 1 + (a - 1) * (x - lo)) ** (1 / (a - 1)) for x in xs]
    total = sum(p)
    return [float(v / total) for v in p]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_float_alpha_just_above_one_is_softmax_to_the_working_precision(dtype):
    x = X.to(dtype)
    want = torch.softmax(x, dim=-1)
    for alpha in (1.0000001, 1 + 1e-9, 1 + 1e-12):
        got = S.entmax(x, alpha)
        # the distance to the limit is O(α - 1): below float32 rounding for these α
        torch.testing.assert_close(got, want, atol=2e-6 if dtype == torch.float32 else 1e-6,
                                   rtol=0)
        torch.testing.assert_close(got, S.entmax(x, torch.tensor(alpha, dtype=dtype)))
    # the case: [0, 0, 1] gave [0.19, 0.19, 0.62] for α = 1.0000001
    assert S.get_mapping("entmax:1.0000001").forward(x[:1], -1)[0, 2].item() == pytest.approx(
        0.5761, abs=1e-4)


def test_the_distance_to_softmax_shrinks_with_alpha_minus_one():
    x = X.double()
    soft = torch.softmax(x, dim=-1)
    gaps = [float((S.entmax(x, 1 + 10.0**-k) - soft).abs().max()) for k in range(2, 11)]
    assert all(b < a for a, b in itertools.pairwise(gaps))
    assert gaps[-1] < 1e-9


@pytest.mark.parametrize("alpha", [1.05, 1.001, 1.00001])
def test_near_one_against_a_50_digit_reference(alpha):
    for row in X.tolist():
        got = S.entmax(torch.tensor([row], dtype=torch.float64), alpha)[0].tolist()
        assert got == pytest.approx(_reference(row, alpha), abs=1e-12)


def test_loss_just_above_one_is_cross_entropy():
    ce = torch.nn.functional.cross_entropy(X, Y, reduction="none")
    for alpha in (1.0000001, torch.tensor(1.0000001)):
        got = S.entmax_loss(X, Y, alpha, reduction="none")
        torch.testing.assert_close(got, ce, atol=1e-5, rtol=0)
    mapping = S.get_mapping("entmax:1.0000001")
    assert float(mapping.loss(X, Y)) == pytest.approx(float(ce.mean()), abs=1e-5)


def test_near_one_rows_mix_with_other_alphas_and_empty_rows():
    x = torch.cat([X, torch.full((1, 3), -torch.inf)])
    alpha = torch.tensor([[1.0000001], [1.5], [1.2], [1.0000001]])
    got = S.entmax(x, alpha)
    torch.testing.assert_close(got[0], torch.softmax(X[0], -1), atol=2e-6, rtol=0)
    torch.testing.assert_close(got[1], S.entmax15(X[1]))
    torch.testing.assert_close(got[2], S.entmax(X[2:3], 1.2)[0])
    assert got[3].tolist() == [0.0, 0.0, 0.0]


def test_gradient_near_one_is_softmax_gradient():
    x1 = X.clone().requires_grad_()
    x2 = X.clone().requires_grad_()
    S.entmax_loss(x1, Y, 1.0000001, reduction="sum").backward()
    torch.nn.functional.cross_entropy(x2, Y, reduction="sum").backward()
    torch.testing.assert_close(x1.grad, x2.grad, atol=2e-6, rtol=0)
