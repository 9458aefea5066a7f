"""``entmax(x, alpha)``: pick the exact algorithm for α (names: :mod:`inflect.sparse.mapping`).

α = 1 is softmax, α = 1.5 the exact sort-free / sort-based 1.5-entmax (Peters, Niculae & Martins
2019, Algorithm 2), α = 2 sparsemax (Martins & Astudillo 2016), any other α root finding.
"""

from __future__ import annotations

import torch
from torch import nn

from inflect.sparse import _common as C
from inflect.sparse.activations import entmax15, softmax, sparsemax
from inflect.sparse.root_finding import entmax_bisect


def entmax(x: torch.Tensor, alpha: float | torch.Tensor, dim: int = -1) -> torch.Tensor:
    """α-entmax with the best available algorithm for α.

    Args:
        x: logits of any shape and floating dtype; ``-inf`` = masked (probability exactly 0).
        alpha: a float α > 0 (1 -> :func:`inflect.sparse.softmax`, 1.5 ->
            :func:`inflect.sparse.entmax15`, 2 -> :func:`inflect.sparse.sparsemax`, other values
            -> :func:`inflect.sparse.entmax_bisect`), or a tensor / ``nn.Parameter`` broadcasting
            against ``x`` with ``dim`` reduced to 1 (always root finding, differentiable in α).
        dim: the dimension holding the distribution.

    Returns:
        Probabilities of ``x``'s shape and dtype (all zeros for a fully ``-inf`` row).

    Raises:
        ValueError: α not finite and > 0, or the errors of the chosen mapping.
    """
    alpha = C.check_alpha(alpha)
    if isinstance(alpha, float):
        if alpha == 1.0:
            return softmax(x, dim=dim)
        if alpha == 1.5:
            return entmax15(x, dim=dim)
        if alpha == 2.0:
            return sparsemax(x, dim=dim)
    return entmax_bisect(x, alpha=alpha, dim=dim)


class Entmax(nn.Module):
    """Module form of :func:`entmax`; an ``nn.Parameter`` α is registered (and learned)."""

    def __init__(self, alpha: float | torch.Tensor, dim: int = -1):
        super().__init__()
        C.check_alpha(alpha)
        self.alpha = alpha
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return entmax(x, self.alpha, dim=self.dim)

    def extra_repr(self) -> str:
        a = self.alpha if not isinstance(self.alpha, torch.Tensor) else "tensor"
        return f"alpha={a}, dim={self.dim}"
