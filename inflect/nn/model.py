"""The sparse sequence-to-sequence model: BiLSTM encoder, attentional LSTM decoder, generator.

Peters, Niculae & Martins, "Sparse Sequence-to-Sequence Models" (ACL 2019), section 3 and 4: the
attentional encoder-decoder of Luong, Pham & Manning (2015, "Effective Approaches to Attention-based
Neural Machine Translation", EMNLP), with the softmax of the attention (eq. 7 of Luong et al.) and of
the output layer (eq. 6) replaced by α-entmax, and the output trained with the entmax
Fenchel–Young loss (Peters et al. 2019, eq. 9).

* Encoder: embeddings of the source symbols (characters of a lemma, or subwords), concatenated with
  the *condition vector* (below), read by a bidirectional LSTM (``hidden_dim / 2`` per direction).
* Condition vector: the sum of the embeddings of the UniMorph features of the tag bundle plus the
  embedding of the language symbol. The tag bundle is a *multiset* (``Config.tag_bundles``): its
  feature ids, repeats kept, are sorted before summation, so two orders of one bundle give
  bit-identical outputs and a repeated feature (Albanian pluperfect ``PRF;PRF``) counts twice;
  a checkpoint written before the field existed read bundles as *sets* (repeats dropped) and
  keeps doing so. Both are optional (a translation model has neither).
* Decoder: a stack of LSTM cells with input feeding (Luong et al. 2015, section 3.3): the input at
  step t is ``[embedding(y_{t-1}); h̃_{t-1}; condition]``.
* Global attention (Luong et al. 2015, section 3.1), scores ``general`` (h_t^T W_a h̄_s, the default),
  ``dot`` (h_t^T h̄_s) or ``mlp`` (v_a^T tanh(W_a [h_t; h̄_s])), then the attention mapping
  (softmax, sparsemax, 1.5-entmax or α-entmax, α optionally learned). Padded source positions get a
  score of -inf before the mapping, hence exactly zero attention under every mapping.
* Attentional hidden state h̃_t = tanh(W_c [c_t; h_t]); generator: a linear layer to the target
  vocabulary, then the output mapping.

Two optional extensions, off in the paper's setting and on in the ``cpu-small`` preset (they help
most with ~1,000 training pairs): the copy bias in the logits (``Config.copy_bias``) and
autoencoding training items (``Config.copy_examples``, used by :mod:`inflect.training.trainer`).

The model implements the *Decodable* protocol that :mod:`inflect.decoding` consumes:
``bos_id``, ``eos_id``, ``pad_id``, ``unk_id``, ``target_size``, :meth:`Seq2Seq.start`,
:meth:`Seq2Seq.step`, :meth:`Seq2Seq.reorder` and :meth:`Seq2Seq.batch_size`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from inflect.nn.batching import IGNORE_INDEX, Batch
from inflect.nn.config import Config
from inflect.nn.lengths import OutputLengths
from inflect.nn.recurrence import RecurrenceSpec, bilstm_layer, decoder_recurrence
from inflect.nn.vocab import (
    BOS_ID,
    EOS_ID,
    PAD,
    PAD_ID,
    UNK_ID,
    Vocab,
)
from inflect.sparse import entmax, entmax_loss


@dataclass
class EncodedSource:
    """What the encoder computed for M inputs; shared, never copied, by the hypotheses' rows.

    Attributes:
        memory: float (M, S, H) encoder outputs h̄_s.
        keys: float (M, S, H) the memory projected for the score function.
        mask: bool (M, S) real source positions.
        gate_bias: float (M, 4H) the first decoder layer's input-gate terms that stay the same at
            every step: both LSTM biases plus the condition vector's part of ``W_ih`` (computed
            once in :meth:`Seq2Seq.encode` instead of once per step).
        copy_index: int64 (M, S) target-vocabulary ids of the source symbols (copy bias), or None.
    """

    memory: Tensor
    keys: Tensor
    mask: Tensor
    gate_bias: Tensor
    copy_index: Tensor | None = None

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
            Made by :meth:`Seq2Seq.step` where it pays (see there); None until then.
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


class Seq2Seq(nn.Module):
    """Attentional BiLSTM-LSTM encoder-decoder with α-entmax attention and output.

    Args:
        config: hyperparameters (:class:`Config`).
        source_vocab: source symbols (reserves PAD, BOS, EOS, UNK).
        target_vocab: target symbols (reserves PAD, BOS, EOS, UNK); may be the same object.
        feature_vocab: UniMorph features of tag bundles (reserves PAD only), or None for a model
            without tags (e.g. translation).
        language_vocab: language names (no reserved symbols), or None for no language symbol.

    Raises:
        ValueError: if a vocabulary lacks its reserved symbols.
    """

    def __init__(
        self,
        config: Config,
        source_vocab: Vocab,
        target_vocab: Vocab,
        feature_vocab: Vocab | None = None,
        language_vocab: Vocab | None = None,
    ) -> None:
        super().__init__()
        for v in (source_vocab, target_vocab):
            if len(v.specials) != 4:
                raise ValueError(f"{v.name} vocabulary must reserve PAD, BOS, EOS and UNK")
        if feature_vocab is not None and feature_vocab.specials != (PAD,):
            raise ValueError("feature vocabulary must reserve exactly PAD")
        if language_vocab is not None and language_vocab.specials:
            raise ValueError("language vocabulary must not reserve symbols")
        self.config = config
        self.source_vocab = source_vocab
        self.target_vocab = target_vocab
        self.feature_vocab = feature_vocab
        self.language_vocab = language_vocab
        #: the longest training output per language and source length, from which searches
        #: take each input's output length limit (:mod:`inflect.nn.lengths`); None for a
        #: checkpoint written before the record (the searches then use
        #: :func:`inflect.defaults.fallback_output_length`). Set by the trainer.
        self.output_lengths: OutputLengths | None = None

        E, H, L = config.emb_dim, config.hidden_dim, config.layers
        D = (config.feature_dim or E) if (feature_vocab or language_vocab) else 0
        self.condition_dim = D
        self.dropout = nn.Dropout(config.dropout)
        self.source_embedding = nn.Embedding(len(source_vocab), E, padding_idx=PAD_ID)
        self.target_embedding = nn.Embedding(len(target_vocab), E, padding_idx=PAD_ID)
        self.feature_embedding = (
            nn.Embedding(len(feature_vocab), D, padding_idx=PAD_ID) if feature_vocab else None
        )
        self.language_embedding = nn.Embedding(len(language_vocab), D) if language_vocab else None
        self.encoder = nn.LSTM(
            E + D,
            H // 2,
            num_layers=L,
            bidirectional=True,
            batch_first=True,
            dropout=config.dropout if L > 1 else 0.0,
        )
        self.decoder = nn.ModuleList(nn.LSTMCell((E + H + D) if i == 0 else H, H) for i in range(L))
        if config.attention_score == "general":
            self.score_proj = nn.Linear(H, H, bias=False)
        elif config.attention_score == "mlp":
            self.score_proj = nn.Linear(H, H, bias=True)
            self.score_query = nn.Linear(H, H, bias=False)
            self.score_v = nn.Linear(H, 1, bias=False)
        self.combine = nn.Linear(2 * H, H, bias=False)
        self.generator = nn.Linear(H, len(target_vocab))
        if config.copy_bias:
            self.copy_gate = nn.Linear(H, 1)
            s2t = [
                target_vocab.index(sym) if sym in target_vocab else UNK_ID
                for sym in source_vocab.symbols
            ]
            s2t[PAD_ID] = PAD_ID
            self.register_buffer(
                "source_to_target", torch.tensor(s2t, dtype=torch.long), persistent=False
            )
        self.output_alpha = config.output_alpha
        #: dtype of the decoder's per-step products in training (see
        #: :class:`inflect.nn.recurrence.RecurrenceSpec`); set by the trainer, None = float32.
        self.matmul_dtype: torch.dtype | None = None
        if config.learn_attention_alpha:
            init = config.attention_alpha - 1.0
            self.attention_alpha_raw = nn.Parameter(torch.tensor(math.log(math.expm1(init))))
        else:
            self.attention_alpha_raw = None
            self._fixed_attention_alpha = config.attention_alpha

    # ----------------------------------------------------------------- Decodable attributes
    bos_id: int = BOS_ID
    eos_id: int = EOS_ID
    pad_id: int = PAD_ID
    unk_id: int = UNK_ID

    @property
    def target_size(self) -> int:
        """V, the number of target symbols (reserved ones included)."""
        return len(self.target_vocab)

    @property
    def attention_alpha(self) -> float | Tensor:
        """The attention α: a float, or a 0-d tensor ``1 + softplus(θ)`` when learned."""
        if self.attention_alpha_raw is None:
            return self._fixed_attention_alpha
        return 1.0 + nn.functional.softplus(self.attention_alpha_raw)

    @property
    def device(self) -> torch.device:
        return self.generator.weight.device

    # ----------------------------------------------------------------------- network
    def _condition(self, batch: Batch) -> Tensor | None:
        if not self.condition_dim:
            return None
        cond = torch.zeros(
            (len(batch), self.condition_dim),
            device=self.device,
            dtype=self.generator.weight.dtype,
        )
        if self.feature_embedding is not None and batch.features is not None:
            cond = cond + self.feature_embedding(batch.features).sum(dim=1)
        if self.language_embedding is not None and batch.languages is not None:
            cond = cond + self.language_embedding(batch.languages)
        return self.dropout(cond)

    def encode(self, batch: Batch) -> DecoderState:
        """Run the encoder and build the initial decoder state.

        Returns:
            The :class:`DecoderState` for the B examples of ``batch`` (N = B).
        """
        B, S = batch.source.shape
        cond = self._condition(batch)
        emb = self.dropout(self.source_embedding(batch.source))
        if cond is not None:
            emb = torch.cat([emb, cond.unsqueeze(1).expand(B, S, cond.shape[-1])], dim=-1)
        memory, h_n, c_n = self._encode_layers(emb, batch.source_mask)
        H = self.config.hidden_dim

        # general: W_a h̄_s; mlp: W_m h̄_s + b (the query part is added per step); dot: h̄_s
        keys = memory if self.config.attention_score == "dot" else self.score_proj(memory)
        feed = memory.new_zeros((B, H))
        first = self.decoder[0]
        w_emb, w_feed, w_cond = self._input_weights()
        gate_bias = first.bias_ih + first.bias_hh
        if cond is not None:
            gate_bias = gate_bias + cond @ w_cond.t()
        weights = StepWeights(
            embedding=w_emb,
            layers=[
                torch.cat([w_feed if i == 0 else cell.weight_ih, cell.weight_hh], 1)
                for i, cell in enumerate(self.decoder)
            ],
            biases=[cell.bias_ih + cell.bias_hh for cell in self.decoder[1:]],
        )
        source = EncodedSource(
            memory=memory,
            keys=keys,
            mask=batch.source_mask,
            gate_bias=gate_bias.expand(B, -1),
            copy_index=self.source_to_target[batch.source] if self.config.copy_bias else None,
        )
        return DecoderState(h=h_n, c=c_n, feed=feed, source=source, weights=weights)

    def _encode_layers(self, x: Tensor, mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """The BiLSTM encoder (``self.encoder``'s weights) over right-padded rows.

        Each layer's input terms are one matrix product for all positions and both directions;
        the recurrence runs in :func:`inflect.nn.recurrence.bilstm_layer` (equal to
        ``nn.LSTM`` over a packed sequence, a test checks it, at a fraction of its cost for
        short rows).

        Args:
            x: float (B, S, E + D) embeddings (and condition vectors) of the source symbols.
            mask: bool (B, S) real positions.

        Returns:
            memory float (B, S, H) (0 at padding); final h and c float (L, B, H), each the
            concatenation of the forward direction's state at the row's last symbol and the
            backward direction's at its first.
        """
        enc = self.encoder
        hs, cs = [], []
        for layer in range(self.config.layers):
            if layer:
                x = nn.functional.dropout(x, enc.dropout, self.training)
            names = [f"_l{layer}", f"_l{layer}_reverse"]
            pre = torch.stack(
                [
                    nn.functional.linear(
                        x,
                        getattr(enc, "weight_ih" + n),
                        getattr(enc, "bias_ih" + n) + getattr(enc, "bias_hh" + n),
                    )
                    for n in names
                ]
            )
            w_hh = torch.stack([getattr(enc, "weight_hh" + n) for n in names])
            out, h, c = bilstm_layer(pre, w_hh, mask)
            x = torch.cat([out[0], out[1]], dim=-1)
            hs.append(torch.cat([h[0], h[1]], dim=-1))
            cs.append(torch.cat([c[0], c[1]], dim=-1))
        return x, torch.stack(hs), torch.stack(cs)

    def _input_weights(self) -> tuple[Tensor, Tensor, Tensor]:
        """The first decoder layer's ``W_ih`` split by its input ``[y_{t-1}; h̃_{t-1}; condition]``:
        (4H, E), (4H, H), (4H, D) views."""
        E, H = self.config.emb_dim, self.config.hidden_dim
        w = self.decoder[0].weight_ih
        # one split (its backward is one concatenation; three slices would each fill zeros)
        w_emb, w_feed, w_cond = w.split([E, H, w.shape[1] - E - H], dim=1)
        return w_emb, w_feed, w_cond

    def _attend(self, query: Tensor, state: DecoderState) -> tuple[Tensor, Tensor]:
        """Global attention: scores, -inf on padding, attention mapping, context vector.

        With one row per input, the products with the memory are broadcast multiply-and-sum
        rather than ``bmm`` (for (N, S, H) shapes with one query per row, ``bmm`` is about 5x
        slower on the CPU). With the hypotheses of search (``state.rows``), each input's keys
        and memory meet all its rows in one batched product, without a per-row copy.

        Returns:
            attention float32 (N, S); context (N, H).
        """
        source = state.source
        mask = state.per_row(source.mask)
        if self.config.attention_score == "mlp":
            q = self.score_query(query).unsqueeze(1)  # (N, 1, H)
            keys = state.per_row(source.keys)
            scores = self.score_v(torch.tanh(q + keys)).squeeze(-1)  # (N, S)
        elif state.rows is None:
            scores = (source.keys * query.unsqueeze(1)).sum(-1)  # (N, S)
        else:
            scores = self._grouped(state, query, source.keys.transpose(1, 2))
        scores = scores.float().masked_fill(~mask, float("-inf"))
        attn = entmax(scores, self.attention_alpha, dim=-1)
        if state.rows is None:
            context = (attn.unsqueeze(-1).to(source.memory.dtype) * source.memory).sum(1)
        else:
            context = self._grouped(state, attn.to(source.memory.dtype), source.memory)
        return attn, context

    @staticmethod
    def _grouped(state: DecoderState, rows: Tensor, per_input: Tensor) -> Tensor:
        """``rows[n] @ per_input[state.rows[n]]`` for every row n, as one ``bmm`` over the
        inputs: rows (N, K), per_input (M, K, J) -> (N, J)."""
        M, N = per_input.shape[0], rows.shape[0]
        padded = rows.new_zeros((M, state.width, rows.shape[1]))
        padded[state.rows, state.slots] = rows
        return torch.bmm(padded, per_input)[state.rows, state.slots].view(N, -1)

    @staticmethod
    def _lstm_gates(gates: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
        """LSTM cell nonlinearity from pre-activations (N, 4H) in PyTorch's order i, f, g, o."""
        H = c.shape[-1]
        s = torch.sigmoid(gates)
        c_new = s[:, H : 2 * H] * c + s[:, :H] * torch.tanh(gates[:, 2 * H : 3 * H])
        return s[:, 3 * H :] * torch.tanh(c_new), c_new

    def _decode_step(
        self, state: DecoderState, prev: Tensor | None, input_gates: Tensor | None = None
    ) -> tuple[Tensor, Tensor, DecoderState]:
        """One decoder step: returns (h̃ (N, H) after dropout, attention (N, S) float32, state).

        The first layer is an LSTM cell over ``[embedding(y_{t-1}); h̃_{t-1}; condition]``
        computed in parts: the condition's and the biases' terms come precomputed in
        ``state.source.gate_bias``; the embedding's term is ``input_gates`` (N, 4H) when the
        caller computed it for every step at once (teacher forcing), else it is computed here
        from ``prev`` (int64 (N,)) (a row of ``weights.embedding_gates`` where search made it);
        the recurrent part is one product with ``[W_f | W_hh]``. The generator is applied by the
        caller (once over all steps in :meth:`forward`).
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
            x, c = self._lstm_gates(gates, state.c[i])
            hs.append(x)
            cs.append(c)
        attn, context = self._attend(x, state)
        feed = torch.tanh(self.combine(torch.cat([context.to(x.dtype), x], dim=-1)))
        feed = self.dropout(feed)
        new = dataclasses.replace(state, h=torch.stack(hs), c=torch.stack(cs), feed=feed)
        return feed, attn, new

    def _logits(self, feed: Tensor, attn: Tensor, copy_index: Tensor | None) -> Tensor:
        """Generator logits (float32), plus the copy term when ``copy_bias`` is on.

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

    def forward(self, batch: Batch, state: DecoderState | None = None) -> tuple[Tensor, Tensor]:
        """Teacher-forced pass (``state``: :meth:`encode` of ``batch`` where the caller has it,
        e.g. to search the same batch without a second encoder pass).

        The embedding's part of the first decoder layer's input gates is computed for all T
        steps in one matrix product; the T steps then run as one autograd node with a
        hand-written backward pass (:func:`inflect.nn.recurrence.decoder_recurrence`), except with
        a learned attention α or the ``mlp`` score, which go step by step through
        :meth:`_decode_step`.

        Returns:
            logits: float (B, T, V) before the output mapping;
            attention: float32 (B, T, S) attention weights.

        Raises:
            ValueError: if the batch has no targets.
        """
        if batch.target_in is None:
            raise ValueError("forward needs a batch with targets (inflect.nn.batching, targets=...)")
        state = self.encode(batch) if state is None else state
        emb = self.dropout(self.target_embedding(batch.target_in))
        input_gates = emb @ state.weights.embedding.t()  # (B, T, 4H)
        if self.attention_alpha_raw is None and self.config.attention_score != "mlp":
            feeds, attn = decoder_recurrence(
                RecurrenceSpec(
                    self._fixed_attention_alpha,
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
            return self._logits(feeds, attn, state.source.copy_index), attn
        # step by step (a learned α or the mlp score): autograd through every operation
        feeds, attns = [], []
        # unbind, not input_gates[:, t]: its backward is one stack (T slices would each fill a
        # zero (B, T, 4H) gradient)
        for gates in input_gates.unbind(1):
            feed, attn, state = self._decode_step(state, None, gates)
            feeds.append(feed)
            attns.append(attn)
        attn = torch.stack(attns, dim=1)
        return self._logits(torch.stack(feeds, dim=1), attn, state.source.copy_index), attn

    def loss(self, batch: Batch, state: DecoderState | None = None) -> tuple[Tensor, int]:
        """Summed Fenchel–Young loss of the output mapping over the batch's target symbols
        (``state``: as :meth:`forward`).

        Peters et al. (2019), eq. 9 (cross-entropy when the output α = 1).

        Returns:
            (loss: 0-d float32 tensor, the sum over the tokens; n_tokens: int).
        """
        logits, _ = self.forward(batch, state)
        target = batch.target_out.reshape(-1)
        loss = entmax_loss(
            logits.float().reshape(-1, logits.shape[-1]),
            target,
            self.output_alpha,
            ignore_index=IGNORE_INDEX,
            reduction="sum",
        )
        return loss, int((target != IGNORE_INDEX).sum())

    # ----------------------------------------------------------------------- Decodable
    def batch_size(self, batch: Batch) -> int:
        """B, the number of examples in ``batch``."""
        return len(batch)

    def start(self, batch: Batch) -> DecoderState:
        """Encode ``batch`` for search; switches the model to eval mode (no dropout)."""
        self.eval()
        return self.encode(batch.to(self.device))

    def step(self, state: DecoderState, prev: Tensor) -> tuple[Tensor, Tensor, DecoderState]:
        """One search step.

        In eval mode the embedding's part of the first layer's input gates is taken from a
        table of all V target symbols (:attr:`StepWeights.embedding_gates`), made at the first
        step of an encoded batch when V is at most 64 times its inputs (a search then looks up
        more rows than the table has).

        Args:
            state: N hypotheses' state.
            prev: int64 (N,) previous output ids (BOS at the first step).

        Returns:
            probs: float32 (N, V), the output mapping of the logits (rows sum to 1, exact
            zeros outside the support); attention: float32 (N, S); the new state.
        """
        w = state.weights
        if (
            w.embedding_gates is None
            and not self.training
            and self.target_size <= 64 * len(state.source)
        ):
            w.embedding_gates = self.target_embedding.weight @ w.embedding.t()
        feed, attn, new = self._decode_step(state, prev.to(self.device))
        copy_index = None if new.source.copy_index is None else new.per_row(new.source.copy_index)
        probs = entmax(self._logits(feed, attn, copy_index), self.output_alpha, dim=-1)
        return probs, attn, new

    def reorder(self, state: DecoderState, index: Tensor) -> DecoderState:
        """Gather hypotheses ``index`` (int64 (M,)) into a new state of M rows (the encoder
        outputs are not copied: the rows point at their inputs)."""
        index = index.to(state.feed.device)
        rows = index if state.rows is None else state.rows.index_select(0, index)
        return state.with_rows(
            state.h.index_select(1, index),
            state.c.index_select(1, index),
            state.feed.index_select(0, index),
            rows,
        )

    def concat_states(self, states: Sequence[DecoderState]) -> DecoderState:
        """Stack the rows of several states (same padded source length S) in list order.

        Optional part of the search protocol: lets :func:`inflect.decoding.enumerate_support`
        expand prefixes from different groups in one :meth:`step` call.

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

    # ----------------------------------------------------------------------- metadata
    def metadata(self) -> dict[str, Any]:
        """JSON-able description from which :meth:`from_metadata` rebuilds the architecture."""
        return {
            "config": self.config.to_dict(),
            "source_vocab": self.source_vocab.to_dict(),
            "target_vocab": self.target_vocab.to_dict(),
            "feature_vocab": self.feature_vocab.to_dict() if self.feature_vocab else None,
            "language_vocab": self.language_vocab.to_dict() if self.language_vocab else None,
            **(
                {"output_lengths": self.output_lengths.to_dict()}
                if self.output_lengths is not None
                else {}
            ),
        }

    @classmethod
    def from_metadata(cls, meta: dict[str, Any]) -> Seq2Seq:
        """Build an (untrained) model from :meth:`metadata`'s dict."""
        fv, lv = meta.get("feature_vocab"), meta.get("language_vocab")
        model = cls(
            Config.from_dict(meta["config"]),
            Vocab.from_dict(meta["source_vocab"]),
            Vocab.from_dict(meta["target_vocab"]),
            Vocab.from_dict(fv) if fv else None,
            Vocab.from_dict(lv) if lv else None,
        )
        if meta.get("output_lengths") is not None:
            model.output_lengths = OutputLengths.from_dict(meta["output_lengths"])
        return model


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """Where a model runs: ``"auto"`` -> CUDA when available, else CPU; otherwise
    ``torch.device(device)`` (``"cpu"``, ``"cuda"``, ``"cuda:1"``, a :class:`torch.device`).

    Raises:
        ValueError: CUDA requested but not available, a CUDA index beyond the devices there
            are, a string torch cannot parse, or a device type other than CPU and CUDA (``mps``,
            ``xpu``, ``meta``…: the model's kernels run on those two only).
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except RuntimeError as exc:
        raise ValueError(
            f"unknown device {device!r} (use auto, cpu, cuda or cuda:N): {exc}"
        ) from None
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(
            f"device {str(device)!r} is not supported: sparse-inflect runs on the CPU or on CUDA "
            "(use auto, cpu, cuda or cuda:N)"
        )
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda requested but CUDA is not available")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(
            f"--device {dev} requested but there are {torch.cuda.device_count()} CUDA device(s)"
            " (cuda:0 …)"
        )
    return dev
