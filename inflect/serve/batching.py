"""Concurrent requests gathered into one batched search.

Every search of the service runs on one thread (:class:`Batcher`): torch's thread count (which
:class:`~inflect.inference.searcher.Searcher` lowers while an ensemble's members run side by
side), an ensemble's executor and the predictor's caches (codecs, lexicon languages read on
first use) are shared state that two searches at once would race on; on two cores one search at a
time, over a whole batch, is also the fastest. Requests are queued; the thread takes every
request waiting when it is free, and where the last batch had company it also waits a short
window (``window`` seconds) for as many requests as that batch had, so a closed loop of N clients
is searched N at a time while a lone client is answered at once. The inputs of all requests that
share a predictor (one model, one choice of options) go into one
:meth:`~inflect.inference.searcher.Searcher.run` call: one encoder pass, one beam. Batch
composition changes no form, order or certificate (each input's search is its own); the
probabilities agree to float32 rounding, as ``inflect predict``'s chunks do.

The queue is bounded: with ``max_queue`` inputs waiting, a new request is refused
(:class:`QueueFull`, answered 503 with ``Retry-After``). :meth:`Batcher.close` answers every
request already queued, then stops the thread.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from inflect import defaults
from inflect.inference.queries import InputError
from inflect.text.languages import UnknownLanguageError
from inflect.text.records import Example

__all__ = ["Batcher", "QueueFull", "Rejected"]


class QueueFull(RuntimeError):
    """The queue holds too many inputs (or the service is stopping): try again later.

    Attributes:
        retry_after: seconds after which a retry is likely to be taken (≥ 1).
    """

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Rejected(ValueError):
    """One input of a request that the model cannot take (as ``inflect predict`` refuses it).

    Attributes:
        index: the input's place in its request (0-based).
        field: the request field at fault: ``"lang"``, ``"lemma"`` or ``"tags"``.
        value: the value at fault.
        error: the predictor's error (its message says what is wrong).
    """

    def __init__(self, index: int, field: str, value: str | None, error: Exception) -> None:
        super().__init__(str(error))
        self.index, self.field, self.value, self.error = index, field, value, error


@dataclass(eq=False)
class _Job:
    """One request's work: ``queries`` for a predictor, or a call (a paradigm)."""

    target: Any
    queries: Sequence[Example] = ()
    call: Callable[[], Any] | None = None
    size: int = 1
    future: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


def _prepare(predictor: Any, job: _Job) -> list[Any]:
    """The job's queries prepared (:meth:`Predictor.prepare`), or :class:`Rejected` for the
    first one the predictor refuses, naming its field."""
    items = []
    for i, query in enumerate(job.queries):
        try:
            predictor.codec(query.language)
        except (InputError, UnknownLanguageError) as exc:
            raise Rejected(i, "lang", query.language, exc) from None
        try:
            items.append(predictor.prepare(query))
        except InputError as exc:
            at_lemma = exc.value is not None and exc.value == query.lemma
            where = ("lemma", query.lemma) if at_lemma else ("tags", query.tags.text)
            raise Rejected(i, *where, exc) from None
    return items


def _search(jobs: Sequence[_Job]) -> list[tuple[bool, Any]]:
    """On the search thread: every job's result as ``(ok, value)``; the inputs of the jobs of
    one predictor searched together, in chunks of its ``chunk_size``."""
    done: dict[int, tuple[bool, Any]] = {}
    groups: dict[int, list[tuple[_Job, list[Any]]]] = {}
    for job in jobs:
        if job.call is not None:
            continue
        try:
            prepared = _prepare(job.target, job)
        except Rejected as exc:
            done[id(job)] = (False, exc)
            continue
        groups.setdefault(id(job.target), []).append((job, prepared))
    for group in groups.values():
        predictor = group[0][0].target
        items = [item for _, prepared in group for item in prepared]
        try:
            records: list[Any] = []
            for start in range(0, len(items), predictor.chunk_size):
                records += predictor.run(items[start : start + predictor.chunk_size])
        except Exception as exc:  # a lexicon that fails at its first read, ...: every job of it
            for job, _ in group:
                done[id(job)] = (False, exc)
            continue
        at = 0
        for job, prepared in group:
            done[id(job)] = (True, records[at : at + len(prepared)])
            at += len(prepared)
    for job in jobs:
        if job.call is not None:
            try:
                done[id(job)] = (True, job.call())
            except Exception as exc:
                done[id(job)] = (False, exc)
    return [done[id(job)] for job in jobs]


