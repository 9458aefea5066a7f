"""A cold paradigm: `inflect paradigm` for the 28 cells of a Finnish noun against the ways to get
the same cells without it, all measured in the same run, interleaved.

0. Floor: ``python -c "import torch"`` in a fresh process (every command pays it).
1. Cold paradigm: ``python -m inflect paradigm --lang finnish talo --pos N --format tsv`` in a
   fresh process (target: at most 3 s on a quiet 2-core machine).
2. Reference, cold one cell: ``python -m inflect predict --lang finnish talo N;NOM;SG --format
   tsv`` in a fresh process: the paradigm's price over one query is the ratio (1) / (2).
3. Reference, today's way: one cold ``inflect predict`` per cell, ``--separate`` of them
   (default all 28, in a row; 0 skips it): ratio (3) / (1).
4. In process, warm (``--warm``, default on): the paradigm as one batch
   (:meth:`inflect.inference.paradigm.Paradigms.paradigm`) against the 28 cells asked one at a time
   (:meth:`inflect.inference.predictor.Predictor.predict`), both on the same loaded predictor, best of
   ``--repeat``: ratio of the 28 single queries to the one batch.

Each subprocess is timed by wall clock and by its CPU time (user + system of the child,
steadier than wall time on a shared machine). Printed: the medians and the ratios; nothing is a
pass/fail.

Usage::

    python benchmarks/bench_paradigm.py [--repeat 3] [--separate 28] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
LANGUAGE, LEMMA, POS = "finnish", "talo", "N"


def _run(args: list[str], threads: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -m inflect ARGS`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(HERE))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "inflect", *args, "--threads", str(threads)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"inflect {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _run_python(code: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -c CODE`` in a fresh process (a floor: the imports)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _cells() -> list[str]:
    from inflect.inference.paradigm_cells import CellCatalogue

    return [b.text for b in CellCatalogue("high").cells(LANGUAGE, POS)]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="cold runs of (1) and (2), interleaved")
    ap.add_argument(
        "--separate",
        type=int,
        default=None,
        help="cold predict calls of (3) (default: one per cell, 28)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-warm", dest="warm", action="store_false")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    cells = _cells()
    print(f"{LANGUAGE} {POS}: {len(cells)} cells; load average {os.getloadavg()[0]:.1f}")
    paradigm = ["paradigm", "--lang", LANGUAGE, LEMMA, "--pos", POS, "--format", "tsv"]
    one = ["predict", "--lang", LANGUAGE, LEMMA, cells[0], "--format", "tsv"]
    runs: dict[str, list[tuple[float, float]]] = {"paradigm": [], "one": [], "torch": []}
    _run(one, args.threads)  # warm the file cache for both
    for _ in range(args.repeat):
        runs["paradigm"].append(_run(paradigm, args.threads))
        runs["one"].append(_run(one, args.threads))
        runs["torch"].append(_run_python("import torch"))
    med = {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
        for k, v in runs.items()
    }
    n = len(cells) if args.separate is None else args.separate
    sep_wall = sep_cpu = 0.0
    for tags in (cells * (n // len(cells) + 1))[:n]:
        w, c = _run(["predict", "--lang", LANGUAGE, LEMMA, tags, "--format", "tsv"], args.threads)
        sep_wall += w
        sep_cpu += c
    pw, pc = med["paradigm"]
    ow, oc = med["one"]
    tw, tc = med["torch"]
    print(
        f"(0) cold `import torch` alone: median {tw:.2f} s wall, {tc:.2f} s CPU; "
        f"(1)/(0) = {pw / tw:.2f}x wall, {pc / tc:.2f}x CPU"
    )
    print(
        f"(1) cold paradigm ({len(cells)} cells, one process): median {pw:.2f} s wall, "
        f"{pc:.2f} s CPU (target <= 3 s)"
    )
    print(
        f"(2) cold predict, one cell: median {ow:.2f} s wall, {oc:.2f} s CPU; "
        f"(1)/(2) = {pw / ow:.2f}x wall, {pc / oc:.2f}x CPU"
    )
    if n:
        print(
            f"(3) {n} cold predict calls, one per cell: {sep_wall:.1f} s wall, {sep_cpu:.1f} s "
            f"CPU; (3)/(1) = {sep_wall / pw:.1f}x wall, {sep_cpu / pc:.1f}x CPU"
        )
    if args.warm:
        import torch

        from inflect.inference.paradigm import Paradigms

        torch.set_num_threads(args.threads)
        paradigms = Paradigms.from_default(LANGUAGE)
        best_batch = best_single = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            paradigms.paradigm(LEMMA, LANGUAGE, POS)
            best_batch = min(best_batch, time.perf_counter() - start)
            start = time.perf_counter()
            for tags in cells:
                paradigms.predictor.predict(LEMMA, tags, LANGUAGE)
            best_single = min(best_single, time.perf_counter() - start)
        print(
            f"(4) warm, in process: the paradigm as one batch {best_batch:.3f} s; its "
            f"{len(cells)} cells one at a time {best_single:.3f} s; "
            f"ratio {best_single / best_batch:.1f}x"
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
