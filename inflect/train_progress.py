"""Rendering of training progress with rich: a progress bar and one line per epoch.

A :class:`RichProgress` is the ``progress`` callback of :func:`inflect.train.train`: the bar
shows the epoch, the running training loss, the last and best dev accuracy and the time left
(estimated over ``max_epochs``, so an early stop finishes sooner).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class RichProgress:
    """Context manager and callback ``(event, info)`` rendering training progress."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]epoch {task.fields[epoch]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"),
            TextColumn("dev {task.fields[dev]} (best {task.fields[best]})"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self.task: Any = None
        self.batches = 1

    def __enter__(self) -> RichProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, event: str, info: dict[str, Any]) -> None:
        if event == "start":
            self.batches = info["batches_per_epoch"]
            total = info["max_epochs"] * self.batches
            self.task = self.progress.add_task(
                "train",
                total=total,
                completed=info["start_epoch"] * self.batches,
                epoch=info["start_epoch"] + 1,
                loss="-",
                dev="-",
                best="-",
            )
            self.console.print(
                f"device {info['device']}, {info['parameters']:,} parameters, "
                f"{self.batches} batches per epoch"
            )
            unseen = info.get("dev_unseen_symbols") or []
            if unseen:
                self.console.print(
                    f"[yellow]dev has {len(unseen)} source symbol(s) unseen in training, read as "
                    f"<unk>: {' '.join(repr(u) for u in unseen[:20])}[/yellow]"
                )
        elif event == "batch" and self.task is not None:
            self.progress.update(
                self.task,
                completed=(info["epoch"] - 1) * self.batches + info["batch"],
                epoch=info["epoch"],
                loss=f"{info['loss']:.4f}",
            )
        elif event == "epoch" and self.task is not None:
            self.progress.update(
                self.task,
                completed=info["epoch"] * self.batches,
                dev=f"{info['dev_accuracy']:.1f}%",
                best=f"{info['best_accuracy']:.1f}%",
            )
            self.console.print(
                f"epoch {info['epoch']:3d}  train loss {info['train_loss']:.4f}  "
                f"dev loss {info['dev_loss']:.4f}  dev acc {info['dev_accuracy']:6.2f}%  "
                f"lr {info['learning_rate']:.2e}  {info['seconds']:.1f}s"
                + ("  *" if info["best"] else "")
            )
        elif event == "end" and self.task is not None:
            self.progress.update(self.task, completed=self.progress.tasks[0].total)
