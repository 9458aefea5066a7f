"""Concurrent requests searched in batches on one thread, each request in turn, within a budget.

Every search of the service runs on one thread (:class:`Batcher`): torch's thread count (which
:class:`~inflect.inference.searcher.Searcher` lowers while an ensemble's members run side by
side), an ensemble's executor and the predictor's caches (codecs, lexicons and field
dictionaries read on first use) are shared state that two searches at once would race on; on
two cores one search at a time, over a whole batch, is also the fastest.

**Cost.** A request's work is everything its inputs cost on that thread: preparing them, the
search, and the lexicon lookups of their records (a field dictionary's lookup of a new lemma
can cost more than the search). The batcher measures it, per predictor (one model, one choice
of options), in seconds per input over its last groups: their seconds over their inputs, each
sum decayed by :data:`_DECAY` a group (a ratio of sums: a search call costs nearly as much for
1 input as for 16, so a lone word's call, averaged as a ratio of its own, would make every
input look as dear as a whole call). A predictor not yet measured is taken to cost the median
of those measured (one exotic choice of options, such as 1,000 forms, does not make every new
one look dear), or :data:`~inflect.defaults.SERVE_COST_PRIOR`.

**Turns.** A request is cut into pieces. Each batch holds about ``batch_seconds`` of work by
those measures (at least ``min_batch`` inputs, where a search call's fixed cost is most of it
on a busy machine; at most ``max_batch``), shared among the requests waiting as
max-min fairness shares a link: a request that needs less than an equal share takes all it
needs, the others share the rest equally (at least one input each). So a request that comes
while a bulk client's batch is searched waits for the rest of that batch, then is searched in
the next one beside a piece of each bulk request: a one-word request waits behind at most one
batch, however many inputs wait. The inputs of one predictor in a batch are searched as one
:meth:`~inflect.inference.searcher.Searcher.run` call (one encoder pass, one beam), the
predictors' groups cheapest first, and a request is answered as soon as its last piece is
searched (not at the batch's end). Pieces change no form, order or certificate (each input's
search is its own); the probabilities agree to float32 rounding, as ``inflect predict``'s
chunks do. Where the last batch had more than one request, the batcher waits up to ``window``
seconds for as many to be waiting, so a closed loop of N one-word clients is searched N at a
time while a lone client is answered at once.

**Limits.** A request is refused (:class:`QueueFull`, answered 503 with ``Retry-After``) while
something waits and either the inputs waiting would pass ``max_queue`` or its own expected wait
would pass ``max_wait`` seconds: the rest of the batch in flight, its own work, and of each
request waiting as much work as its own at most (what it shares its turns with until it is
done). :meth:`Batcher.close` answers every request already queued, then stops the thread.
"""

from __future__ import annotations

