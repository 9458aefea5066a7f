"""Code written against version 0.1's flat package keeps working: every old module path imports,
warns once with the new path, and gives the names it gave (the documented ones among them)."""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest

from inflect._moved import MOVED

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
