"""Each module of ``inflect.render`` holds one form of output and draws only the records it is
given: JSON Lines in :mod:`inflect.render.jsonl` (predictions, translations, paradigm cells), TSV in
:mod:`inflect.render.tsv`; a picture comes back as bytes for the command to write. The import
rule itself is in tests/test_architecture.py."""

from __future__ import annotations

import dataclasses
import json

import inflect.render.paradigm as paradigm_render
import inflect.render.tsv as tsv
from inflect.corpora.stats import SplitStats
from inflect.decoding.protocol import Certificate
from inflect.inference.outcomes import ErrorRecord, Form, Prediction
from inflect.inference.paradigm import Block, Cell, CellForm, Paradigm
from inflect.render.jsonl import cell_dict, paradigm_jsonl, prediction_jsonl


def _paradigm() -> Paradigm:
    cells = (
        Cell("N;NOM;SG", ("N", "NOM", "SG"), (), "NOM", "SG", (CellForm("talo", 1.0),),
             Certificate.FULL_SUPPORT),
        Cell("N;NOM;PL", ("N", "NOM", "PL"), (), "NOM", "PL",
             (CellForm("talot", 0.75, "finnish.tsv:3"), CellForm("taloja", 0.25)),
             Certificate.MODE_ONLY, warnings=("ä unseen",)),
    )
    block = Block((), ("NOM",), ("SG", "PL"), {("NOM", "SG"): 0, ("NOM", "PL"): 1})
    return Paradigm("talo", "finnish", "N", cells, (block,), "case", "number", (),
                    "conll2018-task1 train-high", source="in.txt", line=7)


def test_json_lines_live_in_their_own_module():
    for name in ("prediction_jsonl", "paradigm_jsonl", "cell_dict"):
        assert not hasattr(tsv, name) and not hasattr(paradigm_render, name), name


def test_a_paradigm_is_one_json_object_per_cell_in_reading_order():
    paradigm = _paradigm()
    lines = paradigm_jsonl(paradigm).split("\n")
    assert [json.loads(line) for line in lines] == [cell_dict(paradigm, c) for c in paradigm.cells]
    second = json.loads(lines[1])
    assert second["tags"] == "N;NOM;PL" and second["row"] == "NOM" and second["column"] == "PL"
    assert second["certificate"] == "mode_only" and second["complete"] is False
    assert second["forms"] == [
        {"form": "talot", "probability": 0.75, "source": "finnish.tsv:3", "attested": True},
        {"form": "taloja", "probability": 0.25, "source": "model", "attested": False},
    ]
    assert second["warnings"] == ["ä unseen"] and second["input"] == "in.txt:7"
    assert "ä" in lines[1]  # user text verbatim, not \\u escapes


def test_a_prediction_and_an_error_are_one_json_object_each():
    pred = Prediction("Haus", "N;DAT;PL", "german", forms=(Form("Häusern", 0.5), Form("Hausen", 0.5)),
                      certificate=Certificate.FULL_SUPPORT, more_than=None,
                      beam_certificate=Certificate.FULL_SUPPORT, method="beam")
    line = prediction_jsonl(pred)
    assert "\n" not in line and "Häusern" in line
    record = json.loads(line)
    assert (record["lemma"], record["tags"], record["language"]) == ("Haus", "N;DAT;PL", "german")
    assert [f["form"] for f in record["forms"]] == ["Häusern", "Hausen"]
    error = json.loads(prediction_jsonl(ErrorRecord("f.tsv:2: empty lemma", "f.tsv", 2)))
    assert error == {"error": "f.tsv:2: empty lemma", "lemma": None, "tags": None,
                     "language": None, "source": "f.tsv", "line": 2}


def test_the_stats_columns_are_the_fields_of_the_record():
    assert tuple(f.name for f in dataclasses.fields(SplitStats)) == tsv.STATS_TSV_COLUMNS
    stats = SplitStats(*range(len(tsv.STATS_TSV_COLUMNS)))
    header, row = tsv.stats_tsv([stats]).splitlines()
    assert header.split("\t") == list(tsv.STATS_TSV_COLUMNS)
    assert row.split("\t") == [str(v) for v in range(len(tsv.STATS_TSV_COLUMNS))]
