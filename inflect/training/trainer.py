"""The trainer: batches, Adam, model selection on dev, early stopping, checkpoints, resume.

Peters et al. (2019), section 5: Adam, gradient-norm clipping, the learning rate halved whenever the
dev loss rises (OpenNMT-py's schedule), the output trained with the Fenchel–Young loss of its
mapping.

**Model selection differs from the paper.** The paper selected checkpoints by teacher-forced
symbol accuracy on dev; here the model is selected by *exact-match accuracy of greedy decoding*
on dev (the shared task's metric), computed after every epoch — on a fixed sample of each
language's dev set when ``Config.dev_sample`` is set — with early stopping after ``patience``
epochs without improvement and at most ``max_epochs`` epochs.

Determinism and resume: the weights are initialised after ``torch.manual_seed(seed)``; at the start
of epoch e the global RNG (dropout) and the shuffling generator are both seeded from
``(seed, e)``. The full trainer state (weights, Adam moments, learning rate, counters, the
position inside the epoch and the RNG state) is written atomically at every epoch boundary and
every ``checkpoint_seconds`` inside an epoch, and when the run is stopped (Ctrl-C, SIGTERM), so a
stopped or killed run continues with :func:`train` ``(resume=True)`` losing at most those seconds
and, on CPU, ends with the same weights as an uninterrupted one. A run owns its folder while it
trains (a lock file the operating system releases when the process ends).

Data parallel (``torchrun --nproc-per-node N -m inflect train ...``, see
:mod:`inflect.training.distributed`): each of the N processes takes its share of every update's rows (the
epoch's batches are a function of the seed and the epoch only, so every process computes the
same ones, of ``N · batch_size`` rows), the gradients are summed over the processes by
``DistributedDataParallel`` with each process's loss weighted by its share of the update's target
symbols, so that an update equals a single process's update on all its rows; rank 0 alone
evaluates on dev, writes the run folder and holds its lock, the others wait for it. A run resumes
as a plain one does (every process reads the saved state; inside an epoch only with as many
processes as saved it).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import math
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from filelock import FileLock, Timeout

from inflect import defaults
from inflect.io.atomic import sha256_of, write_bytes
from inflect.io.outputs import prepare_folder
from inflect.nn import checkpoint as ckpt
from inflect.nn.batching import Batch, EncodedItems, Vocabularies, output_symbols
from inflect.nn.checkpoint import load_model  # re-exported for convenience
from inflect.nn.config import COPY_FEATURE, PRESETS, Config
from inflect.nn.lengths import OutputLengths, output_limit
from inflect.nn.model import Seq2Seq, resolve_device
from inflect.nn.recurrence import low_precision_matmul_dtype
from inflect.nn.vocab import PAD, Vocab
from inflect.training.distributed import World

__all__ = [
    "EpochMetrics",
    "Item",
    "ProgressCallback",
    "RunState",
    "TrainResult",
    "Trainer",
    "TrainingData",
    "TrainingDiverged",
    "TrainingInterrupted",
    "build_model",
    "dev_sample",
    "encode_items",
    "evaluate",
    "items_from_examples",
    "items_from_texts",
    "language_shares",
    "load_data",
    "load_model",
    "make_batch",
    "resolve_device",
    "run_status",
    "saved_run",
    "train",
]

#: ``progress(event, info)`` receives "start", "estimate", "batch", "checkpoint", "epoch", "end"
#: and "interrupted" events; a resumed run that had finished gets "finished_before" (``epochs``,
#: ``max_epochs``, ``stopped_early``) instead of "start".
ProgressCallback = Callable[[str, dict[str, Any]], None]


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
        shared_vocab: one symbol vocabulary for sources and targets (see :func:`build_model`).
    """

    train: list[Item]
    dev: list[Item]
    languages: list[Any] = field(default_factory=list)  # LanguageSpec objects
    description: dict[str, Any] = field(default_factory=dict)
    codec: Any | None = None
    dev_score: DevScore | None = None
    dev_score_name: str = "accuracy"
    shared_vocab: bool = True


@dataclass
class EpochMetrics:
    """One row of ``metrics.csv``.

    Attributes:
        epoch: 1-based epoch number.
        train_loss: mean Fenchel–Young loss per target symbol (incl. EOS) over the epoch.
        dev_loss: the same on dev, teacher-forced, without dropout.
        dev_accuracy: exact-match accuracy of greedy decoding on dev, in percent.
        learning_rate: the Adam step size used during this epoch.
        seconds: wall time of the epoch (training + dev evaluation).
        cpu_seconds: CPU time of the training process during the epoch (training + dev
            evaluation, every thread; :func:`time.process_time`): what an epoch costs on a
            loaded machine, where wall time also counts the other processes.
        train_examples_per_s: training throughput (examples per second, training part only).
        best: whether this epoch is the best so far (its weights are in ``model.safetensors``).
        dev_score: the model-selection score (``TrainingData.dev_score``; the dev accuracy when
            none is given).
    """

    epoch: int
    train_loss: float
    dev_loss: float
    dev_accuracy: float
    learning_rate: float
    seconds: float
    train_examples_per_s: float
    best: bool
    dev_score: float = math.nan
    cpu_seconds: float = math.nan


@dataclass
class TrainResult:
    """What a finished (or early-stopped) run produced.

    ``best_dev_accuracy`` is the model-selection score of the best epoch: the dev accuracy in
    percent, or ``TrainingData.dev_score`` where one was given. ``metrics`` is the
    ``metrics.csv`` table as a pandas DataFrame (pandas is imported when it is first read, so
    that training itself does not pay for importing it).
    """

    out_dir: Path
    best_epoch: int
    best_dev_accuracy: float
    epochs: int
    stopped_early: bool
    seconds: float
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def metrics(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.rows, columns=[f.name for f in dataclasses.fields(EpochMetrics)])


class TrainingInterrupted(KeyboardInterrupt):
    """Raised when a run is stopped (Ctrl-C, SIGTERM); its saved state is resumable.

    Attributes:
        out_dir: the run folder.
        epoch: completed epochs in the saved state.
        batch: batches of the next epoch done in the saved state (0: at an epoch boundary).
    """

    def __init__(self, out_dir: Path, epoch: int, batch: int = 0, batches: int = 0):
        where = (
            f"epoch {epoch + 1}, batch {batch} of {batches}"
            if batch
            else f"the end of epoch {epoch}"
        )
        super().__init__(
            f"training interrupted; resumable from {where} "
            f"(run again with --resume --out {out_dir})"
        )
        self.out_dir = out_dir
        self.epoch = epoch
        self.batch = batch


