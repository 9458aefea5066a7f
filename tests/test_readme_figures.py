"""The README's paragraph on the shipped models says what the registry says
(recipes/sigmorphon2018/readme_figures.py writes it; nobody writes its figures by hand)."""

from __future__ import annotations

import importlib
import sys
import tomllib

import pytest
from conftest import REPO
from registry_rule import chosen

MODELS = REPO / "inflect" / "models"


def _module():
    folder = REPO / "recipes" / "sigmorphon2018"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module("readme_figures")


def test_the_readme_paragraph_is_the_registrys(conll2018):
    figures = _module()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    made = figures.paragraph(figures.figures(MODELS, str(conll2018.parent)))
    assert figures.rewrite(readme, made) == readme, (
        "README.md's shipped-models paragraph differs from the registry: run "
        "python recipes/sigmorphon2018/readme_figures.py --data-dir ../shared/data")


def test_the_macro_figures_recounted_from_the_registry(conll2018):
    """Each setting's macro: per language, the dev figure of the shipped model of the setting
    that answers it (registry_rule.py), averaged; recounted here from the registry's tables."""
    figures = _module()
    registry = tomllib.loads((MODELS / "registry.toml").read_text(encoding="utf-8"))
    measured = figures.figures(MODELS, str(conll2018.parent))
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for setting in ("high", "medium"):
        best = []
        for lang, row in registry["language"].items():
            if any(registry["model"][name]["setting"] == setting for name in row):
                best.append(row[chosen(registry, lang, setting)])
        macro = sum(best) / len(best)
        assert measured.settings[setting].macro == pytest.approx(macro, abs=1e-9)
        assert measured.settings[setting].languages == len(best)
        assert f"({macro:.2f};" in readme
    sizes = sum((MODELS / m).stat().st_size for model in registry["model"].values()
                for m in model["members"])
    assert measured.megabytes == pytest.approx(sizes / 1e6)


def test_rewrite_replaces_only_between_the_markers():
    figures = _module()
    text = f"a\n{figures.START}\nold\n{figures.END}\nb\n"
    assert figures.rewrite(text, "new") == f"a\n{figures.START}\nnew\n{figures.END}\nb\n"
    with pytest.raises(ValueError, match="needs one"):
        figures.rewrite("no markers", "new")
    with pytest.raises(ValueError, match="needs one"):
        figures.rewrite(f"{figures.END} {figures.START}", "new")
