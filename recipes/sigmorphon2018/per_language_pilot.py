"""The per-language pilots: configurations of one-model-per-language training compared per CPU
minute.

Three pilots, each a set of languages and configurations (``--pilot``):

- ``high`` (the first): eight high languages below the official baseline with the shipped
  multilingual models, of different families and scripts, and a small one (votic, 1,230
  high-setting pairs); sizes, warm starts and learning rates.
- ``medium``: the eight medium languages with 1,000 dev words and the largest gaps between the
  shipped medium models' dev accuracy and the 2018 winner's test accuracy (uzh-01); the current
  recipe (a warm start from the shipped medium member), the copy-biased preset with
  autoencoding items from scratch, the same with hallucinated pairs (Anastasopoulos & Neubig
  2019) up to 5,000 and 10,000 per language, and an ensemble of three seeds of the current
  recipe (``--ensemble``).
- ``high2`` (2026-12-07): six high languages with the largest gaps to the 2018 winner, French
  first; the high recipe from scratch (two seeds), the copy-biased preset, 5,000 hallucinated
  pairs beside the 10,000, a larger network, and ensembles of two (:data:`ENSEMBLES`).

Each configuration is one ``inflect queue`` over the pilot's languages (``OUT/<config>``, two
languages at a time, one thread each). Model selection on the whole dev set (``--dev-sample
0``), so the dev accuracy of each epoch in ``metrics.csv`` is full-dev exact match (greedy
decoding), and each epoch records its CPU time (``cpu_seconds``): the learning curves are
compared at equal CPU time (the accuracy of the best epoch reached within the budget), which is
fair on a loaded machine. ``--beam5`` also scores each configuration's model (and the ensemble)
on dev with beam 5 (``OUT/eval/``).

    python recipes/sigmorphon2018/per_language_pilot.py --pilot medium --out runs/pilot-medium \
        --data-dir ../shared/data --beam5
    python recipes/sigmorphon2018/per_language_pilot.py --pilot medium --out runs/pilot-medium \
        --report   # tables only

Started again, finished queues are skipped and interrupted ones resumed (``inflect queue``).
Tables: ``OUT/results.md`` (and ``results.csv``, one row per configuration, language and epoch).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "inflect" / "models"
HIGH_MEMBER = MODELS / "multilingual-high" / "member-1.safetensors"
MEDIUM_MEMBER = MODELS / "multilingual-medium" / "member-1.safetensors"
SMALL = ("--emb-dim", "64", "--hidden-dim", "128")
#: the current medium recipe: a warm start from the shipped medium member
MEDIUM_WARM = ("--preset", "cpu-small", "--init-from", str(MEDIUM_MEMBER), "--learning-rate",
               "5e-4", "--dev-sample", "0", "--epochs", "12", "--patience", "4")

#: pilot -> (languages, {configuration: (setting, options of `inflect train`)})
PILOTS: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, tuple[str, ...]]]]] = {
    "high": (
        ("finnish", "norwegian-nynorsk", "lithuanian", "polish", "latin", "navajo", "arabic",
         "votic"),
        {
            "high-plain200": ("high", ("--preset", "cpu-small-plain", "--dev-sample", "0",
                                       "--epochs", "10", "--patience", "10")),
            "high-plain128": ("high", ("--preset", "cpu-small-plain", *SMALL, "--dev-sample",
                                       "0", "--epochs", "10", "--patience", "10")),
            "high-warm": ("high", ("--init-from", str(HIGH_MEMBER), "--learning-rate", "5e-4",
                                   "--dev-sample", "0", "--epochs", "6", "--patience", "6")),
            "high-plain128-lr2e3": ("high", ("--preset", "cpu-small-plain", *SMALL,
                                             "--learning-rate", "2e-3", "--dev-sample", "0",
                                             "--epochs", "8", "--patience", "8")),
            "medium-small128": ("medium", ("--preset", "cpu-small", *SMALL, "--dev-sample", "0",
                                           "--epochs", "25", "--patience", "25")),
            "medium-warm": ("medium", ("--init-from", str(MEDIUM_MEMBER), "--learning-rate",
                                       "5e-4", "--dev-sample", "0", "--epochs", "10",
                                       "--patience", "10")),
            "medium-small200": ("medium", ("--preset", "cpu-small", "--dev-sample", "0",
                                           "--epochs", "25", "--patience", "25")),
        },
    ),
    "medium": (
        ("basque", "northern-sami", "khaling", "zulu", "finnish", "irish", "navajo",
         "old-english"),
        {
            "medium-warm-s1": ("medium", (*MEDIUM_WARM, "--seed", "1")),
            "medium-warm-s2": ("medium", (*MEDIUM_WARM, "--seed", "2")),
            "medium-warm-s3": ("medium", (*MEDIUM_WARM, "--seed", "3")),
            "medium-scratch": ("medium", ("--preset", "cpu-small", "--dev-sample", "0",
                                          "--epochs", "80", "--patience", "15")),
            "medium-halluc5k": ("medium", ("--preset", "cpu-small", "--hallucinate", "5000",
                                           "--dev-sample", "0", "--epochs", "40", "--patience",
                                           "8")),
            "medium-halluc10k": ("medium", ("--preset", "cpu-small", "--hallucinate", "10000",
                                            "--dev-sample", "0", "--epochs", "30", "--patience",
                                            "6")),
        },
    ),
}
#: the high setting's current recipe (runs/high-long-*: from scratch, up to 30 epochs)
HIGH_PLAIN = ("--preset", "cpu-small-plain", "--dev-sample", "0", "--epochs", "30",
              "--patience", "4")
PILOTS["high2"] = (
    ("french", "lithuanian", "latin", "norwegian-nynorsk", "maltese", "slovak"),
    {
        "high-plain-s1": ("high", (*HIGH_PLAIN, "--seed", "1")),
        # the copy-biased preset (autoencoding items and the copy bias) from scratch
        "high-copy": ("high", ("--preset", "cpu-small", "--dev-sample", "0", "--epochs", "30",
                               "--patience", "5")),
        # 5,000 hallucinated pairs beside 10,000 (--hallucinate N: up to N pairs a language)
        "high-halluc": ("high", (*HIGH_PLAIN, "--hallucinate", "15000", "--epochs", "24")),
        "high-plain-s2": ("high", (*HIGH_PLAIN, "--seed", "2")),
        # the larger network, where 10,000 pairs allow it
        "high-large": ("high", ("--preset", "cpu-small-plain", "--emb-dim", "150",
                                "--hidden-dim", "400", "--dev-sample", "0", "--epochs", "25",
                                "--patience", "4")),
    },
)
#: pilot -> the ensembles scored with --beam5: name -> its members' configurations
ENSEMBLES: dict[str, dict[str, tuple[str, ...]]] = {
    "high": {},
    "medium": {"ens3": ("medium-warm-s1", "medium-warm-s2", "medium-warm-s3")},
    "high2": {"ens-plain2": ("high-plain-s1", "high-plain-s2"),
              "ens-plain-halluc": ("high-plain-s1", "high-halluc"),
              "ens-plain-copy": ("high-plain-s1", "high-copy")},
}


def curves(out: Path, names: list[str], languages: tuple[str, ...]):
    """One row per configuration, language and epoch: dev accuracy, CPU minutes so far."""
    import pandas as pd

    rows = []
    for name in names:
        for lang in languages:
            metrics = out / name / lang / "metrics.csv"
            if not metrics.is_file():
                continue
            frame = pd.read_csv(metrics)
            cpu = frame["cpu_seconds"].fillna(frame["seconds"]).cumsum() / 60
            for (_, row), spent in zip(frame.iterrows(), cpu, strict=True):
                rows.append({"config": name, "language": lang, "epoch": int(row["epoch"]),
                             "dev_accuracy": float(row["dev_accuracy"]),
                             "cpu_minutes": float(spent)})
    return pd.DataFrame(rows, columns=["config", "language", "epoch", "dev_accuracy",
                                       "cpu_minutes"])


def at_budget(frame, minutes: float) -> float:
    """The best dev accuracy among the epochs finished within ``minutes`` of CPU (NaN: none)."""
    within = frame[frame["cpu_minutes"] <= minutes + 1e-9]
    return float(within["dev_accuracy"].max()) if len(within) else float("nan")


def beam5(out: Path, name: str, lang: str) -> float:
    """Dev accuracy with beam 5 of configuration ``name`` (or the ensemble) for ``lang``, from
    ``OUT/eval/<name>-<lang>.csv`` (written by ``--beam5``; NaN: not scored)."""
    import pandas as pd

    path = out / "eval" / f"{name}-{lang}.csv"
    if not path.is_file():
        return float("nan")
    table = pd.read_csv(path)
    return float(table.loc[table["language"] == lang, "accuracy"].iloc[0])


def _fmt(value: float) -> str:
    return "–" if value != value else f"{value:.1f}"


def _language_table(frame, out, chosen, languages, base, best_known, ensembles) -> list[str]:
    """One row per language: the baseline, the winner, then each configuration's best greedy
    dev (its epoch and CPU minutes) and its beam-5 dev where scored."""
    lines = ["| language | baseline | 2018 winner (test) | " + " | ".join(chosen) + " |",
             "|---|---:|---:|" + "---:|" * len(chosen)]
    for lang in languages:
        cells = []
        for n in chosen:
            sub = frame[(frame.config == n) & (frame.language == lang)]
            if n in ensembles:
                cells.append(f"{_fmt(beam5(out, n, lang))} (beam 5)")
            elif len(sub):
                best = sub.loc[sub.dev_accuracy.idxmax()]
                b5 = beam5(out, n, lang)
                cells.append(f"{best.dev_accuracy:.1f}{'' if b5 != b5 else f' / {b5:.1f}'} "
                             f"(e{best.epoch}, {sub.cpu_minutes.max():.1f} min)")
            else:
                cells.append("–")
        lines.append(f"| {lang} | {_fmt(base.get(lang, float('nan')))} | "
                     f"{_fmt(best_known.get(lang, float('nan')))} | " + " | ".join(cells) + " |")
    return lines


def _budget_table(frame, out, chosen, languages, budgets, ensembles) -> list[str]:
    """Macro dev accuracy of each configuration at equal CPU time, over all epochs, with beam
    5, and the mean CPU minutes per language."""
    lines = ["| configuration | " + " | ".join(f"{b:g} CPU min" for b in budgets)
             + " | all epochs | beam 5 | CPU min (mean) |",
             "|---|" + "---:|" * (len(budgets) + 3)]
    for n in chosen:
        b5 = [beam5(out, n, lang) for lang in languages]
        b5_cell = "–" if any(v != v for v in b5) else f"{sum(b5) / len(b5):.1f}"
        if n in ensembles:
            members = frame[frame.config.isin(ensembles[n])]
            minutes = members.groupby(["config", "language"]).cpu_minutes.max().sum()
            lines.append(f"| {n} | " + " | ".join("–" for _ in budgets) + f" | – | {b5_cell} | "
                         f"{minutes / len(languages):.1f} |")
            continue
        per_lang = dict(iter(frame[frame.config == n].groupby("language")))
        cells = []
        for b in (*budgets, float("inf")):
            values = [at_budget(g, b) for g in per_lang.values()]
            cells.append("–" if any(v != v for v in values) or len(values) < len(languages)
                         else f"{sum(values) / len(values):.1f}")
        mean_cpu = sum(g.cpu_minutes.max() for g in per_lang.values()) / max(len(per_lang), 1)
        lines.append(f"| {n} | " + " | ".join(cells) + f" | {b5_cell} | {mean_cpu:.1f} |")
    return lines


def report(out: Path, pilot: str, names: list[str], budgets: tuple[float, ...],
           data_dir: str | None = None) -> str:
    """The pilot's tables (Markdown), also written to ``OUT/results.md``; the learning curves
    to ``OUT/results.csv``."""
    from inflect.corpora.baseline import official_baseline, system_accuracy

    languages, configs = PILOTS[pilot]
    frame = curves(out, names, languages)
    frame.to_csv(out / "results.csv", index=False)
    baseline = official_baseline(data_dir=data_dir)
    if baseline is None:
        raise SystemExit("no official baseline file: give --data-dir (the folder of "
                         "conll2018-task1-baseline-dev.csv or of conll2018-task1)")
    lines = []
    for setting in ("high", "medium"):
        chosen = [n for n in names if configs[n][0] == setting and n in set(frame["config"])]
        if (out / "eval").is_dir():
            chosen += [e for e, members in ENSEMBLES[pilot].items()
                       if configs[members[0]][0] == setting]
        if not chosen:
            continue
        base = baseline[baseline["setting"] == setting].set_index("language")["accuracy"]
        lines += [f"### {setting}", "", "Best greedy dev accuracy (its epoch, the CPU minutes of "
                  "the whole run) / with beam 5:", ""]
        lines += _language_table(frame, out, chosen, languages, base,
                                 system_accuracy(setting, data_dir=data_dir), ENSEMBLES[pilot])
        lines += ["", f"Macro dev accuracy at equal CPU time per language ({setting}; the best "
                  "epoch finished within the budget; – where a language had none):", ""]
        lines += [*_budget_table(frame, out, chosen, languages, budgets, ENSEMBLES[pilot]), ""]
    text = "\n".join(lines)
    (out / "results.md").write_text(text, encoding="utf-8")
    return text


def score_beam5(out: Path, pilot: str, names: list[str], data_dir: str | None) -> None:
    """Score each configuration's model (and the pilot's ensembles, :data:`ENSEMBLES`) on dev with beam 5 into ``OUT/eval/`` (``inflect evaluate --out``); done ones are
    skipped."""
    languages, _ = PILOTS[pilot]
    (out / "eval").mkdir(parents=True, exist_ok=True)
    runs = {n: [n] for n in names}
    runs.update({e: list(members) for e, members in ENSEMBLES[pilot].items()})
    for lang in languages:
        for name, members in runs.items():
            models = [out / m / lang for m in members]
            prefix = out / "eval" / f"{name}-{lang}"
            if Path(f"{prefix}.csv").is_file() or not all(
                    (m / "model.safetensors").is_file() for m in models):
                continue
            command = [sys.executable, "-m", "inflect", "evaluate", "--lang", lang, "--split",
                       "dev", "--beam", "5", "--threads", "1", "--out", str(prefix)]
            command += [a for m in models for a in ("--model", str(m))]
            if data_dir:
                command += ["--data-dir", data_dir]
            done = subprocess.run(command, check=False, stdout=subprocess.DEVNULL)
            if done.returncode != 0:
                print(f"{name} {lang}: inflect evaluate failed (exit status "
                      f"{done.returncode}); its beam-5 figure is left out", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pilot", choices=sorted(PILOTS), default="high")
    p.add_argument("--out", default="runs/pilot")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", nargs="*", default=None,
                   help="configurations to run (default: all of the pilot's)")
    p.add_argument("--report", action="store_true", help="write the tables only")
    p.add_argument("--beam5", action="store_true",
                   help="also score every model (and the ensemble) on dev with beam 5")
    p.add_argument("--budgets", default="1,2,3,5")
    args = p.parse_args(argv)
    languages, configs = PILOTS[args.pilot]
    unknown = sorted(set(args.only or ()) - set(configs))
    if unknown:
        p.error(f"unknown configuration(s) of pilot {args.pilot}: {', '.join(unknown)}; "
                f"known: {', '.join(configs)}")
    out = Path(args.out)
    names = args.only or list(configs)
    if not args.report:
        for name in names:
            setting, train_args = configs[name]
            command = [sys.executable, "-m", "inflect", "queue", "--lang", ",".join(languages),
                       "--setting", setting, "--jobs", str(args.jobs), "--out", str(out / name),
                       "--format", "tsv"]
            if args.data_dir:
                command += ["--data-dir", args.data_dir]
            subprocess.run([*command, "--", *train_args], check=False)
    if args.beam5:
        score_beam5(out, args.pilot, names, args.data_dir)
    budgets = tuple(float(b) for b in args.budgets.split(","))
    print(report(out, args.pilot, names, budgets, args.data_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
