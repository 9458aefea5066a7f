"""The encoders by name: ``ModelConfig.encoder`` (:data:`inflect.nn.config.ENCODERS`) chooses one,
:func:`build_encoder` builds it. A new encoder is one module with a subclass of
:class:`inflect.nn.encoder.Encoder`, its name in :data:`~inflect.nn.config.ENCODERS` and its class
in :data:`ENCODER_CLASSES`.
"""

from __future__ import annotations

from torch import nn

from inflect.nn.config import ModelConfig
from inflect.nn.encoder import BiLSTMEncoder, Encoder
from inflect.nn.transformer import TransformerEncoder

__all__ = ["ENCODER_CLASSES", "build_encoder"]

#: Each name of :data:`inflect.nn.config.ENCODERS`, and its class (a test checks they agree).
ENCODER_CLASSES: dict[str, type[Encoder]] = {
    "bilstm": BiLSTMEncoder,
    "transformer": TransformerEncoder,
}


def build_encoder(
    config: ModelConfig,
    source_embedding: nn.Embedding,
    feature_embedding: nn.Embedding | None = None,
    language_embedding: nn.Embedding | None = None,
) -> Encoder:
    """The encoder that ``config.encoder`` names, reading the given embedding tables.

    Args:
        config: the network's hyperparameters.
        source_embedding, feature_embedding, language_embedding: as
            :class:`inflect.nn.encoder.Encoder`.

    Raises:
        ValueError: ``config.encoder`` names no encoder (a :class:`ModelConfig` refuses it
            first).
    """
    try:
        cls = ENCODER_CLASSES[config.encoder]
    except KeyError:
        raise ValueError(
            f"unknown encoder {config.encoder!r}; known: {', '.join(ENCODER_CLASSES)}"
        ) from None
    return cls(config, source_embedding, feature_embedding, language_embedding)