import asyncio
import math
import time
import weakref
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
    """The queue holds too much work (or the service is stopping): try again later.

    Attributes:
        retry_after: seconds after which a retry is likely to be taken (1 to 60).
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
    """One request's work: ``queries`` for a predictor (``make`` turns each into an
    :class:`~inflect.text.records.Example` first, ``finish`` their records into the answer, both
    on the search thread), or a call; cut into pieces by the batches that take it."""

    target: Any
    queries: Sequence[Any] = ()
    call: Callable[[], Any] | None = None
    make: Callable[[Any], Example] | None = None
    finish: Callable[[list[Any]], Any] | None = None
    size: int = 1
    future: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    taken: int = 0  #: inputs given to batches so far (on the event loop's thread)
    records: list[Any] = field(default_factory=list)  #: its records so far (search thread)

    @property
    def left(self) -> int:
        """Inputs not yet given to a batch."""
        return self.size - self.taken


#: One batch: each group's predictor (None: calls) and its pieces ``(job, start, stop)``.
_Groups = list[tuple[Any, list[tuple[_Job, int, int]]]]
#: A job's piece was searched and more of it is to come (no answer yet).
_MORE = object()
#: The weight a group's measure keeps at each later group of its predictor.
_DECAY = 0.7


def _prepare(predictor: Any, job: _Job, start: int, stop: int) -> list[Any]:
    """The job's queries ``start:stop`` prepared (:meth:`Predictor.prepare`; each made by
    ``job.make`` first), or :class:`Rejected` for the first one the predictor refuses, naming
    its field and its place in the request."""
    items = []
    for i in range(start, stop):
        given = job.queries[i]
        query = job.make(given) if job.make is not None else given
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


def _group(
    target: Any, pieces: list[tuple[_Job, int, int]]
) -> tuple[list[tuple[_Job, bool, Any]], int]:
    """On the search thread: search one group's pieces; each job whose piece ends it as
    ``(job, True, answer)``, a failed one as ``(job, False, error)``, others ``(job, True,
    _MORE)``; and the number of inputs searched."""
    if target is None:  # calls, each whole
        out = []
        for job, _, _ in pieces:
            try:
                out.append((job, True, job.call()))  # type: ignore[misc]
            except Exception as exc:
                out.append((job, False, exc))
        return out, 0
    failed: list[tuple[_Job, bool, Any]] = []
    kept = []
    for job, start, stop in pieces:  # each piece prepared in its turn: a batch's work bounded
        try:
            kept.append((job, stop, _prepare(target, job, start, stop)))
        except Exception as exc:  # Rejected; what ``make`` raised (a request's own error)
            failed.append((job, False, exc))
    items = [item for _, _, prepared in kept for item in prepared]
    try:
        records: list[Any] = []
        for at in range(0, len(items), target.chunk_size):
            records += target.run(items[at : at + target.chunk_size])
    except Exception as exc:  # a lexicon that fails at its first read, ...: every job of it
        return failed + [(job, False, exc) for job, _, _ in kept], 0
    out, at = failed, 0
    for job, stop, prepared in kept:
        job.records += records[at : at + len(prepared)]
        at += len(prepared)
        if stop < job.size:
            out.append((job, True, _MORE))
            continue
        try:
            answer = job.finish(job.records) if job.finish is not None else job.records
        except Exception as exc:
            out.append((job, False, exc))
            continue
        out.append((job, True, answer))
    return out, len(items)


def _shares(needs: Sequence[float], budget: float) -> list[float]:
    """Max-min fair shares of ``budget`` among ``needs`` (water-filling): a need below an equal
    share of what is left is met whole, the rest share equally."""
    shares = [0.0] * len(needs)
    left, count = budget, len(needs)
    for i in sorted(range(len(needs)), key=needs.__getitem__):
        shares[i] = min(needs[i], left / count)
        left -= shares[i]
        count -= 1
    return shares


class Batcher:
    """One search thread fed by a bounded queue of requests (see the module docstring).

    Args:
        window: seconds to wait for company where the last batch had more than one request.
        max_batch: inputs of one batch at most (a call, e.g. a warm-up, is never cut).
        max_queue: inputs waiting at most; beyond, :class:`QueueFull`.
        max_wait: seconds a request may expect to wait (its own work included); beyond,
            :class:`QueueFull`.
        batch_seconds: the work of one batch, in measured seconds.
        min_batch: inputs of one batch at least (as many as wait, if fewer), however dear.
        threads: torch's intra-op threads on the search thread (None: as the process has them).
        clock: what a group's seconds are measured by, on the search thread (a test gives a
            clock of its own).

    Raises:
        ValueError: a setting out of range.

    Use ``await start()`` inside the event loop, then :meth:`inflect` and :meth:`call`, then
    ``await close()``.
    """

    def __init__(
        self,
        *,
        window: float = defaults.SERVE_BATCH_WINDOW,
        max_batch: int = defaults.SERVE_MAX_BATCH,
        max_queue: int = defaults.SERVE_MAX_QUEUE,
        max_wait: float = defaults.SERVE_MAX_WAIT,
        batch_seconds: float = defaults.SERVE_BATCH_SECONDS,
        min_batch: int = defaults.SERVE_MIN_BATCH,
        threads: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        for name, seconds in (("window", window), ("max_wait", max_wait),
                              ("batch_seconds", batch_seconds)):
            if not (isinstance(seconds, int | float) and 0 <= seconds < math.inf):
                raise ValueError(f"{name} must be a number of seconds >= 0, got {seconds!r}")
        for name, value in (("max_batch", max_batch), ("max_queue", max_queue),
                            ("min_batch", min_batch)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.window, self.max_batch, self.max_queue = window, max_batch, max_queue
        self.max_wait, self.batch_seconds, self.threads = max_wait, batch_seconds, threads
        self.clock, self.min_batch = clock, min(min_batch, max_batch)
        self.searching = 0  #: inputs of the batch being searched
        self.batches = 0  #: batches taken for the search so far (the one in flight included)
        self.searched = 0  #: inputs searched so far
        #: seconds per input of each predictor searched (see the module docstring)
        self.costs: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
        #: each predictor's decayed sums of seconds and of inputs searched
        self._work: weakref.WeakKeyDictionary[Any, tuple[float, float]] = \
            weakref.WeakKeyDictionary()
        self._jobs: list[_Job] = []  # the requests not wholly taken, in the order they came
        self._turn = 0  # where the next batch starts its round (when the last was cut short)
        self._flight = 0.0  # expected seconds of the batch being searched
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._closing = False

    def _init_thread(self) -> None:
        if self.threads is not None:
            import torch

            torch.set_num_threads(self.threads)  # OpenMP's count is per thread: set it here

    async def start(self) -> None:
        """Start the search thread and the gathering task (in the running event loop)."""
        self._wake = asyncio.Event()
        self._executor = ThreadPoolExecutor(
            1, thread_name_prefix="inflect-search", initializer=self._init_thread
        )
        self._task = asyncio.get_running_loop().create_task(self._gather())

    async def close(self) -> None:
        """Refuse new requests, answer every request already queued, stop the thread."""
        if self._wake is None or self._closing:
            return
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
        if self._executor is not None:
            self._executor.shutdown(wait=True)

    # ------------------------------------------------------------------ state
    @property
    def waiting(self) -> int:
        """Inputs queued, not yet taken by a batch."""
        return sum(job.left for job in self._jobs)

    def cost(self, target: Any) -> float:
        """Seconds per input of ``target`` (a predictor; None: a call): as measured, else the
        median of those measured, else :data:`~inflect.defaults.SERVE_COST_PRIOR`."""
        found = self.costs.get(target) if target is not None else None
        if found is None:
            known = sorted(self.costs.values())
            found = known[len(known) // 2] if known else defaults.SERVE_COST_PRIOR
        return max(found, 1e-6)  # a microsecond at least: no batch of unbounded size

    @property
    def queued_seconds(self) -> float:
        """Expected seconds of the work queued (not yet taken)."""
        return sum(job.left * self.cost(job.target) for job in self._jobs)

    @property
    def stopping(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closing

    @property
    def over_limit(self) -> bool:
        """True while a request like those waiting would be refused: the inputs waiting reach
        ``max_queue`` or their expected work ``max_wait`` seconds (or the service is
        stopping); the readiness of ``/healthz``."""
        return (self._closing or self.waiting >= self.max_queue
                or self.queued_seconds >= self.max_wait)

    def expected_wait(self, size: int, target: Any) -> float:
        """Seconds a new request of ``size`` inputs of ``target`` can expect until it is
        answered: the rest of the batch in flight, its own work, and of each request waiting
        as much work as its own at most (by the measured costs)."""
        own = size * self.cost(target)
        ahead = sum(min(job.left * self.cost(job.target), own) for job in self._jobs)
        return self._flight + ahead + own

    def retry_after(self, seconds: float = 0.0) -> int:
        """``seconds`` (at least the expected seconds of the batch in flight) as whole seconds
        from 1 to 60, for ``Retry-After``."""
        return max(1, min(60, math.ceil(max(seconds, self._flight))))

    # ------------------------------------------------------------------ requests
    def _submit(self, job: _Job) -> asyncio.Future:
        if self._wake is None:
            raise RuntimeError("the batcher is not started")
        if self._closing:
            raise QueueFull("the service is stopping", self.retry_after(self.queued_seconds))
        waiting = self.waiting
        if waiting:  # with nothing waiting a request is taken whole, however large
            if waiting + job.size > self.max_queue:
                over = waiting + job.size - self.max_queue
                raise QueueFull(
                    f"the queue is full ({waiting} inputs waiting, at most {self.max_queue})",
                    self.retry_after(self.queued_seconds * over / waiting),
                )
            wait = self.expected_wait(job.size, job.target)
            if wait > self.max_wait:
                raise QueueFull(
                    f"the queue is full (this request would wait about {wait:.0f} s, at most "
                    f"{self.max_wait:g} s; send fewer inputs a request, or retry later)",
                    self.retry_after(wait - self.max_wait),
                )
        self._jobs.append(job)
        self._wake.set()
        return job.future

    async def inflect(
        self, predictor: Any, queries: Sequence[Any],
        finish: Callable[[list[Any]], Any] | None = None,
        make: Callable[[Any], Example] | None = None,
    ) -> Any:
        """The records of ``queries`` (a :class:`~inflect.inference.predictor.Predictor`'s
        :meth:`run`), searched in turns with the other requests; with ``make``, each query is
        ``make(query)`` first; with ``finish``, the answer is ``finish(records)`` (both called
        on the search thread, their time counted in the request's work).

        Raises:
            QueueFull: the queue is full, or the service is stopping.
            Rejected: an input the predictor refuses (found when its piece is taken: the
                request is answered with it, its pieces searched before dropped).
            Exception: what the search (or ``make``, or ``finish``) raised.
        """
        queries = tuple(queries)
        if not queries:
            return finish([]) if finish is not None else []
        job = _Job(predictor, queries, finish=finish, make=make, size=len(queries))
        return await self._submit(job)

    async def call(self, fn: Callable[[], Any], size: int = 1) -> Any:
        """``fn()`` on the search thread, in turn with the batches, never cut; ``size`` counts
        it in the queue.

        Raises:
            QueueFull: as :meth:`inflect`; Exception: what ``fn`` raised.
        """
        return await self._submit(_Job(None, call=fn, size=size))

    # ------------------------------------------------------------------ the loop
    def _take(self) -> _Groups:
        """The next batch: each request waiting, from the one whose turn it is, gets a piece
        of its max-min fair share of :attr:`batch_seconds` (or of :attr:`min_batch` inputs'
        work, where that is more; one input at least; a call whole), up to :attr:`max_batch`
        inputs; the groups cheapest first."""
        self._jobs = [job for job in self._jobs if job.left and not job.future.done()]
        jobs = self._jobs
        if not jobs:
            return []
        start = self._turn % len(jobs)
        order = jobs[start:] + jobs[:start]
        costs = [self.cost(job.target) for job in order]
        budget = max(self.batch_seconds, self.min_batch * sum(costs) / len(costs))
        shares = _shares([job.left * c for job, c in zip(order, costs, strict=True)], budget)
        room, pieces, served = self.max_batch, [], 0
        for job, c, share in zip(order, costs, shares, strict=True):
            if job.call is not None:  # whole; first in its batch if it is larger than the room
                n = job.left
                if pieces and n > room:
                    break
            else:
                n = min(job.left, max(1, int(share / c + 1e-6)), room)
                if n <= 0:
                    break
            pieces.append((job, job.taken, job.taken + n))
            room -= n
            served += 1
        self._turn = (start + served) % len(jobs) if served < len(jobs) else 0
        groups: dict[int, tuple[Any, list[tuple[_Job, int, int]]]] = {}
        for job, begin, end in pieces:
            job.taken = end
            groups.setdefault(id(job.target), (job.target, []))[1].append((job, begin, end))
        return sorted(groups.values(), key=lambda group: self.cost(group[0]) * sum(
            end - begin for _, begin, end in group[1]))

    def _settle(self, target: Any, inputs: int, seconds: float,
                outcome: list[tuple[_Job, bool, Any]]) -> None:
        """On the event loop: a group's measured cost, and the answers of the jobs it ended."""
        self.searched += inputs
        if target is not None and inputs:
            spent, done = self._work.get(target, (0.0, 0.0))
            spent, done = _DECAY * spent + seconds, _DECAY * done + inputs
            self._work[target] = spent, done
            self.costs[target] = spent / done
        for job, ok, value in outcome:
            if not ok:
                job.taken = job.size  # nothing more of it is searched
            if job.future.done() or value is _MORE:
                continue
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(value)

    def _search(self, groups: _Groups, loop: asyncio.AbstractEventLoop) -> None:
        """On the search thread: each group in turn, its answers sent to the loop at once."""
        for target, pieces in groups:
            started = self.clock()
            outcome, inputs = _group(target, pieces)
            seconds = self.clock() - started
            loop.call_soon_threadsafe(self._settle, target, inputs, seconds, outcome)

    async def _company(self, expect: int) -> None:
        """Wait up to :attr:`window` seconds while fewer than ``expect`` requests wait."""
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.window
        while len(self._jobs) < expect and not self._closing:
            left = deadline - loop.time()
            if left <= 0:
                return
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), left)
            except TimeoutError:
                return

    async def _gather(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        expect = 1
        while True:
            self._jobs = [job for job in self._jobs if job.left and not job.future.done()]
            if not self._jobs:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            if expect > 1 and self.window > 0 and self.queued_seconds < self.batch_seconds:
                await self._company(expect)  # the batch would not be full: wait for company
            groups = self._take()
            if not groups:
                continue
            expect = len({id(job) for _, pieces in groups for job, _, _ in pieces})
            self.batches += 1
            self.searching = sum(end - begin for _, pieces in groups for _, begin, end in pieces)
            self._flight = sum(self.cost(target) * sum(end - begin for _, begin, end in pieces)
                               for target, pieces in groups)
            try:
                await loop.run_in_executor(self._executor, self._search, groups, loop)
            except Exception as exc:  # never expected (_group answers each job): fail them
                for _, pieces in groups:
                    self._settle(None, 0, 0.0, [(job, False, exc) for job, _, _ in pieces])
            finally:
                self.searching, self._flight = 0, 0.0
            await asyncio.sleep(0)  # let the answers settled by call_soon_threadsafe run
