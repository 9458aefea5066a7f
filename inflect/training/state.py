"""A run's folder and its resumable state: the :class:`RunState` counters, the trainer state
file (weights, Adam moments, random states, the counters), the checks a resume makes, the
folder's lock, and the status of a folder for drivers (:func:`run_status`, :func:`saved_run`).

The trainer state (``trainer_state.safetensors``) is written atomically at every epoch boundary,
every ``checkpoint_seconds`` inside an epoch and when the run is stopped; a run owns its folder
while it trains (a lock file the operating system releases when the process ends).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from filelock import FileLock, Timeout

from inflect.io.outputs import prepare_folder
from inflect.nn import checkpoint as ckpt
from inflect.nn.model import Seq2Seq
from inflect.training.config import RESUME_FIELDS, Config

if TYPE_CHECKING:
    from inflect.training.items import TrainingData

__all__ = [
    "RunState",
    "SavedState",
    "check_same_config",
    "check_same_data",
    "check_same_world",
    "optimizer_from_tensors",
    "optimizer_to_tensors",
    "owning_folder",
    "read_state",
    "rng_key",
    "run_status",
    "saved_run",
    "write_state",
]

#: Config fields a resume may change: the stopping rule, the preset's name, the dev batch size
#: (the same dev loss and accuracy at any size) and how bundles are read (a run keeps its
#: model's, and a config built now says multiset), as the fields declare
#: (:data:`inflect.training.config.RESUME_FIELDS`).
RESUME_FREE_FIELDS = RESUME_FIELDS


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
        metrics: :class:`~inflect.training.metrics.EpochMetrics` rows as dicts.
        finished, stopped_early: the run is over (reached ``max_epochs`` or stopped early).
        seconds: wall time spent in completed epochs.
        epoch_loss, epoch_tokens, epoch_seconds, epoch_cpu_seconds: running sums of the current
            epoch (``epoch_cpu_seconds``: CPU time, see
            :class:`~inflect.training.metrics.EpochMetrics`).
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
        """JSON-able."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunState:
        """Inverse of :meth:`to_dict`. Keys that are no field are ignored: the state files of
        version 0.1 (and of 0.2 before its sub-packages) carry ``best_accuracy`` too, a copy
        of ``best_score``."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

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


def rng_key(rank: int, kind: str) -> str:
    """Name of a process's saved random state (``cpu``/``cuda``; ``rank<r>.`` before it for
    ranks above 0, so that a plain run's names are unchanged)."""
    return kind if rank == 0 else f"rank{rank}.{kind}"


@dataclass
class SavedState:
    """A trainer state file, read back (:func:`read_state`).

    Attributes:
        model: the network with the saved weights (on CPU).
        state: the counters.
        config: the run's config (its ``model`` is ``model.config``), from the state's flat
            config dict.
        meta: the file's JSON metadata (``optimizer``, ``data``, ``codec``, ``init_from`` ...).
        tensors: every tensor of the file (``model.*``, the optimizer's, ``rng.*``).
        random_states: the processes' random states, by :func:`rng_key` (``rng.`` dropped).
    """

    model: Seq2Seq
    state: RunState
    meta: dict[str, Any]
    tensors: dict[str, torch.Tensor]
    random_states: dict[str, torch.Tensor]
    config: Config


def read_state(out: Path) -> SavedState:
    """The trainer state saved in run folder ``out``.

    Raises:
        FileNotFoundError: no trainer state there; CheckpointError: an unreadable one.
        ValueError: a config with a key that is no field, or an invalid value.
    """
    path = out / ckpt.STATE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no trainer state to resume from")
    tensors, meta = ckpt.load_tensors(path)
    model = Seq2Seq.from_metadata(meta["model"])
    model.load_state_dict(
        {k[len("model.") :]: v for k, v in tensors.items() if k.startswith("model.")}
    )
    config = Config(model.config, Config.from_dict(meta["model"]["config"]).train)
    random_states = {k[4:]: v for k, v in tensors.items() if k.startswith("rng.")}
    return SavedState(model, RunState.from_dict(meta["state"]), meta, tensors, random_states,
                      config)


def write_state(
    out: Path,
    model: Seq2Seq,
    optimizer: torch.optim.Optimizer,
    state: RunState,
    random_states: dict[str, torch.Tensor],
    common: dict[str, Any],
) -> None:
    """Write the trainer state of run folder ``out`` atomically: the weights (``model.*``), the
    optimizer's tensors, ``random_states`` (named ``rng.<key>``), and as metadata the counters,
    the optimizer's settings, the package versions and ``common`` (languages, data, model ...)."""
    tensors = {f"model.{k}": v for k, v in model.state_dict().items()}
    opt_tensors, opt_meta = optimizer_to_tensors(optimizer)
    tensors.update(opt_tensors)
    tensors.update(random_states)
    meta = {
        "format": ckpt.FORMAT,
        "kind": "trainer_state",
        "state": state.to_dict(),
        "optimizer": opt_meta,
        "versions": ckpt.versions(),
        **common,
    }
    ckpt.save_tensors(out / ckpt.STATE_FILE, tensors, meta)


def check_same_config(saved: Config, given: Config) -> None:
    """Check a resumed run's config against the one it is given: the fields of
    :data:`~inflect.training.config.RESUME_FIELDS` may differ, the others (the network's and the
    training procedure's) not.

    Raises:
        ValueError: naming each field that differs, the saved value and the given one.
    """
    a, b = saved.to_dict(), given.to_dict()
    diff = [
        f"{k}: saved {a[k]!r}, given {b[k]!r}"
        for k in a
        if k not in RESUME_FIELDS and a[k] != b[k]
    ]
    if diff:
        raise ValueError(
            "cannot resume with different settings (" + "; ".join(diff) + "); drop those "
            "options or start a new run in another --out folder"
        )


