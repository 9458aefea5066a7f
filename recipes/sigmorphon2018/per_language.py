"""One model per language on a Ray cluster: the queue of ``inflect queue``, each language a Ray task.

The queue folder and its restart rules are those of ``inflect queue`` (``inflect.training.queue``):
``OUT/queue.json``, one run folder per language; a finished language is skipped, an interrupted
one resumed. Each language is one task requesting ``--cpus-per-run`` CPUs (its torch threads)
and ``--gpus-per-run`` GPUs; a task whose worker dies is retried (``--max-retries``) and resumes
from the run's last saved state. ``--out`` and ``--data-dir`` must be paths every worker reads and
writes (a shared file system).

    python recipes/sigmorphon2018/per_language.py --ray --ray-cpus 2 --lang votic,uzbek \\
        --setting high --out runs/per-language -- --preset cpu-small-plain --epochs 30
    python recipes/sigmorphon2018/per_language.py --ray auto --lang all --setting high \\
        --out /shared/runs/high --data-dir /shared/data -- --preset cpu-small-plain
    inflect queue --status --out /shared/runs/high          # the table, from any machine

Without ``--ray`` the languages run here, ``--jobs`` at a time (the same as ``inflect queue``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def log(message: str) -> None:
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    argv = list(sys.argv[1:] if argv is None else argv)
    train_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="The queue's folder.")
    p.add_argument("--lang", default=None, help="Languages (comma-separated) or 'all'.")
    p.add_argument("--setting", default=None, help="high, medium or low (default: high).")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--jobs", type=int, default=1, help="Without --ray: languages at a time.")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="Each language a Ray task: a local Ray (no ADDRESS), 'auto' or "
                        "'ray://host:10001'.")
    p.add_argument("--cpus-per-run", type=float, default=1.0)
    p.add_argument("--gpus-per-run", type=float, default=0.0)
    p.add_argument("--max-retries", type=int, default=3)
    p.add_argument("--ray-cpus", type=int, default=None, help="CPUs of the local Ray.")
    args = p.parse_args(argv)
    args.train_args = tuple(train_args)
    return args


def queue_spec(args: argparse.Namespace):
    from inflect.text.languages import all_languages, resolve
    from inflect.training.queue import QUEUE_FILE, QueueSpec

    root = Path(args.out)
    saved = QueueSpec.load(root) if (root / QUEUE_FILE).is_file() else None
    if saved is None and args.lang is None:
        raise SystemExit("give --lang for a new queue")
    setting = args.setting or (saved.setting if saved else "high")
    if args.lang is None:
        languages = saved.languages
    elif args.lang == "all":
        languages = tuple(s.name for s in all_languages() if setting in s.settings)
    else:
        languages = tuple(dict.fromkeys(resolve(n).name for n in args.lang.split(",") if n))
    train_args = args.train_args or (saved.train_args if saved else ())
    spec = QueueSpec(setting, languages, train_args)
    if saved is not None:
        spec = saved.extended(spec, root)
    root.mkdir(parents=True, exist_ok=True)
    spec.save(root)
    return spec


def on_ray(spec, args: argparse.Namespace) -> list[str]:
    """Every language a Ray task; returns the failures (language: error)."""
    try:
        import ray
    except ImportError:
        raise SystemExit("--ray needs Ray: pip install 'sparse-inflect[cluster]'") from None
    from inflect.training.queue import run_language

    local = args.ray == "local"
    ray.init(address=None if local else args.ray, num_cpus=args.ray_cpus if local else None,
             include_dashboard=False, configure_logging=False)
    threads = max(1, int(args.cpus_per_run))
    root = Path(args.out).absolute()
    data_dir = None if args.data_dir is None else str(Path(args.data_dir).absolute())

    @ray.remote(max_retries=args.max_retries, num_cpus=args.cpus_per_run,
                num_gpus=args.gpus_per_run)
    def train_language(language: str) -> str:
        status = run_language(spec, root, language, threads, data_dir)
        return f"{status.language}: {status.state}, epoch {status.epochs}"

    try:
        pending = {train_language.remote(lang): lang for lang in spec.languages}
        log(f"Ray: {len(pending)} language task(s) submitted")
        failures = []
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            language = pending.pop(ref)
            try:
                log(ray.get(ref))
            except Exception as exc:  # failed for good, after its retries
                failures.append(f"{language}: {type(exc).__name__}: {exc}")
                log(f"{language}: FAILED")
        return failures
    finally:
        ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    from inflect.training.queue import queue_status, run_queue

    args = parse_args(argv)
    spec = queue_spec(args)
    if args.ray:
        failures = on_ray(spec, args)
    else:
        statuses = run_queue(spec, args.out, jobs=args.jobs, data_dir=args.data_dir, log=log)
        failures = [s.language for s in statuses if s.state == "failed"]
    for status in queue_status(args.out):
        best = "" if status.best_accuracy is None else f"{status.best_accuracy:.1f}"
        print(f"{status.language}\t{status.state}\t{status.epochs}\t{best}")
    if failures:
        log(f"{len(failures)} language(s) failed:\n" + "\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
