"""Data tests never skip silently: the summary counts them, and under CI=true they fail.

Runs pytest in a subprocess on a throwaway folder holding this suite's conftest.py and two data
tests (one marked, one using the ``conll2018`` fixture) where no data can be found.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

DATA_TESTS = """
import pytest


@pytest.mark.shared_data
def test_marked():
    pytest.skip("no data here")


def test_fixture(conll2018):
    pass


def test_plain():
    pass
"""


def run_suite(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    folder = tmp_path / "suite"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "conftest.py").write_text(CONFTEST.read_text(encoding="utf-8"))
    (folder / "tests" / "test_some_data.py").write_text(DATA_TESTS)
    (folder / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n    shared_data: needs ../shared/data\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "INFLECT_DATA_DIR")}
    env["INFLECT_DATA_DIR"] = str(tmp_path / "empty")  # holds no data
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_skipped_data_tests_are_counted_in_the_summary(tmp_path):
    out = run_suite(tmp_path, ci=None)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 data tests skipped: ../shared/data absent" in out.stdout
    assert "1 passed, 2 skipped" in out.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_a_skipped_data_test_fails_under_ci(tmp_path, ci):
    out = run_suite(tmp_path, ci=ci)
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stdout.count("data test skipped under CI=true") >= 2
    assert "test_marked" in out.stdout and "test_fixture" in out.stdout
    assert "1 passed" in out.stdout and "skipped" not in out.stdout.splitlines()[-1]
