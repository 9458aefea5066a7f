"""The training loop: batches, Adam, model selection on dev, early stopping, checkpoints, resume.

Peters et al. (2019), section 5: Adam, gradient-norm clipping, the learning rate halved whenever the
dev loss rises (OpenNMT-py's schedule), the output trained with the Fenchel–Young loss of its
mapping.

**Model selection differs from the paper.** The paper selected checkpoints by teacher-forced
symbol accuracy on dev; here the model is selected by *exact-match accuracy of greedy decoding*
on dev (the shared task's metric), computed after every epoch, with early stopping after
``patience`` epochs without improvement and at most ``max_epochs`` epochs.

Determinism and resume: the weights are initialised after ``torch.manual_seed(seed)``; at the start
of epoch e the global RNG (dropout) and the shuffling generator are both seeded from
``(seed, e)``. The full trainer state (weights, Adam moments, learning rate, counters) is written
atomically at every epoch boundary, so an interrupted run (Ctrl-C, a crash) resumes from the last
boundary with :func:`train` ``(resume=True)`` and, on CPU, ends with the same weights as an
uninterrupted run.
"""

from __future__ import annotations

import contextlib
import io
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from inflect import checkpoint as ckpt
from inflect.checkpoint import load_model  # re-exported for convenience
from inflect.model import COPY_FEATURE, Batch, Config, Seq2Seq, resolve_device
from inflect.vocab import PAD, Vocab

__all__ = [
    "EpochMetrics",
    "Item",
    "ProgressCallback",
    "TrainResult",
    "TrainingData",
    "TrainingInterrupted",
    "build_model",
    "evaluate",
    "items_from_examples",
    "items_from_texts",
    "load_data",
    "load_model",
    "make_batch",
    "resolve_device",
    "train",
]

#: ``progress(event, info)`` receives "start", "batch", "epoch", "end" and "interrupted" events.
ProgressCallback = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class Item:
    """One example at the symbol level (what the model sees).

    Attributes:
        source: source symbols (``spec.to_symbols(lemma)``).
        features: UniMorph features of the tag bundle (empty for a model without tags).
        language: language name, or None (no language symbol).
        target: target symbols (``spec.to_symbols(form)``).
    """

    source: tuple[str, ...]
    features: frozenset[str]
    language: str | None
    target: tuple[str, ...]


#: ``dev_score(predictions, items) -> float``: a model-selection score on dev, higher is better.
DevScore = Callable[[Sequence[tuple[str, ...]], Sequence[Item]], float]


