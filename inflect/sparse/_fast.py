"""Exact thresholds without a full sort (internal; last dimension, shifted rows).

All solvers keep a LOWER bound of the threshold and move it up monotonically, so the candidate
set ``{i : x_i > τ}`` only shrinks; once it is a small fraction of the row it is gathered into a
small padded matrix (:class:`Compacted`, one ``nonzero``) and the iteration continues there.
Over full rows they use only cheap elementwise float operations (``relu``, ``sign``, sums; no
sort; boolean masks and ``pow`` are slow on CPU and avoided).

* Sparsemax: Michelot's (1986) fixed-point iteration for the simplex projection,
  ``τ <- τ + (Σ [x - τ]_+ - 1) / |{x > τ}|`` (= the closed form on the candidate set), started
  from the lower bound ``τ >= max(max x - 1, (Σ x - 1)/d)``. Every iterate is a lower bound of
  τ*, and the iteration stops exactly when the candidate set no longer changes; the last τ is
  then the closed form on the support, the value the sort path computes.
* 1.5-entmax: Newton's method on ``g(τ) = ||[x - τ]_+||_2 - 1`` (convex and decreasing, so
  Newton from a lower bound stays a lower bound), from ``τ >= max(max x - 1, mean x - 1/sqrt d)``
  (the second bound by Jensen's inequality), with an exact finalisation: for the candidate set
  ``S = {x > τ}`` the closed form of Algorithm 2 of Peters et al. (2019),
  ``τ_S = M_S - sqrt((1 - S_S)/|S|)``, is an UPPER bound of τ* and equals τ* exactly when no
  entry lies in ``(τ, τ_S]``, i.e. when the candidate count at ``τ_S`` is still ``|S|``. That is
  probed once the candidate set has stopped shrinking.
* α-entmax, 1 < α <= 2, ``q = 1/(α-1) >= 1``: Newton on ``g(t) = ||[1 + u - t]_+||_q - 1``
  (convex, decreasing) from ``t >= max(0, 1 + mean u - d^(1-α))`` (Jensen), until
  ``f(t) = Σ p_i - 1`` reaches the working precision (after normalisation ``f`` bounds the error
  of every ``p_i``). It is warm-started without ``exp``/``log`` by the same Newton on
  ``||b||_m`` with the integer ``m = ceil(q)`` (``b^m <= b^q`` on ``[0, 1]``, so its root is a
  lower bound too). The final ``p`` (and the backward's ``p^(2-α)``) are computed on the
  compacted candidates and scattered. Other α: Illinois regula falsi inside the bisection
  bracket.

Rows that do not finish within the iteration cap are finished by the sort path / bisection.
"""

from __future__ import annotations

import math

import torch

from inflect.sparse import _thresholds as T

MAX_ITER = 60
#: gather the candidates into a small matrix once they are at most this fraction of the entries
COMPACT_FRACTION = 0.25
#: same for sparsemax / 1.5-entmax, whose iterations are cheaper
SPARSE_FRACTION = 0.1


