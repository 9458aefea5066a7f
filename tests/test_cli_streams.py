"""A closed standard stream, a full disk and absurd option values
end `inflect` with a one-line error and a nonzero exit status, never a Python traceback."""

from __future__ import annotations

import errno
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import safetensors
from click.testing import CliRunner
from test_train import _cli_train_args, _german_low_data

import inflect.nn.checkpoint
from inflect.cli import main

ROOT = Path(__file__).resolve().parents[1]


def shell(command: str) -> subprocess.CompletedProcess:
    """``python -m inflect COMMAND`` under bash (so that ``<&-`` / ``>&-`` close a stream)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "INFLECT_THREADS": "1"}
    line = f"{shlex.quote(sys.executable)} -m inflect {command}"
    return subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, env=env, timeout=300, check=False
    )


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("predict --lang de --input - <&-", "cannot read standard input: it is closed"),
        ("predict --lang de <&-", "cannot read standard input: it is closed"),
        ("predict --lang de Haus 'N;DAT;PL' >&-", "standard output is closed"),
        ("predict --lang de Haus 'N;DAT;PL' --format table >&-", "standard output is closed"),
        ("models >&-", "standard output is closed"),
        ("models --format table >&-", "standard output is closed"),
    ],
)
def test_a_closed_standard_stream_is_a_one_line_error(command, says):
    done = shell(command)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1
    assert says in done.stderr
    assert done.stderr.strip().count("\n") == 0  # one line


def test_translate_with_standard_input_closed(monkeypatch, tmp_path):
    """The same handler serves `inflect translate` (its sentences read from standard input):
    stand-in translator, standard input None as Python sets it when fd 0 is closed."""
    import inflect.inference.translator

    class Echo:
        def stream(self, queries, **options):  # options: e.g. idle (slow input)
            yield from queries

    monkeypatch.setattr(
        inflect.inference.translator.Translator, "from_checkpoints", classmethod(lambda *a, **k: Echo())
    )
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(Exception) as caught:
        main.main(["translate", "--model", str(tmp_path), "--format", "tsv"],
                  standalone_mode=False)
    assert type(caught.value).__name__ == "ClickException"
    assert "cannot read standard input: it is closed" in str(caught.value)


@pytest.mark.parametrize(
    "failure",
    [
        safetensors.SafetensorError(
            'Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "No '
            'space left on device" })'
        ),
        OSError(errno.ENOSPC, "No space left on device"),
    ],
    ids=["safetensors", "oserror"],
)
def test_a_full_disk_during_train_names_the_folder(tmp_path, monkeypatch, failure):
    data = _german_low_data(tmp_path)
    out = tmp_path / "run"
    args = [*_cli_train_args(data, "deu", "softmax"), "--out", str(out)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix == ".safetensors"}

    def full(*_args, **_kwargs):
        raise failure

    monkeypatch.setattr(inflect.nn.checkpoint, "save_file", full)
    resumed = [*args[:-6], "--epochs", "2", "--resume", "--data-dir", str(data), "--out", str(out)]
    result = CliRunner().invoke(main, resumed)
    assert result.exit_code == 1
    assert not isinstance(result.exception, (OSError, safetensors.SafetensorError))
    assert f"cannot write into {out}: the disk is full" in result.output
    assert "--resume" in result.output
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix == ".safetensors"}
    assert after == before  # intact
    assert not [p for p in out.iterdir() if p.name.endswith(".part")]  # nothing half-written


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--learning-rate", "inf"),
        ("--learning-rate", "nan"),
        ("--learning-rate", "1e30"),  # finite but absurd: outside (0, 10]
        ("--learning-rate", "0"),
        ("--checkpoint-minutes", "nan"),
        ("--checkpoint-minutes", "inf"),
        ("--language-temperature", "nan"),
    ],
)
def test_train_refuses_non_finite_and_absurd_floats_up_front(tmp_path, option, value):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["train", "--lang", "de", "--out", str(out), option, value])
    assert result.exit_code == 2  # a usage error, before any data are read
    assert f"Invalid value for '{option}'" in result.output
    assert not out.exists()  # no run folder left to block a rerun


# --- item 10: unclear or silent answers --------------------------------------------------------


def test_evaluate_names_a_baseline_file_that_is_not_utf8(tmp_path):
    gold = tmp_path / "german-dev"
    gold.write_text("Haus\tHäuser\tN;NOM;PL\n", encoding="utf-8")
    pred = tmp_path / "german.pred"
    pred.write_text("Haus\tHäuser\tN;NOM;PL\n", encoding="utf-8")
    baseline = tmp_path / "baseline.csv"
    # "Deutsch" with ü written in Latin-1 (0xFC): not UTF-8, at the 26th byte
    baseline.write_bytes(b"language,setting,accuracy,levenshtein\nd\xfc,high,1,1\n")
    result = CliRunner().invoke(main, [
        "evaluate", "--pred", str(pred), "--gold", str(gold), "--baseline", str(baseline),
        "--out", str(tmp_path / "res"), "--format", "tsv",
    ])
    assert result.exit_code == 1 and result.exception.__class__ is SystemExit
    assert f"{baseline}: not UTF-8 text" in result.output


def test_evaluate_scores_two_files_of_any_name_as_evalm_does(tmp_path):
    # evalm.py takes any two files: a name that gives no language ('gold', 'de50') is the
    # pair's label, and --lang still names the language
    gold = tmp_path / "gold"
    gold.write_text("Haus\tHäuser\tN;NOM;PL\nBaum\tBäume\tN;NOM;PL\n", encoding="utf-8")
    pred = tmp_path / "pred"
    pred.write_text("Haus\tHäuser\tN;NOM;PL\nBaum\tBaume\tN;NOM;PL\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["evaluate", "--pred", str(pred), "--gold", str(gold),
                                       "--format", "tsv"])
    assert result.exit_code == 0, result.output
    # one of two exact (50 %); distances 0 and 1 (ä -> a), mean 0.5
    assert result.output.splitlines()[1].split("\t")[:4] == ["gold", "2", "50.0", "0.5"]
    de50 = tmp_path / "de50-dev"
    de50.write_bytes(gold.read_bytes())
    labelled = CliRunner().invoke(main, ["evaluate", "--pred", str(pred), "--gold", str(de50),
                                         "--format", "tsv"])
    assert labelled.output.splitlines()[1].split("\t")[:3] == ["de50", "2", "50.0"]
    given = CliRunner().invoke(main, ["evaluate", "--pred", str(pred), "--gold", str(gold),
                                      "--lang", "de", "--format", "tsv"])
    assert given.exit_code == 0, given.output
    assert given.output.splitlines()[1].split("\t")[:3] == ["german", "2", "50.0"]
    # two pairs whose names give the same label: each named by its path
    other = tmp_path / "b"
    other.mkdir()
    (other / "gold").write_bytes(gold.read_bytes())
    (other / "pred").write_bytes(gold.read_bytes())
    two = CliRunner().invoke(main, ["evaluate", "--pred", str(pred), "--gold", str(gold),
                                    "--pred", str(other / "pred"), "--gold", str(other / "gold"),
                                    "--format", "tsv"])
    assert two.exit_code == 0, two.output
    rows = [line.split("\t")[:3] for line in two.output.splitlines()[1:]]
    assert rows == [[str(gold), "2", "50.0"], [str(other / "gold"), "2", "100.0"],
                    ["macro-average", "4", "75.0"]]


def test_predict_strips_whitespace_around_the_lemma(tmp_path):
    from inflect.inference.queries import InputError, make_query, read_queries

    query = make_query(" Haus ", " N;DAT;PL ", "de")
    assert query.lemma == "Haus" and str(query.tags) == "N;DAT;PL"
    assert make_query("wandert aus", "V;NFIN").lemma == "wandert aus"  # inner spaces kept
    with pytest.raises(InputError):
        make_query("  ", "N;DAT;PL")
    path = tmp_path / "in.tsv"
    path.write_text(" Haus\tN;DAT;PL\nBaum \tN;NOM;PL\n", encoding="utf-8")
    assert [q.lemma for q in read_queries(path)] == ["Haus", "Baum"]
