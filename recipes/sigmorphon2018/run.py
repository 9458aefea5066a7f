"""Reproduce the shape of Table 1 of Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence
Models" (ACL): CoNLL–SIGMORPHON 2018 task 1 inflection accuracy for every output mapping x
attention mapping (softmax, sparsemax, 1.5-entmax), in the high and medium settings, the mean over
seeds and the ensemble of the seeds, macro-averaged over languages.

One command runs the grid; it can be stopped and restarted at any time: finished runs are skipped,
interrupted ones resumed (``inflect.training.train(..., resume=True)``), evaluations are cached.
Only the public API is used (``inflect.training``, ``inflect.evaluation.runner``, ``inflect.render.markdown``); the
paper's table is made here (:func:`paper_table`).

    python recipes/sigmorphon2018/run.py --smoke --out runs/sigmorphon2018-smoke
    python recipes/sigmorphon2018/run.py --out runs/sigmorphon2018 --device cuda   # full size
    python recipes/sigmorphon2018/run.py --out runs/sigmorphon2018 --ray --gpus-per-run 0.5

With ``--ray [ADDRESS]`` every training run (setting, attention, output, seed) and every
evaluation is a Ray task with its resource request, on a local Ray the recipe starts or on a
running cluster (``auto``, ``ray://host:10001``); a task whose worker dies is retried and resumes
from its run's last saved state (``pip install 'sparse-inflect[cluster]'``).

See README.md in this folder for the sizes and their cost.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from inflect import defaults
from inflect.evaluation.runner import evaluate_checkpoints
from inflect.evaluation.scoring import MACRO
from inflect.io.atomic import atomic_write, write_text
from inflect.nn.checkpoint import checkpoint_members
from inflect.render.markdown import frame_markdown
from inflect.text.languages import all_languages, resolve
from inflect.training import load_data, run_status, train
from inflect.training.config import Config

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
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--out", default="runs/sigmorphon2018", help="Folder of runs and tables.")
    p.add_argument(
        "--smoke",
        action="store_true",
        help="Tiny size for CI: german and spanish, medium, preset tiny, 1 epoch, two "
        "grid cells, 2 seeds, one multilingual model per cell.",
    )
    p.add_argument(
        "--languages",
        default="all",
        help="Comma-separated languages, or 'all' (every language of the setting).",
    )
    p.add_argument("--settings", default="high,medium")
    p.add_argument("--outputs", default=",".join(MAPPINGS), help="Output mappings.")
    p.add_argument("--attentions", default=",".join(MAPPINGS), help="Attention mappings.")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument(
        "--per-language",
        action="store_true",
        help="One model per language (default: one multilingual model per setting, as the paper).",
    )
    p.add_argument("--preset", default=None, help="Hyperparameters (default: the paper's).")
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument(
        "--test-gold-dir",
        default=None,
        help="Folder with gold test files <language>-test: also evaluate on test.",
    )
    p.add_argument("--data-dir", default=None)
    p.add_argument("--device", default="auto")
    p.add_argument("--threads", type=int, default=None, help="CPU threads for torch.")
    p.add_argument(
        "--checkpoint-minutes",
        type=float,
        default=None,
        help="Save each run's resumable state at least this often inside an epoch "
        "(what a killed run loses at most; default: the trainer's).",
    )
    ray = p.add_argument_group("Ray (pip install 'sparse-inflect[cluster]')")
    ray.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="Run every training and evaluation as a Ray task: on a local Ray "
        "started here (no ADDRESS), or on a cluster ('auto', "
        "'ray://host:10001'). --out and --data-dir must then be paths every "
        "worker reads (a shared file system).",
    )
    ray.add_argument(
        "--gpus-per-run",
        type=float,
        default=0.0,
        help="GPUs a task requests (fractions share a GPU, e.g. 0.25).",
    )
    ray.add_argument(
        "--cpus-per-run",
        type=float,
        default=1.0,
        help="CPUs a task requests (also its torch threads, at least 1).",
    )
    ray.add_argument(
        "--max-retries",
        type=int,
        default=3,
        help="Times a task whose worker died is run again (it resumes).",
    )
    ray.add_argument(
        "--ray-cpus",
        type=int,
        default=None,
        help="CPUs of the local Ray started here (default: all).",
    )
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
    # one write, text and newline together: Ray prints the workers' lines from a thread of this
    # process, and print() writes the newline apart, where that thread can cut in
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


@dataclass(frozen=True)
class Cell:
    """One (setting, group of languages, output, attention) of the grid and its seeds' runs."""

    setting: str
    group: str
    languages: tuple[str, ...]
    output: str
    attention: str
    seeds: tuple[int, ...]
    folder: Path

    def run(self, seed: int) -> Path:
        return self.folder / f"seed{seed}"

    def config(self, g: dict, seed: int) -> Config:
        return Config.from_preset(
            g["preset"], attention_mapping=self.attention, output_mapping=self.output, seed=seed
        )

    def members(self) -> dict[str, list[Path]]:
        """``seed <n>`` -> its run; ``ensemble`` -> every seed's run (several seeds)."""
        members = {f"seed {s}": [self.run(s)] for s in self.seeds}
        if len(self.seeds) > 1:
            members[ENSEMBLE] = [self.run(s) for s in self.seeds]
        return members


