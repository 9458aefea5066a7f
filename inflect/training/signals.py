"""Stop requests while a run trains: SIGINT (Ctrl-C) and SIGTERM become a request that the
trainer honours at the next batch boundary, after saving a resumable state."""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["StopRequests"]


class StopRequests:
    """SIGINT/SIGTERM while training: the first asks the loop to stop at the next batch boundary
    (saving a resumable state); a second SIGINT interrupts at once (the last saved state stays).

    A context manager: the handlers are installed on entry (in the main thread only: Python
    delivers signals there) and the previous ones restored on exit.

    Attributes:
        requested: what asked to stop (a signal's name, or a reason the trainer sets), or None.
    """

    def __init__(self) -> None:
        self.requested: str | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopRequests:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = signal.Signals(signum).name
