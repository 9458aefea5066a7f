"""Batch prediction speed: the whole `inflect predict` command against another checkout, the
in-process throughput, and the wall time of one cold query.

1. Whole command (always): ``inflect predict --model M... --lang german --input FILE --format
   jsonl`` on the first ``--n`` (1,000) german-dev inputs, default search (beam 5, widened where
   not certified), ``--threads`` CPU threads, in fresh processes. With ``--against PATH`` the same
   command of the checkout at PATH (``PYTHONPATH=PATH``, run from an empty folder so that neither
   checkout shadows the other) runs in the same benchmark run with the same members, interleaved
   (A B A B ...), and the best of ``--repeat`` (2) is kept per checkout: wall time, and the
   process CPU time (user + system of the child; steadier than wall time on a loaded machine).
   Also printed: how often the two checkouts give the same most probable form.
2. ``--throughput``: the same inputs through :class:`inflect.inference.predictor.Predictor` in this process,
   single model and ensemble, ``support`` never and auto, with accuracy and certificate shares;
   ratios against the single model with the beam alone (``never``) measured in the same run.
3. ``--cold``: one `inflect predict` query in a fresh process (median of ``--repeat``), and where
   its time goes (imports, loading, search); its ratio is against its own ``import torch``.
   Target: < 2 s.

A peer's published figures (yoyodyne 0.5.27) are printed as a citation only, with no
ratio: they were measured in another run under another load.

Usage::

    python benchmarks/bench_predict.py --data-dir ../shared/data/conll2018-task1 --threads 2 \\
        --against ../main-at-890871e [--model M --model M2] [--n 1000] [--repeat 2]

The default members are those of the shipped model serving German in this checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
QUERY = ["Haus", "N;DAT;PL"]
CITED_PEER = (
    "yoyodyne 0.5.27 (soft-attention LSTM, 2.5M parameters), as published: about 66 words/s "
    "with beam 5 and 4.1-4.5 s for one cold query; measured elsewhere, so no ratio is computed"
)

_STAGES = r"""
import sys, time, json
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
import inflect.cli, inflect.inference.predictor, inflect.render.tsv, inflect.inference.registry
t2 = time.perf_counter()
torch.set_num_threads({threads})
p = inflect.inference.predictor.load_predictor({models!r}, "german")
t3 = time.perf_counter()
r = p.predict({lemma!r}, {tags!r}, "german")
t4 = time.perf_counter()
inflect.render.tsv.prediction_tsv(r)
print(json.dumps({{"import torch": t1 - t0, "import inflect (cli, predict, report)": t2 - t1,
                  "load checkpoint(s)": t3 - t2, "search + decode": t4 - t3}}))
