"""Shared fixtures: where the real data live (``INFLECT_DATA_DIR`` or ``../shared/data``).

Data tests (marked ``shared_data``, or using the ``conll2018`` / ``multi30k`` fixtures, which mark
them) skip where the data are absent, and the run's summary says how many did. Under ``CI=true``
a skipped data test is a failure: CI always has ``../shared/data``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def conll2018_dir() -> Path | None:
    """The CoNLL–SIGMORPHON 2018 task 1 folder, or None where it is absent."""
    env = os.environ.get("INFLECT_DATA_DIR")
    candidates = [Path(env)] if env else []
    candidates += [Path(env) / "conll2018-task1"] if env else []
    candidates.append(SHARED_DATA / "conll2018-task1")
    for c in candidates:
        if (c / "german-dev").is_file():
            return c
    return None


@pytest.fixture(scope="session")
def conll2018() -> Path:
    path = conll2018_dir()
    if path is None:
        pytest.skip("CoNLL-SIGMORPHON 2018 data not found (set INFLECT_DATA_DIR)")
    return path


@pytest.fixture(scope="session")
def multi30k() -> Path:
    path = SHARED_DATA / "multi30k"
    if not (path / "train.de").is_file():
        pytest.skip("Multi30k data not found under ../shared/data/multi30k")
    return path


DATA_FIXTURES = frozenset({"conll2018", "multi30k"})


def in_ci() -> bool:
    """True where the environment says CI (``CI=true``, as CI services and .ci/run set it)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if DATA_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.shared_data)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and item.get_closest_marker("shared_data") is not None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = (
            f"data test skipped under CI=true ({reason}); CI must run every data test: "
            "provide ../shared/data or INFLECT_DATA_DIR"
        )


_data_skips: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped and "shared_data" in report.keywords:
        _data_skips.append(report.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    yield  # after the short test summary: the last line before the counts
    if _data_skips:
        n = len(set(_data_skips))
        terminalreporter.write_sep(
            "!",
            f"{n} data tests skipped: ../shared/data absent (set INFLECT_DATA_DIR; "
            "CI=true makes this a failure)",
            yellow=True,
            bold=True,
        )


@pytest.fixture(scope="session", autouse=True)
def no_user_languages(tmp_path_factory):
    """Every test (and every process it starts) reads an empty folder of the user's own
    languages (``INFLECT_LANGS_DIR``), not the developer's: the shipped specs alone, unless a
    test sets its own."""
    folder = tmp_path_factory.mktemp("user-langs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("INFLECT_LANGS_DIR", str(folder))
        yield folder


@pytest.fixture
def one_thread():
    """Run a test with one torch thread (model tests: steady timings, no oversubscription under
    xdist), restoring the previous count."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
