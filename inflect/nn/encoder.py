"""The encoders: embeddings of the source symbols and the condition vector, read into a memory.

Peters, Niculae & Martins (2019, "Sparse Sequence-to-Sequence Models", ACL), section 4 (the
inflection model), on the encoder of Luong, Pham & Manning (2015, EMNLP):

* the source symbols (characters of a lemma, or subwords) are embedded (E each);
* the *condition vector* (D) is the sum of the embeddings of the UniMorph features of the tag
  bundle plus the embedding of the language symbol; both are optional (a translation model has
  neither). The tag bundle is a multiset: :mod:`inflect.nn.batching` sorts its feature ids
  (repeats kept), so the sum is the same bit for bit in every order of the bundle;
* each position reads ``[embedding; condition]`` (E + D), and the encoder's layers give the
  memory h̄_s (H) that the decoder attends;
* a *bridge* gives the decoder's initial LSTM states (L, B, H) from what the encoder read.

:class:`Encoder` is the interface and the part every encoder shares (the embeddings, the
condition vector, the bridge's place); an encoder is a subclass with its own :meth:`Encoder.read`
and :meth:`Encoder.bridge`, named in ``ModelConfig.encoder`` and built by
:func:`inflect.nn.encoders.build_encoder`. :class:`BiLSTMEncoder` is the paper's: a bidirectional
LSTM of L layers (H / 2 per direction, dropout between layers) whose bridge is its own final
states. Its weights are an ``nn.LSTM``'s; its recurrence runs in
:func:`inflect.nn.recurrence.bilstm_layer` (equal to ``nn.LSTM`` over a packed sequence, a test
checks it, at a fraction of its cost for short rows). :class:`MemoryBridge` is the bridge of an
encoder without final states (:mod:`inflect.nn.transformer`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch
from torch import Tensor, nn

from inflect.nn.config import ModelConfig
from inflect.nn.recurrence import bilstm_layer

__all__ = ["BiLSTMEncoder", "Encoder", "EncoderOutput", "MemoryBridge"]


class EncoderOutput(NamedTuple):
    """What an encoder computed for B inputs of (padded) length S.

    Attributes:
        memory: float (B, S, H) the encoder outputs h̄_s (0 at padding).
        h, c: float (L, B, H) the decoder's initial LSTM states, one per decoder layer: the
            encoder's bridge (:meth:`Encoder.bridge`).
        condition: float (B, D) the condition vectors after dropout, or None (D = 0).
    """

    memory: Tensor
    h: Tensor
    c: Tensor
    condition: Tensor | None


class Encoder(nn.Module):
    """What every encoder shares: the source embeddings and the condition vector, then the
    subclass's :meth:`read` (the memory) and :meth:`bridge` (the decoder's initial states).

    Args:
        config: the network's hyperparameters (``dropout``; a subclass reads its own).
        source_embedding: the source symbols' (vocabulary size, E) embedding.
        feature_embedding: the UniMorph features' (features, D) embedding (PAD row 0), or None.
        language_embedding: the language symbols' (languages, D) embedding, or None.

    The embedding tables come built: the order in which the model builds its tables (source,
    target, features, language) fixes their random initialisation. They keep their module paths
    (``encoder.source_embedding``, ...) in every encoder, so their checkpoint names are the same
    (:mod:`inflect.nn.layout`).

    Attributes:
        condition_dim: D (0 without features and language).
        input_dim: E + D, the size of what each position reads.
    """

    def __init__(
        self,
        config: ModelConfig,
        source_embedding: nn.Embedding,
        feature_embedding: nn.Embedding | None = None,
        language_embedding: nn.Embedding | None = None,
    ) -> None:
        super().__init__()
        tables = [t for t in (feature_embedding, language_embedding) if t is not None]
        self.condition_dim = tables[0].embedding_dim if tables else 0
        self.input_dim = source_embedding.embedding_dim + self.condition_dim
        self.source_embedding = source_embedding
        self.feature_embedding = feature_embedding
        self.language_embedding = language_embedding
        self.dropout = nn.Dropout(config.dropout)

    def condition(
        self, batch_size: int, features: Tensor | None, languages: Tensor | None
    ) -> Tensor | None:
        """The condition vectors after dropout: float (B, D), or None where D = 0.

        Args:
            batch_size: B.
            features: int64 (B, F) feature ids of the tag bundles (PAD-padded), or None.
            languages: int64 (B,) language ids, or None.
        """
        if not self.condition_dim:
            return None
        weight = self.source_embedding.weight
        cond = torch.zeros(
            (batch_size, self.condition_dim), device=weight.device, dtype=weight.dtype
        )
        if self.feature_embedding is not None and features is not None:
            cond = cond + self.feature_embedding(features).sum(dim=1)
        if self.language_embedding is not None and languages is not None:
            cond = cond + self.language_embedding(languages)
        return self.dropout(cond)

    def forward(
        self,
        source: Tensor,
        mask: Tensor,
        features: Tensor | None = None,
        languages: Tensor | None = None,
    ) -> EncoderOutput:
        """Encode B right-padded inputs.

        Args:
            source: int64 (B, S) source symbol ids (PAD after each row's symbols).
            mask: bool (B, S), True at real positions (every row has at least one).
            features: int64 (B, F) feature ids of the tag bundles, or None.
            languages: int64 (B,) language ids, or None.

        Returns:
            The :class:`EncoderOutput`: memory (B, S, H), h and c (L, B, H), condition (B, D).
        """
        B, S = source.shape
        cond = self.condition(B, features, languages)
        emb = self.dropout(self.source_embedding(source))
        if cond is not None:
            emb = torch.cat([emb, cond.unsqueeze(1).expand(B, S, cond.shape[-1])], dim=-1)
        memory, final = self.read(emb, mask)
        h, c = self.bridge(memory, mask, final)
        return EncoderOutput(memory, h, c, cond)

    def read(self, x: Tensor, mask: Tensor) -> tuple[Tensor, Any]:
        """The encoder's layers over ``x``: float (B, S, E + D) what each position reads (real
        positions where ``mask``, bool (B, S)).

        Returns:
            (memory: float (B, S, H), 0 at padding; whatever :meth:`bridge` needs besides it,
            or None).
        """
        raise NotImplementedError

    def bridge(self, memory: Tensor, mask: Tensor, final: Any) -> tuple[Tensor, Tensor]:
        """The decoder's initial LSTM states from what :meth:`read` returned.

        Returns:
            (h, c): float (L, B, H) each.
        """
        raise NotImplementedError


class BiLSTMEncoder(Encoder):
    """The paper's encoder: a bidirectional LSTM over ``[embedding; condition]``, whose final
    states start the decoder (see the module docstring); ``ModelConfig.encoder = "bilstm"``.

    Args:
        config: the network's hyperparameters (``hidden_dim``, ``layers``, ``dropout``).
        source_embedding, feature_embedding, language_embedding: as :class:`Encoder`.

    Attributes:
        lstm: the ``nn.LSTM`` (E + D inputs, H / 2 per direction, L layers) holding the weights.
    """

    def __init__(
        self,
        config: ModelConfig,
        source_embedding: nn.Embedding,
        feature_embedding: nn.Embedding | None = None,
        language_embedding: nn.Embedding | None = None,
    ) -> None:
        super().__init__(config, source_embedding, feature_embedding, language_embedding)
        L = config.layers
        self.lstm = nn.LSTM(
            self.input_dim,
            config.hidden_dim // 2,
            num_layers=L,
            bidirectional=True,
            batch_first=True,
            dropout=config.dropout if L > 1 else 0.0,
        )

    def read(self, x: Tensor, mask: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """The BiLSTM (:meth:`_layers`): the memory, and the final states (h, c) (L, B, H)."""
        memory, h, c = self._layers(x, mask)
        return memory, (h, c)

    def bridge(
        self, memory: Tensor, mask: Tensor, final: tuple[Tensor, Tensor]
    ) -> tuple[Tensor, Tensor]:
        """The BiLSTM's final states themselves, each the concatenation of the forward
        direction's state at the row's last symbol and the backward direction's at its first
        (Luong et al. 2015; no parameters)."""
        return final

    def _layers(self, x: Tensor, mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """The BiLSTM over ``x`` (B, S, E + D): memory (B, S, H), final h and c (L, B, H).

        Each layer's input terms are one matrix product for all positions and both directions.
        """
        lstm = self.lstm
        hs, cs = [], []
        for layer in range(lstm.num_layers):
            if layer:
                x = nn.functional.dropout(x, lstm.dropout, self.training)
            # nn.LSTM.all_weights: per layer and direction (forward, then backward),
            # [W_ih, W_hh, b_ih, b_hh]
            directions = lstm.all_weights[2 * layer : 2 * layer + 2]
            pre = torch.stack(
                [nn.functional.linear(x, w_ih, b_ih + b_hh) for w_ih, _, b_ih, b_hh in directions]
            )
            w_hh = torch.stack([w for _, w, _, _ in directions])
            out, h, c = bilstm_layer(pre, w_hh, mask)
            x = torch.cat([out[0], out[1]], dim=-1)
            hs.append(torch.cat([h[0], h[1]], dim=-1))
            cs.append(torch.cat([c[0], c[1]], dim=-1))
        return x, torch.stack(hs), torch.stack(cs)


class MemoryBridge(nn.Module):
    """The decoder's initial states from the memory alone, for an encoder without final states:
    the mean of the memory over each row's real positions, m (B, H), then per decoder layer l
    ``h_l = tanh(W_h^l m + b_h^l)`` and ``c_l = W_c^l m + b_c^l`` (one (2LH, H) linear map), as
    the mean-pooled initial state of Bahdanau, Cho & Bengio (2015, ICLR, appendix A.2.2).

    Args:
        hidden_dim: H.
        layers: L, the decoder's layers.
    """

    def __init__(self, hidden_dim: int, layers: int) -> None:
        super().__init__()
        self.layers = layers
        self.proj = nn.Linear(hidden_dim, 2 * layers * hidden_dim)

    def forward(self, memory: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
        """(h, c): float (L, B, H) each, from memory float (B, S, H) (0 at padding) and its
        mask bool (B, S) (at least one real position a row)."""
        B, _, H = memory.shape
        count = mask.sum(dim=1, keepdim=True).to(memory.dtype)
        mean = memory.sum(dim=1) / count
        h, c = self.proj(mean).view(B, 2, self.layers, H).permute(1, 2, 0, 3).unbind(0)
        return torch.tanh(h).contiguous(), c.contiguous()
