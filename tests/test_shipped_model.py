"""The shipped default model is what `evaluate` and `report ambiguity` use when --model is absent."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from inflect.cli import main

GOLD = "Katze\tKatzen\tN;NOM;PL\nWort\tWortes\tN;GEN;SG\nHaus\tHäusern\tN;DAT;PL\n"


def _predicted_best(gold_path):
    runner = CliRunner()
    out = runner.invoke(main, ["predict", "--lang", "german", "--input", str(gold_path),
                               "--format", "jsonl"])
    assert out.exit_code == 0, out.output
    return [json.loads(line)["forms"][0]["form"] for line in out.output.splitlines()]


def test_evaluate_defaults_to_the_shipped_model(tmp_path):
    gold = tmp_path / "german-gold"
    gold.write_text(GOLD, encoding="utf-8")
    best = _predicted_best(gold)
    golds = [line.split("\t")[1] for line in GOLD.splitlines()]
    expected = 100.0 * sum(b == g for b, g in zip(best, golds, strict=True)) / len(golds)
    prefix = tmp_path / "scores"
    out = CliRunner().invoke(main, ["evaluate", "--lang", "german", "--gold", str(gold),
                                    "--out", str(prefix)])
    assert out.exit_code == 0, out.output
    frame = pd.read_csv(f"{prefix}.csv")
    row = frame[frame["language"] == "german"].iloc[0]
    assert row["n"] == 3
    assert abs(row["accuracy"] - expected) < 1e-9


def test_report_ambiguity_defaults_to_the_shipped_model(tmp_path):
    gold = tmp_path / "german-gold"
    gold.write_text(GOLD, encoding="utf-8")
    out_file = tmp_path / "amb.md"
    out = CliRunner().invoke(main, ["report", "ambiguity", "--lang", "german", "--gold",
                                    str(gold), "--out", str(out_file)])
    assert out.exit_code == 0, out.output
    text = out_file.read_text(encoding="utf-8")
    assert "- inputs: 3" in text


def test_no_model_and_no_shipped_model_is_a_clear_error(tmp_path):
    gold = tmp_path / "finnish-gold"
    gold.write_text("talo\ttalossa\tN;IN+ESS;SG\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["evaluate", "--lang", "finnish", "--gold", str(gold)])
    assert out.exit_code != 0
    assert "no shipped default model for finnish" in out.output


def test_shipped_members_load_as_typed_models():
    from inflect.checkpoint import checkpoint_members, load_checkpoint, load_model
    from inflect.models import default_model

    members = default_model("german").members
    assert len(members) == 2
    for path in members:
        loaded = load_checkpoint(path)
        assert list(loaded.languages) == ["german"] and loaded.codec is None
        assert not loaded.is_translation and loaded.path == path
        assert loaded.network.config.preset == "cpu-small"  # a config written before new keys
        assert loaded.metadata["format"] == "sparse-inflect/1"
        assert load_model(path).config == loaded.network.config
    # the folder holding the member files is an ensemble for every --model option
    assert checkpoint_members([members[0].parent]) == sorted(members)
