"""Sparsemax and 1.5-entmax: exact mappings with custom Jacobian-vector products.

Sources: Martins & Astudillo (2016), "From Softmax to Sparsemax", ICML (sparsemax, Algorithm 1);
Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models", ACL: α-entmax (eq. 9),
Algorithm 2 (exact sort-based 1.5-entmax) and the backward pass of section 3.4 (eq. 10).
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import nn
from torch.autograd import Function

from inflect.sparse import _common as C
from inflect.sparse import _fast
from inflect.sparse._thresholds import entmax15_tau_sort, sparsemax_tau_sort

Method = Literal["auto", "sort", "fast"]
_METHODS = ("auto", "sort", "fast")

#: Rows up to this length use the sort path under ``method="auto"``; longer rows use the
#: sort-free exact path (see :mod:`inflect.sparse._fast`).
SORT_MAX_D = 256

# ---------------------------------------------------------------------------------------------
# Lean small-row path. The seq2seq model calls the mappings at every decoder step on many small
# rows (attention over ~10-40 source positions, outputs over ~30-200 symbols), where the cost is
# per-operator overhead, not arithmetic. For the common case (float32/float64 logits, the last
# dimension, no partial sort, the sort algorithm) the functions below run the SAME tensor
# operations as the general path (``shift_rows`` + ``*_tau_sort`` + ``relu``), so the results
# are bit-for-bit identical, but without argument re-checks, dtype/layout moves, clones and
# per-call ``arange``; without grad (``torch.no_grad`` / ``torch.inference_mode``) or when
# ``x`` needs no gradient they skip ``autograd.Function`` entirely (nothing saved).
# ---------------------------------------------------------------------------------------------

_LEAN_DTYPES = (torch.float32, torch.float64)
_RHO: dict[tuple, torch.Tensor] = {}


def _rho_cached(d: int, like: torch.Tensor) -> torch.Tensor:
    """``arange(1, d + 1)`` in ``like``'s dtype and device, cached per (d, dtype, device)."""
    key = (d, like.dtype, like.device)
    rho = _RHO.get(key)
    if rho is None:
        with torch.inference_mode(False), torch.no_grad():  # a normal tensor even if created
            rho = torch.arange(1, d + 1, dtype=like.dtype, device=like.device)  # in inference
        if len(_RHO) < 512:
            _RHO[key] = rho
    return rho


def _lean_ok(x, dim, k, method) -> bool:
    """True when ``x``/``dim``/``k``/``method`` take the lean small-row sort path."""
    if k is not None or not isinstance(x, torch.Tensor) or x.dtype not in _LEAN_DTYPES:
        return False
    nd = x.ndim
    if nd == 0 or type(dim) is not int or not (dim == -1 or dim == nd - 1):
        return False
    d = x.shape[-1]
    if d == 0 or x.numel() == 0:  # no rows: the general path handles (or rejects) it
        return False
    return method == "sort" or (method == "auto" and d <= SORT_MAX_D)


def _shift_lean(z: torch.Tensor, half: bool):
    """As ``C.shift_rows(z, 0.5 if half else 1.0)``: ``(x, zs, empty or None)``.

    ``zs = z - max z`` (max 0 for a fully ``-inf`` row) is returned too, for the losses.
    Sparsemax (``half`` false) skips the floor at -2: entries below ``τ - 1`` never enter the
    support test ``ρ x_(ρ) > Σ_{j<=ρ} x_(j) - 1`` as true (its margin there is at least
    ``|x_(ρ)|``, far above the rounding of the cumulative sum for rows of at most a few hundred
    entries; ``-inf`` compares false), so τ, the support and ``p`` are those of the floored rows.
    The floor is kept when a row is fully ``-inf`` (its support must not be empty).
    """
    m = z.amax(dim=-1, keepdim=True)
    low = m.min().item()  # one cheap sync; NaN (a NaN row) or -inf: look row by row
    if low == -math.inf or low != low:
        empty = m == -math.inf
        m = m.masked_fill(empty, 0.0)
    else:
        empty = None
    zs = z - m
    if half:
        return (zs * 0.5).clamp_(min=-2.0), zs, empty
    return (zs if empty is None else zs.clamp(min=-2.0)), zs, empty