def plan(g: dict, out: Path) -> list[Cell]:
    """The grid's cells, in the table's order."""
    cells = []
    for setting in g["settings"]:
        langs = languages_of(g["languages"], setting)
        groups = [("multilingual", langs)] if g["multilingual"] else [(n, [n]) for n in langs]
        for group, group_langs in groups:
            for output, attention in g["pairs"]:
                cells.append(
                    Cell(
                        setting,
                        group,
                        tuple(group_langs),
                        output,
                        attention,
                        tuple(g["seeds"]),
                        out / setting / group / f"{output}-{attention}",
                    )
                )
    return cells


#: Fault injection for the tests of ``--ray`` (a preempted node): ``SUFFIX:BATCH`` makes the
#: process training the run whose folder ends with SUFFIX exit at once, without saving, at batch
#: BATCH, the first time only (the file ``fault-injected`` in the run folder records it).
FAULT_VARIABLE = "SIGMORPHON2018_FAULT"
FAULT_MARKER = "fault-injected"


def _injected_fault(run: Path, fault: str | None):
    """A progress callback that kills this process as ``fault`` says (see FAULT_VARIABLE)."""
    suffix, _, batch = (fault or "").rpartition(":")
    if not suffix or not str(run).endswith(suffix) or (run / FAULT_MARKER).exists():
        return None

    def progress(event: str, info: dict) -> None:
        if event == "batch" and info["batch"] == int(batch):
            (run / FAULT_MARKER).touch()
            os._exit(1)

    return progress


def train_run(
    run: Path,
    config: Config,
    data,
    g: dict,
    device: str,
    checkpoint_seconds: float | None = None,
    fault: str | None = None,
) -> dict:
    """Train, resume or skip one run as its folder says; ``data`` is the TrainingData or a
    function returning it (read only when there is training to do).

    Returns:
        ``{"run": ..., "action": "skip" | "train" | "resume", "from": [epoch, batch]}``.
    """
    status = run_status(run)
    if status == "finished":
        log(f"skip (finished): {run}")
        return {"run": str(run), "action": "skip"}
    action = "resume" if status == "interrupted" else "train"
    log(f"{action}: {run}")
    start: dict[str, Any] = {}
    inject = _injected_fault(run, fault)

    def progress(event: str, info: dict) -> None:
        if event == "start":
            start.update(info)
        if inject is not None:
            inject(event, info)

    extra = {} if checkpoint_seconds is None else {"checkpoint_seconds": checkpoint_seconds}
    train(
        config if status == "new" else None,
        data() if callable(data) else data,
        run,
        device=device,
        resume=status == "interrupted",
        max_epochs=g["epochs"],
        progress=progress,
        **extra,
    )
    return {
        "run": str(run),
        "action": action,
        "from": [start.get("start_epoch", 0), start.get("start_batch", 0)],
    }


