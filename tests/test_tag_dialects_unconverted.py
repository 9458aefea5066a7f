"""The UniMorph 4 conversions not trusted: ``inflect/text/tagsets/unconverted.toml``,
written by ``recipes/unimorph4/agreement.py`` from the SIGMORPHON 2023 train and dev files, read
by :func:`inflect.text.dialects.read_tags` (no 2023 file is needed here).

A cell the table lists, or tags whose reading leaves out a feature it lists, is read as written
(``known`` False) with a note giving the measured agreement; the cells beside them still convert
to the 2018 bundle of the same cell (Turkish ``V;IND;PRS;POS;DECL;NOM(3,SG)``: the UNIMORPH4
cases of tests/test_tag_dialects.py, each a line of the 2018 files). The table itself is checked
against the readings it was measured on, and the recipe's writer against the package's reader on
a hand-made measurement.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

from inflect.corpora.bundles import language_bundles, tag_problems
from inflect.text.dialects import read_tags
from inflect.text.parsing import parse_lines
from inflect.text.records import TagBundle
from inflect.text.tagsets import FOLDER, REASONS, Unconverted, read_unconverted, unconverted

HERE = Path(__file__).resolve().parent
TABLE = FOLDER / "unconverted.toml"


@functools.cache
def recipe():
    """recipes/unimorph4/agreement.py as a module (a recipe, not a package module; registered
    before it runs, as its dataclasses need)."""
    path = HERE.parent / "recipes" / "unimorph4" / "agreement.py"
    spec = importlib.util.spec_from_file_location("agreement_recipe", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def read(language: str, tags: str, refuse: bool = True):
    return read_tags(tags, "auto", language_bundles(language), refuse=refuse)


def entry(language: str, kind: str, what: str) -> Unconverted:
    return next(e for e in unconverted(language) if (e.kind, e.what) == (kind, what))


# ------------------------------------------------------------------ the reader
def test_a_cell_the_table_lists_is_read_as_written_with_its_agreement():
    """Turkish's necessitative (çalmamalılar mıydı "should they not have stolen?") read without
    NEC, which no 2018 Turkish bundle marks, is the past (çalmadılar mı? "did they not steal?"):
    the table lists the cell; it is asked as the tables read it, with the measured agreement."""
    tags = "V;NEC;PST;NEG;INTR;NOM(3,PL)"
    listed = entry("turkish", "cell", tags)
    assert listed.read_as == "V;IND;3;PL;PST;NEG;INTR" and listed.dropped == ("NEC",)
    assert 2 * listed.agree < listed.total and listed.reason == "dropped-feature"
    reading = read("turkish", tags)
    assert not reading.known and reading.dropped == ("NEC",)
    assert reading.asked == TagBundle.parse("V;NEC;PST;NEG;INTR;3;PL")  # as read: NEC kept
    assert reading.notes == (reading.refused,)
    assert reading.refused == (
        f"UniMorph 4 tags '{tags}' not converted: on the SIGMORPHON 2023 data, their reading as "
        f"V;IND;3;PL;PST;NEG;INTR (NEC not marked in Turkish's 2018 bundles) had the 2018 form "
        f"on {listed.agree} of {listed.total} pairs; asked as read, {reading.asked.text}"
    )
    # the refusal off (the recipe's measurement): the conversion as the tables read it
    measured = read("turkish", tags, refuse=False)
    assert measured.known and not measured.refused
    assert measured.asked == TagBundle.parse("V;IND;3;PL;PST;NEG;INTR")


def test_a_cell_not_measured_is_refused_by_the_feature_its_reading_leaves_out():
    """V;NEC;PRS;POS;DECL;NOM(3,SG) is no cell of the table; its reading leaves out NEC, which
    the table lists for Turkish: not converted either, with the feature's pooled agreement."""
    tags = "V;NEC;PRS;POS;DECL;NOM(3,SG)"
    cells = {e.what for e in unconverted("turkish") if e.kind == "cell"}
    assert tags not in cells
    pooled = entry("turkish", "feature", "NEC")
    reading = read("turkish", tags)
    assert not reading.known and reading.dropped == ("NEC",)
    assert TagBundle.parse(reading.asked.text) == TagBundle.parse("V;NEC;PRS;POS;DECL;3;SG")
    assert ("leaves out NEC, which Turkish's 2018 bundles never mark, and on the SIGMORPHON 2023 "
            f"data, readings that leave it out had the 2018 form on {pooled.agree} of "
            f"{pooled.total} pairs") in reading.refused


def test_data_check_warns_of_a_cell_not_converted():
    lines = ["çalmak\tV;NEC;PST;NEG;INTR;NOM(3,PL)\tx",
             "ellemek\tV;IND;PRS;POS;DECL;NOM(3,SG)\teller"]
    parsed = parse_lines(lines, source="tur.tsv", language="turkish")
    errors, warnings = tag_problems(parsed.examples, "turkish")
    assert not errors and [(w.line, w.value) for w in warnings] == [
        (1, "V;NEC;PST;NEG;INTR;NOM(3,PL)")]
    note = read("turkish", "V;NEC;PST;NEG;INTR;NOM(3,PL)").refused
    assert note and str(warnings[0]) == f"tur.tsv:1: {note} ('V;NEC;PST;NEG;INTR;NOM(3,PL)')"


