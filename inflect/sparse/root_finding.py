"""α-entmax for any α > 0 by root finding, differentiable in the logits and in α.

Sources: Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models", ACL: eq. 9
(``p = [(α-1) z - τ]_+^(1/(α-1))``), Algorithm 1 (bisection), section 3.4 / eq. 10 (backward);
Correia, Niculae & Martins (2019), "Adaptively Sparse Transformers", EMNLP, Proposition 1
(gradient with respect to α).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.autograd import Function

from inflect.sparse import _common as C
from inflect.sparse import _fast
from inflect.sparse import _thresholds as T
from inflect.sparse.activations import softmax_forward


def _alpha_min_max(alpha):
    if isinstance(alpha, torch.Tensor):
        return float(alpha.min()), float(alpha.max())
    return alpha, alpha


#: Below ``1 + NEAR_ONE`` α-entmax is computed by :func:`near_one_forward`: the general path
#: raises ``b = 1 + u - t`` (rounded to the working precision near 1) to ``1/(α-1)``, which
#: multiplies the rounding by ``1/(α-1)`` (α = 1 + 1e-7 in float32 moved a probability by 0.05).
NEAR_ONE = 1.0 / 16


def near_one_forward(z: torch.Tensor, alpha: float | torch.Tensor) -> torch.Tensor:
    """α-entmax of rows ``z`` (last dim) for ``1 < α < 1 + NEAR_ONE``, exact as α → 1.

    With ``x = z - max z`` and ``τ`` the threshold in the logits' own units,
    ``p_i = [1 + (α-1)(x_i - τ)]_+^(1/(α-1)) = exp(log1p((α-1)(x_i - τ)) / (α-1))`` (Peters et
    al. 2019, eq. 9, with ``τ`` scaled by ``1/(α-1)``): no power of a number rounded near 1, and
    the softmax at the limit (``p_i -> exp(x_i - τ)``, ``τ -> logsumexp x``). ``τ`` solves
    ``g(τ) = log Σ p_i(τ) = 0`` in ``[0, logsumexp x]`` (``g(0) >= 0``; ``log1p(v) <= v`` gives
    ``g(logsumexp x) <= 0``) by Newton's method (``g'(τ) = -Σ p_i^(2-α) / Σ p_i``) safeguarded
    by bisection, in float64.

    Args:
        z: logits ``(..., d)`` (float32 or float64), at least one finite per row.
        alpha: a float or a ``(..., 1)`` tensor, every value in ``(1, 1 + NEAR_ONE)``.

    Returns:
        ``(..., d)`` probabilities in ``z``'s dtype.
    """
    x = z.double()
    m = x.amax(dim=-1, keepdim=True)
    empty = m == -torch.inf
    x = torch.where(empty, 0.0, x - torch.where(empty, 0.0, m))  # an all -inf row: zeros out
    am1 = (alpha.double() if isinstance(alpha, torch.Tensor) else float(alpha)) - 1
    lo = torch.zeros_like(x[..., :1])
    hi = torch.logsumexp(x, dim=-1, keepdim=True)
    tau = hi.clone()
    eps = torch.finfo(torch.float64).eps
    for _ in range(200):
        v = am1 * (x - tau)
        inside = v > -1
        logp = torch.where(inside, torch.log1p(torch.where(inside, v, 0.0)) / am1, -torch.inf)
        g = torch.logsumexp(logp, dim=-1, keepdim=True)
        slope = -torch.exp(torch.logsumexp((1 - am1) * logp, dim=-1, keepdim=True) - g)
        lo = torch.where(g > 0, tau, lo)
        hi = torch.where(g <= 0, tau, hi)
        step = torch.nan_to_num(g / slope, nan=0.0)
        new = tau - step
        new = torch.where((new > lo) & (new < hi), new, (lo + hi) / 2)
        new = torch.where(g == 0, tau, new)
        done = (new - tau).abs() <= 4 * eps * (1 + tau.abs())
        tau = new
        if bool(done.all()):
            break
    v = am1 * (x - tau)
    inside = v > -1
    p = torch.where(inside, torch.exp(torch.log1p(torch.where(inside, v, 0.0)) / am1), 0.0)
    return torch.where(empty, 0.0, p / p.sum(dim=-1, keepdim=True)).to(z.dtype)


def bisect_forward(
    z: torch.Tensor,
    alpha: float | torch.Tensor,
    n_iter: int | None = None,
    ensure_sum_one: bool = True,
    want_s: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """α-entmax of float32/float64 rows ``z`` (last dim), no autograd.

    Args:
        z: logits ``(..., d)``.
        alpha: float or tensor ``(..., 1)`` (every value > 0). Rows with α = 1 get softmax.
        n_iter: ``None``: exact to the working precision (monotone Newton for 1 < α <= 2,
            Illinois regula falsi otherwise); an int: exactly that many bisection steps.
        ensure_sum_one: divide by the sum at the end (always done by the ``None`` path).
        want_s: also return the backward's weights ``s = p^(2-α)`` (where cheaply available;
            else ``None``).

    Returns:
        ``(p, s)``: ``(..., d)`` probabilities (all-zero rows where ``z`` is all ``-inf``), and
        ``s`` or ``None``.
    """
    amin, amax = _alpha_min_max(alpha)
    if amin == amax == 1.0:
        return softmax_forward(z), None
    ones = None
    a = alpha
    if isinstance(alpha, torch.Tensor) and amin <= 1.0 <= amax:
        ones = alpha == 1
        if bool(ones.any()):
            a = torch.where(ones, 2.0, alpha)
            amin, amax = _alpha_min_max(a)
        else:
            ones = None
    s = None
    near = None
    if n_iter is None and amin < 1 + NEAR_ONE and amax > 1:
        near = (a > 1) & (a < 1 + NEAR_ONE) if isinstance(a, torch.Tensor) else True
        if near is True or bool(near.all()):
            p = near_one_forward(z, a)
            return (torch.where(ones, softmax_forward(z), p) if ones is not None else p), None
        a = torch.where(near, 2.0, a)  # those rows are replaced below
        amin, amax = _alpha_min_max(a)
    if n_iter is None and amin > 1 and amax <= 2:
        u, empty = C.shift_rows(z, a - 1, floor=None)
        p, s = _fast.entmax_newton(u, a, want_s=want_s and ones is None)
    else:
        u, empty = C.shift_rows(z, a - 1, floor=-2.0 if amin > 1 else None)
        t = _fast.entmax_t_safeguarded(u, a) if n_iter is None else T.entmax_t_bisect(u, a, n_iter)
        p = T.entmax_p(u, t, a)
        if ensure_sum_one or n_iter is None:
            p = p / p.sum(dim=-1, keepdim=True)
    if empty is not None:
        p = C.zero_empty_rows(p, empty)
        s = C.zero_empty_rows(s, empty) if s is not None else None
    if ones is not None:
        p = torch.where(ones, softmax_forward(z), p)
    if near is not None:
        p = torch.where(near, near_one_forward(z, torch.where(near, alpha, 1.5)), p)
        s = None
    return p, s


def entmax_jvp(
    p: torch.Tensor, g: torch.Tensor, alpha: float | torch.Tensor, s: torch.Tensor | None = None
) -> torch.Tensor:
    """Backward of α-entmax (Peters et al. 2019, eq. 10).

    With ``s = p^(2-α)`` on the support (0 elsewhere; pass it if known): ``dz = s g - (Σ s g / Σ s) s``.
    """
    if s is not None:
        pass
    elif isinstance(alpha, float) and alpha == 2.0:
        s = (p > 0).to(p.dtype)
    elif isinstance(alpha, float) and alpha == 1.5:
        s = p.sqrt()
    elif isinstance(alpha, float) and alpha == 1.0:
        s = p
    else:
        s = torch.where(p > 0, p.pow(2 - alpha), 0.0)
    gs = g * s
    denom = s.sum(dim=-1, keepdim=True).clamp_(min=torch.finfo(s.dtype).tiny)
    return gs.sub_((gs.sum(dim=-1, keepdim=True) / denom) * s)


def entmax_alpha_grad(p: torch.Tensor, g: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """``Σ_i g_i ∂p_i/∂α`` per row, shape ``(..., 1)``; computed in float64.

    Correia et al. (2019), Proposition 1, gives ``∂p/∂α = (p - p~)/(α-1)^2 - (p log p - p~ H)/(α-1)``
    with ``s = p^(2-α)``, ``p~ = s / Σ s`` and ``H = Σ p log p``; its two terms cancel to leading
    order near α = 1, which amplifies the rounding of ``p`` by ``1/(α-1)^2``. We use the same
    derivative written without that cancellation (implicit differentiation of
    ``p_i = b_i^(1/(α-1))``, ``b_i = 1 + (α-1) z_i - t``, in which the ``t`` terms cancel exactly)::

        v_i = b_i - 1 = expm1((α-1) log p_i),   h_i = p_i (v_i/(1+v_i) - log1p(v_i)),
        ∂p/∂α = (h - p~ Σ h) / (α-1)^2,

    (``h = O((α-1)^2)``), and at α = 1 its limit ``∂p/∂α = p (w - Σ p w)``, ``w = -½ log² p``.
    """
    p64, g64, a = p.double(), g.double(), alpha.double()
    pos = p64 > 0
    logp = torch.where(pos, torch.log(torch.where(pos, p64, 1.0)), 0.0)
    am1 = a - 1
    one = am1 == 0
    v = torch.expm1(am1 * logp)
    h = torch.where(pos, p64 * (v / (1 + v) - torch.log1p(v)), 0.0)
    s = torch.where(pos, p64.pow(2 - a), 0.0)
    pt = s / s.sum(dim=-1, keepdim=True)
    am1s = torch.where(one, 1.0, am1)
    dp = (h - pt * h.sum(dim=-1, keepdim=True)) / (am1s * am1s)
    w = -0.5 * logp * logp
    dp1 = p64 * (w - (p64 * w).sum(dim=-1, keepdim=True))
    dp = torch.where(one, dp1, dp)
    return (g64 * dp).sum(dim=-1, keepdim=True).to(alpha.dtype)


class EntmaxBisectFunction(Function):
    """α-entmax on the last dimension; α a float or a ``(..., 1)`` tensor (may need grad)."""

    @staticmethod
    def forward(ctx, z, alpha, n_iter=None, ensure_sum_one=True):
        p, s = bisect_forward(z, alpha, n_iter, ensure_sum_one, want_s=ctx.needs_input_grad[0])
        ctx.alpha_is_tensor = isinstance(alpha, torch.Tensor)
        ctx.has_s = s is not None
        saved = [p] + ([s] if s is not None else [])
        if ctx.alpha_is_tensor:
            saved.append(alpha)
        else:
            ctx.alpha = alpha
        ctx.save_for_backward(*saved)
        return p

    @staticmethod
    def backward(ctx, g):
        saved = list(ctx.saved_tensors)
        p = saved.pop(0)
        s = saved.pop(0) if ctx.has_s else None
        alpha = saved.pop(0) if ctx.alpha_is_tensor else ctx.alpha
        dz = entmax_jvp(p, g, alpha, s) if ctx.needs_input_grad[0] else None
        da = None
        if ctx.alpha_is_tensor and ctx.needs_input_grad[1]:
            da = entmax_alpha_grad(p, g, alpha)
        return dz, da, None, None


def entmax_bisect(
    x: torch.Tensor,
    alpha: float | torch.Tensor = 1.5,
    dim: int = -1,
    n_iter: int | None = None,
    ensure_sum_one: bool = True,
) -> torch.Tensor:
    """α-entmax by root finding on the threshold τ, for any α > 0.

    ``entmax_α(x) = argmax_{p in simplex} <p, x> + H^T_α(p) = [(α-1) x - τ]_+^(1/(α-1))``
    (Peters et al. 2019, eq. 9), with the Tsallis entropy ``H^T_α``; α = 1 is softmax, α = 2 is
    sparsemax, every α > 1 can give exact zeros. τ is found in the scaled space
    ``u = (α-1)(x - max x)`` (shifted by the max first), reparametrised as ``t = τ + 1``.

    Args:
        x: logits of any shape and floating dtype (float16/bfloat16 computed in float32);
            ``-inf`` marks masked positions (probability exactly 0).
        alpha: α > 0: a float, or a tensor broadcasting against ``x`` with ``dim`` reduced to
            size 1 (e.g. an ``nn.Parameter``); the result is differentiable in a tensor α
            (Correia et al. 2019, Proposition 1; the α = 1 limit is used at α = 1 exactly).
        dim: the dimension holding the distribution (negative values allowed).
        n_iter: ``None`` (default) computes τ to the working precision: for 1 < α <= 2 Newton's
            method on a convex root function from a lower bound of τ (monotone, and only the
            entries that can still be in the support are visited once they are few; see
            :mod:`inflect.sparse._fast`), otherwise Newton safeguarded by bisection. An int runs
            exactly that many bisection steps (Algorithm 1), as the ``entmax`` package does.
        ensure_sum_one: divide the result by its sum (recommended).

    Returns:
        Probabilities of ``x``'s shape and dtype; a row whose logits are all ``-inf`` gives all
        zeros (zero gradient).

    Raises:
        ValueError: invalid ``x``, ``dim``, ``n_iter``, or α not finite and > 0 / not
            broadcastable.
    """
    C.check_float(x)
    dim = C.check_dim(x, dim)
    n_iter = C.check_n_iter(n_iter)
    alpha = C.check_alpha(alpha)
    cdt = C.compute_dtype(x.dtype)
    z = x.movedim(dim, -1)
    if z.dtype != cdt:
        z = z.to(cdt)
    if isinstance(alpha, torch.Tensor):
        alpha = C.alpha_rows(alpha, x, dim)
    p = EntmaxBisectFunction.apply(z, alpha, n_iter, bool(ensure_sum_one))
    if p.dtype != x.dtype:
        p = p.to(x.dtype)
    return p.movedim(-1, dim)


def sparsemax_bisect(
    x: torch.Tensor, dim: int = -1, n_iter: int | None = None, ensure_sum_one: bool = True
) -> torch.Tensor:
    """Sparsemax by root finding: :func:`entmax_bisect` at α = 2 (the ``entmax`` package's name).

    The same values as :func:`inflect.sparse.sparsemax` (exact sort-based / sort-free), computed
    by the general α path (Peters et al. 2019, Algorithm 1 with an integer ``n_iter``).

    Args:
        x: logits of any shape and floating dtype; ``-inf`` = masked (probability exactly 0).
        dim: the dimension holding the distribution.
        n_iter: ``None`` (to the working precision) or the number of bisection steps.
        ensure_sum_one: divide the result by its sum (only changes anything with an int n_iter).

    Returns:
        Probabilities of ``x``'s shape and dtype (all zeros for a fully ``-inf`` row).

    Raises:
        ValueError: as :func:`entmax_bisect`.
    """
    return entmax_bisect(x, 2.0, dim, n_iter, ensure_sum_one)


class EntmaxBisect(nn.Module):
    """Module form of :func:`entmax_bisect`.

    Args:
        alpha: a float, a tensor, or an ``nn.Parameter`` (registered, so it is learned).
        dim: the dimension holding the distribution.
        n_iter: as in :func:`entmax_bisect`.
    """

    def __init__(self, alpha: float | torch.Tensor = 1.5, dim: int = -1, n_iter: int | None = None):
        super().__init__()
        C.check_alpha(alpha)
        self.alpha = alpha
        self.dim = dim
        self.n_iter = C.check_n_iter(n_iter)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return entmax_bisect(x, alpha=self.alpha, dim=self.dim, n_iter=self.n_iter)

    def extra_repr(self) -> str:
        a = self.alpha if not isinstance(self.alpha, torch.Tensor) else "tensor"
        return f"alpha={a}, dim={self.dim}, n_iter={self.n_iter}"


class SparsemaxBisect(nn.Module):
    """Module form of :func:`sparsemax_bisect` (the ``entmax`` package's name and arguments).

    Args:
        dim: the dimension holding the distribution.
        n_iter: as in :func:`entmax_bisect`.
    """

    def __init__(self, dim: int = -1, n_iter: int | None = None):
        super().__init__()
        self.dim = dim
        self.n_iter = C.check_n_iter(n_iter)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return sparsemax_bisect(x, dim=self.dim, n_iter=self.n_iter)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, n_iter={self.n_iter}"
