"""ship.py --max-commits (recipes/sigmorphon2018/ship_history.py): the files of one run's weights
that git's history holds, counted from a repository built here commit by commit."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest
import torch
from test_recipe_sigmorphon import _load_ship

from inflect.io.atomic import git_blob_of
from inflect.nn.checkpoint import FORMAT, save_tensors

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                    *args], check=True, capture_output=True)


def _weights(path, run: str | None, value: float):
    """A weight file of run ``run`` (its ``training`` record; None: none) holding ``value``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"format": FORMAT} | ({"training": {"run": run, "seed": 1}} if run else {})
    save_tensors(path, {"w": torch.full((2, 3), value)}, meta)
    return path


def test_blob_id_is_gits(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"hello\n")
    # git hash-object of "hello\n", as git prints it (the id the history check compares)
    assert git_blob_of(path) == "ce013625030ba8dba906f756967f9e9ca394464a"
    data = b"blob 6\0hello\n"
    assert git_blob_of(path) == hashlib.sha1(data).hexdigest()


def test_a_third_copy_of_a_runs_weights_is_over_a_limit_of_two(tmp_path):
    history = _load_ship("ship_history")
    repo = tmp_path / "repo"
    models = repo / "models"
    _git(tmp_path, "init", "-q", str(repo))
    shipped = _weights(models / "a" / "member-1.safetensors", "A", 1.0)  # run A in int8, say
    _weights(models / "c" / "member-1.safetensors", None, 5.0)  # no training record
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    _weights(shipped, "A", 2.0)  # run A again, stored another way (4 bits): its second file
    _git(repo, "commit", "-qam", "two")
    _git(repo, "checkout", "-qb", "side")  # a file on another branch counts too
    _weights(models / "b" / "member-1.safetensors", "B", 3.0)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "three")
    _git(repo, "checkout", "-q", "-")

    runs = history.commit_history(models)
    key_a = history.run_key({"training": {"run": "A", "seed": 1}})
    key_b = history.run_key({"training": {"seed": 1, "run": "B"}})
    assert {k: len(v) for k, v in runs.items()} == {key_a: 2, key_b: 1}

    out = tmp_path / "prepared"
    candidates = {
        "a-third": [_weights(out / "a3" / "member-1.safetensors", "A", 4.0)],
        "a-again": [_weights(out / "a2" / "member-1.safetensors", "A", 2.0)],  # same bytes
        "b-second": [_weights(out / "b2" / "member-1.safetensors", "B", 6.0)],
        "new-run": [_weights(out / "n" / "member-1.safetensors", "N", 7.0)],
        "unknown": [_weights(out / "u" / "member-1.safetensors", None, 8.0)],
        "ensemble": [out / "n" / "member-1.safetensors", out / "a3" / "member-1.safetensors"],
    }
    over = history.over_limit(candidates, candidates, runs, 2)
    assert set(over) == {"a-third", "ensemble"}
    assert "file 3 of its run" in over["a-third"]
    assert set(history.over_limit(candidates, candidates, runs, 1)) == {
        "a-third", "a-again", "b-second", "ensemble"}


def test_the_history_check_needs_a_repository(tmp_path):
    history = _load_ship("ship_history")
    with pytest.raises(SystemExit, match="not in a git repository"):
        history.commit_history(tmp_path)


def test_the_header_of_bytes_that_are_not_a_checkpoint_is_none(tmp_path):
    history = _load_ship("ship_history")
    assert history.header_metadata(b"") is None
    assert history.header_metadata(b"\x05\0\0\0\0\0\0\0{oops") is None
    path = _weights(tmp_path / "w.safetensors", "A", 1.0)
    assert history.header_metadata(path.read_bytes())["training"] == {"run": "A", "seed": 1}
