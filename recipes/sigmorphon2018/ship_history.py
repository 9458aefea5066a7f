"""ship.py's history check (``--max-commits N``): how many distinct weight files of one training
run git's history of the models folder already holds, so that a ship commits the weights of one
model at most N times (the size budget's rule is twice: git keeps every file ever committed, and
a 4-bit copy of weights shipped in int8 is those weights once more).

A run is known by its checkpoint's ``training`` record (data, seed, epochs, best epoch:
:func:`inflect.nn.checkpoint.save_model`), which every stored copy of its weights carries
unchanged (float16, int8, 4 bits, trimmed, repacked); a file by its git blob id. A candidate's
file that the history already holds (the same bytes shipped again) adds nothing.
"""

from __future__ import annotations

import json
import struct
import subprocess
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ship_candidates import Models, checkpoint_file

from inflect.io.atomic import git_blob_of

#: Suffix of the weight files the history check reads.
WEIGHTS_SUFFIX = ".safetensors"


def run_key(meta: dict[str, Any] | None) -> str | None:
    """The run a checkpoint's metadata (:func:`inflect.nn.checkpoint.load_metadata`) comes
    from: its ``training`` record as canonical JSON, or None where it has none (such files are
    not counted: nothing says which run they are)."""
    training = (meta or {}).get("training")
    return json.dumps(training, sort_keys=True) if training else None


def header_metadata(data: bytes) -> dict[str, Any] | None:
    """The ``sparse_inflect`` metadata of a safetensors file's bytes (the format's 8-byte
    little-endian header length, then the JSON header), or None for bytes that are not such a
    file."""
    from inflect.nn.checkpoint import META_KEY

    try:
        (n,) = struct.unpack("<Q", data[:8])
        raw = json.loads(data[8:8 + n]).get("__metadata__", {}).get(META_KEY)
        return json.loads(raw) if raw else None
    except (struct.error, ValueError, AttributeError, TypeError):
        return None


def commit_history(models_dir: Path) -> dict[str, set[str]]:
    """Run (:func:`run_key`) -> the blob ids of its weight files in the history of every ref of
    the git repository that holds ``models_dir``, under ``models_dir``.

    Raises:
        SystemExit: ``models_dir`` is not inside a git repository (or git is missing).
    """
    def git(*args: str, **kw: Any) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(models_dir), *args], check=True, **kw)

    try:
        log = git("log", "--all", "--format=", "--raw", "--no-abbrev", "--", ".",
                  capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"--max-commits reads git's history of {models_dir}, which is not in a "
                         f"git repository ({exc})") from None
    blobs = sorted({fields[3] for line in log.splitlines() if line.startswith(":")
                    for fields in [line.split("\t")[0].split()]
                    if line.endswith(WEIGHTS_SUFFIX) and set(fields[3]) != {"0"}})
    runs: dict[str, set[str]] = defaultdict(set)
    # one blob at a time (the history's weights are hundreds of MB): "<id> blob <size>\n", the
    # bytes, "\n"
    with subprocess.Popen(["git", "-C", str(models_dir), "cat-file", "--batch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as cat:
        for blob in blobs:
            cat.stdin.write(f"{blob}\n".encode())
            cat.stdin.flush()
            size = int(cat.stdout.readline().split()[2])
            key = run_key(header_metadata(cat.stdout.read(size)))
            cat.stdout.read(1)
            if key is not None:
                runs[key].add(blob)
        cat.stdin.close()
    return runs


def over_limit(models: Models, names: Iterable[str], history: dict[str, set[str]],
               limit: int) -> dict[str, str]:
    """The candidates among ``names`` one of whose member files would be a new file of a run
    whose weights the history already holds in ``limit`` distinct files: name -> why.

    Args:
        models: name -> its member checkpoints (as prepared: the files that would ship).
        names: the candidates to check.
        history: :func:`commit_history`.
        limit: the most distinct files of one run's weights the history may hold.
    """
    from inflect.nn.checkpoint import load_metadata

    over = {}
    for name in names:
        for path in models[name]:
            file = checkpoint_file(path)
            key = run_key(load_metadata(file))
            if key is None:
                continue
            files = history.get(key, set()) | {git_blob_of(file)}
            if len(files) > limit:
                over[name] = (f"{file.name} would be file {len(files)} of its run's weights in "
                              f"git's history")
                break
    return over
