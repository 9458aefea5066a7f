"""How a training run ends: a :class:`TrainResult`, or one of the exceptions that leave its
folder resumable (:class:`TrainingInterrupted`) or as it was saved (:class:`TrainingDiverged`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inflect.training.metrics import metrics_columns

__all__ = ["TrainResult", "TrainingDiverged", "TrainingInterrupted"]


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

        return pd.DataFrame(self.rows, columns=metrics_columns())


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
