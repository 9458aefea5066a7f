"""How many CPU threads torch uses: the user's choice, else one that holds up on a busy machine.

PyTorch's default is one thread per core. Its OpenMP threads wait for each other at the end of
every operation, and this model's operations are small (rows of a few hundred numbers), so when
other programs keep the cores busy a multi-threaded run spends most of its time waiting for
descheduled threads (the README's threads section has the measurements). The default here is
the number of *idle* cores (cores minus the 1-minute load average, at least 1, at most 4).
"""

from __future__ import annotations

import os
import sys

__all__ = ["choose_threads", "set_threads"]

#: Environment variables read, in order, when no count is given.
ENVIRONMENT = ("INFLECT_THREADS", "OMP_NUM_THREADS")
#: The most threads the default picks (more rarely pays for this model's operation sizes).
MAX_DEFAULT_THREADS = 4


def choose_threads(requested: int | None = None) -> int:
    """The thread count: ``requested``, else ``$INFLECT_THREADS``, else ``$OMP_NUM_THREADS``,
    else the idle cores (see the module docstring).

    Raises:
        ValueError: a count (given or from the environment) that is not a positive integer;
            the message names where it came from.
    """
    if requested is not None:
        return _positive(requested, "the thread count")
    for name in ENVIRONMENT:
        value = os.environ.get(name, "").strip()
        if value:
            try:
                return _positive(int(value), f"${name}")
            except ValueError:
                raise ValueError(f"${name} must be a positive integer, got {value!r}") from None
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not available on this platform
        load = 0.0
    return max(1, min(MAX_DEFAULT_THREADS, cores - round(load)))


def _positive(n: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"{what} must be a positive integer, got {n!r}")
    return n


def set_threads(requested: int | None = None) -> int:
    """Set torch's intra-op thread count to :func:`choose_threads` ``(requested)``; returns it.

    Without torch imported yet, only ``$OMP_NUM_THREADS`` is set (torch reads it when imported),
    so commands that turn out not to need torch do not pay for importing it.

    Raises:
        ValueError: see :func:`choose_threads`.
    """
    n = choose_threads(requested)
    os.environ["OMP_NUM_THREADS"] = str(n)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)
    return n