def _sparsemax_lean_parts(z: torch.Tensor):
    """Sparsemax of rows ``z`` (last dim, float32/64) by sort, with the ops of the general sort
    path; returns ``(p, zs, empty)`` (see :func:`_shift_lean`)."""
    x, zs, empty = _shift_lean(z, False)
    srt = torch.sort(x, dim=-1, descending=True).values
    cs = srt.cumsum(dim=-1).sub_(1)
    rho = _rho_cached(x.shape[-1], x)
    supp = ((rho * srt > cs) * rho).amax(dim=-1, keepdim=True).clamp_(min=1)  # NaN rows
    tau = cs.gather(-1, supp.long().sub_(1)).div_(supp)
    p = (x - tau).relu_()
    if empty is not None:
        p.masked_fill_(empty, 0.0)
    return p, zs, empty


def _entmax15_sqrt_lean_parts(z: torch.Tensor):
    """``sqrt`` of 1.5-entmax of rows ``z`` by sort (Algorithm 2) with the ops of the general
    path; returns ``(s, zs, empty)``."""
    x, zs, empty = _shift_lean(z, True)
    srt = torch.sort(x, dim=-1, descending=True).values
    rho = _rho_cached(x.shape[-1], x)
    mean = srt.cumsum(dim=-1).div_(rho)
    ss = (srt * srt).cumsum(dim=-1).div_(rho).sub_(mean * mean).mul_(rho)
    tau = mean.sub_(ss.neg_().add_(1).div_(rho).clamp_(min=0).sqrt_())
    supp = ((tau <= srt) * rho).amax(dim=-1, keepdim=True).clamp_(min=1)  # NaN rows
    s = x.sub_(tau.gather(-1, supp.long().sub_(1))).relu_()
    if empty is not None:
        s.masked_fill_(empty, 0.0)
    return s, zs, empty


def _sparsemax_lean(z: torch.Tensor) -> torch.Tensor:
    return _sparsemax_lean_parts(z)[0]


def _entmax15_sqrt_lean(z: torch.Tensor) -> torch.Tensor:
    return _entmax15_sqrt_lean_parts(z)[0]


def _sparsemax_backward(p: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    s = torch.sign(p)  # support indicator (as floats: faster than a boolean mask)
    gs = g * s
    n = s.sum(dim=-1, keepdim=True).clamp_(min=1)
    v = gs.sum(dim=-1, keepdim=True) / n
    return gs.sub_(v * s)


def _entmax15_backward(s: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    gs = g * s
    denom = s.sum(dim=-1, keepdim=True).clamp_(min=torch.finfo(s.dtype).tiny)
    q = gs.sum(dim=-1, keepdim=True) / denom
    return gs.sub_(q * s)


class _SparsemaxLean(Function):
    @staticmethod
    def forward(ctx, z):
        p = _sparsemax_lean(z)
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, g):
        return _sparsemax_backward(ctx.saved_tensors[0], g)


class _Entmax15Lean(Function):
    @staticmethod
    def forward(ctx, z):
        s = _entmax15_sqrt_lean(z)
        ctx.save_for_backward(s)
        return s * s

    @staticmethod
    def backward(ctx, g):
        return _entmax15_backward(ctx.saved_tensors[0], g)


def _choose(method: str, k: int | None, d: int) -> str:
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if k is not None:
        if method == "fast":
            raise ValueError("k (partial sort) cannot be combined with method='fast'")
        return "sort"
    if method == "auto":
        return "sort" if d <= SORT_MAX_D else "fast"
    return method


def sparsemax_forward(z: torch.Tensor, k=None, method="auto") -> torch.Tensor:
    """Sparsemax of float32/float64 rows ``z`` (last dim), no autograd; see :func:`sparsemax`."""
    path = _choose(method, k, z.shape[-1])
    if path == "sort":
        x, empty = C.shift_rows(z, 1.0)
        tau, _ = sparsemax_tau_sort(x, k)
    else:
        x, empty = C.shift_rows(z, 1.0, floor=None)
        tau, _ = _fast.sparsemax_tau_fast(x)
    p = (x - tau).relu_()
    return C.zero_empty_rows(p, empty)


def entmax15_sqrt_forward(z: torch.Tensor, k=None, method="auto") -> torch.Tensor:
    """``sqrt`` of 1.5-entmax of rows ``z`` (last dim), i.e. ``[z/2 - τ]_+``; no autograd."""
    path = _choose(method, k, z.shape[-1])
    if path == "sort":
        x, empty = C.shift_rows(z, 0.5)
        tau, _ = entmax15_tau_sort(x, k)
    else:
        x, empty = C.shift_rows(z, 0.5, floor=None)
        tau, _ = _fast.entmax15_tau_fast(x)
    s = (x - tau).relu_()
    return C.zero_empty_rows(s, empty)


def softmax_forward(z: torch.Tensor) -> torch.Tensor:
    """Softmax of rows ``z`` (last dim) with all-zero output for fully ``-inf`` rows."""
    x, empty = C.shift_rows(z, 1.0, floor=None)
    if empty is not None:
        x = x.masked_fill(empty, 0.0)
    e = torch.exp(x)
    p = e / e.sum(dim=-1, keepdim=True)
    return C.zero_empty_rows(p, empty)


class SparsemaxFunction(Function):
    """Sparsemax on the last dimension of a float32/float64 tensor.

    Backward (Martins & Astudillo 2016, sec. 2.5; Peters et al. 2019, eq. 10 with α=2):
    ``dz = s * (g - Σ_S g / |S|)`` with ``s`` the support indicator.
    """

    @staticmethod
    def forward(ctx, z, k=None, method="auto"):
        p = sparsemax_forward(z, k, method)
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, g):
        return _sparsemax_backward(ctx.saved_tensors[0], g), None, None


