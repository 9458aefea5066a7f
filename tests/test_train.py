"""Tests of inflect.training, inflect.nn.checkpoint and `inflect train` on tiny synthetic languages."""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import synthetic
import torch
from click.testing import CliRunner
from safetensors import safe_open
from synthetic import item_batch

from inflect.cli import main
from inflect.decoding.greedy import greedy
from inflect.nn.batching import output_symbols
from inflect.nn.checkpoint import (
    MODEL_FILE,
    STATE_FILE,
    CheckpointError,
    load_checkpoint,
    load_model,
    load_tensors,
    save_tensors,
)
from inflect.nn.model import Seq2Seq
from inflect.training.config import Config
from inflect.training.items import TrainingData
from inflect.training.results import TrainingDiverged, TrainingInterrupted
from inflect.training.state import run_status
from inflect.training.trainer import Trainer, train
from inflect.training.warm_start import initial_config

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


def tiny_config(**kw):
    return Config.from_preset("tiny", **kw)


def run_config(path):
    """The whole config (network and training) stored in the model checkpoint ``path``."""
    return Config.from_dict(load_checkpoint(path).metadata["model"]["config"])


def decode_strings(model, items):
    """Greedy outputs as strings, decoded independently of inflect.training.dev.evaluate_dev."""
    batch = item_batch(model, items, targets=False)
    with torch.inference_mode():
        hyps = greedy(model, batch, 30)
    return [
        "".join(output_symbols(model.target_vocab, h.tokens, h.attention, s))
        for h, s in zip(hyps, batch.source_symbols, strict=True)
    ]


@pytest.mark.slow
def test_learns_a_synthetic_language_to_100_percent(tmp_path):
    train_items, dev_items = synthetic.items(400, seed=1), synthetic.items(60, seed=2)
    result = train(
        tiny_config(attention_mapping="entmax15", output_mapping="entmax15"),
        TrainingData(train_items, dev_items),
        tmp_path,
        device="cpu",
        max_epochs=12,
        patience=4,
    )
    assert result.best_dev_accuracy == 100.0
    model = load_model(tmp_path)
    gold = [synthetic.inflect_form("".join(it.source), it.features) for it in dev_items]
    assert decode_strings(model, dev_items) == gold
    assert any(" " in g for g in gold) and any(g.startswith("ge") for g in gold)
    assert any(c in "".join(gold) for c in "äöü")


@pytest.mark.slow
def test_multilingual_model_with_language_symbols(tmp_path):
    def other(items):  # language "other" has the umlaut rule inverted: UML adds a suffix "ö"
        out = []
        for it in items:
            form = "".join(it.source)
            form = form + "ö" if "UML" in it.features else form
            out.append(synthetic.Item(it.source, it.features, "other", tuple(form)))
        return out

    tr = synthetic.items(250, seed=3) + other(synthetic.items(250, seed=4, language="other"))
    dv = synthetic.items(40, seed=5) + other(synthetic.items(40, seed=6, language="other"))
    random.Random(0).shuffle(tr)
    result = train(
        tiny_config(), TrainingData(tr, dv), tmp_path, device="cpu", max_epochs=10, patience=3
    )
    model = load_model(tmp_path)
    assert model.language_vocab.symbols == ["other", "synth"]
    assert result.best_dev_accuracy >= 97.5
    preds = decode_strings(model, dv)
    assert sum(p == "".join(it.target) for p, it in zip(preds, dv, strict=True)) >= 78


