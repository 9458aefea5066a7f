"""What a new user met, each case and its kin across commands and formats:
a terminal of any width (``COLUMNS=0``, 40 or 60 columns: every number whole), ``-`` for
standard output wherever a command writes a file, readers that name a file's encoding (UTF-16,
UTF-32, Latin-1 / Windows-1252) and skip a header line alike, Ctrl-C while standard input is
read, explain's one panel per form, and paradigm records of one shape with predict's.

Expected values are written by hand from the inputs, or taken from another command's output
(the TSV of the same listing, ``inflect predict`` for the same input).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from inflect.cli import main

REPO = Path(__file__).resolve().parent.parent


def run(*args: str, env: dict | None = None, input: str | bytes | None = None):
    return CliRunner().invoke(main, list(args), env=env, input=input, prog_name="inflect")


# ------------------------------------------------------------------------ terminals of any width
@pytest.mark.parametrize("columns", ["0", "abc", ""])
def test_a_columns_that_is_no_width_prints_the_table(columns):
    # COLUMNS=0 printed nothing: rich took it for a width of 0
    out = run("predict", "--lang", "german", "--no-lexicon", "Haus", "N;DAT;PL", "--format",
              "table", env={"COLUMNS": columns})
    assert out.exit_code == 0, out.output
    assert "Hausen" in out.output and "Häusern" in out.output and "probability" in out.output


def models_tsv() -> list[dict]:
    out = run("models", "--format", "tsv")
    header, *rows = out.output.splitlines()
    return [dict(zip(header.split("\t"), row.split("\t"), strict=True)) for row in rows]


@pytest.mark.parametrize("width", [40, 60, 100])
def test_models_keeps_every_dev_accuracy_whole(width):
    # at 60 columns 100.00 was shown as "10…"
    expected = sorted(f"{float(r['dev_accuracy']):.2f}" for r in models_tsv()
                      if r["dev_accuracy"])
    out = run("models", "--format", "table", env={"COLUMNS": str(width)})
    assert out.exit_code == 0, out.output
    assert "…" not in out.output
    shown = sorted(re.findall(r"(?<![\d.])\d{1,3}\.\d\d(?![\d])", out.output))
    assert shown == expected
    assert "100.00" in shown
    assert max(len(line) for line in out.output.splitlines()) <= width


def test_models_keeps_the_method_column_at_100_columns():
    # at 100 columns the method column was dropped; it wraps now
    out = run("models", "--format", "table", env={"COLUMNS": "100"})
    header = next(line for line in out.output.splitlines() if line.startswith("language"))
    assert header.split()[-1] == "method"
    assert "halluc." in out.output and "scratch" in out.output


@pytest.mark.parametrize("width", [40, 60])
def test_evaluate_keeps_100_00_whole_on_a_narrow_terminal(tmp_path, width):
    gold = tmp_path / "gold"
    gold.write_text("Haus\tHäuser\tN;NOM;PL\nBaum\tBäume\tN;NOM;PL\n", encoding="utf-8")
    out = run("evaluate", "--pred", str(gold), "--gold", str(gold), "--format", "table",
              env={"COLUMNS": str(width)})
    assert out.exit_code == 0, out.output
    assert "…" not in out.output
    assert out.output.count("100.00") == 2 and out.output.count("0.00") >= 4  # accuracy, lev.


@pytest.mark.parametrize("width", [40, 60])
def test_lexicon_list_cuts_no_number_on_a_narrow_terminal(width):
    out = run("lexicon", "list", "--format", "table", env={"COLUMNS": str(width)})
    assert out.exit_code == 0, out.output
    assert "…" not in out.output
    pairs = next(line for line in run("lexicon", "list", "--format", "tsv").output.splitlines()
                 if line.startswith("shared-task data")).split("\t")[3]
    assert f"{int(pairs):,}" in out.output  # the shipped lexicon's pairs, whole


def test_data_stats_keeps_its_numbers_whole_at_60_columns(conll2018):
    out = run("data", "stats", "german", "--data-dir", str(conll2018), "--format", "table",
              env={"COLUMNS": "60"})
    assert out.exit_code == 0, out.output
    assert "…" not in out.output
    # german-train-high: 10,000 pairs; the share of pairs with a space, as the TSV gives it
    tsv = run("data", "stats", "german", "--data-dir", str(conll2018), "--format", "tsv")
    header, *rows = tsv.output.splitlines()
    high = dict(zip(header.split("\t"), rows[0].split("\t"), strict=True))
    assert f"{int(high['pairs']):,}" == "10,000" and "10,000" in out.output
    assert f"{int(high['with_spaces']):,}" in out.output


# ------------------------------------------------------------------ '-' is standard output
def test_paradigm_html_out_dash_writes_standard_output_not_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = run("paradigm", "--lang", "german", "Haus", "--pos", "N", "--format", "html",
              "--out", "-", "--no-lexicon")
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("<!DOCTYPE html>") and "Häusern" in out.stdout
    assert not (tmp_path / "-").exists()
    assert "wrote the page to standard output: 1 paradigm(s), 8 cells" in out.stderr


def test_explain_png_dash_writes_the_png_alone(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    out = run("explain", "--lang", "german", "Haus", "N;DAT;PL", "--png", "-")
    assert out.exit_code == 0, out.output
    assert out.stdout_bytes.startswith(b"\x89PNG\r\n\x1a\n") and not (tmp_path / "-").exists()
    both = run("explain", "--lang", "german", "Haus", "N;DAT;PL", "--png", "-", "--format", "tsv")
    assert both.exit_code == 2  # the PNG and a table cannot share standard output


def test_report_out_dash_writes_the_markdown_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gold = tmp_path / "german-gold"
    gold.write_text("Wort\tWortes\tN;GEN;SG\nHaus\tHäusern\tN;DAT;PL\n", encoding="utf-8")
    out = run("report", "ambiguity", "--lang", "german", "--gold", str(gold), "--out", "-")
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("# Ambiguity report") and "- inputs: 2" in out.stdout
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("args", [
    ["evaluate", "--pred", "{g}", "--gold", "{g}", "--out", "-"],  # three files: no stream
    ["train", "--lang", "german", "--out", "-"],  # a folder
    ["queue", "--lang", "german", "--out", "-"],
])
def test_a_folder_or_prefix_is_never_standard_output(tmp_path, args):
    gold = tmp_path / "gold"
    gold.write_text("Haus\tHäuser\tN;NOM;PL\n", encoding="utf-8")
    out = run(*(a.format(g=gold) for a in args))
    assert out.exit_code == 2 and "standard output" in out.output and not Path("-").exists()


# ------------------------------------------------------------ every reader names the encoding
LINES = "Haus\tHäuser\tN;NOM;PL\nBaum\tBäume\tN;NOM;PL\n"


def readers(path: Path) -> dict[str, list[str]]:
    """Each command that reads a user's file of inflections, reading ``path``."""
    return {
        "data check": ["data", "check", str(path)],
        "predict --input": ["predict", "--lang", "german", "--input", str(path), "--format",
                            "tsv", "--no-lexicon"],
        "evaluate --gold": ["evaluate", "--pred", str(path), "--gold", str(path)],
        "predict --lexicon": ["predict", "--lang", "german", "--lexicon", str(path), "Haus",
                              "N;NOM;PL", "--format", "tsv"],
    }