class TrainingDiverged(ValueError):
    """Raised when an update's loss is not finite (the run diverged); the update is not applied
    and nothing more is saved, so the run folder keeps what was saved before.

    Attributes:
        out_dir: the run folder.
        epoch: the epoch (1-based) of the update.
        batch: the update's batch in the epoch (1-based).
    """

    def __init__(self, out_dir: Path, epoch: int, batch: int, batches: int, learning_rate: float,
                 saved_epoch: int):
        kept = (f"the state saved there before (after epoch {saved_epoch}) is intact"
                if saved_epoch else "no epoch was finished")
        super().__init__(
            f"training diverged at epoch {epoch}, batch {batch} of {batches}: the loss is not "
            f"finite (learning rate {learning_rate:g}); {kept}. Start again with a lower "
            f"--learning-rate and another --out, or remove {out_dir}"
        )
        self.out_dir = out_dir
        self.epoch = epoch
        self.batch = batch


# --------------------------------------------------------------------------------- data
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
    train_ex, dev_ex = [], []
    for spec in by_name.values():
        train_ex += load_split(spec.name, f"train-{smaller.get(spec.name, setting)}", data_dir)
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
    )


# --------------------------------------------------------------------------------- model
def build_model(config: Config, items: Sequence[Item], shared_vocab: bool = True) -> Seq2Seq:
    """A fresh model whose vocabularies cover ``items``.

    Args:
        config: hyperparameters.
        items: the training items.
        shared_vocab: one symbol vocabulary for source and target (inflection: the lemma's and
            the form's characters); False: a source vocabulary of the sources' symbols and a
            target vocabulary of the targets' symbols only (translation: the output layer and
            its mapping range over target-language subwords only).

    The feature vocabulary is left out when no item has features, the language vocabulary when
    no item has a language. Weights are initialised from ``torch.manual_seed(config.seed)``.
    """
    if shared_vocab:
        symbols = Vocab.build(
            [it.source for it in items] + [it.target for it in items], name="symbol"
        )
        source_vocab = target_vocab = symbols
    else:
        source_vocab = Vocab.build([it.source for it in items], name="source")
        target_vocab = Vocab.build([it.target for it in items], name="target")
    feats = sorted(
        {f for it in items for f in it.features}
        | ({COPY_FEATURE} if config.copy_examples > 0 else set())
    )
    langs = sorted({it.language for it in items if it.language is not None})
    torch.manual_seed(config.seed)
    return Seq2Seq(
        config,
        source_vocab,
        target_vocab,
        Vocab(feats, specials=(PAD,), name="feature") if feats else None,
        Vocab(langs, specials=(), name="language") if langs else None,
    )


#: Config fields a warm start (``--init-from``) may change: the training procedure's. The others
#: describe the network and must be the initial model's.
TRAINING_FIELDS = frozenset(
    {
        "learning_rate",
        "batch_size",
        "max_grad_norm",
        "lr_decay",
        "min_learning_rate",
        "max_epochs",
        "patience",
        "max_decode_len",
        "eval_batch_size",
        "seed",
        "preset",
        "dev_sample",
        "language_temperature",
        "dropout",
        "tag_bundles",
    }
)


def initial_config(path: str | Path, preset: str | None = None, **given: Any) -> Config:
    """The config of a run that starts from the model checkpoint ``path`` (a warm start): the
    checkpoint's, with the fields of ``preset`` (if given) and then ``given`` (None values
    ignored) on top.

    Raises:
        CheckpointError: ``path`` is not a model checkpoint.
        ValueError: an unknown preset; ``preset`` or ``given`` changes the network (a field
            outside :data:`TRAINING_FIELDS`), naming the field, the checkpoint's value and the
            given one.
    """
    saved = ckpt.load_checkpoint(path).network.config.to_dict()
    given = {k: v for k, v in given.items() if v is not None}
    if preset is not None:
        Config.from_preset(preset)  # an unknown preset: ValueError listing the known ones
        given = {**PRESETS[preset], "preset": preset, **given}
    fixed = [
        f"{k}: the checkpoint's {saved[k]!r}, given {v!r}"
        for k, v in given.items()
        if k not in TRAINING_FIELDS and k in saved and saved[k] != v
    ]
    if fixed:
        raise ValueError(
            f"{path}: a warm start keeps the network of the checkpoint ("
            + "; ".join(fixed)
            + "); drop those options"
        )
    # a new run reads tag bundles as multisets, whatever its start did (repeats then count)
    return Config.from_dict(saved | {"tag_bundles": "multiset"} | given)


def warm_start_model(path: str | Path, config: Config, items: Sequence[Item]) -> Seq2Seq:
    """The network of model checkpoint ``path``, to be trained further with ``config`` on
    ``items`` (fine-tuning, or continuing a run whose trainer state is gone).

    Args:
        path: a model checkpoint (``model.safetensors`` or its folder, see
            :func:`inflect.nn.checkpoint.load_checkpoint`).
        config: the run's hyperparameters; the fields outside :data:`TRAINING_FIELDS` must be
            the checkpoint's (see :func:`initial_config`).
        items: the training items; their symbols, UniMorph features and languages must be in
            the checkpoint's vocabularies (a warm start cannot add embeddings).

    Raises:
        CheckpointError: ``path`` is not a model checkpoint.
        ValueError: another network, or items with symbols, features or languages the
            checkpoint has no embedding for (up to ten of each are named).
    """
    model = ckpt.load_checkpoint(path).network
    saved, wanted = model.config.to_dict(), config.to_dict()
    fixed = [k for k in saved if k not in TRAINING_FIELDS and saved[k] != wanted[k]]
    if fixed:
        raise ValueError(
            f"{path}: a warm start keeps the network of the checkpoint; the config differs in "
            + ", ".join(fixed)
        )
    unknown: dict[str, set[str]] = {}
    vocabs = [
        ("symbol", model.source_vocab, lambda it: it.source),
        ("target symbol", model.target_vocab, lambda it: it.target),
        ("feature", model.feature_vocab, lambda it: it.features),
        ("language", model.language_vocab, lambda it: [it.language] if it.language else []),
    ]
    for name, vocab, get in vocabs:
        for it in items:
            missing = [s for s in get(it) if vocab is None or s not in vocab]
            unknown.setdefault(name, set()).update(missing)
    named = [
        f"{len(v)} {k}(s) ({', '.join(repr(s) for s in sorted(v)[:10])}"
        f"{', ...' if len(v) > 10 else ''})"
        for k, v in unknown.items()
        if v
    ]
    if named:
        raise ValueError(
            f"{path}: the training data have what the checkpoint has no embedding for: "
            + "; ".join(named)
            + "; train a new model (without --init-from) on these data"
        )
    model.config = config
    model.train()
    return model


