"""Data-parallel training (inflect.training.distributed, the trainer under torchrun) on CPU with gloo.

The reference is the plain single-process trainer: two processes with batch B each must make the
updates of one process with batch 2B (same seed, dropout 0), and a data-parallel run stopped
inside an epoch and resumed must end where the uninterrupted one does (dropout on).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest
import synthetic
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from safetensors import safe_open

from inflect.nn.checkpoint import MODEL_FILE, STATE_FILE, load_checkpoint
from inflect.training.config import Config
from inflect.training.distributed import World
from inflect.training.items import TrainingData
from inflect.training.results import TrainingInterrupted
from inflect.training.sampling import every_process_a_share
from inflect.training.trainer import train

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py

EPOCHS = 2
# float32 products (a CPU with bfloat16 products would round the two splits of a batch apart)


def _data() -> TrainingData:
    # 100 rows: batches of 16 and a last one of 4 (shared 2 / 2 by two processes)
    return TrainingData(synthetic.items(100, seed=7), synthetic.items(24, seed=8))


def _run_config(out: Path) -> Config:
    """The whole config stored in run folder ``out``'s model checkpoint."""
    return Config.from_dict(load_checkpoint(out).metadata["model"]["config"])


def _config(batch_size: int, dropout: float) -> Config:
    return Config.from_preset("tiny", batch_size=batch_size, dropout=dropout, lr_decay=0.5)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _StopAt:
    """A progress callback asking to stop after ``batch`` of ``epoch`` (picklable)."""

    def __init__(self, epoch: int, batch: int) -> None:
        self.epoch, self.batch = epoch, batch

    def __call__(self, event: str, info: dict) -> None:
        if event == "batch" and (info["epoch"], info["batch"]) == (self.epoch, self.batch):
            raise KeyboardInterrupt


def _process(rank: int, world: int, port: int, root: str) -> None:
    """One of the processes of the data-parallel runs (what torchrun would start)."""
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RANK=str(rank),
        WORLD_SIZE=str(world),
        LOCAL_RANK=str(rank),
    )
    torch.set_num_threads(1)
    # one process group for the runs of this process (each run leaves it as found)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=120))
    try:
        _runs(Path(root))
    finally:
        dist.destroy_process_group()


def _runs(out: Path) -> None:
    data = _data()
    kw = dict(device="cpu", max_epochs=EPOCHS, patience=10, precision="float32")
    train(_config(8, 0.0), data, out / "ddp", **kw)
    train(_config(8, 0.3), data, out / "ddp-dropout", **kw)
    try:  # stopped by rank 0's callback: every process stops at that batch
        train(
            _config(8, 0.3),
            data,
            out / "ddp-resumed",
            checkpoint_seconds=1e9,
            progress=_StopAt(2, 3),
            **kw,
        )
    except TrainingInterrupted:
        pass
    else:
        raise AssertionError("the stop request did not stop the data-parallel run")
    train(None, data, out / "ddp-resumed", resume=True, **kw)
    # inside an epoch, a run continues only with as many processes as it had
    try:
        train(None, data, out / "stopped", resume=True, **kw)
    except ValueError as exc:
        assert "with 1 process(es); resume it with 1" in str(exc), exc
    else:
        raise AssertionError("a one-process run was resumed inside an epoch by two")


