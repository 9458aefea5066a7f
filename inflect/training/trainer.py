"""The trainer: batches, Adam, model selection on dev, early stopping, checkpoints, resume.

Peters et al. (2019), section 5: Adam, gradient-norm clipping, the learning rate halved whenever the
dev loss rises (OpenNMT-py's schedule), the output trained with the Fenchel–Young loss of its
mapping.

**Model selection differs from the paper.** The paper selected checkpoints by teacher-forced
symbol accuracy on dev; here the model is selected by *exact-match accuracy of greedy decoding*
on dev (the shared task's metric, :mod:`inflect.training.dev`), computed after every epoch — on
a fixed sample of each language's dev set when ``TrainConfig.dev_sample`` is set — with early
stopping after ``patience`` epochs without improvement and at most ``max_epochs`` epochs.

Determinism and resume: the weights are initialised after ``torch.manual_seed(seed)``; at the start
of epoch e the global RNG (dropout) is seeded from ``(seed, e)``, and the epoch's batches are
drawn from a generator of their own seeded from the same (:mod:`inflect.training.sampling`). The
full trainer state (weights, Adam moments, learning rate, counters, the position inside the epoch
and the RNG state; :mod:`inflect.training.state`) is written atomically at every epoch boundary
and every ``checkpoint_seconds`` inside an epoch, and when the run is stopped (Ctrl-C, SIGTERM:
:mod:`inflect.training.signals`), so a stopped or killed run continues with :func:`train`
``(resume=True)`` losing at most those seconds and, on CPU, ends with the same weights as an
uninterrupted one. A run owns its folder while it trains (a lock file the operating system
releases when the process ends).

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
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch

from inflect import defaults
from inflect.nn import checkpoint as ckpt
from inflect.nn.model import resolve_device
from inflect.nn.recurrence import low_precision_matmul_dtype
from inflect.training import precision as prec
from inflect.training import state as run_state
from inflect.training.config import Config
from inflect.training.dev import dev_figures, dev_sample
from inflect.training.distributed import World, data_parallel_loss
from inflect.training.hallucination import hallucinate, hallucination_report, lengthen
from inflect.training.items import TrainingData, copy_pool, encode_items, record_training_data
from inflect.training.metrics import EpochMetrics, write_metrics
from inflect.training.results import TrainingDiverged, TrainingInterrupted, TrainResult
from inflect.training.sampling import EpochSampler, dropout_seed
from inflect.training.signals import StopRequests
from inflect.training.state import RunState
from inflect.training.warm_start import build_model, warm_start_model, warm_start_record

__all__ = ["ProgressCallback", "Trainer", "TrainingData", "train"]

#: ``progress(event, info)`` receives "start", "estimate", "batch", "checkpoint", "epoch", "end"
#: and "interrupted" events; a resumed run that had finished gets "finished_before" (``epochs``,
#: ``max_epochs``, ``stopped_early``) instead of "start".
ProgressCallback = Callable[[str, dict[str, Any]], None]


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
        command: str | None = None,
    ) -> None:
        if not data.train or not data.dev:
            raise ValueError("training and dev data must both be non-empty")
        if precision not in prec.PRECISIONS:
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
        if data.sources:
            self.common["sources"] = data.sources
        self._command = command
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
        saved = self._resumed() if self._resume else None
        if saved is None:
            self._start_model()
        self.state.world_size = self.world.size
        # the output length limits and alphabets of every search with this model
        record_training_data(self.model, self.data.train)
        procedure = self.config.train
        max_epochs, patience = self._overrides
        if max_epochs is not None:
            procedure.max_epochs = max_epochs
        if patience is not None:
            procedure.patience = patience
        self.config.validate()
        # a larger max_epochs continues a finished run (unless it stopped early)
        self.state.finished = self.state.stopped_early or self.state.epoch >= procedure.max_epochs
        if self._command and not self.state.finished:  # the start, then each resume that trains
            self.common["commands"] = [*self.common.get("commands", []), self._command]
        self.model.to(self.device)
        if self._precision == "auto":
            self.model.matmul_dtype = low_precision_matmul_dtype(self.device)
        fused = self.device.type in ("cpu", "cuda") or None
        self.optimizer = torch.optim.Adam(
            self.model.parameters(), lr=self.state.learning_rate, fused=fused
        )
        if saved is not None:
            run_state.optimizer_from_tensors(self.optimizer, saved.tensors,
                                             saved.meta["optimizer"])
        self._set_learning_rate(self.state.learning_rate)
        self._loss = data_parallel_loss(self.model, self.world)
        self.common["model"] = self.model.metadata(procedure.to_dict())
        self._encode_data()
        if not self._resume:
            self._save_state()

    def _resumed(self) -> run_state.SavedState:
        """The saved run, checked against what this one is given (config, data, processes)."""
        saved = run_state.read_state(self.out)
        self.model, self.config = saved.model, saved.config
        if self._config is not None:
            run_state.check_same_config(saved.config, self._config)
        codec = run_state.check_same_data(
            saved.meta, self.data.description, self.common.get("codec")
        )
        if codec is not None:
            self.common["codec"] = codec
        for key in ("init_from", "commands"):
            if key in saved.meta:
                self.common[key] = saved.meta[key]
        self.state = saved.state
        run_state.check_same_world(self.state, self.world.size)
        self.rng_state = saved.random_states
        return saved

    def _start_model(self) -> None:
        """A new run's model (fresh, or a warm start) and state."""
        if (self.out / ckpt.STATE_FILE).exists() or (self.out / ckpt.MODEL_FILE).exists():
            raise FileExistsError(
                f"{self.out} already holds a training run; use --resume or a new --out"
            )
        if self._config is None:
            raise ValueError("a fresh training run needs a config")
        if self._init_from is not None:
            self.model = warm_start_model(self._init_from, self._config, self.data.train)
            self.common["init_from"] = warm_start_record(self._init_from)
        else:
            self.model = build_model(self._config, self.data.train, self.data.shared_vocab)
        self.config = self._config  # its model is the network's (self.model.config)
        self.state = RunState(learning_rate=self.config.train.learning_rate)

    def _encode_data(self) -> None:
        """Ids of the training items (with the hallucinated ones), the copy items and the dev
        sample, built once."""
        train, procedure = list(self.data.train), self.config.train
        copies = copy_pool(train) if procedure.copy_examples > 0 else []
        n_copy = round(procedure.copy_examples * len(train)) if copies else 0
        made = hallucinate(train, procedure.hallucinate, procedure.seed)
        if made:
            self.common["hallucinated"] = dict(Counter(it.language or "" for it in made))
        self.hallucination = hallucination_report(train, made, procedure.hallucinate)
        long = lengthen(train, procedure.long_pairs, procedure.seed)
        if long:
            self.common["long_pairs"] = dict(Counter(it.language or "" for it in long))
        made += long
        self.encoded = encode_items(self.model, train + made + copies)
        self.sampler = EpochSampler.of(
            train + made, copies, n_copy, procedure.language_temperature, procedure.seed
        )
        self.dev_rows = dev_sample(self.data.dev, procedure.dev_sample)
        self.dev_items = [self.data.dev[i] for i in self.dev_rows]
        self.dev_encoded = encode_items(self.model, self.dev_items)
        n = self.sampler.items_per_epoch
        if n < self.world.size:
            raise ValueError(f"{n} training items cannot be shared by {self.world.size} processes")
        self.batches_per_epoch = math.ceil(n / self.update_size)

    @property
    def update_size(self) -> int:
        """Rows of one update: the batch size times the processes (torchrun's world size)."""
        return self.config.train.batch_size * self.world.size

    def _set_learning_rate(self, lr: float) -> None:
        self.state.learning_rate = lr
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    # ---------------------------------------------------------------- one epoch
    def _start_epoch(self, epoch: int) -> list[list[int]]:
        """The batches of ``epoch`` (rows of the encoded training + copy items,
        :meth:`EpochSampler.batches`), with the global RNG (dropout) seeded for the epoch, or
        set to the saved state of a run stopped inside it.

        With several processes, each one trains on its share of a batch (see
        :meth:`_train_step`) and draws its own dropout masks."""
        torch.manual_seed(dropout_seed(self.config.train.seed, epoch, self.world.rank))
        batches = self.sampler.batches(epoch, self.update_size, self.world.size)
        if self.state.batch and self.rng_state:
            rank = self.world.rank
            torch.set_rng_state(self.rng_state[run_state.rng_key(rank, "cpu")])
            cuda = run_state.rng_key(rank, "cuda")
            if cuda in self.rng_state and torch.cuda.is_available():
                torch.cuda.set_rng_state(self.rng_state[cuda], self.device)
        return batches

    def _train_step(self, rows: list[int]) -> tuple[float, int]:
        """One update on the batch of ``rows``: (summed loss, target symbols) of the update.

        The gradient is that of the mean loss per target symbol of all the rows. With W
        processes, each computes the summed loss of its share; dividing it by N / W, N the
        update's target symbols over all processes, makes the average that
        ``DistributedDataParallel`` takes of the W gradients the gradient of Σ loss / N.
        """
        batch = self.encoded.batch(self.world.share(rows), self.device)
        self.optimizer.zero_grad(set_to_none=True)
        with prec.autocast(self.device):
            loss, n_tok = self._loss(batch)
        total_loss, total_tokens = self.world.sum_counts(loss.detach(), n_tok)
        if not math.isfinite(total_loss):  # every process sees the same sum: all stop here
            st = self.state
            raise TrainingDiverged(self.out, st.epoch + 1, st.batch + 1, self.batches_per_epoch,
                                   self.optimizer.param_groups[0]["lr"], st.epoch)
        (loss / (total_tokens / self.world.size)).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.train.max_grad_norm)
        self.optimizer.step()
        return total_loss, total_tokens

    def _run_epoch(self, stop: StopRequests) -> bool:
        """Train one epoch from ``state.batch``; False when stopped by a signal (state saved)."""
        st, epoch = self.state, self.state.epoch + 1
        batches = self._start_epoch(epoch)
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
            if not self._estimated and (
                done == defaults.ESTIMATE_AFTER_BATCHES or b + 1 == len(batches)
            ):
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
        later = self.config.train.max_epochs - self.state.epoch - 1
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
        dev sample (:func:`inflect.training.dev.dev_figures`)."""
        return dev_figures(self.model, self.dev_items, self.dev_encoded,
                           self.config.train.eval_batch_size, self.data.dev_score)

    def _end_epoch(self) -> None:
        """Validate, schedule the learning rate, select, write metrics and checkpoints."""
        st, config = self.state, self.config.train
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
        row = EpochMetrics(
            epoch=epoch,
            train_loss=st.epoch_loss / max(1, st.epoch_tokens),
            dev_loss=dev_loss,
            dev_accuracy=dev_acc,
            learning_rate=lr_used,
            seconds=seconds,
            train_examples_per_s=self.sampler.items_per_epoch / max(train_seconds, 1e-9),
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
            write_metrics(self.out, st.metrics, languages, epoch)
        self._save_state()
        self.notify("epoch", dict(row, best_accuracy=st.best_score, best_epoch=st.best_epoch,
                                  train_tokens=train_tokens, train_seconds=train_seconds,
                                  languages=languages))

    # ---------------------------------------------------------------- files
    def _save_model(self) -> None:
        ckpt.save_model(
            self.out,
            self.model,
            languages=self.common["languages"],
            metrics=self.state.metrics,
            training=self._training_facts(),
            codec=self.common.get("codec"),
            settings=self.config.train.to_dict(),
            cells=self.data.cells,
        )

    def _training_facts(self) -> dict[str, Any]:
        """The ``training`` facts of ``model.safetensors``: the run's summary and, for a warm
        start, the checkpoint it began from (``init_from``); with hallucinated pairs and long
        pairs, their numbers per language (``hallucinated``, ``long_pairs``); the command lines
        that trained it (``commands``: the start, then each resume) and the data files read with
        their SHA-256 (``sources``)."""
        keys = ("init_from", "hallucinated", "long_pairs", "commands", "sources")
        extra = {k: self.common[k] for k in keys if k in self.common}
        return self.state.summary(self.data) | extra

    def _save_state(self) -> None:
        """Write the resumable state (rank 0; with several processes every process calls it: their
        random states are saved too, and they continue when the file is written)."""
        random_states = self._random_states()
        if self.world.is_main:
            run_state.write_state(self.out, self.model, self.optimizer, self.state,
                                  random_states, self.common)
        self.world.barrier()

    def _random_states(self) -> dict[str, torch.Tensor]:
        """``rng.cpu`` (and ``rng.cuda``) of rank 0, ``rng.rank<r>.cpu`` ... of the others."""
        own = {"cpu": torch.get_rng_state()}
        if self.device.type == "cuda":
            own["cuda"] = torch.cuda.get_rng_state(self.device)
        return {
            f"rng.{run_state.rng_key(rank, kind)}": state
            for rank, states in enumerate(self.world.gather(own))
            for kind, state in states.items()
        }

    # ---------------------------------------------------------------- the run
    def run(self) -> TrainResult:
        """Train until ``max_epochs``, early stopping, or a stop request.

        Raises:
            See :func:`train`.
        """
        with self.world.joined(self.device):
            try:
                with self._owning_folder(), StopRequests() as stop:
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
        with run_state.owning_folder(self.out):
            yield

    def _run(self, stop: StopRequests) -> TrainResult:
        self._setup()
        st = self.state
        if st.finished:  # resumed after its end: nothing to train, the selected model stays
            self.notify(
                "finished_before",
                {"epochs": st.epoch, "max_epochs": self.config.train.max_epochs,
                 "stopped_early": st.stopped_early},
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
        self._complete_selected()
        self.notify(
            "end", {"best_epoch": st.best_epoch, "best_accuracy": st.best_score, "epochs": st.epoch}
        )
        return TrainResult(out_dir=self.out, best_epoch=st.best_epoch,
                           best_dev_accuracy=st.best_score, epochs=st.epoch,
                           stopped_early=st.stopped_early, seconds=st.seconds,
                           rows=list(st.metrics))

    def _complete_selected(self) -> None:
        """Give the selected checkpoint's metadata the complete metrics table (and training
        facts) when a later epoch than the selected one ended the run."""
        st, selected = self.state, self.out / ckpt.MODEL_FILE
        if self.world.is_main and st.metrics and st.best_epoch != st.epoch and selected.is_file():
            tensors, meta = ckpt.load_tensors(selected)
            meta["metrics"], meta["training"] = st.metrics, self._training_facts()
            ckpt.save_tensors(selected, tensors, meta)

    def _saved_position(self) -> tuple[int, int, int]:
        meta = ckpt.load_metadata(self.out / ckpt.STATE_FILE)
        saved = RunState.from_dict(meta["state"])
        return saved.epoch, saved.batch, self.batches_per_epoch

    def _start_info(self) -> dict[str, Any]:
        return {
            "start_epoch": self.state.epoch,
            "start_batch": self.state.batch,
            "max_epochs": self.config.train.max_epochs,
            "batches_per_epoch": self.batches_per_epoch,
            "device": str(self.device),
            "precision": prec.describe(self.model.matmul_dtype, self.device),
            "dev_examples": len(self.dev_items),
            "dev_unseen_symbols": sorted(
                {c for it in self.data.dev for c in it.source if c not in self.model.source_vocab}
            ),
            "parameters": sum(p.numel() for p in self.model.parameters()),
            "world_size": self.world.size,
            "examples_per_update": self.update_size,
            "hallucination": self.hallucination,
        }


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
    command: str | None = None,
) -> TrainResult:
    """Train a model, select it on dev accuracy, and write a checkpoint folder.

    Args:
        config: hyperparameters: the network's (``config.model``) and the training
            procedure's (``config.train``), see :class:`~inflect.training.config.Config`. On
            resume, None means the saved run's config; a config that differs from the saved one
            (other than in :data:`~inflect.training.config.RESUME_FIELDS`) is an error.
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
            must be the checkpoint's, see :func:`~inflect.training.warm_start.initial_config`);
            recorded as ``init_from`` (path and SHA-256) in the training facts of
            ``model.safetensors``. Not with ``resume``.
        command: the command line that runs this (:func:`inflect.io.provenance.command_line`),
            recorded with those that started and resumed the run before (``commands`` in the
            training facts of ``model.safetensors``), or None.

    Returns:
        A :class:`~inflect.training.results.TrainResult`.

    Raises:
        FileExistsError: ``out_dir`` already holds a run and ``resume`` is False.
        FileNotFoundError: ``resume`` but no trainer state in ``out_dir``.
        TrainingInterrupted: on Ctrl-C or SIGTERM (the run is resumable).
        TrainingDiverged: (a ValueError) an update's loss is not finite.
        ValueError: on resume, a config that differs from the saved run's; a fresh run
            without a config; empty training or dev data; a run folder that cannot be
            written or that another run is using; ``init_from`` with ``resume``, with another
            network, or with data outside its vocabularies (see
            :func:`~inflect.training.warm_start.warm_start_model`).
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
        command=command,
    ).run()
