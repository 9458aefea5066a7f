"""inflect.sparse.Mapping: names, registry, forward and loss equal to the functions, bit for bit."""

from __future__ import annotations

import dataclasses
import math
import pickle
from dataclasses import dataclass

import pytest
import torch

from inflect import sparse as S
from inflect.nn.config import ModelConfig
from inflect.sparse import mapping as M

# (name, α, the function computing that α-entmax directly)
FUNCTIONS = [
    ("softmax", 1.0, lambda x, dim=-1: S.softmax(x, dim=dim)),
    ("entmax15", 1.5, lambda x, dim=-1: S.entmax15(x, dim=dim)),
    ("sparsemax", 2.0, lambda x, dim=-1: S.sparsemax(x, dim=dim)),
    ("entmax:1.3", 1.3, lambda x, dim=-1: S.entmax_bisect(x, 1.3, dim=dim)),
    ("entmax:2.5", 2.5, lambda x, dim=-1: S.entmax_bisect(x, 2.5, dim=dim)),
    ("entmax:0.7", 0.7, lambda x, dim=-1: S.entmax_bisect(x, 0.7, dim=dim)),
]
LOSSES = [
    ("softmax", lambda x, t, **kw: S.entmax_loss(x, t, 1.0, **kw)),
    ("entmax15", lambda x, t, **kw: S.entmax15_loss(x, t, **kw)),
    ("sparsemax", lambda x, t, **kw: S.sparsemax_loss(x, t, **kw)),
    ("entmax:1.3", lambda x, t, **kw: S.entmax_bisect_loss(x, t, 1.3, **kw)),
    ("entmax:2.5", lambda x, t, **kw: S.entmax_bisect_loss(x, t, 2.5, **kw)),
]


def _x(*shape, seed=0, dtype=torch.float32, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


# ----------------------------------------------------------------------------------- names
@pytest.mark.parametrize(
    ("spelling", "canonical", "alpha"),
    [
        ("softmax", "softmax", 1.0),
        (" SoftMax ", "softmax", 1.0),
        ("sparsemax", "sparsemax", 2.0),
        ("entmax15", "entmax15", 1.5),
        ("entmax:1.3", "entmax:1.3", 1.3),
        ("entmax:1.50", "entmax15", 1.5),
        ("entmax: 2", "sparsemax", 2.0),
        ("entmax:1", "softmax", 1.0),
        ("1.25", "entmax:1.25", 1.25),
        (1.33, "entmax:1.33", 1.33),
        (3, "entmax:3.0", 3.0),
        (2, "sparsemax", 2.0),
    ],
)
def test_names_give_the_mapping_and_its_canonical_name(spelling, canonical, alpha):
    m = S.get_mapping(spelling)
    assert isinstance(m, S.Mapping) and isinstance(m, S.EntmaxMapping)
    assert (m.name, str(m), m.alpha) == (canonical, canonical, alpha)
    assert type(m.alpha) is float
    assert S.get_mapping(m.name) == m and hash(S.get_mapping(m.name)) == hash(m)
    assert S.get_mapping(m) is m
    assert S.mapping_alpha(spelling) == alpha


def test_every_registered_name_round_trips():
    names = S.mapping_names()
    assert names == ("softmax", "sparsemax", "entmax15", "entmax:<alpha>")
    for spelling in names:
        if spelling.endswith(">"):
            family = spelling.split(":")[0]
            examples = [f"{family}:{a}" for a in ("0.5", "1.2", "1.5", "2", "4.75", "1e3")]
        else:
            examples = [spelling]
        for name in examples:
            m = S.get_mapping(name)
            again = S.get_mapping(m.name)
            assert again == m and again.name == m.name
            assert S.get_mapping(m.name.upper()) == m
    assert S.get_mapping("entmax:1e3").name == "entmax:1000.0"


def test_the_mapping_is_frozen_hashable_and_pickles():
    m = S.get_mapping("entmax:1.3")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.alpha = 2.0
    assert len({S.get_mapping("entmax15"), S.get_mapping(1.5), S.EntmaxMapping(1.5)}) == 1
    assert pickle.loads(pickle.dumps(m)) == m
    assert S.EntmaxMapping(2) == S.get_mapping("sparsemax")


@pytest.mark.parametrize("bad", ["tanh", "entmax", "softmax:2", "entmax:", "entmax:abc", "",
                                 "entmax:inf", "entmax:-1"])
def test_an_unknown_name_lists_the_known_ones(bad):
    with pytest.raises(ValueError, match=f"unknown mapping '{bad}'") as info:
        S.get_mapping(bad)
    for known in ("softmax", "sparsemax", "entmax15", "entmax:<alpha>", "or a number"):
        assert known in str(info.value)


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "inf", 0, -2.0, math.inf, math.nan])
def test_alpha_must_be_finite_and_positive(bad):
    with pytest.raises(ValueError, match="α must be finite and > 0"):
        S.get_mapping(bad)


