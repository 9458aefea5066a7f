"""The sparse sequence-to-sequence model: BiLSTM encoder, attentional LSTM decoder, generator.

Peters, Niculae & Martins, "Sparse Sequence-to-Sequence Models" (ACL 2019), section 3 and 4: the
attentional encoder-decoder of Luong, Pham & Manning (2015, "Effective Approaches to Attention-based
Neural Machine Translation", EMNLP), with the softmax of the attention (eq. 7 of Luong et al.) and of
the output layer (eq. 6) replaced by α-entmax, and the output trained with the entmax
Fenchel–Young loss (Peters et al. 2019, eq. 9).

* Encoder: embeddings of the source symbols (characters of a lemma, or subwords), concatenated with
  the *condition vector* (below), read by a bidirectional LSTM (``hidden_dim / 2`` per direction).
* Condition vector: the sum of the embeddings of the UniMorph features of the tag bundle plus the
  embedding of the language symbol. The tag bundle is a *set*: its feature ids are sorted before
  summation, so two orders of one bundle give bit-identical outputs. Both are optional (a
  translation model has neither).
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
autoencoding training items (``Config.copy_examples``, used by :mod:`inflect.train`).

The model implements the *Decodable* protocol that :mod:`inflect.search` consumes:
``bos_id``, ``eos_id``, ``pad_id``, ``unk_id``, ``target_size``, :meth:`Seq2Seq.start`,
:meth:`Seq2Seq.step`, :meth:`Seq2Seq.reorder` and :meth:`Seq2Seq.batch_size`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from inflect.sparse import entmax, entmax_loss, mapping_alpha
from inflect.vocab import (
    BOS_ID,
    EOS_ID,
    PAD,
    PAD_ID,
    UNK_ID,
    UnknownSymbolWarning,
    Vocab,
    replace_unknowns,
)

#: Attention score functions of Luong et al. (2015), section 3.1.
ATTENTION_SCORES = ("general", "dot", "mlp")
#: The feature that marks an autoencoding (copy) item (see ``Config.copy_examples``).
COPY_FEATURE = "<copy>"
#: Label index ignored by the loss (as in :class:`torch.nn.CrossEntropyLoss`).
IGNORE_INDEX = -100


@dataclass
class Config:
    """Every hyperparameter of the model and of its training, with the paper's defaults.

    Defaults follow Peters et al. (2019), section 5 / appendix (OpenNMT-py settings): embeddings
    and hidden states of 300, two layers, dropout 0.3, Adam at 1e-3, batch 64, gradient norm
    clipped at 5, learning rate halved whenever the dev loss rises. See :data:`PRESETS` for the
    named smaller settings.

    Attributes:
        emb_dim: size of the source and target symbol embeddings.
        feature_dim: size of the tag-feature and language embeddings (the condition vector);
            ``None`` means ``emb_dim``.
        hidden_dim: size of the decoder state and of the encoder output (``hidden_dim / 2`` per
            direction); must be even.
        layers: LSTM layers in the encoder and in the decoder.
        dropout: dropout on embeddings, between LSTM layers and on the attentional hidden state.
        attention_score: ``"general"``, ``"dot"`` or ``"mlp"``.
        attention_mapping: ``"softmax"``, ``"sparsemax"``, ``"entmax15"``, ``"entmax:<α>"`` or a
            number (α), see :func:`inflect.sparse.mapping_alpha`.
        output_mapping: same choices; the loss is the Fenchel–Young loss of this mapping.
        learn_attention_alpha: learn the attention α (initialised at ``attention_mapping``'s α,
            kept above 1 as ``1 + softplus(θ)``).
        learning_rate: Adam step size.
        batch_size: training examples per update.
        max_grad_norm: global gradient-norm clipping threshold.
        lr_decay: factor applied to the learning rate when the dev loss rises.
        min_learning_rate: floor for the decayed learning rate.
        copy_examples: autoencoding augmentation (Kann & Schütze 2017, "Unlabeled Data for
            Morphological Generation With Character-Based Sequence-to-Sequence Models",
            SCLeM): each epoch adds ``copy_examples x len(train)`` items that copy a training
            lemma or form onto itself, marked by the feature :data:`COPY_FEATURE` instead of a
            tag bundle. 0 (the paper's setting) adds none. Not used on dev.
        copy_bias: add a copy term to the logits (an extension, off in the paper's setting):
            ``g_t * sum_{s: x_s = v} a_{t,s}`` for each target symbol v, where a_t is the
            attention row and ``g_t = softplus(w . h̃_t + b) >= 0`` a learned gate, in the
            spirit of pointer-generator networks (See et al. 2017, ACL) but in logit space, so the
            output mapping and its Fenchel–Young loss are unchanged. Source symbols absent from
            the target vocabulary add to UNK (which unknown-word replacement then copies).
        max_epochs: maximum number of passes over the training data.
        patience: stop after this many epochs without a better dev accuracy.
        max_decode_len: cap on output length for greedy dev decoding (``None``: 2·source + 10).
        eval_batch_size: examples per batch in dev evaluation.
        seed: seed of every random choice (initialisation, shuffling, dropout).
    """

    emb_dim: int = 300
    feature_dim: int | None = None
    hidden_dim: int = 300
    layers: int = 2
    dropout: float = 0.3
    attention_score: str = "general"
    attention_mapping: str = "entmax15"
    output_mapping: str = "entmax15"
    learn_attention_alpha: bool = False
    learning_rate: float = 1e-3
    batch_size: int = 64
    max_grad_norm: float = 5.0
    lr_decay: float = 0.5
    min_learning_rate: float = 0.0
    copy_examples: float = 0.0
    copy_bias: bool = False
    max_epochs: int = 30
    patience: int = 10
    max_decode_len: int | None = None
    eval_batch_size: int = 500
    seed: int = 1
    preset: str | None = None

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field.

        Raises:
            ValueError: naming the field and the value that is wrong.
        """
        for name in (
            "emb_dim",
            "hidden_dim",
            "layers",
            "batch_size",
            "max_epochs",
            "eval_batch_size",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"config {name} must be a positive integer, got {value!r}")
        if self.hidden_dim % 2:
            raise ValueError(
                f"config hidden_dim must be even (BiLSTM halves), got {self.hidden_dim}"
            )
        if self.feature_dim is not None and self.feature_dim < 1:
            raise ValueError(f"config feature_dim must be positive or None, got {self.feature_dim}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"config dropout must be in [0, 1), got {self.dropout}")
        if self.attention_score not in ATTENTION_SCORES:
            raise ValueError(
                f"config attention_score must be one of {ATTENTION_SCORES}, "
                f"got {self.attention_score!r}"
            )
        for name in ("attention_mapping", "output_mapping"):
            value = getattr(self, name)
            try:
                alpha = mapping_alpha(value)
            except ValueError as exc:
                raise ValueError(f"config {name}: {exc}") from None
            if alpha < 1.0:
                raise ValueError(f"config {name} needs α >= 1, got {value!r} (α = {alpha})")
        if self.learn_attention_alpha and mapping_alpha(self.attention_mapping) <= 1.0:
            raise ValueError("config learn_attention_alpha needs an initial attention α > 1")
        if self.learning_rate <= 0 or self.max_grad_norm <= 0:
            raise ValueError("config learning_rate and max_grad_norm must be positive")
        if not 0 < self.lr_decay <= 1:
            raise ValueError(f"config lr_decay must be in (0, 1], got {self.lr_decay}")
        if not 0.0 <= self.copy_examples <= 10.0:
            raise ValueError(f"config copy_examples must be in [0, 10], got {self.copy_examples}")
        if self.patience < 1:
            raise ValueError(f"config patience must be >= 1, got {self.patience}")

    @property
    def attention_alpha(self) -> float:
        return mapping_alpha(self.attention_mapping)

    @property
    def output_alpha(self) -> float:
        return mapping_alpha(self.output_mapping)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Config:
        """Inverse of :meth:`to_dict`; unknown keys are an error.

        Raises:
            ValueError: on an unknown key or an invalid value.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(unknown)}")
        return cls(**d)

    @classmethod
    def from_preset(cls, name: str | None = None, **overrides: Any) -> Config:
        """The config of preset ``name`` (``None``: the paper's defaults) with ``overrides``.

        Raises:
            ValueError: on an unknown preset (the message lists the known ones).
        """
        base: dict[str, Any] = {}
        if name is not None:
            if name not in PRESETS:
                raise ValueError(f"unknown preset {name!r}; known: {', '.join(sorted(PRESETS))}")
            base = dict(PRESETS[name], preset=name)
        base.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**base)


#: Named settings (overrides of :class:`Config`'s defaults).
#: ``paper``: the defaults of Peters et al. (2019).
#: ``cpu-small``: a smaller model for ~1,000 training pairs (SIGMORPHON "medium") that trains in
#: seconds per epoch on one CPU thread: one layer, 100/200 dimensions, many epochs with patience
#: on dev accuracy, batches of 32, dropout on embeddings, autoencoding items (copy a lemma or
#: form, Kann & Schütze 2017) and the copy bias in the logits. German medium, entmax15/entmax15,
#: seed 1, best dev accuracy: 67.0% with neither (run stopped at epoch 29), 73.3% with
#: autoencoding only (stopped at epoch 23), 78.0% with both (early stop at epoch 123).
PRESETS: dict[str, dict[str, Any]] = {
    "paper": {},
    "cpu-small": {
        "emb_dim": 100,
        "feature_dim": 100,
        "hidden_dim": 200,
        "layers": 1,
        "dropout": 0.3,
        "batch_size": 32,
        "max_epochs": 150,
        "patience": 25,
        "min_learning_rate": 1e-4,
        "copy_examples": 1.0,
        "copy_bias": True,
    },
    "tiny": {
        "emb_dim": 32,
        "hidden_dim": 64,
        "layers": 1,
        "dropout": 0.0,
        "batch_size": 16,
        "max_epochs": 60,
        "patience": 60,
        "lr_decay": 1.0,
        "learning_rate": 5e-3,
    },
}


@dataclass
class Batch:
    """An encoded batch of B examples, padded to the longest source S and target T.

    Attributes:
        source: int64 (B, S) source-symbol ids, :data:`~inflect.vocab.PAD_ID` after each end.
        source_mask: bool (B, S), True at real (non-padding) positions.
        source_lengths: int64 (B,) number of real source positions (>= 1).
        features: int64 (B, F) tag-feature ids sorted ascending, padded with 0; or None.
        languages: int64 (B,) language ids; or None.
        target_in: int64 (B, T) decoder inputs (BOS, y_1, ..., y_{n}), padded; or None.
        target_out: int64 (B, T) gold outputs (y_1, ..., y_n, EOS), padded with -100; or None.
        source_symbols: the B source symbol sequences as given (for unknown-word replacement).
    """

    source: Tensor
    source_mask: Tensor
    source_lengths: Tensor
    features: Tensor | None = None
    languages: Tensor | None = None
    target_in: Tensor | None = None
    target_out: Tensor | None = None
    source_symbols: list[list[str]] = field(default_factory=list)

    def __len__(self) -> int:
        return self.source.shape[0]

    def to(self, device: torch.device | str) -> Batch:
        """The same batch with every tensor on ``device``."""
        moved = {
            f.name: (v.to(device) if isinstance(v, Tensor) else v)
            for f in dataclasses.fields(self)
            for v in [getattr(self, f.name)]
        }
        return Batch(**moved)

    def index_select(self, index: Sequence[int]) -> Batch:
        """The sub-batch of rows ``index`` (padding is kept)."""
        idx = torch.as_tensor(list(index), dtype=torch.long, device=self.source.device)
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Tensor):
                out[f.name] = v.index_select(0, idx)
            elif f.name == "source_symbols" and v:
                out[f.name] = [v[i] for i in index]
            else:
                out[f.name] = v
        return Batch(**out)


@dataclass
class DecoderState:
    """The decoder's state for N hypotheses (opaque to search).

    Attributes:
        h, c: float (L, N, H) LSTM states per decoder layer.
        feed: float (N, H) the previous attentional hidden state h̃ (input feeding).
        memory: float (N, S, H) encoder outputs h̄_s.
        keys: float (N, S, H) the memory projected for the score function.
        mask: bool (N, S) real source positions.
        condition: float (N, D) condition vector, or None.
        copy_index: int64 (N, S) target-vocabulary ids of the source symbols (copy bias), or None.
    """

    h: Tensor
    c: Tensor
    feed: Tensor
    memory: Tensor
    keys: Tensor
    mask: Tensor
    condition: Tensor | None
    copy_index: Tensor | None = None


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

    # ----------------------------------------------------------------------- batching
    def make_batch(
        self,
        sources: Sequence[Sequence[str]],
        features: Sequence[Iterable[str]] | None = None,
        languages: Sequence[str] | None = None,
        targets: Sequence[Sequence[str]] | None = None,
        *,
        warn: bool = True,
    ) -> Batch:
        """Encode B examples into a padded :class:`Batch` on the model's device.

        Args:
            sources: B source symbol sequences (e.g. ``spec.to_symbols(lemma)``), each non-empty.
            features: B iterables of UniMorph features (e.g. ``TagBundle.features``); required
                when the model has a feature vocabulary. Features unseen in training are left
                out with a warning.
            languages: B language names; optional when the model knows a single language.
            targets: B target symbol sequences (training / teacher forcing), or None.
            warn: warn about symbols and features unseen in training.

        Returns:
            The batch; unseen source symbols are mapped to UNK with an
            :class:`~inflect.vocab.UnknownSymbolWarning`.

        Raises:
            ValueError: on an empty source, mismatched lengths, missing features, or an unknown
                language (the message lists the known ones).
        """
        B = len(sources)
        if B == 0:
            raise ValueError("cannot make an empty batch")
        for name, seqs in (("features", features), ("languages", languages), ("targets", targets)):
            if seqs is not None and len(seqs) != B:
                raise ValueError(f"{name} has {len(seqs)} items, sources has {B}")
        src_ids = []
        for i, s in enumerate(sources):
            if len(s) == 0:
                raise ValueError(f"source {i} is empty")
            src_ids.append(self.source_vocab.encode(s, warn=warn))
        S = max(len(s) for s in src_ids)
        source = torch.full((B, S), PAD_ID, dtype=torch.long)
        for i, s in enumerate(src_ids):
            source[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        lengths = torch.tensor([len(s) for s in src_ids], dtype=torch.long)
        mask = source != PAD_ID
        batch = Batch(
            source=source,
            source_mask=mask,
            source_lengths=lengths,
            source_symbols=[list(s) for s in sources],
        )

        if self.feature_vocab is not None:
            if features is None:
                raise ValueError("this model needs the tag-bundle features of every example")
            rows = []
            for feats in features:
                ids = []
                for f in feats:
                    if f in self.feature_vocab:
                        ids.append(self.feature_vocab.index(f))
                    elif warn:
                        warnings.warn(
                            f"UniMorph feature {f!r} was not seen in training; it is left out",
                            UnknownSymbolWarning,
                            stacklevel=2,
                        )
                rows.append(sorted(set(ids)))  # a set, in a canonical order
            F = max(1, max(len(r) for r in rows))
            feat = torch.zeros((B, F), dtype=torch.long)
            for i, r in enumerate(rows):
                if r:
                    feat[i, : len(r)] = torch.tensor(r, dtype=torch.long)
            batch.features = feat

        if self.language_vocab is not None:
            if languages is None:
                if len(self.language_vocab) != 1:
                    raise ValueError(
                        "this multilingual model needs the language of every example; known: "
                        + ", ".join(self.language_vocab.symbols)
                    )
                languages = [self.language_vocab.symbols[0]] * B
            ids = []
            for lang in languages:
                if lang not in self.language_vocab:
                    raise ValueError(
                        f"the model was not trained on language {lang!r}; known: "
                        + ", ".join(self.language_vocab.symbols)
                    )
                ids.append(self.language_vocab.index(lang))
            batch.languages = torch.tensor(ids, dtype=torch.long)

        if targets is not None:
            tgt_ids = [self.target_vocab.encode(t, warn=warn) for t in targets]
            T = max(len(t) for t in tgt_ids) + 1
            tin = torch.full((B, T), PAD_ID, dtype=torch.long)
            tout = torch.full((B, T), IGNORE_INDEX, dtype=torch.long)
            for i, t in enumerate(tgt_ids):
                tin[i, : len(t) + 1] = torch.tensor([BOS_ID, *t], dtype=torch.long)
                tout[i, : len(t) + 1] = torch.tensor([*t, EOS_ID], dtype=torch.long)
            batch.target_in, batch.target_out = tin, tout
        return batch.to(self.device)

    @property
    def device(self) -> torch.device:
        return self.generator.weight.device

    def tokens_to_symbols(
        self,
        tokens: Sequence[int],
        attention: Tensor | None = None,
        source_symbols: Sequence[str] | None = None,
    ) -> list[str]:
        """Turn output ids into target symbols, with unknown-word replacement.

        Args:
            tokens: T output ids without BOS/EOS.
            attention: float (T', S) attention rows of those steps (T' >= T), or None.
            source_symbols: the example's source symbols (``batch.source_symbols[i]``).

        Returns:
            T symbols; every UNK replaced by the source symbol of highest attention at its step
            (:func:`inflect.vocab.replace_unknowns`).
        """
        symbols = self.target_vocab.decode(tokens)
        if attention is not None and source_symbols:
            symbols = replace_unknowns(symbols, attention.tolist(), source_symbols)
        return symbols

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
        packed = pack_padded_sequence(
            emb, batch.source_lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        out, (h_n, c_n) = self.encoder(packed)
        memory, _ = pad_packed_sequence(out, batch_first=True, total_length=S)
        L, H = self.config.layers, self.config.hidden_dim

        def bridge(x: Tensor) -> Tensor:  # (2L, B, H/2) -> (L, B, H): concat the directions
            return x.view(L, 2, B, H // 2).transpose(1, 2).reshape(L, B, H)

        # general: W_a h̄_s; mlp: W_m h̄_s + b (the query part is added per step); dot: h̄_s
        keys = memory if self.config.attention_score == "dot" else self.score_proj(memory)
        feed = memory.new_zeros((B, H))
        return DecoderState(
            h=bridge(h_n),
            c=bridge(c_n),
            feed=feed,
            memory=memory,
            keys=keys,
            mask=batch.source_mask,
            condition=cond,
            copy_index=self.source_to_target[batch.source] if self.config.copy_bias else None,
        )

    def _attend(self, query: Tensor, state: DecoderState) -> tuple[Tensor, Tensor]:
        """Global attention: scores, -inf on padding, attention mapping, context vector."""
        if self.config.attention_score == "mlp":
            q = self.score_query(query).unsqueeze(1)  # (N, 1, H)
            scores = self.score_v(torch.tanh(q + state.keys)).squeeze(-1)  # (N, S)
        else:
            scores = torch.bmm(state.keys, query.unsqueeze(-1)).squeeze(-1)  # (N, S)
        scores = scores.float().masked_fill(~state.mask, float("-inf"))
        attn = entmax(scores, self.attention_alpha, dim=-1)
        context = torch.bmm(attn.unsqueeze(1).to(state.memory.dtype), state.memory).squeeze(1)
        return attn, context

    def _decode_step(
        self, state: DecoderState, prev: Tensor
    ) -> tuple[Tensor, Tensor, DecoderState]:
        """One decoder step: returns (h̃ (N, H) after dropout, attention (N, S) float32, state).

        The generator is applied by the caller (once over all steps in :meth:`forward`).
        """
        parts = [self.dropout(self.target_embedding(prev)), state.feed]
        if state.condition is not None:
            parts.append(state.condition)
        x = torch.cat(parts, dim=-1)
        hs, cs = [], []
        for i, cell in enumerate(self.decoder):
            h, c = cell(x, (state.h[i], state.c[i]))
            hs.append(h)
            cs.append(c)
            x = self.dropout(h) if i + 1 < len(self.decoder) else h
        attn, context = self._attend(x, state)
        feed = torch.tanh(self.combine(torch.cat([context.to(x.dtype), x], dim=-1)))
        feed = self.dropout(feed)
        new = DecoderState(
            h=torch.stack(hs),
            c=torch.stack(cs),
            feed=feed,
            memory=state.memory,
            keys=state.keys,
            mask=state.mask,
            condition=state.condition,
            copy_index=state.copy_index,
        )
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

    def forward(self, batch: Batch) -> tuple[Tensor, Tensor]:
        """Teacher-forced pass.

        Returns:
            logits: float (B, T, V) before the output mapping;
            attention: float32 (B, T, S) attention weights.

        Raises:
            ValueError: if the batch has no targets.
        """
        if batch.target_in is None:
            raise ValueError("forward needs a batch with targets (make_batch(..., targets=...))")
        state = self.encode(batch)
        feeds, attns = [], []
        for t in range(batch.target_in.shape[1]):
            feed, attn, state = self._decode_step(state, batch.target_in[:, t])
            feeds.append(feed)
            attns.append(attn)
        attn = torch.stack(attns, dim=1)
        return self._logits(torch.stack(feeds, dim=1), attn, state.copy_index), attn

    def loss(self, batch: Batch) -> tuple[Tensor, int]:
        """Summed Fenchel–Young loss of the output mapping over the batch's target symbols.

        Peters et al. (2019), eq. 9 (cross-entropy when the output α = 1).

        Returns:
            (loss: 0-d float32 tensor, the sum over the tokens; n_tokens: int).
        """
        logits, _ = self.forward(batch)
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

        Args:
            state: N hypotheses' state.
            prev: int64 (N,) previous output ids (BOS at the first step).

        Returns:
            probs: float32 (N, V), the output mapping of the logits (rows sum to 1, exact
            zeros outside the support); attention: float32 (N, S); the new state.
        """
        feed, attn, new = self._decode_step(state, prev.to(self.device))
        probs = entmax(self._logits(feed, attn, new.copy_index), self.output_alpha, dim=-1)
        return probs, attn, new

    def reorder(self, state: DecoderState, index: Tensor) -> DecoderState:
        """Gather hypotheses ``index`` (int64 (M,)) into a new state of M rows."""
        index = index.to(state.feed.device)
        return DecoderState(
            h=state.h.index_select(1, index),
            c=state.c.index_select(1, index),
            feed=state.feed.index_select(0, index),
            memory=state.memory.index_select(0, index),
            keys=state.keys.index_select(0, index),
            mask=state.mask.index_select(0, index),
            condition=None if state.condition is None else state.condition.index_select(0, index),
            copy_index=None
            if state.copy_index is None
            else state.copy_index.index_select(0, index),
        )

    def concat_states(self, states: Sequence[DecoderState]) -> DecoderState:
        """Stack the rows of several states (same padded source length S) in list order.

        Optional part of the search protocol: lets :func:`inflect.search.enumerate_support`
        expand prefixes from different groups in one :meth:`step` call.

        Raises:
            ValueError: if ``states`` is empty or the states' source lengths differ.
        """
        if not states:
            raise ValueError("concat_states needs at least one state")
        lengths = {s.memory.shape[1] for s in states}
        if len(lengths) > 1:
            raise ValueError(f"cannot concatenate states of source lengths {sorted(lengths)}")

        def cat(name: str, dim: int = 0) -> Tensor | None:
            parts = [getattr(s, name) for s in states]
            return None if parts[0] is None else torch.cat(parts, dim=dim)

        return DecoderState(
            h=cat("h", 1),
            c=cat("c", 1),
            feed=cat("feed"),
            memory=cat("memory"),
            keys=cat("keys"),
            mask=cat("mask"),
            condition=cat("condition"),
            copy_index=cat("copy_index"),
        )

    # ----------------------------------------------------------------------- metadata
    def metadata(self) -> dict[str, Any]:
        """JSON-able description from which :meth:`from_metadata` rebuilds the architecture."""
        return {
            "config": self.config.to_dict(),
            "source_vocab": self.source_vocab.to_dict(),
            "target_vocab": self.target_vocab.to_dict(),
            "feature_vocab": self.feature_vocab.to_dict() if self.feature_vocab else None,
            "language_vocab": self.language_vocab.to_dict() if self.language_vocab else None,
        }

    @classmethod
    def from_metadata(cls, meta: dict[str, Any]) -> Seq2Seq:
        """Build an (untrained) model from :meth:`metadata`'s dict."""
        fv, lv = meta.get("feature_vocab"), meta.get("language_vocab")
        return cls(
            Config.from_dict(meta["config"]),
            Vocab.from_dict(meta["source_vocab"]),
            Vocab.from_dict(meta["target_vocab"]),
            Vocab.from_dict(fv) if fv else None,
            Vocab.from_dict(lv) if lv else None,
        )


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """Where a model runs: ``"auto"`` -> CUDA when available, else CPU; otherwise
    ``torch.device(device)`` (``"cpu"``, ``"cuda"``, ``"cuda:1"``, a :class:`torch.device`).

    Raises:
        ValueError: CUDA requested but not available, or a string torch cannot parse.
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except RuntimeError as exc:
        raise ValueError(f"unknown device {device!r} (use auto, cpu, cuda or cuda:N): {exc}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda requested but CUDA is not available")
    return dev
