"""A self-attention encoder: the second encoder of the seam (``ModelConfig.encoder =
"transformer"``), a small alternative to the paper's BiLSTM.

Vaswani et al. (2017, "Attention Is All You Need", NeurIPS), section 3.1 (the encoder) and 3.5
(sinusoidal positions): what each position reads, ``[embedding; condition]`` (E + D,
:class:`inflect.nn.encoder.Encoder`), is projected to H, scaled by √H, the position's sinusoid is
added, and L layers of ``torch.nn.TransformerEncoderLayer`` (:data:`HEADS` heads, a feed-forward
of ``FEEDFORWARD · H``, post-norm, the config's dropout) give the memory, 0 at padding. The
decoder starts from the mean of the memory (:class:`inflect.nn.encoder.MemoryBridge`).

Its weights keep their module paths as checkpoint names (``encoder.input_proj.weight``,
``encoder.layers.layers.0.self_attn.in_proj_weight``, ``encoder.start.proj.weight``, ...): only
the BiLSTM's have the names of the first model (:mod:`inflect.nn.layout`).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from inflect.nn.config import ModelConfig
from inflect.nn.encoder import Encoder, MemoryBridge

__all__ = ["FEEDFORWARD", "HEADS", "TransformerEncoder", "sinusoids"]

#: Attention heads of each layer (H must be a multiple: ``ModelConfig`` keeps H even).
HEADS = 2
#: The feed-forward sublayer's width, in multiples of H.
FEEDFORWARD = 2


def sinusoids(length: int, dim: int, device: torch.device | None = None) -> Tensor:
    """float32 (length, dim) position encodings of Vaswani et al. (2017), section 3.5: column
    2i of position p is ``sin(p / 10000^(2i/dim))``, column 2i + 1 its cosine (``dim`` even)."""
    position = torch.arange(length, dtype=torch.float32, device=device)[:, None]
    rate = torch.exp(
        torch.arange(0, dim, 2, dtype=torch.float32, device=device) * (-math.log(10000.0) / dim)
    )
    table = torch.zeros(length, dim, device=device)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)
    return table


class TransformerEncoder(Encoder):
    """Self-attention layers over ``[embedding; condition]``, started by the mean of the memory
    (see the module docstring).

    Args:
        config: the network's hyperparameters (``hidden_dim``, ``layers``, ``dropout``).
        source_embedding, feature_embedding, language_embedding: as
            :class:`~inflect.nn.encoder.Encoder`.

    Attributes:
        input_proj: (H, E + D) with bias; layers: the ``nn.TransformerEncoder`` of L layers;
        start: the :class:`~inflect.nn.encoder.MemoryBridge`.
    """

    def __init__(
        self,
        config: ModelConfig,
        source_embedding: nn.Embedding,
        feature_embedding: nn.Embedding | None = None,
        language_embedding: nn.Embedding | None = None,
    ) -> None:
        super().__init__(config, source_embedding, feature_embedding, language_embedding)
        H = config.hidden_dim
        self.hidden_dim = H
        self.input_proj = nn.Linear(self.input_dim, H)
        layer = nn.TransformerEncoderLayer(
            H, HEADS, dim_feedforward=FEEDFORWARD * H, dropout=config.dropout, batch_first=True
        )
        self.layers = nn.TransformerEncoder(layer, config.layers, enable_nested_tensor=False)
        self.start = MemoryBridge(H, config.layers)

    def read(self, x: Tensor, mask: Tensor) -> tuple[Tensor, None]:
        """The memory float (B, S, H), 0 at padding; no final states (None)."""
        S = x.shape[1]
        x = self.input_proj(x) * math.sqrt(self.hidden_dim)
        x = x + sinusoids(S, self.hidden_dim, x.device).to(x.dtype)
        memory = self.layers(x, src_key_padding_mask=~mask)
        return memory * mask.unsqueeze(-1).to(memory.dtype), None

    def bridge(self, memory: Tensor, mask: Tensor, final: None) -> tuple[Tensor, Tensor]:
        """:class:`~inflect.nn.encoder.MemoryBridge` of the memory."""
        return self.start(memory, mask)
