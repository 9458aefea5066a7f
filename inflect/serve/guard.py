"""What every request of ``inflect serve`` must be before the application reads it
(:class:`RequestGuard`, an ASGI middleware): text in UTF-8, numbers that JSON has, a body of a
bounded size sent in a bounded time; and HEAD answered as GET.

Python's JSON reader takes ``NaN`` and ``Infinity`` and lone surrogates (``"\\ud800"``), and
Starlette reads a query string's bytes that are not UTF-8 as U+FFFD; each would reach the
search as a value nobody sent, or fail where the answer is written (a 500). Here each is a 4xx
naming the field (``inputs[0].lemma``, ``beam``), as every other refusal of the service
(:mod:`inflect.serve.errors`).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import parse_qsl

from fastapi.responses import JSONResponse

from inflect.serve.errors import RequestError, error_body, field_path

__all__ = ["READ_SECONDS", "RequestGuard"]

#: The key of ``read_seconds`` in the application's lifespan state (which uvicorn hands every
#: connection: :class:`inflect.serve.protocol.TimedH11Protocol` reads it).
READ_SECONDS = "inflect.read_seconds"


def _json_path(path: Sequence[str | int]) -> str:
    """A place in a JSON body as a field path (``inputs[0].lemma``; the whole body: ``body``)."""
    return field_path(("body", *path))


def _strings(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple, Any]]:
    """Every key, string and constant of a parsed JSON value, with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key), key
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))
    else:
        yield path, value


_NOT_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class _Constant(float):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a body (Python's JSON reader takes them; JSON
    has no such numbers), kept with its name."""

    name = ""


def _constant(name: str) -> _Constant:
    found = _Constant(_NOT_FINITE[name])
    found.name = name
    return found


def _body_problem(body: bytes) -> RequestError | None:
    """What makes a JSON body unanswerable before FastAPI reads it, naming the field: bytes that
    are not UTF-8 (400), a lone surrogate (``"\\ud800"``) or NaN or Infinity (422). None for a
    good body, and for one that is not JSON at all (FastAPI's own error names it)."""
    try:
        text, bad_bytes = body.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        text, bad_bytes = body.decode("utf-8", "surrogateescape"), exc
    if bad_bytes is None and not _SUSPECT.search(body):
        return None  # no constant and no surrogate escape: nothing to look for (the most bodies)
    try:
        parsed = json.loads(text, parse_constant=_constant)
    except ValueError:
        parsed = _NOTHING
    if bad_bytes is not None:
        byte = body[bad_bytes.start]
        where = f"byte 0x{byte:02X} at offset {bad_bytes.start} of the body"
        for path, value in _strings(parsed) if parsed is not _NOTHING else ():
            if isinstance(value, str) and _ESCAPED.search(value):
                shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                field = _json_path(path)
                return RequestError(400, f"{field}: bytes that are not UTF-8 ({where}); send "
                                    "the body in UTF-8", field, shown)
        return RequestError(400, f"the body is not UTF-8 ({where}); send it in UTF-8", "body")
    if parsed is _NOTHING:
        return None
    for path, value in _strings(parsed):
        field = _json_path(path)
        if isinstance(value, _Constant):
            return RequestError(422, f"{field}: {value.name} is not a JSON number (give a finite "
                                "number)", field, value.name)
        if isinstance(value, str) and (found := _LONE.search(value)):
            return RequestError(422, f"{field}: a lone surrogate U+{ord(found.group()):04X} is "
                                "not a character (send the character itself, or both halves of "
                                "its surrogate pair)", field, value)
    return None


_NOTHING = object()
#: What a body must hold for NaN, Infinity or a lone surrogate to be in it.
_SUSPECT = re.compile(rb"NaN|Infinity|\\u[dD][89a-fA-F]")
_ESCAPED = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)
_LONE = re.compile("[\ud800-\udfff]")


def _query_problem(query: bytes) -> RequestError | None:
    """A query string parameter (name or value) whose bytes are not UTF-8 (``lemma=H%E4user``),
    as a 400 naming it; None where all are UTF-8."""
    for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True,
                                 encoding="latin-1"):
        for raw in (name, value):
            try:
                raw.encode("latin-1").decode("utf-8")
            except UnicodeDecodeError as exc:
                field = name.encode("latin-1").decode("utf-8", "backslashreplace")
                shown = raw.encode("latin-1").decode("utf-8", "backslashreplace")
                byte = raw.encode("latin-1")[exc.start]
                return RequestError(400, f"{field}: bytes that are not UTF-8 (0x{byte:02X}); "
                                    "percent-encode the text's UTF-8 bytes (Häuser: "
                                    "H%C3%A4user)", field, shown)
    return None


class RequestGuard:
    """ASGI middleware: what every request must be before the application reads it.

    - a query string that is not UTF-8 is a 400 naming the parameter;
    - HEAD is answered as GET without the body (every GET route has HEAD, as HTTP asks);
    - a request body over ``limit`` bytes is a 413 (known by its Content-Length, else once the
      bytes read pass it), never reaching the app: the rest of the body is read and dropped, up
      to ``16 x limit``, so that the client, still sending, reads the answer instead of a broken
      connection; nothing over the limit is kept;
    - a body not sent whole within ``seconds`` is a 408 (the connection closed);
    - a JSON body with bytes that are not UTF-8 (400), a lone surrogate or NaN/Infinity (422)
      is refused naming the field (:func:`_body_problem`).
    """

    def __init__(self, app: Any, limit: int, seconds: float) -> None:
        self.app, self.limit, self.seconds = app, limit, seconds

    async def _answer(self, scope: Any, receive: Any, send: Any, error: RequestError,
                      close: bool = False) -> None:
        headers = {**error.headers, **({"Connection": "close"} if close else {})}
        await JSONResponse(error_body(error), status_code=error.status, headers=headers)(
            scope, receive, send)

    async def _refuse(self, scope: Any, receive: Any, send: Any, size: int | None,
                      more: bool, seen: int) -> None:
        while more and seen <= 16 * self.limit:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            seen += len(message.get("body", b""))
            more = message.get("more_body", False)
        error = RequestError(413, f"the body is larger than {self.limit} bytes (send several "
                             "requests)", "body", size)
        await self._answer(scope, receive, send, error)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = _query_problem(scope.get("query_string", b""))
        if problem is not None:
            await self._answer(scope, receive, send, problem)
            return
        if scope["method"] == "HEAD":
            await self.app({**scope, "method": "GET"}, receive, _without_body(send))
            return
        if scope["method"] in ("GET", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send, int(declared), True, 0)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        body, more = b"", True
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                error = RequestError(408, f"the body did not come whole within "
                                     f"{self.seconds:g} s ({len(body)} bytes came)", "body")
                await self._answer(scope, receive, send, error, close=True)
                return
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await self._refuse(scope, receive, send, None, more, len(body))
                return
        kind = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if body and (kind == b"application/json" or kind.endswith(b"+json")):
            problem = _body_problem(body)
            if problem is not None:
                await self._answer(scope, receive, send, problem)
                return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _without_body(send: Any) -> Any:
    """``send`` for a HEAD request: the answer's status and headers (its Content-Length as
    GET's), no body."""

    async def sending(message: Any) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return sending