@pytest.mark.parametrize(("encoding", "words"), [
    ("utf-16", "UTF-16 (little-endian, with a byte order mark)"),
    ("utf-16-le", "UTF-16 (little-endian, without a byte order mark)"),
    ("utf-16-be", "UTF-16 (big-endian, without a byte order mark)"),
    ("utf-32", "UTF-32 (little-endian, with a byte order mark)"),
])
def test_every_reader_names_a_file_in_utf16_or_utf32(tmp_path, encoding, words):
    path = tmp_path / "german.tsv"
    path.write_bytes(LINES.encode(encoding))
    for name, args in readers(path).items():
        out = run(*args)
        assert out.exit_code == 1, (name, out.output)
        assert f"{path}: the file is {words}, not UTF-8" in out.output, (name, out.output)
        assert "iconv -f UTF-" in out.output
    lemmas = tmp_path / "lemmas.txt"
    lemmas.write_bytes("Haus\nBaum\n".encode(encoding))
    out = run("paradigm", "--lang", "german", "--pos", "N", "--input", str(lemmas))
    assert out.exit_code == 1 and f"{lemmas}: the file is {words}" in out.output


def test_every_reader_names_latin1_with_the_line_as_it_reads(tmp_path):
    path = tmp_path / "german.tsv"
    path.write_bytes(LINES.encode("latin-1"))
    for name, args in readers(path).items():
        out = run(*args)
        assert out.exit_code == 1, (name, out.output)
        text = " ".join(out.output.split())
        assert f"{path}:1: bytes that are not UTF-8 at byte 7 of the line" in text, (name, text)
        assert "Latin-1 / Windows-1252 ('Haus\\tHäuser\\tN;NOM;PL')" in text, (name, text)
    lemmas = tmp_path / "lemmas.txt"
    lemmas.write_bytes("Bäume\n".encode("latin-1"))
    out = run("paradigm", "--lang", "german", "--pos", "N", "--input", str(lemmas))
    assert out.exit_code == 1 and "reads as Latin-1 / Windows-1252 ('Bäume')" in out.output
    registry = tmp_path / "models"
    registry.mkdir()
    (registry / "registry.toml").write_bytes('# Übersicht\nversion = 2\n'.encode("latin-1"))
    out = run("models", "--models-dir", str(registry))
    assert out.exit_code == 1
    assert "registry.toml: not UTF-8 text, line 1: bytes that are not UTF-8 at byte 3" in (
        out.output)


