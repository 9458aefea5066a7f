"""The 2023 task's tag bundles (features with a bracketed argument, ``NOM(1,SG)``,
``DAT(PL;LGSPEC2)``) are read as such, and the layout of a file is told from all of its lines.

The fixtures are small hand-written lines in the 2023 layout (lemma<TAB>tags<TAB>form), written to
tmp_path; the expected values are read off the lines by hand."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from inflect.cli import main
from inflect.text.layouts import detect_layout
from inflect.text.parsing import iter_examples
from inflect.text.reading import check_file, read_examples, read_inflections
from inflect.text.records import DataFormatError, TagBundle, split_features

# German verbs and nouns as the 2023 data write them (lemma, tags, form)
GERMAN_2023 = (
    "gehen\tV;IND;PRS;NOM(1,SG)\tgehe\n"
    "gehen\tV;IND;PRS;NOM(3,PL)\tgehen\n"
    "Abend\tN;NOM(SG)\tAbend\n"
    "Abend\tN;ACC(PL)\tAbende\n"
    "Abend\tN;DAT(PL)\tAbenden\n"
)


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_a_feature_with_an_argument_is_one_feature():
    assert split_features("V;IND;PRS;NOM(1,SG)") == ["V", "IND", "PRS", "NOM(1,SG)"]
    # Georgian: a ';' inside the brackets does not separate features
    assert split_features("N;DAT(PL;LGSPEC2)") == ["N", "DAT(PL;LGSPEC2)"]
    assert split_features("V;COND;NOM(1,PL);ACC(3,PL)") == ["V", "COND", "NOM(1,PL)", "ACC(3,PL)"]
    bundle = TagBundle.parse("N;DAT(PL;LGSPEC2)")
    assert len(bundle) == 2 and "DAT(PL;LGSPEC2)" in bundle and "PL" not in bundle
    # order-free as every bundle
    assert TagBundle.parse("NOM(1,SG);V") == TagBundle.parse("V;NOM(1,SG)")
    assert TagBundle.parse("V;NOM(1,SG)") != TagBundle.parse("V;NOM(1,PL)")


def test_a_2023_file_whose_first_line_has_a_feature_with_commas_is_read_as_2023(tmp_path):
    path = write(tmp_path / "german-dev", GERMAN_2023)
    examples = read_examples(path)
    assert [(e.lemma, str(e.tags), e.form) for e in examples] == [
        ("gehen", "V;IND;PRS;NOM(1,SG)", "gehe"),
        ("gehen", "V;IND;PRS;NOM(3,PL)", "gehen"),
        ("Abend", "N;NOM(SG)", "Abend"),
        ("Abend", "N;ACC(PL)", "Abende"),
        ("Abend", "N;DAT(PL)", "Abenden"),
    ]
    parsed = check_file(path)
    assert parsed.errors == [] and parsed.stats.fmt == "2023"


def test_the_layout_follows_most_lines_not_the_first(tmp_path):
    # line 1 cannot tell (both PROPN and USA look like one feature); the other three are plainly
    # 2023 (tag field a bundle, form a word): read as 2023, the first line's tags PROPN
    text = "USA\tPROPN\tUSA\nHaus\tN;NOM;PL\tHäuser\nBaum\tN;NOM;PL\tBäume\nTag\tN;DAT;PL\tTagen\n"
    path = write(tmp_path / "german-dev", text)
    examples = read_examples(path)
    assert [(str(e.tags), e.form) for e in examples] == [
        ("PROPN", "USA"),
        ("N;NOM;PL", "Häuser"),
        ("N;NOM;PL", "Bäume"),
        ("N;DAT;PL", "Tagen"),
    ]
    # the same lines, 2018 order, are read as 2018
    swapped = "".join(
        f"{a}\t{c}\t{b}\n" for a, b, c in (line.split("\t") for line in text.splitlines())
    )
    path18 = write(tmp_path / "german-train-low", swapped)
    assert [(str(e.tags), e.form) for e in read_examples(path18)][1] == ("N;NOM;PL", "Häuser")


def test_data_check_and_evaluate_accept_a_2023_pair(tmp_path):
    gold = write(tmp_path / "german-dev", GERMAN_2023)
    runner = CliRunner()
    result = runner.invoke(main, ["data", "check", str(gold)])
    assert result.exit_code == 0, result.output
    assert "5 examples, format 2023" in result.output
    # predictions: 4 of 5 right, the wrong one "gehn" for "gehen" is one deletion away
    pred = write(tmp_path / "german.pred", GERMAN_2023.replace("\tgehen\n", "\tgehn\n"))
    result = runner.invoke(
        main, ["evaluate", "--pred", str(pred), "--gold", str(gold), "--format", "tsv"]
    )
    assert result.exit_code == 0, result.output
    row = result.output.splitlines()[1].split("\t")
    assert row[:4] == ["german", "5", "80.0", "0.2"]  # accuracy 4/5, Levenshtein 1/5


def test_a_file_of_both_layouts_is_refused_naming_the_file(tmp_path):
    # 3 lines plainly 2018 and 3 plainly 2023: no layout can be chosen
    text = (
        "Haus\tHäuser\tN;NOM;PL\nBaum\tBäume\tN;NOM;PL\nTag\tTage\tN;NOM;PL\n"
        "Haus\tN;DAT;PL\tHäusern\nBaum\tN;DAT;PL\tBäumen\nTag\tN;DAT;PL\tTagen\n"
    )
    path = write(tmp_path / "german-dev", text)
    with pytest.raises(DataFormatError) as caught:
        read_inflections(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: cannot tell the layout")
    assert "line 1" in message and "line 4" in message and "--input-format" in message
    result = CliRunner().invoke(main, ["data", "check", str(path)])
    assert result.exit_code == 1 and str(path) in result.output
    assert "cannot tell the layout" in result.output
    # each half alone is told apart
    assert detect_layout(text.splitlines()[:3]) == "2018"
    assert detect_layout(text.splitlines()[3:]) == "2023"


def test_a_line_that_plainly_has_the_other_layout_is_an_error_not_swapped(tmp_path):
    # nine 2023 lines and one 2018 line (under the dissent allowed): that line is reported
    lines = [f"Haus{i}\tN;DAT;PL\tHäusern{i}" for i in range(9)] + ["Baum\tBäume\tN;NOM;PL"]
    path = write(tmp_path / "german-dev", "\n".join(lines) + "\n")
    parsed = check_file(path)
    assert parsed.stats.fmt == "2023" and len(parsed.examples) == 9
    (error,) = parsed.errors
    assert error.line == 10 and "looks like lemma<TAB>form<TAB>tags (2018)" in error.what


def test_a_stream_tells_the_layout_from_its_lines():
    # the first line cannot tell; the lines wait for one that can, then all are read as 2023
    lines = ["USA\tPROPN\tUSA\n", "Haus\tN;NOM;PL\tHäuser\n"]
    found = list(iter_examples(lines))
    assert [(str(e.tags), e.form) for e in found] == [("PROPN", "USA"), ("N;NOM;PL", "Häuser")]
    found = list(iter_examples(["gehen\tV;IND;PRS;NOM(1,SG)\tgehe\n"]))
    assert [(e.lemma, str(e.tags), e.form) for e in found] == [
        ("gehen", "V;IND;PRS;NOM(1,SG)", "gehe")
    ]
    # a line that tells plainly decides at once; a later one of the other layout is an error
    mixed = ["Tag\tTage\tN;NOM;PL", "Haus\tN;DAT;PL\tHäusern"]
    first, second = iter_examples(mixed, source="in.tsv", errors="yield")
    assert (first.form, str(first.tags)) == ("Tage", "N;NOM;PL")
    assert isinstance(second, DataFormatError) and second.line == 2
    assert "looks like lemma<TAB>tags<TAB>form (2023)" in second.what
    # lines that tell only weakly (one-feature bundles) and disagree: every line gets the error
    weak = ["Tag\tV.CVB\ttagend", "Haus\thausend\tV.CVB"]
    found = list(iter_examples(weak, source="in.tsv", errors="yield"))
    assert [e.line for e in found] == [1, 2]
    assert all(isinstance(e, DataFormatError) and "cannot tell the layout" in str(e) for e in found)
    with pytest.raises(DataFormatError, match=r"^in\.tsv: cannot tell the layout"):
        list(iter_examples(weak, source="in.tsv"))