@pytest.mark.parametrize("bad", [True, None, [1.5], torch.tensor(1.5)])
def test_not_a_name(bad):
    with pytest.raises(ValueError, match="not a mapping name or α"):
        S.get_mapping(bad)


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, True, "1.5", torch.tensor(1.5)])
def test_entmax_mapping_refuses_a_bad_alpha(bad):
    with pytest.raises(ValueError, match="alpha"):
        S.EntmaxMapping(bad)


@pytest.mark.parametrize(
    ("alpha", "sparse"),
    [(0.5, False), (1.0, False), (1.0001, True), (1.3, True), (1.5, True), (2.0, True), (3.0, True)],
)
def test_is_sparse_exactly_when_alpha_above_one(alpha, sparse):
    m = S.EntmaxMapping(alpha)
    assert m.is_sparse is sparse
    # a score more than 1/(α-1) below the top one is out of the support of a sparse α; a dense
    # α keeps a score 50 below (exp(-50) is a normal float64)
    gap = 2.0 / (alpha - 1.0) if alpha > 1.0 else 50.0
    p = m.forward(torch.tensor([0.0, -gap, -3.0, 0.5], dtype=torch.float64))
    assert bool((p == 0).any()) is sparse
    assert float(p.sum()) == pytest.approx(1.0, abs=1e-12)


# --------------------------------------------------------------------------------- forward
def test_forward_hand_values():
    x = torch.tensor([-2.0, 0.0, 0.5], dtype=torch.float64)
    e = [math.exp(v) for v in (-2.0, 0.0, 0.5)]
    torch.testing.assert_close(
        S.get_mapping("softmax").forward(x), torch.tensor([v / sum(e) for v in e]).double()
    )
    torch.testing.assert_close(
        S.get_mapping("sparsemax").forward(x), torch.tensor([0.0, 0.25, 0.75]).double()
    )


@pytest.mark.parametrize(("name", "alpha", "f"), FUNCTIONS, ids=[n for n, _, _ in FUNCTIONS])
@pytest.mark.parametrize(
    ("shape", "dim", "dtype"),
    [
        ((7, 5), -1, torch.float32),
        ((3, 4, 300), -1, torch.float32),  # the sort-free fast paths
        ((6, 2, 9), 0, torch.float64),
        ((4, 11), 1, torch.bfloat16),
        ((1, 700), -1, torch.float16),
    ],
)
def test_forward_equals_the_functions_bit_for_bit(name, alpha, f, shape, dim, dtype):
    x = _x(*shape, seed=len(shape) + shape[-1], dtype=dtype)
    x.view(-1)[::3] = -math.inf  # masked positions
    m = S.get_mapping(name)
    assert m.alpha == alpha
    ours = m.forward(x, dim=dim)
    assert ours.dtype == dtype and ours.shape == x.shape
    assert torch.equal(ours, f(x, dim=dim))
    assert torch.equal(ours, S.entmax(x, alpha, dim=dim))


def test_forward_keeps_the_gradient_of_the_function():
    x = _x(5, 8, seed=3, dtype=torch.float64).requires_grad_()
    y = x.detach().clone().requires_grad_()
    w = _x(5, 8, seed=4, dtype=torch.float64)
    (S.get_mapping("entmax15").forward(x) * w).sum().backward()
    (S.entmax15(y) * w).sum().backward()
    assert torch.equal(x.grad, y.grad)


# ------------------------------------------------------------------------------------ loss
@pytest.mark.parametrize(("name", "f"), LOSSES, ids=[n for n, _ in LOSSES])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize(("n_classes", "dtype"), [(6, torch.float32), (300, torch.float64)])
def test_loss_equals_the_current_loss(name, f, reduction, n_classes, dtype):
    x = _x(9, n_classes, seed=n_classes, dtype=dtype).requires_grad_()
    y = x.detach().clone().requires_grad_()
    t = torch.arange(9) % n_classes
    t[4] = -100
    m = S.get_mapping(name)
    ours = m.loss(x, t, reduction=reduction)
    theirs = f(y, t, reduction=reduction)
    assert torch.equal(ours, theirs)
    assert torch.equal(ours, S.entmax_loss(x, t, m.alpha, -100, reduction))
    ours.sum().backward()
    theirs.sum().backward()
    assert torch.equal(x.grad, y.grad)