def evaluate_cached(
    models: list[Path],
    languages: list[str],
    split: str,
    cache: Path,
    gold_dir: str | None,
    data_dir: str | None,
    device: str,
) -> pd.DataFrame:
    """Per-language rows of inflect.evaluation.runner for these checkpoints, cached in ``cache``."""
    newest = max((m / "model.safetensors").stat().st_mtime for m in models)
    if cache.is_file() and cache.stat().st_mtime >= newest:
        return pd.read_parquet(cache)
    gold = [Path(gold_dir) / f"{lang}-test" for lang in languages] if split == "test" else ()
    result = evaluate_checkpoints(models, languages, split, gold, data_dir=data_dir,
                                  device=device)
    frame = result.frame[result.frame["language"] != MACRO]
    write_parquet(frame, cache)
    return frame


def result_rows(frame: pd.DataFrame, split: str, cell: Cell, member: str) -> list[dict]:
    return [
        {
            "split": split,
            "setting": cell.setting,
            "output": cell.output,
            "attention": cell.attention,
            "language": rec["language"],
            "member": member,
            "accuracy": rec["accuracy"],
            "levenshtein": rec["levenshtein"],
            "mean_strings": rec["mean_strings"],
            "single_string": rec["single_string"],
            "attention_density": rec["attention_density"],
        }
        for rec in frame.to_dict("records")
    ]


def run_here(
    cells: list[Cell],
    g: dict,
    args: argparse.Namespace,
    splits: list[str],
    checkpoint_seconds: float | None,
) -> list[dict]:
    """The grid in this process, one run after the other."""
    rows, loaded = [], {}
    for cell in cells:
        key = (cell.setting, cell.languages)
        if key not in loaded:
            loaded = {key: load_data(list(cell.languages), cell.setting, args.data_dir)}
        for seed in cell.seeds:
            train_run(
                cell.run(seed),
                cell.config(g, seed),
                loaded[key],
                g,
                args.device,
                checkpoint_seconds,
            )
        for split in splits:
            for member, models in cell.members().items():
                log(f"evaluate {split}: {cell.folder} {member}")
                frame = evaluate_member(cell, member, models, split, args)
                rows += result_rows(frame, split, cell, member)
    return rows


def evaluate_member(
    cell: Cell,
    member: str,
    models: list[Path],
    split: str,
    args: argparse.Namespace,
    device: str | None = None,
) -> pd.DataFrame:
    if member == ENSEMBLE:
        models = checkpoint_members(models)
    return evaluate_cached(
        models,
        list(cell.languages),
        split,
        cell.folder / f"eval-{split}-{member.replace(' ', '')}.parquet",
        args.test_gold_dir,
        args.data_dir,
        device or args.device,
    )


def run_on_ray(
    cells: list[Cell],
    g: dict,
    args: argparse.Namespace,
    splits: list[str],
    checkpoint_seconds: float | None,
) -> list[dict]:
    """The grid as Ray tasks: one per training run, one per evaluation (which waits for its
    runs). Each task reads the data files itself, from ``--data-dir`` (or the worker's
    ``INFLECT_DATA_DIR``); a task whose worker dies is retried and resumes its run.

    Raises:
        SystemExit: Ray is not installed; RuntimeError: some tasks failed (listed).
    """
    try:
        import ray
    except ImportError:
        raise SystemExit("--ray needs Ray: pip install 'sparse-inflect[cluster]'") from None
    local = args.ray == "local"
    ray.init(
        address=None if local else args.ray,
        num_cpus=args.ray_cpus if local else None,
        include_dashboard=False,
        configure_logging=False,
    )
    try:
        return _ray_grid(ray, cells, g, args, splits, checkpoint_seconds)
    finally:
        ray.shutdown()