"""


def _predict_command(models: list[str], *args: str) -> list[str]:
    """``python -m inflect.cli predict --lang german ARGS --model M ...``."""
    cmd = [sys.executable, "-m", "inflect.cli", "predict", "--lang", "german", *args]
    for m in models:
        cmd += ["--model", m]
    return cmd


def _predict_options(checkout: Path, env: dict[str, str], cwd: str) -> set[str]:
    """Which of ``--threads`` (older checkouts read OMP_NUM_THREADS only) and ``--no-lexicon``
    (older checkouts have no lexicon: the model alone is what both are timed on) that
    checkout's `inflect predict` has."""
    out = subprocess.run(
        [sys.executable, "-m", "inflect.cli", "predict", "--help"],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {flag for flag in ("--threads", "--no-lexicon") if flag in out}


def run_command(
    checkout: Path,
    models: list[str],
    inputs: Path,
    threads: int,
    cwd: str,
    env: dict[str, str],
    options: set[str],
) -> dict[str, object]:
    """One whole `inflect predict` run of ``checkout`` (the model alone, where the checkout has a
    lexicon): wall and CPU seconds, top forms."""
    cmd = _predict_command(models, "--input", str(inputs), "--format", "jsonl")
    if "--threads" in options:
        cmd += ["--threads", str(threads)]
    if "--no-lexicon" in options:
        cmd.append("--no-lexicon")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(
        cmd,
        cwd=cwd,
        env={**env, "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tops = []
    for line in res.stdout.splitlines():
        forms = json.loads(line)["forms"]
        tops.append(forms[0]["form"] if forms else None)
    return {"wall": wall, "cpu": cpu, "tops": tops}


def compare_commands(
    models: list[str], dev: list, against: Path | None, threads: int, repeat: int
) -> None:
    checkouts = {"this checkout": HERE} | ({f"against ({against})": against} if against else {})
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    with tempfile.TemporaryDirectory() as cwd:
        inputs = Path(cwd) / "german-dev-head"
        inputs.write_text(
            "".join(f"{e.lemma}\t{e.form}\t{e.tags.text}\n" for e in dev), encoding="utf-8"
        )
        flags = {name: _predict_options(path, env, cwd) for name, path in checkouts.items()}
        runs: dict[str, list[dict[str, object]]] = {name: [] for name in checkouts}
        for _ in range(repeat):  # interleaved: A B A B
            for name, path in checkouts.items():
                runs[name].append(run_command(path, models, inputs, threads, cwd, env, flags[name]))
    print(
        f"whole `inflect predict` command, {len(dev)} german-dev inputs, {len(models)} "
        f"member(s), the model alone, default search (beam 5, widened where not certified), {threads} "
        f"thread(s), best of {repeat} interleaved runs:"
    )
    best = {
        name: (min(r["wall"] for r in rs), min(r["cpu"] for r in rs)) for name, rs in runs.items()
    }
    ref = list(best)[-1]
    print(
        f"  {'checkout':52s} {'wall s':>8s} {'CPU s':>8s} {'words/s':>8s}  "
        f"{'wall ratio':>10s} {'CPU ratio':>9s}"
    )
    for name, (wall, cpu) in best.items():
        print(
            f"  {name:52s} {wall:8.2f} {cpu:8.2f} {len(dev) / wall:8.1f}  "
            f"{best[ref][0] / wall:9.2f}x {best[ref][1] / cpu:8.2f}x"
        )
    for name, rs in runs.items():
        walls = ", ".join(f"{r['wall']:.2f}" for r in rs)
        cpus = ", ".join(f"{r['cpu']:.2f}" for r in rs)
        print(f"  {name}: runs wall {walls} s; CPU {cpus} s")
    if against:
        a, b = (runs[name][0]["tops"] for name in checkouts)
        same = sum(x == y for x, y in zip(a, b, strict=True))
        print(f"  same most probable form: {same} of {len(a)} ({100 * same / len(a):.1f}%)")
    gold = [e.form for e in dev]
    for name, rs in runs.items():
        acc = sum(t == g for t, g in zip(rs[0]["tops"], gold, strict=True)) / len(gold)
        print(f"  {name}: exact match {100 * acc:.1f}%")


def throughput(
    models: list[str], queries: list, gold: list[str], support: str, threads: int, chunk: int | None
) -> dict[str, float]:
    import warnings

    import torch

    from inflect.decoding.protocol import Certificate
    from inflect.inference.predictor import Predictor
    from inflect.nn.vocab import UnknownSymbolWarning

    warnings.simplefilter("ignore", UnknownSymbolWarning)  # dev has letters unseen in training
    torch.set_num_threads(threads)
    options = {"chunk_size": chunk} if chunk else {}
    predictor = Predictor.from_checkpoints(models, support=support, **options)
    predictor.predict_many(queries[:16])  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    preds = predictor.predict_many(queries)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = len(preds)
    return {
        "words_per_s": n / seconds,
        "cpu": cpu,
        "accuracy": 100
        * sum(p.best is not None and p.best.form == g for p, g in zip(preds, gold, strict=True))
        / n,
        "full_support": 100 * sum(p.certificate is Certificate.FULL_SUPPORT for p in preds) / n,
        "mode_only": 100 * sum(p.certificate is Certificate.MODE_ONLY for p in preds) / n,
        "single_form": 100 * sum(p.complete and len(p.forms) == 1 for p in preds) / n,
    }


def cold(models: list[str], repeat: int, threads: int) -> None:
    cmd = _predict_command(models, *QUERY, "--format", "tsv", "--threads", str(threads))
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, text=True, env=env, check=True, cwd=HERE)
        walls.append(time.perf_counter() - t0)
    script = _STAGES.format(threads=threads, models=models, lemma=QUERY[0], tags=QUERY[1])
    stages = json.loads(
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd=HERE,
        ).stdout
    )
    median = statistics.median(walls)
    print(
        f"cold `inflect predict` query: median {median:.2f} s "
        f"(runs: {', '.join(f'{w:.2f}' for w in walls)}; "
        f"{median / stages['import torch']:.1f}x its `import torch`; target < 2 s)"
    )
    for name, s in stages.items():
        print(f"    {name:40s} {s:6.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--model",
        action="append",
        default=None,
        help="checkpoint (repeatable; default: the shipped model serving German)",
    )
    ap.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another checkout to time in the same run (its repository root)",
    )
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=None, help="--throughput: inputs per chunk")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--throughput", action="store_true", help="also the in-process throughput")
    ap.add_argument("--cold", action="store_true", help="also one cold query")
    args = ap.parse_args()

    sys.path.insert(0, str(HERE))
    from inflect.corpora.splits import load_split
    from inflect.inference.queries import make_query
    from inflect.inference.registry import default_model

    models = args.model or [str(m) for m in default_model("german").members]
    print(f"cited, not measured: {CITED_PEER}")
    dev = load_split("german", "dev", args.data_dir)[: args.n]
    compare_commands(models, dev, args.against, args.threads, args.repeat)
    if args.throughput:
        queries = [make_query(e.lemma, e.tags, "german") for e in dev]
        gold = [e.form for e in dev]
        print(
            f"in-process throughput, {len(queries)} inputs, {args.threads} thread(s) (ratio: "
            "against the single model with support=never, this run):"
        )
        ref = None
        for label, chosen in (("single", models[:1]), (f"ensemble x{len(models)}", models)):
            for support in ("never", "auto"):
                r = throughput(chosen, queries, gold, support, args.threads, args.chunk)
                ref = ref or r["words_per_s"]
                print(
                    f"  {label:12s} support={support:5s} {r['words_per_s']:7.1f} words/s "
                    f"({r['words_per_s'] / ref:4.2f}x, CPU {r['cpu']:.2f} s)  acc "
                    f"{r['accuracy']:5.1f}%  full support "
                    f"{r['full_support']:5.1f}%  mode only {r['mode_only']:5.1f}%  one form "
                    f"{r['single_form']:5.1f}%"
                )
    if args.cold:
        cold(models, args.repeat + 1, args.threads)


if __name__ == "__main__":
    main()
