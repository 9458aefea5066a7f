"""The configuration of the network: :class:`ModelConfig`, and how a field says when it may change.

Fields and defaults follow Peters, Niculae & Martins (2019, "Sparse Sequence-to-Sequence Models",
ACL), section 5 / appendix. The training procedure's fields (Adam, batches, epochs, seeds) and the
named presets are :mod:`inflect.training.config`'s (``TrainConfig``, ``PRESETS``, and ``Config``,
the two together); the network sees a :class:`ModelConfig` only.

A checkpoint stores the two as one flat dict (``meta["model"]["config"]``, every field of both by
name), as every checkpoint before the split did: :meth:`ModelConfig.from_flat` reads the network's
fields out of it and leaves the others to :mod:`inflect.training`.

Importing this module does not import torch (the mappings are looked up when a config is
checked), so the command line reads its choices and defaults from here at start.

``Config`` and ``PRESETS`` were defined here before the split; importing them from here still
works, with a :class:`DeprecationWarning` naming :mod:`inflect.training.config`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inflect import _moved

__all__ = [
    "ATTENTION_SCORES",
    "CHANGEABLE",
    "COPY_FEATURE",
    "ENCODERS",
    "RESUME",
    "TAG_BUNDLES",
    "WARM_START",
    "ModelConfig",
    "changeable",
    "changeable_fields",
]

#: Attention score functions of Luong et al. (2015), section 3.1.
ATTENTION_SCORES = ("general", "dot", "mlp")
#: The encoders (``ModelConfig.encoder``; :func:`inflect.nn.encoders.build_encoder` builds them):
#: ``"bilstm"``, the paper's (every checkpoint written before the field), and ``"transformer"``
#: (:mod:`inflect.nn.transformer`).
ENCODERS = ("bilstm", "transformer")
#: How a model reads a tag bundle (``ModelConfig.tag_bundles``): ``"multiset"`` (repeats count) or
#: ``"set"`` (repeats dropped; checkpoints written before the field).
TAG_BUNDLES = ("multiset", "set")
#: How a model reads a UniMorph 4 layered feature (``ModelConfig.layered_features``): ``"opaque"``
#: (the feature is one symbol; the default, and every checkpoint written before the field) or
#: ``"parts"`` (one symbol per part, with the layer's name: ``NOM(1,SG)`` -> ``NOM(1)``,
#: ``NOM(SG)``).
LAYERED_FEATURES = ("opaque", "parts")

#: The feature that marks an autoencoding (copy) item (see ``TrainConfig.copy_examples``).
COPY_FEATURE = "<copy>"

#: The occasions on which a run may give a field another value than the model it starts from:
#: a warm start (``inflect train --init-from``: a model checkpoint trained further, a new run)...
WARM_START = "warm start"
#: ... and a resume (``inflect train --resume``: the saved run continued, which must end as the
#: uninterrupted run would have).
RESUME = "resume"
#: Key of a dataclass field's ``metadata``: the occasions (:data:`WARM_START`, :data:`RESUME`)
#: on which the field may change; absent: on none.
CHANGEABLE = "changeable"


def changeable(default: Any, *occasions: str) -> Any:
    """A dataclass field with ``default`` that a run may change on ``occasions``.

    Args:
        default: the field's default (immutable: a number, a string, None).
        occasions: :data:`WARM_START` and/or :data:`RESUME`.

    Returns:
        A :func:`dataclasses.field` whose ``metadata[CHANGEABLE]`` is ``occasions``.

    Raises:
        ValueError: an occasion that is neither.
    """
    unknown = set(occasions) - {WARM_START, RESUME}
    if unknown:
        raise ValueError(f"unknown occasion(s) {sorted(unknown)}; use {WARM_START!r}, {RESUME!r}")
    return dataclasses.field(default=default, metadata={CHANGEABLE: tuple(occasions)})


def changeable_fields(config_class: type, occasion: str) -> frozenset[str]:
    """The fields of dataclass ``config_class`` that may change on ``occasion``.

    Args:
        config_class: a config dataclass (:class:`ModelConfig`, ``TrainConfig``).
        occasion: :data:`WARM_START` or :data:`RESUME`.

    Returns:
        Their names (the fields declared with :func:`changeable` for ``occasion``).
    """
    return frozenset(
        f.name
        for f in dataclasses.fields(config_class)
        if occasion in f.metadata.get(CHANGEABLE, ())
    )


@dataclass
class ModelConfig:
    """The network's hyperparameters, with the paper's defaults: every field the network reads
    to build its parameters, to run forward and to search.

    Defaults follow Peters et al. (2019), section 5 / appendix (OpenNMT-py settings): embeddings
    and hidden states of 300, two layers, dropout 0.3. The fields a warm start may change (they
    shape no parameter) are declared with :func:`changeable`; the others are the checkpoint's.

    Attributes:
        emb_dim: size of the source and target symbol embeddings.
        feature_dim: size of the tag-feature and language embeddings (the condition vector);
            ``None`` means ``emb_dim``.
        hidden_dim: size of the decoder state and of the encoder output (``hidden_dim / 2`` per
            direction of the BiLSTM; the transformer's heads split it); must be even.
        layers: layers of the encoder and LSTM layers of the decoder.
        dropout: dropout on embeddings, between LSTM layers and on the attentional hidden state
            (in training only). A warm start may change it.
        attention_score: ``"general"``, ``"dot"`` or ``"mlp"``.
        attention_mapping: ``"softmax"``, ``"sparsemax"``, ``"entmax15"``, ``"entmax:<α>"`` or a
            number (α), or any other name of :func:`inflect.sparse.get_mapping`.
        output_mapping: same choices; the loss is the Fenchel–Young loss of this mapping.
        learn_attention_alpha: learn the attention α (initialised at ``attention_mapping``'s α,
            kept above 1 as ``1 + softplus(θ)``).
        copy_bias: add a copy term to the logits (an extension, off in the paper's setting):
            ``g_t * sum_{s: x_s = v} a_{t,s}`` for each target symbol v, where a_t is the
            attention row and ``g_t = softplus(w . h̃_t + b) >= 0`` a learned gate, in the
            spirit of pointer-generator networks (See et al. 2017, ACL) but in logit space, so the
            output mapping and its Fenchel–Young loss are unchanged. Source symbols absent from
            the target vocabulary add to UNK (which unknown-word replacement then copies).
        max_decode_len: cap on the output length, in symbols, of every search with the model
            (dev decoding in training, predictions); ``None``: each input's own limit from the
            training data's output lengths (:mod:`inflect.nn.lengths`). A warm start may change
            it.
        tag_bundles: ``"multiset"`` (a repeated feature counts, the default) or ``"set"``
            (repeats dropped: how every checkpoint written before this field read bundles;
            :meth:`from_dict` gives ``"set"`` where the field is missing, so they answer as
            before). A warm start reads bundles as multisets; a resumed run keeps its own.
        encoder: the encoder (:data:`ENCODERS`): ``"bilstm"`` (the paper's; every checkpoint
            written before this field, whose config lacks it) or ``"transformer"``
            (:mod:`inflect.nn.transformer`).
        layered_features: how a UniMorph 4 layered feature of a tag bundle is read
            (:data:`LAYERED_FEATURES`, :func:`inflect.text.layers.feature_symbols`): ``"opaque"``
            (one symbol: the default, and every checkpoint written before this field, which
            :meth:`from_dict` gives where it is missing) or ``"parts"`` (each part a symbol
            with its layer's name, so that ``NOM(1,SG)`` and ``NOM(1,PL)`` share ``NOM(1)``).
            Compared on the same data (recipes/user_language/README.md), neither was more
            accurate beyond a seed's noise, opaque the better on average, hence the default.
            Bundles without layers read the same either way. A resumed run keeps its model's.
    """

    emb_dim: int = 300
    feature_dim: int | None = None
    hidden_dim: int = 300
    layers: int = 2
    dropout: float = changeable(0.3, WARM_START)
    attention_score: str = "general"
    attention_mapping: str = "entmax15"
    output_mapping: str = "entmax15"
    learn_attention_alpha: bool = False
    copy_bias: bool = False
    max_decode_len: int | None = changeable(None, WARM_START)
    tag_bundles: str = changeable("multiset", WARM_START, RESUME)
    encoder: str = "bilstm"
    layered_features: str = changeable("opaque", RESUME)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field.

        Raises:
            ValueError: naming the field and the value that is wrong.
        """
        from inflect.sparse import get_mapping  # torch: not imported by reading the fields

        for name in ("emb_dim", "hidden_dim", "layers"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"config {name} must be a positive integer, got {value!r}")
        if self.hidden_dim % 2:
            raise ValueError(
                f"config hidden_dim must be even (BiLSTM halves, transformer heads), "
                f"got {self.hidden_dim}"
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
                alpha = get_mapping(value).alpha
            except ValueError as exc:
                raise ValueError(f"config {name}: {exc}") from None
            if alpha is not None and alpha < 1.0:
                raise ValueError(f"config {name} needs α >= 1, got {value!r} (α = {alpha})")
        attention_alpha = get_mapping(self.attention_mapping).alpha
        if self.learn_attention_alpha and (attention_alpha is None or attention_alpha <= 1.0):
            raise ValueError("config learn_attention_alpha needs an initial attention α > 1")
        if self.encoder not in ENCODERS:
            raise ValueError(f"config encoder must be one of {ENCODERS}, got {self.encoder!r}")
        if self.layered_features not in LAYERED_FEATURES:
            raise ValueError(f"config layered_features must be one of {LAYERED_FEATURES}, got "
                             f"{self.layered_features!r}")
        if self.tag_bundles not in TAG_BUNDLES:
            raise ValueError(
                f"config tag_bundles must be one of {TAG_BUNDLES}, got {self.tag_bundles!r}"
            )

    @property
    def attention_alpha(self) -> float:
        """The attention mapping's α (:func:`inflect.sparse.mapping_alpha`)."""
        from inflect.sparse import mapping_alpha

        return mapping_alpha(self.attention_mapping)

    @property
    def output_alpha(self) -> float:
        """The output mapping's α (:func:`inflect.sparse.mapping_alpha`)."""
        from inflect.sparse import mapping_alpha

        return mapping_alpha(self.output_mapping)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ModelConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error. A dict without
        ``tag_bundles`` (written before the field existed) is a model that read tag bundles
        as sets: ``tag_bundles="set"``; one without ``encoder`` is a BiLSTM (the default); one
        without ``layered_features`` read layered features as one symbol each (``"opaque"``).

        Raises:
            ValueError: on an unknown key or an invalid value.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(unknown)}")
        return cls(**({"tag_bundles": "set", "layered_features": "opaque"} | dict(d)))

    @classmethod
    def from_flat(cls, flat: Mapping[str, Any]) -> ModelConfig:
        """The network's fields of a checkpoint's flat config (``meta["model"]["config"]``: the
        network's and the training procedure's fields in one dict); the other keys are left to
        :mod:`inflect.training.config`, which checks them. As :meth:`from_dict`, a dict without
        ``tag_bundles`` gives ``"set"``.

        Raises:
            ValueError: on an invalid value of a network field.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        return cls.from_dict({k: v for k, v in flat.items() if k in names})


#: ``Config`` and ``PRESETS``, defined here before the split: looked up in their new module.
__getattr__ = _moved.moved_names(
    __name__, {"Config": "training.config", "PRESETS": "training.config"}
)