class Entmax15Function(Function):
    """1.5-entmax on the last dimension of a float32/float64 tensor.

    Backward (Peters et al. 2019, eq. 10): with ``s = p^(2-α) = sqrt(p)`` on the support,
    ``dz = s * g - (Σ s g / Σ s) s``.
    """

    @staticmethod
    def forward(ctx, z, k=None, method="auto"):
        s = entmax15_sqrt_forward(z, k, method)
        ctx.save_for_backward(s)
        return s * s

    @staticmethod
    def backward(ctx, g):
        return _entmax15_backward(ctx.saved_tensors[0], g), None, None


def _apply(fn, x: torch.Tensor, dim: int, *args) -> torch.Tensor:
    C.check_float(x)
    dim = C.check_dim(x, dim)
    cdt = C.compute_dtype(x.dtype)
    z = x.movedim(dim, -1)
    if z.dtype != cdt:
        z = z.to(cdt)
    p = fn.apply(z, *args)
    if p.dtype != x.dtype:
        p = p.to(x.dtype)
    return p.movedim(-1, dim)


def sparsemax(x: torch.Tensor, dim: int = -1, k: int | None = None, *, method: Method = "auto"):
    """Sparsemax: the Euclidean projection of ``x`` onto the probability simplex.

    ``sparsemax(x) = argmin_{p in simplex} ||p - x||^2 = [x - τ]_+`` (Martins & Astudillo 2016),
    i.e. α-entmax with α = 2 (Peters et al. 2019, eq. 9).

    Args:
        x: logits of any shape, any floating dtype (float16/bfloat16 are computed in float32).
            ``-inf`` marks a masked position: its probability is exactly 0.
        dim: the dimension holding the distribution (negative values allowed).
        k: partial sort: sort only the top ``k`` of each row (``torch.topk``), doubling ``k`` for
            the rows whose support may be larger (as the ``entmax`` package does); ``None`` lets
            ``method`` decide.
        method: ``"sort"`` (full sort, the readable reference), ``"fast"`` (exact sort-free
            threshold iteration, :mod:`inflect.sparse._fast`) or ``"auto"`` (sort for rows of at
            most ``SORT_MAX_D`` entries, fast otherwise). All give the same τ and support.

    Returns:
        Probabilities of ``x``'s shape and dtype, summing to 1 along ``dim``. A row whose logits
        are all ``-inf`` gives all zeros (and a zero gradient). NaN or ``+inf`` logits give NaN.

    Raises:
        ValueError: ``x`` not a floating tensor, ``dim`` out of range, ``k < 1``, unknown method.
    """
    if _lean_ok(x, dim, k, method):
        if x.requires_grad and torch.is_grad_enabled():
            return _SparsemaxLean.apply(x)
        return _sparsemax_lean(x)
    k = C.check_k(k)
    _choose(method, k, 1)
    return _apply(SparsemaxFunction, x, dim, k, method)


def entmax15(x: torch.Tensor, dim: int = -1, k: int | None = None, *, method: Method = "auto"):
    """1.5-entmax: α-entmax with α = 1.5, computed exactly (Peters et al. 2019, Algorithm 2).

    ``entmax15(x) = argmax_{p in simplex} <p, x> + H^T_1.5(p) = [x/2 - τ]_+^2`` (eq. 9 with α=1.5),
    where ``H^T_α`` is the Tsallis α-entropy.

    Args:
        x: logits of any shape, any floating dtype (float16/bfloat16 are computed in float32).
            ``-inf`` marks a masked position: its probability is exactly 0.
        dim: the dimension holding the distribution (negative values allowed).
        k: partial sort size, as in :func:`sparsemax`.
        method: ``"sort"``, ``"fast"`` or ``"auto"``, as in :func:`sparsemax`.

    Returns:
        Probabilities of ``x``'s shape and dtype, summing to 1 along ``dim``; all zeros for a row
        whose logits are all ``-inf``.

    Raises:
        ValueError: ``x`` not a floating tensor, ``dim`` out of range, ``k < 1``, unknown method.
    """
    if _lean_ok(x, dim, k, method):
        if x.requires_grad and torch.is_grad_enabled():
            return _Entmax15Lean.apply(x)
        s = _entmax15_sqrt_lean(x)
        return s.mul_(s)
    k = C.check_k(k)
    _choose(method, k, 1)
    return _apply(Entmax15Function, x, dim, k, method)