def encode_items(model: Seq2Seq, items: Sequence[Item], *, targets: bool = True) -> EncodedItems:
    """``items`` as ids of the model's vocabularies, once (see :class:`EncodedItems`)."""
    return EncodedItems(
        Vocabularies.of(model),
        [it.source for it in items],
        [it.features for it in items],
        [it.language for it in items],
        [it.target for it in items] if targets else None,
        warn=False,
    )


def make_batch(model: Seq2Seq, items: Sequence[Item], *, targets: bool = True) -> Batch:
    """One padded batch of ``items`` on the model's device (a one-off list; a dataset is
    encoded once with :func:`encode_items`)."""
    return encode_items(model, items, targets=targets).batch(device=model.device)


def _autocast(device: torch.device) -> contextlib.AbstractContextManager[Any]:
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


# --------------------------------------------------------------------------------- evaluation
@torch.inference_mode()
def evaluate(
    model: Seq2Seq,
    items: Sequence[Item],
    batch_size: int = 128,
    max_len: int | None = None,
    encoded: EncodedItems | None = None,
) -> tuple[float, float, list[tuple[str, ...]]]:
    """Dev loss (teacher-forced) and exact-match accuracy of greedy decoding.

    Args:
        model: the model (put in eval mode).
        items: examples with targets.
        batch_size: examples per batch (sorted by source length to limit padding).
        max_len: output length cap (default: ``config.max_decode_len``, else each item's own
            limit, :func:`inflect.nn.lengths.output_limit` of ``model.output_lengths``).
        encoded: ``items`` already encoded with :func:`encode_items` (else encoded here).

    Returns:
        (mean loss per target symbol, accuracy in percent, predicted symbol tuples in the
        order of ``items`` — UNKs replaced by the most attended source symbol).
    """
    from inflect.decoding.search import Encoded, greedy

    model.eval()
    device = model.device
    encoded = encoded if encoded is not None else encode_items(model, items)
    order = sorted(range(len(items)), key=lambda i: (len(items[i].source), i))
    preds: list[tuple[str, ...]] = [()] * len(items)
    total_loss, total_tokens, correct = 0.0, 0, 0
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        batch = encoded.batch(idx, device)
        with _autocast(device):
            state = model.encode(batch)  # one encoder pass for the loss and the search
            loss, n = model.loss(batch, state)
            total_loss += float(loss)
            total_tokens += n
            cap = (
                max_len
                or model.config.max_decode_len
                or item_limits(model, [items[i] for i in idx])
            )
            hyps = greedy(model, Encoded(state, len(batch)), cap)
        for j, (i, hyp) in enumerate(zip(idx, hyps, strict=True)):
            symbols = tuple(
                output_symbols(
                    model.target_vocab, hyp.tokens, hyp.attention, batch.source_symbols[j]
                )
            )
            preds[i] = symbols
            correct += symbols == items[i].target
    accuracy = 100.0 * correct / max(1, len(items))
    return total_loss / max(1, total_tokens), accuracy, preds


def output_lengths(items: Sequence[Item]) -> OutputLengths:
    """The output-length record of training items (:mod:`inflect.nn.lengths`)."""
    return OutputLengths.from_pairs((it.language, len(it.source), len(it.target)) for it in items)


def item_limits(model: Seq2Seq, items: Sequence[Item]) -> list[int]:
    """Each item's output length limit under ``model`` (its own source length and language)."""
    return [output_limit(model.output_lengths, it.language, len(it.source)) for it in items]


def dev_sample(items: Sequence[Item], per_language: int) -> list[int]:
    """Indices of a fixed sample of at most ``per_language`` items of each language.

    The sample depends only on the items and ``per_language`` (seeded with
    :data:`inflect.defaults.DEV_SAMPLE_SEED`), in the items' order; 0 means every item.
    """
    if per_language <= 0:
        return list(range(len(items)))
    by_language: dict[str | None, list[int]] = {}
    for i, it in enumerate(items):
        by_language.setdefault(it.language, []).append(i)
    gen = torch.Generator().manual_seed(defaults.DEV_SAMPLE_SEED)
    chosen: list[int] = []
    for lang in sorted(by_language, key=lambda x: x or ""):
        rows = by_language[lang]
        if len(rows) > per_language:
            pick = torch.randperm(len(rows), generator=gen)[:per_language].tolist()
            rows = [rows[j] for j in pick]
        chosen += rows
    return sorted(chosen)


# --------------------------------------------------------------------------------- epochs
def _epoch_seed(seed: int, epoch: int) -> int:
    return (seed * 1_000_003 + epoch * 7_919 + 17) % (2**63 - 1)


def _copy_pool(items: Sequence[Item]) -> list[Item]:
    """Autoencoding items: every distinct lemma and form copied onto itself (sorted)."""
    words = {(it.source, it.language) for it in items} | {(it.target, it.language) for it in items}
    return [
        Item(w, (COPY_FEATURE,), lang, w)
        for w, lang in sorted(words, key=lambda x: (x[1] or "", x[0]))
    ]


def _draw(n_items: int, n: int, generator: torch.Generator) -> list[int]:
    """``n`` indices of ``range(n_items)``: random permutations, one after the other, cut at n."""
    out: list[int] = []
    while len(out) < n and n_items:
        out += torch.randperm(n_items, generator=generator).tolist()[: n - len(out)]
    return out


def language_shares(counts: dict[Any, int], temperature: float) -> dict[Any, int]:
    """Items per language in one epoch: ``N · n_l^(1/T) / Σ_k n_k^(1/T)``, rounded so that the
    total is N (the largest remainders get the extra items); T = 1 keeps each ``n_l``."""
    total = sum(counts.values())
    if temperature == 1.0 or len(counts) < 2:
        return dict(counts)
    weights = {k: n ** (1.0 / temperature) for k, n in counts.items()}
    norm = sum(weights.values())
    exact = {k: total * w / norm for k, w in weights.items()}
    shares = {k: math.floor(v) for k, v in exact.items()}
    for k in sorted(exact, key=lambda k: shares[k] - exact[k])[: total - sum(shares.values())]:
        shares[k] += 1
    return shares


def _shuffled_batches(
    lengths: Sequence[int], batch_size: int, generator: torch.Generator, pool: int = 16
) -> list[list[int]]:
    """Random batches of similar target length (fewer padded decoder steps).

    A random permutation of ``range(len(lengths))`` is cut into pools of ``pool`` batches; each
    pool is sorted by length and cut into batches; the batches are then shuffled. Deterministic
    given ``generator``.
    """
    perm = torch.randperm(len(lengths), generator=generator).tolist()
    size = batch_size * pool
    batches: list[list[int]] = []
    for start in range(0, len(perm), size):
        chunk = sorted(perm[start : start + size], key=lambda i: lengths[i])
        batches += [chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size)]
    order = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in order]


