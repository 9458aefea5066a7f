"""Training throughput and peak memory of softmax, sparsemax and 1.5-entmax models.

For each attention/output mapping pair (softmax/softmax, sparsemax/sparsemax,
entmax15/entmax15) a fresh process builds the ``cpu-small`` preset model on one language's
training data (default: german medium), trains ``--epochs`` epochs (Adam, clipping, the trainer's
batching; no dev evaluation) and reports training examples per second and peak memory (the
process's peak resident set growth on CPU, ``torch.cuda.max_memory_allocated`` on CUDA). Ratios
are printed against softmax/softmax. Target (issue 4): 1.5-entmax >= 0.8x softmax throughput.

Usage::

    python benchmarks/bench_train.py [--lang german] [--setting medium] [--epochs 1]
        [--threads 1] [--device cpu] [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

PAIRS = (("softmax", "softmax"), ("sparsemax", "sparsemax"), ("entmax15", "entmax15"))


def measure(args: argparse.Namespace, attention: str, output: str) -> dict[str, float]:
    """Train in this process and return throughput and memory figures."""
    import torch

    from inflect.model import Config
    from inflect.train import _shuffled_batches, build_model, load_data, make_batch, resolve_device

    torch.set_num_threads(args.threads)
    data = load_data(args.lang, args.setting, args.data_dir)
    device = resolve_device(args.device)
    config = Config.from_preset(args.preset, attention_mapping=attention, output_mapping=output)
    model = build_model(config, data.train).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    model.train()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    examples, seconds = 0, 0.0
    for epoch in range(args.epochs + 1):  # epoch 0 is a warm-up, not timed
        gen = torch.Generator().manual_seed(epoch)
        t0 = time.perf_counter()
        for rows in _shuffled_batches(data.train, config.batch_size, gen):
            batch = make_batch(model, [data.train[i] for i in rows])
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda"):
                loss, n = model.loss(batch)
            (loss / n).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            if epoch:
                examples += len(rows)
        if device.type == "cuda":
            torch.cuda.synchronize()
        if epoch:
            seconds += time.perf_counter() - t0
    if device.type == "cuda":
        peak_mib = torch.cuda.max_memory_allocated() / 2**20
    else:  # ru_maxrss is in KiB on Linux
        peak_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
    return {"examples_per_s": examples / seconds, "peak_mib": peak_mib, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", default="german")
    parser.add_argument("--setting", default="medium")
    parser.add_argument("--preset", default="cpu-small")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--one", nargs=2, metavar=("ATTENTION", "OUTPUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args, *args.one)))
        return
    passthrough = sys.argv[1:]
    results = {}
    for attention, output in PAIRS:
        proc = subprocess.run(
            [sys.executable, __file__, *passthrough, "--one", attention, output],
            check=True,
            capture_output=True,
            text=True,
        )
        results[(attention, output)] = json.loads(proc.stdout.strip().splitlines()[-1])
    ref = results[PAIRS[0]]
    print(
        f"{args.lang} {args.setting}, preset {args.preset}, {args.epochs} timed epoch(s), "
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
    entmax = results[("entmax15", "entmax15")]["examples_per_s"] / ref["examples_per_s"]
    print(
        f"target entmax15 >= 0.8x softmax throughput: {'met' if entmax >= 0.8 else 'NOT met'} "
        f"({entmax:.2f}x)"
    )


if __name__ == "__main__":
    main()
