"""Every benchmark script runs, at a tiny size, so that none can rot unnoticed (a
benchmark once pointed at a renamed model folder and nothing noticed). Speed itself is never asserted
here: the benchmarks print ratios measured in one run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"

#: Each benchmark script -> the options of its tiny run and a word its output must contain;
#: {data} is the shared-task folder, {repo} this checkout (compared with itself).
TINY = {
    "bench_sparse.py": (["--small", "--repeats", "1", "--target-ms", "1", "--threads", "1"],
                        "entmax"),
    "bench_train.py": (["--data-dir", "{data}", "--setting", "low", "--preset", "tiny",
                        "--epochs", "1", "--repeats", "1", "--against", "{repo}"], "speed-up"),
    "bench_paradigm.py": (["--repeat", "1", "--separate", "1", "--threads", "1", "--no-warm"],
                          "cold paradigm"),
    "bench_predict.py": (["--data-dir", "{data}", "--n", "8", "--repeat", "1", "--threads", "1",
                          "--against", "{repo}"], "german-dev inputs"),
    "bench_serve.py": [
        (["--data-dir", "{data}", "--n", "8", "--requests", "4", "--clients", "2", "--repeat", "1",
          "--threads", "1", "--no-lexicon", "--post-size", "4", "--post-requests", "1"],
         "throughput"),
        (["--data-dir", "{data}", "--bulk", "--bulk-clients", "1", "--bulk-size", "6",
          "--word-requests", "3", "--threads", "1", "--lexicons", "none"], "inputs searched/s"),
    ],
    "bench_spacy.py": (["--data-dir", "{data}", "--n", "8", "--repeat", "1", "--threads", "1"],
                       "same form"),
}
#: Every tiny run: (script, options, expected word); a script may have several (a list).
RUNS = [(script, *run) for script, runs in TINY.items()
        for run in (runs if isinstance(runs, list) else [runs])]


def test_every_benchmark_script_has_a_tiny_run():
    assert sorted(p.name for p in BENCHMARKS.glob("bench_*.py")) == sorted(TINY)


@pytest.mark.parametrize(("script", "options", "expected"), RUNS,
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(RUNS)])
def test_benchmark_runs_at_a_tiny_size(script, options, expected, conll2018, tmp_path):
    args = [a.format(data=conll2018, repo=REPO) for a in options]
    env = os.environ | {"PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert expected in done.stdout, done.stdout[-3000:]