# --------------------------------------------------------------------------------- state
@dataclass
class RunState:
    """Everything a run needs to continue, besides weights and optimizer (JSON in the state file).

    Attributes:
        epoch: completed epochs.
        batch: batches of epoch ``epoch + 1`` already applied (0 at an epoch boundary).
        learning_rate: the current Adam step size.
        best_score: the model-selection score of the best epoch (-1 before the first).
        best_epoch: that epoch (0 before the first).
        bad_epochs: epochs since the best.
        prev_dev_loss: the previous epoch's dev loss (for the learning-rate schedule).
        metrics: :class:`EpochMetrics` rows as dicts.
        finished, stopped_early: the run is over (reached ``max_epochs`` or stopped early).
        seconds: wall time spent in completed epochs.
        epoch_loss, epoch_tokens, epoch_seconds, epoch_cpu_seconds: running sums of the current
            epoch (``epoch_cpu_seconds``: CPU time, see :class:`EpochMetrics`).
        world_size: the processes training the run (``torchrun``; 1 for a plain run).
    """

    epoch: int = 0
    batch: int = 0
    learning_rate: float = 1e-3
    best_score: float = -1.0
    best_epoch: int = 0
    bad_epochs: int = 0
    prev_dev_loss: float | None = None
    metrics: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False
    stopped_early: bool = False
    seconds: float = 0.0
    epoch_loss: float = 0.0
    epoch_tokens: int = 0
    epoch_seconds: float = 0.0
    epoch_cpu_seconds: float = 0.0
    world_size: int = 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-able; ``best_accuracy`` is written too, for readers of older versions."""
        return dataclasses.asdict(self) | {"best_accuracy": self.best_score}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunState:
        """Inverse of :meth:`to_dict`; reads the state files of earlier versions too (their
        ``best_accuracy`` is the best score, and they were saved at epoch boundaries)."""
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in d.items() if k in names}
        if "best_score" not in values and "best_accuracy" in d:
            values["best_score"] = d["best_accuracy"]
        return cls(**values)

    def summary(self, data: TrainingData) -> dict[str, Any]:
        """The ``training`` facts stored in ``model.safetensors``."""
        return {
            "best_epoch": self.best_epoch,
            "best_accuracy": self.best_score,
            "epoch": self.epoch,
            "seconds": self.seconds,
            "stopped_early": self.stopped_early,
            "data": data.description,
            "dev_score": data.dev_score_name,
        }


def _check_same_config(saved: Config, given: Config) -> None:
    """Raise ValueError naming the fields where ``given`` differs from the resumed run's."""
    # may change on resume: the stopping rule, the preset's name, and the dev batch size (the
    # same dev loss and accuracy at any size)
    # (and how bundles are read: a run keeps its model's, and a config built now says multiset)
    free = {"max_epochs", "patience", "preset", "eval_batch_size", "tag_bundles"}
    a, b = saved.to_dict(), given.to_dict()
    diff = [f"{k}: saved {a[k]!r}, given {b[k]!r}" for k in a if k not in free and a[k] != b[k]]
    if diff:
        raise ValueError(
            "cannot resume with different settings (" + "; ".join(diff) + "); drop those "
            "options or start a new run in another --out folder"
        )


def _prepare_out_dir(out: Path) -> None:
    """Create the run folder and check that files can be written there, before any work.

    Raises:
        OutputError: (a ValueError) naming ``out`` and the reason (a parent that is a file, no
            permission, a full disk, ...); see :func:`inflect.io.outputs.prepare_folder`.
    """
    prepare_folder(out, "the run folder")


class _StopRequests:
    """SIGINT/SIGTERM while training: the first asks the loop to stop at the next batch boundary
    (saving a resumable state); a second SIGINT interrupts at once (the last saved state stays)."""

    def __init__(self) -> None:
        self.requested: str | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _StopRequests:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = signal.Signals(signum).name


