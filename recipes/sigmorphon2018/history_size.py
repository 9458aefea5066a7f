"""The packed size of the repository's history after each shipping round.

A shipping round is a commit on the first-parent history of a revision that changes the model
registry (``inflect/models/registry.toml``). For each, the size in bytes of one pack of every
object reachable from it (``git rev-list --objects C | git pack-objects --stdout``): what a clone
of the history up to that round downloads. Git reuses the deltas of its existing packs, so the
figures are those of the repository as packed now (run ``git gc`` first for a fresh packing).

    python recipes/sigmorphon2018/history_size.py [--rev main] [--since 2026-12-05]

Prints a markdown table: commit, date, packed MB of the history up to it, growth over the
round before, the weights' total size in that commit (MB), and the commit's title.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

REGISTRY = "inflect/models/registry.toml"
MODELS = "inflect/models"


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """The output of ``git ARGS`` in ``repo``; raises CalledProcessError naming the command."""
    return subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True,
                          check=True).stdout


def rounds(repo: Path, rev: str, since: str | None) -> list[tuple[str, str, str]]:
    """(commit, date, title) of the first-parent commits of ``rev`` that change the registry,
    oldest first."""
    args = ["log", "--first-parent", "--format=%H%x09%ad%x09%s", "--date=short"]
    if since:
        args.append(f"--since={since}")
    out = git(repo, *args, rev, "--", REGISTRY).decode()
    return [tuple(line.split("\t", 2)) for line in reversed(out.splitlines())]


def packed_size(repo: Path, commit: str) -> int:
    """Bytes of one pack of every object reachable from ``commit``."""
    objects = git(repo, "rev-list", "--objects", commit)
    return len(git(repo, "pack-objects", "--stdout", "-q", stdin=objects))


def weights_size(repo: Path, commit: str) -> int:
    """Bytes of the ``*.safetensors`` files under ``inflect/models`` in ``commit``."""
    out = git(repo, "ls-tree", "-r", "-l", commit, "--", MODELS).decode()
    return sum(int(line.split()[3]) for line in out.splitlines()
               if line.endswith(".safetensors"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("."))
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--since", default=None, help="only rounds from this date (git --since)")
    args = parser.parse_args()
    print("| commit | date | packed history (MB) | growth (MB) | weights (MB) | round |")
    print("|---|---|---:|---:|---:|---|")
    before = None
    for commit, date, title in rounds(args.repo, args.rev, args.since):
        size = packed_size(args.repo, commit)
        growth = "" if before is None else f"{(size - before) / 1e6:+.1f}"
        title = title if len(title) <= 90 else title[:87] + "..."
        print(f"| {commit[:7]} | {date} | {size / 1e6:.1f} | {growth} | "
              f"{weights_size(args.repo, commit) / 1e6:.1f} | {title} |", flush=True)
        before = size


if __name__ == "__main__":
    main()
