"""The import paths of version 0.1's flat package, kept working for code written against them.

Version 0.1 had one flat folder of modules (``inflect.predict``, ``inflect.evaluate``,
``inflect.data``...); they now live in sub-packages (``inflect.inference.predictor``,
``inflect.evaluation.runner``, ``inflect.text.records``...). Importing an old path gives a
:class:`DeprecationWarning` naming the new path, and the new module itself (the same object, so
``isinstance`` and monkeypatching behave) where the old module moved whole; where it was split
(``inflect.predict``, ``inflect.data``, ``inflect.model``...), a module that looks each name up in
the new ones (the same objects; monkeypatch the new module). New code imports the new paths.

Names that left a module which still exists (``inflect.nn.config.Config``, now
``inflect.training.config.Config``) are found the same way by :func:`moved_names`.

The old paths are removed in sparse-inflect :data:`REMOVED_IN`, as every warning says (README,
"Changelog"): this module, its ``install()`` in ``inflect/__init__.py`` and the ``__getattr__``
of :mod:`inflect.nn.config` go then.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

#: The version in which the old paths stop working (the version after the one that moved them).
REMOVED_IN = "0.3.0"

MOVED = {
    "ambiguity": "evaluation.ambiguity",
    "baseline": "corpora.baseline",
    "batching": "nn.batching",
    "cells": "corpora.cells",
    "checkpoint": "nn.checkpoint",
    "codec": "text.codec",
    "data": ("text.records", "text.reading", "text.parsing", "text.layouts", "corpora.splits"),
    "datasets": "corpora.manifests",
    "distributed": "training.distributed",
    "evaluate": "evaluation.runner",
    "explain": "inference.explain",
    "files": "io.atomic",
    "languages": "text.languages",
    "lengths": "nn.lengths",
    "model": ("nn.model", "training.config", "nn.config"),
    "models": "inference.registry",
    "outputs": "io.outputs",
    "paradigm": ("inference.paradigm", "inference.paradigm_cells"),
    "paradigm_html": "render.paradigm_html",
    "paradigm_render": ("render.paradigm", "render.jsonl"),
    "predict": (
        "inference.predictor",
        "inference.searcher",
        "inference.queries",
        "inference.outcomes",
        "defaults",
    ),
    "recurrence": "nn.recurrence",
    "report": ("render.tables", "render.tsv", "render.jsonl", "render.markdown",
               "render.figures", "render.report_html", "render.common"),
    "report_html": ("render.report_html", "render.figures", "render.ambiguity_parts"),
    "scoring": "evaluation.scoring",
    "search": "decoding",
    "sparsity": "evaluation.sparsity",
    "stats": "corpora.stats",
    "stdio": "io.stdio",
    "streaming": "inference.streaming",
    "threads": "nn.threads",
    "train": "training",
    "train_progress": "training.progress",
    "translate": ("inference.translator", "defaults"),
    "unimorph": "text.unimorph",
    "vocab": "nn.vocab",
}


class _Alias(importlib.abc.Loader):
    def __init__(self, new: tuple[str, ...]) -> None:
        self.new = new

    def create_module(self, spec):
        if len(self.new) == 1:  # the new module itself stands in for the old name
            module = importlib.import_module(self.new[0])
            self._own_spec = module.__spec__
            return module
        parts = [importlib.import_module(n) for n in self.new]  # a module split into several
        module = types.ModuleType(spec.name, parts[0].__doc__)

        def __getattr__(name: str):
            for part in parts:
                if hasattr(part, name):
                    return getattr(part, name)
            raise AttributeError(f"module {spec.name!r} has no attribute {name!r}")

        module.__getattr__ = __getattr__
        return module

    def exec_module(self, module) -> None:
        # the import system has just set the alias's spec on the module: give it its own back
        if getattr(self, "_own_spec", None) is not None:
            module.__spec__ = self._own_spec


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix != "inflect" or old not in MOVED:
            return None
        targets = MOVED[old] if isinstance(MOVED[old], tuple) else (MOVED[old],)
        new = tuple(f"inflect.{t}" for t in targets)
        warnings.warn(f"{fullname} moved to {' and '.join(new)} (sparse-inflect 0.2); "
                      f"import it from there: the old path is removed in sparse-inflect "
                      f"{REMOVED_IN}", DeprecationWarning, stacklevel=3)
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def moved_names(module: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for names that moved out of a module that still exists
    (``Config`` and ``PRESETS`` left :mod:`inflect.nn.config` for
    :mod:`inflect.training.config`): each is looked up in its new module when asked for, with a
    :class:`DeprecationWarning` naming it; the old module never imports the new one itself.

    Args:
        module: the old module's name (``__name__``).
        names: name -> its new module, relative to ``inflect`` (``"training.config"``).

    Returns:
        The ``__getattr__`` to assign in the old module; it raises AttributeError for any other
        name.
    """

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new = f"inflect.{names[name]}"
        warnings.warn(f"{module}.{name} moved to {new}.{name}; import it from there: the old "
                      f"path is removed in sparse-inflect {REMOVED_IN}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new), name)

    return __getattr__


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): before the data folders
    ``inflect/models/`` and ``inflect/cells/`` could be imported as namespace packages."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
