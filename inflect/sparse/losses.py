"""Fenchel–Young losses of softmax, sparsemax, 1.5-entmax and α-entmax.

For the Tsallis regulariser ``Ω_α(p) = (Σ p_i^α - 1) / (α(α-1))`` (Shannon's ``Σ p log p`` at
α = 1) the Fenchel–Young loss of logits ``z`` and gold class ``y`` is

    ``L(z, y) = Ω_α*(z) + Ω_α(e_y) - z_y = <p - e_y, z> - Ω_α(p)``,   ``p = entmax_α(z)``,

(Peters, Niculae & Martins 2019, section 3.2 and appendix A.2; Blondel, Martins & Niculae 2020).
``L >= 0``, ``L = 0`` exactly when ``p = e_y``, i.e. when ``z_y - z_j >= 1/(α-1)`` for every
``j != y``; ``∂L/∂z = p - e_y``; at α = 1 it is the cross-entropy. Its gradient with respect to
α (envelope theorem) is ``-∂Ω_α(p)/∂α`` at fixed ``p``.

Names, positional arguments and defaults follow the ``entmax`` package: the functions
``sparsemax_loss``, ``entmax15_loss``, ``sparsemax_bisect_loss`` and ``entmax_bisect_loss`` return
one loss per target unless ``reduction`` is given; the modules reduce by ``'mean'`` (alias
``'elementwise_mean'``); :func:`entmax_loss` / :class:`EntmaxLoss` (this package's own) follow
``torch.nn.functional.cross_entropy``. Conventions, as ``torch.nn.CrossEntropyLoss`` (but with the
classes in the LAST dimension): logits ``(..., C)``, integer targets ``(...)``; targets equal to
``ignore_index`` (any int, negative or not, or an integer tensor with one element) contribute 0
and are not counted by ``'mean'``, which divides the sum by the number of non-ignored targets
(NaN with a zero gradient when every target is ignored, as in torch). A ``-inf`` logit is
a masked class (probability 0); a target whose logit is ``-inf`` (including every target of a
fully masked row) has loss ``+inf``, and its gradient is ``p - e_y`` (finite; zero for a fully
masked row).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.autograd import Function

from inflect.sparse import _common as C
from inflect.sparse.activations import (
    SORT_MAX_D,
    _entmax15_sqrt_lean_parts,
    _sparsemax_lean_parts,
    entmax15_sqrt_forward,
    softmax_forward,
    sparsemax_forward,
)
from inflect.sparse.root_finding import NEAR_ONE, bisect_forward

_REDUCTIONS = ("none", "sum", "mean")
_LEAN_KINDS = {"sparsemax": _sparsemax_lean_parts, "entmax15": _entmax15_sqrt_lean_parts}


def _shannon(p: torch.Tensor) -> torch.Tensor:
    """Shannon entropy ``-Σ p log p`` per row ``(N,)`` (``0 log 0 = 0``)."""
    pos = p > 0
    return -torch.where(pos, p * torch.log(torch.where(pos, p, 1.0)), 0.0).sum(dim=-1)


def _neg_tsallis_near_one(p: torch.Tensor, alpha) -> torch.Tensor:
    """``-Ω_α(p)`` for α near 1 without the cancellation of ``1 - Σ p^α`` (rounding divided by
    ``α - 1``): ``Σ p^α = Σ p exp((α-1) log p)`` and ``Σ p = 1`` give
    ``-Σ p expm1((α-1) log p) / (α(α-1))``, which tends to Shannon's ``-Σ p log p``; float64."""
    p64 = p.double()
    a = alpha.double().squeeze(-1).unsqueeze(-1) if isinstance(alpha, torch.Tensor) else alpha
    pos = p64 > 0
    logp = torch.log(torch.where(pos, p64, 1.0))
    am1 = a - 1
    term = torch.where(pos, p64 * torch.expm1(am1 * logp), 0.0) / am1
    return (-term.sum(dim=-1) / (a if isinstance(a, float) else a.squeeze(-1))).to(p.dtype)


def _neg_tsallis(p: torch.Tensor, alpha) -> torch.Tensor:
    """``-Ω_α(p) = (1 - Σ p^α)/(α(α-1))`` per row ``(N,)``; Shannon entropy at α = 1; for
    ``1 < α < 1 + NEAR_ONE`` :func:`_neg_tsallis_near_one`."""
    if isinstance(alpha, float) and 1.0 < alpha < 1 + NEAR_ONE:
        return _neg_tsallis_near_one(p, alpha)
    if isinstance(alpha, float):
        if alpha == 1.0:
            return _shannon(p)
        if alpha == 2.0:
            pa = p * p
        elif alpha == 1.5:
            pa = p * p.sqrt()
        else:
            pa = p.pow(alpha)
        return (1 - pa.sum(dim=-1)) / (alpha * (alpha - 1))
    pos = p > 0
    shannon = _shannon(p)
    a = alpha.squeeze(-1)
    am = torch.where(a == 1, 2.0, a)
    ts = (1 - torch.where(pos, p.pow(alpha), 0.0).sum(dim=-1)) / (am * (am - 1))
    near = (a > 1) & (a < 1 + NEAR_ONE)
    if bool(near.any()):
        ts = torch.where(near, _neg_tsallis_near_one(p, torch.where(near, a, 1.5)), ts)
    return torch.where(a == 1, shannon, ts)


