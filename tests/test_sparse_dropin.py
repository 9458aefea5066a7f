"""inflect.sparse as a drop-in for the `entmax` package (test-only oracle, version 1.3).

Code written for the package runs unchanged after ``import inflect.sparse as entmax``: the same
names in the same submodules, the same positional and keyword arguments and defaults, the same
results (to rounding), shapes and dtypes, for every mapping, module and loss. The deliberate
differences (README, section "Sparse core") are pinned in DELIBERATE_DEFAULTS and by the tests at
the end. The package's normmax and budget mappings (added after the paper) are left out.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import torch
from _sparse_ref import entmax_ref, fy_loss_ref

from inflect import sparse as S
from inflect.sparse import _thresholds as T

entmax_pkg = pytest.importorskip("entmax")
from entmax import activations as pkg_activations  # noqa: E402  (after the importorskip)

LEFT_OUT = ("normmax", "budget")

#: (name, parameter) -> (the package's default, ours): ``n_iter=None`` solves to the working
#: precision instead of 50 bisection steps; ``k=None`` lets Entmax15Loss choose its exact
#: algorithm (the package's k=100 gives the same values); loss modules reduce by "mean", the
#: package's "elementwise_mean" under its torch name (both are accepted).
DELIBERATE_DEFAULTS = {
    **{
        (name, "n_iter"): (50, None)
        for name in (
            "entmax_bisect",
            "sparsemax_bisect",
            "EntmaxBisect",
            "entmax_bisect_loss",
            "sparsemax_bisect_loss",
            "EntmaxBisectLoss",
            "SparsemaxBisectLoss",
        )
    },
    ("Entmax15Loss", "k"): (100, None),
    **{
        (name, "reduction"): ("elementwise_mean", "mean")
        for name in ("SparsemaxLoss", "Entmax15Loss", "EntmaxBisectLoss", "SparsemaxBisectLoss")
    },
}


def _package_names() -> list[str]:
    return sorted(
        n
        for n in dir(entmax_pkg)
        if not n.startswith("_")
        and not inspect.ismodule(getattr(entmax_pkg, n))
        and not any(w in n.lower() for w in LEFT_OUT)
    )


PKG_NAMES = _package_names()


def _x(*shape, seed=0, scale=1.5, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype) * scale


def test_every_package_name_exists_in_the_same_submodule():
    assert len(PKG_NAMES) == 16  # 22 public names in entmax 1.3, 6 of them normmax/budget
    for name in PKG_NAMES:
        theirs = getattr(entmax_pkg, name)
        sub = theirs.__module__.split(".")[-1]  # activations, root_finding or losses
        ours = getattr(S, name, None)
        assert ours is not None, name
        assert name in S.__all__, name
        assert getattr(getattr(S, sub), name) is ours, (sub, name)


def _params(obj):
    sig = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
    return [p for p in sig.parameters.values() if p.name != "self"]


@pytest.mark.parametrize("name", PKG_NAMES)
def test_positional_order_and_defaults_are_the_package_s(name):
    theirs = _params(getattr(entmax_pkg, name))
    ours = _params(getattr(S, name))
    positional = [p for p in ours if p.kind == p.POSITIONAL_OR_KEYWORD]
    # the same positional parameters in the same order (the package's input is named X)
    assert [p.name for p in positional] == [p.name.lower() for p in theirs]
    for mine, pkg in zip(positional, theirs, strict=True):
        default = DELIBERATE_DEFAULTS.get((name, mine.name), (pkg.default, pkg.default))
        assert default[0] == pkg.default, (name, mine.name)  # the list above is up to date
        assert mine.default == default[1], (name, mine.name)
    # anything more is keyword-only with a default
    assert all(p.kind == p.KEYWORD_ONLY and p.default is not p.empty for p in ours[len(theirs) :])


def _grad(f, x, seed=7):
    x = x.detach().clone().requires_grad_(True)
    out = f(x)
    g = _x(*out.shape, seed=seed) if out.ndim else torch.tensor(1.0, dtype=out.dtype)
    (dx,) = torch.autograd.grad((out * g).sum(), x)
    return out.detach(), dx


MAPPING_CALLS = [
    ("sparsemax", (1,)),
    ("sparsemax", (0, 2)),
    ("entmax15", (2,)),
    ("entmax15", (1, 2)),
    ("entmax_bisect", ()),
    ("entmax_bisect", (1.3, 0)),
    ("entmax_bisect", (2.5, 1, 60)),
    ("entmax_bisect", (0.75, 2, 60, True)),
    ("sparsemax_bisect", ()),
    ("sparsemax_bisect", (0,)),
    ("sparsemax_bisect", (1, 60, True)),
    ("Sparsemax", (1, 2)),
    ("Entmax15", (0,)),
    ("EntmaxBisect", (1.3, 1, 60)),
    ("EntmaxBisect", (3.0,)),
    ("SparsemaxBisect", (2, 60)),
]


@pytest.mark.parametrize(("name", "args"), MAPPING_CALLS, ids=[f"{n}{a}" for n, a in MAPPING_CALLS])
def test_mappings_with_the_package_s_positional_arguments(name, args):
    x = _x(3, 4, 5)
    if name[0].isupper():  # a module: the arguments go to the constructor
        ours, theirs = getattr(S, name)(*args), getattr(entmax_pkg, name)(*args)
    else:

        def ours(v):
            return getattr(S, name)(v, *args)

        def theirs(v):
            return getattr(entmax_pkg, name)(v, *args)

    p, dp = _grad(ours, x)
    q, dq = _grad(theirs, x)
    assert p.shape == q.shape and p.dtype == q.dtype
    torch.testing.assert_close(p, q, atol=1e-10, rtol=0)
    torch.testing.assert_close(dp, dq, atol=1e-9, rtol=0)


@pytest.mark.parametrize(
    ("dim", "alpha_shape"),
    [(-1, ()), (-1, (3, 4, 1)), (1, (3, 1, 5)), (1, (5,)), (0, (1, 4, 5)), (2, (4, 1))],
)
def test_entmax_bisect_tensor_alpha_broadcast_values_and_gradients(dim, alpha_shape):
    x = _x(3, 4, 5, seed=1)
    g = torch.Generator().manual_seed(2)
    a0 = 1.05 + 1.5 * torch.rand(alpha_shape, generator=g, dtype=torch.float64)
    results = []
    for f in (S.entmax_bisect, lambda v, a, dim: entmax_pkg.entmax_bisect(v, a, dim, n_iter=60)):
        xv = x.clone().requires_grad_(True)
        a = a0.clone().requires_grad_(True)
        p = f(xv, a, dim)
        w = _x(*p.shape, seed=3)
        dx, da = torch.autograd.grad((p * w).sum(), (xv, a))
        results.append((p.detach(), dx, da))
    (p, dx, da), (q, dxq, daq) = results
    torch.testing.assert_close(p, q, atol=1e-10, rtol=0)
    torch.testing.assert_close(dx, dxq, atol=1e-9, rtol=0)
    torch.testing.assert_close(da, daq, atol=1e-8, rtol=1e-8)


LOSS_CALLS = [
    ("sparsemax_loss", ()),
    ("sparsemax_loss", (3,)),
    ("entmax15_loss", (2,)),
    ("entmax_bisect_loss", ()),
    ("entmax_bisect_loss", (1.3, 60)),
    ("entmax_bisect_loss", (2.5,)),
    ("sparsemax_bisect_loss", (60,)),
]


@pytest.mark.parametrize(("name", "args"), LOSS_CALLS, ids=[f"{n}{a}" for n, a in LOSS_CALLS])
def test_functional_losses_return_one_loss_per_target_like_the_package(name, args):
    # the package's sparsemax_loss(X, target, k), entmax_bisect_loss(X, target, alpha, n_iter)...
    x = _x(6, 7, seed=4)
    t = torch.tensor([0, 6, 3, 3, 1, 5])
    p, dp = _grad(lambda v: getattr(S, name)(v, t, *args), x)
    q, dq = _grad(lambda v: getattr(entmax_pkg, name)(v, t, *args), x)
    assert p.shape == q.shape == (6,) and p.dtype == q.dtype
    torch.testing.assert_close(p, q, atol=1e-10, rtol=0)
    torch.testing.assert_close(dp, dq, atol=1e-10, rtol=0)


def test_functional_loss_with_a_0d_tensor_alpha():
    x = _x(5, 6, seed=5)
    t = torch.tensor([1, 0, 5, 2, 2])
    a = torch.tensor(1.7, dtype=torch.float64)
    torch.testing.assert_close(
        S.entmax_bisect_loss(x, t, a), entmax_pkg.entmax_bisect_loss(x, t, a), atol=1e-10, rtol=0
    )


MODULE_CALLS = [
    ("SparsemaxLoss", ()),
    ("SparsemaxLoss", (3,)),
    ("Entmax15Loss", (2,)),
    ("Entmax15Loss", ()),
    ("Entmax15Loss", (None,)),
    ("EntmaxBisectLoss", (1.3, 60)),
    ("EntmaxBisectLoss", (0.8,)),
    ("SparsemaxBisectLoss", (60,)),
]
IGNORE = {
    "none": lambda t: -100,
    "int": lambda t: int(t[0]),
    "0d-tensor": lambda t: t[0],  # the package's users write ignore_index=y[0]
    "1-element-tensor": lambda t: t[:1].clone(),
}


@pytest.mark.parametrize(("name", "args"), MODULE_CALLS, ids=[f"{n}{a}" for n, a in MODULE_CALLS])
@pytest.mark.parametrize("ignore", list(IGNORE))
@pytest.mark.parametrize("reduction", ["elementwise_mean", "sum", "none"])
def test_loss_modules_with_the_package_s_arguments(name, args, ignore, reduction):
    x = _x(8, 6, seed=6)
    t = torch.tensor([2, 0, 5, 2, 1, 2, 4, 3])
    ii = IGNORE[ignore](t)
    positional = (*args, ii, reduction) if len(args) == len(_params(getattr(S, name))) - 2 else None
    ours = getattr(S, name)(*args, ignore_index=ii, reduction=reduction)
    theirs = getattr(entmax_pkg, name)(*args, ignore_index=ii, reduction=reduction)
    p, dp = _grad(lambda v: ours(v, t), x)
    q, dq = _grad(lambda v: theirs(v, t), x)
    assert p.shape == q.shape and p.dtype == q.dtype
    torch.testing.assert_close(p, q, atol=1e-10, rtol=0)
    torch.testing.assert_close(dp, dq, atol=1e-10, rtol=0)
    if ignore != "none":  # ignored targets add nothing: an independent count of the rest
        kept = t != int(t[0])
        full = getattr(S, name)(*args, reduction="none")(x, t)
        expected = {"sum": full[kept].sum(), "elementwise_mean": full[kept].mean()}
        if reduction in expected:
            torch.testing.assert_close(p, expected[reduction], atol=1e-12, rtol=0)
    if positional is not None:  # every argument positional, in the package's order
        torch.testing.assert_close(getattr(S, name)(*positional)(x, t), p, atol=0, rtol=0)


@pytest.mark.parametrize(
    "bad",
    [
        3.0,
        True,
        None,
        "3",
        torch.tensor(2.0),
        torch.tensor(True),
        torch.tensor([1, 2]),
        torch.tensor([], dtype=torch.long),
        torch.tensor([[1, 2]]),
    ],
    ids=[
        "float",
        "bool",
        "None",
        "str",
        "float-tensor",
        "bool-tensor",
        "2-elements",
        "empty",
        "2d",
    ],
)
def test_ignore_index_other_than_an_int_or_a_one_element_integer_tensor_is_refused(bad):
    x = _x(3, 4)
    t = torch.tensor([0, 1, 2])
    msg = "ignore_index must be an int or an integer tensor with one element"
    with pytest.raises(ValueError, match=msg):
        S.SparsemaxLoss(ignore_index=bad)
    with pytest.raises(ValueError, match=msg):
        S.entmax15_loss(x, t, ignore_index=bad)
    with pytest.raises(ValueError, match=msg):
        S.entmax_loss(x, t, 1.5, bad)


def test_elementwise_mean_is_mean_everywhere():
    x = _x(5, 4, seed=8)
    t = torch.tensor([0, 3, -100, 1, 1])
    kept = t != -100
    for per, mean in [
        (S.sparsemax_loss(x, t), S.sparsemax_loss(x, t, reduction="elementwise_mean")),
        (S.entmax15_loss(x, t), S.Entmax15Loss(reduction="elementwise_mean")(x, t)),
        (
            S.entmax_loss(x, t, 1.2, reduction="none"),
            S.entmax_loss(x, t, 1.2, -100, "elementwise_mean"),
        ),
        (
            S.sparsemax_bisect_loss(x, t),
            S.SparsemaxBisectLoss(None, -100, "elementwise_mean")(x, t),
        ),
    ]:
        assert per.shape == (5,) and float(per[2]) == 0.0
        torch.testing.assert_close(mean, per[kept].sum() / 4, atol=1e-15, rtol=0)
    with pytest.raises(ValueError, match="reduction must be one of"):
        S.SparsemaxBisectLoss(reduction="average")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_dtypes_are_the_package_s(dtype):
    # values to the precision of the dtype: the package computes in the dtype, we in float32
    x = _x(4, 9, seed=9, scale=2.0, dtype=torch.float32)
    t = torch.tensor([0, 8, 4, 4])
    tol = {torch.float16: 2e-3, torch.bfloat16: 2e-2, torch.float32: 1e-6}[dtype]
    calls = [
        (lambda m, v: m.sparsemax(v, -1)),
        (lambda m, v: m.entmax15(v, 0)),
        (lambda m, v: m.entmax_bisect(v, 1.3, -1, 30)),
        (lambda m, v: m.sparsemax_bisect(v, -1, 30)),
        (lambda m, v: m.Entmax15Loss()(v, t)),
        (lambda m, v: m.EntmaxBisectLoss(1.7, 30, reduction="sum")(v, t)),
        (lambda m, v: m.sparsemax_loss(v, t)),
    ]
    for call in calls:
        ours, theirs = call(S, x.to(dtype)), call(entmax_pkg, x.to(dtype))
        assert ours.dtype == theirs.dtype == dtype and ours.shape == theirs.shape
        torch.testing.assert_close(ours.float(), theirs.float(), atol=tol, rtol=tol)


@pytest.mark.parametrize(
    "name", ["_sparsemax_threshold_and_support", "_entmax_threshold_and_support"]
)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("k", [None, 1, 2])
def test_the_package_s_threshold_functions(name, dim, k):
    # some users call the package's threshold and support functions directly
    x = _x(3, 4, 5, seed=10)
    tau, supp = getattr(S.activations, name)(x, dim=dim, k=k)
    tau_p, supp_p = getattr(pkg_activations, name)(x, dim=dim, k=k)
    assert tau.shape == tau_p.shape and supp.dtype == supp_p.dtype == torch.int64
    torch.testing.assert_close(tau, tau_p, atol=1e-12, rtol=0)
    assert torch.equal(supp, supp_p)


@pytest.mark.parametrize("d", [1, 3, 8, 300])
def test_sparsemax_bisect_is_sparsemax(d):
    # the α = 2 root-finding path against the exact sort / sort-free path and a float64 reference
    x = _x(4, d, seed=11)
    p = S.sparsemax_bisect(x)
    torch.testing.assert_close(p, S.sparsemax(x), atol=1e-13, rtol=0)
    ref = torch.from_numpy(np.stack([entmax_ref(r, 2.0) for r in x.numpy()]))
    torch.testing.assert_close(p, ref, atol=1e-12, rtol=0)
    t = torch.randint(0, d, (4,), generator=torch.Generator().manual_seed(12))
    loss = S.SparsemaxBisectLoss(reduction="none")(x, t)
    expected = [fy_loss_ref(r, int(c), 2.0) for r, c in zip(x.numpy(), t.tolist(), strict=True)]
    torch.testing.assert_close(
        loss, torch.tensor(expected, dtype=torch.float64), atol=1e-12, rtol=0
    )


# ---------------------------------------------------------------------------------------------
# Deliberate differences (README, "Sparse core"): where the package gives NaN, an index error or
# ignores an argument.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.5, 1.3, 2.25, 3.0])
@pytest.mark.parametrize("n_iter", [3, 8])
def test_masked_entries_do_not_change_the_bisection_bracket(alpha, n_iter):
    # -inf entries get p = 0 and leave the others as they are, even for a few bisection steps
    # (whose result depends on the starting bracket): the bracket counts only the entries that
    # can be in the support
    x0 = _x(4, 5, seed=13)
    x = torch.cat([x0[:, :2], torch.full((4, 7), -math.inf, dtype=x0.dtype), x0[:, 2:]], dim=1)
    p = S.entmax_bisect(x, alpha, n_iter=n_iter)
    p0 = S.entmax_bisect(x0, alpha, n_iter=n_iter)
    assert bool((p[:, 2:9] == 0).all())
    torch.testing.assert_close(torch.cat([p[:, :2], p[:, 9:]], 1), p0, atol=1e-15, rtol=0)
    u0 = (alpha - 1) * (x0 - x0.amax(-1, keepdim=True))
    u = (alpha - 1) * (x - x.amax(-1, keepdim=True))
    assert torch.equal(T.entmax_t_bracket(u, alpha)[1], T.entmax_t_bracket(u0, alpha)[1])


def test_the_n_iter_and_ensure_sum_one_of_sparsemax_bisect_are_honoured():
    # the package's sparsemax_bisect ignores both (always 50 steps, normalised); ours passes them
    # to the general α path
    x = _x(3, 6, seed=14)
    for n_iter, ensure in [(3, False), (3, True), (None, False)]:
        p = S.sparsemax_bisect(x, -1, n_iter, ensure)
        torch.testing.assert_close(p, S.entmax_bisect(x, 2.0, -1, n_iter, ensure), atol=0, rtol=0)
    rough = S.sparsemax_bisect(x, -1, 3, False).sum(-1)
    assert bool((rough >= 1).all()) and bool((rough > 1 + 1e-3).any())  # 3 steps: not converged


def test_what_the_package_gets_wrong():
    x = torch.tensor([[-math.inf] * 3, [0.0, 1.0, 2.0]])
    for f in (S.sparsemax, S.entmax15, S.entmax_bisect, S.sparsemax_bisect):
        assert f(x)[0].tolist() == [0.0, 0.0, 0.0]  # package: an index error or NaN
    z = _x(3, 5, seed=15).float()
    z[:, 4] = -math.inf
    t = torch.tensor([0, 1, 2])
    for loss in (S.sparsemax_loss, S.entmax15_loss, S.entmax_bisect_loss, S.sparsemax_bisect_loss):
        expected = [
            fy_loss_ref(r[:4], int(c), 2.0 if "sparsemax" in loss.__name__ else 1.5)
            for r, c in zip(z.double().numpy(), t.tolist(), strict=True)
        ]
        torch.testing.assert_close(
            loss(z, t).double(), torch.tensor(expected, dtype=torch.float64), atol=1e-6, rtol=0
        )
    # α = 1 is softmax (the package divides by α - 1 = 0 and returns the uniform distribution)
    torch.testing.assert_close(S.entmax_bisect(z, 1.0), torch.softmax(z, -1), atol=1e-7, rtol=0)
    # a learnable α in a module (the package cannot register it)
    alpha = torch.nn.Parameter(torch.tensor(1.4))
    for mod in (S.EntmaxBisect(alpha), S.EntmaxBisectLoss(alpha)):
        assert [n for n, _ in mod.named_parameters()] == ["alpha"]
