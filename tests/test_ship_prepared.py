"""ship.py's preparation of every member before it is scored (recipes/sigmorphon2018/ship.py,
``prepared``): the search records of its training data are added, a per-language model is
restricted to its own language's symbols, features and language, ``--int8`` stores int8 rows
with a float16 scale per row, and a prepared copy is rewritten only when its source changes."""

from __future__ import annotations

import os

import synthetic
import torch
from test_recipe_sigmorphon import _load_ship
from test_train import tiny_config
from test_trim import CYRILLIC

from inflect.nn.checkpoint import load_tensors
from inflect.training.items import load_data
from inflect.training.trainer import train


def _write_language(folder, language: str, seed: int, script=None) -> set[str]:
    """``LANGUAGE-train-high`` and ``LANGUAGE-dev`` (2018 layout); the symbols written."""
    symbols = set()
    for split, n in (("train-high", 40), ("dev", 6)):
        lines = []
        for it in synthetic.items(n, seed=seed + len(split), language=language):
            lemma, form = "".join(it.source), "".join(it.target)
            if script:
                lemma, form = lemma.translate(script), form.translate(script)
            if split == "train-high":
                symbols |= set(lemma) | set(form)
            lines.append(f"{lemma}\t{form}\t{';'.join(sorted(it.features))}\n")
        (folder / f"{language}-{split}").write_text("".join(lines), encoding="utf-8")
    return symbols


def test_prepared_members_carry_records_are_trimmed_and_int8(tmp_path):
    ship = _load_ship()
    data = tmp_path / "data"
    data.mkdir()
    german = _write_language(data, "german", 1)
    russian = _write_language(data, "russian", 5, CYRILLIC)
    assert russian - german, "the two languages share every symbol: the test shows nothing"
    both = load_data("german,russian", "high", data)
    train(tiny_config(), both, tmp_path / "multi", device="cpu", max_epochs=1,
          precision="float32")
    train(tiny_config(), load_data("german", "high", data), tmp_path / "de", device="cpu",
          max_epochs=1, precision="float32", init_from=tmp_path / "multi" / "model.safetensors")
    _, de_meta = load_tensors(tmp_path / "de" / "model.safetensors")
    assert set(de_meta["model"]["target_vocab"]["symbols"]) == german | russian  # warm start

    models = {"german-high": [tmp_path / "de"], "multilingual-high": [tmp_path / "multi"]}
    out = ship.prepared(models, {"german-high"}, tmp_path / "results", str(data), int8=True)
    de_tensors, de = load_tensors(out["german-high"][0])
    multi_tensors, multi = load_tensors(out["multilingual-high"][0])

    # the per-language member: its own language's symbols, features and language only
    assert set(de["model"]["target_vocab"]["symbols"]) == german
    assert set(de["model"]["source_vocab"]["symbols"]) == german
    assert de["model"]["language_vocab"]["symbols"] == ["german"]
    assert de["model"]["output_alphabets"] == {"german": sorted(german)}
    assert [d["name"] for d in de["languages"]] == ["german"]
    specials = len(de["model"]["target_vocab"]["specials"])
    assert de_tensors["generator.weight"].shape[0] == specials + len(german)
    # the multilingual member: every row kept, each language's alphabet recorded
    assert set(multi["model"]["target_vocab"]["symbols"]) == german | russian
    assert multi["model"]["output_alphabets"] == {"german": sorted(german),
                                                  "russian": sorted(russian)}
    for tensors, meta in ((de_tensors, de), (multi_tensors, multi)):
        assert meta["model"]["output_lengths"]  # the length limits of its training data
        assert tensors["generator.weight"].dtype == torch.int8
        assert tensors["generator.weight:scale"].dtype == torch.float16
    # the trimmed int8 rows are the untrimmed int8 rows of the kept symbols
    multi_vocab = ["<pad>", "<s>", "</s>", "<unk>"][:specials] + \
        multi["model"]["target_vocab"]["symbols"]
    de_vocab = multi_vocab[:specials] + de["model"]["target_vocab"]["symbols"]
    original, _ = load_tensors(tmp_path / "de" / "model.safetensors")
    kept = torch.tensor([multi_vocab.index(s) for s in de_vocab])
    expected = original["generator.weight"].index_select(0, kept)
    scale = de_tensors["generator.weight:scale"].unsqueeze(1)
    assert torch.allclose(de_tensors["generator.weight"].float() * scale, expected,
                          atol=float(scale.max()) / 2 + 1e-7)

    # prepared again: nothing is rewritten while the sources are the same
    stamps = {p: os.stat(p).st_mtime_ns for ps in out.values() for p in ps}
    again = ship.prepared(models, {"german-high"}, tmp_path / "results", str(data), int8=True)
    assert {p: os.stat(p).st_mtime_ns for ps in again.values() for p in ps} == stamps
    # ... and without --int8 the same source is prepared again, in float32
    plain = ship.prepared(models, {"german-high"}, tmp_path / "results", str(data), int8=False)
    tensors, _ = load_tensors(plain["german-high"][0])
    assert tensors["generator.weight"].dtype == torch.float32


def test_a_language_trained_again_keeps_the_better_model(capsys):
    ship = _load_ship()
    shipped = {"finnish-high": ["old/finnish"], "latin-high": ["old/latin"]}
    queued = {"finnish-high": ["new/finnish"], "latin-high": ["new/latin"],
              "navajo-high": ["new/navajo"]}
    models, greedy = ship.reship_candidates(
        shipped, {"finnish-high": 91.4, "latin-high": 60.0},
        queued, {"finnish-high": 90.0, "latin-high": 64.9, "navajo-high": 61.0})
    assert models == {"finnish-high": ["old/finnish"], "latin-high": ["new/latin"],
                      "navajo-high": ["new/navajo"]}
    assert greedy == {"finnish-high": 91.4, "latin-high": 64.9, "navajo-high": 61.0}
    # a tie keeps the shipped one
    models, _ = ship.reship_candidates(shipped, {"finnish-high": 90.0}, queued,
                                       {"finnish-high": 90.0})
    assert models["finnish-high"] == ["old/finnish"]
    assert "greedy dev 90.0 and 90.0" in capsys.readouterr().out


def test_a_warm_start_from_a_snapshot_of_the_package_is_named_by_its_package_path():
    ship = _load_ship()
    root = ship.Path(ship.__file__).resolve().parents[2]
    member = "inflect/models/multilingual-high/member-1.safetensors"
    assert ship.checkout_relative(str(root / member)) == member
    assert ship.checkout_relative(f"/somewhere/code-1/{member}") == member
    assert ship.checkout_relative("/somewhere/runs/high-s1/model.safetensors") == \
        "/somewhere/runs/high-s1/model.safetensors"


def test_a_start_written_by_hand_is_kept_when_its_run_is_gone():
    ship = _load_ship()
    digest = "98cdf2cf" * 8
    facts = {"member_trainings": [{"init_from": {"path": "runs/gone/model.safetensors",
                                                 "sha256": digest}}] * 2}
    commands, note = ship.start_of(facts)
    assert commands == [] and "not here, so its command is not recorded" in note
    previous = {"start_commands": ["inflect train --lang all --epochs 9 --out runs/high-s1"],
                "start_note": f"runs/gone/model.safetensors (SHA-256 {digest}) is run high-s1"}
    assert ship.start_of(facts, previous) == (previous["start_commands"],
                                              previous["start_note"])
    # a note about another start is not carried over
    other = dict(previous, start_note="runs/gone/model.safetensors (SHA-256 0123) is ...")
    assert ship.start_of(facts, other)[0] == []
