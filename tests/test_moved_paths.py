"""Code written against version 0.1's flat package keeps working until the version the warnings
name: every old module path imports, warns with the new path and the version that removes it,
and gives the names it gave (the documented ones among them)."""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path

import pytest

import inflect
from inflect._moved import MOVED, REMOVED_IN

README = Path(__file__).resolve().parent.parent / "README.md"

# names each 0.1 path was documented or used with (README, recipes of 0.1)
NAMES_OF_0_1 = {
    "predict": ["Predictor", "Prediction"],
    "evaluate": ["evaluate_checkpoints"],
    "paradigm": ["Paradigms"],
    "languages": ["resolve", "all_languages"],
    "data": ["load_split", "read_inflections"],
    "model": ["Config", "Seq2Seq", "PRESETS"],
    "train": ["train", "load_data", "run_status"],
    "checkpoint": ["load_model", "checkpoint_members"],
    "search": ["Certificate", "beam_search"],
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_imports_with_a_warning_naming_the_new_one(old):
    sys.modules.pop(f"inflect.{old}", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(f"inflect.{old}")
    targets = MOVED[old] if isinstance(MOVED[old], tuple) else (MOVED[old],)
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert any(f"inflect.{targets[0]}" in m for m in messages), messages
    assert all(f"removed in sparse-inflect {REMOVED_IN}" in m for m in messages), messages
    if len(targets) == 1:
        assert module is importlib.import_module(f"inflect.{targets[0]}")
    for name in NAMES_OF_0_1.get(old, []):
        owner = next(importlib.import_module(f"inflect.{t}") for t in targets
                     if hasattr(importlib.import_module(f"inflect.{t}"), name))
        assert getattr(module, name) is getattr(owner, name)


def test_the_most_used_names_are_importable_from_the_package():
    import inflect
    from inflect.evaluation.runner import evaluate_checkpoints
    from inflect.inference.predictor import Predictor

    assert inflect.Predictor is Predictor and inflect.evaluate_checkpoints is evaluate_checkpoints
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        inflect.nothing  # noqa: B018


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3])


def test_the_old_paths_have_a_removal_version_that_is_still_to_come():
    """The shim goes in REMOVED_IN: once the package reaches that version, this fails until
    ``inflect/_moved.py`` (and this file) are removed. The README's changelog says the same."""
    assert _version(inflect.__version__) < _version(REMOVED_IN)
    with pytest.warns(DeprecationWarning, match=f"removed in sparse-inflect {REMOVED_IN}"):
        importlib.import_module("inflect.nn.config").Config  # noqa: B018
    changelog = README.read_text(encoding="utf-8").split("## Changelog", 1)[1]
    assert f"removed in {REMOVED_IN}" in " ".join(changelog.split())
