"""The size pilot: model configurations compared at equal CPU time on a subset of languages.

Each configuration trains one multilingual model (``inflect.training.train``) on the high setting of
the chosen languages until its process has used ``--cpu-minutes`` of CPU time (process time, not
wall time, so runs that share a loaded machine get the same compute), stopping at a batch
boundary. The model selected on the dev sample (the best completed epoch, or the weights at the
stop when those score higher on the sample) is then scored by greedy decoding on the *full* dev
sets, per language. Results: ``OUT/results.csv`` and ``OUT/results.md``.

Usage::

    python recipes/sigmorphon2018/pilot.py --out runs/pilot --data-dir ../shared/data \\
        --cpu-minutes 15 [--jobs 2] [--only NAME ...]

Re-running continues: finished configurations are skipped, interrupted ones resumed with the CPU
time they had already used.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

#: The pilot's languages: eight large high-setting languages of different families and scripts
#: and two of the smallest high-setting ones (uzbek 1,060 and votic 1,230 pairs), so that the
#: language mix matters.
LANGUAGES = "german,finnish,turkish,arabic,navajo,hungarian,russian,latin,uzbek,votic"

#: name -> (preset, overrides)
CONFIGS: dict[str, tuple[str, dict]] = {
    "small": ("cpu-small", {}),
    "small-plain": ("cpu-small", {"copy_examples": 0.0, "copy_bias": False}),
    "small-T2": ("cpu-small", {"language_temperature": 2.0}),
    "small-plain-T2": (
        "cpu-small",
        {"copy_examples": 0.0, "copy_bias": False, "language_temperature": 2.0},
    ),
    "large": ("cpu-small", {"emb_dim": 150, "feature_dim": 150, "hidden_dim": 400}),
    "large-plain": (
        "cpu-small",
        {
            "emb_dim": 150,
            "feature_dim": 150,
            "hidden_dim": 400,
            "copy_examples": 0.0,
            "copy_bias": False,
        },
    ),
}


def run_one(name: str, args: argparse.Namespace) -> dict:
    """Train configuration ``name`` within the CPU budget, then score it on the full dev sets."""
    import torch

    from inflect.nn.checkpoint import STATE_FILE, load_model, load_tensors
    from inflect.nn.model import Seq2Seq
    from inflect.training import dev_sample, evaluate_dev, load_data, run_status, train
    from inflect.training.config import Config

    torch.set_num_threads(1)
    out = Path(args.out) / name
    spent_file = out.parent / f"{name}.cpu-seconds"
    spent = float(spent_file.read_text()) if spent_file.is_file() else 0.0
    budget = 60.0 * args.cpu_minutes
    data = load_data(args.languages, "high", args.data_dir)
    preset, overrides = CONFIGS[name]
    config = Config.from_preset(
        preset, dev_sample=args.dev_sample, seed=1, max_epochs=100, patience=100, **overrides
    )
    start = time.process_time()
    budget_reached = []

    def stop_at_budget(event: str, info: dict) -> None:
        used = spent + time.process_time() - start
        if event == "batch" and info["batch"] % 20 == 0:
            spent_file.write_text(f"{used:.1f}")
        if event == "batch" and used >= budget:
            budget_reached.append(used)
            raise KeyboardInterrupt

    status = run_status(out)
    if status != "finished" and spent < budget:
        try:
            train(
                None if status == "interrupted" else config,
                data,
                out,
                device="cpu",
                resume=status == "interrupted",
                progress=stop_at_budget,
            )
        except KeyboardInterrupt:
            if not budget_reached:  # Ctrl-C / SIGTERM: stopped, resumable; no evaluation now
                raise
        spent_file.write_text(f"{spent + time.process_time() - start:.1f}")
    # the selected weights: best completed epoch, or the weights at the stop if better on the sample
    sample = [data.dev[i] for i in dev_sample(data.dev, config.dev_sample)]
    candidates = {}
    if (out / "model.safetensors").is_file():
        candidates["best epoch"] = load_model(out)
    tensors, meta = load_tensors(out / STATE_FILE)
    last = Seq2Seq.from_metadata(meta["model"])
    last.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
    candidates["at the stop"] = last
    scores = {k: evaluate_dev(m, sample, 500)[1] for k, m in candidates.items()}
    chosen = max(scores, key=scores.get)
    model = candidates[chosen]
    state = meta["state"]
    n_items = len(data.train) + round(config.copy_examples * len(data.train))
    epochs = state["epoch"] + state["batch"] / math.ceil(n_items / config.batch_size)
    rows = []
    by_lang: dict[str, list] = {}
    for item in data.dev:
        by_lang.setdefault(item.language, []).append(item)
    for lang, items in sorted(by_lang.items()):
        _, acc, _ = evaluate_dev(model, items, 500)
        rows.append({"config": name, "language": lang, "accuracy": acc, "examples": len(items)})
    return {
        "config": name,
        "cpu_minutes": float(spent_file.read_text()) / 60.0,
        "epochs": round(epochs, 2),
        "selected": chosen,
        "sample_accuracy": scores[chosen],
        "parameters": sum(p.numel() for p in model.parameters()),
        "languages": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="runs/pilot")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--languages", default=LANGUAGES)
    parser.add_argument("--cpu-minutes", type=float, default=15.0)
    parser.add_argument("--dev-sample", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None, choices=sorted(CONFIGS))
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.one:
        result = run_one(args.one, args)
        (Path(args.out) / f"{args.one}.json").write_text(json.dumps(result, indent=1))
        return
    names = args.only or list(CONFIGS)
    passthrough = sys.argv[1:]
    running: list[subprocess.Popen] = []
    for name in names:
        while len(running) >= args.jobs:
            running = [p for p in running if p.poll() is None]
            time.sleep(5)
        running.append(subprocess.Popen([sys.executable, __file__, *passthrough, "--one", name]))
    for p in running:
        p.wait()
    report(Path(args.out), names)


def report(out: Path, names: list[str]) -> None:
    """Write results.csv (per language) and results.md (per configuration)."""
    import pandas as pd

    results = [
        json.loads((out / f"{n}.json").read_text()) for n in names if (out / f"{n}.json").is_file()
    ]
    frame = pd.DataFrame([r for res in results for r in res["languages"]])
    frame.to_csv(out / "results.csv", index=False)
    lines = [
        "| configuration | parameters | CPU min | epochs | selected | dev sample acc. | "
        "full dev macro acc. |",
        "|---|---:|---:|---:|---|---:|---:|",
    ]
    for res in results:
        macro = pd.DataFrame(res["languages"]).accuracy.mean()
        lines.append(
            f"| {res['config']} | {res['parameters']:,} | {res['cpu_minutes']:.1f} | "
            f"{res['epochs']} | {res['selected']} | {res['sample_accuracy']:.1f} | {macro:.1f} |"
        )
    wide = frame.pivot(index="language", columns="config", values="accuracy")[
        [r["config"] for r in results]
    ]
    lines += [
        "",
        "| language | " + " | ".join(wide.columns) + " |",
        "|---|" + "---:|" * len(wide.columns),
    ]
    for lang, row in wide.iterrows():
        lines.append(f"| {lang} | " + " | ".join(f"{v:.1f}" for v in row) + " |")
    (out / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
