"""Prediction throughput and the wall time of one cold `inflect predict` query.

1. Throughput: the first ``--n`` (1,000) inputs of german-dev (forms ignored), beam 5, on the CPU,
   with the single model and with the ensemble (``--model`` repeated; a single checkpoint is
   ensembled with itself as a stand-in, which costs the same as two different members). Each is
   measured as `inflect predict` runs by default (``auto``: beam 5, widened to 20 where the beam
   is not certified full support) and with the beam 5 n-best list only (``never``). Also printed: exact-match
   accuracy against the dev forms and the shares of inputs certified full support / mode only /
   whose whole probability sits on one form.
2. Cold query: ``inflect predict --model M --lang german Haus "N;DAT;PL" --format tsv`` in a fresh
   subprocess (median of ``--repeat`` runs), then where the time goes: a fresh process timing
   ``import torch``, the inflect imports of the command, loading the checkpoint and the search,
   and ``python -X importtime`` of the command's imports (largest modules).

Ratios are against a reference measured in the same run: throughput against the single model with
the beam alone (``never``); the cold query against its own ``import torch``. A peer's figures
(yoyodyne 0.5.27, cited in issue 5) are printed as a citation only, with no ratio: they were
measured in another run under another load. Target: cold query < 2 s.

Usage::

    python benchmarks/bench_predict.py --model runs/de [--model runs/de-2] [--n 1000]
        [--threads 1] [--repeat 3] [--data-dir ../shared/data/conll2018-task1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

CITED_PEER = (
    "yoyodyne 0.5.27 (soft-attention LSTM, 2.5M parameters), as cited in issue 5: about 66 words/s "
    "with beam 5 and 4.1-4.5 s for one cold query; measured elsewhere, so no ratio is computed"
)
QUERY = ["Haus", "N;DAT;PL"]

_STAGES = r"""
import sys, time, json
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
import inflect.cli, inflect.predict, inflect.report, inflect.models
t2 = time.perf_counter()
torch.set_num_threads({threads})
p = inflect.predict.load_predictor({models!r}, "german")
t3 = time.perf_counter()
r = p.predict({lemma!r}, {tags!r}, "german")
t4 = time.perf_counter()
inflect.report.prediction_tsv(r)
print(json.dumps({{"import torch": t1 - t0, "import inflect (cli, predict, report)": t2 - t1,
                  "load checkpoint(s)": t3 - t2, "search + decode": t4 - t3,
                  "heavy": [m for m in ("pandas", "pyarrow", "rich.progress", "inflect.train")
                            if m in sys.modules]}}))
"""


def throughput(
    models: list[str], queries: list, gold: list[str], support: str, threads: int, chunk: int
) -> dict[str, float]:
    import warnings

    import torch

    from inflect.predict import Predictor
    from inflect.search import Certificate
    from inflect.vocab import UnknownSymbolWarning

    warnings.simplefilter("ignore", UnknownSymbolWarning)  # dev has letters unseen in training
    torch.set_num_threads(threads)
    predictor = Predictor.from_checkpoints(models, beam_size=5, support=support, chunk_size=chunk)
    predictor.predict_many(queries[:chunk])  # warm-up
    t0 = time.perf_counter()
    preds = predictor.predict_many(queries)
    seconds = time.perf_counter() - t0
    n = len(preds)
    return {
        "words_per_s": n / seconds,
        "seconds": seconds,
        "accuracy": 100
        * sum(p.best is not None and p.best.form == g for p, g in zip(preds, gold, strict=True))
        / n,
        "full_support": 100 * sum(p.certificate is Certificate.FULL_SUPPORT for p in preds) / n,
        "mode_only": 100 * sum(p.certificate is Certificate.MODE_ONLY for p in preds) / n,
        "single_form": 100 * sum(p.complete and len(p.forms) == 1 for p in preds) / n,
    }


def cold(models: list[str], repeat: int, threads: int) -> dict[str, object]:
    exe = shutil.which("inflect") or str(Path(sys.executable).with_name("inflect"))
    cmd = [exe, "predict", "--lang", "german", *QUERY, "--format", "tsv"]
    for m in models:
        cmd[2:2] = ["--model", m]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    walls, out = [], ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
        walls.append(time.perf_counter() - t0)
        out = res.stdout.strip()
    script = _STAGES.format(threads=threads, models=models, lemma=QUERY[0], tags=QUERY[1])
    stages = json.loads(
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
        ).stdout
    )
    imp = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            "import inflect.cli, inflect.predict, inflect.report, inflect.models",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stderr
    rows = []
    for line in imp.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            name = parts[2].rstrip()
            if len(name) - len(name.lstrip()) <= 2:  # top-level imports of the command
                rows.append((int(parts[1]) / 1e6, name.strip()))
    rows.sort(reverse=True)
    heavy = stages.pop("heavy")
    return {
        "cold_s": statistics.median(walls),
        "walls": walls,
        "output": out,
        "stages": stages,
        "imports": rows[:8],
        "heavy_imports": heavy,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", required=True, help="checkpoint (repeatable)")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--skip-throughput", action="store_true")
    args = ap.parse_args()

    from inflect.data import load_split
    from inflect.predict import make_query

    print(f"cited, not measured: {CITED_PEER}")
    print(f"threads {args.threads}")
    if not args.skip_throughput:
        dev = load_split("german", "dev", args.data_dir)[: args.n]
        queries = [make_query(e.lemma, e.tags, "german") for e in dev]
        gold = [e.form for e in dev]
        ensemble = args.model if len(args.model) > 1 else args.model * 2
        print(
            f"throughput on {len(queries)} german-dev inputs, beam 5, CPU "
            "(ratio: against the single model with support=never, this run):"
        )
        ref = None
        for label, models in (("single", args.model[:1]), (f"ensemble x{len(ensemble)}", ensemble)):
            for support in ("never", "auto"):
                r = throughput(models, queries, gold, support, args.threads, args.chunk)
                ref = ref or r["words_per_s"]
                print(
                    f"  {label:12s} support={support:5s} {r['words_per_s']:7.1f} words/s "
                    f"({r['words_per_s'] / ref:4.2f}x)  acc {r['accuracy']:5.1f}%"
                    f"  full support {r['full_support']:5.1f}%  mode only {r['mode_only']:5.1f}%"
                    f"  one form {r['single_form']:5.1f}%"
                )
    c = cold(args.model[:1], args.repeat, args.threads)
    print(
        f"cold `inflect predict` query: median {c['cold_s']:.2f} s "
        f"(runs: {', '.join(f'{w:.2f}' for w in c['walls'])}; "
        f"{c['cold_s'] / c['stages']['import torch']:.1f}x its `import torch`; target < 2 s)"
    )
    print(f"  output: {c['output']}")
    print("  where the time goes (fresh process):")
    for name, s in c["stages"].items():
        print(f"    {name:40s} {s:6.2f} s")
    print("  largest imports (python -X importtime, cumulative):")
    for s, name in c["imports"]:
        print(f"    {name:40s} {s:6.2f} s")
    print(f"  heavy modules imported: {c['heavy_imports'] or 'none'}")


if __name__ == "__main__":
    main()
