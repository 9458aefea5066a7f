"""Training speed of the real trainer: whole ``inflect train`` commands, ratios in the same run.

Two modes, both printing ratios against a reference measured in the same run:

* ``--against PATH`` (another checkout of sparse-inflect, e.g. an older commit in a git worktree):
  the same ``inflect train`` command is run with this checkout's code and with PATH's
  (``PYTHONPATH``), interleaved, ``--repeats`` times each; the best (smallest) wall time and the
  best CPU time (user + system of the child process) of each are compared, and the per-epoch dev
  accuracy of both is printed (same seed), since the speed is only worth having for the same
  result. CPU time is the robust figure on a shared machine: it does not count the time the
  process waited for a core.
* no ``--against``: softmax/softmax, sparsemax/sparsemax and 1.5-entmax/1.5-entmax trained by the
  trainer for ``--epochs`` epochs each, examples per second and peak memory (the child's peak
  resident set on CPU, ``torch.cuda.max_memory_allocated`` on CUDA), as ratios to
  softmax/softmax.

Usage::

    python benchmarks/bench_train.py --against ../base --data-dir ../shared/data \\
        [--lang german] [--setting medium] [--preset cpu-small] [--epochs 4] [--repeats 2]
    python benchmarks/bench_train.py --data-dir ../shared/data --epochs 1 [--device cuda]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAIRS = (("softmax", "softmax"), ("sparsemax", "sparsemax"), ("entmax15", "entmax15"))
HERE = Path(__file__).resolve().parent.parent
#: The child: the CLI, then its peak memory (MiB) written to $BENCH_MEMORY at exit (host RSS, or
#: the CUDA allocator's peak when it used CUDA).
CHILD = """
import atexit, os, resource, sys

def _peak():
    mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.max_memory_allocated():
        mib = torch.cuda.max_memory_allocated() / 2**20
    with open(os.environ["BENCH_MEMORY"], "w") as fh:
        fh.write(str(mib))

atexit.register(_peak)
from inflect.cli import main
sys.exit(main())
"""


def train_command(args: argparse.Namespace, out: Path, attention: str, output: str) -> list[str]:
    """The ``inflect train`` command line, run as ``python -P -c`` so that the code comes from
    PYTHONPATH (``-P``: the working directory is not put first on the import path)."""
    cmd = [
        sys.executable,
        "-P",
        "-c",
        CHILD,
        "train",
        "--lang",
        args.lang,
        "--setting",
        args.setting,
        "--preset",
        args.preset,
        "--attention",
        attention,
        "--output",
        output,
        "--epochs",
        str(args.epochs),
        "--patience",
        str(args.epochs + 5),
        "--seed",
        "1",
        "--threads",
        str(args.threads),
        "--device",
        args.device,
        "--out",
        str(out),
    ]
    if args.data_dir:
        cmd += ["--data-dir", args.data_dir]
    return cmd


def timed_run(cmd: list[str], code: Path) -> dict[str, float]:
    """Run ``cmd`` with ``code`` first on PYTHONPATH; wall and CPU seconds, peak RSS (MiB)."""
    with tempfile.NamedTemporaryFile(suffix=".mib") as memory:
        env = dict(
            os.environ,
            PYTHONPATH=str(code),
            OMP_NUM_THREADS=cmd[cmd.index("--threads") + 1],
            BENCH_MEMORY=memory.name,
        )
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[3:])} failed:\n{proc.stderr[-3000:]}")
        peak = float(Path(memory.name).read_text() or "nan")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak_mib": peak}


def dev_accuracy(out: Path) -> list[float]:
    import csv

    with open(out / "metrics.csv", encoding="utf-8") as fh:
        return [float(row["dev_accuracy"]) for row in csv.DictReader(fh)]


def compare(args: argparse.Namespace) -> None:
    """This checkout against ``--against``: the same command, interleaved, best of repeats."""
    codes = {"this": HERE, "reference": Path(args.against).resolve()}
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in codes}
    accuracy: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for name, code in codes.items() if r % 2 == 0 else reversed(codes.items()):
                out = Path(tmp) / f"{name}-{r}"
                runs[name].append(timed_run(train_command(args, out, "entmax15", "entmax15"), code))
                accuracy.setdefault(name, dev_accuracy(out))
                print(
                    f"  {name} run {r + 1}: {runs[name][-1]['wall']:.1f} s wall, "
                    f"{runs[name][-1]['cpu']:.1f} s CPU",
                    flush=True,
                )
    best = {k: {m: min(x[m] for x in v) for m in ("wall", "cpu")} for k, v in runs.items()}
    print(
        f"\ninflect train --lang {args.lang} --setting {args.setting} --preset {args.preset} "
        f"--attention entmax15 --output entmax15 --epochs {args.epochs} --seed 1 "
        f"--threads {args.threads}; best of {args.repeats}, interleaved"
    )
    print(f"{'code':10s} {'wall s':>8s} {'CPU s':>8s}  dev accuracy per epoch")
    for name in codes:
        acc = " ".join(f"{a:5.1f}" for a in accuracy[name])
        print(f"{name:10s} {best[name]['wall']:8.1f} {best[name]['cpu']:8.1f}  {acc}")
    for m in ("wall", "cpu"):
        print(f"speed-up ({m} time): {best['reference'][m] / best['this'][m]:.2f}x")


def measure(args: argparse.Namespace, attention: str, output: str) -> dict[str, float]:
    """Train in a child process with the trainer; examples per second of the training part."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        figures = timed_run(train_command(args, out, attention, output), HERE)
        import csv

        with open(out / "metrics.csv", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    rate = sum(float(r["train_examples_per_s"]) for r in rows) / len(rows)
    return {"examples_per_s": rate, "peak_mib": figures["peak_mib"]}


def mappings(args: argparse.Namespace) -> None:
    results = {pair: measure(args, *pair) for pair in PAIRS}
    ref = results[PAIRS[0]]
    print(
        f"{args.lang} {args.setting}, preset {args.preset}, {args.epochs} epoch(s), "
        f"{args.threads} thread(s), device {args.device}"
    )
    print(
        f"{'attention/output':24s} {'examples/s':>10s} {'ratio':>6s} {'peak MiB':>9s} {'ratio':>6s}"
    )
    for (attention, output), r in results.items():
        print(
            f"{attention + '/' + output:24s} {r['examples_per_s']:10.1f} "
            f"{r['examples_per_s'] / ref['examples_per_s']:6.2f} {r['peak_mib']:9.1f} "
            f"{r['peak_mib'] / max(ref['peak_mib'], 1e-9):6.2f}"
        )
    print(json.dumps({f"{a}/{o}": r for (a, o), r in results.items()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default=None, help="another checkout to compare with")
    parser.add_argument("--lang", default="german")
    parser.add_argument("--setting", default="medium")
    parser.add_argument("--preset", default="cpu-small")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    if args.against:
        compare(args)
    else:
        mappings(args)


if __name__ == "__main__":
    main()