# ------------------------------------------------------------------ the table
def test_the_table_parses_and_each_entry_is_what_the_conversion_reads():
    """Every language is one of the 2018 data's; every entry has at least the minimum of lines,
    most of them disagreeing, and a known reason; every cell reads, the refusal off, as the
    bundle the table says it was measured as (a conversion changed since: rerun the recipe), and
    is not converted with the refusal on."""
    raw = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    entries = read_unconverted(TABLE)
    assert entries and sum(map(len, entries.values())) == len(raw["cell"]) + len(raw["feature"])
    for language, listed in entries.items():
        known = language_bundles(language)
        assert known is not None, language
        for e in listed:
            assert e.reason in REASONS and e.total >= raw["minimum"] and 2 * e.agree < e.total
            if e.kind == "cell":
                measured = read_tags(e.what, "auto", known, refuse=False)
                assert measured.asked == TagBundle.parse(e.read_as), (language, e.what)
                assert measured.dropped == e.dropped
                assert e.reason == ("dropped-feature" if e.dropped else "other-forms")
                assert not read_tags(e.what, "auto", known).known
            else:
                assert e.reason == "dropped-feature" and not e.read_as


def test_the_recipe_writes_the_table_the_package_reads(tmp_path):
    """A hand-made measurement: Turkish cells of 4 lines (none agree, NEC left out), 3 (all
    agree, nothing left out), 2 (none agree: under the minimum), 1 (NEC left out, none agree);
    a Danish cell the recipe excludes. Expected: the 4-line cell, and NEC pooled over the two
    cells that leave it out (0 of 5)."""
    module = recipe()
    Cell, Row = module.Cell, module.Row
    nec = ("NEC",)
    cells = [
        Cell("V;NEC;PST;NEG;INTR;NOM(3,PL)", "V;IND;3;PL;PST;NEG;INTR", (), nec, "unimorph4", 0, 4),
        Cell("V;IND;PST;NOM(1,SG)", "V;IND;1;SG;PST", (), (), "unimorph4", 3, 3),
        Cell("V;IND;FUT;NOM(1,SG)", "V;IND;1;SG;FUT", (), (), "unimorph4", 0, 2),
        Cell("V;NEC;PRS;NOM(1,SG)", "V;IND;1;SG;PRS", (), nec, "unimorph4", 0, 1),
    ]
    turkish = Row("turkish", ["tur"], cells={c.tags: c for c in cells})
    danish = Row("danish", ["dan"], cells={
        "N;NOM(DEF;SG)": Cell("N;NOM(DEF;SG)", "N;DEF;NOM;SG", (), (), "unimorph4", 0, 9),
    })
    path = tmp_path / "unconverted.toml"
    path.write_text(module.unconverted_toml([danish, turkish], "a test"), encoding="utf-8")
    assert read_unconverted(path) == {"turkish": (
        Unconverted("turkish", "cell", "V;NEC;PST;NEG;INTR;NOM(3,PL)", 0, 4, "dropped-feature",
                    "V;IND;3;PL;PST;NEG;INTR", nec),
        Unconverted("turkish", "feature", "NEC", 0, 5, "dropped-feature"),
    )}
    assert tomllib.loads(path.read_text(encoding="utf-8"))["minimum"] == module.MINIMUM == 3
    assert [c.tags for _, c in danish.excluded()] == ["N;NOM(DEF;SG)"]
    assert [c.tags for c in turkish.noise()] == ["V;IND;FUT;NOM(1,SG)"]


def test_a_malformed_table_is_an_error_naming_the_file(tmp_path):
    from inflect.text.tagsets import TableError

    path = tmp_path / "bad.toml"
    path.write_text('[[cell]]\nlanguage = "turkish"\ntags = "V;NEC"\nagree = 5\ntotal = 4\n'
                    'reason = "other-forms"\n', encoding="utf-8")
    with pytest.raises(TableError, match=r"bad\.toml: malformed \[\[cell\]\] entry"):
        read_unconverted(path)


# ------------------------------------------------------------------ the recipe's comparison
def test_forms_are_compared_without_what_only_one_dataset_writes():
    module = recipe()
    acute, shin = "\u0301", "\u05c1"
    # Belarusian stress (2018 аб'я́вім, 2023 аб'явім) and a typographic apostrophe
    assert module.normalise("аб\u2019я" + acute + "вім", frozenset(acute)) == "аб'явім"
    assert module.normalise("аб'я" + acute + "вім") == "аб'я" + acute + "вім"  # kept by default
    # Turkish 2018 interrogatives end with "?"; Sanskrit 2023 writes a final s, 2018 the visarga
    assert module.normalise("değişiyor mu?") == "değişiyor mu"
    assert module.normalise("मषेस्") == "मषेः" == module.normalise("मषेः")
    # a mark on most 2018 forms and few 2023 forms is the 2018 files' only; one both write is not
    forms_2018 = ["ש" + shin + "ם", "ש" + shin + "ן", "אב", "ש" + shin]
    assert module.marks_of_2018(forms_2018, ["שם", "שן", "אב", "ש"]) == {shin}
    assert module.marks_of_2018(forms_2018, forms_2018) == frozenset()
    # an Indic vowel sign is a letter, not a mark (combining class 0)
    assert module.mark_shares(["पू"]) == {}
