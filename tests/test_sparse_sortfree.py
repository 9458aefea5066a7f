"""The sort-free exact thresholds (the default above 256 classes) on tied and quantized logits.

Sparsemax's sort-free path (Michelot's iteration) is exact only because it stops when the
candidate set no longer changes; 1.5-entmax's (monotone Newton) only because its closed-form
finalisation is accepted when no entry lies between the Newton iterate and the closed form (the
exactness check). Both matter when entries sit at or near the threshold: ties and quantized
logits (a softmax-layer's scores after rounding, or integer scores). Checked at 257 (the first
size on the sort-free path), 1000 and 18000 classes against the float64 bisection reference of
``_sparse_ref`` and against values known by construction, to float64 rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _sparse_ref import entmax_ref

from inflect import sparse as S
from inflect.sparse.activations import SORT_MAX_D

MAPPINGS = {"sparsemax": (2.0, S.sparsemax), "entmax15": (1.5, S.entmax15)}
SIZES = [257, 1000, pytest.param(18000, marks=pytest.mark.slow)]


def _logits(kind: str, d: int, seed: int) -> np.ndarray:
    """Rows of tied / quantized logits (float64), 64 rows (16 at 18000 classes)."""
    g = np.random.default_rng(seed)
    rows = 64 if d < 18000 else 16
    if kind.startswith("grid"):  # N(0,1) rounded to a grid of 1/q: many ties at every level
        q = int(kind[4:])
        return np.round(g.standard_normal((rows, d)) * q) / q
    if kind == "levels":  # integer scores 0..5 halved: a few huge tie blocks
        return g.integers(0, 6, (rows, d)) * 0.5
    # "tied-top": the maximum tied k times (1 <= k < 20) over a quarter grid
    x = np.round(g.standard_normal((rows, d)) * 4) / 4
    for i, k in enumerate(g.integers(1, 20, rows)):
        x[i, g.choice(d, k, replace=False)] = x[i].max()
    return x


def test_the_sizes_take_the_sort_free_path():
    assert SORT_MAX_D == 256  # 257 is the first size where method="auto" goes sort-free


@pytest.mark.parametrize("d", SIZES)
@pytest.mark.parametrize("kind", ["grid2", "grid4", "grid8", "levels", "tied-top"])
@pytest.mark.parametrize("name", list(MAPPINGS))
def test_sort_free_path_on_tied_and_quantized_logits(name, kind, d):
    alpha, f = MAPPINGS[name]
    x = _logits(kind, d, seed=d)
    ref = torch.from_numpy(np.stack([entmax_ref(r, alpha) for r in x]))
    xt = torch.from_numpy(x)
    # float64: to rounding (the exactness checks removed give 1e-5 .. 5e-2 here)
    torch.testing.assert_close(f(xt), ref, atol=2e-15, rtol=0)
    torch.testing.assert_close(f(xt, method="fast"), ref, atol=2e-15, rtol=0)
    # float32: to float32 rounding
    torch.testing.assert_close(f(xt.float()).double(), ref, atol=3e-7, rtol=0)
    # and the exact zeros: no entry at or below the threshold gets mass
    assert bool((f(xt)[ref == 0] == 0).all())


def _near_threshold_rows(name: str, d: int, seed: int):
    """Logits whose α-entmax is known by construction, with entries just below the threshold.

    Support: 6 entries with probabilities ``p`` (a Dirichlet draw); threshold ``τ``; entries at
    ``τ - δ`` for δ from 1e-12 to 1e-2 and exactly at ``τ`` (probability 0), the rest on a
    quarter grid well below. Sparsemax: ``x = τ + p`` on the support; 1.5-entmax (``p = [z/2 -
    τ]_+^2``): ``z = 2 (τ + sqrt(p))``.
    """
    g = np.random.default_rng(seed)
    rows, expected = [], []
    for _ in range(8):
        tau = 0.25
        p = g.dirichlet(np.ones(6))
        gaps = np.array([0.0, 1e-12, 1e-9, 1e-9, 2e-9, 1e-6, 1e-6, 1e-4, 1e-3, 1e-2])
        rest = tau - 0.05 - np.abs(np.round(g.standard_normal(d - 6 - gaps.size) * 4) / 4)
        if name == "sparsemax":
            x = np.concatenate([tau + p, tau - gaps, rest])
        else:
            x = np.concatenate([2 * (tau + np.sqrt(p)), 2 * (tau - gaps), 2 * rest])
        perm = g.permutation(d)
        rows.append(x[perm])
        expected.append(np.concatenate([p, np.zeros(d - 6)])[perm])
    return torch.from_numpy(np.stack(rows)), torch.from_numpy(np.stack(expected))


@pytest.mark.parametrize("d", SIZES)
@pytest.mark.parametrize("name", list(MAPPINGS))
def test_sort_free_path_with_entries_just_below_the_threshold(name, d):
    x, expected = _near_threshold_rows(name, d, seed=d + 1)
    _, f = MAPPINGS[name]
    torch.testing.assert_close(f(x), expected, atol=1e-14, rtol=0)
    torch.testing.assert_close(f(x, method="sort"), expected, atol=1e-14, rtol=0)