def check_same_data(
    meta: dict[str, Any], description: dict[str, Any], codec: dict[str, Any] | None
) -> dict[str, Any] | None:
    """Check that a resumed run (state metadata ``meta``) is given its own data and codec;
    returns the saved codec's dict (None if it had none).

    Raises:
        ValueError: another data description, or another codec, than the saved run's.
    """
    saved_data = meta.get("data") or {}
    if saved_data and description and saved_data != description:
        _check_same_files(saved_data, description)
        raise ValueError(
            f"cannot resume with different data: the run was trained on {saved_data}, "
            f"given {description}"
        )
    saved_codec = meta.get("codec")
    if codec is not None and saved_codec is not None and saved_codec != codec:
        raise ValueError(
            "cannot resume with a different codec (subword model or language) than the "
            "saved run's; start a new run in another --out folder"
        )
    return saved_codec


def _check_same_files(saved: dict[str, Any], given: dict[str, Any]) -> None:
    """For a run on a user's files: name the file whose bytes differ from the run's.

    Raises:
        ValueError: a file (by role and position) with another SHA-256 than the run's.
    """
    for role in ("train_files", "dev_files"):
        before, now = saved.get(role) or [], given.get(role) or []
        for old, new in zip(before, now, strict=False):
            if old.get("sha256") != new.get("sha256"):
                raise ValueError(
                    f"cannot resume: the run was trained on {old.get('file')} (SHA-256 "
                    f"{str(old.get('sha256'))[:12]}…, {old.get('examples')} examples), and "
                    f"{new.get('file')} is not the same file (SHA-256 "
                    f"{str(new.get('sha256'))[:12]}…, {new.get('examples')} examples); give the "
                    "run's own files with --train/--dev, or start a new run in another --out")
        if len(before) != len(now):
            raise ValueError(f"cannot resume: the run was trained on {len(before)} "
                             f"{role.split('_')[0]} file(s), given {len(now)}")


def check_same_world(state: RunState, processes: int) -> None:
    """A run stopped inside an epoch continues with as many processes as it had (the epoch's
    batches and the saved position depend on them); at an epoch boundary any.

    Raises:
        ValueError: ``processes`` differs from the saved run's inside an epoch.
    """
    saved = state.world_size
    if state.batch and saved != processes:
        raise ValueError(
            f"the run was stopped inside epoch {state.epoch + 1} with {saved} "
            f"process(es); resume it with {saved} (torchrun --nproc-per-node), not {processes}"
        )


@contextlib.contextmanager
def owning_folder(out: Path) -> Iterator[None]:
    """Create run folder ``out``, check that files can be written there, and hold its lock
    (``out/.lock``) for the block; the lock file is removed at the end.

    Raises:
        OutputError: (a ValueError) naming ``out`` and why it cannot be written (a parent that
            is a file, no permission, a full disk, ...); see
            :func:`inflect.io.outputs.prepare_folder`.
        ValueError: another training run holds the lock.
    """
    prepare_folder(out, "the run folder")
    lock = FileLock(str(out / ".lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ValueError(
            f"{out} is in use by another training run (lock {out / '.lock'}); "
            "wait for it to end or choose another --out"
        ) from None
    try:
        yield
    finally:
        lock.release()
        with contextlib.suppress(OSError):
            (out / ".lock").unlink()


def saved_run(out_dir: str | Path) -> dict[str, Any]:
    """The data arguments of the run saved in ``out_dir``, for resuming it without repeating them.

    Returns:
        ``{"lang": ..., "setting": ...}`` to pass to :func:`inflect.training.items.load_data`
        (``lang`` is ``"all"`` for a run made with ``"all"`` that took a smaller setting's data
        for some languages, else the comma-separated languages); for a run on a user's files,
        ``{"train": [paths], "dev": [paths], "lang": name, "spec": LanguageSpec}``
        (:func:`inflect.training.files.saved_files`) to pass to
        :func:`inflect.training.files.load_files`.

    Raises:
        FileNotFoundError: no trainer state in ``out_dir``.
        ValueError: the state does not say which data it was trained on (e.g. translation).
        CheckpointError: the state file is unreadable.
    """
    path = Path(out_dir) / ckpt.STATE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no trainer state to resume from")
    meta = ckpt.load_metadata(path)
    from inflect.training.files import saved_files

    files = saved_files(meta)
    if files is not None:
        return files
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


def optimizer_to_tensors(
    optimizer: torch.optim.Optimizer,
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Split an optimizer's state dict into tensors (for safetensors) and JSON (the trainer
    state's Adam moments and hyperparameters)."""
    sd = optimizer.state_dict()
    tensors: dict[str, torch.Tensor] = {}
    plain: dict[str, dict[str, Any]] = {}
    for pid, st in sd["state"].items():
        for key, value in st.items():
            if isinstance(value, torch.Tensor):
                tensors[f"optim.{pid}.{key}"] = value
            else:
                plain.setdefault(str(pid), {})[key] = value
    return tensors, {"param_groups": sd["param_groups"], "plain_state": plain}


def optimizer_from_tensors(
    optimizer: torch.optim.Optimizer, tensors: dict[str, torch.Tensor], meta: dict[str, Any]
) -> None:
    """Inverse of :func:`optimizer_to_tensors`: load the state into ``optimizer``."""
    state: dict[int, dict[str, Any]] = {}
    for name, value in tensors.items():
        if not name.startswith("optim."):
            continue
        _, pid, key = name.split(".", 2)
        state.setdefault(int(pid), {})[key] = value
    for pid, st in meta.get("plain_state", {}).items():
        state.setdefault(int(pid), {}).update(st)
    optimizer.load_state_dict({"state": state, "param_groups": meta["param_groups"]})
