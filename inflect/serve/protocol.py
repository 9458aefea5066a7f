"""The HTTP connection of ``inflect serve``: uvicorn's h11 protocol with a time limit on a
request's headers.

uvicorn closes a connection left idle after an answer (``timeout_keep_alive``, 5 s), but it
waits for the headers of a request for ever: a client that connects and sends nothing, or sends
a request line and then a header a minute ("slowloris"), holds a connection and a file
descriptor as long as it likes, and enough such clients exhaust them. :class:`TimedH11Protocol`
gives every request ``read_seconds`` (:attr:`inflect.serve.service.ServeSettings.read_seconds`,
``inflect serve --read-timeout``; the application puts it in its lifespan state, which uvicorn
hands every connection) to send its headers, from the connection's start or from the first
byte after an answer, then answers 408 and closes the connection (as nginx's ``client_header_timeout`` and Apache's ``mod_reqtimeout`` do). The body's
time limit is the application's (:class:`inflect.serve.app.RequestGuard`). ``inflect serve``
passes the class to uvicorn (``http=``), so the pure-Python h11 parser is used even where
httptools is installed; a search costs milliseconds, parsing microseconds.
"""

from __future__ import annotations

import json
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from inflect import defaults
from inflect.serve.guard import READ_SECONDS

__all__ = ["TimedH11Protocol"]


def _timeout_answer(seconds: float) -> bytes:
    body = json.dumps({"error": f"the request's headers did not come within {seconds:g} s",
                       "field": "headers", "value": None}).encode()
    head = ("HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode()
    return head + body


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers take longer than
    :attr:`header_seconds` (408 Request Timeout)."""

    def connection_made(self, transport: Any) -> None:
        self._header_timer: Any = None
        state = self.app_state if isinstance(self.app_state, dict) else {}
        self.header_seconds = float(state.get(READ_SECONDS, defaults.SERVE_READ_SECONDS))
        super().connection_made(transport)
        self._arm()

    def _awaiting_headers(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def data_received(self, data: bytes) -> None:
        if self._awaiting_headers():
            self._arm()  # a request begins: from its first byte (or the connection's start)
        super().data_received(data)
        if not self._awaiting_headers():
            self._disarm()  # its headers came: the application has the request

    def on_response_complete(self) -> None:
        self._disarm()  # idle until the next request: uvicorn's keep-alive limit
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not self._awaiting_headers():
            return
        self.logger.info("closed a connection whose request headers took over %g s",
                         self.header_seconds)
        self.transport.write(_timeout_answer(self.header_seconds))
        self.transport.close()
