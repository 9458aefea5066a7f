"""The attentional LSTM decoder: input feeding, attention, attentional hidden state, generator.

Luong, Pham & Manning (2015, "Effective Approaches to Attention-based Neural Machine Translation",
EMNLP), sections 3 and 3.3, with the sparse attention and output of Peters, Niculae & Martins
(2019, "Sparse Sequence-to-Sequence Models", ACL). At step t, for layer l of L::

    x^0_t = [embedding(y_{t-1}); h̃_{t-1}; condition]      (input feeding)
    x^l_t = dropout(h^{l-1}_t)                              (l > 0)
    h^l_t, c^l_t = LSTM cell(x^l_t, h^l_{t-1}, c^l_{t-1})   (inflect.nn.cell)
    p_t, c_t = attention(h^{L-1}_t, encoder outputs)       (inflect.nn.attention)
    h̃_t = dropout(tanh(W_c [c_t; h^{L-1}_t]))               (attentional hidden state)
    logits_t = W_s h̃_t + b_s  (+ the copy term)             (generator)

:meth:`Decoder.step` is the one implementation of a step: search calls it (through
:meth:`inflect.nn.model.Seq2Seq.step`), and so does teacher forcing with a learned attention α or
the ``mlp`` score. Teacher forcing otherwise takes the private fast path
:func:`inflect.nn.recurrence.decoder_recurrence`, the T steps in one autograd node with a
hand-written backward pass, tested equal to T calls of :meth:`Decoder.step`.

The copy bias (``ModelConfig.copy_bias``, an extension off in the paper's setting) adds
``softplus(w_g h̃_t + b_g) · Σ_s p_ts [y = source symbol s]`` to the logits.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import Tensor, nn

from inflect.nn.attention import Attention
from inflect.nn.cell import lstm_cell
from inflect.nn.config import ModelConfig
from inflect.nn.recurrence import RecurrenceSpec, decoder_recurrence
from inflect.nn.state import DecoderState, EncodedSource, StepWeights
from inflect.sparse import get_mapping

__all__ = ["Decoder"]


class Decoder(nn.Module):
    """Stacked LSTM cells with input feeding, global attention and the generator.

    Args:
        config: the network's hyperparameters (``emb_dim``, ``hidden_dim``, ``layers``, ``dropout``,
            ``attention_score``, ``attention_mapping``, ``learn_attention_alpha``).
        target_embedding: the (V, E) embedding of the target symbols (built by the caller:
            the order in which the model's tables are built fixes their random initialisation).
        condition_dim: D, the size of the condition vector (0 for none).
        source_to_target: int64 (source vocabulary size,) the target id of each source symbol
            (UNK where the target vocabulary lacks it, PAD for PAD) for the copy bias, or None
            without the copy bias.

    Attributes:
        layers: the L ``nn.LSTMCell``; the first reads E + H + D inputs, the others H.
        attention: the :class:`~inflect.nn.attention.Attention`.
        combine: W_c (H, 2H), no bias; generator: (V, H) with bias;
        copy_gate: (1, H) with bias, or None without the copy bias.
        matmul_dtype: dtype of the fused path's per-step products in training (see
            :class:`inflect.nn.recurrence.RecurrenceSpec`); None = the weights' dtype.
    """

    def __init__(
        self,
        config: ModelConfig,
        target_embedding: nn.Embedding,
        condition_dim: int,
        source_to_target: Tensor | None = None,
    ) -> None:
        super().__init__()
        E, H, L = config.emb_dim, config.hidden_dim, config.layers
        self.emb_dim, self.hidden_dim = E, H
        self.target_embedding = target_embedding
        self.dropout = nn.Dropout(config.dropout)
        self.layers = nn.ModuleList(
            nn.LSTMCell((E + H + condition_dim) if i == 0 else H, H) for i in range(L)
        )
        self.attention = Attention(
            H,
            config.attention_score,
            get_mapping(config.attention_mapping),
            config.learn_attention_alpha,
        )
        self.combine = nn.Linear(2 * H, H, bias=False)
        self.generator = nn.Linear(H, target_embedding.num_embeddings)
        self.copy_gate = nn.Linear(H, 1) if source_to_target is not None else None
        if source_to_target is not None:
            self.register_buffer("source_to_target", source_to_target, persistent=False)
        self.matmul_dtype: torch.dtype | None = None

    def _input_weights(self) -> tuple[Tensor, Tensor, Tensor]:
        """The first layer's ``W_ih`` split by its input ``[y_{t-1}; h̃_{t-1}; condition]``:
        (4H, E), (4H, H), (4H, D) views."""
        E, H = self.emb_dim, self.hidden_dim
        w = self.layers[0].weight_ih
        # one split (its backward is one concatenation; three slices would each fill zeros)
        w_emb, w_feed, w_cond = w.split([E, H, w.shape[1] - E - H], dim=1)
        return w_emb, w_feed, w_cond

    def start(
        self,
        memory: Tensor,
        h: Tensor,
        c: Tensor,
        mask: Tensor,
        condition: Tensor | None = None,
        source: Tensor | None = None,
    ) -> DecoderState:
        """The state before the first step, from the encoder's outputs for B inputs (any
        encoder: the decoder reads its memory and its bridge's states, nothing of its layers).

        Args:
            memory: float (B, S, H) encoder outputs h̄_s.
            h, c: float (L, B, H) the initial LSTM states of the decoder's L layers (the
                encoder's bridge, :meth:`inflect.nn.encoder.Encoder.bridge`).
            mask: bool (B, S), True at real source positions.
            condition: float (B, D) condition vectors, or None (D = 0).
            source: int64 (B, S) source symbol ids (needed with the copy bias).

        Returns:
            The :class:`~inflect.nn.state.DecoderState` of B rows (h̃_0 = 0).
        """
        B, H = memory.shape[0], self.hidden_dim
        keys = self.attention.keys(memory)
        feed = memory.new_zeros((B, H))
        first = self.layers[0]
        w_emb, w_feed, w_cond = self._input_weights()
        gate_bias = first.bias_ih + first.bias_hh
        if condition is not None:
            gate_bias = gate_bias + condition @ w_cond.t()
        weights = StepWeights(
            embedding=w_emb,
            layers=[
                torch.cat([w_feed if i == 0 else cell.weight_ih, cell.weight_hh], 1)
                for i, cell in enumerate(self.layers)
            ],
            biases=[cell.bias_ih + cell.bias_hh for cell in self.layers[1:]],
        )
        encoded = EncodedSource(
            memory=memory,
            keys=keys,
            mask=mask,
            gate_bias=gate_bias.expand(B, -1),
            copy_index=None if self.copy_gate is None else self.source_to_target[source],
        )
        return DecoderState(h=h, c=c, feed=feed, source=encoded, weights=weights)

    def step(
        self, state: DecoderState, prev: Tensor | None, input_gates: Tensor | None = None
    ) -> tuple[Tensor, Tensor, DecoderState]:
        """One decoder step for the N rows of ``state`` (the module docstring's equations).

        The first layer's input gates are computed in parts: the condition's and the biases'
        terms come precomputed in ``state.source.gate_bias``; the embedding's term is
        ``input_gates`` where the caller computed it for every step at once (teacher forcing),
        else it is computed here from ``prev`` (a row of ``weights.embedding_gates`` where
        search made that table, in eval mode); the recurrent part is one product with
        ``[W_f | W_hh]``. The generator is left to the caller (:meth:`logits`, once over all
        steps in teacher forcing).

        Args:
            state: the rows' state.
            prev: int64 (N,) the previous output ids, or None with ``input_gates``.
            input_gates: float (N, 4H) ``dropout(embedding(prev)) W_emb^T``, or None.

        Returns:
            h̃ (N, H) after dropout, attention float32 (N, S), the new state.
        """
        w = state.weights
        if input_gates is None:
            if w.embedding_gates is not None and not self.training:
                input_gates = w.embedding_gates.index_select(0, prev)
            else:
                input_gates = self.dropout(self.target_embedding(prev)) @ w.embedding.t()
        x = None
        hs, cs = [], []
        for i, layer in enumerate(w.layers):
            if i == 0:
                x = torch.cat([state.feed, state.h[0]], -1)
                bias = state.per_row(state.source.gate_bias)
                gates = torch.addmm(bias + input_gates, x, layer.t())
            else:
                x = torch.cat([self.dropout(x), state.h[i]], -1)
                gates = torch.addmm(w.biases[i - 1], x, layer.t())
            x, c, _, _ = lstm_cell(gates, state.c[i])
            hs.append(x)
            cs.append(c)
        attn, context = self.attention(x, state)
        feed = torch.tanh(self.combine(torch.cat([context.to(x.dtype), x], dim=-1)))
        feed = self.dropout(feed)
        new = dataclasses.replace(state, h=torch.stack(hs), c=torch.stack(cs), feed=feed)
        return feed, attn, new

    def logits(self, feed: Tensor, attn: Tensor, copy_index: Tensor | None) -> Tensor:
        """Generator logits (float32), plus the copy term with the copy bias.

        Args:
            feed: (..., H) attentional hidden states h̃.
            attn: float32 (..., S) attention rows.
            copy_index: int64 (N, S) target ids of the source symbols, or None.

        Returns:
            float32 (..., V) logits.
        """
        logits = self.generator(feed).float()
        if copy_index is None:
            return logits
        index = copy_index if attn.dim() == 2 else copy_index.unsqueeze(1).expand_as(attn)
        copy = torch.zeros_like(logits).scatter_add_(-1, index, attn.float())
        gate = nn.functional.softplus(self.copy_gate(feed).float())
        return logits + gate * copy

    def forward(self, state: DecoderState, target_in: Tensor) -> tuple[Tensor, Tensor]:
        """Teacher forcing over T steps from :meth:`start`'s state.

        The embedding's part of the first layer's input gates is computed for all T steps in
        one matrix product; the steps then run in the fused recurrence
        (:func:`inflect.nn.recurrence.decoder_recurrence`), except with a learned attention α
        or the ``mlp`` score, which go through :meth:`step` T times.

        Args:
            state: B rows, one per input (``state.rows`` None).
            target_in: int64 (B, T) the previous symbols y_{t-1} (BOS first).

        Returns:
            logits: float32 (B, T, V) before the output mapping;
            attention: float32 (B, T, S).
        """
        emb = self.dropout(self.target_embedding(target_in))
        input_gates = emb @ state.weights.embedding.t()  # (B, T, 4H)
        alpha = self.attention.fixed_alpha
        if alpha is not None and self.attention.score != "mlp":
            feeds, attn = decoder_recurrence(
                RecurrenceSpec(
                    alpha,
                    self.dropout.p if self.training else 0.0,
                    self.matmul_dtype if torch.is_grad_enabled() else None,
                ),
                input_gates,
                state.source.gate_bias,
                state.h,
                state.c,
                state.source.keys,
                state.source.memory,
                state.source.mask,
                self.combine.weight,
                state.weights.layers,
                state.weights.biases,
            )
            return self.logits(feeds, attn, state.source.copy_index), attn
        # step by step (a learned α or the mlp score): autograd through every operation
        feeds, attns = [], []
        # unbind, not input_gates[:, t]: its backward is one stack (T slices would each fill a
        # zero (B, T, 4H) gradient)
        for gates in input_gates.unbind(1):
            feed, attn, state = self.step(state, None, gates)
            feeds.append(feed)
            attns.append(attn)
        attn = torch.stack(attns, dim=1)
        return self.logits(torch.stack(feeds, dim=1), attn, state.source.copy_index), attn