@dataclass
class TrainingData:
    """Training and dev items with what the checkpoint must remember about them.

    Attributes:
        train, dev: the items (symbol level).
        languages: :class:`~inflect.languages.LanguageSpec` objects (stored in the checkpoint).
        description: JSON-able facts about the data (stored; a resumed run must match them).
        codec: the :class:`~inflect.codec.Codec` that made the items' symbols from raw text
            (e.g. a SentencePiece model for translation), or None; its dict is stored in the
            checkpoint so that :func:`~inflect.checkpoint.load_model` rebuilds it
            (``model.codec``) without side files.
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


@dataclass
class TrainResult:
    """What a finished (or early-stopped) run produced.

    ``best_dev_accuracy`` is the model-selection score of the best epoch: the dev accuracy in
    percent, or ``TrainingData.dev_score`` where one was given.
    """

    out_dir: Path
    best_epoch: int
    best_dev_accuracy: float
    epochs: int
    stopped_early: bool
    seconds: float
    metrics: pd.DataFrame


class TrainingInterrupted(KeyboardInterrupt):
    """Raised when a run is interrupted; the last epoch boundary is saved and resumable."""

    def __init__(self, out_dir: Path, epoch: int):
        super().__init__(
            f"training interrupted; resumable from the end of epoch {epoch} "
            f"(run again with --resume --out {out_dir})"
        )
        self.out_dir = out_dir
        self.epoch = epoch


# --------------------------------------------------------------------------------- data
def items_from_examples(examples: Iterable[Any], specs: dict[str, Any]) -> list[Item]:
    """Turn :class:`inflect.data.Example` records into :class:`Item` s.

    Args:
        examples: examples with a gold form.
        specs: language name -> :class:`~inflect.languages.LanguageSpec`.

    Raises:
        ValueError: an example without a form (``FILE:LINE``) or of an unknown language.
    """
    items = []
    for ex in examples:
        where = f"{ex.source}:{ex.line}" if ex.source else "example"
        if ex.form is None:
            raise ValueError(f"{where}: training/dev example without a form ({ex.lemma!r})")
        spec = specs.get(ex.language)
        if spec is None:
            raise ValueError(f"{where}: language {ex.language!r} has no spec")
        items.append(
            Item(
                source=tuple(spec.to_symbols(ex.lemma)),
                features=frozenset(ex.tags.features),
                language=spec.name,
                target=tuple(spec.to_symbols(ex.form)),
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
        codec: a :class:`~inflect.codec.Codec`.
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
        items.append(Item(tuple(codec.encode(src)), frozenset(), None, tuple(codec.encode(tgt))))
    return items


def load_data(
    languages: str | Sequence[str], setting: str, data_dir: str | Path | None = None
) -> TrainingData:
    """Read train-<setting> and dev of CoNLL–SIGMORPHON 2018 task 1 for one or more languages.

    Args:
        languages: a name, a comma-separated list, a sequence of names (any alias), or ``"all"``
            (every language with training data in ``setting``).
        setting: ``"high"``, ``"medium"`` or ``"low"``.
        data_dir: the data folder (default: :func:`inflect.datasets.data_dir`).

    Raises:
        ValueError: an unknown setting or language; FileNotFoundError: a missing file.
    """
    from inflect.data import load_split
    from inflect.languages import all_languages, resolve

    if setting not in ("high", "medium", "low"):
        raise ValueError(f"setting must be high, medium or low, got {setting!r}")
    names = (
        [n.strip() for n in languages.split(",")] if isinstance(languages, str) else list(languages)
    )
    if names == ["all"]:
        specs = [s for s in all_languages() if setting in s.settings]
    else:
        specs = [resolve(n) for n in names if n]
    if not specs:
        raise ValueError("no language given")
    by_name = {s.name: s for s in specs}
    train_ex, dev_ex = [], []
    for spec in by_name.values():
        train_ex += load_split(spec.name, f"train-{setting}", data_dir)
        dev_ex += load_split(spec.name, "dev", data_dir)
    return TrainingData(
        train=items_from_examples(train_ex, by_name),
        dev=items_from_examples(dev_ex, by_name),
        languages=list(by_name.values()),
        description={
            "languages": list(by_name),
            "setting": setting,
            "train_examples": len(train_ex),
            "dev_examples": len(dev_ex),
        },
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


def make_batch(model: Seq2Seq, items: Sequence[Item], *, targets: bool = True) -> Batch:
    """Encode ``items`` with the model's vocabularies (see :meth:`Seq2Seq.make_batch`)."""
    return model.make_batch(
        [it.source for it in items],
        [it.features for it in items] if model.feature_vocab is not None else None,
        [it.language for it in items] if model.language_vocab is not None else None,
        [it.target for it in items] if targets else None,
        warn=False,
    )


def _autocast(device: torch.device) -> contextlib.AbstractContextManager[Any]:
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


# --------------------------------------------------------------------------------- evaluation
@torch.inference_mode()
def evaluate(
    model: Seq2Seq, items: Sequence[Item], batch_size: int = 500, max_len: int | None = None
) -> tuple[float, float, list[tuple[str, ...]]]:
    """Dev loss (teacher-forced) and exact-match accuracy of greedy decoding.

    Args:
        model: the model (put in eval mode).
        items: examples with targets.
        batch_size: examples per batch (sorted by source length to limit padding).
        max_len: output length cap (default ``2 * longest source + 10`` per batch).

    Returns:
        (mean loss per target symbol, accuracy in percent, predicted symbol tuples in the
        order of ``items`` — UNKs replaced by the most attended source symbol).
    """
    from inflect.search import greedy

    model.eval()
    device = model.device
    order = sorted(range(len(items)), key=lambda i: (len(items[i].source), i))
    preds: list[tuple[str, ...]] = [()] * len(items)
    total_loss, total_tokens, correct = 0.0, 0, 0
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        chunk = [items[i] for i in idx]
        batch = make_batch(model, chunk)
        with _autocast(device):
            loss, n = model.loss(batch)
            total_loss += float(loss)
            total_tokens += n
            cap = max_len or model.config.max_decode_len or (2 * batch.source.shape[1] + 10)
            hyps = greedy(model, batch, cap)
        for j, (i, hyp) in enumerate(zip(idx, hyps, strict=True)):
            symbols = tuple(
                model.tokens_to_symbols(hyp.tokens, hyp.attention, batch.source_symbols[j])
            )
            preds[i] = symbols
            correct += symbols == items[i].target
    accuracy = 100.0 * correct / max(1, len(items))
    return total_loss / max(1, total_tokens), accuracy, preds


