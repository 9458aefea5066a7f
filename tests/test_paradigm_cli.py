"""`inflect paradigm`: TSV and JSON Lines in a pipe (one line per cell), the grid on a terminal,
`--input` streaming, and clear errors for bad input.

Expected values: the German noun cells as recounted from german-train-high by hand (test_paradigm
GERMAN_N), each cell's forms as `inflect predict` gives them for that one input, the columns as
the command's help documents them.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_paradigm import GERMAN_N

from inflect.cli import main
from inflect.render.paradigm import PARADIGM_TSV_COLUMNS

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


def invoke(*args, input=None):
    return CliRunner().invoke(main, ["paradigm", *args], input=input)


def predict_forms(lemma, tags):
    out = CliRunner().invoke(
        main, ["predict", "--lang", "german", lemma, tags, "--format", "jsonl", "--no-lexicon"]
    )
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_tsv_has_one_line_per_cell_with_the_predicted_forms():
    out = invoke("--lang", "german", "Haus", "--pos", "N", "--format", "tsv", "--no-lexicon")
    assert out.exit_code == 0, out.output
    header, *lines = out.output.splitlines()
    assert tuple(header.split("\t")) == PARADIGM_TSV_COLUMNS
    rows = [dict(zip(PARADIGM_TSV_COLUMNS, line.split("\t"), strict=True)) for line in lines]
    assert {r["tags"] for r in rows} == GERMAN_N and len(rows) == 8
    for row in rows:
        alone = predict_forms("Haus", row["tags"])
        forms = [[row["form"], float(row["probability"])], *json.loads(row["others"])]
        assert [f for f, _ in forms] == [f["form"] for f in alone["forms"]]
        assert [p for _, p in forms] == pytest.approx(
            [f["probability"] for f in alone["forms"]], rel=1e-4, abs=1e-7
        )
        assert row["certificate"] == alone["certificate"]
        assert row["count"] == str(len(alone["forms"]))
        assert (row["lemma"], row["language"], row["pos"], row["block"]) == (
            "Haus",
            "german",
            "N",
            "",
        )
        assert row["tags"] == f"N;{row['row']};{row['column']}"
        assert row["attested"] == ""  # --no-lexicon: the model alone
        assert row["uncertain"] == str(int(forms[0][1] < 0.9 or row["certificate"] == "none"))


def test_json_lines_carry_every_form_and_the_place():
    out = invoke("--lang", "de", "Katze", "--pos", "N", "--format", "jsonl", "--no-lexicon")
    assert out.exit_code == 0, out.output
    records = [json.loads(line) for line in out.output.splitlines()]
    assert [r["tags"] for r in records] == [
        f"N;{c};{n}" for c in ("NOM", "GEN", "DAT", "ACC") for n in ("SG", "PL")
    ]
    for r in records:
        alone = predict_forms("Katze", r["tags"])
        assert [f["form"] for f in r["forms"]] == [f["form"] for f in alone["forms"]]
        # one record shape with predict's: a model form is source "model", attested false
        assert [set(f) for f in r["forms"]] == [set(f) for f in alone["forms"]]
        assert all(f["source"] == "model" and f["attested"] is False for f in r["forms"])
        assert r["features"][0] == "N" and r["input"] is None
        assert r["complete"] == (r["certificate"] == "full_support")


def test_the_terminal_grid_has_case_rows_and_number_columns():
    out = invoke("--lang", "german", "Haus", "--pos", "N", "--format", "table")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    header = next(line for line in lines if "case" in line)
    assert header.split() == ["case", "SG", "PL"]
    starts = [
        line.split()[0]
        for line in lines
        if line.split() and line.split()[0] in ("NOM", "GEN", "DAT", "ACC")
    ]
    assert starts == ["NOM", "GEN", "DAT", "ACC"]
    assert "8 cells of conll2018-task1 train-high" in out.output


def test_input_streams_paradigms_and_an_error_keeps_what_was_written(tmp_path):
    path = tmp_path / "lemmas.txt"
    path.write_text("Haus\nKatze\tN\n\nHund\tADV\n", encoding="utf-8")
    out = invoke("--lang", "german", "--pos", "N", "--input", str(path), "--format", "tsv")
    assert out.exit_code == 1
    lines = [line for line in out.output.splitlines() if line.startswith(("Haus\t", "Katze\t"))]
    assert len(lines) == 16  # both paradigms written before the bad line
    assert f"warning: {path}:3: blank line skipped" in out.output
    assert f"Error: {path}:4: german has no ADV cells" in out.output
    # standard input, as a pipe
    out = invoke("--lang", "german", "--pos", "N", "--format", "jsonl", input="Haus\n")
    assert out.exit_code == 0 and len(out.output.splitlines()) == 8


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--lang", "klingon", "talo", "--pos", "N"), "unknown language 'klingon'"),
        (
            ("--lang", "spanish", "tener", "--pos", "N"),
            "spanish has no N cells in the train-high "
            "data; it has: V (70 cells, of which V.PTCP 4, V.CVB 1)",
        ),
        (("--lang", "finnish", "talo"), "finnish has 3 parts of speech; choose one with --pos"),
        (("--lang", "german", "", "--pos", "N"), "empty lemma"),
        (("--lang", "german", "a" * 150, "--pos", "N"),
         "lemma of 150 symbols is longer than the model's limit of 100 symbols"),
    ],
)
def test_bad_input_names_the_value_and_what_to_do(args, message):
    out = invoke(*args, "--format", "tsv")
    assert out.exit_code == (2 if "klingon" in args else 1)  # a wrong --lang: a usage error
    assert message in out.output


def test_html_needs_out_and_out_needs_html(tmp_path):
    out = invoke("--lang", "german", "Haus", "--pos", "N", "--format", "html")
    assert out.exit_code == 2 and "give --out FILE" in out.output
    out = invoke("--lang", "german", "Haus", "--pos", "N", "--out", str(tmp_path / "x.html"))
    assert out.exit_code == 2 and "--out is for --format html" in out.output
    page = tmp_path / "haus.html"
    out = invoke("--lang", "german", "Haus", "--pos", "N", "--format", "html", "--out", str(page))
    assert out.exit_code == 0, out.output
    text = page.read_text(encoding="utf-8")
    assert text.count('<td class="cell') == 8 and "<script" not in text


def test_a_narrow_terminal_folds_the_grid_instead_of_cutting_it():
    from rich.console import Console
    from test_paradigm_browser import small_paradigm

    from inflect.render.paradigm import paradigm_table

    console = Console(width=36, record=True, color_system=None)
    console.print(paradigm_table(small_paradigm("a-very-long-lemma-name")))
    text = console.export_text()
    assert all(len(line) <= 36 for line in text.splitlines())
    joined = "".join(text.split())  # folded forms are whole again without the line breaks
    for form in ("talot", "taloineen", "talon"):
        assert form in joined
    assert "attested" in joined


def test_a_terminal_cell_shows_the_attested_answer_first_and_each_form_once():
    """The GEN SG cell of the hand-made paradigm: talon is attested and the model's first form
    (its record lists it twice); the grid shows it once, marked attested with what the model
    gives it, then the model's other forms."""
    from rich.console import Console
    from test_paradigm_browser import small_paradigm

    from inflect.render.paradigm import paradigm_table

    console = Console(width=200, record=True, color_system=None)
    console.print(paradigm_table(small_paradigm()))
    lines = console.export_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("GEN"))
    assert lines[start].split()[1:6] == ["talon", "attested", "model:", "0.9500", "✓"]
    assert lines[start + 1].split()[:2] == ["talo", "0.0500"]
    assert sum(line.split().count("talon") for line in lines) == 1
