"""The per-language training queue (``inflect queue``, :mod:`inflect.training.queue`): one model
per language, restartable — a stopped language resumes, a finished one is skipped, a failing one
does not stop the others."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import synthetic
from click.testing import CliRunner
from test_train import write_conll

from inflect.cli import main
from inflect.nn.checkpoint import load_metadata
from inflect.training.items import load_data
from inflect.training.queue import QueueSpec, queue_status, run_queue
from inflect.training.results import TrainingInterrupted
from inflect.training.trainer import train

TINY = ("--preset", "tiny", "--epochs", "3", "--device", "cpu", "--attention", "softmax",
        "--output", "softmax")


def _data(tmp_path: Path) -> Path:
    """Synthetic low-setting data of two languages."""
    data = tmp_path / "data"
    data.mkdir()
    for seed, name in ((1, "german"), (3, "spanish")):
        write_conll(data / f"{name}-train-low", synthetic.items(40, seed=seed))
        write_conll(data / f"{name}-dev", synthetic.items(12, seed=seed + 1))
    return data


def _metrics(run: Path) -> list[dict[str, str]]:
    with open(run / "metrics.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _interrupt_in_epoch_2(root: Path, data: Path) -> None:
    """German's run, stopped at batch 1 of epoch 2 (as SIGTERM does: a resumable state)."""
    from inflect.training.config import Config

    def stop(event: str, info: dict) -> None:
        if event == "batch" and info["epoch"] == 2 and info["batch"] == 1:
            raise KeyboardInterrupt

    config = Config.from_preset("tiny", attention_mapping="softmax", output_mapping="softmax",
                                max_epochs=3)
    with pytest.raises(TrainingInterrupted):
        train(config, load_data("german", "low", data), root / "german", device="cpu",
              progress=stop)


@pytest.mark.slow
def test_a_stopped_language_resumes_and_a_finished_one_is_skipped(tmp_path):
    data, root = _data(tmp_path), tmp_path / "queue"
    spec = QueueSpec("low", ("german", "spanish"), TINY)
    root.mkdir()
    spec.save(root)
    _interrupt_in_epoch_2(root, data)
    assert [s.state for s in queue_status(root)] == ["interrupted", "new"]
    assert queue_status(root)[0].epochs == 1

    lines: list[str] = []
    statuses = run_queue(spec, root, jobs=2, data_dir=data, log=lines.append, poll_seconds=0.2)
    text = "\n".join(lines)
    assert "german: resume after epoch 1" in text
    assert "spanish: start" in text
    assert [s.state for s in statuses] == ["finished", "finished"]
    for status in statuses:
        rows = _metrics(root / status.language)
        # every epoch once: the resumed run continued, it did not start again
        assert [int(r["epoch"]) for r in rows] == [1, 2, 3]
        best = max(rows, key=lambda r: float(r["dev_score"]))
        assert status.epochs == 3 and status.max_epochs == 3
        assert status.best_accuracy == pytest.approx(float(best["dev_accuracy"]))
        assert status.best_epoch == int(best["epoch"])
        assert status.cpu_seconds == pytest.approx(sum(float(r["cpu_seconds"]) for r in rows))
        # one line per epoch per language reached the log (german: epochs 2 and 3 after resume)
        reported = [ln for ln in lines if ln.startswith(f"{status.language}: epoch ")]
        assert len(reported) == (2 if status.language == "german" else 3)
    assert (root / "logs" / "spanish.log").read_text(encoding="utf-8").count("epoch") > 0

    # started again: nothing to train, nothing rewritten
    state = root / "german" / "trainer_state.safetensors"
    before = state.stat().st_mtime_ns, load_metadata(state)["state"]
    again: list[str] = []
    run_queue(spec, root, jobs=2, data_dir=data, log=again.append, poll_seconds=0.2)
    assert "0 of 2 language(s) to train" in "\n".join(again)
    assert sum("finished before" in ln for ln in again) == 2
    assert (state.stat().st_mtime_ns, load_metadata(state)["state"]) == before


