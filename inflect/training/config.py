"""The configuration of a training run: :class:`TrainConfig` (the procedure), :class:`Config`
(the network's :class:`~inflect.nn.config.ModelConfig` and the procedure's together) and the
named presets.

Fields, defaults and presets follow Peters, Niculae & Martins (2019, "Sparse Sequence-to-Sequence
Models", ACL), section 5 / appendix. A preset sets fields of both (a size and a schedule), so the
presets live here, with the one class that holds both.

A checkpoint stores a run's config as one flat dict of every field of both by name
(``meta["model"]["config"]``), as every checkpoint written before the split did:
:meth:`Config.to_dict` writes it and :meth:`Config.from_dict` reads it (a dict without
``tag_bundles`` is a model that read bundles as sets, one without a later training field gets
its default).

Which fields a run may change is declared on each field (:func:`inflect.nn.config.changeable`):
a warm start (``--init-from``) every training field and the network fields that shape no
parameter (:data:`WARM_START_FIELDS`); a resume the stopping rule, the preset's name, the dev
batch size and how bundles are read (:data:`RESUME_FIELDS`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inflect import defaults
from inflect.nn.config import (
    RESUME,
    WARM_START,
    ModelConfig,
    changeable,
    changeable_fields,
)

__all__ = [
    "MODEL_FIELDS",
    "PRESETS",
    "RESUME_FIELDS",
    "TRAIN_FIELDS",
    "WARM_START_FIELDS",
    "Config",
    "TrainConfig",
]


@dataclass
class TrainConfig:
    """The training procedure's hyperparameters, with the paper's defaults.

    Defaults follow Peters et al. (2019), section 5 / appendix (OpenNMT-py settings): Adam at
    1e-3, batch 64, gradient norm clipped at 5, learning rate halved whenever the dev loss rises.
    A warm start may change every field; a resume the ones declared so (:data:`RESUME_FIELDS`).

    Attributes:
        learning_rate: Adam step size.
        batch_size: training examples per update.
        max_grad_norm: global gradient-norm clipping threshold.
        lr_decay: factor applied to the learning rate when the dev loss rises.
        min_learning_rate: floor for the decayed learning rate.
        copy_examples: autoencoding augmentation (Kann & Schütze 2017, "Unlabeled Data for
            Morphological Generation With Character-Based Sequence-to-Sequence Models",
            SCLeM): each epoch adds ``copy_examples x len(train)`` items that copy a training
            lemma or form onto itself, marked by the feature
            :data:`~inflect.nn.config.COPY_FEATURE` instead of a tag bundle. 0 (the paper's
            setting) adds none. Not used on dev. A warm start with copy items needs a
            checkpoint whose features have the copy feature.
        hallucinate: data hallucination (Anastasopoulos & Neubig 2019, "Pushing the Limits of
            Low-Resource Morphological Inflection", EMNLP; :mod:`inflect.training.hallucination`):
            each language's training set is brought up to this many pairs with pairs whose stem
            is replaced by random symbols of the language's alphabet, made once from the seed
            (the autoencoding items are drawn from the real pairs only). 0 (the paper's
            setting) adds none. Not used on dev.
        long_pairs: long pairs per language beside the training set
            (:func:`inflect.training.hallucination.lengthen`): a pair whose stem run is
            lengthened by pieces of the language's other lemmas, in the lemma and the form alike,
            up to twice the language's longest lemma inserted, made once from the seed; for long
            new words (compounds) that the data's lemmas are too short to teach. 0 (the paper's
            setting) adds none. Not used on dev.
        max_epochs: maximum number of passes over the training data.
        patience: stop after this many epochs without a better dev accuracy.
        eval_batch_size: examples per batch in dev evaluation (the dev loss and accuracy do
            not depend on it); default :data:`inflect.defaults.EVAL_BATCH_SIZE`.
        seed: seed of every random choice (initialisation, shuffling, dropout).
        preset: the name of the preset the config started from (:data:`PRESETS`), or None.
        dev_sample: model selection on at most this many dev examples per language (a fixed
            sample, :data:`inflect.defaults.DEV_SAMPLE_SEED`); 0 = every dev example.
        language_temperature: how a multilingual epoch mixes languages: each language l
            contributes ``N · n_l^(1/T) / Σ_k n_k^(1/T)`` items (N the training items, n_l the
            language's), its own repeated or cut in a random order; 1 = each item once, as given.
    """

    learning_rate: float = changeable(1e-3, WARM_START)
    batch_size: int = changeable(64, WARM_START)
    max_grad_norm: float = changeable(5.0, WARM_START)
    lr_decay: float = changeable(0.5, WARM_START)
    min_learning_rate: float = changeable(0.0, WARM_START)
    copy_examples: float = changeable(0.0, WARM_START)
    hallucinate: int = changeable(0, WARM_START)
    long_pairs: int = changeable(0, WARM_START)
    max_epochs: int = changeable(30, WARM_START, RESUME)
    patience: int = changeable(10, WARM_START, RESUME)
    eval_batch_size: int = changeable(defaults.EVAL_BATCH_SIZE, WARM_START, RESUME)
    seed: int = changeable(1, WARM_START)
    preset: str | None = changeable(None, WARM_START, RESUME)
    dev_sample: int = changeable(0, WARM_START)
    language_temperature: float = changeable(1.0, WARM_START)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field.

        Raises:
            ValueError: naming the field and the value that is wrong.
        """
        for name in ("batch_size", "max_epochs", "eval_batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"config {name} must be a positive integer, got {value!r}")
        if self.learning_rate <= 0 or self.max_grad_norm <= 0:
            raise ValueError("config learning_rate and max_grad_norm must be positive")
        if not 0 < self.lr_decay <= 1:
            raise ValueError(f"config lr_decay must be in (0, 1], got {self.lr_decay}")
        if not 0.0 <= self.copy_examples <= 10.0:
            raise ValueError(f"config copy_examples must be in [0, 10], got {self.copy_examples}")
        limit = defaults.MAX_HALLUCINATE
        for name in ("hallucinate", "long_pairs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
                raise ValueError(
                    f"config {name} must be an integer in [0, {limit}], got {value!r}"
                )
        if self.patience < 1:
            raise ValueError(f"config patience must be >= 1, got {self.patience}")
        if not isinstance(self.dev_sample, int) or self.dev_sample < 0:
            raise ValueError(f"config dev_sample must be an integer >= 0, got {self.dev_sample!r}")
        if not 0.5 <= self.language_temperature <= 100.0:
            raise ValueError(
                "config language_temperature must be in [0.5, 100], "
                f"got {self.language_temperature}"
            )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TrainConfig:
        """Inverse of :meth:`to_dict`; missing keys take their defaults (fields added since).

        Raises:
            ValueError: on an unknown key or an invalid value.
        """
        unknown = sorted(set(d) - TRAIN_FIELDS)
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(unknown)}")
        return cls(**d)


#: The network's fields (:class:`~inflect.nn.config.ModelConfig`) and the training procedure's
#: (:class:`TrainConfig`): no name is in both.
MODEL_FIELDS = frozenset(f.name for f in dataclasses.fields(ModelConfig))
TRAIN_FIELDS = frozenset(f.name for f in dataclasses.fields(TrainConfig))
#: The fields a warm start (``--init-from``) may give another value than its checkpoint's: every
#: training field, and the network's that shape no parameter (dropout, the search's length cap,
#: how bundles are read). The others describe the checkpoint's network.
WARM_START_FIELDS = changeable_fields(ModelConfig, WARM_START) | changeable_fields(
    TrainConfig, WARM_START
)
#: The fields a resume may give another value than the saved run's: the stopping rule, the
#: preset's name, the dev batch size (the same dev loss and accuracy at any size) and how bundles
#: are read (a run keeps its model's, and a config built now says multiset). A resumed run ends
#: as the uninterrupted one would have, so nothing else may change.
RESUME_FIELDS = changeable_fields(ModelConfig, RESUME) | changeable_fields(TrainConfig, RESUME)


class Config:
    """A run's whole configuration: the network's :class:`~inflect.nn.config.ModelConfig`
    (:attr:`model`, what :class:`~inflect.nn.model.Seq2Seq` is given) and the training
    procedure's :class:`TrainConfig` (:attr:`train`), read and written as one flat set of fields.

    ``Config(emb_dim=100, learning_rate=5e-4)`` gives each field to its part (the others keep
    their defaults); ``Config(model=..., train=...)`` puts two parts together. Every field of
    both reads and writes through the config (``config.learning_rate``, ``config.max_epochs =
    40``), as it did when this was one dataclass of every field.

    Attributes:
        model: the network's fields.
        train: the training procedure's fields.

    Raises:
        TypeError: a keyword that is no field, or fields given with ``model`` / ``train``.
        ValueError: an invalid value (naming the field).
    """

    __slots__ = ("model", "train")
    model: ModelConfig
    train: TrainConfig

    def __init__(
        self,
        model: ModelConfig | None = None,
        train: TrainConfig | None = None,
        **fields: Any,
    ) -> None:
        unknown = sorted(set(fields) - MODEL_FIELDS - TRAIN_FIELDS)
        if unknown:
            raise TypeError(f"Config got unexpected keyword argument(s) {', '.join(unknown)}")
        if fields and (model is not None or train is not None):
            raise TypeError("give Config either model= and train=, or fields, not both")
        if model is None:
            model = ModelConfig(**{k: v for k, v in fields.items() if k in MODEL_FIELDS})
        if train is None:
            train = TrainConfig(**{k: v for k, v in fields.items() if k in TRAIN_FIELDS})
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "train", train)

    def _part(self, name: str) -> ModelConfig | TrainConfig:
        if name in MODEL_FIELDS:
            return self.model
        if name in TRAIN_FIELDS:
            return self.train
        raise AttributeError(f"'Config' object has no attribute {name!r}")

    def __getattr__(self, name: str) -> Any:
        if name in Config.__slots__:  # not set yet (copy, pickle): no field lookup
            raise AttributeError(name)
        part = self.model if name in ("attention_alpha", "output_alpha") else self._part(name)
        return getattr(part, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in Config.__slots__:
            object.__setattr__(self, name, value)
        else:
            setattr(self._part(name), name, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return (self.model, self.train) == (other.model, other.train)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclasses are

    def __repr__(self) -> str:
        return f"Config(model={self.model!r}, train={self.train!r})"

    def __getstate__(self) -> tuple[ModelConfig, TrainConfig]:
        return self.model, self.train

    def __setstate__(self, state: tuple[ModelConfig, TrainConfig]) -> None:
        object.__setattr__(self, "model", state[0])
        object.__setattr__(self, "train", state[1])

    def validate(self) -> None:
        """Check every field of both parts.

        Raises:
            ValueError: naming the field and the value that is wrong.
        """
        self.model.validate()
        self.train.validate()

    def to_dict(self) -> dict[str, Any]:
        """The flat dict of every field (the network's, then the training procedure's), JSON-able:
        what a checkpoint stores as ``meta["model"]["config"]``."""
        return self.model.to_dict() | self.train.to_dict()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Config:
        """Inverse of :meth:`to_dict`: a flat dict of fields of both parts, e.g. the config of
        any checkpoint written before or after the split. Missing keys take their defaults,
        except ``tag_bundles``, which is ``"set"`` where missing (a model written before the
        field read bundles as sets, see :meth:`ModelConfig.from_dict`).

        Raises:
            ValueError: on an unknown key or an invalid value.
        """
        unknown = sorted(set(d) - MODEL_FIELDS - TRAIN_FIELDS)
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(unknown)}")
        return cls(
            ModelConfig.from_flat(d),
            TrainConfig.from_dict({k: v for k, v in d.items() if k in TRAIN_FIELDS}),
        )

    @classmethod
    def from_preset(cls, name: str | None = None, **overrides: Any) -> Config:
        """The config of preset ``name`` (``None``: the paper's defaults) with ``overrides``
        (None values ignored: the preset's).

        Raises:
            ValueError: on an unknown preset (the message lists the known ones).
            TypeError: an override that is no field.
        """
        base: dict[str, Any] = {}
        if name is not None:
            if name not in PRESETS:
                raise ValueError(f"unknown preset {name!r}; known: {', '.join(sorted(PRESETS))}")
            base = dict(PRESETS[name], preset=name)
        base.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**base)


#: Named settings (overrides of the defaults of :class:`~inflect.nn.config.ModelConfig` and
#: :class:`TrainConfig`).
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
