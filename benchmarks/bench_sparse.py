"""Speed of inflect.sparse against softmax / cross-entropy and the `entmax` package (CPU).

For every shape and logit distribution it times, in the same run and interleaved (so that load
from other processes hits every method alike), the forward pass and forward+backward of:
softmax (the reference), our sparsemax / 1.5-entmax / α-entmax (α = 1.33), and the `entmax`
package's versions (its default full sort, and k=100 where it has a partial sort), and prints the
median time per call and its ratio to softmax, plus the largest absolute error of the float32
result against a float64 reference (the package's bisection with 64 halvings for α = 1.33, our
sort path in float64 for sparsemax / 1.5-entmax). ``--losses`` does the same for the losses
against ``torch.nn.functional.cross_entropy``.

Usage::

    python benchmarks/bench_sparse.py                  # full table (about a minute or two)
    python benchmarks/bench_sparse.py --quick          # fewer repeats, large shapes only
    python benchmarks/bench_sparse.py --small --threads 1   # decoder-step shapes only (64x30, 64x100)
    python benchmarks/bench_sparse.py --losses --threads 2 --repeats 9
    python benchmarks/bench_sparse.py --device cuda --no-package --quick   # on a GPU

This is a measurement, not a test. No torch.compile is used (eager PyTorch only).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from inflect import sparse as S

try:  # the `entmax` package: optional here, installed with the test extras
    import entmax as E
except ImportError:  # pragma: no cover - depends on the environment
    E = None

SHAPES = [(64, 30), (64, 100), (64, 500), (32, 18000), (8, 50000)]
#: the seq2seq decoder's per-step rows (attention over source positions, output symbols)
SMALL = [(64, 30), (64, 100)]
DISTS = {"N(0,1)": 1.0, "flat 0.01N(0,1)": 0.01}
ALPHA = 1.33


def mapping_methods(with_package: bool) -> list[tuple[str, Callable, float | None]]:
    """(name, function of x, α for the error reference or None for softmax)."""
    m = [
        ("softmax (reference)", lambda x: torch.softmax(x, -1), 1.0),
        ("ours sparsemax", S.sparsemax, 2.0),
        ("ours entmax15", S.entmax15, 1.5),
        (f"ours entmax_bisect a={ALPHA}", lambda x: S.entmax_bisect(x, ALPHA), ALPHA),
    ]
    if with_package and E is not None:
        m += [
            ("entmax pkg sparsemax (sort)", lambda x: E.sparsemax(x, -1), 2.0),
            ("entmax pkg sparsemax k=100", lambda x: E.sparsemax(x, -1, k=100), 2.0),
            ("entmax pkg entmax15 (sort)", lambda x: E.entmax15(x, -1), 1.5),
            ("entmax pkg entmax15 k=100", lambda x: E.entmax15(x, -1, k=100), 1.5),
            (f"entmax pkg entmax_bisect a={ALPHA}", lambda x: E.entmax_bisect(x, ALPHA), ALPHA),
        ]
    return m


def loss_methods(with_package: bool) -> list[tuple[str, Callable, float | None]]:
    m = [
        ("cross_entropy (reference)", lambda x, t: F.cross_entropy(x, t, reduction="sum"), None),
        ("ours sparsemax_loss", lambda x, t: S.sparsemax_loss(x, t, reduction="sum"), None),
        ("ours entmax15_loss", lambda x, t: S.entmax15_loss(x, t, reduction="sum"), None),
        (f"ours entmax_bisect_loss a={ALPHA}",
         lambda x, t: S.entmax_bisect_loss(x, t, ALPHA, reduction="sum"), None),
    ]
    if with_package and E is not None:
        m += [
            ("entmax pkg sparsemax_loss", lambda x, t: E.sparsemax_loss(x, t).sum(), None),
            ("entmax pkg sparsemax_loss k=100",
             lambda x, t: E.sparsemax_loss(x, t, k=100).sum(), None),
            ("entmax pkg entmax15_loss", lambda x, t: E.entmax15_loss(x, t).sum(), None),
            ("entmax pkg entmax15_loss k=100",
             lambda x, t: E.entmax15_loss(x, t, k=100).sum(), None),
            (f"entmax pkg entmax_bisect_loss a={ALPHA}",
             lambda x, t: E.entmax_bisect_loss(x, t, ALPHA).sum(), None),
        ]
    return m


def reference64(x: torch.Tensor, alpha: float) -> torch.Tensor:
    """float64 reference probabilities for the error column."""
    x64 = x.double()
    if alpha == 1.0:
        return torch.softmax(x64, -1)
    if alpha == 2.0:
        return S.sparsemax(x64, method="sort")
    if alpha == 1.5:
        return S.entmax15(x64, method="sort")
    if E is not None:
        return E.entmax_bisect(x64, alpha, n_iter=64)
    return S.entmax_bisect(x64, alpha, n_iter=64)


def _sync() -> None:
    """Wait for queued CUDA work (timings on a GPU measure the kernels, not their launch)."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def _calibrate(fn: Callable[[], object], target_s: float) -> int:
    fn()
    _sync()
    t0 = time.perf_counter()
    fn()
    _sync()
    one = max(time.perf_counter() - t0, 1e-6)
    return max(1, min(200, int(target_s / one)))