# --------------------------------------------------------------------------------- state
def _epoch_seed(seed: int, epoch: int) -> int:
    return (seed * 1_000_003 + epoch * 7_919 + 17) % (2**63 - 1)


def _save_state(
    out: Path,
    model: Seq2Seq,
    optimizer: torch.optim.Optimizer,
    state: dict[str, Any],
    common: dict[str, Any],
) -> None:
    tensors = {f"model.{k}": v for k, v in model.state_dict().items()}
    opt_tensors, opt_meta = ckpt.optimizer_to_tensors(optimizer)
    tensors.update(opt_tensors)
    meta = {
        "format": ckpt.FORMAT,
        "kind": "trainer_state",
        "state": state,
        "optimizer": opt_meta,
        "versions": ckpt.versions(),
        **common,
    }
    ckpt.save_tensors(out / ckpt.STATE_FILE, tensors, meta)


def _write_metrics(out: Path, rows: list[dict[str, Any]]) -> None:
    buf = io.StringIO()
    pd.DataFrame(rows, columns=[f.name for f in EpochMetrics.__dataclass_fields__.values()]).to_csv(
        buf, index=False
    )
    ckpt.atomic_write_bytes(out / ckpt.METRICS_FILE, buf.getvalue().encode())


# --------------------------------------------------------------------------------- training
def _copy_pool(items: Sequence[Item]) -> list[Item]:
    """Autoencoding items: every distinct lemma and form copied onto itself (sorted)."""
    words = {(it.source, it.language) for it in items} | {(it.target, it.language) for it in items}
    return [
        Item(w, frozenset({COPY_FEATURE}), lang, w)
        for w, lang in sorted(words, key=lambda x: (x[1] or "", x[0]))
    ]


def _copy_items(pool: list[Item], n: int, generator: torch.Generator) -> list[Item]:
    """``n`` items drawn from ``pool`` without replacement (repeating the pool if needed)."""
    if not n or not pool:
        return []
    out: list[Item] = []
    while len(out) < n:
        perm = torch.randperm(len(pool), generator=generator).tolist()
        out += [pool[i] for i in perm[: n - len(out)]]
    return out


def _shuffled_batches(
    items: Sequence[Item], batch_size: int, generator: torch.Generator, pool: int = 16
) -> list[list[int]]:
    """Random batches of similar target length (fewer padded decoder steps).

    A random permutation is cut into pools of ``pool`` batches; each pool is sorted by target
    length and cut into batches; the batches are then shuffled. Deterministic given
    ``generator``.
    """
    perm = torch.randperm(len(items), generator=generator).tolist()
    size = batch_size * pool
    batches: list[list[int]] = []
    for start in range(0, len(perm), size):
        chunk = sorted(perm[start : start + size], key=lambda i: len(items[i].target))
        batches += [chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size)]
    order = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in order]


