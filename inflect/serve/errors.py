"""A bad request as the service answers it: a 4xx status and one JSON object naming the field and
the value, as the command line names the option, the file and the line; never a traceback.

``{"error": "unknown language 'klingon'; did you mean ...", "field": "lang", "value":
"klingon"}``: ``field`` is the query parameter or the body's path (``inputs[2].tags``), ``value``
what was given (null where nothing was).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["RequestError", "error_body", "printable", "validation_error"]

_SURROGATE = re.compile("[\ud800-\udfff]")


class RequestError(Exception):
    """A request the service refuses.

    Attributes:
        status: the HTTP status (422: a value that cannot be answered; 413: too large; 404;
            503: the queue is full).
        field: the field at fault (``"lang"``, ``"inputs[0].lemma"``, ``"body"``), or None.
        value: the value given, or None.
        message: what is wrong and, where there is one, what to do.
        headers: extra response headers (``Retry-After``).
    """

    def __init__(
        self,
        status: int,
        message: str,
        field: str | None = None,
        value: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.field, self.value = status, message, field, value
        self.headers = headers or {}


def printable(value: Any) -> Any:
    """``value`` as a JSON answer can carry it: a float that is not finite as JSON's name for
    it (``"NaN"``, ``"Infinity"``, ``"-Infinity"``), a lone surrogate in text as its escape
    (``"H\\ud800us"``: UTF-8 cannot encode it), anything else as it is."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    return value


def error_body(error: RequestError) -> dict[str, Any]:
    """The JSON object of a refused request: ``error`` (the message), ``field``, ``value``
    (each :func:`printable`)."""
    return {"error": printable(error.message), "field": printable(error.field),
            "value": printable(error.value)}


def field_path(location: Sequence[Any]) -> str:
    """A validation error's location as a field path: ``("body", "inputs", 2, "tags")`` ->
    ``"inputs[2].tags"``, ``("query", "beam")`` -> ``"beam"``, ``("body",)`` -> ``"body"``."""
    parts = list(location)
    if len(parts) > 1 and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "body"


def validation_error(errors: Sequence[dict[str, Any]]) -> RequestError:
    """The first of pydantic's validation errors (``RequestValidationError.errors()``) as a
    :class:`RequestError` (422); a body that is not JSON names the ``body``."""
    first = errors[0] if errors else {"loc": ("body",), "msg": "invalid request"}
    kind = first.get("type", "")
    location = first.get("loc", ("body",))
    if kind == "json_invalid":
        return RequestError(422, f"the body is not valid JSON ({first.get('msg', '')})", "body")
    if tuple(location) == ("body",) and kind in ("model_attributes_type", "dict_type"):
        return RequestError(422, "the body must be a JSON object, sent with Content-Type: "
                            "application/json (curl --json)", "body")
    field = field_path(location)
    value = first.get("input")
    if kind == "missing":
        value = None
    if not isinstance(value, str | int | float | bool | type(None)):
        value = None  # a whole object or list: the field path says where
    expected = (first.get("ctx") or {}).get("expected")
    if kind in ("literal_error", "enum") and expected and value is not None:
        # a value outside the choices (support, tag_format): named, and the choices listed
        return RequestError(422, f"{field}: unknown value {value!r}; choose one of {expected}",
                            field, value)
    message = f"{field}: {first.get('msg', 'invalid value')}"
    return RequestError(422, message, field, value)
