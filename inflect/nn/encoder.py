"""The encoder: embeddings of the source symbols and the condition vector, read by a BiLSTM.

Peters, Niculae & Martins (2019, "Sparse Sequence-to-Sequence Models", ACL), section 4 (the
inflection model), on the encoder of Luong, Pham & Manning (2015, EMNLP):

* the source symbols (characters of a lemma, or subwords) are embedded (E each);
* the *condition vector* (D) is the sum of the embeddings of the UniMorph features of the tag
  bundle plus the embedding of the language symbol; both are optional (a translation model has
  neither). The tag bundle is a multiset: :mod:`inflect.nn.batching` sorts its feature ids
  (repeats kept), so the sum is the same bit for bit in every order of the bundle;
* each position reads ``[embedding; condition]`` (E + D), and a bidirectional LSTM of L layers
  (H / 2 per direction, dropout between layers) gives the memory h̄_s (H).

The BiLSTM's weights are an ``nn.LSTM``'s; its recurrence runs in
:func:`inflect.nn.recurrence.bilstm_layer` (equal to ``nn.LSTM`` over a packed sequence, a test
checks it, at a fraction of its cost for short rows).
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor, nn

from inflect.nn.config import ModelConfig
from inflect.nn.recurrence import bilstm_layer

__all__ = ["Encoder", "EncoderOutput"]


class EncoderOutput(NamedTuple):
    """What :meth:`Encoder.forward` computed for B inputs of (padded) length S.

    Attributes:
        memory: float (B, S, H) the encoder outputs h̄_s (0 at padding).
        h, c: float (L, B, H) the final LSTM states per layer, each the concatenation of the
            forward direction's state at the row's last symbol and the backward direction's at
            its first (the decoder's initial states).
        condition: float (B, D) the condition vectors after dropout, or None (D = 0).
    """

    memory: Tensor
    h: Tensor
    c: Tensor
    condition: Tensor | None


class Encoder(nn.Module):
    """Source embeddings and condition vector, then the BiLSTM (see the module docstring).

    Args:
        config: the network's hyperparameters (``hidden_dim``, ``layers``, ``dropout``).
        source_embedding: the source symbols' (vocabulary size, E) embedding.
        feature_embedding: the UniMorph features' (features, D) embedding (PAD row 0), or None.
        language_embedding: the language symbols' (languages, D) embedding, or None.

    The embedding tables come built: the order in which the model builds its tables (source,
    target, features, language) fixes their random initialisation.

    Attributes:
        condition_dim: D (0 without features and language).
        lstm: the ``nn.LSTM`` (E + D inputs, H / 2 per direction, L layers) holding the weights.
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
        self.source_embedding = source_embedding
        self.feature_embedding = feature_embedding
        self.language_embedding = language_embedding
        self.dropout = nn.Dropout(config.dropout)
        L = config.layers
        self.lstm = nn.LSTM(
            source_embedding.embedding_dim + self.condition_dim,
            config.hidden_dim // 2,
            num_layers=L,
            bidirectional=True,
            batch_first=True,
            dropout=config.dropout if L > 1 else 0.0,
        )

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
            mask: bool (B, S), True at real positions.
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
        memory, h, c = self._layers(emb, mask)
        return EncoderOutput(memory, h, c, cond)

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