@pytest.mark.slow
def test_a_failing_language_does_not_stop_the_others_and_the_cli_says_so(tmp_path):
    data, root = _data(tmp_path), tmp_path / "queue"
    # french has no files in the data folder: its `inflect train` fails
    args = ["queue", "--lang", "german,french", "--setting", "low", "--jobs", "1",
            "--out", str(root), "--data-dir", str(data), "--format", "tsv", "--", *TINY]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "1 language(s) failed: french" in result.output
    assert "french: FAILED" in result.output and "french-train-low" in result.output
    table = [line.split("\t") for line in result.stdout.strip().splitlines()]
    assert table[0] == ["language", "state", "epochs", "best_dev_accuracy", "best_epoch",
                        "cpu_minutes"]
    assert [row[:3] for row in table[1:]] == [["german", "finished", "3/3"], ["french", "failed", "0"]]
    # --status reads the same table without training
    status = CliRunner().invoke(main, ["queue", "--status", "--out", str(root), "--format", "tsv"])
    assert status.exit_code == 0
    assert status.stdout.splitlines()[1].split("\t")[:3] == ["german", "finished", "3/3"]


def test_the_queue_refuses_options_it_sets_and_another_setting(tmp_path):
    with pytest.raises(ValueError, match="--out"):
        QueueSpec("high", ("german",), ("--epochs", "3", "--out", "x"))
    with pytest.raises(ValueError, match="twice"):
        QueueSpec("high", ("german", "german"))
    root = tmp_path / "queue"
    root.mkdir()
    QueueSpec("high", ("german",), ("--epochs", "3")).save(root)
    with pytest.raises(ValueError, match="setting high"):
        QueueSpec.load(root).extended(QueueSpec("medium", ("german",), ("--epochs", "3")), root)
    grown = QueueSpec.load(root).extended(QueueSpec("high", ("finnish", "german"),
                                                    ("--epochs", "3")), root)
    assert grown.languages == ("german", "finnish")
    result = CliRunner().invoke(main, ["queue", "--lang", "german", "--out", str(root), "--",
                                       "--resume"])
    assert result.exit_code == 1 and "sets --resume itself" in result.output


@pytest.mark.slow
def test_the_recipe_runs_the_queue_as_ray_tasks(tmp_path):
    pytest.importorskip("ray")
    import os
    import subprocess
    import sys

    data, root = _data(tmp_path), tmp_path / "queue"
    recipe = Path(__file__).resolve().parent.parent / "recipes" / "sigmorphon2018" / \
        "per_language.py"
    command = [sys.executable, str(recipe), "--ray", "--ray-cpus", "2", "--lang",
               "german,spanish", "--setting", "low", "--out", str(root), "--data-dir",
               str(data), "--", *TINY]
    env = dict(os.environ, RAY_DISABLE_IMPORT_WARNING="1")
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Ray: 2 language task(s) submitted" in done.stderr
    assert [s.state for s in queue_status(root)] == ["finished", "finished"]
    for language in ("german", "spanish"):
        assert [int(r["epoch"]) for r in _metrics(root / language)] == [1, 2, 3]
    # the same folder is an `inflect queue`: started again there, nothing is left to train
    lines: list[str] = []
    run_queue(QueueSpec.load(root), root, data_dir=data, log=lines.append, poll_seconds=0.2)
    assert "0 of 2 language(s) to train" in "\n".join(lines)


@pytest.mark.slow
def test_a_lengthened_queue_continues_its_finished_languages(tmp_path):
    data, root = _data(tmp_path), tmp_path / "queue"
    short = QueueSpec("low", ("german", "spanish"), (*TINY[:2], "--epochs=2", *TINY[4:]))
    run_queue(short, root, data_dir=data, log=lambda _: None, poll_seconds=0.2)
    assert [int(r["epoch"]) for r in _metrics(root / "german")] == [1, 2]
    spanish = (root / "spanish" / "metrics.csv").read_bytes()
    lines: list[str] = []
    # the same options with more epochs: the finished run goes on from epoch 2
    statuses = run_queue(QueueSpec("low", ("german",), TINY), root, data_dir=data,
                         log=lines.append, poll_seconds=0.2)
    assert "german: resume after epoch 2" in "\n".join(lines)
    assert [int(r["epoch"]) for r in _metrics(root / "german")] == [1, 2, 3]
    assert statuses[0].epochs == 3 and QueueSpec.load(root).length() == {"--epochs": "3"}
    # only the languages named are trained: spanish, of the queue but not named, is untouched
    assert "1 of 1 language(s) to train" in "\n".join(lines)
    assert (root / "spanish" / "metrics.csv").read_bytes() == spanish
    assert [s.language for s in statuses] == ["german", "spanish"] and statuses[1].epochs == 2
    with pytest.raises(ValueError, match="cannot train"):
        QueueSpec.load(root).extended(QueueSpec("low", ("german",), ("--preset", "paper")), root)
