"""The configuration of a model and its training: :class:`Config`, and the named presets.

Fields, defaults and presets follow Peters, Niculae & Martins (2019), section 5 / appendix.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from inflect.sparse import get_mapping, mapping_alpha

#: Attention score functions of Luong et al. (2015), section 3.1.
ATTENTION_SCORES = ("general", "dot", "mlp")
#: How a model reads a tag bundle (``Config.tag_bundles``): ``"multiset"`` (repeats count) or
#: ``"set"`` (repeats dropped; checkpoints written before the field).
TAG_BUNDLES = ("multiset", "set")

#: The feature that marks an autoencoding (copy) item (see ``Config.copy_examples``).
COPY_FEATURE = "<copy>"


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
            number (α), or any other name of :func:`inflect.sparse.get_mapping`.
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
        eval_batch_size: examples per batch in dev evaluation (the dev loss and accuracy do
            not depend on it; 128 is about 30% faster on a CPU than 500, whose (B, S, 4H)
            copies miss the cache).
        seed: seed of every random choice (initialisation, shuffling, dropout).
        dev_sample: model selection on at most this many dev examples per language (a fixed
            sample, :data:`inflect.defaults.DEV_SAMPLE_SEED`); 0 = every dev example.
        language_temperature: how a multilingual epoch mixes languages: each language l
            contributes ``N · n_l^(1/T) / Σ_k n_k^(1/T)`` items (N the training items, n_l the
            language's), its own repeated or cut in a random order; 1 = each item once, as given.
        tag_bundles: ``"multiset"`` (a repeated feature counts, the default) or ``"set"``
            (repeats dropped: how every checkpoint written before this field read bundles;
            :meth:`from_dict` gives ``"set"`` where the field is missing, so they answer as
            before).
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
    eval_batch_size: int = 128
    seed: int = 1
    preset: str | None = None
    dev_sample: int = 0
    language_temperature: float = 1.0
    tag_bundles: str = "multiset"

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
                alpha = get_mapping(value).alpha
            except ValueError as exc:
                raise ValueError(f"config {name}: {exc}") from None
            if alpha is not None and alpha < 1.0:
                raise ValueError(f"config {name} needs α >= 1, got {value!r} (α = {alpha})")
        attention_alpha = get_mapping(self.attention_mapping).alpha
        if self.learn_attention_alpha and (attention_alpha is None or attention_alpha <= 1.0):
            raise ValueError("config learn_attention_alpha needs an initial attention α > 1")
        if self.learning_rate <= 0 or self.max_grad_norm <= 0:
            raise ValueError("config learning_rate and max_grad_norm must be positive")
        if not 0 < self.lr_decay <= 1:
            raise ValueError(f"config lr_decay must be in (0, 1], got {self.lr_decay}")
        if not 0.0 <= self.copy_examples <= 10.0:
            raise ValueError(f"config copy_examples must be in [0, 10], got {self.copy_examples}")
        if self.patience < 1:
            raise ValueError(f"config patience must be >= 1, got {self.patience}")
        if not isinstance(self.dev_sample, int) or self.dev_sample < 0:
            raise ValueError(f"config dev_sample must be an integer >= 0, got {self.dev_sample!r}")
        if self.tag_bundles not in TAG_BUNDLES:
            raise ValueError(
                f"config tag_bundles must be one of {TAG_BUNDLES}, got {self.tag_bundles!r}"
            )
        if not 0.5 <= self.language_temperature <= 100.0:
            raise ValueError(
                f"config language_temperature must be in [0.5, 100], got {self.language_temperature}"
            )

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
        """Inverse of :meth:`to_dict`; unknown keys are an error. A dict without
        ``tag_bundles`` (written before the field existed) is a model that read tag bundles
        as sets: ``tag_bundles="set"``.

        Raises:
            ValueError: on an unknown key or an invalid value.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(unknown)}")
        return cls(**({"tag_bundles": "set"} | dict(d)))

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
#: form, Kann & Schütze 2017) and the copy bias in the logits.
#: ``cpu-small-plain``: ``cpu-small`` without autoencoding items and copy bias, for the high
#: setting's multilingual model (10,000 pairs a language: the extensions cost more than they give
#: at equal CPU time, see the pilot in recipes/sigmorphon2018/README.md), at most 40 epochs,
#: model selection on 100 dev words per language.
#: ``tiny``: a toy size for tests and smoke runs.
_CPU_SMALL_SIZE: dict[str, Any] = {
    "emb_dim": 100,
    "feature_dim": 100,
    "hidden_dim": 200,
    "layers": 1,
    "dropout": 0.3,
    "batch_size": 32,
    "min_learning_rate": 1e-4,
}
PRESETS: dict[str, dict[str, Any]] = {
    "paper": {},
    "cpu-small": {
        **_CPU_SMALL_SIZE,
        "max_epochs": 150,
        "patience": 25,
        "copy_examples": 1.0,
        "copy_bias": True,
    },
    "cpu-small-plain": {**_CPU_SMALL_SIZE, "max_epochs": 40, "patience": 5, "dev_sample": 100},
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
