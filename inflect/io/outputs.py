"""Where commands write: output locations checked before any work, every failure one clear error
naming the path the user gave, and nothing left behind by a command that fails.

Used by ``inflect train --out`` (the run folder), ``evaluate --out``, ``report ambiguity --out``,
``explain --png``, ``paradigm --out`` and ``data fetch --data-dir``. The writing itself (a
temporary file renamed into place, with the umask's mode) is
:func:`inflect.io.atomic.atomic_write`'s; this module checks, translates errors and cleans up.
A file named :data:`STDOUT` (``-``) is standard output: written whole, once made.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from inflect.io.atomic import atomic_write

#: The name of standard output where a command takes a file to write.
STDOUT = "-"


def is_stdout(path: str | os.PathLike[str] | None) -> bool:
    """Whether ``path`` names standard output (``-``)."""
    return path is not None and str(path) == STDOUT


class OutputError(OSError, ValueError):
    """An output that cannot be written.

    The message reads ``cannot write [WHAT ]PATH: REASON`` with ``PATH`` as the user gave it (never
    the name of a temporary file). It is an :class:`OSError` and a :class:`ValueError`, so that
    callers catching either report it.

    Attributes:
        path: the path as given.
        reason: why, in words (``No space left on device``, ``x is a file, not a folder``).
    """

    def __init__(self, path: str | os.PathLike[str], reason: str, what: str | None = None):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"cannot write {what + ' ' if what else ''}{path}: {reason}")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (``.`` for a relative path's start)."""
    path = Path(os.path.abspath(path))
    while not os.path.lexists(path) and path != path.parent:
        path = path.parent
    return path


def _probe(folder: Path) -> None:
    """Create, write and remove a small file in ``folder`` (raises OSError when it cannot)."""
    handle, name = tempfile.mkstemp(dir=folder, prefix=".inflect-write-test-")
    try:
        os.write(handle, b"ok")
    finally:
        os.close(handle)
        os.unlink(name)


def _check_parent(path: Path, given: str | os.PathLike[str], what: str | None) -> None:
    """The folder that would hold ``path`` exists or can be created, and files can be written."""
    start = _nearest_existing(path.parent)
    if not start.is_dir():
        raise OutputError(given, f"{start} is a file, not a folder", what)
    try:
        _probe(start)
    except OSError as exc:
        raise OutputError(given, _reason(exc), what) from None


def check_output_file(path: str | os.PathLike[str], what: str | None = None) -> None:
    """Before any work: check that the file ``path`` can be written. Creates nothing.

    The file may exist (it is replaced) but must not be a folder; its folder must exist or be
    creatable (its nearest existing ancestor a folder, not a file), and a file must be writable
    there (a probe file is created and removed).

    Args:
        path: the file as the user gave it.
        what: what it is, for the message (e.g. ``"--png"``); None: the path alone.

    Raises:
        OutputError: naming ``path`` and the reason (a parent that is a file, no permission, a
            read-only file system, a full disk, ...).
    """
    if is_stdout(path):
        return
    target = Path(path)
    if target.is_dir():
        raise OutputError(path, "it is a folder", what)
    _check_parent(target, path, what)


def check_output_folder(path: str | os.PathLike[str], what: str | None = None) -> None:
    """Before any work: check that files can be written in the folder ``path`` (which may not exist
    yet; it is not created). Raises :class:`OutputError` as :func:`check_output_file`."""
    target = Path(path)
    if target.exists():
        if not target.is_dir():
            raise OutputError(path, "it is a file, not a folder", what)
        try:
            _probe(target)
        except OSError as exc:
            raise OutputError(path, _reason(exc), what) from None
        return
    _check_parent(target / "x", path, what)


def make_folders(path: str | os.PathLike[str], what: str | None = None) -> list[Path]:
    """Create the folder ``path`` and its missing parents.

    Returns:
        The folders created, outermost first (for :func:`remove_empty_folders`).

    Raises:
        OutputError: naming ``path``; the folders created so far are removed again.
    """
    missing = []
    folder = Path(path)
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    created: list[Path] = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            created.append(folder)
    except OSError as exc:
        remove_empty_folders(created)
        raise OutputError(path, _reason(exc), what) from None
    return created


