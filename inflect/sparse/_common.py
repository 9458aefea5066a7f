"""Argument checks, dtype handling and the max-shift shared by every mapping and loss.

Conventions used throughout ``inflect.sparse``:

* every algorithm works on the last dimension; the public functions move ``dim`` there first
  (``torch.movedim``, a view) and back at the end;
* half-precision inputs (float16, bfloat16) are computed in float32 and cast back; float32 and
  float64 are computed in their own precision;
* logits are shifted by their row maximum before anything else (so magnitudes up to the float
  range are fine) and then clamped from below at a value that can never be in the support
  (see :func:`shift_rows`), which turns ``-inf`` (masked positions) into a finite number whose
  probability is exactly zero;
* a row whose logits are all ``-inf`` ("fully masked") gets all-zero probabilities and a zero
  gradient.
"""

from __future__ import annotations

import math
from numbers import Real

import torch

Alpha = float | torch.Tensor

_HALF = (torch.float16, torch.bfloat16)


def check_float(x: torch.Tensor, what: str = "x") -> None:
    """Raise ``ValueError`` unless ``x`` is a floating-point tensor."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{what} must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise ValueError(f"{what} must be a floating-point tensor, got dtype {x.dtype}")


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype the algorithms run in: float32 for float16/bfloat16, else ``dtype`` itself."""
    return torch.float32 if dtype in _HALF else dtype


def check_dim(x: torch.Tensor, dim: int) -> int:
    """Normalise ``dim`` (negative allowed) to ``0 <= dim < x.ndim``; ``ValueError`` if invalid."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise ValueError(f"dim must be an int, got {dim!r}")
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension, got a 0-dim tensor")
    if not -x.ndim <= dim < x.ndim:
        raise ValueError(f"dim={dim} is out of range for a tensor with {x.ndim} dimensions")
    if x.shape[dim] == 0:
        raise ValueError(f"dimension dim={dim} of x has size 0: no distribution to compute")
    return dim % x.ndim


def check_k(k: int | None) -> int | None:
    """Validate the partial-sort size ``k`` (``None`` or an int ``>= 1``)."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValueError(f"k must be None or an int >= 1, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return k


def check_n_iter(n_iter: int | None) -> int | None:
    """Validate the bisection iteration count (``None`` = automatic, or an int ``>= 1``)."""
    if n_iter is None:
        return None
    if isinstance(n_iter, bool) or not isinstance(n_iter, int) or n_iter < 1:
        raise ValueError(f"n_iter must be None or an int >= 1, got {n_iter!r}")
    return n_iter


#: reductions of the losses; ``"elementwise_mean"`` is the ``entmax`` package's name for ``"mean"``
REDUCTIONS = ("none", "sum", "mean", "elementwise_mean")


def check_reduction(reduction: object) -> str:
    """Validate a loss reduction; returns ``"none"``, ``"sum"`` or ``"mean"``.

    ``"elementwise_mean"`` (the ``entmax`` package's name) is the same as ``"mean"``.
    Raises ``ValueError`` for anything else.
    """
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    return "mean" if reduction == "elementwise_mean" else reduction


def check_ignore_index(ignore_index: object) -> int:
    """Validate ``ignore_index``: an int, or an integer tensor with one element (as the
    ``entmax`` package's users write ``ignore_index=y[0]``); returns it as an int.

    Raises ``ValueError`` for anything else (bool, float, a floating or boolean tensor, a tensor
    with more or fewer than one element).
    """
    if isinstance(ignore_index, int) and not isinstance(ignore_index, bool):
        return ignore_index
    if (
        isinstance(ignore_index, torch.Tensor)
        and ignore_index.numel() == 1
        and not ignore_index.is_floating_point()
        and not ignore_index.is_complex()
        and ignore_index.dtype != torch.bool
    ):
        return int(ignore_index.item())
    if isinstance(ignore_index, torch.Tensor):
        got = f"a {ignore_index.dtype} tensor of shape {tuple(ignore_index.shape)}"
    else:
        got = repr(ignore_index)
    raise ValueError(
        f"ignore_index must be an int or an integer tensor with one element, got {got}"
    )


