"""inflect.sparse against the `entmax` package (test-only oracle) on random inputs.

The package is used only where it is correct: finite logits of moderate size, classes in the last
dimension, float64, its bisection with many iterations.
"""

from __future__ import annotations

import pytest
import torch

from inflect import sparse as S

entmax_pkg = pytest.importorskip("entmax")

LARGE = 18000
SIZES = [1, 2, 3, 7, 30, 256, 257, 500, 2000,
         pytest.param(18000, marks=pytest.mark.slow), pytest.param(50000, marks=pytest.mark.slow)]


def _x(d, seed, flat=False):
    g = torch.Generator().manual_seed(seed)
    rows = 1 if d >= LARGE else 8
    x = torch.randn(rows, d, generator=g, dtype=torch.float64)
    return x * (0.01 if flat else 2.0)


@pytest.mark.parametrize("d", SIZES)
@pytest.mark.parametrize("flat", [False, True], ids=["normal", "flat"])
def test_sparsemax_and_entmax15_match_package(d, flat):
    x = _x(d, d, flat)
    ref_sp = entmax_pkg.sparsemax(x, dim=-1)
    ref_15 = entmax_pkg.entmax15(x, dim=-1)
    for method in ("auto", "sort", "fast"):
        torch.testing.assert_close(S.sparsemax(x, method=method), ref_sp, atol=1e-12, rtol=0)
        torch.testing.assert_close(S.entmax15(x, method=method), ref_15, atol=1e-12, rtol=0)
    if d < LARGE:  # partial sort with doubling k (on large flat rows it ends in a full sort)
        torch.testing.assert_close(S.sparsemax(x, k=16), ref_sp, atol=1e-12, rtol=0)
        torch.testing.assert_close(S.entmax15(x, k=16), ref_15, atol=1e-12, rtol=0)
    x32 = x.float()
    torch.testing.assert_close(S.sparsemax(x32), entmax_pkg.sparsemax(x32), atol=1e-6, rtol=0)
    torch.testing.assert_close(S.entmax15(x32), entmax_pkg.entmax15(x32), atol=1e-6, rtol=0)


# every α on the small and medium sizes; α = 1.33 and 2 on the large ones (time)
BISECT_CASES = [(d, a) for d in (1, 2, 3, 7, 30, 256, 257, 500, 2000)
                for a in (1.1, 1.33, 1.5, 2.0, 3.0)]
BISECT_CASES += [pytest.param(d, 1.33, marks=pytest.mark.slow) for d in (18000, 50000)]


@pytest.mark.parametrize(("d", "alpha"), BISECT_CASES)
def test_entmax_bisect_matches_package(d, alpha):
    x = _x(d, 100 + d)
    # bracket width <= 1: 2^-64 (2^-48 on the large rows, where the package is slow)
    ref = entmax_pkg.entmax_bisect(x, alpha, n_iter=64 if d < LARGE else 48)
    torch.testing.assert_close(S.entmax_bisect(x, alpha), ref, atol=1e-11, rtol=0)
    # float32 input: within 1e-6 of the float64 reference for α <= 2. For α > 2, p = b^(1/(α-1))
    # has an unbounded slope at the edge of the support, so the rounding of the float32 input
    # itself moves small probabilities by more than that: 1e-5 there.
    tol = 1e-6 if alpha <= 2 else 1e-5
    torch.testing.assert_close(
        S.entmax_bisect(x.float(), alpha).double(), ref, atol=tol, rtol=0
    )


@pytest.mark.parametrize("d", [1, 5, 300])
def test_gradients_match_package(d):
    x = _x(d, 7).requires_grad_(True)
    g = torch.randn(x.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(8))
    pairs = [
        (S.sparsemax, entmax_pkg.sparsemax),
        (S.entmax15, entmax_pkg.entmax15),
        (lambda v: S.entmax_bisect(v, 1.3), lambda v: entmax_pkg.entmax_bisect(v, 1.3, n_iter=64)),
    ]
    for ours, theirs in pairs:
        (a,) = torch.autograd.grad((ours(x) * g).sum(), x)
        (b,) = torch.autograd.grad((theirs(x) * g).sum(), x)
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0)
    # α gradient (Correia et al. 2019) against the package's formula, away from α = 1
    a1 = torch.full((x.shape[0], 1), 1.4, dtype=torch.float64, requires_grad=True)
    a2 = torch.full((x.shape[0], 1), 1.4, dtype=torch.float64, requires_grad=True)
    (ga,) = torch.autograd.grad((S.entmax_bisect(x, a1) * g).sum(), a1)
    (gb,) = torch.autograd.grad((entmax_pkg.entmax_bisect(x, a2, n_iter=64) * g).sum(), a2)
    torch.testing.assert_close(ga, gb, atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("d", [2, 9, 1000])
def test_losses_match_package(d):
    x = _x(d, 9).requires_grad_(True)
    t = torch.randint(0, d, (x.shape[0],), generator=torch.Generator().manual_seed(3))
    pairs = [
        (S.sparsemax_loss, lambda v, y: entmax_pkg.sparsemax_loss(v, y)),
        (S.entmax15_loss, lambda v, y: entmax_pkg.entmax15_loss(v, y)),
        (lambda v, y, **kw: S.entmax_bisect_loss(v, y, 1.7, **kw),
         lambda v, y: entmax_pkg.entmax_bisect_loss(v, y, 1.7, n_iter=64)),
    ]
    for ours, theirs in pairs:
        a = ours(x, t, reduction="none")
        b = theirs(x, t)
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0)
        (ga,) = torch.autograd.grad(a.sum(), x)
        (gb,) = torch.autograd.grad(b.sum(), x)
        torch.testing.assert_close(ga, gb, atol=1e-10, rtol=0)