def _rows(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(-1, x.shape[-1])


def sparsemax_tau_fast(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Sparsemax threshold by Michelot's iteration; same contract as ``sparsemax_tau_sort``.

    ``x`` may contain ``-inf`` (no clamp needed here).
    """
    shape = (*x.shape[:-1], 1)
    w = _rows(x)
    d = w.shape[-1]
    tau = torch.clamp((w.sum(dim=-1, keepdim=True) - 1) / d, min=-1.0)
    prev = None
    compacted = d <= 64
    for _ in range(MAX_ITER):
        y = (w - tau).relu_()
        cnt = torch.sign(y).sum(dim=-1, keepdim=True)
        if not compacted and float(cnt.sum()) <= SPARSE_FRACTION * w.numel():
            w = Compacted(w, y > 0, -math.inf).vals
            y = (w - tau).relu_()
            compacted = True
        new = tau + (y.sum(dim=-1, keepdim=True) - 1) / cnt
        if prev is not None and bool((cnt == prev).all()):
            return new.reshape(shape), cnt.long().reshape(shape)
        tau, prev = new, cnt
    return T.sparsemax_tau_sort(x.clamp(min=-2.0))  # rounding made it cycle: sort


def entmax15_tau_fast(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """1.5-entmax threshold of ``x = (z - max z)/2`` by monotone Newton + exact finalisation.

    Same contract as ``entmax15_tau_sort``; ``x`` may contain ``-inf``.
    """
    shape = (*x.shape[:-1], 1)
    w = _rows(x)
    d = w.shape[-1]
    lo = torch.clamp(w.mean(dim=-1, keepdim=True) - 1 / math.sqrt(d), min=-1.0)
    lo = torch.nan_to_num(lo, nan=-1.0, neginf=-1.0)
    probe = lo
    checking = torch.zeros_like(lo, dtype=torch.bool)  # probe = closed form τ_S of lo's set
    m_lo = torch.full_like(lo, -1.0)
    newton_lo = lo
    out = torch.zeros_like(lo)
    out_cnt = torch.zeros_like(lo)
    done = torch.zeros_like(lo, dtype=torch.bool)
    compacted = d <= 64
    for _ in range(MAX_ITER):
        y = (w - probe).relu_()
        m = torch.sign(y).sum(dim=-1, keepdim=True)
        if (not compacted and not bool(checking.any())
                and float(m.sum()) <= SPARSE_FRACTION * w.numel()):
            # every row probes a lower bound: what is at or below it never returns
            w = Compacted(w, y > 0, -math.inf).vals
            y = (w - probe).relu_()
            compacted = True
        s1 = y.sum(dim=-1, keepdim=True)
        s2 = (y * y).sum(dim=-1, keepdim=True)
        # rows that probed τ_S: exact iff nothing was lost between lo and τ_S
        exact = checking & (m == m_lo) & ~done
        out = torch.where(exact, probe, out)
        out_cnt = torch.where(exact, m, out_cnt)
        done |= exact
        if bool(done.all()):
            return out.reshape(shape), out_cnt.long().reshape(shape)
        # rows that probed a lower bound: closed form on their set and a Newton step
        mean = s1 / m
        disc = mean * mean - (s2 - 1) / m
        t_s = probe + (mean - torch.sqrt(disc.clamp(min=0)))
        r = torch.sqrt(s2)
        newton = probe + (s2 - r) / s1
        stable = (m == m_lo) | (m <= 1)
        at_lo = ~checking
        go_check = at_lo & stable & (disc >= 0)
        next_probe = torch.where(
            at_lo, torch.where(go_check, t_s, newton), newton_lo  # failed check: resume Newton
        )
        newton_lo = torch.where(at_lo, newton, newton_lo)
        m_lo = torch.where(at_lo, m, m_lo)
        checking = at_lo & go_check
        probe = torch.where(done, probe, next_probe)
    tau_s, cnt_s = T.entmax15_tau_sort(x.clamp(min=-2.0))
    done = done.reshape(shape)
    return (torch.where(done, out.reshape(shape), tau_s),
            torch.where(done, out_cnt.long().reshape(shape), cnt_s))


def _tol(dtype: torch.dtype) -> float:
    return 2 * torch.finfo(dtype).eps


class Compacted:
    """Rows of ``u`` restricted to candidate columns: ``vals (N, K)`` padded, and the scatter map.

    ``vals`` holds the kept entries of each row left-aligned, padded with ``pad`` (a value whose
    probability is 0); ``rows``/``cols``/``pos`` map kept entry ``j`` to ``u[rows[j], cols[j]]``
    and ``vals[rows[j], pos[j]]``.
    """

    def __init__(self, u: torch.Tensor, keep: torch.Tensor, pad: float):
        rows, cols = keep.nonzero(as_tuple=True)
        cnt = torch.bincount(rows, minlength=u.shape[0])
        k = max(int(cnt.max()), 1) if rows.numel() else 1
        start = torch.cumsum(cnt, 0) - cnt
        pos = torch.arange(rows.numel(), device=u.device) - start[rows]
        self.vals = u.new_full((u.shape[0], k), pad)
        self.vals[rows, pos] = u[rows, cols]
        self.shape = u.shape
        self.rows, self.cols, self.pos = rows, cols, pos

    def narrow(self, keep: torch.Tensor, pad: float) -> Compacted:
        """Keep a subset (``keep`` over ``vals``) of the kept entries; maps are composed."""
        inner = Compacted(self.vals, keep, pad)
        k = self.vals.shape[1]
        col_of = torch.zeros(self.vals.numel(), dtype=torch.long, device=self.vals.device)
        col_of[self.rows * k + self.pos] = self.cols
        inner.cols = col_of[inner.rows * k + inner.cols]
        inner.shape = self.shape
        return inner

    def scatter(self, v: torch.Tensor) -> torch.Tensor:
        """Dense ``(N, d)`` tensor with ``v (N, K)`` at the kept positions, 0 elsewhere."""
        out = v.new_zeros(self.shape)
        out[self.rows, self.cols] = v[self.rows, self.pos]
        return out


def _powq(b: torch.Tensor, q) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(b ** q, sign(b), max(b, tiny))`` for ``b >= 0``; fast on CPU.

    ``torch.pow`` with a non-integer exponent is several times slower than ``exp(q log b)``, and
    ``log(0)`` / ``exp`` of results below the normal range take slow paths (10-40x), so ``b`` is
    clamped at the smallest normal number before the log (and the result multiplied by
    ``sign(b)``: exact zeros), and the exponent is floored just above the log of the smallest
    normal number (values below ~1e-37 in float32 become ~1e-37, an absolute change below 1e-37).
    """
    on = torch.sign(b)
    safe = b.clamp(min=torch.finfo(b.dtype).tiny)
    if isinstance(q, float) and q == 1.0:
        return b.clone(), on, safe
    if isinstance(q, float) and q == 2.0:
        return b * b, on, safe
    floor = math.log(torch.finfo(b.dtype).tiny) + 1
    p = torch.exp(torch.log(safe).mul_(q).clamp_(min=floor)).mul_(on)
    return p, on, safe


def _ipow(b: torch.Tensor, m: int) -> torch.Tensor:
    """``b ** m`` for an int ``m >= 0`` by repeated squaring (multiplications only)."""
    out = None
    base = b
    while m:
        if m & 1:
            out = base.clone() if out is None else out.mul_(base)
        m >>= 1
        if m:
            base = base * base
    return torch.ones_like(b) if out is None else out


def entmax_newton(u: torch.Tensor, alpha: float | torch.Tensor, want_s: bool = False):
    """α-entmax for 1 < α <= 2 by monotone Newton on ``||[1 + u - t]_+||_q - 1`` (see above).

    Args:
        u: scaled shifted logits ``(..., d)`` (``u = (α-1)(z - max z)``, may contain ``-inf``).
        alpha: float or ``(..., 1)`` tensor, every value in ``(1, 2]``.
        want_s: also return ``s = p^(2-α)`` (the backward's weights), computed on the way.

    Returns:
        ``(p, s)``: normalised probabilities ``(..., d)`` and ``s`` (or ``None``).
    """
    shape = u.shape
    w = _rows(u)
    d = w.shape[-1]
    a = alpha.reshape(-1, 1) if isinstance(alpha, torch.Tensor) else alpha
    q = 1 / (a - 1)
    tol = _tol(w.dtype)
    step_tol = 4 * torch.finfo(w.dtype).eps
    mean = torch.nan_to_num(w.mean(dim=-1, keepdim=True), nan=-2.0, neginf=-2.0)
    t = (1 + mean - float(d) ** (1 - a)).clamp_(min=0)
    done = torch.zeros_like(t, dtype=torch.bool)
    comp = None
    vals = w
    qmax = float(q.max()) if isinstance(q, torch.Tensor) else q
    m = math.ceil(qmax)
    if m != qmax and m <= 16:
        # warm start without log/exp: b^m <= b^q for 0 <= b <= 1 and m >= q, so the root of
        # Σ b^m = 1 (found by the same convex Newton, integer powers only) is a lower bound
        for _ in range(8):
            b = (vals - (t - 1)).relu_()
            frac = float(torch.sign(b).sum()) / b.numel()
            if frac > 0.5:
                break  # dense support (flat logits): Newton below converges in a few steps
            if vals.shape[-1] > 64 and frac <= COMPACT_FRACTION:
                comp = Compacted(w, b > 0, -2.0) if comp is None else comp.narrow(b > 0, -2.0)
                vals = comp.vals
                b = (vals - (t - 1)).relu_()
            bm1 = _ipow(b, m - 1)
            s = (bm1 * b).sum(dim=-1, keepdim=True)
            if bool((s - 1 <= 1e-3).all()):
                break
            sq = s.pow(1 / m)
            t = t + (s / sq) * (sq - 1) / bm1.sum(dim=-1, keepdim=True)
    for _ in range(MAX_ITER):
        b = (vals - (t - 1)).relu_()
        if vals.shape[-1] > 64 and float(torch.sign(b).sum()) <= COMPACT_FRACTION * b.numel():
            comp = Compacted(w, b > 0, -2.0) if comp is None else comp.narrow(b > 0, -2.0)
            vals = comp.vals
            b = (vals - (t - 1)).relu_()
        p, _, safe = _powq(b, q)
        s = p.sum(dim=-1, keepdim=True)
        pb = p / safe  # b^(q-1) on the support, 0 off it (0 / tiny)
        dsum = pb.sum(dim=-1, keepdim=True)
        sq = s.pow(1 / q)
        step = (s / sq) * (sq - 1) / dsum  # Newton on g = S^(1/q) - 1
        done |= (s - 1 <= tol) | (step <= step_tol * (1 + t))
        if bool(done.all()):
            break
        t = torch.where(done, t, t + step)
    else:
        tt = T.entmax_t_bisect(u.clamp(min=-2.0), alpha)
        p = T.entmax_p(u, tt, alpha)
        p = p / p.sum(dim=-1, keepdim=True)
        sw = torch.where(p > 0, p.pow(2 - alpha), 0.0) if want_s else None
        return p, sw
    p = p / s
    sw = None
    if want_s:
        # s = p_normalised^(2-α) = b^(q-1) * S^(α-2)
        sw = pb * s.pow(a - 2)
    if comp is not None:
        p = comp.scatter(p)
        sw = comp.scatter(sw) if want_s else None
    return p.reshape(shape), (sw.reshape(shape) if want_s else None)


def entmax_t_safeguarded(u: torch.Tensor, alpha: float | torch.Tensor) -> torch.Tensor:
    """``t`` for any α != 1 by the Illinois variant of regula falsi on ``f(t) = Σ p_i - 1``.

    Used for α > 2 and α < 1, where ``f`` is neither convex nor concave (so plain Newton
    oscillates). The bracket ``[lo, hi]`` with ``f(lo) >= 0 >= f(hi)`` always holds the root;
    the Illinois rule (halving the stale end's ``f``) makes the convergence superlinear.
    Stops when ``|f| <= 2 eps`` or the bracket no longer shrinks.
    """
    lo, hi = T.entmax_t_bracket(u, alpha)

    def f(t):
        return T.entmax_p(u, t, alpha).sum(dim=-1, keepdim=True) - 1

    tol = _tol(u.dtype)
    flo, fhi = f(lo), f(hi)
    t = lo
    side = torch.zeros_like(lo, dtype=torch.int8)
    done = torch.zeros_like(lo, dtype=torch.bool)
    for _ in range(4 * MAX_ITER):
        denom = flo - fhi
        cand = torch.where(denom > 0, (lo * (-fhi) + hi * flo) / denom.clamp(min=1e-300), lo)
        mid = (lo + hi) / 2
        ok = (cand - lo) * (cand - hi) < 0
        t_new = torch.where(ok, cand, mid)
        done |= (t_new == lo) | (t_new == hi)
        t = torch.where(done, t, t_new)
        if bool(done.all()):
            break
        ft = f(t)
        done |= ft.abs() <= tol
        up = ft >= 0
        flo_new = torch.where(up, ft, torch.where(side == -1, flo / 2, flo))
        fhi_new = torch.where(up, torch.where(side == 1, fhi / 2, fhi), ft)
        lo = torch.where(done | ~up, lo, t)
        hi = torch.where(done | up, hi, t)
        flo = torch.where(done, flo, flo_new)
        fhi = torch.where(done, fhi, fhi_new)
        side = torch.where(up, 1, -1).to(torch.int8)
        if bool(done.all()):
            break
    return t
