"""The processes of one data-parallel training run (``torchrun``), as the trainer sees them.

``torchrun --nproc-per-node N -m inflect train ...`` starts N processes with the environment of
``torch.distributed`` (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR``,
``MASTER_PORT``). :meth:`World.from_environment` reads it; a plain run is a world of one process,
for which every method here is a no-op that returns its input. The process group uses NCCL on
GPUs and gloo on CPUs (PyTorch, ``torch.distributed``; Li et al. 2020, "PyTorch Distributed:
Experiences on Accelerating Data Parallel Training", VLDB).

What the trainer needs from the other processes, and nothing more: the sums of an update's loss
and target-symbol count (:meth:`World.sum_counts`), an agreement on stopping and saving at a
batch boundary (:meth:`World.agree`), rank 0's result of a computation only rank 0 does
(:meth:`World.from_main`, e.g. the dev evaluation), every process's object for rank 0 to save
(:meth:`World.gather`, e.g. random states), and a barrier (:meth:`World.barrier`: the others wait
until rank 0 has written a file they may read).
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import torch
import torch.distributed as dist

__all__ = ["COLLECTIVE_TIMEOUT", "World", "data_parallel_loss"]

T = TypeVar("T")

#: How long a process waits in a collective before giving up: long enough for rank 0's dev
#: evaluation of a large multilingual model (the others wait for it at a barrier).
COLLECTIVE_TIMEOUT = datetime.timedelta(hours=2)


def _int_variable(environ: Mapping[str, str], name: str, default: int) -> int:
    text = environ.get(name)
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"environment variable {name}={text!r} is not an integer") from None


@dataclass
class World:
    """The ``size`` processes of a run and this one's place among them.

    Attributes:
        rank: this process's global rank, 0 to size - 1 (rank 0 writes the run folder).
        size: the number of processes (the world size); 1 for a plain run.
        local_rank: this process's rank on its machine (its GPU index).
        device: where the tensors of collectives live (set by :meth:`joined`; NCCL needs CUDA).
    """

    rank: int = 0
    size: int = 1
    local_rank: int = 0
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> World:
        """The world that ``torchrun`` (or any launcher setting the same variables) describes.

        Raises:
            ValueError: a variable that is not an integer, or a rank outside ``0..size-1``.
        """
        env = os.environ if environ is None else environ
        size = _int_variable(env, "WORLD_SIZE", 1)
        rank = _int_variable(env, "RANK", 0)
        local_rank = _int_variable(env, "LOCAL_RANK", 0)
        if size < 1 or not 0 <= rank < size:
            raise ValueError(f"RANK={rank} and WORLD_SIZE={size}: need 0 <= RANK < WORLD_SIZE")
        return cls(rank=rank, size=size, local_rank=local_rank)

    @property
    def is_main(self) -> bool:
        """Rank 0: the process that evaluates on dev, writes the run folder and logs."""
        return self.rank == 0

    def place(self, device: torch.device) -> torch.device:
        """The device of this process: ``cuda:LOCAL_RANK`` for CUDA in a world of several
        processes (one GPU each), else ``device`` unchanged."""
        if self.size > 1 and device.type == "cuda":
            return torch.device("cuda", self.local_rank)
        return device

    @contextlib.contextmanager
    def joined(self, device: torch.device) -> Iterator[World]:
        """Join the process group for the block (NCCL for CUDA, gloo otherwise) unless it is
        already initialised (then it is left as found); nothing for a world of one.

        A program that trains several runs one after the other in the same processes initialises
        the group itself, once (``torch.distributed.init_process_group``): a group destroyed and
        created again at once on the same ``MASTER_PORT`` may meet the old one's rendezvous."""
        self.device = device
        created = False
        if self.size > 1 and not dist.is_initialized():
            if device.type == "cuda":
                torch.cuda.set_device(device)
            dist.init_process_group(
                backend="nccl" if device.type == "cuda" else "gloo",
                timeout=COLLECTIVE_TIMEOUT,
            )
            created = True
        try:
            yield self
        finally:
            if created:
                dist.destroy_process_group()

    def share(self, rows: list[int]) -> list[int]:
        """This process's rows of an update: every ``size``-th from its rank on (the rows are
        sorted by length within a batch, so each process gets rows of every length)."""
        if self.size == 1:
            return rows
        return rows[self.rank :: self.size]

    def sum_counts(self, loss: torch.Tensor, tokens: int) -> tuple[float, int]:
        """An update's summed loss and target-symbol count over all processes.

        Args:
            loss: this process's summed loss (a 0-d tensor; detached).
            tokens: this process's target symbols.

        Returns:
            (Σ loss as a float, Σ tokens); ``(float(loss), tokens)`` in a world of one.
        """
        if self.size == 1:
            return float(loss), tokens
        counts = torch.stack(
            [loss.to(torch.float64), torch.tensor(float(tokens), dtype=torch.float64)]
        ).to(self.device)
        dist.all_reduce(counts)
        total_loss, total_tokens = counts.tolist()
        return total_loss, round(total_tokens)

    def agree(self, any_asks: bool, main_asks: bool) -> tuple[bool, bool]:
        """Two decisions every process takes together at a batch boundary.

        Args:
            any_asks: this process's vote for the first (e.g. a stop requested by a signal,
                which may reach the processes at different batches).
            main_asks: rank 0's vote for the second counts (e.g. its checkpoint timer).

        Returns:
            (whether any process asked the first, whether rank 0 asked the second).
        """
        if self.size == 1:
            return any_asks, main_asks
        votes = torch.tensor(
            [float(any_asks), float(main_asks and self.is_main)], device=self.device
        )
        dist.all_reduce(votes)
        first, second = votes.tolist()
        return first > 0, second > 0

    def from_main(self, compute: Callable[[], T]) -> T:
        """``compute()`` run on rank 0 only; its (picklable) result is sent to every process,
        which waits for it."""
        if self.size == 1:
            return compute()
        box: list[Any] = [compute() if self.is_main else None]
        dist.broadcast_object_list(box, src=0, device=self._object_device())
        return box[0]

    def gather(self, obj: T) -> list[T]:
        """Every process's ``obj``, in rank order (a collective; every process gets the list)."""
        if self.size == 1:
            return [obj]
        out: list[Any] = [None] * self.size
        dist.all_gather_object(out, obj)
        return out

    def barrier(self) -> None:
        """Wait until every process is here."""
        if self.size > 1:
            dist.barrier()

    def _object_device(self) -> torch.device | None:
        return self.device if self.device.type == "cuda" else None


class _LossOf(torch.nn.Module):
    """A model's summed training loss as a module's ``forward`` (what DistributedDataParallel
    wraps: its gradient hooks are armed by calls of its ``forward``)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, batch: Any) -> tuple[torch.Tensor, int]:
        return self.model.loss(batch)


def data_parallel_loss(model: Any, world: World) -> Callable[[Any], tuple[torch.Tensor, int]]:
    """``model.loss`` (a :class:`~inflect.nn.model.Seq2Seq`'s: batch -> (summed loss, target
    symbols)); with several processes, wrapped in ``DistributedDataParallel``, whose hooks
    average the gradients over the processes during the backward pass (rank 0's initial weights
    are sent to the others when it is built)."""
    if world.size == 1:
        return model.loss
    from torch.nn.parallel import DistributedDataParallel

    return DistributedDataParallel(_LossOf(model))
