"""inflect.sparse mappings: hand-derived values, masking, extreme logits, dtypes, dims, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from _sparse_ref import entmax_ref

from inflect import sparse as S

INF = math.inf

# x = [-2, 0, 0.5], derived by hand:
#   softmax: exp(x) / (e^-2 + 1 + e^0.5)
#   sparsemax: support {0, 0.5}: τ = (0 + 0.5 - 1)/2 = -0.25 -> [0, 0.25, 0.75]
#   1.5-entmax: x/2 = [-1, 0, 0.25]; support {0, 0.25}: (0-τ)^2 + (0.25-τ)^2 = 1
#       -> 2τ^2 - 0.5τ - 0.9375 = 0 -> τ = (0.5 - sqrt(7.75))/4; p = [0, τ^2, (0.25-τ)^2]
X3 = [-2.0, 0.0, 0.5]
_E = [math.exp(v) for v in X3]
SOFTMAX3 = [v / sum(_E) for v in _E]
SPARSEMAX3 = [0.0, 0.25, 0.75]
_TAU15 = (0.5 - math.sqrt(7.75)) / 4
ENTMAX15_3 = [0.0, _TAU15**2, (0.25 - _TAU15) ** 2]


def _paths():
    """Every way of computing each α: (name, α, callable)."""
    return [
        ("softmax", 1.0, S.softmax),
        ("entmax(1)", 1.0, lambda x, dim=-1: S.entmax(x, 1.0, dim=dim)),
        ("sparsemax-sort", 2.0, lambda x, dim=-1: S.sparsemax(x, dim, method="sort")),
        ("sparsemax-fast", 2.0, lambda x, dim=-1: S.sparsemax(x, dim, method="fast")),
        ("sparsemax-k1", 2.0, lambda x, dim=-1: S.sparsemax(x, dim, k=1)),
        ("bisect-2", 2.0, lambda x, dim=-1: S.entmax_bisect(x, 2.0, dim)),
        ("sparsemax_bisect", 2.0, lambda x, dim=-1: S.sparsemax_bisect(x, dim)),
        ("SparsemaxBisect-n40", 2.0, lambda x, dim=-1: S.SparsemaxBisect(dim, 40)(x)),
        ("entmax15-sort", 1.5, lambda x, dim=-1: S.entmax15(x, dim, method="sort")),
        ("entmax15-fast", 1.5, lambda x, dim=-1: S.entmax15(x, dim, method="fast")),
        ("entmax15-k1", 1.5, lambda x, dim=-1: S.entmax15(x, dim, k=1)),
        ("bisect-1.5", 1.5, lambda x, dim=-1: S.entmax_bisect(x, 1.5, dim)),
        ("bisect-1.5-n40", 1.5, lambda x, dim=-1: S.entmax_bisect(x, 1.5, dim, n_iter=40)),
        ("bisect-1.33", 1.33, lambda x, dim=-1: S.entmax_bisect(x, 1.33, dim)),
        ("bisect-3", 3.0, lambda x, dim=-1: S.entmax_bisect(x, 3.0, dim)),
        ("entmax(1.2)", 1.2, lambda x, dim=-1: S.entmax(x, 1.2, dim=dim)),
    ]


PATHS = _paths()
IDS = [p[0] for p in PATHS]


@pytest.mark.parametrize(("name", "alpha", "f"), PATHS, ids=IDS)
def test_hand_derived_values(name, alpha, f):
    expected = {1.0: SOFTMAX3, 2.0: SPARSEMAX3, 1.5: ENTMAX15_3}.get(alpha)
    if expected is None:
        expected = entmax_ref(X3, alpha)
    for dtype in (torch.float32, torch.float64):
        p = f(torch.tensor(X3, dtype=dtype))
        assert p.dtype == dtype
        tol = 1e-6 if dtype == torch.float32 else 1e-12
        np.testing.assert_allclose(p.numpy(), expected, atol=tol)
    # the values of the report these cases come from, to 4 decimals
    quoted = {1.0: [0.0486, 0.3592, 0.5922], 2.0: [0, 0.25, 0.75], 1.5: [0, 0.3260, 0.6740]}
    if alpha in quoted:
        np.testing.assert_allclose(f(torch.tensor(X3)).numpy(), quoted[alpha], atol=5e-5)


@pytest.mark.parametrize(("name", "alpha", "f"), PATHS, ids=IDS)
def test_masked_positions_exact_zero_and_finite_gradient(name, alpha, f):
    g = torch.Generator().manual_seed(1)
    z = torch.randn(4, 9, generator=g, dtype=torch.float64)
    mask = torch.zeros(4, 9, dtype=torch.bool)
    mask[0, [1, 4]] = True
    mask[2, 0] = True
    mask[3, 1:] = True  # a single finite entry left
    x = z.masked_fill(mask, -INF).requires_grad_(True)
    p = f(x)
    assert bool((p[mask] == 0).all())
    for i in range(4):
        keep = ~mask[i]
        np.testing.assert_allclose(
            p[i, keep].detach().numpy(), entmax_ref(z[i, keep].numpy(), alpha), atol=1e-10
        )
    (p * torch.randn(4, 9, generator=g, dtype=torch.float64)).sum().backward()
    assert bool(torch.isfinite(x.grad).all())
    assert bool((x.grad[mask] == 0).all())


@pytest.mark.parametrize(("name", "alpha", "f"), PATHS, ids=IDS)
def test_fully_masked_row_gives_zeros_and_leaves_others_alone(name, alpha, f):
    z = torch.tensor([[0.3, -1.0, 2.0, 0.1], [-INF] * 4, [1.0, 1.0, -INF, 0.0]])
    x = z.clone().requires_grad_(True)
    p = f(x)
    assert bool((p[1] == 0).all())
    np.testing.assert_allclose(p[0].detach().numpy(), entmax_ref(z[0].numpy(), alpha), atol=1e-6)
    np.testing.assert_allclose(p[2].detach().numpy(), entmax_ref(z[2].numpy(), alpha), atol=1e-6)
    p.sum(dim=1).pow(2).sum().backward()
    assert bool(torch.isfinite(x.grad).all())
    assert bool((x.grad[1] == 0).all())


@pytest.mark.parametrize(("name", "alpha", "f"), PATHS, ids=IDS)
@pytest.mark.parametrize("scale", [1e8, 1e15, 1e30])
def test_huge_float32_logits(name, alpha, f, scale):
    g = torch.Generator().manual_seed(2)
    # large offsets plus a pattern that float32 represents exactly at that magnitude
    ulp = float(np.spacing(np.float32(scale)))
    pattern = torch.tensor([[0.0, -1.0, 2.0, 1.0, -3.0]], dtype=torch.float64) * ulp
    x32 = (torch.full((1, 5), scale, dtype=torch.float64) + pattern).float()
    x32 = torch.cat([x32, (scale * torch.randn(3, 5, generator=g)).float(), -x32])
    p = f(x32)
    assert bool(torch.isfinite(p).all())
    for i in range(x32.shape[0]):
        np.testing.assert_allclose(
            p[i].numpy(), entmax_ref(x32[i].double().numpy(), alpha), atol=2e-6
        )


@pytest.mark.parametrize(("name", "alpha", "f"), PATHS, ids=IDS)
@pytest.mark.parametrize(("dtype", "center"), [(torch.bfloat16, -1000.0), (torch.float16, -1e4)])
def test_half_precision_is_computed_in_float32(name, alpha, f, dtype, center):
    g = torch.Generator().manual_seed(3)
    base = torch.tensor([[center, center - 0.5, center - 3.0, center - 20.0, center - 1.0]])
    x = torch.cat([base, torch.randn(3, 5, generator=g) * 4]).to(dtype)
    p = f(x)
    assert p.dtype == dtype
    assert not bool(torch.isnan(p).any())
    expected = np.stack([entmax_ref(r, alpha) for r in x.float().numpy()])
    np.testing.assert_allclose(p.float().numpy(), expected, atol=1e-2)
    np.testing.assert_allclose(p.float().sum(-1).numpy(), 1.0, atol=2e-2)
    # same as computing in float32 and casting
    torch.testing.assert_close(p, f(x.float()).to(dtype), atol=0, rtol=0)


@pytest.mark.parametrize(("name", "alpha", "f"), PATHS, ids=IDS)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_any_dim(name, alpha, f, dim):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(3, 4, 5, generator=g, dtype=torch.float64)
    p = f(x, dim=dim)
    assert p.shape == x.shape
    moved = x.movedim(dim, -1).reshape(-1, x.shape[dim]).numpy()
    expected = np.stack([entmax_ref(r, alpha) for r in moved])
    got = p.movedim(dim, -1).reshape(-1, x.shape[dim]).detach().numpy()
    np.testing.assert_allclose(got, expected, atol=1e-10)


@pytest.mark.parametrize("fn", [S.sparsemax, S.entmax15])
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("k", [1, 2, 3, 50])
def test_partial_sort_matches_full_sort_along_any_dim(fn, dim, k):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(6, 40, generator=g, dtype=torch.float64) * 3
    x = x if dim in (1, -1) else x.T.contiguous()
    full = fn(x, dim=dim, method="sort")
    torch.testing.assert_close(fn(x, dim=dim, k=k), full, atol=1e-12, rtol=0)
    torch.testing.assert_close(fn(x, dim=dim, method="fast"), full, atol=1e-12, rtol=0)


def test_invalid_arguments_raise_value_error():
    x = torch.randn(2, 5)
    with pytest.raises(ValueError, match="k must be >= 1"):
        S.sparsemax(x, k=0)
    with pytest.raises(ValueError, match="k must be >= 1"):
        S.entmax15(x, k=-3)
    with pytest.raises(ValueError, match="k must be None or an int"):
        S.Entmax15(k=2.5)
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="alpha must be finite and > 0"):
            S.entmax_bisect(x, bad)
        with pytest.raises(ValueError, match="alpha must be finite and > 0"):
            S.entmax(x, bad)
    with pytest.raises(ValueError, match="alpha must be finite and > 0"):
        S.entmax_bisect(x, torch.tensor([[1.5], [0.0]]))
    with pytest.raises(ValueError, match="does not broadcast"):
        S.entmax_bisect(x, torch.full((3, 1), 1.5))
    with pytest.raises(ValueError, match="out of range"):
        S.sparsemax(x, dim=2)
    with pytest.raises(ValueError, match="floating-point"):
        S.entmax15(torch.arange(5))
    with pytest.raises(ValueError, match="n_iter"):
        S.entmax_bisect(x, 1.5, n_iter=0)
    with pytest.raises(ValueError, match="method"):
        S.sparsemax(x, method="heap")


def test_dispatch_uses_the_exact_algorithm():
    g = torch.Generator().manual_seed(6)
    x = torch.randn(5, 11, generator=g)
    torch.testing.assert_close(S.entmax(x, 1.0), torch.softmax(x, -1), atol=0, rtol=0)
    torch.testing.assert_close(S.entmax(x, 1.5), S.entmax15(x), atol=0, rtol=0)
    torch.testing.assert_close(S.entmax(x, 2), S.sparsemax(x), atol=0, rtol=0)
    torch.testing.assert_close(S.entmax(x, 1.7), S.entmax_bisect(x, 1.7), atol=0, rtol=0)
    a = torch.tensor(1.5, requires_grad=True)
    torch.testing.assert_close(S.entmax(x, a), S.entmax15(x), atol=1e-6, rtol=0)


def test_modules_and_learnable_alpha():
    g = torch.Generator().manual_seed(7)
    x = torch.randn(4, 6, generator=g)
    for mod, fn in [
        (S.Sparsemax(dim=0), lambda v: S.sparsemax(v, dim=0)),
        (S.Entmax15(), S.entmax15),
        (S.EntmaxBisect(alpha=1.3), lambda v: S.entmax_bisect(v, 1.3)),
        (S.Entmax(1.0), lambda v: torch.softmax(v, -1)),
    ]:
        torch.testing.assert_close(mod(x), fn(x), atol=0, rtol=0)
    for cls in (S.EntmaxBisect, S.Entmax):
        alpha = torch.nn.Parameter(torch.full((4, 1), 1.4))
        mod = cls(alpha)
        assert [n for n, _ in mod.named_parameters()] == ["alpha"]
        mod(x).pow(2).sum().backward()
        assert alpha.grad is not None and bool(torch.isfinite(alpha.grad).all())
        assert float(alpha.grad.abs().sum()) > 0


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("softmax", 1.0),
        ("sparsemax", 2.0),
        ("entmax15", 1.5),
        ("entmax:1.33", 1.33),
        ("1.25", 1.25),
        (" Entmax:2.5 ", 2.5),
        (1.5, 1.5),
        (2, 2.0),
    ],
)
def test_mapping_alpha(name, expected):
    assert S.mapping_alpha(name) == expected


@pytest.mark.parametrize("bad", ["tanh", "entmax:", "entmax:abc", "0", "-1", "nan", "entmax:inf"])
def test_mapping_alpha_rejects(bad):
    with pytest.raises(ValueError, match=rf"(unknown mapping|α must be finite and > 0, got) '{bad}'"):
        S.mapping_alpha(bad)


@pytest.mark.parametrize("method", ["sort", "fast"])
@pytest.mark.parametrize("d", [5, 300])
def test_a_row_holding_nan_gives_nan_and_leaves_other_rows_alone(method, d):
    # as softmax does: NaN in, NaN out for that row; no index error (a diverged model's weights)
    x = torch.randn(3, d, dtype=torch.float64)
    x[1, 2] = float("nan")
    for f in (S.sparsemax, S.entmax15):
        for requires_grad in (False, True):
            xi = x.clone().requires_grad_(requires_grad)
            p = f(xi, method=method)
            assert torch.isnan(p[1]).all()
            torch.testing.assert_close(p[[0, 2]], f(x[[0, 2]], method=method))
