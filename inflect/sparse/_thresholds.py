"""Thresholds τ of sparsemax, 1.5-entmax and α-entmax (internal; last dimension, shifted rows).

Every function here takes rows already shifted by their maximum and scaled (see
:func:`inflect.sparse._common.shift_rows`), i.e. the largest entry of each row is 0 and entries
below ``-1`` are never in the support, and returns ``tau`` of shape ``(..., 1)``.

Sources:
* sparsemax: Martins & Astudillo (2016), "From Softmax to Sparsemax", Algorithm 1 (sort-based).
* 1.5-entmax: Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models",
  Algorithm 2 (sort-based, exact).
* α-entmax: same paper, Algorithm 1 (bisection on τ), in the scaled space ``u = (α-1) z``.
"""

from __future__ import annotations

import torch


def _rho(n: int, like: torch.Tensor) -> torch.Tensor:
    return torch.arange(1, n + 1, dtype=like.dtype, device=like.device)


def _sorted_prefix(x: torch.Tensor, k: int | None) -> torch.Tensor:
    d = x.shape[-1]
    if k is None or k >= d:
        return torch.sort(x, dim=-1, descending=True).values
    return torch.topk(x, k, dim=-1).values


def _regrow(x, tau, supp, k, solver):
    """Rows whose support filled the whole top-k may need more: solve them again with 2k."""
    d = x.shape[-1]
    if k is None or k >= d:
        return tau, supp
    unsolved = (supp == k).squeeze(-1)
    if bool(unsolved.any()):
        tau_u, supp_u = solver(x[unsolved], min(2 * k, d))
        tau = tau.clone()
        supp = supp.clone()
        tau[unsolved] = tau_u
        supp[unsolved] = supp_u
    return tau, supp


