"""Global attention with a sparse mapping: score functions, then α-entmax over the source.

Luong, Pham & Manning (2015, "Effective Approaches to Attention-based Neural Machine Translation",
EMNLP), section 3.1, for a query h_t (the top decoder layer's state) and the encoder outputs h̄_s
(the memory), scores

* ``general``: h_t^T W_a h̄_s (the default),
* ``dot``: h_t^T h̄_s,
* ``mlp``: v_a^T tanh(W_a [h_t; h̄_s]) (Luong et al.'s ``concat``, with a bias),

then the attention mapping of Peters, Niculae & Martins (2019, "Sparse Sequence-to-Sequence
Models", ACL), section 3: α-entmax (softmax at α = 1, 1.5-entmax, sparsemax at α = 2), α fixed or
learned as ``1 + softplus(θ)``. Padded source positions get a score of -inf before the mapping,
hence exactly zero attention under every mapping. The context vector is Σ_s p_ts h̄_s.

The key side of every score (W_a h̄_s, or the memory itself) is computed once per input
(:meth:`Attention.keys`), not once per step.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from inflect.nn.state import DecoderState
from inflect.sparse import Mapping, entmax

__all__ = ["Attention"]


class Attention(nn.Module):
    """Global attention (see the module docstring).

    Args:
        hidden_dim: H, the size of the queries and of the encoder outputs.
        score: ``"general"``, ``"dot"`` or ``"mlp"``.
        alpha: the mapping's α (>= 1); with ``learn_alpha``, its initial value (> 1).
        learn_alpha: learn α (the parameter ``alpha_raw`` θ, α = 1 + softplus(θ)).

    Attributes:
        key_proj: W_a (``general``: (H, H), no bias; ``mlp``: the memory's columns of W_a and
            the bias), absent with ``dot``.
        query_proj: the query's columns of W_a (``mlp`` only); v: v_a (1, H) (``mlp`` only).
        alpha_raw: θ (0-d), or None for a fixed α.
    """

    def __init__(self, hidden_dim: int, score: str, mapping: Mapping, learn_alpha: bool) -> None:
        super().__init__()
        H = hidden_dim
        self.score = score
        if score == "general":
            self.key_proj = nn.Linear(H, H, bias=False)
        elif score == "mlp":
            self.key_proj = nn.Linear(H, H, bias=True)
            self.query_proj = nn.Linear(H, H, bias=False)
            self.v = nn.Linear(H, 1, bias=False)
        self.mapping = mapping
        if learn_alpha:
            if mapping.alpha is None or mapping.alpha <= 1.0:
                raise ValueError(f"a learned attention α needs an α-entmax > 1, got {mapping.name}")
            self.alpha_raw: nn.Parameter | None = nn.Parameter(
                torch.tensor(math.log(math.expm1(mapping.alpha - 1.0)))
            )
        else:
            self.alpha_raw = None
        self._fixed_alpha = mapping.alpha

    @property
    def alpha(self) -> float | Tensor | None:
        """The α: a float, a 0-d tensor ``1 + softplus(θ)`` when learned, None for a mapping
        that is not an α-entmax."""
        if self.alpha_raw is None:
            return self._fixed_alpha
        return 1.0 + nn.functional.softplus(self.alpha_raw)

    @property
    def fixed_alpha(self) -> float | None:
        """The α where it is fixed, None where it is learned or the mapping has none."""
        return None if self.alpha_raw is not None else self._fixed_alpha

    def keys(self, memory: Tensor) -> Tensor:
        """The key side of the score: float (M, S, H) from the memory (M, S, H).

        ``general``: W_a h̄_s; ``mlp``: the memory's part of W_a [h_t; h̄_s] plus the bias (the
        query's part is added per step); ``dot``: h̄_s itself.
        """
        return memory if self.score == "dot" else self.key_proj(memory)

    def forward(self, query: Tensor, state: DecoderState) -> tuple[Tensor, Tensor]:
        """Scores, -inf on padding, the attention mapping, the context vector.

        With one row per input, the products with the memory are broadcast multiply-and-sum
        rather than ``bmm`` (for (N, S, H) shapes with one query per row, ``bmm`` is about 5x
        slower on the CPU). With the hypotheses of search (``state.rows``), each input's keys
        and memory meet all its rows in one batched product, without a per-row copy.

        Args:
            query: float (N, H) the top decoder layer's states h_t of the N rows.
            state: the rows' state (its source: keys, memory and mask per input).

        Returns:
            attention float32 (N, S) (rows sum to 1, exact zeros at padding); context (N, H).
        """
        source = state.source
        mask = state.per_row(source.mask)
        if self.score == "mlp":
            q = self.query_proj(query).unsqueeze(1)  # (N, 1, H)
            keys = state.per_row(source.keys)
            scores = self.v(torch.tanh(q + keys)).squeeze(-1)  # (N, S)
        elif state.rows is None:
            scores = (source.keys * query.unsqueeze(1)).sum(-1)  # (N, S)
        else:
            scores = _grouped(state, query, source.keys.transpose(1, 2))
        scores = scores.float().masked_fill(~mask, float("-inf"))
        if self.alpha_raw is None:
            attn = self.mapping.forward(scores, dim=-1)
        else:
            attn = entmax(scores, self.alpha, dim=-1)
        if state.rows is None:
            context = (attn.unsqueeze(-1).to(source.memory.dtype) * source.memory).sum(1)
        else:
            context = _grouped(state, attn.to(source.memory.dtype), source.memory)
        return attn, context


def _grouped(state: DecoderState, rows: Tensor, per_input: Tensor) -> Tensor:
    """``rows[n] @ per_input[state.rows[n]]`` for every row n, as one ``bmm`` over the inputs:
    rows (N, K), per_input (M, K, J) -> (N, J)."""
    M, N = per_input.shape[0], rows.shape[0]
    padded = rows.new_zeros((M, state.width, rows.shape[1]))
    padded[state.rows, state.slots] = rows
    return torch.bmm(padded, per_input)[state.rows, state.slots].view(N, -1)
