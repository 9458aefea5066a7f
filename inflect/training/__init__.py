"""Training: the run's config (:mod:`~inflect.training.config`: the training procedure's
fields, the network's beside them, the presets), items and data
(:mod:`~inflect.training.items`), a run's first model
(:mod:`~inflect.training.warm_start`), epoch sampling (:mod:`~inflect.training.sampling`), dev
evaluation (:mod:`~inflect.training.dev`), the run's state and folder
(:mod:`~inflect.training.state`), metrics tables (:mod:`~inflect.training.metrics`), stop
requests (:mod:`~inflect.training.signals`), the trainer loop (:mod:`~inflect.training.trainer`),
data parallel (:mod:`~inflect.training.distributed`), progress display
(:mod:`~inflect.training.progress`), the per-language queue (:mod:`~inflect.training.queue`), a
user's files as a run's data (:mod:`~inflect.training.files`) and runs side by side
(:mod:`~inflect.training.runs`).

The names of a training script are importable from here (``from inflect.training import
train, load_data, TrainingData, Config``), each imported from its module on first use
(importing one module of the package does not import the others).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Config": "config",
    "PRESETS": "config",
    "TrainConfig": "config",
    "Item": "items",
    "TrainingData": "items",
    "items_from_examples": "items",
    "items_from_texts": "items",
    "load_data": "items",
    "build_model": "warm_start",
    "initial_config": "warm_start",
    "warm_start_model": "warm_start",
    "dev_sample": "dev",
    "evaluate_dev": "dev",
    "RunState": "state",
    "run_status": "state",
    "saved_run": "state",
    "TrainResult": "results",
    "TrainingDiverged": "results",
    "TrainingInterrupted": "results",
    "Trainer": "trainer",
    "train": "trainer",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """The names of ``_EXPORTS``, imported from their modules on first use."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"inflect.training.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'inflect.training' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