# --------------------------------------------------------------------------------- trainer
class Trainer:
    """One training run in one folder: ``Trainer(...).run()``; see :func:`train` for the
    arguments and the files it writes."""

    def __init__(
        self,
        config: Config | None,
        data: TrainingData,
        out_dir: str | Path,
        *,
        device: str = "auto",
        resume: bool = False,
        max_epochs: int | None = None,
        patience: int | None = None,
        progress: ProgressCallback | None = None,
        checkpoint_seconds: float = defaults.CHECKPOINT_SECONDS,
        precision: str = "auto",
        init_from: str | Path | None = None,
    ) -> None:
        if not data.train or not data.dev:
            raise ValueError("training and dev data must both be non-empty")
        if precision not in ("auto", "float32"):
            raise ValueError(f"precision must be auto or float32, got {precision!r}")
        self.out = Path(out_dir)
        self.data = data
        self.world = World.from_environment()
        self.device = self.world.place(resolve_device(device))
        quiet: ProgressCallback = lambda event, info: None  # noqa: E731
        self.notify = (progress or quiet) if self.world.is_main else quiet
        self.checkpoint_seconds = checkpoint_seconds
        self.common: dict[str, Any] = {
            "languages": [s.to_dict() if hasattr(s, "to_dict") else s for s in data.languages],
            "data": data.description,
        }
        if data.codec is not None:
            self.common["codec"] = data.codec.to_dict()
        self._lock = FileLock(str(self.out / ".lock"))
        self._resume, self._config = resume, config
        self._init_from = None if init_from is None else Path(init_from)
        if self._init_from is not None and resume:
            raise ValueError("--init-from starts a new run; --resume continues one (not both)")
        self._overrides = (max_epochs, patience)
        self._precision = precision
        self._estimated = False
        self.rng_state: dict[str, torch.Tensor] = {}

    # ---------------------------------------------------------------- set-up
    def _setup(self) -> None:
        """Build or load the model, optimizer and run state (the run folder is locked)."""
        state_path = self.out / ckpt.STATE_FILE
        tensors: dict[str, torch.Tensor] = {}
        meta: dict[str, Any] | None = None
        if self._resume:
            if not state_path.is_file():
                raise FileNotFoundError(f"{state_path}: no trainer state to resume from")
            tensors, meta = ckpt.load_tensors(state_path)
            self.model = Seq2Seq.from_metadata(meta["model"])
            self.model.load_state_dict(
                {k[len("model.") :]: v for k, v in tensors.items() if k.startswith("model.")}
            )
            if self._config is not None:
                _check_same_config(self.model.config, self._config)
            self._check_same_data(meta)
            if "init_from" in meta:
                self.common["init_from"] = meta["init_from"]
            self.state = RunState.from_dict(meta["state"])
            self._check_same_world()
            self.rng_state = {k[4:]: v for k, v in tensors.items() if k.startswith("rng.")}
        else:
            if state_path.exists() or (self.out / ckpt.MODEL_FILE).exists():
                raise FileExistsError(
                    f"{self.out} already holds a training run; use --resume or a new --out"
                )
            if self._config is None:
                raise ValueError("a fresh training run needs a config")
            if self._init_from is not None:
                self.model = warm_start_model(self._init_from, self._config, self.data.train)
                self.common["init_from"] = {
                    "path": str(self._init_from),
                    "sha256": sha256_of(
                        self._init_from / ckpt.MODEL_FILE
                        if self._init_from.is_dir()
                        else self._init_from
                    ),
                }
            else:
                self.model = build_model(self._config, self.data.train, self.data.shared_vocab)
            self.state = RunState(learning_rate=self._config.learning_rate)
        self.state.world_size = self.world.size
        # the output length limits of every search with this model, from its training data
        self.model.output_lengths = output_lengths(self.data.train)
        self.config = config = self.model.config
        max_epochs, patience = self._overrides
        if max_epochs is not None:
            config.max_epochs = max_epochs
        if patience is not None:
            config.patience = patience
        config.validate()
        # a larger max_epochs continues a finished run (unless it stopped early)
        self.state.finished = self.state.stopped_early or self.state.epoch >= config.max_epochs
        self.model.to(self.device)
        if self._precision == "auto":
            self.model.matmul_dtype = low_precision_matmul_dtype(self.device)
        fused = self.device.type in ("cpu", "cuda") or None
        self.optimizer = torch.optim.Adam(
            self.model.parameters(), lr=self.state.learning_rate, fused=fused
        )
        if meta is not None:
            ckpt.optimizer_from_tensors(self.optimizer, tensors, meta["optimizer"])
        self._set_learning_rate(self.state.learning_rate)
        self._loss = self._data_parallel_loss()
        self.common["model"] = self.model.metadata()
        self._encode_data()
        if not self._resume:
            self._save_state()

    def _check_same_world(self) -> None:
        """A run stopped inside an epoch continues with as many processes as it had (the
        epoch's batches and the saved position depend on them); at an epoch boundary any."""
        saved = self.state.world_size
        if self.state.batch and saved != self.world.size:
            raise ValueError(
                f"the run was stopped inside epoch {self.state.epoch + 1} with {saved} "
                f"process(es); resume it with {saved} (torchrun --nproc-per-node), not "
                f"{self.world.size}"
            )

    def _data_parallel_loss(self) -> Callable[[Batch], tuple[torch.Tensor, int]]:
        """``model.loss``; with several processes, wrapped in ``DistributedDataParallel``,
        whose hooks average the gradients over the processes during the backward pass (rank 0's
        initial weights are sent to the others when it is built)."""
        if self.world.size == 1:
            return self.model.loss
        from torch.nn.parallel import DistributedDataParallel

        return DistributedDataParallel(_LossOf(self.model))

    def _check_same_data(self, meta: dict[str, Any]) -> None:
        saved_data = meta.get("data") or {}
        if saved_data and self.data.description and saved_data != self.data.description:
            raise ValueError(
                f"cannot resume with different data: the run was trained on {saved_data}, "
                f"given {self.data.description}"
            )
        saved_codec = meta.get("codec")
        if (
            "codec" in self.common
            and saved_codec is not None
            and saved_codec != self.common["codec"]
        ):
            raise ValueError(
                "cannot resume with a different codec (subword model or language) than the "
                "saved run's; start a new run in another --out folder"
            )
        if saved_codec is not None:
            self.common["codec"] = saved_codec

    def _encode_data(self) -> None:
        """Ids of the training items, the copy items and the dev sample, built once."""
        train = self.data.train
        self.copy_pool = _copy_pool(train) if self.config.copy_examples > 0 else []
        self.n_copy = round(self.config.copy_examples * len(train)) if self.copy_pool else 0
        self.encoded = encode_items(self.model, list(train) + self.copy_pool)
        self.lengths = [len(it.target) for it in train] + [len(it.target) for it in self.copy_pool]
        self.by_language: dict[Any, list[int]] = {}
        for i, it in enumerate(train):
            self.by_language.setdefault(it.language, []).append(i)
        self.dev_rows = dev_sample(self.data.dev, self.config.dev_sample)
        self.dev_items = [self.data.dev[i] for i in self.dev_rows]
        self.dev_encoded = encode_items(self.model, self.dev_items)
        shares = language_shares(
            {k: len(v) for k, v in self.by_language.items()}, self.config.language_temperature
        )
        self.shares = shares
        n = sum(shares.values()) + self.n_copy
        if n < self.world.size:
            raise ValueError(f"{n} training items cannot be shared by {self.world.size} processes")
        self.batches_per_epoch = math.ceil(n / self.update_size)

    @property
    def update_size(self) -> int:
        """Rows of one update: the batch size times the processes (torchrun's world size)."""
        return self.config.batch_size * self.world.size

    def _set_learning_rate(self, lr: float) -> None:
        self.state.learning_rate = lr
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    # ---------------------------------------------------------------- one epoch
    def epoch_batches(self, epoch: int) -> list[list[int]]:
        """The batches of ``epoch`` (rows of the encoded training + copy items), a function of
        the seed and the epoch only; seeds the global RNG (dropout) for the epoch too.

        A batch holds :attr:`update_size` rows (the last of a pool fewer); with several
        processes, each one trains on its share of a batch (see :meth:`_train_step`), draws its
        own dropout masks, and no batch has fewer rows than processes."""
        seed = _epoch_seed(self.config.seed, epoch)
        torch.manual_seed(seed)
        gen = torch.Generator().manual_seed(seed + 1)
        rows: list[int] = []
        for lang in sorted(self.by_language, key=lambda x: x or ""):
            own = self.by_language[lang]
            share = self.shares[lang]
            rows += own if share == len(own) else [own[i] for i in _draw(len(own), share, gen)]
        offset = len(self.data.train)
        rows += [offset + i for i in _draw(len(self.copy_pool), self.n_copy, gen)]
        batches = _shuffled_batches([self.lengths[r] for r in rows], self.update_size, gen)
        if self.world.size > 1:
            torch.manual_seed((seed + 104_729 * self.world.rank) % (2**63 - 1))
            batches = _every_process_a_share(batches, self.world.size)
        return [[rows[i] for i in b] for b in batches]

    def _share(self, rows: list[int]) -> list[int]:
        """This process's rows of an update: every ``size``-th from its rank on (the rows are
        sorted by length within a batch, so each process gets rows of every length)."""
        if self.world.size == 1:
            return rows
        return rows[self.world.rank :: self.world.size]

    def _train_step(self, rows: list[int]) -> tuple[float, int]:
        """One update on the batch of ``rows``: (summed loss, target symbols) of the update.

        The gradient is that of the mean loss per target symbol of all the rows. With W
        processes, each computes the summed loss of its share; dividing it by N / W, N the
        update's target symbols over all processes, makes the average that
        ``DistributedDataParallel`` takes of the W gradients the gradient of Σ loss / N.
        """
        batch = self.encoded.batch(self._share(rows), self.device)
        self.optimizer.zero_grad(set_to_none=True)
        with _autocast(self.device):
            loss, n_tok = self._loss(batch)
        total_loss, total_tokens = self.world.sum_counts(loss.detach(), n_tok)
        if not math.isfinite(total_loss):  # every process sees the same sum: all stop here
            st = self.state
            raise TrainingDiverged(self.out, st.epoch + 1, st.batch + 1, self.batches_per_epoch,
                                   self.optimizer.param_groups[0]["lr"], st.epoch)
        (loss / (total_tokens / self.world.size)).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.optimizer.step()
        return total_loss, total_tokens

    def _run_epoch(self, stop: _StopRequests) -> bool:
        """Train one epoch from ``state.batch``; False when stopped by a signal (state saved)."""
        st, epoch = self.state, self.state.epoch + 1
        batches = self.epoch_batches(epoch)
        if st.batch and self.rng_state:
            rank = self.world.rank
            torch.set_rng_state(self.rng_state[_rng_key(rank, "cpu")])
            if _rng_key(rank, "cuda") in self.rng_state and torch.cuda.is_available():
                torch.cuda.set_rng_state(self.rng_state[_rng_key(rank, "cuda")], self.device)
        self.model.train()
        t0, last_save, cpu0 = time.perf_counter(), time.perf_counter(), time.process_time()
        base_seconds, base_cpu, start_batch = st.epoch_seconds, st.epoch_cpu_seconds, st.batch
        for b in range(st.batch, len(batches)):
            loss, n_tok = self._train_step(batches[b])
            st.epoch_loss += loss
            st.epoch_tokens += n_tok
            st.batch = b + 1
            st.epoch_seconds = base_seconds + time.perf_counter() - t0
            st.epoch_cpu_seconds = base_cpu + time.process_time() - cpu0
            info = {
                "epoch": epoch,
                "batch": b + 1,
                "batches": len(batches),
                "loss": st.epoch_loss / max(1, st.epoch_tokens),
            }
            try:
                self.notify("batch", info)
            except KeyboardInterrupt:  # a callback's stop request, at a batch boundary
                stop.requested = stop.requested or "progress callback"
            done = b + 1 - start_batch
            if not self._estimated and (done == 50 or b + 1 == len(batches)):
                self._estimated = True
                self._estimate(done, time.perf_counter() - t0, len(batches) - start_batch)
            due = (
                b + 1 < len(batches) and time.perf_counter() - last_save >= self.checkpoint_seconds
            )
            # every process stops (a signal may reach them at different batches) and saves
            # (rank 0's timer) at the same batch
            stop_now, save_now = self.world.agree(stop.requested is not None, due)
            if stop_now:
                stop.requested = stop.requested or "another process's stop request"
                self._save_state()
                return False
            if save_now:
                self._save_state()
                last_save = time.perf_counter()
                self.notify("checkpoint", {"epoch": epoch, "batch": b + 1})
        return True

    def _estimate(self, done: int, seconds: float, batches_left: int) -> None:
        """The "estimate" event: an epoch's training time and the run's at most, from ``done``
        batches in ``seconds`` (``batches_left`` were left in this epoch when they started)."""
        per_batch = seconds / max(1, done)
        per_epoch = per_batch * self.batches_per_epoch
        later = self.config.max_epochs - self.state.epoch - 1
        self.notify(
            "estimate",
            {
                "seconds_per_epoch": per_epoch,
                "epochs_left": later + 1,
                "seconds_left_at_most": per_batch * batches_left + per_epoch * later,
            },
        )

    # ---------------------------------------------------------------- validation
    def _validate(self) -> tuple[float, float, float, list[dict[str, Any]]]:
        """Dev loss, exact-match accuracy, the selection score and per-language accuracies on the
        dev sample."""
        dev_loss, dev_acc, preds = evaluate(
            self.model, self.dev_items, self.config.eval_batch_size, encoded=self.dev_encoded
        )
        if self.data.dev_score is None:
            score = dev_acc
        else:
            score = float(self.data.dev_score(preds, self.dev_items))
        per_language: dict[Any, list[int]] = {}
        for pred, item in zip(preds, self.dev_items, strict=True):
            counts = per_language.setdefault(item.language, [0, 0])
            counts[0] += 1
            counts[1] += pred == item.target
        rows = [
            {"language": lang, "examples": n, "accuracy": 100.0 * ok / n}
            for lang, (n, ok) in sorted(per_language.items(), key=lambda x: x[0] or "")
        ]
        return dev_loss, dev_acc, score, rows

    def _end_epoch(self) -> None:
        """Validate, schedule the learning rate, select, write metrics and checkpoints."""
        st, config = self.state, self.config
        epoch = st.epoch + 1
        t0, cpu0 = time.perf_counter(), time.process_time()
        dev_loss, dev_acc, score, languages = self.world.from_main(self._validate)
        lr_used = st.learning_rate
        if st.prev_dev_loss is not None and dev_loss > st.prev_dev_loss:
            self._set_learning_rate(max(config.min_learning_rate, lr_used * config.lr_decay))
        st.prev_dev_loss = dev_loss
        is_best = score > st.best_score
        if is_best:
            st.best_score, st.best_epoch, st.bad_epochs = score, epoch, 0
        else:
            st.bad_epochs += 1
        train_seconds = st.epoch_seconds
        seconds = train_seconds + time.perf_counter() - t0
        n_items = sum(self.shares.values()) + self.n_copy
        row = EpochMetrics(
            epoch=epoch,
            train_loss=st.epoch_loss / max(1, st.epoch_tokens),
            dev_loss=dev_loss,
            dev_accuracy=dev_acc,
            learning_rate=lr_used,
            seconds=seconds,
            train_examples_per_s=n_items / max(train_seconds, 1e-9),
            best=is_best,
            dev_score=score,
            cpu_seconds=st.epoch_cpu_seconds + time.process_time() - cpu0,
        ).__dict__
        st.metrics.append(row)
        train_tokens = st.epoch_tokens
        st.epoch, st.batch, st.seconds = epoch, 0, st.seconds + seconds
        st.epoch_loss, st.epoch_tokens, st.epoch_seconds = 0.0, 0, 0.0
        st.epoch_cpu_seconds = 0.0
        if st.bad_epochs >= config.patience:
            st.stopped_early = True
        st.finished = st.stopped_early or epoch >= config.max_epochs
        # Order matters for resume: best weights first, then metrics, then the state that says
        # this epoch is done.
        if self.world.is_main:
            if is_best:
                self._save_model()
            self._write_metrics(languages, epoch)
        self._save_state()
        self.notify(
            "epoch",
            dict(
                row,
                best_accuracy=st.best_score,
                best_epoch=st.best_epoch,
                train_tokens=train_tokens,
                train_seconds=train_seconds,
                languages=languages,
            ),
        )

    # ---------------------------------------------------------------- files
    def _save_model(self) -> None:
        ckpt.save_model(
            self.out,
            self.model,
            languages=self.common["languages"],
            metrics=self.state.metrics,
            training=self._training_facts(),
            codec=self.common.get("codec"),
        )

    def _training_facts(self) -> dict[str, Any]:
        """The ``training`` facts of ``model.safetensors``: the run's summary and, for a warm
        start, the checkpoint it began from (``init_from``)."""
        init = {"init_from": self.common["init_from"]} if "init_from" in self.common else {}
        return self.state.summary(self.data) | init

    def _save_state(self) -> None:
        """Write the resumable state (rank 0; with several processes every process calls it: their
        random states are saved too, and they continue when the file is written)."""
        random_states = self._random_states()
        if self.world.is_main:
            self._write_state(random_states)
        self.world.barrier()

    def _write_state(self, random_states: dict[str, torch.Tensor]) -> None:
        tensors = {f"model.{k}": v for k, v in self.model.state_dict().items()}
        opt_tensors, opt_meta = ckpt.optimizer_to_tensors(self.optimizer)
        tensors.update(opt_tensors)
        tensors.update(random_states)
        meta = {
            "format": ckpt.FORMAT,
            "kind": "trainer_state",
            "state": self.state.to_dict(),
            "optimizer": opt_meta,
            "versions": ckpt.versions(),
            **self.common,
        }
        ckpt.save_tensors(self.out / ckpt.STATE_FILE, tensors, meta)

    def _random_states(self) -> dict[str, torch.Tensor]:
        """``rng.cpu`` (and ``rng.cuda``) of rank 0, ``rng.rank<r>.cpu`` ... of the others."""
        own = {"cpu": torch.get_rng_state()}
        if self.device.type == "cuda":
            own["cuda"] = torch.cuda.get_rng_state(self.device)
        return {
            f"rng.{_rng_key(rank, kind)}": state
            for rank, states in enumerate(self.world.gather(own))
            for kind, state in states.items()
        }

    def _write_metrics(self, languages: list[dict[str, Any]], epoch: int) -> None:
        columns = [f.name for f in dataclasses.fields(EpochMetrics)]
        write_bytes(self.out / ckpt.METRICS_FILE, _csv(columns, self.state.metrics))
        if len(languages) > 1:  # per-language dev accuracy, one row per epoch and language
            path = self.out / LANGUAGE_METRICS_FILE
            columns = ["epoch", "language", "examples", "accuracy"]
            rows = []
            if path.is_file():
                with open(path, newline="", encoding="utf-8") as fh:
                    rows = [r for r in csv.DictReader(fh) if int(r["epoch"]) < epoch]
            rows += [dict(r, epoch=epoch) for r in languages]
            write_bytes(path, _csv(columns, rows))

    # ---------------------------------------------------------------- the run
    def run(self) -> TrainResult:
        """Train until ``max_epochs``, early stopping, or a stop request.

        Raises:
            See :func:`train`.
        """
        with self.world.joined(self.device):
            try:
                with self._owning_folder(), _StopRequests() as stop:
                    return self._run(stop)
            finally:
                # DistributedDataParallel holds the process group: let it go before the group
                # (freeing it later, with the group's last reference, can deadlock gloo)
                self._loss = None

    @contextlib.contextmanager
    def _owning_folder(self) -> Iterator[None]:
        """Create the run folder and hold its lock for the block (rank 0 only: the other
        processes of a data-parallel run never write it)."""
        if not self.world.is_main:
            yield
            return
        _prepare_out_dir(self.out)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise ValueError(
                f"{self.out} is in use by another training run (lock {self.out / '.lock'}); "
                "wait for it to end or choose another --out"
            ) from None
        try:
            yield
        finally:
            self._lock.release()
            with contextlib.suppress(OSError):
                (self.out / ".lock").unlink()

    def _run(self, stop: _StopRequests) -> TrainResult:
        self._setup()
        st = self.state
        if st.finished:  # resumed after its end: nothing to train, the selected model stays
            self.notify(
                "finished_before",
                {
                    "epochs": st.epoch,
                    "max_epochs": self.config.max_epochs,
                    "stopped_early": st.stopped_early,
                },
            )
        else:
            self.notify("start", self._start_info())
        try:
            while not st.finished:
                if not self._run_epoch(stop):
                    self.notify(
                        "interrupted",
                        {"epoch": st.epoch, "batch": st.batch, "signal": stop.requested},
                    )
                    raise TrainingInterrupted(self.out, st.epoch, st.batch, self.batches_per_epoch)
                self.rng_state = {}
                self._end_epoch()
                if self.world.agree(stop.requested is not None, False)[0]:
                    raise TrainingInterrupted(self.out, st.epoch)
        except KeyboardInterrupt as exc:
            if isinstance(exc, TrainingInterrupted):
                raise
            # interrupted inside an update: the last saved state is the resumable one
            self.notify("interrupted", {"epoch": st.epoch, "batch": st.batch})
            raise TrainingInterrupted(self.out, *self._saved_position()) from None
        if not st.finished:
            st.finished = True
            self._save_state()
        selected = self.out / ckpt.MODEL_FILE
        if self.world.is_main and st.metrics and st.best_epoch != st.epoch and selected.is_file():
            # the selected checkpoint's metadata gets the complete metrics table
            tensors, meta = ckpt.load_tensors(selected)
            meta["metrics"], meta["training"] = st.metrics, self._training_facts()
            ckpt.save_tensors(selected, tensors, meta)
        self.notify(
            "end", {"best_epoch": st.best_epoch, "best_accuracy": st.best_score, "epochs": st.epoch}
        )
        return TrainResult(
            out_dir=self.out,
            best_epoch=st.best_epoch,
            best_dev_accuracy=st.best_score,
            epochs=st.epoch,
            stopped_early=st.stopped_early,
            seconds=st.seconds,
            rows=list(st.metrics),
        )

    def _saved_position(self) -> tuple[int, int, int]:
        meta = ckpt.load_metadata(self.out / ckpt.STATE_FILE)
        saved = RunState.from_dict(meta["state"])
        return saved.epoch, saved.batch, self.batches_per_epoch

    def _start_info(self) -> dict[str, Any]:
        return {
            "start_epoch": self.state.epoch,
            "start_batch": self.state.batch,
            "max_epochs": self.config.max_epochs,
            "batches_per_epoch": self.batches_per_epoch,
            "device": str(self.device),
            "precision": "bfloat16 products"
            if self.model.matmul_dtype is not None
            else ("bfloat16 autocast" if self.device.type == "cuda" else "float32"),
            "dev_examples": len(self.dev_items),
            "dev_unseen_symbols": sorted(
                {c for it in self.data.dev for c in it.source if c not in self.model.source_vocab}
            ),
            "parameters": sum(p.numel() for p in self.model.parameters()),
            "world_size": self.world.size,
            "examples_per_update": self.update_size,
        }


