"""The SIGMORPHON 2018 recipe (recipes/sigmorphon2018/run.py) end to end at its --smoke size, and
the pieces it relies on (run_status for skip/resume, the recipe's paper_table).

The smoke table's values are checked against the shared-task metric recomputed here: the
predictions of one run, written in the scorer's format and scored by ``score_files``.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import synthetic
import torch
from safetensors import safe_open

from inflect.evaluation.scoring import score_files
from inflect.inference.predictor import Predictor
from inflect.inference.queries import read_queries
from inflect.nn.checkpoint import MODEL_FILE
from inflect.render.markdown import frame_markdown
from inflect.render.tsv import prediction_2018
from inflect.text.languages import resolve
from inflect.training.config import Config
from inflect.training.items import TrainingData, load_data
from inflect.training.results import TrainingInterrupted
from inflect.training.state import run_status
from inflect.training.trainer import train

REPO = Path(__file__).resolve().parent.parent
RECIPE = REPO / "recipes" / "sigmorphon2018" / "run.py"

_STAMP = re.compile(r"\[\d\d:\d\d:\d\d\] ")  # run.py's log(): "[HH:MM:SS] message"
_RAY_PREFIX = re.compile(r"\(\w+ pid=\d+[^()\n]*\)(?:\x1b\[[0-9;]*m)* $")  # "(train_task pid=7) "


def driver_messages(stderr: str) -> list[str]:
    """The driver's own log messages in the stderr of ``run.py --ray``, without the workers'.

    Ray prints the workers' lines from a thread of the driver process, prefixed "(task pid=N) ",
    and a print is two writes (text, then newline), so a driver message and a worker line can
    share one line of stderr. Messages are therefore cut at their timestamps, not at newlines; a
    message is a worker's when Ray's prefix stands right before its timestamp, and a prefix that
    trails a driver message (the next worker line's) is cut off.
    """
    stamps = [m.start() for m in _STAMP.finditer(stderr)]
    messages = []
    for i, start in enumerate(stamps):
        line_start = stderr.rfind("\n", 0, start) + 1
        if _RAY_PREFIX.search(stderr[line_start:start]):
            continue  # a worker's
        end = stamps[i + 1] if i + 1 < len(stamps) else len(stderr)
        text = stderr[start:end].split("\n", 1)[0]
        messages.append(_RAY_PREFIX.sub("", text))
    return messages


def test_driver_messages_survive_interleaved_worker_lines():
    """Both ways a worker line (forwarded by Ray's thread) can cut into a driver message."""
    stderr = (
        "[10:00:00] Ray: 4 training and 6 evaluation tasks submitted\n"
        # the worker's text, then the driver's whole message, then the worker's newline
        "(train_task pid=7) [10:00:01] skip (finished): /g/seed1[10:00:01] skip (finished): /g/seed1\n\n"
        # the driver's text, then the worker's whole line, then the driver's newline
        "[10:00:02] skip (finished): /g/seed2(train_task pid=8) [10:00:02] skip (finished): /g/seed2\n\n"
        "(evaluate_task pid=9, ip=10.0.0.2)\x1b[0m [10:00:03] evaluating /g/seed1\n"
        "[10:00:04] resumed from epoch 1, batch 4: /g/seed3\n"
    )
    assert driver_messages(stderr) == [
        "[10:00:00] Ray: 4 training and 6 evaluation tasks submitted",
        "[10:00:01] skip (finished): /g/seed1",
        "[10:00:02] skip (finished): /g/seed2",
        "[10:00:04] resumed from epoch 1, batch 4: /g/seed3",
    ]


def _load_recipe():
    spec = importlib.util.spec_from_file_location("sigmorphon_recipe", RECIPE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


recipe = _load_recipe()
paper_table, ENSEMBLE = recipe.paper_table, recipe.ENSEMBLE


def test_paper_table_means_over_seeds_then_languages():
    rows = [
        # setting, output, attention, language, member, accuracy
        ("medium", "entmax15", "softmax", "german", "seed 1", 80.0),
        ("medium", "entmax15", "softmax", "german", "seed 2", 90.0),
        ("medium", "entmax15", "softmax", "spanish", "seed 1", 60.0),
        ("medium", "entmax15", "softmax", "german", ENSEMBLE, 91.0),
        ("medium", "entmax15", "softmax", "spanish", ENSEMBLE, 65.0),
        ("high", "entmax15", "softmax", "german", "seed 1", 95.0),
        ("medium", "softmax", "softmax", "german", "seed 1", 70.0),
    ]
    frame = pd.DataFrame(rows, columns=["setting", "output", "attention", "language", "member",
                                        "accuracy"])
    table = paper_table(frame)
    assert list(table.columns) == ["output", "attention", "high mean", "high ensemble",
                                   "medium mean", "medium ensemble"]
    assert table.iloc[0][["output", "attention"]].tolist() == ["entmax15", "softmax"]
    # german mean over seeds 85, spanish 60 -> 72.5; ensemble (91 + 65) / 2 = 78
    assert table.iloc[0]["medium mean"] == pytest.approx(72.5)
    assert table.iloc[0]["medium ensemble"] == pytest.approx(78.0)
    assert table.iloc[0]["high mean"] == pytest.approx(95.0)
    assert math.isnan(table.iloc[0]["high ensemble"]) and math.isnan(table.iloc[1]["high mean"])
    md = frame_markdown(table)
    assert "| entmax15 | softmax | 95.00 | — | 72.50 | 78.00 |" in md
    with pytest.raises(ValueError, match="member"):
        paper_table(frame.drop(columns=["member"]))


def test_run_status_new_interrupted_finished(tmp_path):
    torch.set_num_threads(1)
    data = TrainingData(synthetic.items(40, seed=1, language="german"),
                        synthetic.items(8, seed=2, language="german"), [resolve("german")])
    run = tmp_path / "run"
    assert run_status(run) == "new"

    def stop(event, info):
        if event == "batch" and info["batch"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(TrainingInterrupted):
        train(Config.from_preset("tiny"), data, run, device="cpu", max_epochs=2, progress=stop)
    assert run_status(run) == "interrupted"
    train(None, data, run, device="cpu", resume=True, max_epochs=2)
    assert run_status(run) == "finished"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::inflect.nn.vocab.UnknownSymbolWarning")
def test_smoke_recipe_end_to_end(conll2018, tmp_path):
    out = tmp_path / "grid"
    env = {**os.environ, "INFLECT_DATA_DIR": str(conll2018)}
    command = [sys.executable, str(RECIPE), "--smoke", "--out", str(out), "--threads", "1",
               "--device", "cpu"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    table = pd.read_csv(out / "table-dev.csv")
    assert list(table.columns) == ["output", "attention", "medium mean", "medium ensemble"]
    assert table[["output", "attention"]].values.tolist() == [["softmax", "softmax"],
                                                              ["entmax15", "entmax15"]]
    values = table[["medium mean", "medium ensemble"]].to_numpy()
    assert ((values >= 0) & (values <= 100)).all()
    results = pd.read_csv(out / "results.csv")
    assert sorted(set(results["language"])) == ["german", "spanish"]
    assert sorted(set(results["member"])) == ["ensemble", "seed 1", "seed 2"]
    # the table's cells are the macro-average over languages of the per-run accuracies
    cell = results[(results["output"] == "entmax15") & (results["attention"] == "entmax15")]
    seeds = cell[cell["member"] != ENSEMBLE].groupby("language")["accuracy"].mean()
    assert table.iloc[1]["medium mean"] == pytest.approx(seeds.mean())
    ens = cell[cell["member"] == ENSEMBLE]["accuracy"].mean()
    assert table.iloc[1]["medium ensemble"] == pytest.approx(ens)
    # one run's accuracy, recomputed by the scorer from predictions written in its format
    run = out / "medium" / "multilingual" / "softmax-softmax" / "seed1"
    predictor = Predictor.from_checkpoints([run])
    preds, golds = [], []
    for lang in ("german", "spanish"):
        gold = conll2018 / f"{lang}-dev"
        records = predictor.predict_many(read_queries(gold, lang))
        pred = tmp_path / f"{lang}.pred"
        pred.write_text("".join(prediction_2018(r) + "\n" for r in records), encoding="utf-8")
        preds.append(pred)
        golds.append(gold)
    scored = score_files(preds, golds, ["german", "spanish"])
    mine = results[(results["output"] == "softmax") & (results["member"] == "seed 1")]
    for lang in ("german", "spanish"):
        expected = scored.loc[scored["language"] == lang, "accuracy"].item()
        assert mine.loc[mine["language"] == lang, "accuracy"].item() == pytest.approx(expected)
    assert (out / "table-dev.md").read_text(encoding="utf-8").count("\n| ") == 3
    # a second invocation skips every finished run and reuses the cached evaluations
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stderr.count("skip (finished)") == 4 and "train:" not in again.stderr
    assert pd.read_csv(out / "table-dev.csv").equals(table)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::inflect.nn.vocab.UnknownSymbolWarning")
def test_smoke_recipe_on_ray_survives_a_killed_worker(conll2018, tmp_path):
    """`run.py --smoke --ray` on a local Ray of 2 CPUs: a worker dies inside a run (the fault
    injection kills it at batch 5), Ray retries the task, the run resumes from its last saved
    state and ends with the weights of an uninterrupted run; a second start skips every run."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'sparse-inflect[cluster]')")
    out = tmp_path / "grid"
    faulty = out / "medium" / "multilingual" / "entmax15-entmax15" / "seed2"
    env = {**os.environ, "INFLECT_DATA_DIR": str(conll2018), "RAY_DEDUP_LOGS": "0",
           "SIGMORPHON2018_FAULT": "entmax15-entmax15/seed2:5"}
    command = [sys.executable, str(RECIPE), "--smoke", "--ray", "--ray-cpus", "2",
               "--cpus-per-run", "1", "--checkpoint-minutes", "0", "--out", str(out),
               "--device", "cpu"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    driver = driver_messages(done.stderr)
    assert (faulty / "fault-injected").is_file()  # the worker did die
    # the retried task resumed from the state saved after batch 4 (saved every batch here)
    assert any(line.endswith(f"resumed from epoch 1, batch 4: {faulty}") for line in driver)
    assert sum("] trained: " in line for line in driver) == 3, done.stderr[-3000:]

    data = load_data(["german", "spanish"], "medium", conll2018)
    config = Config.from_preset("tiny", attention_mapping="entmax15", output_mapping="entmax15",
                                seed=2)
    torch.set_num_threads(1)
    train(config, data, tmp_path / "uninterrupted", device="cpu", max_epochs=1)
    with (
        safe_open(str(faulty / MODEL_FILE), "pt") as resumed,
        safe_open(str(tmp_path / "uninterrupted" / MODEL_FILE), "pt") as reference,
    ):
        for k in reference.keys():  # noqa: SIM118
            assert torch.equal(resumed.get_tensor(k), reference.get_tensor(k)), k

    # Table 1's shape, as Parquet and Markdown, from the per-language results; every run's
    # metrics.csv is kept
    table = pd.read_parquet(out / "table-dev.parquet")
    assert list(table.columns) == ["output", "attention", "medium mean", "medium ensemble"]
    results = pd.read_parquet(out / "results.parquet")
    assert len(results) == 2 * 2 * 3  # cells x languages x (seed 1, seed 2, ensemble)
    for row, (output, attention) in enumerate([("softmax", "softmax"), ("entmax15", "entmax15")]):
        cell = results[(results["output"] == output) & (results["attention"] == attention)]
        seeds = cell[cell["member"] != ENSEMBLE].groupby("language")["accuracy"].mean()
        assert table.iloc[row]["medium mean"] == pytest.approx(seeds.mean())
        ens = cell[cell["member"] == ENSEMBLE]["accuracy"].mean()
        assert table.iloc[row]["medium ensemble"] == pytest.approx(ens)
        for seed in (1, 2):
            run = out / "medium" / "multilingual" / f"{output}-{attention}" / f"seed{seed}"
            assert list(pd.read_csv(run / "metrics.csv").epoch) == [1]
    assert (out / "table-dev.md").read_text(encoding="utf-8").count("\n| ") == 3

    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    driver = driver_messages(again.stderr)
    assert sum("] skip (finished): " in line for line in driver) == 4, again.stderr[-3000:]
    assert not any("trained" in line or "resumed" in line for line in driver)
    assert pd.read_parquet(out / "table-dev.parquet").equals(table)


def _load_ship(module: str = "ship"):
    """recipes/sigmorphon2018/ship.py, or one of the modules beside it that do its work
    (``ship_candidates``, ``ship_selection``, ``ship_storage``, ``ship_registry``), imported with
    that folder on ``sys.path`` as the script has it."""
    folder = REPO / "recipes" / "sigmorphon2018"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    if module != "ship":
        return importlib.import_module(module)
    spec = importlib.util.spec_from_file_location("sigmorphon_ship", folder / "ship.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def test_ship_stores_float16_members_reships_in_place_and_writes_a_registry_v2(tmp_path):

    from inflect.inference.registry import default_model
    from inflect.nn.checkpoint import load_tensors, save_model
    from inflect.training.warm_start import build_model

    ship = _load_ship()
    torch.manual_seed(0)
    config = Config.from_preset("tiny")
    model = build_model(config, synthetic.items(50, seed=1, language="german"))
    save_model(tmp_path / "run", model, languages=[resolve("german").to_dict()],
               settings=config.train.to_dict())
    original, _ = load_tensors(tmp_path / "run" / MODEL_FILE)
    out = tmp_path / "models"
    rel = ship.store_members("german-high", [tmp_path / "run"], out, half=True)
    assert rel == ["german-high/member-1.safetensors"]
    # shipping the shipped files again (their folder is replaced) loses nothing
    assert ship.store_members("german-high", [out / rel[0]], out, half=True) == rel
    stored, _ = load_tensors(out / rel[0])
    assert set(stored) == set(original)
    for name, tensor in original.items():
        if tensor.is_floating_point():
            assert stored[name].dtype == torch.float16
            assert torch.equal(stored[name], tensor.to(torch.float16)), name
        else:
            assert torch.equal(stored[name], tensor), name
    assert sorted(p.name for p in out.iterdir()) == ["german-high"]  # no staging folder left

    facts = {
        "german-high": {
            "languages": ["german"],
            "setting": "high",
            "config": config.to_dict(),
            "data": {"setting": "high", "train_examples": 50},
        }
    }
    scores = {"german-high": pd.DataFrame({"language": ["german"], "accuracy": [81.234]})}
    text = ship.registry_text({"german-high": [tmp_path / "run"]}, facts, {"german-high": rel},
                              scores)
    (out / "registry.toml").write_text(text, encoding="utf-8")
    entry = default_model("de", out)
    assert entry.name == "german-high" and entry.setting == "high"
    assert entry.dev_accuracy == 81.23  # rounded to 2 decimals
    assert entry.members == ((out / rel[0]).resolve(),)
    assert entry.commands[0].startswith("inflect train --lang german --setting high ")


def test_ship_reuses_cached_scores_only_for_the_same_members(tmp_path, monkeypatch, capsys):
    import argparse

    import inflect.evaluation.runner
    from inflect.evaluation.scoring import MACRO

    ship = _load_ship()
    calls = []

    def fake_evaluate(paths, langs, split, **kw):  # the scores of one language, as evaluate gives
        calls.append((tuple(paths), tuple(langs)))
        frame = pd.DataFrame({"language": [langs[0], MACRO], "accuracy": [50.0 + len(calls), 0]})
        return argparse.Namespace(frame=frame)

    monkeypatch.setattr(inflect.evaluation.runner, "evaluate_checkpoints", fake_evaluate)
    member = tmp_path / "m.safetensors"
    member.write_bytes(b"weights v1")
    args = argparse.Namespace(results=str(tmp_path / "ship"), rescore=False, data_dir=None,
                              device="cpu")
    first = ship.evaluate_model("x", [member], ["german", "finnish"], args)
    assert list(first["accuracy"]) == [51.0, 52.0] and len(calls) == 2
    again = ship.evaluate_model("x", [member], ["german", "finnish"], args)
    assert list(again["accuracy"]) == [51.0, 52.0] and len(calls) == 2  # from the cache
    member.write_bytes(b"weights v2")  # the run trained on: the cache is stale
    third = ship.evaluate_model("x", [member], ["german", "finnish"], args)
    assert list(third["accuracy"]) == [53.0, 54.0] and len(calls) == 4
    assert "are for other members: scoring again" in capsys.readouterr().out
    args.rescore = True
    ship.evaluate_model("x", [member], ["german", "finnish"], args)
    assert len(calls) == 6


def test_ship_command_of_a_warm_started_member_names_its_start(tmp_path):
    from inflect.nn.checkpoint import save_model
    from inflect.training.warm_start import build_model

    ship = _load_ship("ship_registry")
    config = Config.from_preset("tiny", learning_rate=5e-4, seed=3)
    model = build_model(config, synthetic.items(20, seed=1, language="german"))
    start = {"path": "runs/high-member1/model.safetensors", "sha256": "0" * 64}
    save_model(tmp_path / "a", model, languages=[resolve("german").to_dict()],
               training={"data": {"setting": "high"}}, settings=config.train.to_dict())
    save_model(tmp_path / "b", model, languages=[resolve("german").to_dict()],
               training={"data": {"setting": "high"}, "init_from": start},
               settings=config.train.to_dict())
    facts = ship.model_facts([tmp_path / "a", tmp_path / "b"])
    assert "--init-from" not in ship.command_of(facts, 1)
    # a start inside the member's own run folder: the command writes beside it
    first = ship.model_facts([tmp_path / "b"])
    assert ship.command_of(first, 1).endswith(
        "--init-from runs/high-member1/model.safetensors --learning-rate 0.0005 --epochs 60 "
        "--patience 60 --out runs/high-member1-warm"
    )
    assert ship.command_of(facts, 2) == (
        "inflect train --lang german --setting high --attention entmax15 --output entmax15 "
        "--seed 3 --preset tiny --init-from runs/high-member1/model.safetensors "
        "--learning-rate 0.0005 --epochs 60 --patience 60 --out runs/high-member2"
    )
    # long pairs are part of the command
    save_model(tmp_path / "c", model, languages=[resolve("german").to_dict()],
               training={"data": {"setting": "high"}},
               settings=Config.from_preset("tiny", seed=3, long_pairs=3000).train.to_dict())
    assert "--seed 3 --preset tiny --long-pairs 3000 --epochs" in ship.command_of(
        ship.model_facts([tmp_path / "c"]), 1)


def test_ship_lists_the_command_of_a_warm_start(tmp_path, monkeypatch):
    """A member warm-started from a checkpoint: the registry gets that checkpoint's own command
    (its config: seed 1, written to its own run folder) where the file is at its recorded path,
    and a note that it is not recorded where it is not."""
    from inflect.nn.checkpoint import save_model
    from inflect.training.warm_start import build_model

    ship = _load_ship("ship_registry")
    monkeypatch.chdir(tmp_path)
    config = Config.from_preset("tiny", seed=1)
    model = build_model(config, synthetic.items(20, seed=1, language="german"))
    save_model(tmp_path / "runs" / "start", model, languages=[resolve("german").to_dict()],
               training={"data": {"setting": "high"}}, settings=config.train.to_dict())
    start = {"path": "runs/start/model.safetensors", "sha256": "1" * 64}
    save_model(tmp_path / "m", model, languages=[resolve("german").to_dict()],
               training={"data": {"setting": "high"}, "init_from": start},
               settings=config.train.to_dict())
    commands, note = ship.start_of(ship.model_facts([tmp_path / "m"]))
    assert commands == [
        "inflect train --lang german --setting high --attention entmax15 --output entmax15 "
        "--seed 1 --preset tiny --epochs 60 --patience 60 --out runs/start"
    ]
    assert note.startswith("runs/start/model.safetensors (SHA-256 " + "1" * 64)
    (tmp_path / "runs" / "start" / "model.safetensors").unlink()
    commands, note = ship.start_of(ship.model_facts([tmp_path / "m"]))
    assert commands == [] and note.endswith("not here, so its command is not recorded")


def test_ship_selects_per_language_models_by_gain_per_byte_within_the_budget():
    """Hand-made scores: fi-high beats the multilingual model by 10 points (1 MB), lt-high by 4
    (0.5 MB: 8 points per MB), sv-high loses; the budget (2.6 MB, 1 MB of it the multilingual
    model) holds fi and lt but not de-high on top; de's own model, beaten by de-high, is still
    de's best once de-high is left out, so nothing is dropped. With room for de-high, de's own
    model is no language's best and is dropped. A model that lifts its language to the
    baseline comes before gain per byte."""
    import pandas as pd

    ship = _load_ship()

    def frame(scores):
        return pd.DataFrame(list(scores.items()), columns=["language", "accuracy"])

    scores = {
        "multi": frame({"fi": 70.0, "lt": 60.0, "sv": 80.0, "de": 85.0}),
        "de-own": frame({"de": 88.0}),
        "fi-high": frame({"fi": 80.0}), "lt-high": frame({"lt": 64.0}),
        "sv-high": frame({"sv": 79.0}), "de-high": frame({"de": 90.0}),
    }
    settings = dict.fromkeys(scores, "high")
    sizes = {"multi": 1_000_000, "de-own": 0, "fi-high": 1_000_000, "lt-high": 500_000,
             "sv-high": 500_000, "de-high": 1_000_000}
    per_language = {"fi-high", "lt-high", "sv-high", "de-high"}
    # gains per byte: lt 8e-6, fi 1e-5, de 2e-6 (over de-own's 88), sv none
    chosen, dropped = ship.select_per_language(scores, settings, sizes, per_language, 2.6e6)
    assert (chosen, dropped) == (["fi-high", "lt-high"], [])
    chosen, dropped = ship.select_per_language(scores, settings, sizes, per_language, 3.5e6)
    assert (chosen, dropped) == (["de-high", "fi-high", "lt-high"], ["de-own"])
    # a model that lifts its language to the official baseline comes first: de's floor of 89
    # is above de-own's 88 and below de-high's 90, so de-high goes in before fi-high (which
    # no longer fits: 1 + 1 + 1 MB > 2.6 MB), and lt-high fills the rest
    floors = {("de", "high"): 89.0, ("fi", "high"): 60.0}
    chosen, dropped = ship.select_per_language(scores, settings, sizes, per_language, 2.6e6,
                                               floors)
    assert (chosen, dropped) == (["de-high", "lt-high"], ["de-own"])
    # --first: de is served first (its 2e-6 per byte would come last), then by gain per byte:
    # fi's 1 MB no longer fits (1 + 1 + 1 MB > 2.6 MB), lt's 0.5 MB does
    chosen, dropped = ship.select_per_language(scores, settings, sizes, per_language, 2.6e6,
                                               first={"de-high"})
    assert (chosen, dropped) == (["de-high", "lt-high"], ["de-own"])
    # another setting's model does not count against a high per-language model
    settings["multi"] = "medium"
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 10e6)
    assert "sv-high" in chosen


def test_ship_selection_ships_one_storage_of_a_model_the_better_per_byte_first():
    """--int4: fi's model in int8 (90 over the multilingual 80, 1 MB) and in 4 bits (89.5,
    0.55 MB). Gains per byte: fi in 4 bits 9.5 / 0.55 = 17.3e-6, fi in int8 10e-6, lt 10e-6. The
    4 bits go first; then lt; then fi in int8 replaces its 4 bits where the 0.45 MB more fit (a
    gain of 0.5 for 0.45 MB). A variant better than its int8 is never replaced."""
    import pandas as pd

    ship = _load_ship()

    def frame(scores):
        return pd.DataFrame(list(scores.items()), columns=["language", "accuracy"])

    four = "fi-high" + ship.INT4_VARIANT
    scores = {"multi": frame({"fi": 80.0, "lt": 60.0}), "fi-high": frame({"fi": 90.0}),
              four: frame({"fi": 89.5}), "lt-high": frame({"lt": 70.0})}
    settings = dict.fromkeys(scores, "high")
    sizes = {"multi": 0, "fi-high": 1_000_000, four: 550_000, "lt-high": 1_000_000}
    per_language = {"fi-high", four, "lt-high"}
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 1.6e6)
    assert chosen == [four, "lt-high"]
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 2.0e6)
    assert chosen == ["fi-high", "lt-high"]
    # only one per language, also as a lift: fi's floor 85 is lifted by either; the 4 bits
    # first, then (lt does not fit) the int8 replaces them where the budget holds 1 MB
    floors = {("fi", "high"): 85.0}
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 0.9e6, floors)
    assert chosen == [four]
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 1.0e6, floors)
    assert chosen == ["fi-high"]
    scores[four] = frame({"fi": 91.0})
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 10e6)
    assert chosen == [four, "lt-high"]
    # the chosen variant ships under its model's name; the other storage's entries go
    tables = ({"fi-high": "int8", four: "4 bits", "lt-high": "lt"}, {four: 1.0})
    ship.settle_variants(chosen, *tables)
    assert tables == ({"fi-high": "4 bits", "lt-high": "lt"}, {"fi-high": 1.0})
    tables = ({"fi-high": "int8", four: "4 bits"},)
    ship.settle_variants(["fi-high"], *tables)
    assert tables == ({"fi-high": "int8"},)


def test_ship_selection_reaches_a_settings_macro_target_first():
    """--macro-target: a setting's per-language models go in before a better gain per byte of
    another setting, until that setting's macro reaches the target, and no further. By hand:
    medium macro with the multilingual model alone (70 + 80) / 2 = 75; fi-medium (+4, 1 MB)
    makes it 77, lt-medium (+2, 1 MB) 78. The high model's gain per byte (20 points per MB)
    beats both."""
    import pandas as pd

    ship = _load_ship()

    def frame(scores):
        return pd.DataFrame(list(scores.items()), columns=["language", "accuracy"])

    scores = {
        "multi-m": frame({"fi": 70.0, "lt": 80.0}), "multi-h": frame({"fi": 60.0}),
        "fi-medium": frame({"fi": 74.0}), "lt-medium": frame({"lt": 82.0}),
        "fi-high": frame({"fi": 80.0}),
    }
    settings = {"multi-m": "medium", "multi-h": "high", "fi-medium": "medium",
                "lt-medium": "medium", "fi-high": "high"}
    sizes = {"multi-m": 0, "multi-h": 0, "fi-medium": 1_000_000, "lt-medium": 1_000_000,
             "fi-high": 1_000_000}
    per_language = {"fi-medium", "lt-medium", "fi-high"}
    # without a target: fi-high (2e-5 per byte), then fi-medium (4e-6); lt-medium does not fit
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 2e6)
    assert chosen == ["fi-high", "fi-medium"]
    # medium 77 reached by fi-medium alone: the high model comes next, as before
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 2e6,
                                         targets={"medium": 77.0})
    assert chosen == ["fi-high", "fi-medium"]
    # medium 78 needs both medium models; they take the 2 MB, fi-high is left out
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 2e6,
                                         targets={"medium": 78.0})
    assert chosen == ["fi-medium", "lt-medium"]
    # an unreachable target takes what fits and then the rest by gain per byte
    chosen, _ = ship.select_per_language(scores, settings, sizes, per_language, 3e6,
                                         targets={"medium": 99.0})
    assert chosen == ["fi-high", "fi-medium", "lt-medium"]
