"""recipes/unimorph4/hand_converted.py: the hand tables of the 2023 dev files' bundles
and the measurement of a UniMorph 4 file scored as written against the same file converted by
hand.

The hand tables are checked against the shipped 2018 bundles of each language; the measurement
is checked on german-dev lines written as UniMorph 4 (no SIGMORPHON 2023 files here), whose
accuracy, as written and converted, is the 2018 file's own.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_tag_dialects_answers import unimorph4_german  # the German 2018 -> UniMorph 4 writer

from inflect.cli import main
from inflect.corpora.bundles import language_bundles

HERE = Path(__file__).resolve().parent
RECIPE = HERE.parent / "recipes" / "unimorph4" / "hand_converted.py"


@pytest.fixture(scope="module")
def recipe():
    spec = importlib.util.spec_from_file_location("hand_converted_recipe", RECIPE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_hand_table_names_2018_cells_of_its_language(recipe):
    """Each committed table reads (one 2023 bundle a line, no bundle twice) and each of its 2018
    bundles is one the language's 2018 data write, as they write it (feature order kept)."""
    tables = sorted(recipe.HAND.glob("*.tsv"))
    assert {t.stem for t in tables} >= {"english", "german", "navajo", "spanish"}
    for path in tables:
        table = recipe.read_table(path, path.stem)
        written = {b.text for b in language_bundles(path.stem).bundles}
        assert table and all(c == "-" or c in written for c in table.values()), path


def test_a_bad_hand_table_is_an_error_naming_file_line_and_value(recipe, tmp_path):
    path = tmp_path / "german.tsv"
    path.write_text(
        "# a comment\nunimorph4\tconll2018\nN;DAT(PL)\tN;DAT;PL\nN;GEN(PL)\tN;FOO;PL\n",
        encoding="utf-8",
    )
    with pytest.raises(recipe.HandTableError, match=r"german\.tsv:4: 'N;FOO;PL' is not a 2018"):
        recipe.read_table(path, "german")
    path.write_text("unimorph4\tconll2018\nN;DAT(PL)\tN;DAT;PL\n", encoding="utf-8")
    dev = tmp_path / "deu.dev"
    dev.write_text("Haus\tN;DAT(PL)\tHäusern\nHaus\tN;GEN(SG)\tHauses\n", encoding="utf-8")
    with pytest.raises(recipe.HandTableError, match=r"deu\.dev:2: the bundle 'N;GEN\(SG\)'"):
        recipe.read_dev(dev, recipe.read_table(path, "german"), path)


def test_two_2023_cells_of_one_2018_cell_are_scored_in_separate_runs(recipe):
    """Navajo's 3rd person SG and PL are one 2018 cell: the scorer keeps one line of a repeated
    input, so the two lines of one lemma go to two runs; another lemma's line joins the first."""
    table = {"V;OPT;NOM(3,SG)": "V;OPT;3;SG/DU/PL", "V;OPT;NOM(3,PL)": "V;OPT;3;SG/DU/PL"}
    lines = [
        ("a", "V;OPT;NOM(3,SG)", "x"),
        ("a", "V;OPT;NOM(3,PL)", "x"),
        ("b", "V;OPT;NOM(3,PL)", "y"),
    ]
    assert recipe.passes(lines, table) == [[0, 2], [1]]


@pytest.mark.slow  # german-high scores 60 lines four times
def test_a_file_the_reader_reads_right_scores_as_its_hand_conversion(recipe, conll2018, tmp_path):
    """german-dev's first 60 lines in the 2023 layout with UniMorph 4 tags, and a hand table
    back to the 2018 bundles: as written and hand-converted score the 2018 file's accuracy
    (``inflect evaluate`` on german-dev's lines themselves), the difference is 0, and a bundle
    with no 2018 cell (``-``) is left out of both."""
    lines = (conll2018 / "german-dev").read_text(encoding="utf-8").splitlines()[:60]
    triples = [line.split("\t") for line in lines]
    layered = {tags: unimorph4_german(tags) for _, _, tags in triples}
    (tmp_path / "deu.dev").write_text(
        "".join(f"{lemma}\t{layered[tags]}\t{form}\n" for lemma, form, tags in triples)
        + "Haus\tN;VOC(DU)\tHausxq\n",
        encoding="utf-8",
    )
    hand = tmp_path / "hand"
    hand.mkdir()
    (hand / "german.tsv").write_text(
        "unimorph4\tconll2018\n"
        + "".join(f"{u}\t{t}\n" for t, u in layered.items())
        + "N;VOC(DU)\t-\n",
        encoding="utf-8",
    )
    plain = tmp_path / "german-plain"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["evaluate", "--lang", "german", "--gold", str(plain), "--format", "tsv"]
    )
    assert result.exit_code == 0, result.output
    header, first, *_ = result.stdout.splitlines()
    expected = float(dict(zip(header.split("\t"), first.split("\t"), strict=True))["accuracy"])

    row = recipe.measure("german", tmp_path, None, hand, 5, None, None)
    assert (row.lines, row.no_cell) == (61, 1)
    assert row.written == pytest.approx(expected) and row.hand == pytest.approx(expected)
    assert row.difference == 0 and row.otherwise == []
    assert row.whole == pytest.approx(expected * 60 / 61)  # the VOC line is not answered right
    table = recipe.markdown([row], 5)
    assert f"| german (deu) | 61 | 1 | {expected * 60 / 61:.1f} | {expected:.1f} | " in table