class _LossOf(torch.nn.Module):
    """A model's summed training loss as a module's ``forward`` (what DistributedDataParallel
    wraps: its gradient hooks are armed by calls of its ``forward``)."""

    def __init__(self, model: Seq2Seq) -> None:
        super().__init__()
        self.model = model

    def forward(self, batch: Batch) -> tuple[torch.Tensor, int]:
        return self.model.loss(batch)


def _rng_key(rank: int, kind: str) -> str:
    """Name of a process's saved random state (``cpu``/``cuda``; ``rank<r>.`` before it for
    ranks above 0, so that a plain run's names are unchanged)."""
    return kind if rank == 0 else f"rank{rank}.{kind}"


def _every_process_a_share(batches: list[list[int]], processes: int) -> list[list[int]]:
    """``batches`` with the rows of each batch of fewer rows than ``processes`` moved to the
    last batch that has enough, so that every process has rows in every update."""
    out: list[list[int]] = []
    small: list[int] = []
    for b in batches:
        if len(b) < processes:
            small += b
        else:
            out.append(b)
    if small and out:
        out[-1] = out[-1] + small
    elif small:
        out = [small]
    return out


#: Per-language dev accuracy per epoch (multilingual runs).
LANGUAGE_METRICS_FILE = "metrics-languages.csv"