def test_a_utf8_byte_order_mark_is_read_as_nothing(tmp_path):
    path = tmp_path / "german.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + LINES.encode())
    out = run("evaluate", "--pred", str(path), "--gold", str(path), "--lang", "german",
              "--format", "tsv")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[1].split("\t")[:3] == ["german", "2", "100.0"]


# ------------------------------------------------------------ a header line, in every reader
def test_data_check_reads_a_header_line_as_a_header_not_a_word(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("lemma\tform\ttags\n" + LINES, encoding="utf-8")
    out = run("data", "check", str(path))
    assert out.exit_code == 0, out.output
    assert f"warning: {path}:1: a header line, skipped (it names the layout 2018" in out.output
    assert "2 examples, format 2018" in out.output
    # the header names the layout: lemma, tags, form is 2023 even where the lines cannot tell
    swapped = tmp_path / "swapped.tsv"
    swapped.write_text("Lemma\tTags\tForm\nabc\tdef\tghi\n", encoding="utf-8")
    assert "1 examples, format 2023" in run("data", "check", str(swapped)).output
    # a header that names another layout than the one given is an error of line 1
    given = run("data", "check", str(path), "--format", "2023")
    assert given.exit_code == 1 and f"{path}:1: the header line names the layout" in given.output


def test_predict_paradigm_evaluate_and_lexicons_skip_a_header_alike(tmp_path):
    inputs = tmp_path / "inputs.tsv"
    inputs.write_text("lemma\ttags\nHaus\tN;DAT;PL\n", encoding="utf-8")
    out = run("predict", "--lang", "german", "--input", str(inputs), "--format", "2018",
              "--no-lexicon")
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines() == [out.stdout.splitlines()[0]]  # one input, one line
    assert out.stdout.startswith("Haus\t") and f"{inputs}:1: a header line, skipped" in out.stderr
    piped = run("predict", "--lang", "german", "--format", "2018", "--no-lexicon",
                input="lemma\tform\ttags\nHaus\tx\tN;DAT;PL\n")
    assert piped.exit_code == 0 and len(piped.stdout.splitlines()) == 1, piped.output

    lemmas = tmp_path / "lemmas.tsv"
    lemmas.write_text("lemma\tpos\nHaus\tN\n", encoding="utf-8")
    out = run("paradigm", "--lang", "german", "--input", str(lemmas), "--format", "jsonl",
              "--no-lexicon")
    assert out.exit_code == 0, out.output
    assert {json.loads(line)["lemma"] for line in out.stdout.splitlines()} == {"Haus"}
    assert f"{lemmas}:1: a header line, skipped (lemma pos)" in out.stderr

    gold = tmp_path / "gold"
    gold.write_text("lemma\tform\ttags\n" + LINES, encoding="utf-8")
    out = run("evaluate", "--pred", str(gold), "--gold", str(gold), "--format", "tsv")
    assert out.output.splitlines()[1].split("\t")[:3] == ["gold", "2", "100.0"]  # 2, not 3

    lexicon = tmp_path / "german.tsv"
    lexicon.write_text("lemma\tform\ttags\nZorp\tZörpe\tN;NOM;PL\n", encoding="utf-8")
    out = run("predict", "--lang", "german", "--lexicon", str(lexicon), "Zorp", "N;NOM;PL",
              "--format", "jsonl")
    forms = json.loads(out.stdout)["forms"]
    assert forms[0] == {"form": "Zörpe", "probability": forms[0]["probability"],
                        "source": f"{lexicon}:2", "attested": True}


# ------------------------------------------------------ Ctrl-C while standard input is read
@pytest.mark.slow
def test_ctrl_c_while_a_terminal_is_read_exits_130_not_a_fatal_error():
    """A pipe that stays open, as a terminal does: the reader thread is blocked reading
    standard input when Ctrl-C comes. Python aborted at exit (status -6, "Fatal Python error:
    could not acquire lock for <_io.BufferedReader name='<stdin>'>") while that thread held
    sys.stdin's lock."""
    env = dict(os.environ, INFLECT_THREADS="1", PYTHONPATH=str(REPO))
    default_sigint = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                      "os.execv(sys.argv[1], sys.argv[1:])")
    proc = subprocess.Popen(
        [sys.executable, "-c", default_sigint, sys.executable, "-m", "inflect", "predict",
         "--lang", "german", "--no-lexicon", "--format", "2018"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        proc.stdin.write(b"Haus\tN;DAT;PL\n")
        proc.stdin.flush()
        assert proc.stdout.readline().startswith(b"Haus\t")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 130  # standard input still open
        err = proc.stderr.read().decode()
        assert "Fatal Python error" not in err and "interrupted" in err
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdin.close()


# ------------------------------------------------------------------------ one panel per form
def test_explain_shows_each_form_once_with_predicts_probability():
    # 😀 is unseen: its copy and <unk> spell the same forms; "4 of 3 forms" were listed
    from inflect.inference.explain import explain
    from inflect.inference.predictor import Predictor
    from inflect.nn.vocab import UnknownSymbolWarning

    predictor = Predictor.from_default("german", lexicons=())
    with pytest.warns(UnknownSymbolWarning, match="'😀'"):
        found = explain(predictor, "😀", "N;DAT;PL", "german", max_forms=10)
    forms = [p.form for p in found.panels]
    assert len(forms) == len(set(forms)) == len(found.prediction.forms)
    listed = {f.form: f.probability for f in found.prediction.forms}
    assert {p.form: p.probability for p in found.panels} == listed
    assert any(p.strings > 1 for p in found.panels)
    tsv = run("explain", "--lang", "german", "😀", "N;DAT;PL", "--format", "tsv",
              "--max-forms", "10")
    rows = [line.split("\t") for line in tsv.stdout.splitlines()[1:]]
    assert len({r[0] for r in rows}) == len({(r[0], r[1]) for r in rows}) == len(listed)


# ------------------------------------------------------ paradigm records: predict's shape
def test_an_attested_paradigm_form_is_a_record_as_predict_writes_it(tmp_path):
    lexicon = tmp_path / "german.tsv"
    lexicon.write_text("Haus\tHäuserchen\tN;DAT;PL\n", encoding="utf-8")
    cell = next(json.loads(line) for line in run(
        "paradigm", "--lang", "german", "Haus", "--pos", "N", "--format", "jsonl", "--lexicon",
        str(lexicon)).stdout.splitlines() if json.loads(line)["tags"] == "N;DAT;PL")
    predicted = json.loads(run("predict", "--lang", "german", "Haus", "N;DAT;PL", "--format",
                               "jsonl", "--lexicon", str(lexicon)).stdout)
    assert cell["forms"][0] == predicted["forms"][0] == {
        "form": "Häuserchen", "probability": 0.0, "source": f"{lexicon}:1", "attested": True}
    model = [f for f in cell["forms"] if not f["attested"]]
    assert model and all(f["source"] == "model" for f in model)
