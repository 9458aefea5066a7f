"""The per-language pilot: configurations of one-model-per-language training compared per CPU minute.

Each configuration is one ``inflect queue`` over the pilot's eight languages (``OUT/<config>``,
two languages at a time, one thread each): the languages below the official baseline with the
shipped multilingual models, of different families and scripts, and a small one (votic, 1,230
high-setting pairs). Model selection on the whole dev set (``--dev-sample 0``), so the dev
accuracy of each epoch in ``metrics.csv`` is full-dev exact match (greedy decoding), and each
epoch records its CPU time (``cpu_seconds``): the learning curves are compared at equal CPU time
(the accuracy of the best epoch reached within the budget), which is fair on a loaded machine.

    python recipes/sigmorphon2018/per_language_pilot.py --out runs/pilot --data-dir ../shared/data
    python recipes/sigmorphon2018/per_language_pilot.py --out runs/pilot --report   # tables only

Started again, finished queues are skipped and interrupted ones resumed (``inflect queue``).
Tables: ``OUT/results.md`` (and ``results.csv``, one row per configuration, language and epoch).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

LANGUAGES = ("finnish", "norwegian-nynorsk", "lithuanian", "polish", "latin", "navajo", "arabic",
             "votic")
MODELS = Path(__file__).resolve().parents[2] / "inflect" / "models"
HIGH_MEMBER = MODELS / "multilingual-high" / "member-1.safetensors"
MEDIUM_MEMBER = MODELS / "multilingual-medium" / "member-1.safetensors"
SMALL = ("--emb-dim", "64", "--hidden-dim", "128")

#: name -> (setting, options of `inflect train`)
CONFIGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "high-plain200": ("high", ("--preset", "cpu-small-plain", "--dev-sample", "0", "--epochs",
                               "10", "--patience", "10")),
    "high-plain128": ("high", ("--preset", "cpu-small-plain", *SMALL, "--dev-sample", "0",
                               "--epochs", "10", "--patience", "10")),
    "high-warm": ("high", ("--init-from", str(HIGH_MEMBER), "--learning-rate", "5e-4",
                           "--dev-sample", "0", "--epochs", "6", "--patience", "6")),
    "high-plain128-lr2e3": ("high", ("--preset", "cpu-small-plain", *SMALL, "--learning-rate",
                                     "2e-3", "--dev-sample", "0", "--epochs", "8", "--patience",
                                     "8")),
    "medium-small128": ("medium", ("--preset", "cpu-small", *SMALL, "--dev-sample", "0",
                                   "--epochs", "25", "--patience", "25")),
    "medium-warm": ("medium", ("--init-from", str(MEDIUM_MEMBER), "--learning-rate", "5e-4",
                               "--dev-sample", "0", "--epochs", "10", "--patience", "10")),
    "medium-small200": ("medium", ("--preset", "cpu-small", "--dev-sample", "0", "--epochs",
                                   "25", "--patience", "25")),
}


def curves(out: Path, names: list[str]):
    """One row per configuration, language and epoch: dev accuracy, CPU minutes so far."""
    import pandas as pd

    rows = []
    for name in names:
        for lang in LANGUAGES:
            metrics = out / name / lang / "metrics.csv"
            if not metrics.is_file():
                continue
            frame = pd.read_csv(metrics)
            cpu = frame["cpu_seconds"].fillna(frame["seconds"]).cumsum() / 60
            for (_, row), spent in zip(frame.iterrows(), cpu, strict=True):
                rows.append({"config": name, "language": lang, "epoch": int(row["epoch"]),
                             "dev_accuracy": float(row["dev_accuracy"]),
                             "cpu_minutes": float(spent)})
    return pd.DataFrame(rows)


def at_budget(frame, minutes: float) -> float:
    """The best dev accuracy among the epochs finished within ``minutes`` of CPU (NaN: none)."""
    within = frame[frame["cpu_minutes"] <= minutes + 1e-9]
    return float(within["dev_accuracy"].max()) if len(within) else float("nan")


def report(out: Path, names: list[str], budgets: tuple[float, ...],
           data_dir: str | None = None) -> str:
    from inflect.corpora.baseline import official_baseline

    frame = curves(out, names)
    frame.to_csv(out / "results.csv", index=False)
    baseline = official_baseline(data_dir=data_dir)
    if baseline is None:
        raise SystemExit("no official baseline file: give --data-dir (the folder of "
                         "conll2018-task1-baseline-dev.csv or of conll2018-task1)")
    lines = []
    for setting in ("high", "medium"):
        chosen = [n for n in names if CONFIGS[n][0] == setting and n in set(frame["config"])]
        if not chosen:
            continue
        base = baseline[baseline["setting"] == setting].set_index("language")["accuracy"]
        lines += [f"### {setting}", "",
                  "| language | baseline | " + " | ".join(chosen) + " |",
                  "|---|---:|" + "---:|" * len(chosen)]
        for lang in LANGUAGES:
            cells = []
            for n in chosen:
                sub = frame[(frame.config == n) & (frame.language == lang)]
                if len(sub):
                    best = sub.loc[sub.dev_accuracy.idxmax()]
                    cells.append(f"{best.dev_accuracy:.1f} (e{best.epoch}, "
                                 f"{sub.cpu_minutes.max():.1f} min)")
                else:
                    cells.append("–")
            lines.append(f"| {lang} | {base.get(lang, float('nan')):.1f} | "
                         + " | ".join(cells) + " |")
        lines += ["", f"Macro dev accuracy at equal CPU time per language ({setting}; the best "
                  "epoch finished within the budget; – where a language had none):", "",
                  "| configuration | " + " | ".join(f"{b:g} CPU min" for b in budgets)
                  + " | all epochs | CPU min (mean) |",
                  "|---|" + "---:|" * (len(budgets) + 2)]
        for n in chosen:
            sub = frame[frame.config == n]
            per_lang = {lang: g for lang, g in sub.groupby("language")}
            cells = []
            for b in (*budgets, float("inf")):
                values = [at_budget(g, b) for g in per_lang.values()]
                cells.append("–" if any(v != v for v in values)
                             else f"{sum(values) / len(values):.1f}")
            mean_cpu = sum(g.cpu_minutes.max() for g in per_lang.values()) / len(per_lang)
            lines.append(f"| {n} | " + " | ".join(cells) + f" | {mean_cpu:.1f} |")
        lines.append("")
    text = "\n".join(lines)
    (out / "results.md").write_text(text, encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/pilot")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", nargs="*", default=None, choices=sorted(CONFIGS))
    p.add_argument("--report", action="store_true", help="write the tables only")
    p.add_argument("--budgets", default="1,2,3,5")
    args = p.parse_args(argv)
    out = Path(args.out)
    names = args.only or list(CONFIGS)
    if not args.report:
        for name in names:
            setting, train_args = CONFIGS[name]
            command = [sys.executable, "-m", "inflect", "queue", "--lang", ",".join(LANGUAGES),
                       "--setting", setting, "--jobs", str(args.jobs), "--out", str(out / name),
                       "--format", "tsv"]
            if args.data_dir:
                command += ["--data-dir", args.data_dir]
            subprocess.run([*command, "--", *train_args], check=False)
    budgets = tuple(float(b) for b in args.budgets.split(","))
    print(report(out, names, budgets, args.data_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