def sparsemax_tau_sort(x: torch.Tensor, k: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Sparsemax threshold by sorting (Martins & Astudillo 2016, Algorithm 1).

    Args:
        x: shifted logits ``(..., d)``, finite, row max 0.
        k: sort only the top ``k`` (``torch.topk``) and grow ``k`` by doubling for the rows whose
            support may be larger; ``None`` sorts the whole row.

    Returns:
        ``(tau, support_size)``, both ``(..., 1)``; ``support_size`` is int64: the largest ρ with
        ``1 + ρ x_(ρ) > Σ_{j<=ρ} x_(j)``, and ``tau = (Σ_{j<=ρ} x_(j) - 1) / ρ``.
    """
    srt = _sorted_prefix(x, k)
    cs = srt.cumsum(dim=-1) - 1
    rho = _rho(srt.shape[-1], srt)
    cond = rho * srt > cs
    # clamp: a row holding NaN has no support; it then gives NaN, not an index error
    supp = (cond * rho).amax(dim=-1, keepdim=True).long().clamp_(min=1)
    tau = cs.gather(-1, supp - 1) / supp.to(x.dtype)
    return _regrow(x, tau, supp, k, sparsemax_tau_sort)


def entmax15_tau_sort(x: torch.Tensor, k: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """1.5-entmax threshold by sorting: Algorithm 2 of Peters, Niculae & Martins (2019).

    ``x`` are the logits shifted by the row max and divided by 2 (the paper's ``z/2``), so that
    ``p = [x - τ]_+^2``. For each prefix ρ of the sorted row, ``M_ρ`` is the mean, ``S_ρ`` the sum
    of squared deviations, ``τ_ρ = M_ρ - sqrt((1 - S_ρ)/ρ)``; the support size is the largest ρ
    with ``τ_ρ <= x_(ρ)`` (the paper's ``ρ*``), and ``τ = τ_{ρ*}``.

    Args:
        x: scaled shifted logits ``(..., d)``, finite, row max 0.
        k: as in :func:`sparsemax_tau_sort`.

    Returns:
        ``(tau, support_size)``, both ``(..., 1)``.
    """
    srt = _sorted_prefix(x, k)
    rho = _rho(srt.shape[-1], srt)
    mean = srt.cumsum(dim=-1) / rho
    mean_sq = (srt * srt).cumsum(dim=-1) / rho
    ss = rho * (mean_sq - mean * mean)
    delta = (1 - ss) / rho
    tau = mean - torch.sqrt(delta.clamp(min=0))
    cond = tau <= srt
    # clamp: a row holding NaN has no support; it then gives NaN, not an index error
    supp = (cond * rho).amax(dim=-1, keepdim=True).long().clamp_(min=1)
    tau_star = tau.gather(-1, supp - 1)
    return _regrow(x, tau_star, supp, k, entmax15_tau_sort)


# ---------------------------------------------------------------------------------------------
# α-entmax by root finding, in the scaled space u = (α - 1)(z - max z), reparametrised as
#     p_i = [1 + u_i - t]_+ ^ (1/(α-1)),   t = τ + 1,
# so that t lies in [0, 1 - d^(1-α)] (a small number near α = 1, where the paper's τ would be
# close to -1 and lose precision), and p tends to softmax as α -> 1.
# f(t) = Σ p_i(t) - 1 is monotone in t, f(0) >= 0 (the max entry alone gives 1) and
# f(1 - d^(1-α)) <= 0 (every entry at most 1/d); for α < 1 the bracket is reversed.
# ---------------------------------------------------------------------------------------------


def entmax_p(u: torch.Tensor, t: torch.Tensor, alpha: float | torch.Tensor) -> torch.Tensor:
    """``p = [1 + u - t]_+^(1/(α-1))`` (unnormalised α-entmax probabilities for threshold ``t``)."""
    base = (1 + u - t).clamp_(min=0)
    q = 1 / (alpha - 1)
    if isinstance(q, float) and q == 2.0:
        return base * base
    if isinstance(q, float) and q == 1.0:
        return base
    return base.pow_(q)


def entmax_t_bracket(u: torch.Tensor, alpha: float | torch.Tensor):
    """Initial bracket ``(lo, hi)`` of ``t`` with ``f(lo) >= 0 >= f(hi)``, each ``(..., 1)``.

    ``hi = 1 - n^(1-α)`` with ``n`` the number of entries that can be in the support: those
    with ``u > -1`` and finite (α > 1: ``u <= 0``, and ``u <= -1`` gives ``p = 0`` for every
    ``t >= 0``; α < 1: ``u >= 0``, and ``u = +inf`` gives ``p = 0``); each of them then has
    ``p <= 1/n``. Counting only those gives a row with masked (``-inf``) entries the bracket of
    the row without them (and a tighter one for a fixed ``n_iter``).
    """
    lo = u.new_zeros((*u.shape[:-1], 1))
    n = ((u > -1) & (u < torch.inf)).sum(dim=-1, keepdim=True).clamp_(min=1).to(u.dtype)
    return lo, 1 - n.pow_(1 - alpha)


def entmax_t_bisect(
    u: torch.Tensor, alpha: float | torch.Tensor, n_iter: int | None = None
) -> torch.Tensor:
    """Bisection on ``t`` (Peters et al. 2019, Algorithm 1).

    Args:
        u: scaled shifted logits ``(..., d)``.
        alpha: a float, or a tensor ``(..., 1)``; α != 1.
        n_iter: number of halvings; ``None`` halves until the bracket no longer shrinks in the
            working precision (at most 200 times).

    Returns:
        ``t`` of shape ``(..., 1)``, the end of the final bracket at which ``f >= 0``.
    """
    lo, hi = entmax_t_bracket(u, alpha)
    it = 0
    while True:
        mid = (lo + hi) / 2
        if n_iter is None:
            if it >= 200 or not bool(((mid != lo) & (mid != hi)).any()):
                break
        elif it >= n_iter:
            break
        f = entmax_p(u, mid, alpha).sum(dim=-1, keepdim=True) - 1
        pos = f >= 0
        lo = torch.where(pos, mid, lo)
        hi = torch.where(pos, hi, mid)
        it += 1
    return lo
