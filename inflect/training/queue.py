"""The per-language training queue: one model per language, several at a time, restartable.

A queue is a folder ``ROOT`` with ``queue.json`` (the setting, the languages and the options of
``inflect train`` that every language gets), one run folder per language (``ROOT/<language>``,
the layout of ``inflect train --out``) and one log per language (``ROOT/logs/<language>.log``,
what its ``inflect train`` printed). :func:`run_queue` keeps ``jobs`` training processes
busy (one per core, each with ``threads`` torch threads), one ``inflect train`` process per
language; started again on the same folder it skips the finished languages (their trainer state
says so), resumes the interrupted ones (``inflect train --resume``) and starts the others.
While it runs it reports one line per epoch per language (read from each run's ``metrics.csv``),
so a log file shows progress where no terminal does; :func:`queue_status` is the table of
every language: epochs, best dev accuracy, state.

The same jobs run as Ray tasks in ``recipes/sigmorphon2018/per_language.py`` (:func:`run_language`
trains one language, in a child process the caller waits for).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import functools
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from inflect import defaults
from inflect.io.atomic import write_text
from inflect.nn import checkpoint as ckpt

__all__ = [
    "LanguageStatus",
    "QueueSpec",
    "finite_number",
    "language_status",
    "queue_status",
    "run_language",
    "run_queue",
]

#: The queue's description in its folder.
QUEUE_FILE = "queue.json"
#: The lock a running queue holds on its folder: a second ``inflect queue`` there stops at once.
QUEUE_LOCK = ".queue.lock"
#: Options of ``inflect train`` that the queue sets itself, per language.
OWN_OPTIONS = ("--lang", "--setting", "--out", "--resume", "--threads", "--data-dir")
#: Options that a queue started again may change: how long its languages train.
LENGTH_OPTIONS = ("--epochs", "--patience")
#: States of a language in the queue (:class:`LanguageStatus`).
STATES = ("new", "running", "interrupted", "failed", "finished")


@dataclass(frozen=True)
class QueueSpec:
    """What a queue trains.

    Attributes:
        setting: ``high``, ``medium`` or ``low``.
        languages: shared-task names, in the order they are trained.
        train_args: options of ``inflect train`` given to every language (``--preset``,
            ``--epochs``, ``--init-from`` ...), not those of :data:`OWN_OPTIONS`.
    """

    setting: str
    languages: tuple[str, ...]
    train_args: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        own = [a for a in self.train_args if a.split("=")[0] in OWN_OPTIONS]
        if own:
            raise ValueError(
                f"the queue sets {', '.join(own)} itself for each language; leave it out of "
                "the training options"
            )
        if not self.languages:
            raise ValueError("a queue needs at least one language")
        if len(set(self.languages)) != len(self.languages):
            raise ValueError("a language is listed twice")

    def save(self, root: Path) -> None:
        write_text(root / QUEUE_FILE, json.dumps(asdict(self), indent=1) + "\n")

    @classmethod
    def load(cls, root: Path) -> QueueSpec:
        """The spec saved in ``root``.

        Raises:
            FileNotFoundError: no queue there; ValueError: an unreadable ``queue.json``.
        """
        path = root / QUEUE_FILE
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no queue here (start one with --lang and --setting)")
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(raw["setting"], tuple(raw["languages"]), tuple(raw["train_args"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a queue description ({exc})") from None

    def length(self) -> dict[str, str]:
        """The values of :data:`LENGTH_OPTIONS` in the training options (``--epochs 30``, or
        ``--epochs=30``)."""
        return _split_length(self.train_args)[1]

    def extended(self, other: QueueSpec, root: Path) -> QueueSpec:
        """This saved spec with the languages of ``other`` added (same setting and options,
        except that ``--epochs`` and ``--patience`` may change: the languages then train to the
        new length, see :func:`run_queue`).

        Raises:
            ValueError: ``other`` has another setting or other training options.
        """
        same = _split_length(other.train_args)[0] == _split_length(self.train_args)[0]
        if other.setting != self.setting or not same:
            raise ValueError(
                f"{root} is a queue of setting {self.setting} with the training options "
                f"{' '.join(self.train_args) or '(none)'}; it cannot train "
                f"{other.setting} with {' '.join(other.train_args) or '(none)'}: choose "
                "another folder"
            )
        added = tuple(lang for lang in other.languages if lang not in self.languages)
        return QueueSpec(self.setting, self.languages + added, other.train_args)

    def command(self, root: Path, language: str, state: str) -> list[str]:
        """The ``inflect train`` arguments that train ``language`` from ``state`` on (a resumed
        run gets the queue's ``--epochs`` / ``--patience``: a queue may have been lengthened)."""
        out = str(root / language)
        if state in ("interrupted", "finished"):
            length = [a for k, v in self.length().items() for a in (k, v)]
            return ["train", "--resume", *length, "--out", out]
        return ["train", "--lang", language, "--setting", self.setting, *self.train_args,
                "--out", out]


def _split_length(args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """``args`` without :data:`LENGTH_OPTIONS`, and those options' values."""
    rest, length, i = [], {}, 0
    while i < len(args):
        name, eq, value = args[i].partition("=")
        if name in LENGTH_OPTIONS:
            if not eq:
                i += 1
                value = args[i] if i < len(args) else ""
            length[name] = value
        else:
            rest.append(args[i])
        i += 1
    return rest, length


@dataclass
class LanguageStatus:
    """One language of a queue.

    Attributes:
        language: its shared-task name.
        state: one of :data:`STATES`.
        epochs: completed epochs (0 before the first).
        max_epochs: the run's last epoch at most (None before it starts).
        best_accuracy: the selected epoch's dev accuracy in percent (None before the first epoch).
        best_epoch: that epoch.
        cpu_seconds: CPU time of the completed epochs.
        stopped_early: the run ended by early stopping (more epochs would not continue it).
    """

    language: str
    state: str
    epochs: int = 0
    max_epochs: int | None = None
    best_accuracy: float | None = None
    best_epoch: int = 0
    cpu_seconds: float = 0.0
    stopped_early: bool = False

    def wants_more(self, epochs: int | None) -> bool:
        """A finished run that a queue of ``epochs`` epochs continues (it reached its own last
        epoch, below ``epochs``, without stopping early)."""
        return (self.state == "finished" and epochs is not None and self.epochs < epochs
                and not self.stopped_early)


def _is_locked(folder: Path) -> bool:
    """Whether a training process holds the run folder's lock (see ``inflect train``)."""
    from filelock import FileLock, Timeout

    if not (folder / ".lock").exists():
        return False
    lock = FileLock(folder / ".lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    lock.release()
    return False


def language_status(root: Path, language: str, failed: bool = False,
                    probe_lock: bool = True) -> LanguageStatus:
    """The state of ``language``'s run in queue ``root`` (read from its trainer state).

    ``probe_lock=False``: do not try the run folder's lock (the queue's own running jobs: a
    probe could meet the starting process at its lock); such a run reads as "interrupted".

    Raises:
        CheckpointError: an unreadable trainer state.
    """
    folder = root / language
    path = folder / ckpt.STATE_FILE
    locked = probe_lock and _is_locked(folder)
    if not path.is_file():
        state = "running" if locked else "failed" if failed else "new"
        return LanguageStatus(language, state)
    meta = ckpt.load_metadata(path)
    run = meta.get("state") or {}
    done = bool(run.get("finished")) and (folder / ckpt.MODEL_FILE).is_file()
    state = ("finished" if done else "running" if locked
             else "failed" if failed else "interrupted")
    metrics = run.get("metrics") or []
    best = run.get("best_score", -1.0)
    return LanguageStatus(
        language,
        state,
        epochs=int(run.get("epoch", 0)),
        max_epochs=((meta.get("model") or {}).get("config") or {}).get("max_epochs"),
        best_accuracy=None if best is None or best < 0 else float(best),
        best_epoch=int(run.get("best_epoch", 0)),
        cpu_seconds=float(sum(finite_number(m.get("cpu_seconds")) for m in metrics)),
        stopped_early=bool(run.get("stopped_early")),
    )


def finite_number(value: Any) -> float:
    """``value`` (a metrics cell) as a float; 0.0 where it is missing, no number or NaN."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(number) else number


def queue_status(root: str | Path, failed: Sequence[str] = ()) -> list[LanguageStatus]:
    """Every language of the queue in ``root``, in the queue's order.

    Raises:
        FileNotFoundError: no queue in ``root``; ValueError: an unreadable ``queue.json``.
    """
    root = Path(root)
    spec = QueueSpec.load(root)
    return [language_status(root, lang, lang in failed) for lang in spec.languages]


@dataclass
class _Job:
    language: str
    process: subprocess.Popen
    log: Any
    seen: int = 0
    metrics: Path = field(default_factory=Path)


def _epoch_lines(job: _Job) -> list[dict[str, str]]:
    """The rows of the job's ``metrics.csv`` not reported yet."""
    if not job.metrics.is_file():
        return []
    try:
        with open(job.metrics, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except OSError:  # being replaced (written to a temporary name, then renamed)
        return []
    new, job.seen = rows[job.seen:], max(job.seen, len(rows))
    return new


def _epoch_message(language: str, row: dict[str, str], max_epochs: int | None) -> str:
    of = f"/{max_epochs}" if max_epochs else ""
    cpu = finite_number(row.get("cpu_seconds"))
    spent = f"{cpu:.0f} CPU s" if cpu else f"{finite_number(row.get('seconds')):.0f} s"
    mark = "  *" if row.get("best") in ("True", "true", "1") else ""
    number = finite_number
    return (f"{language}: epoch {row['epoch']}{of}  dev {number(row['dev_accuracy']):.1f}%  "
            f"loss {number(row['dev_loss']):.4f}  lr {number(row['learning_rate']):.1e}  "
            f"{spent}{mark}")


def run_queue(
    spec: QueueSpec,
    root: str | Path,
    *,
    jobs: int = 1,
    threads: int = 1,
    data_dir: str | Path | None = None,
    log: Callable[[str], None] = print,
    poll_seconds: float = defaults.QUEUE_POLL_SECONDS,
    python: str = sys.executable,
) -> list[LanguageStatus]:
    """Train every language of ``spec`` not finished yet, ``jobs`` processes at a time.

    Args:
        spec: what to train; saved as ``ROOT/queue.json`` on the first start. Started again,
            ``spec`` must have the saved setting and options; new languages are appended, and
            only the languages ``spec`` names are trained (the others are left as they are).
        root: the queue's folder (created).
        jobs: training processes at a time (one per core).
        threads: torch threads of each process (``inflect train --threads``).
        data_dir: the shared-task folder (``--data-dir``; default: ``$INFLECT_DATA_DIR``).
        log: receives one line per event: start, resume, each epoch of each language, end,
            failure (with the last lines of the language's log).
        poll_seconds: how often the runs' metrics are read.
        python: the interpreter that runs ``-m inflect train``.

    Returns:
        The status of every language of the queue (:func:`queue_status`), failed ones marked.

    Raises:
        ValueError: ``spec`` differs from the saved one in setting or options; ``jobs`` or
            ``threads`` below 1; another ``run_queue`` holds the folder (``ROOT/.queue.lock``).
        KeyboardInterrupt: on SIGINT / SIGTERM, after the running languages have saved their
            state (they resume on the next start).
    """
    if jobs < 1 or threads < 1:
        raise ValueError(f"jobs and threads must be at least 1, got {jobs} and {threads}")
    from filelock import FileLock, Timeout

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    lock = FileLock(root / QUEUE_LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ValueError(
            f"{root}: another inflect queue is running on this folder; wait for it to end (see "
            f"where it stands with inflect queue --status --out {root}), or give another --out"
        ) from None
    try:
        return _run_queue(spec, root, jobs, threads, data_dir, log, poll_seconds, python)
    finally:
        lock.release()


def _run_queue(spec: QueueSpec, root: Path, jobs: int, threads: int,
               data_dir: str | Path | None, log: Callable[[str], None], poll_seconds: float,
               python: str) -> list[LanguageStatus]:
    """:func:`run_queue`'s work, with the queue's lock held."""
    requested = set(spec.languages)
    if (root / QUEUE_FILE).is_file():
        spec = QueueSpec.load(root).extended(spec, root)
    spec.save(root)
    (root / "logs").mkdir(exist_ok=True)
    todo = _to_train(spec, root, requested, log)
    log(f"queue {root}: {len(todo)} of {len(requested)} language(s) to train, "
        f"{jobs} at a time, {threads} thread(s) each")
    start = functools.partial(_start, spec, root, python=python,
                              env=_environment(threads, data_dir), threads=threads, log=log)
    failed: list[str] = []
    stop = _run_jobs(todo, start, jobs, poll_seconds, root, failed, log)
    # a language whose training failed this time reads as failed (even where its folder was
    # finished by another process meanwhile): the start did not do what it was asked
    statuses = [s if s.language not in failed else dataclasses.replace(s, state="failed")
                for s in queue_status(root, failed)]
    if stop:
        log("queue stopped; the languages that were training saved their state: start the same "
            "command again to resume them")
        raise KeyboardInterrupt
    return statuses


def _environment(threads: int, data_dir: str | Path | None) -> dict[str, str]:
    """The environment of a language's ``inflect train`` process."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONUNBUFFERED="1")
    if data_dir is not None:
        env["INFLECT_DATA_DIR"] = str(Path(data_dir).absolute())
    return env


def _to_train(spec: QueueSpec, root: Path, requested: set[str],
              log: Callable[[str], None]) -> list[LanguageStatus]:
    """The languages of ``requested`` to start or resume, in the queue's order (the others are
    logged: trained by another process, or finished before)."""
    todo = []
    epochs = spec.length().get("--epochs")
    for status in queue_status(root):
        if status.language not in requested:
            continue  # a language of the queue this start does not name: left as it is
        if status.state == "running":
            log(f"{status.language}: skipped, another process is training it")
        elif status.wants_more(int(epochs) if epochs else None):
            todo.append(status)
        elif status.state == "finished":
            log(f"{status.language}: finished before (epoch {status.epochs}, best dev "
                f"{status.best_accuracy:.1f}% at epoch {status.best_epoch})")
        else:
            todo.append(status)
    return todo


def _run_jobs(todo: list[LanguageStatus], start: Callable[[LanguageStatus], _Job], jobs: int,
              poll_seconds: float, root: Path, failed: list[str],
              log: Callable[[str], None]) -> list[int]:
    """Keep ``jobs`` of the ``todo`` languages training until all have ended or a signal
    stopped the queue (SIGTERM sent on to the running ones, which save their state); the
    languages that failed are added to ``failed``. Returns the signals received."""
    running: list[_Job] = []
    stop: list[int] = []

    def request_stop(signum: int, frame: Any) -> None:
        stop.append(signum)

    handlers = {s: signal.signal(s, request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while (todo and not stop) or running:
            while todo and len(running) < jobs and not stop:
                running.append(start(todo.pop(0)))
            time.sleep(poll_seconds if running else 0)
            if stop:
                for job in running:
                    with contextlib.suppress(ProcessLookupError):
                        job.process.send_signal(signal.SIGTERM)
            for job in list(running):
                _report_epochs(root, job, log)
                if job.process.poll() is None:
                    continue
                running.remove(job)
                job.log.close()
                _report_epochs(root, job, log)
                _report_end(root, job, failed, stop, log)
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
        for job in running:  # an error here: do not leave orphans
            job.process.terminate()
    return stop


def _launch(spec: QueueSpec, root: Path, status: LanguageStatus, python: str,
            env: dict[str, str], threads: int, **popen: Any) -> tuple[subprocess.Popen, Any]:
    """Start ``python -m inflect train`` for ``status.language`` (from its state on), its output
    appended to ``ROOT/logs/<language>.log``: (the process, the open log)."""
    args = [*spec.command(root, status.language, status.state), "--threads", str(threads)]
    log_path = _log_path(root, status.language)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (closed when the job ends)
    handle.write(f"\n[{time.strftime('%Y-%m-%d %H:%M:%S')}] inflect {' '.join(args)}\n")
    handle.flush()
    process = subprocess.Popen(
        [python, "-m", "inflect", *args], stdout=handle, stderr=subprocess.STDOUT, env=env,
        **popen,
    )
    return process, handle


def _start(spec: QueueSpec, root: Path, status: LanguageStatus, *, python: str,
           env: dict[str, str], threads: int, log: Callable[[str], None]) -> _Job:
    verb = "start" if status.state in ("new", "failed") else "resume"
    where = "" if verb == "start" else f" after epoch {status.epochs}"
    log(f"{status.language}: {verb}{where} (log {_log_path(root, status.language)})")
    process, handle = _launch(spec, root, status, python, env, threads, start_new_session=True)
    job = _Job(status.language, process, handle, metrics=root / status.language / ckpt.METRICS_FILE)
    job.seen = len(_epoch_lines(job))  # the epochs of an earlier start were reported then
    return job


def _log_path(root: Path, language: str) -> Path:
    return root / "logs" / f"{language}.log"


def _log_tail(root: Path, language: str, lines: int = 5) -> list[str]:
    """The last ``lines`` lines of ``language``'s log."""
    text = _log_path(root, language).read_text(encoding="utf-8", errors="replace")
    return text.strip().splitlines()[-lines:]


def _report_epochs(root: Path, job: _Job, log: Callable[[str], None]) -> None:
    rows = _epoch_lines(job)
    if rows:
        max_epochs = language_status(root, job.language, probe_lock=False).max_epochs
        for row in rows:
            log(_epoch_message(job.language, row, max_epochs))


def _report_end(root: Path, job: _Job, failed: list[str], stop: list[int],
                log: Callable[[str], None]) -> None:
    status = language_status(root, job.language, probe_lock=False)
    code = job.process.returncode
    if code == 0 and status.state == "finished":
        log(f"{job.language}: finished, epoch {status.epochs}, best dev "
            f"{status.best_accuracy:.1f}% at epoch {status.best_epoch}")
    elif stop and code in (130, -signal.SIGTERM, -signal.SIGINT):
        log(f"{job.language}: stopped after epoch {status.epochs}, resumable")
    else:
        failed.append(job.language)
        tail = _log_tail(root, job.language)
        log(f"{job.language}: FAILED (exit status {code}); the end of its log:\n    "
            + "\n    ".join(tail))


def run_language(spec: QueueSpec, root: str | Path, language: str, threads: int = 1,
                 data_dir: str | Path | None = None,
                 python: str = sys.executable) -> LanguageStatus:
    """Train, resume or skip one language of the queue, waiting for it (a Ray task's body).

    The language trains in a child process, ``python -m inflect train`` with the options
    :func:`run_queue` gives it, its output appended to ``ROOT/logs/<language>.log``; SIGINT and
    SIGTERM received meanwhile (in the main thread) are sent on to it as SIGTERM, so that it
    saves a resumable state.

    Raises:
        SystemExit: (status 130) the language was stopped by a signal; its state is resumable.
        RuntimeError: its ``inflect train`` failed (the message ends with the log's last lines).
    """
    root = Path(root)
    status = language_status(root, language)
    epochs = spec.length().get("--epochs")
    more = status.wants_more(int(epochs) if epochs else None)
    if status.state == "running" or (status.state == "finished" and not more):
        return status
    process, handle = _launch(spec, root, status, python, _environment(threads, data_dir),
                              threads)
    with handle:
        code = _wait_forwarding_stops(process)
    if code in (130, -signal.SIGTERM, -signal.SIGINT):
        raise SystemExit(130)
    if code != 0:
        raise RuntimeError(f"{language}: inflect train failed (exit status {code}); the end of "
                           f"its log {_log_path(root, language)}:\n    "
                           + "\n    ".join(_log_tail(root, language)))
    return language_status(root, language)


def _wait_forwarding_stops(process: subprocess.Popen) -> int:
    """Wait for ``process``, sending it SIGTERM for every SIGINT or SIGTERM this process gets
    meanwhile (in the main thread: elsewhere Python delivers no signals); its exit status."""
    def forward(signum: int, frame: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)

    handlers = {}
    if threading.current_thread() is threading.main_thread():
        handlers = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return process.wait()
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
        if process.poll() is None:  # an error while waiting: do not leave an orphan
            process.terminate()
            process.wait()