def test_loss_defaults_and_ignore_index_are_entmax_loss_s():
    x = _x(4, 5, seed=9)
    t = torch.tensor([0, 3, 1, 2])
    for name in ("softmax", "entmax15", "sparsemax", "entmax:1.7"):
        m = S.get_mapping(name)
        assert torch.equal(m.loss(x, t), S.entmax_loss(x, t, m.alpha))
        assert torch.equal(
            m.loss(x, t, ignore_index=3, reduction="sum"),
            S.entmax_loss(x, t, m.alpha, ignore_index=3, reduction="sum"),
        )
    ce = torch.nn.functional.cross_entropy(x.double(), t)
    assert float(S.get_mapping("softmax").loss(x.double(), t)) == pytest.approx(float(ce), abs=1e-12)


# -------------------------------------------------------------------- a mapping of one's own
@dataclass(frozen=True)
class TemperatureSoftmax(S.Mapping):
    """A toy non-α mapping: softmax(z / τ), with cross-entropy at τ as its loss."""

    tau: float
    alpha = None
    is_sparse = False

    @property
    def name(self) -> str:
        return f"tsoftmax:{self.tau!r}"

    def forward(self, scores, dim=-1):
        return torch.softmax(scores / self.tau, dim=dim)

    def loss(self, scores, target, ignore_index=-100, reduction="mean"):
        return torch.nn.functional.cross_entropy(
            scores / self.tau, target, ignore_index=ignore_index, reduction=reduction
        )


def _tsoftmax_of(text):
    tau = float(text)  # a ValueError for a non-number
    if not tau > 0:
        raise ValueError(f"τ must be > 0, got {text!r}")
    return TemperatureSoftmax(tau)


@pytest.fixture
def registry(monkeypatch):
    """A copy of the registry for one test (the built-in one is left as it was)."""
    monkeypatch.setattr(M, "_REGISTRY", dict(M._REGISTRY))
    return M._REGISTRY


def test_a_registered_mapping_works_end_to_end(registry):
    S.register_mapping("tsoftmax", _tsoftmax_of, parameter="tau")
    assert S.mapping_names()[-1] == "tsoftmax:<tau>"
    m = S.get_mapping(" TSoftmax:2 ")
    assert m == TemperatureSoftmax(2.0) and m.name == "tsoftmax:2.0"
    assert S.get_mapping(m.name) == m
    assert (m.alpha, m.is_sparse) == (None, False)
    x = torch.tensor([[0.0, 2.0, -2.0]], dtype=torch.float64)
    e = [math.exp(v) for v in (0.0, 1.0, -1.0)]  # z / τ by hand
    torch.testing.assert_close(m.forward(x), torch.tensor([[v / sum(e) for v in e]]).double())
    loss = m.loss(x, torch.tensor([1]))
    assert float(loss) == pytest.approx(-math.log(e[1] / sum(e)), abs=1e-12)
    with pytest.raises(ValueError, match=r"'tsoftmax:2\.0' is not an α-entmax"):
        S.mapping_alpha("tsoftmax:2")
    with pytest.raises(ValueError, match=r"unknown mapping 'tsoftmax:-1' \(τ must be > 0") as info:
        S.get_mapping("tsoftmax:-1")
    assert "tsoftmax:<tau>" in str(info.value)
    # a config takes the name; learning an α needs an α-entmax
    config = ModelConfig(output_mapping="tsoftmax:2", attention_mapping="tsoftmax:0.5")
    assert S.get_mapping(config.output_mapping) == TemperatureSoftmax(2.0)
    with pytest.raises(ValueError, match="learn_attention_alpha needs an initial attention α > 1"):
        ModelConfig(attention_mapping="tsoftmax:2", learn_attention_alpha=True)
    # a fixed (parameterless) registration
    S.register_mapping("warm", lambda: TemperatureSoftmax(10.0))
    assert S.get_mapping("WARM") == TemperatureSoftmax(10.0)
    with pytest.raises(ValueError, match="unknown mapping 'warm:3'"):
        S.get_mapping("warm:3")


def test_the_registry_is_left_as_it_was():
    assert S.mapping_names() == ("softmax", "sparsemax", "entmax15", "entmax:<alpha>")
    with pytest.raises(ValueError, match="unknown mapping"):
        S.get_mapping("tsoftmax:2")


@pytest.mark.parametrize("bad", ["", "Soft", " soft", "a:b", "1.5", "inf", "softmax", "entmax", 3])
def test_register_refuses_a_bad_or_taken_name(registry, bad):
    with pytest.raises(ValueError, match=r"mapping name|already registered"):
        S.register_mapping(bad, lambda: TemperatureSoftmax(1.0))


def test_register_refuses_a_bad_factory(registry):
    with pytest.raises(TypeError, match="callable"):
        S.register_mapping("toy", "not callable")
    S.register_mapping("toy", lambda: "not a mapping")
    with pytest.raises(TypeError, match="not a Mapping"):
        S.get_mapping("toy")
