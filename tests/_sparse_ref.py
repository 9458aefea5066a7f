"""Independent float64 NumPy references for the inflect.sparse tests (no torch, no inflect).

α-entmax by definition (Peters, Niculae & Martins 2019, eq. 9): p_i = [(α-1) z_i - τ]_+^(1/(α-1))
with τ found by bisection to the end of float64 precision; softmax at α = 1. The Fenchel–Young
loss by its definition L = <p - e_y, z> + (1 - Σ p^α)/(α(α-1)) (Shannon entropy at α = 1).
"""

from __future__ import annotations

import numpy as np


def entmax_ref(z, alpha: float) -> np.ndarray:
    """α-entmax (α >= 1) of a 1-D array; -inf entries get 0; a fully -inf row gives zeros."""
    z = np.asarray(z, dtype=np.float64)
    out = np.zeros_like(z)
    fin = np.isfinite(z)
    if not fin.any():
        return out
    zf = z[fin] - z[fin].max()
    if alpha == 1.0:
        e = np.exp(zf)
        out[fin] = e / e.sum()
        return out
    x = (alpha - 1.0) * zf
    q = 1.0 / (alpha - 1.0)
    lo, hi = -1.0, 0.0  # Σ p(lo) >= 1 (the max alone gives 1), Σ p(hi) = 0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if (np.clip(x - mid, 0, None) ** q).sum() >= 1.0:
            lo = mid
        else:
            hi = mid
    p = np.clip(x - lo, 0, None) ** q
    out[fin] = p / p.sum()
    return out


def fy_loss_ref(z, y: int, alpha: float) -> float:
    """Fenchel–Young loss of logits z (1-D, finite at y) and gold class y."""
    z = np.asarray(z, dtype=np.float64)
    p = entmax_ref(z, alpha)
    nz = p > 0
    zs = z - z[np.isfinite(z)].max()
    inner = float((p[nz] * zs[nz]).sum() - zs[y])
    if alpha == 1.0:
        omega = float(-(p[nz] * np.log(p[nz])).sum())
    else:
        omega = float((1.0 - (p[nz] ** alpha).sum()) / (alpha * (alpha - 1.0)))
    return inner + omega