def prepare_folder(path: str | os.PathLike[str], what: str | None = None) -> list[Path]:
    """Create the folder ``path`` (and parents) and check that files can be written there.

    Returns:
        The folders created, outermost first.

    Raises:
        OutputError: naming ``path`` and the reason (a parent that is a file, no permission, a
            full disk, ...); the folders it created are removed again.
    """
    created = make_folders(path, what)
    try:
        _probe(Path(path))
    except OSError as exc:
        remove_empty_folders(created)
        raise OutputError(path, _reason(exc), what) from None
    return created


def remove_empty_folders(folders: Iterable[Path]) -> None:
    """Remove the folders that are empty, innermost first (the list of :func:`make_folders`)."""
    for folder in reversed(list(folders)):
        with suppress(OSError):  # not empty (or gone): keep it
            folder.rmdir()


@contextmanager
def reporting(
    path: str | os.PathLike[str],
    what: str | None = None,
    keep: tuple[type[BaseException], ...] = (),
) -> Iterator[None]:
    """Turn an :class:`OSError` raised in the block into an :class:`OutputError` naming ``path``
    (the file being written, as the user gave it; not a temporary file). Errors of the types
    in ``keep`` (``OSError`` subclasses that already say what failed, e.g. a failed download)
    pass unchanged."""
    try:
        yield
    except OutputError as exc:
        raise OutputError(path, exc.reason, what) from None
    except keep:
        raise
    except OSError as exc:
        raise OutputError(path, _reason(exc), what) from None


def write_outputs(
    writes: Sequence[tuple[str | os.PathLike[str], Callable[[Path], Any]]],
    what: str | None = None,
) -> list[str]:
    """Write several files all or none, each atomically: for each ``(path, write)`` in order,
    ``write(temporary_path)`` fills a temporary file that then replaces ``path``
    (:func:`inflect.io.atomic.atomic_write`: the umask's mode, nothing half-written).

    When one fails, the files of ``writes`` that did not exist before are removed again, and the
    folders created for them when empty. A path ``-`` is standard output: the file is made in a
    temporary folder, then copied there whole (nothing half-made is written).

    Returns:
        The paths written, as given.

    Raises:
        OutputError: naming the file that could not be written and the reason.
    """
    paths = [str(path) for path, _ in writes]
    if any(is_stdout(path) for path in paths):
        for path, write in writes:
            if is_stdout(path):
                _write_stdout(write)
            else:
                write_outputs([(path, write)], what)
        return paths
    existed = {path: os.path.lexists(path) for path in paths}
    created: list[Path] = []
    try:
        for path, write in zip(paths, (w for _, w in writes), strict=True):
            with reporting(path, what):
                created += make_folders(Path(path).parent, what)
                atomic_write(path, write)
    except BaseException:
        for path in paths:
            if not existed[path]:
                Path(path).unlink(missing_ok=True)
        remove_empty_folders(created)
        raise
    return paths


def _write_stdout(write: Callable[[Path], Any]) -> None:
    """``write(temporary_path)`` in a temporary folder, then the file's bytes to standard output
    (flushed); a stream that cannot take them (closed, full, a pipe whose reader went away) is
    an :class:`OutputError` naming standard output."""
    import shutil
    import sys

    with tempfile.TemporaryDirectory(prefix="inflect-") as folder:
        temp = Path(folder) / "out"
        write(temp)
        try:
            sys.stdout.flush()
            with open(temp, "rb") as made:
                shutil.copyfileobj(made, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        except OSError as exc:  # a pipe whose reader went away, a full disk, a closed stream
            if exc.errno == errno.EPIPE:  # quiet the flush at exit
                with suppress(OSError, ValueError):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise OutputError("standard output", _reason(exc)) from None
