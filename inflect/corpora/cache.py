"""Where the data are kept: ``--data-dir`` > ``$INFLECT_DATA_DIR`` > the platform's user cache
folder. Its own light module (``os`` and ``platformdirs``), so that a lookup that only needs the
folder (an installed UniMorph lexicon) imports none of the fetching machinery of
:mod:`inflect.corpora.manifests`, which re-exports it."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["APP_NAME", "ENV_DATA_DIR", "data_dir"]

APP_NAME = "sparse-inflect"
ENV_DATA_DIR = "INFLECT_DATA_DIR"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``override`` if given, else ``$INFLECT_DATA_DIR``, else the platform's
    user cache folder for ``sparse-inflect`` (e.g. ``~/.cache/sparse-inflect`` on Linux)."""
    if override is not None and str(override) != "":
        return Path(override).expanduser()
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir(APP_NAME))