def _ray_grid(ray, cells, g, args, splits, checkpoint_seconds) -> list[dict]:
    resources = {"num_cpus": args.cpus_per_run, "num_gpus": args.gpus_per_run}
    threads = max(1, int(args.cpus_per_run))
    device = "cuda" if args.gpus_per_run > 0 else args.device
    fault = os.environ.get(FAULT_VARIABLE)

    @ray.remote(max_retries=args.max_retries, **resources)
    def train_task(cell: Cell, seed: int) -> dict:
        torch.set_num_threads(threads)
        data = lambda: load_data(list(cell.languages), cell.setting, args.data_dir)  # noqa: E731
        return train_run(
            cell.run(seed), cell.config(g, seed), data, g, device, checkpoint_seconds, fault
        )

    @ray.remote(max_retries=args.max_retries, **resources)
    def evaluate_task(
        cell: Cell, member: str, models: list[Path], split: str, *trained: dict
    ) -> pd.DataFrame:
        torch.set_num_threads(threads)
        return evaluate_member(cell, member, models, split, args, device)

    trainings = {}
    for cell in cells:
        for seed in cell.seeds:
            trainings[cell.run(seed)] = train_task.remote(cell, seed)
    evaluations = {}
    for cell in cells:
        for split in splits:
            for member, models in cell.members().items():
                after = [trainings[m] for m in models]
                evaluations[cell, member, split] = evaluate_task.remote(
                    cell, member, models, split, *after
                )
    failures = []
    pending = {ref: run for run, ref in trainings.items()}
    log(f"Ray: {len(trainings)} training and {len(evaluations)} evaluation tasks submitted")
    while pending:
        (ref,), _ = ray.wait(list(pending), num_returns=1)
        run = pending.pop(ref)
        try:
            done = ray.get(ref)
        except Exception as exc:  # a task that failed for good (after its retries)
            failures.append(f"{run}: {exc}")
            log(f"failed: {run}: {type(exc).__name__}")
            continue
        if done["action"] == "skip":
            log(f"skip (finished): {run}")
        else:
            where = (
                ""
                if done["action"] == "train"
                else " from epoch {}, batch {}".format(done["from"][0] + 1, done["from"][1])
            )
            log(f"{'trained' if done['action'] == 'train' else 'resumed'}{where}: {run}")
    rows = []
    for (cell, member, split), ref in evaluations.items():
        try:
            rows += result_rows(ray.get(ref), split, cell, member)
        except Exception as exc:
            failures.append(f"evaluation {split} {cell.folder} {member}: {exc}")
    if failures:
        raise RuntimeError(f"{len(failures)} Ray task(s) failed:\n" + "\n".join(failures))
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    g = grid(args)
    out = Path(args.out).absolute()
    if args.data_dir:  # the workers read the data files from this path
        args.data_dir = str(Path(args.data_dir).absolute())
    splits = ["dev"] + (["test"] if args.test_gold_dir else [])
    checkpoint_seconds = None if args.checkpoint_minutes is None else 60 * args.checkpoint_minutes
    cells = plan(g, out)
    if args.ray:
        try:
            rows = run_on_ray(cells, g, args, splits, checkpoint_seconds)
        except RuntimeError as exc:
            log(str(exc))
            return 1
    else:
        rows = run_here(cells, g, args, splits, checkpoint_seconds)
    results = pd.DataFrame(rows)
    write_parquet(results, out / "results.parquet")
    write_csv(results, out / "results.csv")
    for split in splits:
        table = paper_table(results[results["split"] == split], g["settings"])
        write_csv(table, out / f"table-{split}.csv")
        write_parquet(table, out / f"table-{split}.parquet")
        text = (f"Accuracy (%) on {split}, macro-averaged over {len(set(results['language']))} "
                f"language(s); mean over seeds and ensemble of the seeds.\n\n"
                + frame_markdown(table))
        write_text(out / f"table-{split}.md", text)
        print(text)
    log(f"wrote {out / 'results.csv'} and the tables in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