class Batcher:
    """One search thread fed by a bounded queue of requests (see the module docstring).

    Args:
        window: seconds to wait for company once a request is taken, where the last batch had
            more than one request.
        max_batch: inputs gathered into one batch at most (a request is never split).
        max_queue: inputs waiting at most; beyond, :class:`QueueFull`.
        threads: torch's intra-op threads on the search thread (None: as the process has them).

    Use ``await start()`` inside the event loop, then :meth:`inflect` and :meth:`call`, then
    ``await close()``.
    """

    def __init__(
        self,
        *,
        window: float = defaults.SERVE_BATCH_WINDOW,
        max_batch: int = defaults.SERVE_MAX_BATCH,
        max_queue: int = defaults.SERVE_MAX_QUEUE,
        threads: int | None = None,
    ) -> None:
        if not window >= 0:
            raise ValueError(f"window must be >= 0 seconds, got {window!r}")
        for name, value in (("max_batch", max_batch), ("max_queue", max_queue)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.window, self.max_batch, self.max_queue = window, max_batch, max_queue
        self.threads = threads
        self.waiting = 0  #: inputs queued, not yet taken by the search thread
        self.searching = 0  #: inputs of the batch being searched
        self.batches = 0  #: batches searched so far
        self._rate = 0.0  # inputs per second of the last batches (for Retry-After)
        self._queue: asyncio.Queue[_Job | None] | None = None
        self._task: asyncio.Task | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._closing = False

    def _init_thread(self) -> None:
        if self.threads is not None:
            import torch

            torch.set_num_threads(self.threads)  # OpenMP's count is per thread: set it here

    async def start(self) -> None:
        """Start the search thread and the gathering task (in the running event loop)."""
        self._queue = asyncio.Queue()
        self._executor = ThreadPoolExecutor(
            1, thread_name_prefix="inflect-search", initializer=self._init_thread
        )
        self._task = asyncio.get_running_loop().create_task(self._gather())

    async def close(self) -> None:
        """Refuse new requests, answer every request already queued, stop the thread."""
        if self._queue is None or self._closing:
            return
        self._closing = True
        self._queue.put_nowait(None)
        if self._task is not None:
            await self._task
        if self._executor is not None:
            self._executor.shutdown(wait=True)

    # ------------------------------------------------------------------ requests
    def retry_after(self) -> int:
        """Seconds until the queue has likely drained (from the recent search rate), 1 to 60."""
        if self._rate <= 0:
            return 1
        return max(1, min(60, math.ceil(self.waiting / self._rate)))

    def _submit(self, job: _Job) -> asyncio.Future:
        if self._queue is None:
            raise RuntimeError("the batcher is not started")
        if self._closing:
            raise QueueFull("the service is stopping", self.retry_after())
        if self.waiting and self.waiting + job.size > self.max_queue:
            raise QueueFull(
                f"the queue is full ({self.waiting} inputs waiting, at most {self.max_queue})",
                self.retry_after(),
            )
        self.waiting += job.size
        self._queue.put_nowait(job)
        return job.future

    async def inflect(self, predictor: Any, queries: Sequence[Example]) -> list[Any]:
        """The records of ``queries`` (a :class:`~inflect.inference.predictor.Predictor`'s
        :meth:`run`), searched with the other requests of the same predictor.

        Raises:
            QueueFull: the queue is full, or the service is stopping.
            Rejected: an input the predictor refuses (none is searched).
            Exception: what the search raised.
        """
        return await self._submit(_Job(predictor, tuple(queries), size=max(1, len(queries))))

    async def call(self, fn: Callable[[], Any], size: int = 1) -> Any:
        """``fn()`` on the search thread, in turn with the batches (a paradigm: one batch of
        its own); ``size`` counts it in the queue.

        Raises:
            QueueFull: as :meth:`inflect`; Exception: what ``fn`` raised.
        """
        return await self._submit(_Job(None, call=fn, size=size))

    # ------------------------------------------------------------------ the loop
    async def _take(self, first: _Job, expect: int) -> tuple[list[_Job], bool]:
        """The batch that starts with ``first``: every job waiting, then (while fewer than
        ``expect`` jobs) those that come within :attr:`window`; and whether the end was seen."""
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        batch, size, deadline = [first], first.size, loop.time() + self.window
        while size < self.max_batch:
            try:
                job = self._queue.get_nowait()
            except asyncio.QueueEmpty:
                left = deadline - loop.time()
                if len(batch) >= expect or left <= 0:
                    break
                try:
                    job = await asyncio.wait_for(self._queue.get(), left)
                except TimeoutError:
                    break
            if job is None:
                return batch, True
            batch.append(job)
            size += job.size
        return batch, False

    async def _gather(self) -> None:
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        expect, ended = 1, False
        while not ended:
            first = await self._queue.get()
            if first is None:
                break
            batch, ended = await self._take(first, expect)
            expect = len(batch)
            size = sum(job.size for job in batch)
            self.waiting -= size
            self.searching = size
            started = time.perf_counter()
            try:
                results = await loop.run_in_executor(self._executor, _search, batch)
            except Exception as exc:  # never expected (_search answers each job): fail them all
                results = [(False, exc)] * len(batch)
            finally:
                self.searching = 0
            elapsed = max(time.perf_counter() - started, 1e-6)
            self._rate = 0.5 * self._rate + 0.5 * (size / elapsed) if self._rate else size / elapsed
            self.batches += 1
            for job, (ok, value) in zip(batch, results, strict=True):
                if job.future.done():  # the client went away
                    continue
                if ok:
                    job.future.set_result(value)
                else:
                    job.future.set_exception(value)