class _ExactMapping(nn.Module):
    """Module form of an exact mapping ``f(x, dim, k, method=...)``."""

    def __init__(self, dim: int = -1, k: int | None = None, *, method: Method = "auto"):
        super().__init__()
        self.dim = dim
        self.k = C.check_k(k)
        self.method = method

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return type(self)._mapping(x, dim=self.dim, k=self.k, method=self.method)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, k={self.k}"


class Sparsemax(_ExactMapping):
    """Module form of :func:`sparsemax` (same arguments)."""

    _mapping = staticmethod(sparsemax)


class Entmax15(_ExactMapping):
    """Module form of :func:`entmax15` (same arguments)."""

    _mapping = staticmethod(entmax15)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax (α-entmax at α = 1) with the conventions of ``inflect.sparse``.

    Same as ``torch.softmax`` except that float16/bfloat16 are computed in float32 and that a row
    whose logits are all ``-inf`` gives all zeros with a zero gradient (``torch.softmax`` gives NaN).

    Args:
        x: logits of any shape and floating dtype; ``-inf`` marks masked positions.
        dim: the dimension holding the distribution.

    Returns:
        Probabilities of ``x``'s shape and dtype.

    Raises:
        ValueError: ``x`` not a floating tensor or ``dim`` out of range.
    """
    C.check_float(x)
    dim = C.check_dim(x, dim)
    cdt = C.compute_dtype(x.dtype)
    z = x if x.dtype == cdt else x.to(cdt)
    empty = z.amax(dim=dim, keepdim=True) == -torch.inf
    if bool(empty.any()):
        p = torch.softmax(z.masked_fill(empty, 0.0), dim=dim).masked_fill(empty, 0.0)
    else:
        p = torch.softmax(z, dim=dim)
    return p if p.dtype == x.dtype else p.to(x.dtype)


# ---------------------------------------------------------------------------------------------
# The `entmax` package's (private) threshold functions, with its contract, for code written
# against it: any ``dim``, logits as given (no shift, no scaling), ``k`` a partial-sort size.
# ---------------------------------------------------------------------------------------------


def _threshold_and_support(solver, x: torch.Tensor, dim: int, k: int | None):
    C.check_float(x)
    dim = C.check_dim(x, dim)
    tau, supp = solver(x.movedim(dim, -1), C.check_k(k))
    return tau.movedim(-1, dim), supp.movedim(-1, dim)


def _sparsemax_threshold_and_support(X: torch.Tensor, dim: int = -1, k: int | None = None):
    """Sparsemax threshold τ and support size of ``X`` along ``dim`` (Martins & Astudillo 2016,
    Algorithm 1), as the ``entmax`` package's function of that name.

    Args:
        X: logits of any shape, floating dtype; used as given (not shifted by the maximum).
        dim: the dimension holding the distribution.
        k: sort only the top ``k`` (doubling for rows whose support may be larger), or ``None``.

    Returns:
        ``(tau, support_size)``, both of ``X``'s shape with ``dim`` of size 1; ``tau`` in
        ``X``'s dtype, ``support_size`` int64; ``sparsemax(X) = [X - tau]_+``.

    Raises:
        ValueError: ``X`` not a floating tensor, ``dim`` out of range, ``k < 1``.
    """
    return _threshold_and_support(sparsemax_tau_sort, X, dim, k)


def _entmax_threshold_and_support(X: torch.Tensor, dim: int = -1, k: int | None = None):
    """1.5-entmax threshold τ and support size of ``X`` along ``dim`` (Peters et al. 2019,
    Algorithm 2), as the ``entmax`` package's function of that name.

    ``X`` is used as given: 1.5-entmax of logits ``z`` is ``[X - tau]_+^2`` for ``X = z/2``
    (minus any constant). Arguments, result and errors as
    :func:`_sparsemax_threshold_and_support`.
    """
    return _threshold_and_support(entmax15_tau_sort, X, dim, k)
