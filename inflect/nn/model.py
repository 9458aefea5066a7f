"""The sparse sequence-to-sequence model: an :class:`Encoder` and a :class:`Decoder`.

Peters, Niculae & Martins, "Sparse Sequence-to-Sequence Models" (ACL 2019), sections 3 and 4: the
attentional encoder-decoder of Luong, Pham & Manning (2015, "Effective Approaches to Attention-based
Neural Machine Translation", EMNLP), with the softmax of the attention (eq. 7 of Luong et al.) and of
the output layer (eq. 6) replaced by α-entmax, and the output trained with the entmax
Fenchel–Young loss (Peters et al. 2019, eq. 9).

* :mod:`inflect.nn.encoder`: embeddings of the source symbols with the *condition vector* (tag
  features and language), read by the encoder that ``ModelConfig.encoder`` names
  (:func:`inflect.nn.encoders.build_encoder`: the paper's BiLSTM, or a transformer), whose bridge
  gives the decoder's initial states.
* :mod:`inflect.nn.decoder`: LSTM cells with input feeding, global attention
  (:mod:`inflect.nn.attention`), the attentional hidden state, the generator; one step
  implementation, and the fused training recurrence (:mod:`inflect.nn.recurrence`) as its
  tested-equal fast path. The LSTM cell's arithmetic is :mod:`inflect.nn.cell`.

Two optional extensions, off in the paper's setting and on in the ``cpu-small`` preset (they help
most with ~1,000 training pairs): the copy bias in the logits (``ModelConfig.copy_bias``) and
autoencoding training items (``TrainConfig.copy_examples``, used by
:mod:`inflect.training.trainer`).

The model is given, and keeps, the network's configuration only
(:class:`~inflect.nn.config.ModelConfig`); a checkpoint stores it in one flat dict with the
training procedure's fields (:meth:`Seq2Seq.metadata`'s ``settings``), which
:meth:`Seq2Seq.from_metadata` leaves aside.

The model implements the *Decodable* protocol that :mod:`inflect.decoding` consumes:
``bos_id``, ``eos_id``, ``pad_id``, ``unk_id``, ``target_size``, :meth:`Seq2Seq.start`,
:meth:`Seq2Seq.step`, :meth:`Seq2Seq.reorder`, :meth:`Seq2Seq.batch_size` and (optional)
:meth:`Seq2Seq.concat_states`. Its weights keep the checkpoint names of :mod:`inflect.nn.layout`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from inflect.nn import layout
from inflect.nn.alphabets import OutputAlphabets
from inflect.nn.batching import IGNORE_INDEX, Batch
from inflect.nn.config import ModelConfig
from inflect.nn.decoder import Decoder
from inflect.nn.encoders import build_encoder
from inflect.nn.lengths import OutputLengths
from inflect.nn.state import DecoderState
from inflect.nn.vocab import (
    BOS_ID,
    EOS_ID,
    PAD,
    PAD_ID,
    UNK_ID,
    Vocab,
)
from inflect.sparse import get_mapping


class Seq2Seq(nn.Module):
    """Attentional encoder-decoder (BiLSTM encoder by default, LSTM decoder) with α-entmax
    attention and output.

    Args:
        config: the network's hyperparameters (:class:`~inflect.nn.config.ModelConfig`; a
            training run's ``Config`` gives it as ``.model``).
        source_vocab: source symbols (reserves PAD, BOS, EOS, UNK).
        target_vocab: target symbols (reserves PAD, BOS, EOS, UNK); may be the same object.
        feature_vocab: UniMorph features of tag bundles (reserves PAD only), or None for a model
            without tags (e.g. translation).
        language_vocab: language names (no reserved symbols), or None for no language symbol.

    Attributes:
        encoder: the :class:`~inflect.nn.encoder.Encoder` that ``config.encoder`` names.
        decoder: the :class:`~inflect.nn.decoder.Decoder`.

    Raises:
        TypeError: ``config`` is not a :class:`~inflect.nn.config.ModelConfig`.
        ValueError: if a vocabulary lacks its reserved symbols.
    """

    def __init__(
        self,
        config: ModelConfig,
        source_vocab: Vocab,
        target_vocab: Vocab,
        feature_vocab: Vocab | None = None,
        language_vocab: Vocab | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(config, ModelConfig):
            raise TypeError(
                f"Seq2Seq takes the network's ModelConfig, not a {type(config).__name__} (a "
                "training Config gives it as config.model)"
            )
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
        #: per language, the target symbols its training pairs use; a search writes no other
        #: (:mod:`inflect.nn.alphabets`); None for a checkpoint without the record or a model
        #: without languages (every symbol). Set by the trainer.
        self.output_alphabets: OutputAlphabets | None = None
        self._alphabet_masks: tuple | None = None  # (record, masks, copy-only, source ids)
        self.output_mapping = get_mapping(config.output_mapping)
        self.output_alpha = self.output_mapping.alpha

        # the tables in this order (it fixes their random initialisation), then the encoder's
        # layers, then the decoder's
        E = config.emb_dim
        D = (config.feature_dim or E) if (feature_vocab or language_vocab) else 0
        source_embedding = nn.Embedding(len(source_vocab), E, padding_idx=PAD_ID)
        target_embedding = nn.Embedding(len(target_vocab), E, padding_idx=PAD_ID)
        feature_embedding = (
            nn.Embedding(len(feature_vocab), D, padding_idx=PAD_ID) if feature_vocab else None
        )
        language_embedding = nn.Embedding(len(language_vocab), D) if language_vocab else None
        self.encoder = build_encoder(config, source_embedding, feature_embedding,
                                     language_embedding)
        self.decoder = Decoder(
            config,
            target_embedding,
            self.encoder.condition_dim,
            self._source_to_target() if config.copy_bias else None,
        )
        #: the checkpoint names of this model's weights (:func:`inflect.nn.layout.checkpoint_names`)
        self.checkpoint_names = layout.checkpoint_names(config.encoder)
        layout.keep_checkpoint_names(self, self.checkpoint_names)

    def _source_to_target(self) -> Tensor:
        """int64 (source vocabulary size,): each source symbol's target id (UNK where the target
        vocabulary lacks it; PAD for PAD), for the copy bias."""
        s2t = [
            self.target_vocab.index(sym) if sym in self.target_vocab else UNK_ID
            for sym in self.source_vocab.symbols
        ]
        s2t[PAD_ID] = PAD_ID
        return torch.tensor(s2t, dtype=torch.long)

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
        return self.decoder.attention.alpha

    @property
    def matmul_dtype(self) -> torch.dtype | None:
        """dtype of the decoder's per-step products in training (see
        :class:`inflect.nn.recurrence.RecurrenceSpec`); set by the trainer, None = float32."""
        return self.decoder.matmul_dtype

    @matmul_dtype.setter
    def matmul_dtype(self, dtype: torch.dtype | None) -> None:
        self.decoder.matmul_dtype = dtype

    @property
    def device(self) -> torch.device:
        return self.decoder.generator.weight.device

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, nn.Parameter]]:
        """The parameters (module paths) in the checkpoint layout's order
        (:func:`inflect.nn.layout.rank`): the order that optimizer states written before the
        encoder/decoder split index, and in which gradient clipping sums the norms."""
        named = list(super().named_parameters(prefix, recurse, remove_duplicate))
        if recurse:
            start = len(prefix) + 1 if prefix else 0
            named.sort(key=lambda item: layout.rank(item[0][start:], self.checkpoint_names))
        return iter(named)

    # ----------------------------------------------------------------------- network
    def encode(self, batch: Batch) -> DecoderState:
        """Run the encoder (its memory, and its bridge's initial decoder states) and build the
        decoder's state.

        Returns:
            The :class:`~inflect.nn.state.DecoderState` for the B examples of ``batch`` (N = B).
        """
        memory, h, c, condition = self.encoder(
            batch.source, batch.source_mask, batch.features, batch.languages
        )
        state = self.decoder.start(memory, h, c, batch.source_mask, condition, batch.source)
        if self.output_alphabets is not None and batch.languages is not None:
            languages = batch.languages.to(self.device)
            masks, copy_only, s2t = self._output_masks()
            state.source.output_mask = masks[languages] if copy_only is None else (
                OutputAlphabets.lemma_masks(masks[languages], copy_only[languages],
                                            batch.source.to(self.device), s2t))
        return state

    def _output_masks(self) -> tuple[Tensor, Tensor | None, Tensor]:
        """bool (L, V) :meth:`OutputAlphabets.mask`, bool (L, V) :meth:`OutputAlphabets.copy_only`
        (or None) and the source-to-target ids, on the model's device, made once per record."""
        cached = self._alphabet_masks
        if cached is None or cached[0] is not self.output_alphabets or cached[1].device != self.device:
            assert self.output_alphabets is not None and self.language_vocab is not None
            masks = self.output_alphabets.mask(self.target_vocab, self.language_vocab)
            copy_only = self.output_alphabets.copy_only(self.target_vocab, self.language_vocab)
            cached = self._alphabet_masks = (
                self.output_alphabets, masks.to(self.device),
                None if copy_only is None else copy_only.to(self.device),
                self._source_to_target().to(self.device))
        return cached[1], cached[2], cached[3]

    def forward(self, batch: Batch, state: DecoderState | None = None) -> tuple[Tensor, Tensor]:
        """Teacher-forced pass (``state``: :meth:`encode` of ``batch`` where the caller has it,
        e.g. to search the same batch without a second encoder pass); see
        :meth:`inflect.nn.decoder.Decoder.forward`.

        Returns:
            logits: float (B, T, V) before the output mapping;
            attention: float32 (B, T, S) attention weights.

        Raises:
            ValueError: if the batch has no targets.
        """
        if batch.target_in is None:
            raise ValueError("forward needs a batch with targets (inflect.nn.batching, targets=...)")
        state = self.encode(batch) if state is None else state
        return self.decoder(state, batch.target_in)

    def loss(self, batch: Batch, state: DecoderState | None = None) -> tuple[Tensor, int]:
        """Summed Fenchel–Young loss of the output mapping over the batch's target symbols
        (``state``: as :meth:`forward`).

        Peters et al. (2019), eq. 9 (cross-entropy when the output α = 1).

        Returns:
            (loss: 0-d float32 tensor, the sum over the tokens; n_tokens: int).
        """
        logits, _ = self.forward(batch, state)
        target = batch.target_out.reshape(-1)
        loss = self.output_mapping.loss(
            logits.float().reshape(-1, logits.shape[-1]),
            target,
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
        """One search step (:meth:`inflect.nn.decoder.Decoder.step`, then the output mapping).

        In eval mode the embedding's part of the first layer's input gates is taken from a
        table of all V target symbols (:attr:`~inflect.nn.state.StepWeights.embedding_gates`),
        made at the first step of an encoded batch when V is at most 64 times its inputs (a
        search then looks up more rows than the table has).

        Args:
            state: N hypotheses' state.
            prev: int64 (N,) previous output ids (BOS at the first step).

        Returns:
            probs: float32 (N, V), the output mapping of the logits (rows sum to 1, exact
            zeros outside the support); attention: float32 (N, S); the new state.

        At the first step (``prev`` BOS) EOS has probability 0: the empty string is never a
        form nor a translation, so the model's first symbol is one of the others (its logit is
        masked before the mapping, as the symbols of other languages are; where the mapping
        already gave EOS 0 there, as a sparse one mostly does, nothing changes).
        """
        w = state.weights
        decoder = self.decoder
        if (
            w.embedding_gates is None
            and not self.training
            and self.target_size <= 64 * len(state.source)
        ):
            w.embedding_gates = decoder.target_embedding.weight @ w.embedding.t()
        feed, attn, new = decoder.step(state, prev.to(self.device))
        copy_index = None if new.source.copy_index is None else new.per_row(new.source.copy_index)
        logits = decoder.logits(feed, attn, copy_index)
        if new.source.output_mask is not None:  # the symbols of other languages: probability 0
            logits = logits.masked_fill(~new.per_row(new.source.output_mask), float("-inf"))
        first = prev.to(self.device) == self.bos_id  # the first symbol is never EOS
        if bool(first.any()):
            eos = torch.zeros_like(logits, dtype=torch.bool)
            eos[:, self.eos_id] = first
            logits = logits.masked_fill(eos, float("-inf"))
        probs = self.output_mapping.forward(logits, dim=-1)
        return probs, attn, new

    def reorder(self, state: DecoderState, index: Tensor) -> DecoderState:
        """Gather hypotheses ``index`` (int64 (M,)) into a new state of M rows (the encoder
        outputs are not copied: the rows point at their inputs)."""
        return state.gather(index)

    def concat_states(self, states: Sequence[DecoderState]) -> DecoderState:
        """Stack the rows of several states (same padded source length S) in list order.

        Optional part of the search protocol: lets :func:`inflect.decoding.enumerate_support`
        expand prefixes from different groups in one :meth:`step` call.

        Raises:
            ValueError: if ``states`` is empty or the states' source lengths differ.
        """
        return DecoderState.concat(states)

    # ----------------------------------------------------------------------- metadata
    def metadata(self, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """JSON-able description from which :meth:`from_metadata` rebuilds the architecture.

        Args:
            settings: the run's other config fields (the training procedure's,
                :class:`inflect.training.config.TrainConfig` as a dict), stored after the
                network's in the one flat ``config`` dict that every checkpoint has had; None:
                the network's fields alone.

        Raises:
            ValueError: ``settings`` names a field of the network.
        """
        config = self.config.to_dict()
        clash = sorted(set(settings or {}) & set(config))
        if clash:
            raise ValueError(f"settings name network fields ({', '.join(clash)}): give them in "
                             "the model's ModelConfig")
        return {
            "config": config | dict(settings or {}),
            "source_vocab": self.source_vocab.to_dict(),
            "target_vocab": self.target_vocab.to_dict(),
            "feature_vocab": self.feature_vocab.to_dict() if self.feature_vocab else None,
            "language_vocab": self.language_vocab.to_dict() if self.language_vocab else None,
            **(
                {"output_lengths": self.output_lengths.to_dict()}
                if self.output_lengths is not None
                else {}
            ),
            **(
                {"output_alphabets": self.output_alphabets.to_dict()}
                if self.output_alphabets is not None
                else {}
            ),
        }

    @classmethod
    def from_metadata(cls, meta: dict[str, Any]) -> Seq2Seq:
        """Build an (untrained) model from :meth:`metadata`'s dict: the network's fields of its
        flat ``config`` (:meth:`ModelConfig.from_flat`; the training procedure's are not read).

        Raises:
            ValueError: an invalid network field or vocabulary.
        """
        fv, lv = meta.get("feature_vocab"), meta.get("language_vocab")
        model = cls(
            ModelConfig.from_flat(meta["config"]),
            Vocab.from_dict(meta["source_vocab"]),
            Vocab.from_dict(meta["target_vocab"]),
            Vocab.from_dict(fv) if fv else None,
            Vocab.from_dict(lv) if lv else None,
        )
        if meta.get("output_lengths") is not None:
            model.output_lengths = OutputLengths.from_dict(meta["output_lengths"])
        if meta.get("output_alphabets") is not None:
            model.output_alphabets = OutputAlphabets.from_dict(meta["output_alphabets"])
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