def _neg_tsallis_alpha_grad(p: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """``∂/∂α [(1 - Σ p^α)/(α(α-1))]`` at fixed ``p``, per row ``(N, 1)``; float64 inside.

    At α = 1 the limit ``Σ p log p - ½ Σ p log² p``.
    """
    p64, a = p.double(), alpha.double()
    pos = p64 > 0
    logp = torch.where(pos, torch.log(torch.where(pos, p64, 1.0)), 0.0)
    sa = torch.where(pos, p64.pow(a), 0.0)
    s = sa.sum(dim=-1, keepdim=True)
    ds = (sa * logp).sum(dim=-1, keepdim=True)
    am = torch.where(a == 1, 2.0, a)
    den = am * (am - 1)
    grad = (-ds * den - (1 - s) * (2 * am - 1)) / (den * den)
    lim = (p64 * logp).sum(dim=-1, keepdim=True) - 0.5 * (p64 * logp * logp).sum(
        dim=-1, keepdim=True
    )
    return torch.where(a == 1, lim, grad).to(alpha.dtype)


def _project(kind: str, z: torch.Tensor, alpha, extra):
    if kind == "sparsemax":
        return sparsemax_forward(z, extra)
    if kind == "entmax15":
        s = entmax15_sqrt_forward(z, extra)
        return s * s
    if kind == "softmax":
        return softmax_forward(z)
    return bisect_forward(z, alpha, extra, True)[0]


class FenchelYoungLossFunction(Function):
    """Per-row Fenchel–Young loss on ``(N, C)`` logits; backward ``p - e_y`` (and ∂L/∂α)."""

    @staticmethod
    def forward(ctx, z, target, valid, kind, alpha, extra):
        a = C.ALPHA_BY_NAME.get(kind, alpha)
        if extra is None and kind in _LEAN_KINDS and z.shape[0] > 0 and z.shape[-1] <= SORT_MAX_D:
            # lean small-row path: same ops as the sort path, the row shift computed once
            p, zs, empty = _LEAN_KINDS[kind](z)
            if kind == "entmax15":
                p = p * p
        else:
            p = _project(kind, z, alpha, extra)
            m = z.amax(dim=-1, keepdim=True)
            empty = m == -torch.inf
            zs = z - m.masked_fill(empty, 0.0)
        inner = torch.where(p > 0, p * zs, 0.0).sum(dim=-1)
        zy = zs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        loss = (_neg_tsallis(p, a) + inner - zy).clamp_(min=0)
        loss = torch.where(valid, loss, 0.0)
        ctx.alpha_is_tensor = isinstance(alpha, torch.Tensor) and kind == "bisect"
        if not any(ctx.needs_input_grad):  # no grad (e.g. inference_mode): save nothing
            return loss
        grad = p.clone()
        grad.scatter_add_(-1, target.unsqueeze(-1), torch.full_like(zy, -1.0).unsqueeze(-1))
        keep = valid.unsqueeze(-1) if empty is None else valid.unsqueeze(-1) & ~empty
        grad = torch.where(keep, grad, 0.0)
        if ctx.alpha_is_tensor:
            ctx.save_for_backward(grad, p, alpha, keep)
        else:
            ctx.save_for_backward(grad)
        return loss

    @staticmethod
    def backward(ctx, g):
        grad = ctx.saved_tensors[0]
        dz = grad * g.unsqueeze(-1)
        da = None
        if ctx.alpha_is_tensor and ctx.needs_input_grad[4]:
            _, p, alpha, keep = ctx.saved_tensors
            da = torch.where(keep, _neg_tsallis_alpha_grad(p, alpha), 0.0) * g.unsqueeze(-1)
        return dz, None, None, None, da, None


def _fy_loss(x, target, kind, alpha, ignore_index, reduction, extra):
    C.check_float(x)
    if x.ndim < 1 or x.shape[-1] == 0:
        raise ValueError(f"logits must have shape (..., C) with C >= 1, got {tuple(x.shape)}")
    if not isinstance(target, torch.Tensor):
        raise ValueError(f"target must be an integer tensor, got {type(target).__name__}")
    if target.is_floating_point() or target.is_complex() or target.dtype == torch.bool:
        raise ValueError(
            f"target must be an integer (class index) tensor, got dtype {target.dtype}"
        )
    if tuple(target.shape) != tuple(x.shape[:-1]):
        raise ValueError(
            f"target shape {tuple(target.shape)} must equal logits shape without the class "
            f"dimension {tuple(x.shape[:-1])}"
        )
    if type(ignore_index) is not int:
        ignore_index = C.check_ignore_index(ignore_index)
    if reduction not in _REDUCTIONS:
        reduction = C.check_reduction(reduction)
    n_classes = x.shape[-1]
    cdt = C.compute_dtype(x.dtype)
    z = x.reshape(-1, n_classes)
    if z.dtype != cdt:
        z = z.to(cdt)
    t = target.reshape(-1).long()
    valid = t != ignore_index
    t_safe = torch.where(valid, t, 0)
    if t.numel():
        lo, hi = torch.aminmax(t_safe)  # one pass; the error path looks for the value
        if int(lo) < 0 or int(hi) >= n_classes:
            value = int(t[valid & ((t < 0) | (t >= n_classes))][0])
            raise ValueError(
                f"target value {value} is outside [0, {n_classes}) and is not ignore_index "
                f"({ignore_index})"
            )
    t = t_safe
    if isinstance(alpha, torch.Tensor):
        alpha = C.alpha_rows(alpha, x, x.ndim - 1).reshape(-1, 1)
    loss = FenchelYoungLossFunction.apply(z, t, valid, kind, alpha, extra)
    if reduction == "none":
        out = loss.reshape(target.shape)
    elif reduction == "sum":
        out = loss.sum()
    else:
        # NaN when every target is ignored (as torch's cross_entropy), but a zero gradient, not
        # NaN (1/0 times the zero rows): one all-padding batch must not poison the weights
        n = int(valid.sum())  # on the host, as the target check above
        out = loss.sum() / n if n else loss.sum() * 0.0 + math.nan
    return out if out.dtype == x.dtype else out.to(x.dtype)


def sparsemax_loss(x, target, k=None, *, ignore_index=-100, reduction="none"):
    """Sparsemax loss (Fenchel–Young loss of sparsemax; Martins & Astudillo 2016, eq. 18).

    Positional arguments and result as the ``entmax`` package's ``sparsemax_loss(X, target,
    k=None)``: one loss per target by default.

    Args:
        x: logits ``(..., C)`` (the package: ``(N, C)``), any floating dtype (half precision
            computed in float32); ``-inf`` = masked class.
        target: integer class indices ``(...)``, in ``[0, C)`` or equal to ``ignore_index``.
        k: partial-sort size passed to :func:`inflect.sparse.sparsemax` (same result).
        ignore_index: target value that contributes 0 (default -100; any int, or an integer
            tensor with one element).
        reduction: ``'none'`` (default; shape ``(...)``), ``'sum'`` or ``'mean'`` (alias
            ``'elementwise_mean'``; over the non-ignored targets, NaN with a zero gradient when
            every target is ignored), as ``torch.nn.CrossEntropyLoss``.

    Returns:
        The loss in ``x``'s dtype (see the module docstring for masked classes).

    Raises:
        ValueError: non-floating logits, non-integer targets, shape mismatch, a target outside
            ``[0, C)`` that is not ``ignore_index``, an invalid ``ignore_index``, an unknown
            reduction, ``k < 1``.
    """
    return _fy_loss(x, target, "sparsemax", 2.0, ignore_index, reduction, C.check_k(k))


def entmax15_loss(x, target, k=None, *, ignore_index=-100, reduction="none"):
    """1.5-entmax Fenchel–Young loss (Peters et al. 2019, section 3.2, α = 1.5).

    As the ``entmax`` package's ``entmax15_loss(X, target, k=None)``; arguments, result and
    errors as :func:`sparsemax_loss`.
    """
    return _fy_loss(x, target, "entmax15", 1.5, ignore_index, reduction, C.check_k(k))


def entmax_bisect_loss(x, target, alpha=1.5, n_iter=None, *, ignore_index=-100, reduction="none"):
    """α-entmax Fenchel–Young loss, α-entmax by root finding (Peters et al. 2019, section 3.2).

    As the ``entmax`` package's ``entmax_bisect_loss(X, target, alpha=1.5, n_iter=50)``.

    Args:
        alpha: α > 0, a float or a tensor broadcasting to ``x.shape[:-1] + (1,)`` (e.g. an
            ``nn.Parameter``; the loss is then differentiable in α, with the α = 1 limit used
            at α = 1 exactly).
        n_iter: as in :func:`inflect.sparse.entmax_bisect` (``None``: to the working precision).
        Other arguments, result and errors as :func:`sparsemax_loss`.
    """
    alpha = C.check_alpha(alpha)
    n_iter = C.check_n_iter(n_iter)
    if isinstance(alpha, float) and alpha == 1.0:
        return _fy_loss(x, target, "softmax", 1.0, ignore_index, reduction, None)
    return _fy_loss(x, target, "bisect", alpha, ignore_index, reduction, n_iter)


def sparsemax_bisect_loss(x, target, n_iter=None, *, ignore_index=-100, reduction="none"):
    """Sparsemax loss with sparsemax by root finding: :func:`entmax_bisect_loss` at α = 2.

    As the ``entmax`` package's ``sparsemax_bisect_loss(X, target, n_iter=50)``; the values of
    :func:`sparsemax_loss`. Arguments, result and errors as :func:`entmax_bisect_loss`.
    """
    return entmax_bisect_loss(
        x, target, 2.0, n_iter, ignore_index=ignore_index, reduction=reduction
    )


def entmax_loss(x, target, alpha, ignore_index=-100, reduction="mean"):
    """α-entmax loss with the exact algorithm where there is one (not in the ``entmax`` package).

    α = 1: cross-entropy (equal to ``torch.nn.functional.cross_entropy`` on ``(N, C)``, whose
    argument order and default ``reduction='mean'`` it follows); α = 1.5: :func:`entmax15_loss`;
    α = 2: :func:`sparsemax_loss`; any other float or a tensor: :func:`entmax_bisect_loss`.
    Arguments, result and errors as :func:`sparsemax_loss`.
    """
    alpha = C.check_alpha(alpha)
    kw = {"ignore_index": ignore_index, "reduction": reduction}
    if isinstance(alpha, float):
        if alpha == 1.0:
            return _fy_loss(x, target, "softmax", 1.0, ignore_index, reduction, None)
        if alpha == 1.5:
            return entmax15_loss(x, target, **kw)
        if alpha == 2.0:
            return sparsemax_loss(x, target, **kw)
    return entmax_bisect_loss(x, target, alpha, **kw)


class _LossModule(nn.Module):
    """A loss module: ``ignore_index`` and ``reduction`` as ``torch.nn.CrossEntropyLoss``
    (``reduction='elementwise_mean'``, the ``entmax`` package's name, is ``'mean'``)."""

    def __init__(self, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__()
        C.check_reduction(reduction)
        self.ignore_index = C.check_ignore_index(ignore_index)
        self.reduction = reduction

    def extra_repr(self) -> str:
        return f"ignore_index={self.ignore_index}, reduction={self.reduction!r}"


class SparsemaxLoss(_LossModule):
    """Module form of :func:`sparsemax_loss`; arguments in the ``entmax`` package's order."""

    def __init__(self, k=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(ignore_index, reduction)
        self.k = C.check_k(k)

    def forward(self, x, target):
        return sparsemax_loss(
            x, target, self.k, ignore_index=self.ignore_index, reduction=self.reduction
        )


class Entmax15Loss(_LossModule):
    """Module form of :func:`entmax15_loss`; arguments in the ``entmax`` package's order
    (``k=None`` chooses the exact algorithm automatically; the package's default 100 gives the
    same values)."""

    def __init__(self, k=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(ignore_index, reduction)
        self.k = C.check_k(k)

    def forward(self, x, target):
        return entmax15_loss(
            x, target, self.k, ignore_index=self.ignore_index, reduction=self.reduction
        )


class EntmaxBisectLoss(_LossModule):
    """Module form of :func:`entmax_bisect_loss` (the ``entmax`` package's argument order);
    an ``nn.Parameter`` α is registered."""

    def __init__(self, alpha=1.5, n_iter=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(ignore_index, reduction)
        C.check_alpha(alpha)
        self.alpha = alpha
        self.n_iter = C.check_n_iter(n_iter)

    def forward(self, x, target):
        return entmax_bisect_loss(
            x,
            target,
            self.alpha,
            self.n_iter,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class SparsemaxBisectLoss(_LossModule):
    """Module form of :func:`sparsemax_bisect_loss` (the ``entmax`` package's argument order)."""

    def __init__(self, n_iter=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(ignore_index, reduction)
        self.n_iter = C.check_n_iter(n_iter)

    def forward(self, x, target):
        return sparsemax_bisect_loss(
            x, target, self.n_iter, ignore_index=self.ignore_index, reduction=self.reduction
        )


class EntmaxLoss(_LossModule):
    """Module form of :func:`entmax_loss`; an ``nn.Parameter`` α is registered."""

    def __init__(self, alpha, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(ignore_index, reduction)
        C.check_alpha(alpha)
        self.alpha = alpha

    def forward(self, x, target):
        return entmax_loss(x, target, self.alpha, self.ignore_index, self.reduction)
