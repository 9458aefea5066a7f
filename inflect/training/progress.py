"""Rendering of training progress with rich: a progress bar per epoch and one line per epoch.

A :class:`RichProgress` is the ``progress`` callback of :func:`inflect.training.trainer.train`. The bar shows
the epoch, the batches done, the running training loss, the last and best dev accuracy and the
time left in the epoch; after the first 50 batches a line estimates an epoch's time and the
whole run's (at most ``max_epochs``; early stopping ends sooner).
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


def hallucination_lines(report: dict[str, Any]) -> tuple[str, str | None]:
    """The start line of a run with ``--hallucinate N`` (the report of
    :func:`inflect.training.hallucination.hallucination_report`): the training set's size after
    augmentation and the pairs added (per language, where several); and a warning where a
    language got none: its training set has N pairs or more already (N at most its size adds
    nothing), or its pairs have no stem run to replace."""
    size, added = report["size"], report["added"]
    total = sum(added.values())
    each = (" (" + ", ".join(f"{lang} {n:,}" for lang, n in added.items() if n) + ")"
            if len(added) > 1 and total else "")
    line = (f"--hallucinate {size:,}: {total:,} hallucinated pairs{each} added to the "
            f"{report['before']:,} of the data: {report['after']:,} training pairs" if total
            else f"--hallucinate {size:,}: no pair added; the training set keeps its "
            f"{report['before']:,} pairs")
    notes = []
    if report["full"]:
        sizes = ", ".join(f"{lang or 'the data'} {n:,}" for lang, n in report["full"].items())
        notes.append(f"it adds no pair where a training set has {size:,} pairs or more already "
                     f"({sizes}): N is the size to reach per language, so give N above it")
    if report["no_stem"]:
        notes.append("no pair of " + ", ".join(report["no_stem"]) + " has a stem (3 or more "
                     "aligned identical letters) to replace: none added there")
    return line, ("warning: " + "; ".join(notes)) if notes else None


def duration(seconds: float) -> str:
    """``3 h 05 min``, ``12 min``, ``40 s``."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class RichProgress:
    """Context manager and callback ``(event, info)`` rendering training progress: on a
    terminal, a progress bar and the lines; elsewhere (a log file, a pipe) the lines only, each
    whole on one line."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]epoch {task.fields[epoch]}/{task.fields[epochs]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"),
            TextColumn("dev {task.fields[dev]} (best {task.fields[best]})"),
            TimeElapsedColumn(),
            TextColumn("left in epoch"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            disable=not self.console.is_terminal,  # a log file gets the lines, not a bar
        )
        self.task: Any = None
        self.epochs = 0

    def __enter__(self) -> RichProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)

    def _print(self, text: str, style: str | None = None) -> None:
        # soft_wrap: a line is never broken by rich (a terminal wraps it; a log file keeps it)
        self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def __call__(self, event: str, info: dict[str, Any]) -> None:
        handler = getattr(self, f"_on_{event}", None)
        if handler is not None:
            handler(info)

    def _on_start(self, info: dict[str, Any]) -> None:
        self.epochs = info["max_epochs"]
        self.task = self.progress.add_task(
            "train",
            total=info["batches_per_epoch"],
            completed=info.get("start_batch", 0),
            epoch=info["start_epoch"] + 1,
            epochs=self.epochs,
            loss="-",
            dev="-",
            best="-",
        )
        where = (
            f"resuming at epoch {info['start_epoch'] + 1}, batch {info['start_batch']}; "
            if info.get("start_batch") or info["start_epoch"]
            else ""
        )
        world = info.get("world_size", 1)
        processes = (
            f"world size {world} (torch.distributed), "
            f"{info.get('examples_per_update', '?')} examples per update, "
            if world > 1
            else ""
        )
        self._print(
            f"{where}{processes}device {info['device']} ({info.get('precision', 'float32')}), "
            f"{info['parameters']:,} parameters, {info['batches_per_epoch']} batches per epoch, "
            f"model selection on {info.get('dev_examples', '?')} dev examples"
        )
        if info.get("hallucination"):
            line, warning = hallucination_lines(info["hallucination"])
            self._print(line)
            if warning:
                self._print(warning, style="yellow")
        unseen = info.get("dev_unseen_symbols") or []
        if unseen:
            self._print(
                f"dev has {len(unseen)} source symbol(s) unseen in training, read as <unk>: "
                + " ".join(repr(u) for u in unseen[:20]),
                style="yellow",
            )

    def _on_finished_before(self, info: dict[str, Any]) -> None:
        how = "stopped early" if info["stopped_early"] else f"reached --epochs {info['max_epochs']}"
        more = "" if info["stopped_early"] else "; a larger --epochs continues it"
        self._print(f"nothing to train: the run {how} at epoch {info['epochs']}{more}")

    def _on_estimate(self, info: dict[str, Any]) -> None:
        self._print(
            f"about {duration(info['seconds_per_epoch'])} per epoch (training part); "
            f"{info['epochs_left']} epoch(s) left at most: about "
            f"{duration(info['seconds_left_at_most'])} (early stopping may end sooner)"
        )

    def _on_batch(self, info: dict[str, Any]) -> None:
        if self.task is None:
            return
        if info["batch"] == 1 or self.progress.tasks[0].total != info["batches"]:
            self.progress.reset(self.task, total=info["batches"])
        self.progress.update(
            self.task,
            completed=info["batch"],
            epoch=info["epoch"],
            loss=f"{info['loss']:.4f}",
        )

    def _on_epoch(self, info: dict[str, Any]) -> None:
        if self.task is not None:
            self.progress.update(
                self.task,
                dev=f"{info['dev_accuracy']:.1f}%",
                best=f"{info['best_accuracy']:.1f}%",
            )
        self._print(
            f"epoch {info['epoch']:3d}  train loss {info['train_loss']:.4f}  "
            f"dev loss {info['dev_loss']:.4f}  dev acc {info['dev_accuracy']:6.2f}%  "
            f"lr {info['learning_rate']:.2e}  {duration(info['seconds'])}"
            + ("  *" if info["best"] else "")
        )

    def _on_interrupted(self, info: dict[str, Any]) -> None:
        if info.get("signal"):
            self._print(f"{info['signal']} received: the state is saved", style="yellow")