def test_checkpoint_round_trip_without_data(tmp_path):
    train_items, dev_items = synthetic.items(64, seed=1), synthetic.items(16, seed=2)
    out = tmp_path / "run"
    train(
        tiny_config(),
        TrainingData(train_items, dev_items, description={"languages": ["synth"]}),
        out,
        device="cpu",
        max_epochs=2,
        precision="float32",  # the dev loss recorded in training is then the loaded model's
    )
    metrics = pd.read_csv(out / "metrics.csv")
    assert list(metrics.epoch) == [1, 2]
    assert set(metrics.columns) >= {"train_loss", "dev_loss", "dev_accuracy", "learning_rate"}
    before = load_model(out)
    moved = tmp_path / "elsewhere"
    shutil.copytree(out, moved)
    shutil.rmtree(out)
    loaded = load_checkpoint(moved / MODEL_FILE)
    meta = loaded.metadata
    assert meta["versions"]["torch"] == torch.__version__
    assert meta["model"]["config"]["seed"] == 1
    assert len(meta["metrics"]) == 2 and meta["training"]["best_epoch"] in (1, 2)
    best = meta["training"]["best_epoch"]
    assert meta["metrics"][best - 1]["dev_accuracy"] == metrics.dev_accuracy.max()
    # the moved checkpoint: the same weights and outputs as before the move
    again = load_model(moved, device="auto")
    again.cpu()
    for k, v in before.state_dict().items():
        assert torch.equal(v, again.state_dict()[k])
    batch = item_batch(before, dev_items)
    with torch.no_grad():
        assert torch.equal(before.loss(batch)[0], again.loss(batch)[0])
        loss, n = again.loss(item_batch(again, dev_items))
    # ... and the best epoch's weights: their dev loss (mean per target symbol) is the one the
    # trainer recorded for that epoch, not the other epoch's
    assert abs(metrics.dev_loss[0] - metrics.dev_loss[1]) > 1e-4
    assert float(loss) / n == pytest.approx(metrics.dev_loss[best - 1], rel=1e-5)
    # only tensors and JSON inside: safetensors metadata parses as JSON
    with safe_open(str(moved / MODEL_FILE), "pt") as fh:
        json.loads(fh.metadata()["sparse_inflect"])
    # a new checkpoint reads bundles as multisets and records the training data's
    # longest output per source length (computed here by hand from the items)
    assert meta["model"]["config"]["tag_bundles"] == "multiset"
    longest: dict[int, int] = {}
    for it in train_items:
        longest[len(it.source)] = max(longest.get(len(it.source), 0), len(it.target))
    assert again.output_lengths.table == {"synth": dict(sorted(longest.items()))}


def test_device_names_resolve_or_fail_clearly():
    from inflect.nn.model import resolve_device

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    with pytest.raises(ValueError, match="unknown device 'gpu0'"):
        resolve_device("gpu0")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            resolve_device("cuda")
    else:
        with pytest.raises(ValueError, match="CUDA device"):
            resolve_device(f"cuda:{torch.cuda.device_count()}")
    # device types torch parses but the model does not run on: one line, not a traceback later
    for name in ("mps", "xpu", "meta", "hip"):
        with pytest.raises(ValueError, match=f"device '{name}' is not supported"):
            resolve_device(name)


def test_load_model_errors_are_clear(tmp_path):
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        load_model(tmp_path)
    (tmp_path / MODEL_FILE).write_bytes(b"not a safetensors file")
    with pytest.raises(CheckpointError, match="not a readable safetensors"):
        load_model(tmp_path)


def test_refuses_to_overwrite_a_run(tmp_path):
    items = synthetic.items(16, seed=1)
    train(tiny_config(), TrainingData(items, items), tmp_path, device="cpu", max_epochs=1)
    with pytest.raises(FileExistsError, match="--resume"):
        train(tiny_config(), TrainingData(items, items), tmp_path, device="cpu", max_epochs=1)


def test_dev_batch_size_changes_neither_the_figures_nor_blocks_a_resume(tmp_path):
    """Runs saved with the earlier dev batch size (500) resume under today's default (128); dev
    loss, accuracy and predictions are the same at any dev batch size."""
    from inflect import defaults
    from inflect.training.dev import evaluate_dev

    items, dev = synthetic.items(48, seed=3), synthetic.items(23, seed=4)
    data = TrainingData(items, dev)
    assert Config().eval_batch_size == 128
    old = tiny_config(eval_batch_size=500)
    train(old, data, tmp_path, device="cpu", max_epochs=1)
    result = train(tiny_config(), data, tmp_path, device="cpu", resume=True, max_epochs=2)
    assert result.epochs == 2
    model = load_model(tmp_path)
    assert run_config(tmp_path).eval_batch_size == 500  # the saved run's config goes on
    figures = [evaluate_dev(model, dev, size) for size in (1, 5, 23, 500)]
    alone = figures[0][2]  # batches of one: each input's own length cap
    ended = [
        i for i, it in enumerate(dev) if len(alone[i]) < defaults.max_output_length(len(it.source))
    ]
    assert ended  # outputs that ended with the end symbol are the same in any batch
    for loss, accuracy, predictions in figures[1:]:
        assert loss == pytest.approx(figures[0][0], rel=1e-5)
        assert accuracy == figures[0][1]
        assert [predictions[i] for i in ended] == [alone[i] for i in ended]
    with pytest.raises(ValueError, match=r"dropout: saved 0\.0, given 0\.2"):
        train(tiny_config(dropout=0.2), data, tmp_path, device="cpu", resume=True, max_epochs=3)


