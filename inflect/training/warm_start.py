"""A run's first model: fresh weights over the training items' vocabularies, or a warm start
from a model checkpoint (``--init-from``: its network and vocabularies, trained further).

A warm start reads the checkpoint's weights (:func:`warm_start_model`); the config of such a run
(:func:`initial_config`) comes from the checkpoint's metadata alone. What a warm start may change
is declared on the config's fields (:data:`inflect.training.config.WARM_START_FIELDS`): every
training field, and the network's that shape no parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from inflect.io.atomic import sha256_of
from inflect.nn import checkpoint as ckpt
from inflect.nn.batching import Vocabularies, model_features
from inflect.nn.config import COPY_FEATURE
from inflect.nn.model import Seq2Seq
from inflect.nn.vocab import PAD, Vocab
from inflect.training.config import PRESETS, WARM_START_FIELDS, Config
from inflect.training.items import Item

__all__ = [
    "TRAINING_FIELDS",
    "build_model",
    "initial_config",
    "warm_start_model",
    "warm_start_record",
]

#: Config fields a warm start (``--init-from``) may change: every field of
#: :class:`~inflect.training.config.TrainConfig` and the network's that shape no parameter, as
#: the fields declare (:data:`inflect.training.config.WARM_START_FIELDS`). The others describe
#: the network and must be the initial model's.
TRAINING_FIELDS = WARM_START_FIELDS


def build_model(config: Config, items: Sequence[Item], shared_vocab: bool = True) -> Seq2Seq:
    """A fresh model whose vocabularies cover ``items``.

    Args:
        config: the run's config: the network is built from ``config.model``; ``config.train``
            gives the seed and whether there are copy items (their feature is then in the
            feature vocabulary).
        items: the training items.
        shared_vocab: one symbol vocabulary for source and target (inflection: the lemma's and
            the form's characters); False: a source vocabulary of the sources' symbols and a
            target vocabulary of the targets' symbols only (translation: the output layer and
            its mapping range over target-language subwords only).

    The feature vocabulary is left out when no item has features, the language vocabulary when
    no item has a language. Weights are initialised from ``torch.manual_seed(config.seed)`` (the
    global generator: the layers' initialisers draw from it).
    """
    if shared_vocab:
        symbols = Vocab.build(
            [it.source for it in items] + [it.target for it in items], name="symbol"
        )
        source_vocab = target_vocab = symbols
    else:
        source_vocab = Vocab.build([it.source for it in items], name="source")
        target_vocab = Vocab.build([it.target for it in items], name="target")
    parts = config.model.layered_features == "parts"
    feats = sorted(
        {f for it in items for f in model_features(it.features, parts)}
        | ({COPY_FEATURE} if config.train.copy_examples > 0 else set())
    )
    langs = sorted({it.language for it in items if it.language is not None})
    torch.manual_seed(config.train.seed)
    return Seq2Seq(
        config.model,
        source_vocab,
        target_vocab,
        Vocab(feats, specials=(PAD,), name="feature") if feats else None,
        Vocab(langs, specials=(), name="language") if langs else None,
    )


def _model_file(path: str | Path) -> Path:
    """``model.safetensors`` of a checkpoint folder, or the file itself."""
    path = Path(path)
    return path / ckpt.MODEL_FILE if path.is_dir() else path


def _saved_config(path: str | Path) -> dict[str, Any]:
    """The flat config of model checkpoint ``path`` (:meth:`Config.to_dict`), from its metadata
    (no weights read).

    Raises:
        CheckpointError: ``path`` is not a model checkpoint (a trainer state, another file).
    """
    file = _model_file(path)
    meta = ckpt.load_metadata(file)
    if meta.get("kind") == "trainer_state" or "config" not in (meta.get("model") or {}):
        raise ckpt.CheckpointError(
            f"{file}: not a model checkpoint (a trainer state is what --resume reads); pass a "
            f"run folder or its {ckpt.MODEL_FILE}"
        )
    try:
        return Config.from_dict(meta["model"]["config"]).to_dict()
    except (TypeError, ValueError) as exc:
        raise ckpt.CheckpointError(f"{file}: cannot read the model's config ({exc})") from None


def initial_config(path: str | Path, preset: str | None = None, **given: Any) -> Config:
    """The config of a run that starts from the model checkpoint ``path`` (a warm start): the
    checkpoint's, with the fields of ``preset`` (if given) and then ``given`` (None values
    ignored) on top. Reads the checkpoint's metadata only (its weights are read once, by
    :func:`warm_start_model`).

    Raises:
        CheckpointError: ``path`` is not a model checkpoint.
        ValueError: an unknown preset; ``preset`` or ``given`` changes the network (a field
            outside :data:`~inflect.training.config.WARM_START_FIELDS`), naming the field, the
            checkpoint's value and the given one.
    """
    saved = _saved_config(path)
    given = {k: v for k, v in given.items() if v is not None}
    if preset is not None:
        Config.from_preset(preset)  # an unknown preset: ValueError listing the known ones
        given = {**PRESETS[preset], "preset": preset, **given}
    fixed = [
        f"{k}: the checkpoint's {saved[k]!r}, given {v!r}"
        for k, v in given.items()
        if k not in WARM_START_FIELDS and k in saved and saved[k] != v
    ]
    if fixed:
        raise ValueError(
            f"{path}: a warm start keeps the network of the checkpoint ("
            + "; ".join(fixed)
            + "); drop those options"
        )
    # a new run reads tag bundles as multisets, whatever its start did (repeats then count)
    return Config.from_dict(saved | {"tag_bundles": "multiset"} | given)


def _unknown_symbols(model: Seq2Seq, items: Sequence[Item]) -> list[str]:
    """What ``items`` have that the model's vocabularies lack, per vocabulary (up to ten named)."""
    unknown: dict[str, set[str]] = {}
    parts = Vocabularies.of(model).parts
    vocabs = [
        ("symbol", model.source_vocab, lambda it: it.source),
        ("target symbol", model.target_vocab, lambda it: it.target),
        ("feature", model.feature_vocab, lambda it: model_features(it.features, parts)),
        ("language", model.language_vocab, lambda it: [it.language] if it.language else []),
    ]
    for name, vocab, get in vocabs:
        for it in items:
            missing = [s for s in get(it) if vocab is None or s not in vocab]
            unknown.setdefault(name, set()).update(missing)
    return [
        f"{len(v)} {k}(s) ({', '.join(repr(s) for s in sorted(v)[:10])}"
        f"{', ...' if len(v) > 10 else ''})"
        for k, v in unknown.items()
        if v
    ]


