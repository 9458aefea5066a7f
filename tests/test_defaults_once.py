"""Every default in one place: `inflect train`'s choices, defaults and help are read from the
configs, the presets and the mapping registry, never restated; the dev batch size's default is
:data:`inflect.defaults.EVAL_BATCH_SIZE` alone."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import click
from click.testing import CliRunner

from inflect import defaults
from inflect.cli import main
from inflect.cli.train import train_command
from inflect.nn.config import ATTENTION_SCORES, ENCODERS, ModelConfig
from inflect.sparse import mapping
from inflect.training.config import PRESETS, TrainConfig

REPO = Path(__file__).resolve().parent.parent


def _option(name: str):
    return next(p for p in train_command.params if name in p.opts)


def _field_default(config_class: type, name: str):
    return next(f.default for f in dataclasses.fields(config_class) if f.name == name)


def test_the_dev_batch_size_default_is_written_once():
    tree = ast.parse((REPO / "inflect" / "training" / "config.py").read_text(encoding="utf-8"))
    [field] = [n for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)
               and getattr(n.target, "id", None) == "eval_batch_size"]
    assert ast.unparse(field.value.args[0]) == "defaults.EVAL_BATCH_SIZE"
    assert TrainConfig().eval_batch_size == defaults.EVAL_BATCH_SIZE


def test_train_choices_and_defaults_are_the_configs():
    assert tuple(_option("--score").type.choices) == ATTENTION_SCORES
    assert tuple(_option("--encoder").type.choices) == ENCODERS
    assert _option("--attention").default == _field_default(ModelConfig, "attention_mapping")
    assert _option("--output").default == _field_default(ModelConfig, "output_mapping")
    assert _option("--seed").default == _field_default(TrainConfig, "seed")


def _help() -> str:
    result = CliRunner().invoke(main, ["train", "--help"], terminal_width=400,
                                max_content_width=400)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_train_help_is_read_from_the_presets_and_the_mapping_registry(monkeypatch):
    """A preset and a mapping added where they live show in the help with their values."""
    monkeypatch.setitem(PRESETS, "trial", {"max_epochs": 7, "patience": 3, "batch_size": 5,
                                           "emb_dim": 11, "learning_rate": 0.25})
    monkeypatch.setitem(mapping._REGISTRY, "trialmax", mapping._REGISTRY["sparsemax"])
    ctx = click.Context(train_command)

    def said(option: str) -> str:
        return " ".join(_option(option).get_help_record(ctx)[1].split())

    assert "trialmax" in said("--attention") and "entmax:<alpha>" in said("--attention")
    assert "trial)" in said("--preset")
    assert "trial 7" in said("--epochs") and "paper 30" in said("--epochs")
    assert "trial 3" in said("--patience")
    assert "trial 5" in said("--batch-size")
    assert "trial 11" in said("--emb-dim")
    assert "trial 0.25" in said("--learning-rate") and "tiny 0.005" in said("--learning-rate")
    assert "trial 2" in said("--layers")  # not in the preset: the default
    assert "trial 7" in _help()
    monkeypatch.undo()
    assert "trial" not in _help()