def check_alpha(alpha: object) -> Alpha:
    """Validate α: a real number or a floating-point tensor, every value finite and ``> 0``.

    Returns a Python float for numbers and 1-element tensors that need no gradient, else the
    tensor unchanged. Raises ``ValueError`` otherwise.
    """
    if isinstance(alpha, torch.Tensor):
        if not alpha.is_floating_point():
            raise ValueError(f"alpha must be a floating-point tensor, got dtype {alpha.dtype}")
        with torch.no_grad():
            bad = ~torch.isfinite(alpha) | (alpha <= 0)
            if bool(bad.any()):
                value = alpha[bad].flatten()[0].item()
                raise ValueError(f"alpha must be finite and > 0, got {value}")
        if alpha.numel() == 1 and not alpha.requires_grad:
            return float(alpha.item())
        return alpha
    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise ValueError(f"alpha must be a number or a tensor, got {alpha!r}")
    a = float(alpha)
    if not math.isfinite(a) or a <= 0:
        raise ValueError(f"alpha must be finite and > 0, got {alpha!r}")
    return a


def alpha_rows(alpha: torch.Tensor, x: torch.Tensor, dim: int) -> torch.Tensor:
    """Broadcast a tensor α to ``x.shape`` with ``dim`` reduced to 1, then move ``dim`` last.

    Raises ``ValueError`` when α does not broadcast that way.
    """
    shape = list(x.shape)
    shape[dim] = 1
    try:
        a = alpha.to(compute_dtype(x.dtype)).expand(*shape) if alpha.ndim <= len(shape) else None
    except RuntimeError:
        a = None
    if a is None:
        raise ValueError(
            f"alpha of shape {tuple(alpha.shape)} does not broadcast to {tuple(shape)} "
            f"(x.shape with dim={dim} reduced to 1)"
        )
    return a.movedim(dim, -1)


def shift_rows(
    z: torch.Tensor, scale: float | torch.Tensor = 1.0, floor: float | None = -2.0
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Shift each row (last dim) by its maximum, scale it and clamp it from below.

    Args:
        z: logits ``(..., d)``, float32 or float64, may contain ``-inf``.
        scale: positive factor applied after the shift (``α - 1`` or ``1/2``), a float or a
            tensor broadcasting to ``(..., 1)``.
        floor: lower clamp in the scaled space, or ``None`` for no clamp. Every threshold
            computed in ``inflect.sparse`` lies at or above ``-1`` in the scaled space, so any
            floor below ``-1`` leaves the probabilities unchanged (exact zeros stay exact zeros).

    Returns:
        ``(x, empty)``: the shifted, scaled, clamped rows ``(..., d)`` (max 0, all finite unless
        ``z`` has NaN or ``+inf``) and a boolean ``(..., 1)`` mask of fully ``-inf`` rows, or
        ``None`` when there is none.
    """
    m = z.amax(dim=-1, keepdim=True)
    empty = m == -math.inf
    if bool(empty.any()):
        m = m.masked_fill(empty, 0.0)
    else:
        empty = None
    x = z - m
    if not (isinstance(scale, float) and scale == 1.0):
        x = x * scale
    if floor is not None:
        x = x.clamp_(min=floor)
    return x, empty


def zero_empty_rows(p: torch.Tensor, empty: torch.Tensor | None) -> torch.Tensor:
    """Set the rows flagged in ``empty`` (``(..., 1)`` bool, or ``None``) to zero."""
    if empty is None:
        return p
    return p.masked_fill(empty, 0.0)


#: The α of each named α-entmax (the one table of these names; :mod:`inflect.sparse.mapping`
#: registers them).
ALPHA_BY_NAME: dict[str, float] = {"softmax": 1.0, "sparsemax": 2.0, "entmax15": 1.5}