def _check_same_config(saved: Config, given: Config) -> None:
    """Raise ValueError naming the fields where ``given`` differs from the resumed run's."""
    free = {"max_epochs", "patience", "preset"}
    a, b = saved.to_dict(), given.to_dict()
    diff = [f"{k}: saved {a[k]!r}, given {b[k]!r}" for k in a if k not in free and a[k] != b[k]]
    if diff:
        raise ValueError(
            "cannot resume with different settings (" + "; ".join(diff) + "); drop those "
            "options or start a new run in another --out folder"
        )


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
) -> TrainResult:
    """Train a model, select it on dev accuracy, and write a checkpoint folder.

    Args:
        config: hyperparameters. On resume, None means the saved run's config; a config that
            differs from the saved one (other than ``max_epochs`` / ``patience``) is an error.
        data: training and dev items (and the language specs stored in the checkpoint).
        out_dir: the checkpoint folder (``model.safetensors``, ``metrics.csv``,
            ``trainer_state.safetensors``).
        device: ``"auto"``, ``"cpu"``, ``"cuda"`` or any torch device string.
        resume: continue the run saved in ``out_dir`` from its last epoch boundary.
        max_epochs, patience: override the config's (also on resume).
        progress: callback for progress events.

    Returns:
        A :class:`TrainResult`.

    Raises:
        FileExistsError: ``out_dir`` already holds a run and ``resume`` is False.
        FileNotFoundError: ``resume`` but no trainer state in ``out_dir``.
        TrainingInterrupted: on KeyboardInterrupt (the run is resumable).
        ValueError: on resume, a config that differs from the saved run's; a fresh run
            without a config.
        ValueError: empty training or dev data.
    """
    out = Path(out_dir)
    state_path = out / ckpt.STATE_FILE
    if not data.train or not data.dev:
        raise ValueError("training and dev data must both be non-empty")
    dev = resolve_device(device)
    notify = progress or (lambda event, info: None)
    common = {
        "languages": [s.to_dict() if hasattr(s, "to_dict") else s for s in data.languages],
        "data": data.description,
    }
    if data.codec is not None:
        common["codec"] = data.codec.to_dict()

    if resume:
        if not state_path.is_file():
            raise FileNotFoundError(f"{state_path}: no trainer state to resume from")
        tensors, meta = ckpt.load_tensors(state_path)
        model = Seq2Seq.from_metadata(meta["model"])
        model.load_state_dict(
            {k[len("model.") :]: v for k, v in tensors.items() if k.startswith("model.")}
        )
        if config is not None:
            _check_same_config(model.config, config)
        saved_data = meta.get("data") or {}
        if saved_data and data.description and saved_data != data.description:
            raise ValueError(
                f"cannot resume with different data: the run was trained on {saved_data}, "
                f"given {data.description}"
            )
        saved_codec = meta.get("codec")
        if "codec" in common and saved_codec is not None and saved_codec != common["codec"]:
            raise ValueError(
                "cannot resume with a different codec (subword model or language) than the "
                "saved run's; start a new run in another --out folder"
            )
        if saved_codec is not None:
            common["codec"] = saved_codec
        config = model.config
        st = meta["state"]
    else:
        if state_path.exists() or (out / ckpt.MODEL_FILE).exists():
            raise FileExistsError(
                f"{out} already holds a training run; use --resume or a new --out"
            )
        if config is None:
            raise ValueError("a fresh training run needs a config")
        model = build_model(config, data.train, data.shared_vocab)
        st = {
            "epoch": 0,
            "learning_rate": config.learning_rate,
            "best_accuracy": -1.0,
            "best_epoch": 0,
            "bad_epochs": 0,
            "prev_dev_loss": None,
            "metrics": [],
            "finished": False,
            "stopped_early": False,
            "seconds": 0.0,
        }
        meta = None
    if max_epochs is not None:
        config.max_epochs = max_epochs
    if patience is not None:
        config.patience = patience
    config.validate()
    model.to(dev)
    optimizer = torch.optim.Adam(model.parameters(), lr=st["learning_rate"])
    if meta is not None:
        ckpt.optimizer_from_tensors(optimizer, tensors, meta["optimizer"])
    for group in optimizer.param_groups:
        group["lr"] = st["learning_rate"]
    common["model"] = model.metadata()
    if not resume:
        _save_state(out, model, optimizer, st, common)

    n_train = len(data.train)
    copy_pool = _copy_pool(data.train) if config.copy_examples > 0 else []
    n_copy = round(config.copy_examples * n_train) if copy_pool else 0
    batches_per_epoch = math.ceil((n_train + n_copy) / config.batch_size)
    notify(
        "start",
        {
            "start_epoch": st["epoch"],
            "max_epochs": config.max_epochs,
            "batches_per_epoch": batches_per_epoch,
            "device": str(dev),
            "dev_unseen_symbols": sorted(
                {c for it in data.dev for c in it.source if c not in model.source_vocab}
            ),
            "parameters": sum(p.numel() for p in model.parameters()),
        },
    )
    stopped = st["stopped_early"]
    try:
        while not stopped and st["epoch"] < config.max_epochs:
            epoch = st["epoch"] + 1
            t0 = time.perf_counter()
            torch.manual_seed(_epoch_seed(config.seed, epoch))
            gen = torch.Generator().manual_seed(_epoch_seed(config.seed, epoch) + 1)
            epoch_items = data.train + _copy_items(copy_pool, n_copy, gen)
            batches = _shuffled_batches(epoch_items, config.batch_size, gen)
            model.train()
            ep_loss, ep_tokens = 0.0, 0
            for b, rows in enumerate(batches):
                batch = make_batch(model, [epoch_items[i] for i in rows])
                optimizer.zero_grad(set_to_none=True)
                with _autocast(dev):
                    loss, n_tok = model.loss(batch)
                (loss / n_tok).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                optimizer.step()
                ep_loss += float(loss.detach())
                ep_tokens += n_tok
                notify("batch", {"epoch": epoch, "batch": b + 1, "loss": ep_loss / ep_tokens})
            train_seconds = time.perf_counter() - t0
            dev_loss, dev_acc, dev_preds = evaluate(model, data.dev, config.eval_batch_size)
            score = dev_acc if data.dev_score is None else float(data.dev_score(dev_preds, data.dev))
            lr_used = st["learning_rate"]
            if st["prev_dev_loss"] is not None and dev_loss > st["prev_dev_loss"]:
                st["learning_rate"] = max(config.min_learning_rate, lr_used * config.lr_decay)
                for group in optimizer.param_groups:
                    group["lr"] = st["learning_rate"]
            st["prev_dev_loss"] = dev_loss
            is_best = score > st["best_accuracy"]
            if is_best:
                st["best_accuracy"], st["best_epoch"], st["bad_epochs"] = score, epoch, 0
            else:
                st["bad_epochs"] += 1
            seconds = time.perf_counter() - t0
            row = EpochMetrics(
                epoch=epoch,
                train_loss=ep_loss / max(1, ep_tokens),
                dev_loss=dev_loss,
                dev_accuracy=dev_acc,
                learning_rate=lr_used,
                seconds=seconds,
                train_examples_per_s=len(epoch_items) / train_seconds,
                best=is_best,
                dev_score=score,
            ).__dict__
            st["metrics"].append(row)
            st["epoch"] = epoch
            st["seconds"] += seconds
            if st["bad_epochs"] >= config.patience:
                stopped = st["stopped_early"] = True
            st["finished"] = stopped or epoch >= config.max_epochs
            training = {
                k: st[k]
                for k in ("best_epoch", "best_accuracy", "epoch", "seconds", "stopped_early")
            } | {"data": data.description, "dev_score": data.dev_score_name}
            # Order matters for resume: best weights first, then metrics, then the state that
            # says this epoch is done.
            if is_best:
                ckpt.save_model(
                    out,
                    model,
                    languages=common["languages"],
                    metrics=st["metrics"],
                    training=training,
                    codec=common.get("codec"),
                )
            _write_metrics(out, st["metrics"])
            _save_state(out, model, optimizer, st, common)
            notify(
                "epoch",
                dict(
                    row,
                    best_accuracy=st["best_accuracy"],
                    best_epoch=st["best_epoch"],
                    train_tokens=ep_tokens,
                    train_seconds=train_seconds,
                ),
            )
    except KeyboardInterrupt:
        notify("interrupted", {"epoch": st["epoch"]})
        raise TrainingInterrupted(out, st["epoch"]) from None

    # Refresh the selected checkpoint's metadata with the complete metrics table.
    if (out / ckpt.MODEL_FILE).is_file():
        tensors, meta = ckpt.load_tensors(out / ckpt.MODEL_FILE)
        meta["metrics"] = st["metrics"]
        meta["training"] = {
            k: st[k] for k in ("best_epoch", "best_accuracy", "epoch", "seconds", "stopped_early")
        } | {"data": data.description, "dev_score": data.dev_score_name}
        ckpt.save_tensors(out / ckpt.MODEL_FILE, tensors, meta)
    metrics = pd.DataFrame(st["metrics"])
    notify(
        "end",
        {
            "best_epoch": st["best_epoch"],
            "best_accuracy": st["best_accuracy"],
            "epochs": st["epoch"],
        },
    )
    return TrainResult(
        out_dir=out,
        best_epoch=st["best_epoch"],
        best_dev_accuracy=st["best_accuracy"],
        epochs=st["epoch"],
        stopped_early=st["stopped_early"],
        seconds=st["seconds"],
        metrics=metrics,
    )


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
    _, meta = ckpt.load_tensors(state_path)
    finished = bool((meta.get("state") or {}).get("finished"))
    return "finished" if finished and (out / ckpt.MODEL_FILE).is_file() else "interrupted"
