"""Locate the data shipped with the package (language specs, dataset manifests, models).

In a wheel, ``langs/`` and ``datasets/`` are installed under ``inflect/_data/``; in a source checkout
(editable install or tests) they are the top-level folders of the repository.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_path(name: str) -> Path:
    """Return the folder of shipped data called ``name`` (``"langs"`` or ``"datasets"``).

    Raises:
        FileNotFoundError: if neither the installed nor the source-checkout folder exists.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"shipped data folder {name!r} not found under {_PACKAGE_DIR / '_data'} or "
        f"{_PACKAGE_DIR.parent}; the installation is incomplete, reinstall sparse-inflect"
    )
