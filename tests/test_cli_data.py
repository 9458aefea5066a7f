"""The `inflect data` commands: fetch, list, stats, check."""

from __future__ import annotations

import hashlib
import re
import socket

import pytest
from click.testing import CliRunner

from inflect.cli import main


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200", **(env or {})})


# --- check ------------------------------------------------------------------------------------


def test_check_reports_every_problem_and_fails(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_bytes(
        b"\xef\xbb\xbfHaus\tH\xc3\xa4user\tN;NOM;PL\r\n"  # 1 ok (BOM, CRLF)
        b"only two\tfields\r\n"  # 2 wrong count for the detected format
        b"\r\n"  # 3 blank
        b"Geh\xe4use\tx\tN\r\n"  # 4 not UTF-8
        b"a\tb\tV;;PL\r\n"  # 5 empty feature
        b"a\t\tN\r\n"  # 6 empty form
    )
    result = run("data", "check", str(path))
    assert result.exit_code == 1, result.output
    numbers = re.findall(rf"^{re.escape(str(path))}:(\d+): ", result.output, flags=re.M)
    assert [int(n) for n in numbers] == [2, 4, 5, 6]
    assert "4 problems" in result.output and "1 blank line" in result.output


def test_check_names_the_line_of_every_warning(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text(
        "Haus\tHäuser\tN;NOM;PL\n"  # 1 fine
        "Tier \tTiere\tN;NOM;PL\n"  # 2 trailing space in the lemma
        "Hund\tHunde\tN;NOM;NOM;PL\n"  # 3 repeated feature
        "Baum\tBäume\tN; NOM;PL\n",  # 4 space around a feature
        encoding="utf-8",
    )
    result = run("data", "check", str(path))
    assert result.exit_code == 0, result.output  # warnings only: the file reads
    warned = re.findall(rf"^warning: {re.escape(str(path))}:(\d+): (.*)$", result.output,
                        flags=re.M)
    assert [(int(n), what.split(" (")[0]) for n, what in warned] == [
        (2, "lemma begins or ends with whitespace"),
        (3, "tag bundle repeats a feature"),
        (4, "spaces around a feature of the tag bundle"),
    ]


def test_check_accepts_a_good_file(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("Haus\tN;NOM;PL\tHäuser\nwandern\tV;PL;1\twandern aus\n", encoding="utf-8")
    result = run("data", "check", "--format", "2023", str(path))
    assert result.exit_code == 0, result.output
    assert (
        "OK" in result.output and "2 examples" in result.output and "format 2023" in result.output
    )
    # The same file is a valid 2018 file too (3 fields); a covered-format check fails on it.
    result = run("data", "check", "--format", "covered", str(path))
    assert result.exit_code == 1
    assert "2 problems" in result.output


def test_check_missing_file():
    result = run("data", "check", "/nonexistent/file")
    assert result.exit_code == 2 and "does not exist" in result.output


# --- stats ------------------------------------------------------------------------------------


@pytest.fixture
def toy_data(tmp_path):
    folder = tmp_path / "conll2018-task1"
    folder.mkdir()
    (folder / "german-train-low").write_text(
        "Haus\tHäuser\tN;NOM;PL\n"
        "auswandern\twandert aus\tV;IND;PRS;2;PL\n"
        "Haus\tHauses\tN;GEN;SG\n"
        "Hund\tHunde\tPL;NOM;N\n",  # the first bundle in another order
        encoding="utf-8",
    )
    (folder / "german-dev").write_text("Maus\tMäuse\tN;NOM;PL\n", encoding="utf-8")
    (folder / "german-covered-test").write_text("Laus\tN;NOM;PL\n", encoding="utf-8")
    return tmp_path


def _row(output: str, name: str) -> list[str]:
    for line in output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line)]
        if len(cells) > 2 and cells[1] == name:
            return cells[2:-1]
    raise AssertionError(f"no row {name!r} in\n{output}")


def test_stats_table(toy_data):
    result = run("data", "stats", "de", "--setting", "low", "--data-dir", str(toy_data),
                 "--format", "table")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "german" in out
    assert _row(out, "pairs") == ["4", "1", "1"]
    assert _row(out, "lemmas") == ["3", "1", "1"]
    assert _row(out, "bundles") == ["3", "1", "1"]  # {N,NOM,PL} {V,IND,PRS,2,PL} {N,GEN,SG}
    assert _row(out, "features") == ["9", "3", "3"]  # N NOM PL V IND PRS 2 GEN SG
    assert _row(out, "bundles in >1 order") == ["1", "0", "0"]
    assert _row(out, "with spaces") == ["1 (25.0%)", "0 (0.0%)", "0 (0.0%)"]
    assert _row(out, "longest lemma") == ["10", "4", "4"]  # auswandern
    assert _row(out, "longest form") == ["11", "5", "—"]  # wandert aus
    assert "wandert aus" in out


def test_stats_reads_the_environment_variable(toy_data):
    result = run("data", "stats", "german", "--format", "table",
                 env={"INFLECT_DATA_DIR": str(toy_data)})
    assert result.exit_code == 0, result.output
    assert _row(result.output, "pairs") == ["4", "1", "1"]  # only the low setting is present


def test_stats_errors(toy_data):
    result = run("data", "stats", "germn", "--data-dir", str(toy_data))
    assert result.exit_code == 2 and "did you mean 'german'" in result.output
    result = run("data", "stats", "german", "--setting", "high", "--data-dir", str(toy_data))
    assert result.exit_code == 1 and "INFLECT_DATA_DIR" in result.output


# --- list and fetch ---------------------------------------------------------------------------


def test_list(toy_data):
    result = run("data", "list", "--data-dir", str(toy_data), "--format", "table")
    assert result.exit_code == 0, result.output
    assert "conll2018-task1" in result.output and "multi30k" in result.output
    assert "CC BY-SA" in result.output
    german = next(line for line in result.output.splitlines() if "│ german " in line)
    cells = [c.strip() for c in german.split("│")[1:-1]]
    assert cells[:6] == ["german", "10,000", "1,000", "100", "1,000", "1,000"]
    assert cells[-1] == "3/5"
    middle_low = next(line for line in result.output.splitlines() if "middle-low-german" in line)
    assert [c.strip() for c in middle_low.split("│")[1:-1]][1] == "—"  # no high setting


def test_list_unknown_dataset():
    result = run("data", "list", "nope")
    assert result.exit_code == 2 and "unknown dataset" in result.output


def _toy_manifest(tmp_path, url: str) -> str:
    content = b"Haus\tH\xc3\xa4user\tN;NOM;PL\n"
    (tmp_path / "upstream").mkdir()
    (tmp_path / "upstream" / "toy-dev").write_bytes(content)
    manifest = tmp_path / "toy.toml"
    manifest.write_text(
        f'name = "toy"\nlicence = "CC0"\nurl_template = "{url}/{{upstream}}"\n'
        f'[[files]]\nlanguage = "toy"\nsplit = "dev"\npath = "toy/toy-dev"\n'
        f'upstream = "toy-dev"\nsha256 = "{hashlib.sha256(content).hexdigest()}"\n'
        f"size = {len(content)}\n",
        encoding="utf-8",
    )
    return str(manifest)


def test_fetch_from_a_local_copy(tmp_path):
    manifest = _toy_manifest(tmp_path, (tmp_path / "upstream").as_uri())
    result = run("data", "fetch", manifest, "--data-dir", str(tmp_path / "data"))
    assert result.exit_code == 0, result.output
    assert "1 downloaded, 0 already present" in result.output
    assert (tmp_path / "data" / "toy" / "toy-dev").read_text(encoding="utf-8").startswith("Haus")
    result = run("data", "fetch", manifest, "--data-dir", str(tmp_path / "data"))
    assert "0 downloaded, 1 already present" in result.output


def test_fetch_offline_says_how_to_use_a_local_copy(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    manifest = _toy_manifest(tmp_path, f"http://127.0.0.1:{port}")
    result = run("data", "fetch", manifest, "--data-dir", str(tmp_path / "data"))
    assert result.exit_code == 1
    assert "offline" in result.output and "INFLECT_DATA_DIR" in result.output
    assert "Traceback" not in result.output


def test_fetch_unknown_language():
    result = run("data", "fetch", "conll2018-task1", "--lang", "klingon", "--data-dir", "/tmp/x")
    assert result.exit_code == 2 and "has no language 'klingon'" in result.output


# --- the shared copy --------------------------------------------------------------------------


@pytest.mark.shared_data
def test_stats_german_high_on_the_shared_copy(conll2018):
    result = run(
        "data", "stats", "german", "--setting", "high", "--format", "table",
        env={"INFLECT_DATA_DIR": str(conll2018)},
    )
    assert result.exit_code == 0, result.output
    assert _row(result.output, "pairs") == ["10,000", "1,000", "1,000"]
    lines = (conll2018 / "german-train-high").read_text(encoding="utf-8").splitlines()
    spaces = sum(" " in line.split("\t")[0] or " " in line.split("\t")[1] for line in lines)
    assert _row(result.output, "with spaces")[0] == f"{spaces:,} ({100 * spaces / len(lines):.1f}%)"


@pytest.mark.shared_data
def test_list_counts_the_shared_copy(conll2018):
    result = run("data", "list", "--data-dir", str(conll2018), "--format", "table")
    assert result.exit_code == 0, result.output
    assert "497 (497)" in result.output