def bench_case(methods, make_inputs, repeats: int, target_s: float) -> dict[str, tuple]:
    """Interleaved timing; returns name -> (fwd median s, fwd+bwd median s)."""
    fwd, fwdbwd = {}, {}
    for name, f, _ in methods:
        args, grad_args = make_inputs()
        fwd[name] = (lambda f=f, args=args: f(*args), None)
        if grad_args is None:
            fwdbwd[name] = None
        else:
            def step(f=f, ga=grad_args):
                out = f(*ga[:-1])
                if out.ndim == 0:
                    out.backward()
                else:
                    out.backward(ga[-1])
            fwdbwd[name] = (step, None)
    loops = {}
    for name, _, _ in methods:
        with torch.no_grad():
            loops[(name, "f")] = _calibrate(fwd[name][0], target_s)
        loops[(name, "b")] = _calibrate(fwdbwd[name][0], target_s)
    samples = {k: [] for k in loops}
    for _ in range(repeats):
        for name, _, _ in methods:
            for kind in ("f", "b"):
                fn = fwd[name][0] if kind == "f" else fwdbwd[name][0]
                n = loops[(name, kind)]
                with torch.set_grad_enabled(kind == "b"):
                    _sync()
                    t0 = time.perf_counter()
                    for _ in range(n):
                        fn()
                    _sync()
                    samples[(name, kind)].append((time.perf_counter() - t0) / n)
    return {
        name: (statistics.median(samples[(name, "f")]), statistics.median(samples[(name, "b")]))
        for name, _, _ in methods
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=7, help="timed repeats per method (median)")
    ap.add_argument("--target-ms", type=float, default=15.0, help="time per timed sample")
    ap.add_argument("--quick", action="store_true", help="large shapes only, 5 repeats")
    ap.add_argument("--small", action="store_true", help="small decoder-step shapes only")
    ap.add_argument("--losses", action="store_true", help="time the losses instead")
    ap.add_argument("--no-package", action="store_true", help="skip the entmax package")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    shapes = SMALL if args.small else [s for s in SHAPES if s[1] > 1000] if args.quick else SHAPES
    repeats = 5 if args.quick else args.repeats
    with_pkg = not args.no_package
    methods = loss_methods(with_pkg) if args.losses else mapping_methods(with_pkg)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# device {args.device}; torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), "
          f"load average {load:.1f} at start; float32; median of {repeats} repeats")
    print("| shape | logits | method | fwd ms | fwd x softmax | fwd+bwd ms | fwd+bwd x softmax "
          "| max abs err vs float64 |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for shape in shapes:
        for dist, scale in DISTS.items():
            g = torch.Generator().manual_seed(args.seed)
            x = (torch.randn(*shape, generator=g) * scale).to(args.device)
            gout = torch.randn(*shape, generator=g).to(args.device)
            tgt = torch.randint(0, shape[-1], shape[:-1], generator=g).to(args.device)

            def make_inputs(x=x, gout=gout, tgt=tgt):
                xr = x.clone().requires_grad_(True)
                if args.losses:
                    return (x, tgt), (xr, tgt, None)
                return (x,), (xr, gout)

            res = bench_case(methods, make_inputs, repeats, args.target_ms / 1000)
            ref_f, ref_b = next(iter(res.values()))
            for name, f, alpha in methods:
                tf, tb = res[name]
                err = ""
                if alpha is not None and not args.losses:
                    with torch.no_grad():
                        err = f"{(f(x).double() - reference64(x, alpha)).abs().max().item():.1e}"
                print(f"| {shape[0]}x{shape[1]} | {dist} | {name} | {tf * 1e3:.3f} | "
                      f"{tf / ref_f:.1f} | {tb * 1e3:.3f} | {tb / ref_b:.1f} | {err} |",
                      flush=True)


if __name__ == "__main__":
    main()
