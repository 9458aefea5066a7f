"""The standard streams and the disk, as the command line meets them: stand-ins for a standard
stream closed at start (``<&-``, ``>&-``), an input file or standard input opened for reading
(:func:`open_input`), and the one-line messages for a closed or broken stream and for a full
disk (:class:`inflect.cli.group.InflectGroup` turns them into errors, not tracebacks)."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from typing import BinaryIO

__all__ = [
    "ClosedStreamError",
    "disk_full",
    "guard_standard_streams",
    "open_input",
    "stream_problem",
]


class ClosedStreamError(OSError):
    """Reading or writing a standard stream that was closed when ``inflect`` started
    (``<&-``, ``>&-``): its message says which and what to do."""

    def __init__(self, message: str):
        super().__init__(message)
        self.errno = errno.EBADF


class _ClosedStream:
    """Stands for a standard stream that was closed at start (``sys.stdin`` / ``sys.stdout`` is
    then None): not a terminal, and any reading or writing raises :class:`ClosedStreamError`."""

    def __init__(self, name: str):
        self.name = name
        self.closed = False  # to click: a stream that is there, so it is used (and fails)
        self.encoding = "utf-8"
        self.errors = "strict"

    @property
    def buffer(self) -> _ClosedStream:
        return self

    def isatty(self) -> bool:
        return False

    def _fail(self, *_args, **_kwargs):
        if self.name == "stdin":
            raise ClosedStreamError(
                "cannot read standard input: it is closed; give the inputs as arguments or "
                "with --input FILE"
            )
        raise ClosedStreamError(
            "cannot write the results: standard output is closed; redirect it to a file "
            "(> FILE) or to /dev/null"
        )

    read = readline = readlines = write = writelines = fileno = _fail

    def flush(self) -> None:  # nothing was written (and Python flushes at exit)
        return None

    def __iter__(self):
        self._fail()

    def __next__(self):
        self._fail()


def guard_standard_streams() -> None:
    """Stand-ins for the standard streams closed at start (Python sets them to None): the file
    descriptor is held by /dev/null, so that no file opened later takes its number, and
    ``sys.stdin`` / ``sys.stdout`` fail with a clear message when used (``sys.stderr`` writes
    to /dev/null: the exit status still tells)."""
    import sys

    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDWR)
            if held != fd:  # pragma: no cover - a lower number was free: leave it
                os.close(held)
        if name == "stderr":
            sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        else:
            setattr(sys, name, _ClosedStream(name))


@contextlib.contextmanager
def open_input(path: str | os.PathLike[str]) -> Iterator[tuple[str, BinaryIO]]:
    """``path`` opened to read bytes, ``-`` standard input: ``(its name for messages, the
    handle)``, ``<stdin>`` for standard input; a file is closed after the block.

    Standard input is read through a file of its own on a duplicate of its descriptor, not
    through ``sys.stdin``: a thread blocked reading it when Ctrl-C ends the command
    (:mod:`inflect.inference.streaming` reads on one) then holds no lock that the interpreter
    takes at exit (it aborts with "Fatal Python error: could not acquire lock for
    <_io.BufferedReader name='<stdin>'>" otherwise). Where standard input has no descriptor (a
    test's in-memory stream) its own buffer is read.

    Raises:
        OSError: the file cannot be opened; :class:`ClosedStreamError`: standard input was closed
            at start.
    """
    import sys

    if str(path) != "-":
        with open(path, "rb") as handle:
            yield str(path), handle
        return
    try:
        descriptor = os.dup(sys.stdin.fileno())
    except ClosedStreamError:
        raise
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation: no descriptor
        yield "<stdin>", sys.stdin.buffer
        return
    handle = os.fdopen(descriptor, "rb")
    try:
        yield "<stdin>", handle
    finally:
        with contextlib.suppress(OSError):
            handle.close()


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk (or the quota) is full: OSError ENOSPC / EDQUOT, or the
    safetensors writer's error with the operating system's message."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return True
    text = str(exc)
    return any(
        word in text for word in ("No space left on device", "StorageFull", "Disk quota exceeded")
    )


def stream_problem(exc: BaseException) -> str | None:
    """The one-line message for an error of a closed or broken standard stream, or of a full
    disk, else None."""
    if isinstance(exc, OSError) and disk_full(exc):
        if not exc.filename:  # a write to a stream: standard output (> /dev/full, a full disk)
            return (f"cannot write the results: the device standard output goes to is full "
                    f"({exc.strerror or exc}); free some space, or redirect the output to "
                    "another file")
        return (f"cannot write {exc.filename}: the disk is full ({exc.strerror or exc}); free "
                "some space and rerun")
    if isinstance(exc, UnicodeEncodeError):
        text = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else "?"
        return (f"cannot write {text!r} in the {exc.encoding!r} encoding of the terminal or "
                "pipe: set PYTHONIOENCODING=utf-8 (or a UTF-8 locale, e.g. LC_ALL=C.UTF-8)")
    if isinstance(exc, ClosedStreamError):
        return str(exc)
    if isinstance(exc, OSError) and exc.errno in (errno.EPIPE, errno.EBADF):
        return f"a standard stream is closed or broken ({exc.strerror or exc})"
    if isinstance(exc, ValueError) and "closed file" in str(exc):
        return f"a standard stream is closed ({exc})"
    return None