@pytest.mark.slow
def test_a_diverging_run_says_where_and_stays_resumable(tmp_path, monkeypatch):
    train_items, dev_items = synthetic.items(96, seed=7), synthetic.items(24, seed=8)
    data = TrainingData(train_items, dev_items)
    poisoned = {"on": False}
    loss_of = Seq2Seq.loss

    def loss(self, batch, *args, **kwargs):
        value, n = loss_of(self, batch, *args, **kwargs)
        return (value * math.nan, n) if poisoned["on"] and self.training else (value, n)

    def poison(event, info):
        if event == "batch" and info["epoch"] == 2 and info["batch"] == 1:
            poisoned["on"] = True

    monkeypatch.setattr(Seq2Seq, "loss", loss)
    with pytest.raises(TrainingDiverged, match=r"epoch 2, batch 2 of \d+: the loss is not finite "
                       r"\(learning rate 0.004\); the state saved there before \(after epoch 1\)"):
        train(tiny_config(learning_rate=0.004), data, tmp_path / "run", device="cpu",
              max_epochs=3, patience=10, progress=poison)
    # the folder was left as saved after epoch 1: it resumes (here without the poison)
    poisoned["on"] = False
    result = train(None, data, tmp_path / "run", device="cpu", resume=True, max_epochs=3,
                   patience=10)
    assert result.epochs == 3


