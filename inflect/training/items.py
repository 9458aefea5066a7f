"""Training items: the examples at the symbol level, the data of a run, and their ids.

Text becomes symbols here (by the language's :class:`~inflect.text.codec.CharCodec`, as at
prediction, or by any :class:`~inflect.text.codec.Codec` for parallel texts); symbols become ids
once per run (:func:`encode_items`). :func:`load_data` reads CoNLL–SIGMORPHON 2018 task 1
(Cotterell et al. 2018) train and dev files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inflect import defaults
from inflect.nn.alphabets import OutputAlphabets
from inflect.nn.batching import EncodedItems, Vocabularies
from inflect.nn.config import COPY_FEATURE
from inflect.nn.lengths import OutputLengths

if TYPE_CHECKING:
    from inflect.nn.model import Seq2Seq

__all__ = [
    "DevScore",
    "Item",
    "TrainingData",
    "copy_pool",
    "data_sources",
    "encode_items",
    "items_from_examples",
    "items_from_texts",
    "load_data",
    "output_lengths",
    "record_training_data",
]


@dataclass(frozen=True)
class Item:
    """One example at the symbol level (what the model sees).

    Attributes:
        source: source symbols (``spec.to_symbols(lemma)``).
        features: UniMorph features of the tag bundle, sorted, repeats kept (the bundle's
            :attr:`~inflect.text.records.TagBundle.multiset`; a model reading bundles as sets drops the
            repeats when it encodes them); empty for a model without tags.
        language: language name, or None (no language symbol).
        target: target symbols (``spec.to_symbols(form)``).
    """

    source: tuple[str, ...]
    features: tuple[str, ...]
    language: str | None
    target: tuple[str, ...]


#: ``dev_score(predictions, items) -> float``: a model-selection score on dev, higher is better.
DevScore = Callable[[Sequence[tuple[str, ...]], Sequence[Item]], float]


@dataclass
class TrainingData:
    """Training and dev items with what the checkpoint must remember about them.

    Attributes:
        train, dev: the items (symbol level).
        languages: :class:`~inflect.text.languages.LanguageSpec` objects (stored in the checkpoint).
        description: JSON-able facts about the data (stored; a resumed run must match them).
        codec: the :class:`~inflect.text.codec.Codec` that made the items' symbols from raw text
            (e.g. a SentencePiece model for translation), or None; its dict is stored in the
            checkpoint so that :func:`~inflect.nn.checkpoint.load_checkpoint` rebuilds it
            (``LoadedModel.codec``) without side files.
        dev_score: the model-selection score, or None for exact-match accuracy of greedy
            decoding in percent. Called after every epoch with the greedy outputs (symbol tuples,
            in dev order) and the dev items; e.g. corpus BLEU of the detokenised outputs.
        dev_score_name: what ``dev_score`` measures (for messages and the checkpoint).
        shared_vocab: one symbol vocabulary for sources and targets (see
            :func:`inflect.training.warm_start.build_model`).
        cells: the paradigm cells of the training data (:func:`inflect.corpora.cells.cells_record`)
            to store in the checkpoint (a run on a user's files), or None.
        sources: the data files read, ``{"role", "path", "sha256"}`` each (the run's
            provenance; a file-trained run is resumed from these paths).
    """

    train: list[Item]
    dev: list[Item]
    languages: list[Any] = field(default_factory=list)  # LanguageSpec objects
    description: dict[str, Any] = field(default_factory=dict)
    codec: Any | None = None
    dev_score: DevScore | None = None
    dev_score_name: str = "accuracy"
    shared_vocab: bool = True
    cells: dict[str, Any] | None = None
    sources: list[dict[str, Any]] = field(default_factory=list)


def items_from_examples(examples: Iterable[Any], specs: dict[str, Any]) -> list[Item]:
    """Turn :class:`inflect.text.records.Example` records into :class:`Item` s (text -> symbols by the
    language's :class:`~inflect.text.codec.CharCodec`, as at prediction).

    Args:
        examples: examples with a gold form.
        specs: language name -> :class:`~inflect.text.languages.LanguageSpec`.

    Raises:
        ValueError: an example without a form (``FILE:LINE``) or of an unknown language.
    """
    from inflect.text.codec import CharCodec

    codecs: dict[str, CharCodec] = {}
    items = []
    for ex in examples:
        where = f"{ex.source}:{ex.line}" if ex.source else "example"
        if ex.form is None:
            raise ValueError(f"{where}: training/dev example without a form ({ex.lemma!r})")
        codec = codecs.get(ex.language)
        if codec is None:
            spec = specs.get(ex.language)
            if spec is None:
                raise ValueError(f"{where}: language {ex.language!r} has no spec")
            codec = codecs[ex.language] = CharCodec(spec)
        items.append(
            Item(
                source=tuple(codec.encode(ex.lemma)),
                features=ex.tags.multiset,
                language=codec.spec.name,
                target=tuple(codec.encode(ex.form)),
            )
        )
    return items


def items_from_texts(
    sources: Sequence[str],
    targets: Sequence[str],
    codec: Any,
    source_name: str = "source",
    target_name: str = "target",
) -> list[Item]:
    """Turn parallel raw texts (e.g. sentence pairs) into :class:`Item` s with ``codec.encode``.

    The items carry no tag bundle and no language symbol (a model trained on them has neither).

    Args:
        sources, targets: the raw texts, line ``i`` of one aligned with line ``i`` of the other.
        codec: a :class:`~inflect.text.codec.Codec`.
        source_name, target_name: names for messages (e.g. the files ``train.de``, ``train.en``).

    Raises:
        ValueError: the two sides differ in length, or a line is empty on either side (the
            message names the file and the 1-based line).
    """
    if len(sources) != len(targets):
        raise ValueError(
            f"{source_name} has {len(sources)} lines but {target_name} has {len(targets)}"
        )
    items = []
    for i, (src, tgt) in enumerate(zip(sources, targets, strict=True)):
        for name, text in ((source_name, src), (target_name, tgt)):
            if not text.strip():
                raise ValueError(f"{name}:{i + 1}: empty line ({text!r})")
        items.append(Item(tuple(codec.encode(src)), (), None, tuple(codec.encode(tgt))))
    return items


def load_data(
    languages: str | Sequence[str], setting: str, data_dir: str | Path | None = None
) -> TrainingData:
    """Read train-<setting> and dev of CoNLL–SIGMORPHON 2018 task 1 for one or more languages.

    Args:
        languages: a name, a comma-separated list, a sequence of names (any alias), or ``"all"``
            (every language with training data in ``setting``; for ``medium`` also the
            languages that have only ``low`` data — Telugu — with their low data, so that the
            medium model covers every language without a high one; the description lists them
            under ``"smaller_settings"``).
        setting: ``"high"``, ``"medium"`` or ``"low"``.
        data_dir: the data folder (default: :func:`inflect.corpora.manifests.data_dir`).

    Raises:
        ValueError: an unknown setting or language; FileNotFoundError: a missing file.
    """
    from inflect.corpora.splits import load_split
    from inflect.text.languages import all_languages, resolve

    if setting not in defaults.SETTINGS:
        raise ValueError(f"setting must be high, medium or low, got {setting!r}")
    names = (
        [n.strip() for n in languages.split(",")] if isinstance(languages, str) else list(languages)
    )
    smaller: dict[str, str] = {}
    if names == ["all"]:
        specs = []
        for s in all_languages():
            if setting in s.settings:
                specs.append(s)
            elif setting == "medium" and s.settings == ("low",):
                specs.append(s)
                smaller[s.name] = "low"
    else:
        specs = [resolve(n) for n in names if n]
    if not specs:
        raise ValueError("no language given")
    by_name = {s.name: s for s in specs}
    splits = {name: (f"train-{smaller.get(name, setting)}", "dev") for name in by_name}
    train_ex, dev_ex = [], []
    for spec in by_name.values():
        train_ex += load_split(spec.name, splits[spec.name][0], data_dir)
        dev_ex += load_split(spec.name, "dev", data_dir)
    description = {
        "languages": list(by_name),
        "setting": setting,
        "train_examples": len(train_ex),
        "dev_examples": len(dev_ex),
    }
    if smaller:
        description["smaller_settings"] = smaller
    return TrainingData(
        train=items_from_examples(train_ex, by_name),
        dev=items_from_examples(dev_ex, by_name),
        languages=list(by_name.values()),
        description=description,
        sources=data_sources(list(by_name), splits, data_dir),
    )


def data_sources(languages: Sequence[str], split_names: dict[str, Sequence[str]],
                 data_dir: str | Path | None) -> list[dict[str, Any]]:
    """The files of a run on the shared task's data, with their SHA-256 (its provenance):
    one record per language and split (``split_names``: language -> splits read)."""
    from inflect.corpora.manifests import locate
    from inflect.io.atomic import sha256_of

    out = []
    for language in languages:
        for split in split_names[language]:
            path = locate(language, split, data_dir)
            out.append({"role": "train" if split.startswith("train") else split,
                         "path": str(path.resolve()), "sha256": sha256_of(path)})
    return out


def copy_pool(items: Sequence[Item]) -> list[Item]:
    """Autoencoding items (``TrainConfig.copy_examples``): every distinct lemma and form of
    ``items`` copied onto itself under the tag bundle :data:`~inflect.nn.config.COPY_FEATURE`,
    sorted by language, then symbols."""
    words = {(it.source, it.language) for it in items} | {(it.target, it.language) for it in items}
    return [
        Item(w, (COPY_FEATURE,), lang, w)
        for w, lang in sorted(words, key=lambda x: (x[1] or "", x[0]))
    ]


def output_lengths(items: Sequence[Item]) -> OutputLengths:
    """The output-length record of training items (:mod:`inflect.nn.lengths`)."""
    return OutputLengths.from_pairs((it.language, len(it.source), len(it.target)) for it in items)


def record_training_data(model: Seq2Seq, items: Sequence[Item]) -> None:
    """Give ``model`` the records a search takes from its training ``items``: the output length
    limits (:mod:`inflect.nn.lengths`) and, for a model with languages, each language's output
    alphabet (:mod:`inflect.nn.alphabets`). Stored with the checkpoint (``model.metadata()``)."""
    model.output_lengths = output_lengths(items)
    if model.language_vocab is not None:
        model.output_alphabets = OutputAlphabets.from_items(items)


def encode_items(model: Seq2Seq, items: Sequence[Item], *, targets: bool = True) -> EncodedItems:
    """``items`` as ids of the model's vocabularies, once (see
    :class:`~inflect.nn.batching.EncodedItems`; unknown symbols are not warned about)."""
    return EncodedItems(
        Vocabularies.of(model),
        [it.source for it in items],
        [it.features for it in items],
        [it.language for it in items],
        [it.target for it in items] if targets else None,
        warn=False,
    )
