"""Reproduce the shape of Table 1 of Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence
Models" (ACL): CoNLL–SIGMORPHON 2018 task 1 inflection accuracy for every output mapping x
attention mapping (softmax, sparsemax, 1.5-entmax), in the high and medium settings, the mean over
seeds and the ensemble of the seeds, macro-averaged over languages.

One command runs the grid; it can be stopped and restarted at any time: finished runs are skipped,
interrupted ones resumed (``inflect.train.train(..., resume=True)``), evaluations are cached.
Only the public API is used (``inflect.train``, ``inflect.evaluate``, ``inflect.report``); the
paper's table is made here (:func:`paper_table`).

    python recipes/sigmorphon2018/run.py --smoke --out runs/sigmorphon2018-smoke
    python recipes/sigmorphon2018/run.py --out runs/sigmorphon2018 --device cuda   # full size

See README.md in this folder for the sizes and their cost.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from inflect import defaults
from inflect.checkpoint import checkpoint_members
from inflect.evaluate import evaluate_checkpoints
from inflect.files import atomic_write, write_text
from inflect.languages import all_languages, resolve
from inflect.model import Config
from inflect.report import frame_markdown
from inflect.scoring import MACRO
from inflect.train import load_data, run_status, train

MAPPINGS = ("softmax", "sparsemax", "entmax15")
SMOKE = {
    "languages": ["german", "spanish"],
    "settings": ["medium"],
    "pairs": [("softmax", "softmax"), ("entmax15", "entmax15")],  # (output, attention)
    "seeds": [1, 2],
    "preset": "tiny",
    "epochs": 1,
    "multilingual": True,
}


#: Columns of the long-format results that :func:`paper_table` reads.
GRID_COLUMNS: tuple[str, ...] = ("setting", "output", "attention", "language", "member",
                                 "accuracy")
#: ``member`` value of an ensemble's row (other rows: ``"seed <n>"``).
ENSEMBLE = "ensemble"


def paper_table(
    results: pd.DataFrame, settings: Sequence[str] = defaults.SETTINGS[:2]
) -> pd.DataFrame:
    """The paper's table shape from per-run accuracies.

    Args:
        results: long format, one row per (setting, output mapping, attention mapping, language,
            member) with the accuracy in percent (see :data:`GRID_COLUMNS`); ``member`` is
            ``"seed <n>"`` for a single model and :data:`ENSEMBLE` for the ensemble of the seeds.
        settings: the column groups, in order (those absent from ``results`` are left out).

    Returns:
        One row per (output, attention), in order of first appearance; columns ``output``,
        ``attention``, then per setting ``"<setting> mean"`` (per language the mean over seeds,
        then the unweighted mean over languages) and ``"<setting> ensemble"`` (the ensemble's
        accuracy, macro-averaged over languages); NaN where a cell has no run.

    Raises:
        ValueError: a missing column.
    """
    missing = [c for c in GRID_COLUMNS if c not in results.columns]
    if missing:
        raise ValueError(f"results lack column(s) {', '.join(missing)}")
    rows = list(dict.fromkeys(zip(results["output"], results["attention"], strict=True)))
    present = [s for s in settings if s in set(results["setting"])]
    single = results[results["member"] != ENSEMBLE]
    ensemble = results[results["member"] == ENSEMBLE]
    keys = ["setting", "output", "attention"]
    mean = (single.groupby([*keys, "language"])["accuracy"].mean()
            .groupby(level=keys).mean())
    ens = ensemble.groupby([*keys, "language"])["accuracy"].mean().groupby(level=keys).mean()
    table = []
    for output, attention in rows:
        row: dict[str, Any] = {"output": output, "attention": attention}
        for setting in present:
            row[f"{setting} mean"] = float(mean.get((setting, output, attention), math.nan))
            row[f"{setting} ensemble"] = float(ens.get((setting, output, attention), math.nan))
        table.append(row)
    columns = ["output", "attention"] + [f"{s} {k}" for s in present for k in ("mean", ENSEMBLE)]
    return pd.DataFrame(table, columns=columns)


def write_parquet(frame: pd.DataFrame, path: Path) -> Path:
    return atomic_write(path, lambda temp: frame.to_parquet(temp, index=False))


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    return atomic_write(path, lambda temp: frame.to_csv(temp, index=False))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="runs/sigmorphon2018", help="Folder of runs and tables.")
    p.add_argument("--smoke", action="store_true",
                   help="Tiny size for CI: german and spanish, medium, preset tiny, 1 epoch, two "
                        "grid cells, 2 seeds, one multilingual model per cell.")
    p.add_argument("--languages", default="all",
                   help="Comma-separated languages, or 'all' (every language of the setting).")
    p.add_argument("--settings", default="high,medium")
    p.add_argument("--outputs", default=",".join(MAPPINGS), help="Output mappings.")
    p.add_argument("--attentions", default=",".join(MAPPINGS), help="Attention mappings.")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--per-language", action="store_true",
                   help="One model per language (default: one multilingual model per setting, "
                        "as the paper).")
    p.add_argument("--preset", default=None, help="Hyperparameters (default: the paper's).")
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--test-gold-dir", default=None,
                   help="Folder with gold test files <language>-test: also evaluate on test.")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--device", default="auto")
    p.add_argument("--threads", type=int, default=None, help="CPU threads for torch.")
    return p.parse_args(argv)


def grid(args: argparse.Namespace) -> dict:
    if args.smoke:
        return dict(SMOKE)
    split = lambda text: [t.strip() for t in text.split(",") if t.strip()]  # noqa: E731
    return {
        "languages": split(args.languages),
        "settings": split(args.settings),
        "pairs": list(itertools.product(split(args.outputs), split(args.attentions))),
        "seeds": [int(s) for s in split(args.seeds)],
        "preset": args.preset,
        "epochs": args.epochs,
        "multilingual": not args.per_language,
    }


def languages_of(names: list[str], setting: str) -> list[str]:
    if names == ["all"]:
        return [s.name for s in all_languages() if setting in s.settings]
    return [resolve(n).name for n in names]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def train_run(run: Path, config: Config, data, g: dict, device: str) -> None:
    status = run_status(run)
    if status == "finished":
        log(f"skip (finished): {run}")
        return
    log(f"{'resume' if status == 'interrupted' else 'train'}: {run}")
    train(config if status == "new" else None, data, run, device=device,
          resume=status == "interrupted", max_epochs=g["epochs"])


def evaluate_cached(models: list[Path], languages: list[str], split: str, cache: Path,
                    gold_dir: str | None, data_dir: str | None, device: str) -> pd.DataFrame:
    """Per-language rows of inflect.evaluate for these checkpoints, cached in ``cache``."""
    newest = max((m / "model.safetensors").stat().st_mtime for m in models)
    if cache.is_file() and cache.stat().st_mtime >= newest:
        return pd.read_parquet(cache)
    gold = [Path(gold_dir) / f"{lang}-test" for lang in languages] if split == "test" else ()
    result = evaluate_checkpoints(models, languages, split, gold, data_dir=data_dir,
                                  device=device)
    frame = result.frame[result.frame["language"] != MACRO]
    write_parquet(frame, cache)
    return frame


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    g = grid(args)
    out = Path(args.out)
    splits = ["dev"] + (["test"] if args.test_gold_dir else [])
    rows = []
    for setting in g["settings"]:
        langs = languages_of(g["languages"], setting)
        groups = [("multilingual", langs)] if g["multilingual"] else [(n, [n]) for n in langs]
        for group, group_langs in groups:
            data = load_data(group_langs, setting, args.data_dir)
            for output, attention in g["pairs"]:
                cell = out / setting / group / f"{output}-{attention}"
                for seed in g["seeds"]:
                    config = Config.from_preset(g["preset"], attention_mapping=attention,
                                                output_mapping=output, seed=seed)
                    train_run(cell / f"seed{seed}", config, data, g, args.device)
                seeds = [cell / f"seed{seed}" for seed in g["seeds"]]
                members = {f"seed {s}": [p] for s, p in zip(g["seeds"], seeds, strict=True)}
                if len(seeds) > 1:
                    members[ENSEMBLE] = checkpoint_members(seeds)
                for split in splits:
                    for member, models in members.items():
                        name = member.replace(" ", "")
                        log(f"evaluate {split}: {cell} {member}")
                        frame = evaluate_cached(models, group_langs, split,
                                                cell / f"eval-{split}-{name}.parquet",
                                                args.test_gold_dir, args.data_dir, args.device)
                        for rec in frame.to_dict("records"):
                            rows.append({"split": split, "setting": setting, "output": output,
                                         "attention": attention, "language": rec["language"],
                                         "member": member, "accuracy": rec["accuracy"],
                                         "levenshtein": rec["levenshtein"],
                                         "mean_strings": rec["mean_strings"],
                                         "single_string": rec["single_string"],
                                         "attention_density": rec["attention_density"]})
    results = pd.DataFrame(rows)
    write_parquet(results, out / "results.parquet")
    write_csv(results, out / "results.csv")
    for split in splits:
        table = paper_table(results[results["split"] == split], g["settings"])
        write_csv(table, out / f"table-{split}.csv")
        text = (f"Accuracy (%) on {split}, macro-averaged over {len(set(results['language']))} "
                f"language(s); mean over seeds and ensemble of the seeds.\n\n"
                + frame_markdown(table))
        write_text(out / f"table-{split}.md", text)
        print(text)
    log(f"wrote {out / 'results.csv'} and the tables in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
