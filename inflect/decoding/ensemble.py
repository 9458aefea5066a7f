"""Ensembles: several models searched as one, their next-symbol probabilities averaged.

An :class:`Ensemble` is itself a :class:`~inflect.decoding.protocol.Decodable`, so every search
(greedy, beam, support enumeration, forced decoding) runs on it as on one model.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

import torch

from inflect.decoding.protocol import B, Decodable, S, concat_states_of

__all__ = ["Ensemble", "MemberBatches"]

_T = TypeVar("_T")


@dataclass(frozen=True)
class MemberBatches(Generic[B]):
    """One encoded batch per ensemble member (for members with different source encodings).

    Attributes:
        batches: ``batches[i]`` is given to ``members[i].start``; all must hold the same B inputs.
    """

    batches: tuple[B, ...]


def _target_symbols(member: object) -> list[str] | None:
    """The member's target symbols in id order (``target_vocab.symbols``, as
    :class:`inflect.nn.vocab.Vocab` gives them), or None for a member without a ``target_vocab``
    (the ids and ``target_size`` are then all that is compared)."""
    vocab = getattr(member, "target_vocab", None)
    return None if vocab is None else list(vocab.symbols)


def _reserved(member: Decodable[B, S]) -> dict[str, int]:
    """What two members sharing a target vocabulary must agree on besides its symbols."""
    return {
        "target_size": member.target_size,
        "bos_id": member.bos_id,
        "eos_id": member.eos_id,
        "pad_id": member.pad_id,
        "unk_id": member.unk_id,
    }


class Ensemble(Generic[B, S]):
    """A :class:`~inflect.decoding.protocol.Decodable` averaging its members' next-symbol
    probabilities.

    At each step the members' probability vectors are averaged (raw probabilities, as in Peters,
    Niculae & Martins 2019, §5: a symbol has nonzero probability when any member gives it some;
    averaging log-probabilities would make every member's zero a veto). The attention is the
    members' mean. State is the tuple of member states; a batch is one batch that every member
    takes, or a :class:`MemberBatches`.

    Args:
        members: One or more Decodables sharing the target vocabulary.

    Attributes:
        members: The members, in the order given.
        target_vocab: The first member's ``target_vocab`` (an object whose ``symbols`` are the
            target symbols in id order, :class:`inflect.nn.vocab.Vocab`), where it has one.
        executor: where set (:meth:`in_parallel`), the members' ``start`` and ``step`` run
            concurrently on it, each in its own thread (whole members are independent work; on
            a busy CPU this beats splitting each small operation over threads, whose barriers
            wait for descheduled threads).

    Raises:
        ValueError: On no members, or members whose target vocabularies differ (the message names
            the members and what differs: ``target_size``, a special id, or a symbol).
    """

    def __init__(self, members: Sequence[Decodable[B, S]]) -> None:
        self.executor: Executor | None = None
        members = tuple(members)
        if not members:
            raise ValueError("an ensemble needs at least one member")
        first = members[0]
        ref_ids, ref_syms = _reserved(first), _target_symbols(first)
        for i, m in enumerate(members[1:], start=1):
            for name, b in _reserved(m).items():
                a = ref_ids[name]
                if a != b:
                    raise ValueError(
                        f"ensemble members 0 and {i} have different target vocabularies: "
                        f"{name} is {a!r} vs {b!r}"
                    )
            syms = _target_symbols(m)
            if ref_syms is not None and syms is not None and syms != ref_syms:
                j = next(
                    (j for j, (x, y) in enumerate(zip(ref_syms, syms, strict=False)) if x != y),
                    min(len(ref_syms), len(syms)),
                )
                x = ref_syms[j] if j < len(ref_syms) else "<none>"
                y = syms[j] if j < len(syms) else "<none>"
                raise ValueError(
                    f"ensemble members 0 and {i} have different target vocabularies: "
                    f"symbol id {j} is {x!r} vs {y!r}"
                )
        self.members = members
        self.target_size: int = first.target_size
        self.bos_id: int = first.bos_id
        self.eos_id: int = first.eos_id
        self.pad_id: int = first.pad_id
        self.unk_id: int = first.unk_id
        if ref_syms is not None:
            self.target_vocab = first.target_vocab  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return len(self.members)

    @property
    def device(self) -> torch.device:
        """The first member's device (where search makes its index tensors)."""
        return self.members[0].device

    def _batches(self, batch: B | MemberBatches[B]) -> tuple[B, ...]:
        if isinstance(batch, MemberBatches):
            if len(batch.batches) != len(self.members):
                raise ValueError(
                    f"MemberBatches holds {len(batch.batches)} batches for "
                    f"{len(self.members)} ensemble members"
                )
            return batch.batches
        return (batch,) * len(self.members)

    def batch_size(self, batch: B | MemberBatches[B]) -> int:
        """B, the number of inputs (checked equal across members)."""
        sizes = {m.batch_size(b) for m, b in zip(self.members, self._batches(batch), strict=True)}
        if len(sizes) != 1:
            raise ValueError(f"ensemble members see different batch sizes: {sorted(sizes)}")
        return sizes.pop()

    @contextlib.contextmanager
    def in_parallel(self, workers: int) -> Iterator[Ensemble[B, S]]:
        """Within the block, ``start`` and ``step`` run the members on ``workers`` threads (at
        most one per member; 1: one after the other, as outside the block)."""
        workers = min(workers, len(self.members))
        if workers < 2:
            yield self
            return
        with ThreadPoolExecutor(workers, thread_name_prefix="ensemble") as executor:
            self.executor = executor
            try:
                yield self
            finally:
                self.executor = None

    def _each(self, calls: Sequence[Callable[[], _T]]) -> list[_T]:
        """``calls[i]()`` (one per member), on :attr:`executor` where set (with the caller's
        inference and grad modes, which are per thread)."""
        if self.executor is None:
            return [call() for call in calls]
        inference, grad = torch.is_inference_mode_enabled(), torch.is_grad_enabled()

        def run(call: Callable[[], _T]) -> _T:
            with torch.inference_mode(inference), torch.set_grad_enabled(grad):
                return call()

        return [f.result() for f in [self.executor.submit(run, call) for call in calls]]

    def start(self, batch: B | MemberBatches[B]) -> tuple[S, ...]:
        """Encode ``batch`` (or a :class:`MemberBatches`) with every member."""
        batches = self._batches(batch)
        starts = [functools.partial(m.start, b) for m, b in zip(self.members, batches, strict=True)]
        return tuple(self._each(starts))

    def step(
        self, state: tuple[S, ...], prev: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None, tuple[S, ...]]:
        """Average the members' probabilities (FloatTensor[N, V]) and attention ([N, S])."""
        members = zip(self.members, state, strict=True)
        steps = [functools.partial(m.step, s, prev) for m, s in members]
        outs = self._each(steps)
        if len(outs) == 1:
            return outs[0][0], outs[0][1], (outs[0][2],)
        probs = torch.stack([o[0] for o in outs]).mean(dim=0)
        attns = [o[1] for o in outs]
        present = [a for a in attns if a is not None]
        attn = None
        if len(present) == len(attns):
            shapes = {tuple(a.shape) for a in present}
            if len(shapes) != 1:
                raise ValueError(f"ensemble members give attention of different shapes: {shapes}")
            attn = torch.stack(present).mean(dim=0)
        return probs, attn, tuple(o[2] for o in outs)

    def reorder(self, state: tuple[S, ...], index: torch.Tensor) -> tuple[S, ...]:
        """Gather rows ``index`` of every member state."""
        return tuple(m.reorder(s, index) for m, s in zip(self.members, state, strict=True))

    def __getattr__(self, name: str) -> Callable[[Sequence[tuple[S, ...]]], tuple[S, ...]]:
        # ``concat_states`` exists exactly when every member has it (the optional part of the
        # protocol, :class:`~inflect.decoding.protocol.Concatenable`)
        if name != "concat_states":
            raise AttributeError(name)
        concats = [concat_states_of(m) for m in self.members]
        found = [c for c in concats if c is not None]
        if len(found) != len(concats):
            raise AttributeError(name)

        def concat_states(states: Sequence[tuple[S, ...]]) -> tuple[S, ...]:
            return tuple(concat([s[i] for s in states]) for i, concat in enumerate(found))

        return concat_states

