"""The bisection for the α-entmax threshold (Peters, Niculae & Martins 2019, Algorithm 1), in the
scaled space of ``inflect.sparse._thresholds``: a fixed number of halvings against the same
bisection written here in plain float64 Python, and the run to convergence against the ``entmax``
package (the oracle of the suite).
"""

from __future__ import annotations

import entmax as oracle
import pytest
import torch

from inflect.sparse import _thresholds as T

ALPHAS = (1.25, 1.5, 1.7, 2.0)


def scaled(z: torch.Tensor, alpha: float) -> torch.Tensor:
    """``u = (α - 1)(z - max z)``, the input of the threshold functions."""
    return (alpha - 1) * (z - z.max(dim=-1, keepdim=True).values)


def reference_t(u_row: list[float], alpha: float, n_iter: int) -> float:
    """``n_iter`` halvings of ``[0, 1 - n^(1-α)]`` keeping the end where
    ``f(t) = Σ [1 + u_i - t]_+^(1/(α-1)) - 1 >= 0``; ``n`` counts the entries that can be in the
    support, ``u_i > -1`` (an entry with ``u_i <= -1`` has ``p_i = 0`` for every ``t >= 0``, so
    the root is at most ``1 - n^(1-α)``: the bracket ``entmax_t_bracket`` documents)."""
    n = max(1, sum(u > -1.0 for u in u_row))
    lo, hi = 0.0, 1.0 - n ** (1.0 - alpha)
    for _ in range(n_iter):
        mid = (lo + hi) / 2
        f = sum(max(1.0 + u - mid, 0.0) ** (1.0 / (alpha - 1.0)) for u in u_row) - 1.0
        lo, hi = (mid, hi) if f >= 0 else (lo, mid)
    return lo


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("n_iter", [0, 1, 2, 7, 40])
def test_a_fixed_number_of_halvings(alpha, n_iter):
    z = torch.randn(4, 9, generator=torch.Generator().manual_seed(n_iter), dtype=torch.float64)
    u = scaled(3 * z, alpha)
    t = T.entmax_t_bisect(u, alpha, n_iter)
    assert t.shape == (4, 1)
    for row, got in zip(u.tolist(), t[:, 0].tolist(), strict=True):
        assert got == pytest.approx(reference_t(row, alpha, n_iter), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_bisection_to_convergence_matches_the_entmax_package(alpha):
    z = torch.randn(6, 11, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    z[0] = 0.0  # all tied: the root is the bracket's end
    u = scaled(4 * z, alpha)
    t = T.entmax_t_bisect(u, alpha)  # until the bracket stops shrinking
    p = T.entmax_p(u, t, alpha)
    p = p / p.sum(dim=-1, keepdim=True)
    want = oracle.entmax_bisect(4 * z, alpha, dim=-1, n_iter=200)
    torch.testing.assert_close(p, want, atol=1e-9, rtol=1e-9)
    # converged: halving once more moves t by less than its working precision
    more = T.entmax_t_bisect(u, alpha, 200)
    torch.testing.assert_close(t, more, atol=1e-14, rtol=0)
