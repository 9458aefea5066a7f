"""The decoder's state: what the encoder computed for the inputs, and the hypotheses' LSTM states.

:class:`DecoderState` is what :meth:`inflect.nn.decoder.Decoder.start` makes from the encoder's
outputs and what :meth:`inflect.nn.decoder.Decoder.step` advances; to search
(:mod:`inflect.decoding.search`) it is opaque, handed back to the model's ``step``, ``reorder``
and ``concat_states``. Its rows are hypotheses; the per-input tensors (:class:`EncodedSource`)
are kept once per input and never copied per hypothesis.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

__all__ = ["DecoderState", "EncodedSource", "StepWeights"]


@dataclass
class EncodedSource:
    """What the encoder computed for M inputs; shared, never copied, by the hypotheses' rows.

    Attributes:
        memory: float (M, S, H) encoder outputs h̄_s.
        keys: float (M, S, H) the memory projected for the score function.
        mask: bool (M, S) real source positions.
        gate_bias: float (M, 4H) the first decoder layer's input-gate terms that stay the same at
            every step: both LSTM biases plus the condition vector's part of ``W_ih`` (computed
            once in :meth:`inflect.nn.decoder.Decoder.start` instead of once per step).
        copy_index: int64 (M, S) target-vocabulary ids of the source symbols (copy bias), or None.
        output_mask: bool (M, V) the target symbols each input's language may write
            (:mod:`inflect.nn.alphabets`), or None (every symbol).
    """

    memory: Tensor
    keys: Tensor
    mask: Tensor
    gate_bias: Tensor
    copy_index: Tensor | None = None
    output_mask: Tensor | None = None

    def __len__(self) -> int:
        return self.memory.shape[0]

    def select(self, index: Tensor) -> EncodedSource:
        """The inputs ``index`` (int64 (M',)), in that order."""
        return EncodedSource(
            **{
                f.name: None if v is None else v.index_select(0, index)
                for f in dataclasses.fields(self)
                for v in [getattr(self, f.name)]
            }
        )


@dataclass
class StepWeights:
    """The decoder's per-step matrices, assembled once per encoded batch (not once per step).

    Attributes:
        embedding: float (4H, E), the target embedding's columns of the first layer's ``W_ih``.
        layers: per decoder layer, ``[W_f | W_hh]`` (4H, 2H) (first layer: the input feeding's
            columns of ``W_ih`` beside ``W_hh``) or ``[W_ih | W_hh]`` (the others).
        biases: per layer above the first, ``b_ih + b_hh`` (4H,); the first layer's are in
            ``EncodedSource.gate_bias``.
        embedding_gates: float (V, 4H), ``embedding @ W_emb^T`` for every target symbol: in
            search (no dropout) a step's embedding term is then a row look-up, not a product.
            Made by :meth:`inflect.nn.model.Seq2Seq.step` where it pays (see there); None until then.
    """

    embedding: Tensor
    layers: list[Tensor]
    biases: list[Tensor]
    embedding_gates: Tensor | None = None


@dataclass
class DecoderState:
    """The decoder's state for N hypotheses (opaque to search).

    Row n is a hypothesis of input ``rows[n]`` of ``source``; the encoder outputs are kept once
    per input and never copied per hypothesis. Attention then runs per input over its
    hypotheses, as one batched product of (M, G, H) queries (G = ``width``, the most rows of one
    input; ``slots[n]`` is row n's place among its input's rows) with the (M, S, H) keys.

    Attributes:
        h, c: float (L, N, H) LSTM states per decoder layer.
        feed: float (N, H) the previous attentional hidden state h̃ (input feeding).
        source: the :class:`EncodedSource` of the inputs.
        weights: the :class:`StepWeights`.
        rows: int64 (N,) the input of each row; None when row n is input n (N = M).
        slots: int64 (N,) each row's place among its input's rows; None with ``rows``.
        width: G, the largest number of rows of one input.
    """

    h: Tensor
    c: Tensor
    feed: Tensor
    source: EncodedSource
    weights: StepWeights
    rows: Tensor | None = None
    slots: Tensor | None = None
    width: int = 1

    def per_row(self, per_input: Tensor) -> Tensor:
        """A per-input tensor (M, ...) gathered to the N rows."""
        return per_input if self.rows is None else per_input.index_select(0, self.rows)

    def with_rows(self, h: Tensor, c: Tensor, feed: Tensor, rows: Tensor) -> DecoderState:
        """A state of rows ``rows`` (int64 (N,), inputs of ``source``) with these LSTM states.

        Where fewer than half of the inputs still have a row, ``source`` is cut to them.
        """
        source = self.source
        counts = torch.bincount(rows, minlength=len(source))
        present = counts > 0
        n_present = int(present.sum())
        if n_present < len(source) // 2:
            keep = present.nonzero().squeeze(1)
            rows = (present.cumsum(0) - 1).index_select(0, rows)
            source, counts = source.select(keep), counts.index_select(0, keep)
        order = torch.argsort(rows, stable=True)
        starts = counts.cumsum(0) - counts
        slots = torch.empty_like(rows)
        slots[order] = torch.arange(rows.numel(), device=rows.device) - starts[rows[order]]
        width = int(counts.max()) if rows.numel() else 1
        return DecoderState(h, c, feed, source, self.weights, rows, slots, width)

    def gather(self, index: Tensor) -> DecoderState:
        """The rows ``index`` (int64 (N',)), in that order (the encoder outputs are not copied:
        the rows point at their inputs)."""
        index = index.to(self.feed.device)
        rows = index if self.rows is None else self.rows.index_select(0, index)
        return self.with_rows(
            self.h.index_select(1, index),
            self.c.index_select(1, index),
            self.feed.index_select(0, index),
            rows,
        )

    @staticmethod
    def concat(states: Sequence[DecoderState]) -> DecoderState:
        """The rows of several states (same padded source length S), in list order.

        Raises:
            ValueError: if ``states`` is empty or the states' source lengths differ.
        """
        if not states:
            raise ValueError("concat_states needs at least one state")
        lengths = {s.source.memory.shape[1] for s in states}
        if len(lengths) > 1:
            raise ValueError(f"cannot concatenate states of source lengths {sorted(lengths)}")
        h = torch.cat([s.h for s in states], 1)
        c = torch.cat([s.c for s in states], 1)
        feed = torch.cat([s.feed for s in states], 0)
        first = states[0]
        if all(s.source is first.source for s in states):
            rows = [
                s.rows if s.rows is not None else torch.arange(len(s.source), device=s.feed.device)
                for s in states
            ]
            return first.with_rows(h, c, feed, torch.cat(rows))
        # different (cut) sources: one source row per hypothesis
        parts = [s.source if s.rows is None else s.source.select(s.rows) for s in states]
        source = EncodedSource(
            **{
                f.name: None
                if getattr(first.source, f.name) is None
                else torch.cat([getattr(p, f.name) for p in parts])
                for f in dataclasses.fields(EncodedSource)
            }
        )
        return DecoderState(h, c, feed, source, first.weights)