def _csv(columns: list[str], rows: list[dict[str, Any]]) -> bytes:
    """``rows`` as CSV bytes with a header (floats in full precision)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode()


def train(
    config: Config | None,
    data: TrainingData,
    out_dir: str | Path,
    *,
    device: str = "auto",
    resume: bool = False,
    max_epochs: int | None = None,
    patience: int | None = None,
    progress: ProgressCallback | None = None,
    checkpoint_seconds: float = defaults.CHECKPOINT_SECONDS,
    precision: str = "auto",
    init_from: str | Path | None = None,
) -> TrainResult:
    """Train a model, select it on dev accuracy, and write a checkpoint folder.

    Args:
        config: hyperparameters. On resume, None means the saved run's config; a config that
            differs from the saved one (other than ``max_epochs`` / ``patience``) is an error.
        data: training and dev items (and the language specs stored in the checkpoint).
        out_dir: the checkpoint folder (``model.safetensors``, ``metrics.csv``,
            ``metrics-languages.csv`` for several languages, ``trainer_state.safetensors``).
        device: ``"auto"``, ``"cpu"``, ``"cuda"`` or any torch device string.
        resume: continue the run saved in ``out_dir`` from where its state was saved (an epoch
            boundary or a point inside an epoch).
        max_epochs, patience: override the config's (also on resume).
        progress: callback for progress events; raising KeyboardInterrupt from a "batch" event
            stops the run at that batch boundary with a resumable state.
        checkpoint_seconds: save the trainer state inside an epoch at least this often.
        precision: ``"auto"``: bfloat16 matrix products in the decoder where the hardware has
            them (CUDA autocast; CPUs with AVX512-BF16), float32 elsewhere; ``"float32"``.
        init_from: a model checkpoint to start from instead of random weights (a warm start:
            its network and vocabularies, trained further with ``config``, whose network fields
            must be the checkpoint's, see :func:`initial_config`); recorded as ``init_from``
            (path and SHA-256) in the training facts of ``model.safetensors``. Not with
            ``resume``.

    Returns:
        A :class:`TrainResult`.

    Raises:
        FileExistsError: ``out_dir`` already holds a run and ``resume`` is False.
        FileNotFoundError: ``resume`` but no trainer state in ``out_dir``.
        TrainingInterrupted: on Ctrl-C or SIGTERM (the run is resumable).
        ValueError: on resume, a config that differs from the saved run's; a fresh run
            without a config; empty training or dev data; a run folder that cannot be
            written or that another run is using; ``init_from`` with ``resume``, with another
            network, or with data outside its vocabularies (see :func:`warm_start_model`).
        CheckpointError: ``init_from`` is not a model checkpoint.
    """
    return Trainer(
        config,
        data,
        out_dir,
        device=device,
        resume=resume,
        max_epochs=max_epochs,
        patience=patience,
        progress=progress,
        checkpoint_seconds=checkpoint_seconds,
        precision=precision,
        init_from=init_from,
    ).run()


def saved_run(out_dir: str | Path) -> dict[str, str]:
    """The data arguments of the run saved in ``out_dir``, for resuming it without repeating them.

    Returns:
        ``{"lang": ..., "setting": ...}`` to pass to :func:`load_data` (``lang`` is ``"all"``
        for a run made with ``"all"`` that took a smaller setting's data for some languages,
        else the comma-separated languages).

    Raises:
        FileNotFoundError: no trainer state in ``out_dir``.
        ValueError: the state does not say which data it was trained on (e.g. translation).
        CheckpointError: the state file is unreadable.
    """
    path = Path(out_dir) / ckpt.STATE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no trainer state to resume from")
    meta = ckpt.load_metadata(path)
    data = meta.get("data") or {}
    if not data.get("languages") or not data.get("setting"):
        raise ValueError(f"{path}: the run does not record its languages and setting")
    lang = "all" if data.get("smaller_settings") else ",".join(data["languages"])
    return {"lang": lang, "setting": data["setting"]}


def run_status(out_dir: str | Path) -> str:
    """The state of a training run folder, for drivers that skip or resume runs.

    Returns:
        ``"new"`` (no trainer state: start a fresh run; the folder may not exist),
        ``"interrupted"`` (a trainer state whose run has not finished: ``train(..., resume=True)``)
        or ``"finished"`` (the run reached its last epoch or stopped early, and its
        ``model.safetensors`` exists).

    Raises:
        CheckpointError: the trainer state is unreadable.
    """
    out = Path(out_dir)
    state_path = out / ckpt.STATE_FILE
    if not state_path.is_file():
        return "new"
    meta = ckpt.load_metadata(state_path)
    finished = bool((meta.get("state") or {}).get("finished"))
    return "finished" if finished and (out / ckpt.MODEL_FILE).is_file() else "interrupted"
