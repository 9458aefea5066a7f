"""Every command ends with one of the README's four exit statuses ("Exit status"): 0 done, 1 an
error (one line, no traceback), 2 a usage error (with the usage), 130 interrupted (Ctrl-C).

Each command is run here three ways: with a usage error, with an error a user meets (a file
that is not a model, an empty data folder, a port in use, a full disk behind standard output),
and interrupted by Ctrl-C in the middle of its work (a :class:`KeyboardInterrupt` raised by the
library function it calls, where Python's SIGINT handler would raise it). A command missing
from the table fails :func:`test_the_table_has_every_command`. `inflect serve`'s real Ctrl-C, a
port in use and a bad ``--host`` are also checked on a real process.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from inflect.cli import main

REPO = Path(__file__).resolve().parent.parent

#: command -> (usage error, error, (Ctrl-C: arguments, the function raising KeyboardInterrupt)).
#: ``{t}`` in an argument is the test's temporary folder, which holds ``empty/`` (an empty
#: folder), ``notmodel/`` (a folder that is no checkpoint), ``bad.tsv`` (a line without a tag
#: bundle), ``gold`` and ``pred`` (a prediction file and a gold file that do not overlap).
COMMANDS: dict[str, tuple[list[str], list[str], tuple[list[str], str]]] = {
    "train": (["train", "--lang", "german"],  # no --out
              ["train", "--lang", "german", "--out", "{t}/run", "--data-dir", "{t}/empty"],
              (["train", "--lang", "german", "--out", "{t}/run"],
               "inflect.training.items.load_data")),
    "queue": (["queue", "--lang", "german", "--jobs", "0", "--out", "{t}/q"],
              ["queue", "--status", "--out", "{t}/empty"],
              (["queue", "--lang", "german", "--out", "{t}/q"],
               "inflect.training.queue.run_queue")),
    "data fetch": (["data", "fetch"],
                   ["data", "fetch", "conll2018-task1", "--lang", "german", "--data-dir",
                    "{t}/bad.tsv/sub"],
                   (["data", "fetch", "conll2018-task1", "--lang", "german", "--data-dir",
                     "{t}/empty"], "inflect.corpora.manifests.fetch")),
    "data list": (["data", "list", "no-such-dataset"],
                  None,  # nothing of a user's can fail it: see the full-disk test below
                  (["data", "list"], "inflect.corpora.manifests.count_present")),
    "data stats": (["data", "stats", "germn"],
                   ["data", "stats", "german", "--data-dir", "{t}/empty"],
                   (["data", "stats", "german"], "inflect.corpora.stats.language_stats")),
    "data check": (["data", "check", "{t}/no-such-file"],
                   ["data", "check", "{t}/bad.tsv"],
                   (["data", "check", "{t}/bad.tsv"], "inflect.text.reading.check_file")),
    "lexicon fetch": (["lexicon", "fetch", "klingon"],
                      ["lexicon", "fetch", "german", "--data-dir", "{t}/bad.tsv/sub"],
                      (["lexicon", "fetch", "german", "--data-dir", "{t}/empty"],
                       "inflect.lexicon.unimorph.fetch_unimorph")),
    "lexicon add": (["lexicon", "add", "{t}/bad.tsv"],  # no --lang
                    ["lexicon", "add", "{t}/bad.tsv", "--lang", "german", "--data-dir",
                     "{t}/empty"],
                    (["lexicon", "add", "{t}/bad.tsv", "--lang", "german", "--data-dir",
                      "{t}/empty"], "inflect.lexicon.unimorph.add_unimorph")),
    "lexicon list": (["lexicon", "list", "--format", "xml"],
                     None,  # as data list
                     (["lexicon", "list", "--data-dir", "{t}/empty"],
                      "inflect.lexicon.unimorph.installed")),
    "lexicon remove": (["lexicon", "remove"],
                       ["lexicon", "remove", "german", "--data-dir", "{t}/empty"],
                       (["lexicon", "remove", "german", "--data-dir", "{t}/empty"],
                        "inflect.lexicon.unimorph.remove_unimorph")),
    "evaluate": (["evaluate", "--pred", "{t}/pred"],  # no --gold
                 ["evaluate", "--pred", "{t}/pred", "--gold", "{t}/gold"],
                 (["evaluate", "--pred", "{t}/pred", "--gold", "{t}/gold"],
                  "inflect.evaluation.scoring.score_files")),
    "report ambiguity": (["report", "ambiguity", "--model", "{t}/notmodel", "--out", "{t}/r.txt"],
                         ["report", "ambiguity", "--model", "{t}/notmodel", "--lang", "german",
                          "--data-dir", "{t}/empty"],
                         (["report", "ambiguity", "--model", "{t}/notmodel", "--lang", "german"],
                          "inflect.inference.user_models.checkpoint_languages")),
    "predict": (["predict", "--lang", "germn", "Haus", "N;DAT;PL"],
                ["predict", "--model", "{t}/notmodel", "Haus", "N;DAT;PL"],
                (["predict", "--lang", "german", "Haus", "N;DAT;PL"],
                 "inflect.inference.predictor.load_predictor")),
    "paradigm": (["paradigm", "--lang", "german", "Haus", "--format", "html"],  # no --out
                 ["paradigm", "--model", "{t}/notmodel", "Haus"],
                 (["paradigm", "--lang", "german", "Haus", "--pos", "N"],
                  "inflect.inference.predictor.load_predictor")),
    "models": (["models", "--format", "xml"],
               ["models", "--models-dir", "{t}/brokenreg"],
               (["models"], "inflect.inference.registry.list_models")),
    "explain": (["explain", "--lang", "german", "Haus"],  # no TAGS
                ["explain", "--model", "{t}/notmodel", "Haus", "N;DAT;PL"],
                (["explain", "--lang", "german", "Haus", "N;DAT;PL"],
                 "inflect.inference.predictor.load_predictor")),
    "translate": (["translate", "Hallo"],  # no --model
                  ["translate", "--model", "{t}/notmodel", "Hallo"],
                  (["translate", "--model", "{t}/notmodel", "Hallo"],
                   "inflect.inference.translator.Translator.from_checkpoints")),
    "lang add": (["lang", "add", "x"],  # no --from
                 ["lang", "add", "x", "--from", "{t}/bad.tsv"],
                 (["lang", "add", "x", "--from", "{t}/gold"],
                  "inflect.inference.user_models.spec_from")),
    "lang list": (["lang", "list", "--format", "xml"],
                  None,  # an empty folder of languages is listed as empty
                  (["lang", "list"], "inflect.text.languages.user_languages")),
    "lang show": (["lang", "show"],  # no NAME
                  ["lang", "show", "x", "--from", "{t}/bad.tsv"],
                  (["lang", "show", "x", "--from", "{t}/gold"],
                   "inflect.inference.user_models.spec_from")),
    "lang remove": (["lang", "remove"],  # no NAME
                    ["lang", "remove", "no-such-language"],
                    (["lang", "remove", "x"], "inflect.corpora.user_langs.remove_user_spec")),
    "runs compare": (["runs", "compare"],  # no FOLDERS
                     ["runs", "compare", "{t}/empty"],
                     (["runs", "compare", "{t}/empty"], "inflect.training.runs.compare_runs")),
    "serve": (["serve", "--port", "70000"],
              ["serve", "--port", "{busy}"],
              (["serve", "--port", "0"], "inflect.serve.running.run_server")),
}


def leaf_commands(group: click.Group, prefix: str = "") -> list[str]:
    found = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += leaf_commands(command, f"{prefix}{name} ")
        else:
            found.append(f"{prefix}{name}")
    return found


def test_the_table_has_every_command():
    assert sorted(COMMANDS) == sorted(leaf_commands(main))


@pytest.fixture
def place(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notmodel").mkdir()
    (tmp_path / "brokenreg").mkdir()
    (tmp_path / "brokenreg" / "registry.toml").write_text("models = [", encoding="utf-8")
    (tmp_path / "bad.tsv").write_text("Haus\tHäuser\t\n", encoding="utf-8")
    (tmp_path / "gold").write_text("Haus\tHäuser\tN;NOM;PL\n", encoding="utf-8")
    (tmp_path / "pred").write_text("Baum\tBäume\tN;NOM;PL\n", encoding="utf-8")
    return tmp_path


def invoke(args: list[str], place: Path, **fill):
    filled = [a.format(t=place, **fill) for a in args]
    result = CliRunner().invoke(main, filled, prog_name="inflect")
    assert "Traceback" not in result.output, result.output
    return result


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_usage_error_is_status_2_with_the_usage(command, place):
    result = invoke(COMMANDS[command][0], place)
    assert result.exit_code == 2, result.output
    assert f"Usage: inflect {command}" in result.output


@pytest.mark.parametrize("command", sorted(c for c in COMMANDS if COMMANDS[c][1] is not None))
def test_an_error_is_status_1_in_one_line(command, place):
    with socket.socket() as busy:  # serve's error: a port another program listens on
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        result = invoke(COMMANDS[command][1], place, busy=busy.getsockname()[1])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert "Usage:" not in result.output, result.output
    if command == "data check":  # its report: each problem with its file and line
        assert f"{place}/bad.tsv:1: empty tag bundle" in result.output
    else:
        assert len(errors) == 1, result.output


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_is_status_130(command, place, monkeypatch):
    args, target = COMMANDS[command][2]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    module, _, name = target.rpartition(".")
    if module.endswith(".Translator"):  # a class method
        from inflect.inference.translator import Translator

        monkeypatch.setattr(Translator, name, classmethod(interrupted))
    else:
        monkeypatch.setattr(f"{module}.{name}", interrupted)
    result = invoke(args, place)
    assert result.exit_code == 130, result.output
    assert "interrupted" in result.output and "Aborted" not in result.output


@pytest.mark.parametrize("command", [["data", "list"], ["lexicon", "list"]])
def test_a_full_disk_behind_standard_output_is_status_1(command):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here (Linux has one)")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "inflect", *command], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    assert done.returncode == 1
    assert done.stderr.count("Error: ") == 1 and "the device standard output goes to is full" \
        in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------------- inflect serve, for real
def serve(*args: str) -> subprocess.Popen:
    """``python -m inflect serve ARGS`` with SIGINT at its default (as at a terminal, even where
    the tests run in a background job that ignores it)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "INFLECT_THREADS": "1"}
    default_sigint = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                      "os.execv(sys.argv[1], sys.argv[1:])")
    return subprocess.Popen(
        [sys.executable, "-c", default_sigint, sys.executable, "-m", "inflect", "serve", *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


def test_serve_on_a_port_in_use_or_a_bad_host_is_one_line_and_status_1():
    pytest.importorskip("uvicorn")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = serve("--port", str(port))
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert err.splitlines() == [f"Error: cannot listen on 127.0.0.1:{port}: port {port} is in use "
                                "(another program listens on it); choose another with --port, or "
                                "--port 0 for any free port"]
    # 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of any machine
    proc = serve("--host", "192.0.2.1", "--port", "0")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert len(err.splitlines()) == 1 and "192.0.2.1 is not an address of this machine" in err


@pytest.mark.slow
def test_ctrl_c_on_serve_stops_it_with_status_130():
    pytest.importorskip("uvicorn")
    proc = serve("--port", "0")
    log: list[str] = []
    running = threading.Event()

    def read() -> None:
        for line in proc.stderr:
            log.append(line)
            if "Uvicorn running on" in line:
                running.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert running.wait(180), "".join(log)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130, "".join(log)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    assert any("interrupted" in line for line in log) and not any(
        "Traceback" in line for line in log), "".join(log)