def warm_start_model(path: str | Path, config: Config, items: Sequence[Item]) -> Seq2Seq:
    """The network of model checkpoint ``path``, to be trained further with ``config`` on
    ``items`` (fine-tuning, or continuing a run whose trainer state is gone).

    The network is built again from ``config.model`` and given the checkpoint's weights, so a
    network field a warm start may change (``dropout``) takes effect in the modules, not in
    the recorded config alone.

    Args:
        path: a model checkpoint (``model.safetensors`` or its folder, see
            :func:`inflect.nn.checkpoint.load_checkpoint`).
        config: the run's hyperparameters; the network fields outside
            :data:`~inflect.training.config.WARM_START_FIELDS` must be the checkpoint's (see
            :func:`initial_config`).
        items: the training items; their symbols, UniMorph features and languages must be in
            the checkpoint's vocabularies (a warm start cannot add embeddings), and so must the
            copy feature :data:`~inflect.nn.config.COPY_FEATURE` when ``config`` has copy items.

    Raises:
        CheckpointError: ``path`` is not a model checkpoint.
        ValueError: another network; items with symbols, features or languages the
            checkpoint has no embedding for (up to ten of each are named); copy items for a
            checkpoint trained without them.
    """
    start = ckpt.load_checkpoint(path).network
    saved, wanted = start.config.to_dict(), config.model.to_dict()
    fixed = [k for k in saved if k not in WARM_START_FIELDS and saved[k] != wanted[k]]
    if fixed:
        raise ValueError(
            f"{path}: a warm start keeps the network of the checkpoint; the config differs in "
            + ", ".join(fixed)
        )
    named = _unknown_symbols(start, items)
    if named:
        raise ValueError(
            f"{path}: the training data have what the checkpoint has no embedding for: "
            + "; ".join(named)
            + "; train a new model (without --init-from) on these data"
        )
    features = start.feature_vocab
    if config.train.copy_examples > 0 and (features is None or COPY_FEATURE not in features):
        raise ValueError(
            f"{path}: copy items (copy_examples {config.train.copy_examples:g}) need the feature "
            f"{COPY_FEATURE!r}, which the checkpoint has no embedding for (it was trained "
            "without copy items); warm-start it with copy_examples 0 (e.g. the preset "
            "cpu-small-plain)"
        )
    model = Seq2Seq.from_metadata(start.metadata() | {"config": wanted})
    model.load_state_dict(start.state_dict())
    model.config = config.model
    model.train()
    return model


def warm_start_record(path: str | Path) -> dict[str, str]:
    """The ``init_from`` record of a warm start from ``path``: the path as given and the
    SHA-256 of its ``model.safetensors`` (stored in the run's training facts)."""
    return {"path": str(path), "sha256": sha256_of(_model_file(path))}
