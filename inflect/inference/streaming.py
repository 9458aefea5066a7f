"""Reading input that arrives slowly (a terminal, a pipe fed by hand or by another program).

:func:`with_idle_marks` reads an iterable on a thread of its own and passes its items on as
they come, with an :data:`IDLE` mark put in where no item has arrived for ``idle`` seconds. A
consumer that collects items into batches (:meth:`inflect.inference.searcher.Searcher.stream`) searches the
batch collected so far at the mark: a line typed in a terminal, or written to a pipe that stays
open, is answered at once, while input that comes quickly (a file, a fast pipe) still fills
whole batches. Batch composition never changes an answer (each input has its own output length
limit, :meth:`inflect.inference.searcher.Searcher.max_output_len`).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Any, Final

from inflect.defaults import STREAM_IDLE_SECONDS

__all__ = ["IDLE", "with_idle_marks"]


class _Idle:
    """The type of :data:`IDLE`."""

    def __repr__(self) -> str:
        return "IDLE"


#: The mark :func:`with_idle_marks` yields when the input has paused.
IDLE: Final = _Idle()

_ITEM, _END, _ERROR = 0, 1, 2


def with_idle_marks(
    items: Iterable[Any], idle: float = STREAM_IDLE_SECONDS, *, buffer: int = 1024
) -> Iterator[Any]:
    """The items of ``items`` in order, read on a background thread, with :data:`IDLE` yielded
    once each time no item has come for ``idle`` seconds (then the next item is waited for
    without a limit: one mark per pause, no busy loop).

    Args:
        items: any iterable (e.g. :func:`inflect.inference.queries.read_queries` of standard input); it is
            iterated on the reader thread only.
        idle: the pause, in seconds (> 0), after which :data:`IDLE` is yielded.
        buffer: the most items read ahead of the consumer (the reader waits beyond it, so a
            large file is not read into memory).

    Raises:
        Whatever iterating ``items`` raises, re-raised here after the items before it.
    """
    if not idle > 0:
        raise ValueError(f"idle must be a positive number of seconds, got {idle!r}")
    passed: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=max(1, buffer))
    stop = threading.Event()

    def read() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                passed.put((_ITEM, item))
        except BaseException as exc:  # handed to the consumer, raised there
            passed.put((_ERROR, exc))
        else:
            passed.put((_END, None))

    # a daemon: a consumer that stops early (an error, a closed pipe) does not wait for input
    reader = threading.Thread(target=read, name="inflect-input-reader", daemon=True)
    reader.start()
    try:
        while True:
            try:
                kind, value = passed.get(timeout=idle)
            except queue.Empty:
                yield IDLE
                kind, value = passed.get()
            if kind == _END:
                return
            if kind == _ERROR:
                raise value
            yield value
    finally:
        stop.set()
