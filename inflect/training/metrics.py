"""The per-epoch tables of a run folder: ``metrics.csv`` (one :class:`EpochMetrics` row per
epoch) and, for several languages, ``metrics-languages.csv`` (dev accuracy per epoch and
language). Both are rewritten whole, atomically, after every epoch."""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inflect.io.atomic import write_bytes
from inflect.nn import checkpoint as ckpt

__all__ = ["LANGUAGE_METRICS_FILE", "EpochMetrics", "metrics_columns", "write_metrics"]

#: Per-language dev accuracy per epoch (multilingual runs).
LANGUAGE_METRICS_FILE = "metrics-languages.csv"


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


def metrics_columns() -> list[str]:
    """The columns of ``metrics.csv``, in order (the fields of :class:`EpochMetrics`)."""
    return [f.name for f in dataclasses.fields(EpochMetrics)]


def _csv(columns: list[str], rows: list[dict[str, Any]]) -> bytes:
    """``rows`` as CSV bytes with a header (floats in full precision)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode()


def write_metrics(
    out: Path, rows: list[dict[str, Any]], languages: list[dict[str, Any]], epoch: int
) -> None:
    """Write ``out/metrics.csv`` (``rows``: :class:`EpochMetrics` as dicts) and, when
    ``languages`` (epoch ``epoch``'s rows of :func:`inflect.training.dev.language_accuracies`)
    has several, add them to ``out/metrics-languages.csv`` in place of any rows of ``epoch``
    or later that a stopped run left there."""
    write_bytes(out / ckpt.METRICS_FILE, _csv(metrics_columns(), rows))
    if len(languages) > 1:  # per-language dev accuracy, one row per epoch and language
        path = out / LANGUAGE_METRICS_FILE
        columns = ["epoch", "language", "examples", "accuracy"]
        kept = []
        if path.is_file():
            with open(path, newline="", encoding="utf-8") as fh:
                kept = [r for r in csv.DictReader(fh) if int(r["epoch"]) < epoch]
        kept += [dict(r, epoch=epoch) for r in languages]
        write_bytes(path, _csv(columns, kept))
