"""The package's one way of writing a file: atomically, with the mode the umask asks for.

Every file sparse-inflect writes — checkpoints, trainer states, metrics, evaluation frames,
reports, attention pictures, downloaded data — goes through :func:`atomic_write`: the content is
written to a temporary file in the target's folder, given mode ``0o666`` less the process umask
(as ``open()`` would create it; ``tempfile.mkstemp`` creates 0o600), then renamed over the target
(``os.replace``). An interruption never leaves a half-written file, and a failed write leaves no
temporary file behind.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["atomic_write", "file_mode", "write_bytes", "write_text"]


def file_mode() -> int:
    """The mode of a new file: 0o666 filtered by the process umask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], Any]) -> Path:
    """Write ``path`` atomically: ``write(temporary_path)`` fills a temporary file beside it,
    which then gets the umask's mode (:func:`file_mode`) and replaces ``path``.

    Args:
        path: the file to write; missing parent folders are created.
        write: called with the temporary file's path (the file exists, empty); it may write it
            by name (``frame.to_csv(temp)``, ``figure.savefig(temp)``) or open it.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: the folder or the file cannot be written (nothing is left behind); whatever
            ``write`` raises (likewise).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(handle)
    try:
        write(Path(temp))
        os.chmod(temp, file_mode())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`)."""
    return atomic_write(path, lambda temp: temp.write_bytes(data))


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` as UTF-8, atomically (see :func:`atomic_write`)."""
    return atomic_write(path, lambda temp: temp.write_text(text, encoding="utf-8"))


def sha256_of(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes (64 lowercase hex digits)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def git_blob_of(path: str | os.PathLike[str]) -> str:
    """Git's blob id of a file (40 lowercase hex digits): SHA-1 of ``blob <size>\\0`` followed by
    the bytes, the id a repository's tree lists for it (``git ls-tree``, ``git hash-object``)."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        digest = hashlib.sha1(f"blob {size}\0".encode(), usedforsecurity=False)
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