def test_interrupted_and_resumed_run_ends_with_the_same_weights(tmp_path):
    train_items, dev_items = synthetic.items(96, seed=7), synthetic.items(24, seed=8)
    data = TrainingData(train_items, dev_items)
    cfg = dict(dropout=0.3, lr_decay=0.5)  # dropout and the lr schedule must resume too
    train(tiny_config(**cfg), data, tmp_path / "a", device="cpu", max_epochs=4, patience=10)

    def interrupt(event, info):
        if event == "batch" and info["epoch"] == 3 and info["batch"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(TrainingInterrupted, match="epoch 3, batch 2 of"):
        train(
            tiny_config(**cfg),
            data,
            tmp_path / "b",
            device="cpu",
            max_epochs=4,
            patience=10,
            progress=interrupt,
        )
    with pytest.raises(ValueError, match="seed: saved 1, given 99"):
        train(tiny_config(seed=99, **cfg), data, tmp_path / "b", device="cpu", resume=True)
    # resumes from the saved boundary with the saved config
    result = train(None, data, tmp_path / "b", device="cpu", resume=True, max_epochs=4, patience=10)
    assert result.epochs == 4
    for name in (MODEL_FILE, STATE_FILE):
        with (
            safe_open(str(tmp_path / "a" / name), "pt") as fa,
            safe_open(str(tmp_path / "b" / name), "pt") as fb,
        ):
            assert sorted(fa.keys()) == sorted(fb.keys())
            for k in fa.keys():  # noqa: SIM118
                assert torch.equal(fa.get_tensor(k), fb.get_tensor(k)), (name, k)
    ma = pd.read_csv(tmp_path / "a" / "metrics.csv").drop(
        columns=["seconds", "cpu_seconds", "train_examples_per_s"]
    )
    mb = pd.read_csv(tmp_path / "b" / "metrics.csv").drop(
        columns=["seconds", "cpu_seconds", "train_examples_per_s"]
    )
    pd.testing.assert_frame_equal(ma, mb)


def write_conll(path: Path, items) -> None:
    path.write_text(
        "".join(
            f"{''.join(it.source)}\t{''.join(it.target)}\t{';'.join(sorted(it.features))}\n"
            for it in items
        ),
        encoding="utf-8",
    )


def _german_low_data(tmp_path: Path, dev: int = 16) -> Path:
    """A data folder with 48 synthetic german-train-low pairs and ``dev`` german-dev pairs."""
    data = tmp_path / "data"
    data.mkdir()
    write_conll(data / "german-train-low", synthetic.items(48, seed=1))
    write_conll(data / "german-dev", synthetic.items(dev, seed=2))
    return data


def _cli_train_args(data: Path, lang: str, attention: str) -> list[str]:
    """`inflect train` of one tiny epoch on the low-setting files in ``data`` (softmax output)."""
    return [
        "train", "--lang", lang, "--setting", "low", "--attention", attention,
        "--output", "softmax", "--preset", "tiny", "--epochs", "1", "--device", "cpu",
        "--data-dir", str(data),
    ]


def test_cli_train_writes_a_checkpoint_and_resumes(tmp_path):
    data = _german_low_data(tmp_path)
    out = tmp_path / "run"
    args = [*_cli_train_args(data, "deu", "sparsemax"), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    loaded = load_checkpoint(out)
    model = loaded.network
    assert model.config.attention_mapping == "sparsemax"
    assert model.config.output_mapping == "softmax"
    assert [s.name for s in loaded.languages.values()] == ["german"]
    assert loaded.codec is None  # inflection: the language specs are the text path
    result = CliRunner().invoke(
        main, [*args[:-6], "--epochs", "2", "--resume", "--data-dir", str(data), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert list(pd.read_csv(out / "metrics.csv").epoch) == [1, 2]
    bad = CliRunner().invoke(main, [*args[:1], "--lang", "klingon", *args[3:]])
    assert bad.exit_code != 0 and "klingon" in bad.output


def _alpha_in_file(path: Path) -> float:
    """The learned attention α of a checkpoint file, read with safetensors alone:
    α = 1 + softplus(θ) (Peters et al. 2019, §3; θ the stored ``attention_alpha_raw``)."""
    with safe_open(str(path), "pt") as fh:
        (theta,) = fh.get_tensor("attention_alpha_raw").reshape(-1).tolist()
    return 1.0 + math.log1p(math.exp(theta))


def _alpha(model) -> float:
    a = model.attention_alpha
    return float(a.detach()) if torch.is_tensor(a) else float(a)


def _attention_uses(model, alpha: float, items) -> None:
    """The model's attention weights are the α-entmax (α = ``alpha``) of its scores."""
    from test_model import attention_oracle

    batch = item_batch(model, items)
    with torch.no_grad():
        state = model.start(batch)
        for t in range(batch.target_in.shape[1]):
            _, attn, new = model.step(state, batch.target_in[:, t])
            want = attention_oracle(model, state, new, alpha)
            torch.testing.assert_close(attn.double(), want, atol=2e-6, rtol=1e-5)
            state = new


def test_learned_alpha_moves_and_a_checkpoint_restores_it(tmp_path):
    train_items, dev_items = synthetic.items(48, seed=1), synthetic.items(8, seed=2)
    config = tiny_config(attention_mapping="entmax15", learn_attention_alpha=True)
    result = train(
        config,
        TrainingData(train_items, dev_items),
        tmp_path,
        device="cpu",
        max_epochs=2,
        patience=2,
    )
    assert result.epochs == 2
    learned = _alpha_in_file(tmp_path / MODEL_FILE)
    assert abs(learned - 1.5) > 1e-4  # Adam moved θ (about lr = 1e-3 per step, 3 steps/epoch)
    model = load_model(tmp_path)
    assert model.config.learn_attention_alpha
    assert _alpha(model) == pytest.approx(learned, rel=1e-6)
    _attention_uses(model, learned, dev_items)
    # a model built from the same config starts at 1.5: the change is the training's
    fresh = Seq2Seq.from_metadata(model.metadata())
    assert _alpha(fresh) == pytest.approx(1.5, rel=1e-6)


def test_cli_learn_alpha_flag(tmp_path):
    data = _german_low_data(tmp_path, dev=8)
    args = _cli_train_args(data, "german", "entmax:1.3")
    result = CliRunner().invoke(main, [*args, "--learn-alpha", "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    model = load_model(tmp_path / "a")
    assert model.config.learn_attention_alpha and model.config.attention_mapping == "entmax:1.3"
    learned = _alpha_in_file(tmp_path / "a" / MODEL_FILE)
    assert abs(learned - 1.3) > 1e-4
    assert _alpha(model) == pytest.approx(learned, rel=1e-6)
    # without the flag the α is fixed and nothing named attention_alpha_raw is stored
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    fixed = load_model(tmp_path / "b")
    assert not fixed.config.learn_attention_alpha and fixed.attention_alpha == 1.3
    with safe_open(str(tmp_path / "b" / MODEL_FILE), "pt") as fh:
        assert "attention_alpha_raw" not in fh.keys()  # noqa: SIM118


def test_autoencoding_items_copy_lemmas_and_forms(tmp_path):
    from inflect.nn.config import COPY_FEATURE
    from inflect.training.items import copy_pool
    from inflect.training.sampling import draw

    items = synthetic.items(5, seed=3)
    pool = copy_pool(items)
    words = {it.source for it in items} | {it.target for it in items}
    assert {it.source for it in pool} == words and len(pool) == len(words)
    assert all(it.source == it.target and tuple(it.features) == (COPY_FEATURE,) for it in pool)
    drawn = [pool[i] for i in draw(len(pool), 2 * len(pool) + 1, torch.Generator().manual_seed(0))]
    assert len(drawn) == 2 * len(pool) + 1
    assert {it.source for it in drawn} == words  # without replacement within a round
    result = train(
        tiny_config(copy_examples=0.5),
        TrainingData(items, items),
        tmp_path,
        device="cpu",
        max_epochs=1,
    )
    assert COPY_FEATURE in load_model(tmp_path).feature_vocab
    assert result.epochs == 1


@pytest.mark.shared_data
def test_real_data_items_and_one_update(conll2018):
    from inflect.training.items import load_data
    from inflect.training.warm_start import build_model

    data = load_data("german", "medium", conll2018)
    assert len(data.train) == 1000 and len(data.dev) == 1000
    first = data.train[0]  # Trichlorid	Trichlorid	N;ACC;SG
    assert "".join(first.source) == "Trichlorid" and sorted(first.features) == ["ACC", "N", "SG"]
    assert first.language == "german"
    model = build_model(Config.from_preset("cpu-small"), data.train)
    loss, n = model.loss(item_batch(model, data.train[:8]))
    assert torch.isfinite(loss) and n == sum(len(it.target) + 1 for it in data.train[:8])


def test_non_finite_weights_are_refused_by_name(tmp_path):
    shipped = Path(__file__).resolve().parent.parent / "inflect" / "models" / "german-high"
    tensors, meta = load_tensors(shipped / "member-1.safetensors")
    # a float tensor, and the float16 scale of an int8 one: named as the weight it scales
    name = sorted(n for n, t in tensors.items() if t.is_floating_point() and ":" not in n)[0]
    scaled = sorted(n for n in tensors if n.endswith(":scale"))[0]
    for broken_name, named in ((name, name), (scaled, scaled.removesuffix(":scale"))):
        broken_tensors = dict(tensors)
        broken_tensors[broken_name] = tensors[broken_name].clone()
        broken_tensors[broken_name].view(-1)[0] = float("nan")
        broken = tmp_path / "broken.safetensors"
        save_tensors(broken, broken_tensors, meta)
        with pytest.raises(CheckpointError, match=f"non-finite .* in {named};"):
            load_model(broken)


@pytest.mark.slow
@pytest.mark.parametrize("stop_at", [3, 7])
def test_stopped_inside_an_epoch_resumes_to_the_same_weights(tmp_path, stop_at):
    """A run stopped after any batch (state saved every batch here) and resumed ends with the
    uninterrupted run's weights, optimizer state and metrics (CPU, dropout on)."""
    train_items, dev_items = synthetic.items(120, seed=11), synthetic.items(24, seed=12)
    data = TrainingData(train_items, dev_items)
    cfg = dict(dropout=0.3, lr_decay=0.5, copy_examples=0.5)
    kw = dict(device="cpu", max_epochs=3, patience=10)
    train(tiny_config(**cfg), data, tmp_path / "a", **kw)

    def stop(event, info):  # a stop request at a batch boundary of epoch 2
        if event == "batch" and info["epoch"] == 2 and info["batch"] == stop_at:
            raise KeyboardInterrupt

    with pytest.raises(TrainingInterrupted, match=f"epoch 2, batch {stop_at} of"):
        train(tiny_config(**cfg), data, tmp_path / "b", checkpoint_seconds=0, progress=stop, **kw)
    result = train(None, data, tmp_path / "b", resume=True, **kw)
    assert result.epochs == 3
    for name in (MODEL_FILE, STATE_FILE):
        with (
            safe_open(str(tmp_path / "a" / name), "pt") as fa,
            safe_open(str(tmp_path / "b" / name), "pt") as fb,
        ):
            assert sorted(fa.keys()) == sorted(fb.keys())
            for k in fa.keys():  # noqa: SIM118
                assert torch.equal(fa.get_tensor(k), fb.get_tensor(k)), (name, k)
    drop = ["seconds", "cpu_seconds", "train_examples_per_s"]
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "a" / "metrics.csv").drop(columns=drop),
        pd.read_csv(tmp_path / "b" / "metrics.csv").drop(columns=drop),
    )


def _train_args(data: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "inflect", "train", "--lang", "deu", "--setting", "low",
        "--preset", "tiny", "--epochs", "3", "--device", "cpu", "--threads", "1",
        "--data-dir", str(data), "--out", str(out), *extra,
    ]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_killed_or_terminated_cli_run_resumes_to_the_same_weights(tmp_path, how):
    """`inflect train` killed (SIGKILL: the last periodic save is kept) or terminated (SIGTERM:
    saved at the next batch boundary, exit status 130) at a random moment, then `--resume` with
    no other option, ends with the weights of an uninterrupted run."""
    data = tmp_path / "data"
    data.mkdir()
    write_conll(data / "german-train-low", synthetic.items(400, seed=21))
    write_conll(data / "german-dev", synthetic.items(40, seed=22))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    done = subprocess.run(_train_args(data, tmp_path / "a"), env=env, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    proc = subprocess.Popen(
        _train_args(data, tmp_path / "b", "--checkpoint-minutes", "0"),
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    state = tmp_path / "b" / STATE_FILE
    deadline = time.time() + 60
    while time.time() < deadline and not (state.is_file() and state.stat().st_size > 0):
        time.sleep(0.05)
    # somewhere inside the training: a random share of the uninterrupted run's epoch time
    epochs_s = pd.read_csv(tmp_path / "a" / "metrics.csv")["seconds"].sum()
    time.sleep(random.Random().uniform(0.05, 0.6) * epochs_s)
    proc.send_signal(getattr(signal, how))
    proc.wait(timeout=60)
    if proc.returncode == 0 or run_status(tmp_path / "b") == "finished":
        # a SIGTERM after the trainer let its handler go ends the process with -SIGTERM
        pytest.skip("the run ended its training before the signal arrived (machine too fast)")
    assert proc.returncode == (130 if how == "SIGTERM" else -signal.SIGKILL)
    resumed = subprocess.run(
        [sys.executable, "-m", "inflect", "train", "--resume", "--out", str(tmp_path / "b"),
         "--data-dir", str(data), "--device", "cpu", "--threads", "1"],
        env=env, capture_output=True,
    )
    assert resumed.returncode == 0, resumed.stderr.decode()
    for name in (MODEL_FILE, STATE_FILE):
        with (
            safe_open(str(tmp_path / "a" / name), "pt") as fa,
            safe_open(str(tmp_path / "b" / name), "pt") as fb,
        ):
            for k in fa.keys():  # noqa: SIM118
                assert torch.equal(fa.get_tensor(k), fb.get_tensor(k)), (name, k)


def test_a_run_owns_its_folder(tmp_path):
    from filelock import FileLock

    items = synthetic.items(16, seed=1)
    with FileLock(str(tmp_path / ".lock")), pytest.raises(ValueError, match="in use by another"):
        train(tiny_config(), TrainingData(items, items), tmp_path, device="cpu", max_epochs=1)
    assert not (tmp_path / STATE_FILE).exists()
    # released at exit: the next run (or a resume) may take the folder
    train(tiny_config(), TrainingData(items, items), tmp_path, device="cpu", max_epochs=1)
    assert not (tmp_path / ".lock").exists()


def test_unwritable_run_folder_is_a_clear_error_before_any_work(tmp_path):
    items = synthetic.items(16, seed=1)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match=f"cannot write the run folder {blocker / 'run'}"):
        train(tiny_config(), TrainingData(items, items), blocker / "run", device="cpu")


def test_dev_sample_is_fixed_per_language():
    from inflect.training.dev import dev_sample

    items = synthetic.items(30, seed=1) + synthetic.items(5, seed=2, language="other")
    rows = dev_sample(items, 10)
    assert rows == sorted(rows) and rows == dev_sample(items, 10)  # deterministic, in order
    langs = [items[i].language for i in rows]
    assert langs.count("synth") == 10 and langs.count("other") == 5  # small ones kept whole
    assert dev_sample(items, 0) == list(range(35))


def test_language_shares_by_hand():
    from inflect.training.sampling import language_shares

    assert language_shares({"a": 900, "b": 100}, 1.0) == {"a": 900, "b": 100}
    # T = 2: weights sqrt(900) = 30 and sqrt(100) = 10 -> 1000 * 3/4 and 1000 * 1/4
    assert language_shares({"a": 900, "b": 100}, 2.0) == {"a": 750, "b": 250}
    # T = 100: weights 1, 1, 8^0.01 = 1.0210 -> 3.310, 3.310, 3.380; the total 10 is kept by
    # giving the one item left to the largest remainder
    assert language_shares({"a": 1, "b": 1, "c": 8}, 100.0) == {"a": 3, "b": 3, "c": 4}


def test_resume_reads_languages_and_setting_from_the_run(tmp_path):
    data = _german_low_data(tmp_path)
    out = tmp_path / "run"
    base = ["--preset", "tiny", "--device", "cpu", "--data-dir", str(data), "--out", str(out)]
    first = CliRunner().invoke(main, ["train", "--lang", "german", "--setting", "low",
                                      "--epochs", "1", *base])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(main, ["train", "--resume", "--epochs", "2", *base[2:]])
    assert again.exit_code == 0, again.output
    assert list(pd.read_csv(out / "metrics.csv").epoch) == [1, 2]
    # resumed once more, past its last epoch: says so, trains nothing (before: "epoch 3/2")
    weights = (out / "model.safetensors").read_bytes()
    done = CliRunner().invoke(main, ["train", "--resume", *base[2:]])
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "nothing to train: the run reached --epochs 2 at epoch 2; a larger --epochs" in text
    assert "epoch 3/2" not in text
    assert list(pd.read_csv(out / "metrics.csv").epoch) == [1, 2]
    assert (out / "model.safetensors").read_bytes() == weights
    assert CliRunner().invoke(main, ["train", "--out", str(tmp_path / "x")]).exit_code == 2


# --------------------------------------------------------------------------- warm start
def test_warm_start_begins_at_the_checkpoints_weights_and_records_it(tmp_path):
    train_items, dev_items = synthetic.items(64, seed=1), synthetic.items(16, seed=2)
    data = TrainingData(train_items, dev_items, description={"languages": ["synth"]})
    first = tmp_path / "first"
    train(tiny_config(), data, first, device="cpu", max_epochs=1)
    with safe_open(str(first / MODEL_FILE), "pt") as f:
        start = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118

    seen: dict[str, torch.Tensor] = {}

    def at_start(event, info):  # the state written before the first update
        if event == "start":
            with safe_open(str(tmp_path / "second" / STATE_FILE), "pt") as f:
                seen.update(
                    {k[6:]: f.get_tensor(k) for k in f.keys() if k.startswith("model.")}  # noqa: SIM118
                )

    config = tiny_config(learning_rate=2e-3, seed=7)
    train(config, data, tmp_path / "second", device="cpu", max_epochs=1, progress=at_start,
          init_from=first)
    assert seen.keys() == start.keys()
    assert all(torch.equal(seen[k], start[k]) for k in start)
    loaded = load_checkpoint(tmp_path / "second")
    config = Config.from_dict(loaded.metadata["model"]["config"])
    assert config.learning_rate == 2e-3 and config.seed == 7
    digest = hashlib.sha256((first / MODEL_FILE).read_bytes()).hexdigest()
    assert loaded.metadata["training"]["init_from"] == {"path": str(first), "sha256": digest}
    trained = load_model(tmp_path / "second").state_dict()
    assert any(not torch.equal(trained[k], start[k]) for k in start)  # and it was trained


def test_a_warm_start_keeps_its_record_when_its_last_epoch_is_not_selected(tmp_path, monkeypatch):
    # At the end of a run whose last epoch is not the best, the selected checkpoint's metadata is
    # written again with the whole metrics table; the warm start's record must survive that.
    train_items, dev_items = synthetic.items(64, seed=1), synthetic.items(16, seed=2)
    data = TrainingData(train_items, dev_items, description={"languages": ["synth"]})
    first = tmp_path / "first"
    train(tiny_config(), data, first, device="cpu", max_epochs=1)
    real_validate, scores = Trainer._validate, iter([0.9, 0.5])  # epoch 1 selected, epoch 2 not

    def scripted(self):
        dev_loss, dev_acc, _, languages = real_validate(self)
        return dev_loss, dev_acc, next(scores), languages

    monkeypatch.setattr(Trainer, "_validate", scripted)
    second = tmp_path / "second"
    train(tiny_config(), data, second, device="cpu", max_epochs=2, init_from=first)
    meta = load_checkpoint(second).metadata
    assert (meta["training"]["best_epoch"], meta["training"]["epoch"]) == (1, 2)
    assert [row["dev_score"] for row in meta["metrics"]] == [0.9, 0.5]
    digest = hashlib.sha256((first / MODEL_FILE).read_bytes()).hexdigest()
    assert meta["training"]["init_from"] == {"path": str(first), "sha256": digest}
    # a checkpoint that lost the record (written before the fix): resuming the finished run
    # writes it back and leaves the weights as they were
    tensors, stale = load_tensors(second / MODEL_FILE)
    del stale["training"]["init_from"]
    save_tensors(second / MODEL_FILE, tensors, stale)
    train(tiny_config(), data, second, device="cpu", resume=True)
    again, meta = load_tensors(second / MODEL_FILE)
    assert meta["training"]["init_from"] == {"path": str(first), "sha256": digest}
    assert again.keys() == tensors.keys() and all(torch.equal(again[k], tensors[k]) for k in tensors)


def test_warm_start_refuses_another_network_and_unknown_symbols(tmp_path):
    train_items, dev_items = synthetic.items(64, seed=1), synthetic.items(16, seed=2)
    data = TrainingData(train_items, dev_items)
    train(tiny_config(), data, tmp_path / "first", device="cpu", max_epochs=1)
    with pytest.raises(ValueError, match="hidden_dim"):
        train(tiny_config(hidden_dim=32), data, tmp_path / "b", device="cpu",
              init_from=tmp_path / "first")
    # a preset's network fields must be the checkpoint's too; its training fields apply
    with pytest.raises(ValueError, match="emb_dim: the checkpoint's 32, given 100"):
        initial_config(tmp_path / "first", "cpu-small")
    config = initial_config(tmp_path / "first", "tiny", learning_rate=3e-3, patience=2)
    assert (config.learning_rate, config.patience, config.max_epochs) == (3e-3, 2, 60)
    odd = [synthetic.Item(("q", "☃"), it.features, it.language, ("☃",)) for it in train_items[:2]]
    with pytest.raises(ValueError, match="'☃'"):
        train(tiny_config(), TrainingData(train_items + odd, dev_items), tmp_path / "c",
              device="cpu", init_from=tmp_path / "first")
    with pytest.raises(ValueError, match="--resume"):
        train(tiny_config(), data, tmp_path / "first", device="cpu", resume=True,
              init_from=tmp_path / "first")


def test_cli_init_from_keeps_the_network_and_takes_the_training_options(tmp_path):
    data = _german_low_data(tmp_path)
    first = tmp_path / "first"
    args = [*_cli_train_args(data, "deu", "sparsemax")]
    assert CliRunner().invoke(main, [*args, "--out", str(first)]).exit_code == 0
    plain = ["train", "--lang", "deu", "--setting", "low", "--epochs", "1", "--device", "cpu",
             "--data-dir", str(data), "--init-from", str(first)]
    ok = CliRunner().invoke(main, [*plain, "--learning-rate", "0.002", "--out", str(tmp_path / "b")])
    assert ok.exit_code == 0, ok.output
    config = run_config(tmp_path / "b")
    assert (config.attention_mapping, config.output_mapping) == ("sparsemax", "softmax")
    assert (config.learning_rate, config.preset) == (0.002, "tiny")
    bad = CliRunner().invoke(main, [*plain, "--attention", "entmax15", "--out", str(tmp_path / "c")])
    assert bad.exit_code != 0 and "attention_mapping" in bad.output and "sparsemax" in bad.output
    both = CliRunner().invoke(main, [*plain, "--resume", "--out", str(first)])
    assert both.exit_code == 2 and "--resume" in both.output


def test_train_help_gives_each_presets_defaults():
    """`train --help` names the defaults, which come from the preset; the
    figures it prints are checked against the presets themselves."""
    from inflect.training.config import PRESETS

    text = " ".join(CliRunner().invoke(main, ["train", "--help"], terminal_width=300,
                                       max_content_width=300).output.split())
    for option, field in (("--epochs", "max_epochs"), ("--patience", "patience")):
        said = text.split(f"{option} INTEGER RANGE", 1)[1].split(" --", 1)[0]
        for name in PRESETS:
            assert f"{name} {Config.from_preset(name).to_dict()[field]}" in said, (option, name)
    said = text.split("--batch-size INTEGER RANGE", 1)[1].split(" --", 1)[0]
    for name in PRESETS:
        value = Config.from_preset(name).to_dict()["batch_size"]
        assert f"{name} {value}" in said or f"{name} and cpu-small-plain {value}" in said, name


def test_a_training_log_in_a_file_has_whole_lines_and_no_bar(tmp_path):
    """Not on a terminal, `train` writes its lines only (no progress bar, so
    no "0:00:… left"), each whole, however long (rich wrapped them at 80 columns)."""
    data = _german_low_data(tmp_path)
    args = [*_cli_train_args(data, "deu", "softmax"), "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert not any("left in epoch" in line or "…" in line for line in lines)
    start = next(line for line in lines if line.startswith("device cpu"))
    assert start.rstrip().endswith("dev examples") and len(start) > 80  # one line, not wrapped
    assert any(line.startswith("epoch   1  train loss") for line in lines)