def _tensors(run: Path, name: str) -> dict[str, torch.Tensor]:
    with safe_open(str(run / name), "pt") as f:
        return {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118


def _weights(run: Path) -> dict[str, torch.Tensor]:
    return {k: v for k, v in _tensors(run, STATE_FILE).items() if k.startswith("model.")}


@pytest.mark.slow
def test_two_processes_with_batch_b_make_the_updates_of_one_with_batch_2b(tmp_path):
    data = _data()
    kw = dict(device="cpu", max_epochs=EPOCHS, patience=10, precision="float32")
    with pytest.raises(TrainingInterrupted):  # for the processes to try to resume
        train(
            _config(8, 0.3),
            data,
            tmp_path / "stopped",
            checkpoint_seconds=1e9,
            progress=_StopAt(1, 2),
            **kw,
        )
    mp.spawn(_process, args=(2, _free_port(), str(tmp_path)), nprocs=2, join=True)
    train(_config(16, 0.0), data, tmp_path / "single-2b", **kw)
    train(_config(8, 0.0), data, tmp_path / "single-b", **kw)

    ddp, single = _weights(tmp_path / "ddp"), _weights(tmp_path / "single-2b")
    assert sorted(ddp) == sorted(single)
    for k in single:
        torch.testing.assert_close(ddp[k], single[k], rtol=1e-4, atol=1e-5, msg=k)
    # the control: one process with batch B alone (half of every update) ends elsewhere
    half = _weights(tmp_path / "single-b")
    assert max((half[k] - single[k]).abs().max().item() for k in single) > 1e-3
    # the metrics (train loss over both processes' rows, dev on rank 0) are the single run's
    drop = ["seconds", "cpu_seconds", "train_examples_per_s"]
    a = pd.read_csv(tmp_path / "ddp" / "metrics.csv").drop(columns=drop)
    b = pd.read_csv(tmp_path / "single-2b" / "metrics.csv").drop(columns=drop)
    pd.testing.assert_frame_equal(a, b, rtol=1e-4)
    assert len(a) == EPOCHS
    assert _run_config(tmp_path / "ddp").batch_size == 8
    # only rank 0 wrote the folder; no lock left behind
    assert not (tmp_path / "ddp" / ".lock").exists()

    # stopped inside epoch 2 and resumed with two processes: the uninterrupted run's weights,
    # optimizer state, every process's random state and metrics (dropout on)
    uninterrupted = _tensors(tmp_path / "ddp-dropout", STATE_FILE)
    resumed = _tensors(tmp_path / "ddp-resumed", STATE_FILE)
    assert "rng.rank1.cpu" in resumed and sorted(resumed) == sorted(uninterrupted)
    for k, v in uninterrupted.items():
        assert torch.equal(v, resumed[k]), k
    for name in (MODEL_FILE,):
        x, y = _tensors(tmp_path / "ddp-dropout", name), _tensors(tmp_path / "ddp-resumed", name)
        assert all(torch.equal(x[k], y[k]) for k in x)
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "ddp-dropout" / "metrics.csv").drop(columns=drop),
        pd.read_csv(tmp_path / "ddp-resumed" / "metrics.csv").drop(columns=drop),
    )


def test_world_from_the_environment():
    assert World.from_environment({}) == World()
    w = World.from_environment({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1"})
    assert (w.rank, w.size, w.local_rank, w.is_main) == (3, 4, 1, False)
    assert w.place(torch.device("cuda")) == torch.device("cuda", 1)
    assert w.place(torch.device("cpu")) == torch.device("cpu")
    assert World().place(torch.device("cuda")) == torch.device("cuda")
    with pytest.raises(ValueError, match="WORLD_SIZE='two'"):
        World.from_environment({"WORLD_SIZE": "two"})
    with pytest.raises(ValueError, match="RANK=2 and WORLD_SIZE=2"):
        World.from_environment({"RANK": "2", "WORLD_SIZE": "2"})
    # a world of one: every collective returns its input
    assert World().sum_counts(torch.tensor(2.5), 7) == (2.5, 7)
    assert World().agree(True, False) == (True, False)
    assert World().from_main(lambda: 41 + 1) == 42 and World().gather("x") == ["x"]


def test_every_process_gets_rows_of_every_update():
    # by hand: the 1-row batch cannot be shared by 2 processes; its row joins the last full one
    assert every_process_a_share([[1, 2, 3], [4], [5, 6]], 2) == [[1, 2, 3], [5, 6, 4]]
    assert every_process_a_share([[1, 2], [3, 4]], 2) == [[1, 2], [3, 4]]
    assert every_process_a_share([[1]], 1) == [[1]]


@pytest.mark.slow
def test_torchrun_trains_one_model_on_two_processes(tmp_path):
    """`torchrun --nproc-per-node 2 -m inflect train` (gloo): one run folder, one log."""
    from test_train import write_conll

    data = tmp_path / "data"
    data.mkdir()
    write_conll(data / "german-train-low", synthetic.items(48, seed=1))
    write_conll(data / "german-dev", synthetic.items(16, seed=2))
    out = tmp_path / "run"
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
        "-m", "inflect", "train", "--lang", "deu", "--setting", "low", "--preset", "tiny",
        "--epochs", "1", "--device", "cpu", "--data-dir", str(data), "--out", str(out),
    ]  # fmt: skip
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count("world size 2 (torch.distributed), 32 examples per update") == 1
    assert done.stderr.count("best dev accuracy") == 1  # rank 0 alone speaks
    assert list(pd.read_csv(out / "metrics.csv").epoch) == [1]
    assert _run_config(out).batch_size == 16


def test_python_dash_m_inflect_is_the_command_line():
    """What `torchrun -m inflect` runs: the `inflect` command (its help lists `train`)."""
    done = subprocess.run(
        [sys.executable, "-m", "inflect", "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: inflect ") and "  train " in done.stdout
