"""Runs side by side (``inflect runs compare``): each run's dev accuracy, epochs and time, and the
settings in which the runs differ, read from what their folders record (the trainer state, else
the selected ``model.safetensors``), no weights loaded.

A run's settings are its config's fields (the network's and the training procedure's, every
field at its value, a default where an older checkpoint lacks the field: see
:meth:`inflect.training.config.Config.from_dict`), its data (in words), the checkpoint a warm
start began from, and the version and commit of the code that wrote it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inflect.nn import checkpoint as ckpt
from inflect.training.queue import finite_number, language_status

__all__ = ["COMPARE_COLUMNS", "RunSummary", "compare_runs", "run_summary"]

#: The columns every comparison has; the settings that differ follow.
COMPARE_COLUMNS = (
    "run",
    "state",
    "dev_accuracy",
    "best_epoch",
    "epochs",
    "cpu_minutes",
    "wall_minutes",
)


@dataclass
class RunSummary:
    """One run as its folder records it.

    Attributes:
        run: the path given.
        state: ``finished``, ``running`` (a training process holds the folder),
            ``interrupted`` (a trainer state not at its end) or ``model`` (a checkpoint
            without its trainer state, e.g. a shipped model's member).
        dev_accuracy: the selected epoch's dev accuracy in percent (None before the first).
        best_epoch: that epoch.
        epochs: epochs completed.
        cpu_seconds, seconds: CPU and wall time of the completed epochs.
        settings: setting name -> value (see the module docstring).
    """

    run: str
    state: str
    dev_accuracy: float | None
    best_epoch: int
    epochs: int
    cpu_seconds: float
    seconds: float
    settings: dict[str, Any] = field(default_factory=dict)


def _data_words(data: dict[str, Any]) -> str:
    """A run's data in words: ``german medium``, ``all high``, ``amharic: amh.trn``."""
    languages = data.get("languages") or []
    named = ",".join(languages) if len(languages) <= 3 else f"{len(languages)} languages"
    if "train_files" in data:
        return f"{named}: " + ", ".join(r.get("file", "") for r in data["train_files"])
    return f"{named} {data.get('setting', '')}".strip()


def run_summary(path: str | os.PathLike[str]) -> RunSummary:
    """What a run folder (or a model checkpoint) records.

    Raises:
        FileNotFoundError: neither a trainer state nor a model there.
        CheckpointError: an unreadable file.
    """
    from inflect.training.config import Config

    given = Path(path)
    state_file = given / ckpt.STATE_FILE
    model_file = given if given.is_file() else given / ckpt.MODEL_FILE
    if state_file.is_file():
        status = language_status(given.parent, given.name)  # running: its lock is held
        meta = ckpt.load_metadata(state_file)
        state, metrics = status.state, (meta.get("state") or {}).get("metrics") or []
        best, best_epoch, epochs = status.best_accuracy, status.best_epoch, status.epochs
        data, facts = meta.get("data") or {}, meta
    elif model_file.is_file():
        meta = ckpt.load_metadata(model_file)
        facts = meta.get("training") or {}
        state, metrics = "model", meta.get("metrics") or []
        best, best_epoch, epochs = (
            facts.get("best_accuracy"),
            facts.get("best_epoch", 0),
            facts.get("epoch"),
        )
        data = facts.get("data") or {}
    else:
        raise FileNotFoundError(
            f"{given}: no training run here (neither {ckpt.STATE_FILE} nor {ckpt.MODEL_FILE})"
        )
    config = Config.from_dict(((meta.get("model") or {}).get("config")) or {}).to_dict()
    versions = meta.get("versions") or {}
    settings = {
        **config,
        "data": _data_words(data),
        "init_from": (facts.get("init_from") or {}).get("path", ""),
        "version": versions.get("sparse-inflect", ""),
        "commit": versions.get("sparse-inflect-commit", ""),
    }
    return RunSummary(
        str(path),
        state,
        None if best is None or finite_number(best) < 0 else finite_number(best),
        int(best_epoch or 0),
        int(epochs if epochs is not None else len(metrics)),
        sum(finite_number(m.get("cpu_seconds")) for m in metrics),
        sum(finite_number(m.get("seconds")) for m in metrics),
        settings,
    )


def compare_runs(
    paths: Sequence[str | os.PathLike[str]],
) -> tuple[list[str], list[list[Any]]]:
    """The table of ``inflect runs compare``: :data:`COMPARE_COLUMNS`, then each setting whose
    value is not the same in every run (in the config's order, then data, init_from, version,
    commit), one row per run in the order given.

    Returns:
        ``(header, rows)``; minutes rounded to 0.01, accuracies as recorded.

    Raises:
        As :func:`run_summary`.
    """
    runs = [run_summary(p) for p in paths]
    names = list(dict.fromkeys(k for r in runs for k in r.settings))
    differing = [k for k in names if len({repr(r.settings.get(k)) for r in runs}) > 1]
    rows = [
        [
            r.run,
            r.state,
            r.dev_accuracy,
            r.best_epoch,
            r.epochs,
            round(r.cpu_seconds / 60, 2),
            round(r.seconds / 60, 2),
            *(r.settings.get(k, "") for k in differing),
        ]
        for r in runs
    ]
    return [*COMPARE_COLUMNS, *differing], rows
