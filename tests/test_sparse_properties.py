"""inflect.sparse property tests (hypothesis): simplex, shift invariance, permutation
equivariance, sort path = fast path = root-finding path, Fenchel–Young loss >= 0 and its zero set.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from inflect import sparse as S

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False, width=64)
rows = st.integers(1, 40).flatmap(lambda n: arrays(np.float64, (n,), elements=finite))
alphas = st.sampled_from([1.0, 1.1, 1.33, 1.5, 1.75, 2.0, 2.5])

MAPPINGS = {
    "sparsemax-sort": (2.0, lambda x: S.sparsemax(x, method="sort")),
    "sparsemax-fast": (2.0, lambda x: S.sparsemax(x, method="fast")),
    "sparsemax-k2": (2.0, lambda x: S.sparsemax(x, k=2)),
    "entmax15-sort": (1.5, lambda x: S.entmax15(x, method="sort")),
    "entmax15-fast": (1.5, lambda x: S.entmax15(x, method="fast")),
    "entmax15-k2": (1.5, lambda x: S.entmax15(x, k=2)),
}


def _f(alpha):
    return lambda x: S.entmax_bisect(x, alpha)


@SETTINGS
@given(z=rows, alpha=alphas)
def test_on_the_simplex(z, alpha):
    x = torch.from_numpy(z)
    for f in [_f(alpha), *[g for a, g in MAPPINGS.values() if a == alpha]]:
        p = f(x)
        assert bool((p >= 0).all())
        assert abs(float(p.sum()) - 1.0) <= 1e-9


@SETTINGS
@given(z=rows, alpha=alphas, c=st.floats(-1e3, 1e3))
def test_shift_invariance(z, alpha, c):
    x = torch.from_numpy(z)
    for f in [_f(alpha), *[g for a, g in MAPPINGS.values() if a == alpha]]:
        torch.testing.assert_close(f(x + c), f(x), atol=1e-9, rtol=0)


@SETTINGS
@given(z=rows, alpha=alphas, seed=st.integers(0, 2**31 - 1))
def test_permutation_equivariance(z, alpha, seed):
    x = torch.from_numpy(z)
    perm = torch.randperm(len(z), generator=torch.Generator().manual_seed(seed))
    for f in [_f(alpha), *[g for a, g in MAPPINGS.values() if a == alpha]]:
        torch.testing.assert_close(f(x[perm]), f(x)[perm], atol=1e-12, rtol=0)


@SETTINGS
@given(z=rows)
def test_sort_fast_and_root_finding_paths_agree(z):
    x = torch.from_numpy(z)
    for alpha in (1.5, 2.0):
        ref = S.entmax_bisect(x, alpha)
        ref_bisect = S.entmax_bisect(x, alpha, n_iter=60)
        for name, (a, f) in MAPPINGS.items():
            if a == alpha:
                p = f(x)
                torch.testing.assert_close(p, ref, atol=1e-9, rtol=0, msg=name)
                torch.testing.assert_close(p, ref_bisect, atol=1e-9, rtol=0, msg=name)
    # same threshold and support from the sort-based and the sort-free algorithms (support =
    # entries with positive probability; entries tied with τ have probability 0 up to rounding)
    from inflect.sparse import _common as C
    from inflect.sparse import _fast, _thresholds

    for scale, sort, fast in [
        (1.0, _thresholds.sparsemax_tau_sort, _fast.sparsemax_tau_fast),
        (0.5, _thresholds.entmax15_tau_sort, _fast.entmax15_tau_fast),
    ]:
        xs, _ = C.shift_rows(x.unsqueeze(0), scale)
        t1, _ = sort(xs)
        t2, _ = fast(xs)
        assert abs(float(t1 - t2)) <= 1e-9
        assert bool((((xs - t1) > 1e-9) == ((xs - t2) > 1e-9)).all())


@SETTINGS
@given(z=rows, alpha=alphas, data=st.data())
def test_loss_nonnegative_and_zero_exactly_beyond_margin(z, alpha, data):
    x = torch.from_numpy(z).unsqueeze(0)
    y = data.draw(st.integers(0, len(z) - 1))
    t = torch.tensor([y])
    loss = float(S.entmax_loss(x, t, alpha))
    assert loss >= 0.0
    if alpha == 1.0:
        return
    others = np.delete(z, y)
    margin = z[y] - others.max() if len(others) else np.inf
    bound = 1 / (alpha - 1)
    if margin >= bound * (1 + 1e-6) + 1e-9:
        assert loss == 0.0
    elif margin < bound * (1 - 1e-3):
        assert loss > 0.0
    # pushing the target logit beyond the margin makes it exactly zero
    x2 = x.clone()
    x2[0, y] = (float(others.max()) if len(others) else 0.0) + bound * 1.01 + 1e-6
    assert float(S.entmax_loss(x2, t, alpha)) == 0.0


@pytest.mark.parametrize("alpha", [1.2, 1.5, 2.0])
def test_loss_zero_iff_prediction_is_one_hot(alpha):
    g = torch.Generator().manual_seed(21)
    x = torch.randn(200, 6, generator=g, dtype=torch.float64) * 4
    t = x.argmax(-1)
    loss = S.entmax_loss(x, t, alpha, reduction="none")
    p = S.entmax(x, alpha)
    one_hot = (p.max(-1).values == 1.0)
    assert bool(((loss == 0) == one_hot).all())
    assert 0 < int(one_hot.sum()) < 200  # both cases occur
