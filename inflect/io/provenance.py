"""Where a result came from: the command line that made it, and the commit of the code.

A checkpoint records these beside the data files' SHA-256 (:func:`inflect.io.atomic.sha256_of`)
and the software versions (:func:`inflect.nn.checkpoint.versions`), so that a run can be
trusted, compared and repeated later (``inflect runs compare``).
"""

from __future__ import annotations

import functools
import shlex
import subprocess
import sys
from pathlib import Path

__all__ = ["command_line", "source_commit"]

_REPOSITORY = Path(__file__).resolve().parent.parent.parent


def command_line(argv: list[str] | None = None) -> str:
    """The command as typed, ``inflect`` and its arguments quoted for a POSIX shell
    (``sys.argv`` by default, whether run as ``inflect``, ``python -m inflect`` or under
    ``torchrun -m inflect``)."""
    args = sys.argv[1:] if argv is None else argv
    return shlex.join(["inflect", *args])


@functools.cache
def source_commit() -> str | None:
    """The git commit of the code that runs (40 hex digits, ``-dirty`` after it where the
    tracked files differ from it), where the package is run from a git working tree; None for
    an installed wheel (or without git)."""
    if not (_REPOSITORY / ".git").exists():
        return None
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(_REPOSITORY),
                "describe",
                "--always",
                "--dirty",
                "--abbrev=40",
                "--exclude=*",
            ],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and commit else None
