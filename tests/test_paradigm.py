"""Paradigms (inflect.inference.paradigm, inflect.corpora.cells, inflect.text.unimorph): the cells of a language and part
of speech, their layout by UniMorph dimension, and the paradigm made through the Predictor.

Expected values are independent of the code under test: the dimensions and orders as the UniMorph
schema (Sylak-Glassman 2016) and grammars give them, written out here by hand; the cells recounted
from the shared-task files with plain Python; each cell's answer asked of the predictor one input
at a time.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import pytest

from inflect.corpora.cells import load_cells
from inflect.inference.outcomes import Prediction
from inflect.inference.paradigm import CellForm, ParadigmRequest, Paradigms, read_requests
from inflect.inference.paradigm_cells import ParadigmError, layout
from inflect.inference.predictor import Predictor
from inflect.inference.queries import InputError
from inflect.text.languages import UnknownLanguageError
from inflect.text.unimorph import dimension_of, ordered_features, part_of_speech, value_key

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py

#: The German noun cells (german-train-high: `cut -f3 | grep '^N;' | sort -u`), and the Finnish
#: noun cells' cases in the order of a Finnish grammar (Karlsson, *Finnish: An Essential
#: Grammar*: nominative, genitive, accusative, partitive, essive, translative, inessive, elative,
#: illative, adessive, ablative, allative, abessive, comitative, instructive), in the data's
#: UniMorph spelling (the data write the essive FRML).
GERMAN_N = {f"N;{c};{n}" for c in ("NOM", "GEN", "DAT", "ACC") for n in ("SG", "PL")}
FINNISH_CASES = [
    "NOM", "GEN", "ACC", "PRT", "FRML", "TRANS", "IN+ESS", "IN+ABL", "IN+ALL", "AT+ESS",
    "AT+ABL", "AT+ALL", "PRIV", "COM", "INS",
]  # fmt: skip
#: The UniMorph part-of-speech features (the schema's, and the data's V.* spellings).
POS_FEATURES = {
    "N", "PROPN", "ADJ", "PRO", "CLF", "ART", "DET", "V", "ADV", "AUX", "V.PTCP", "V.MSDR",
    "V.CVB", "ADP", "COMP", "CONJ", "NUM", "PART", "INTJ", "V.CONV", "V.PCTP", "V.NFIN",
    "V.PTCP.PST", "V.PTCP.PRS",
}  # fmt: skip


def test_features_belong_to_their_schema_dimension():
    expected = {
        "NOM": "case", "IN+ESS": "case", "NOM/ACC": "case", "PL": "number", "DU": "number",
        "PST": "tense", "IND": "mood", "SBJV": "mood", "1": "person", "PFV": "aspect",
        "NEG": "polarity", "MASC": "gender", "DEF": "definiteness", "V.PTCP": "part of speech",
        "N": "part of speech", "PSS2S": "possession", "ARGABS3": "argument marking",
        "LGSPEC1": "language-specific", "ACT": "voice", "NFIN": "finiteness",
        "CMPR": "comparison", "BANTU7": "gender",
    }  # fmt: skip
    assert {f: dimension_of(f) for f in expected} == expected
    assert dimension_of("NOT-A-FEATURE") == "other"


def test_cases_and_bundles_are_ordered_by_dimension_not_alphabetically():
    shuffled = sorted(FINNISH_CASES)  # alphabetical: AT+ABL, AT+ALL, ...
    assert sorted(shuffled, key=value_key) == FINNISH_CASES
    assert ordered_features({"PL", "DAT", "N"}) == ("N", "PL", "DAT")  # POS, number, case
    assert ordered_features({"SG", "1", "PRS", "IND", "V"}) == ("V", "IND", "PRS", "1", "SG")
    assert part_of_speech({"V", "V.PTCP", "PST"}) == "V.PTCP"  # Lithuanian's V;V.PTCP;...
    assert part_of_speech({"PSS1P"}) is None  # Navajo's


def test_a_noun_paradigm_is_case_by_number():
    bundles = [b.split(";") for b in ("N;PL;GEN", "N;SG;NOM", "N;NOM;PL", "N;GEN;SG", "N;COM;PL")]
    found = layout(bundles)
    assert (found.row_dimension, found.column_dimension, found.block_dimensions) == (
        "case",
        "number",
        (),
    )
    assert [bundles[i] for i in found.order] == [
        ["N", "SG", "NOM"],
        ["N", "NOM", "PL"],
        ["N", "GEN", "SG"],
        ["N", "PL", "GEN"],
        ["N", "COM", "PL"],
    ]
    assert found.places[0] == ((), "GEN", "PL")


def test_a_verb_paradigm_is_blocks_of_mood_and_tense_by_person_and_number():
    bundles = [
        f"V;{m};{t};{p};{n}".split(";")
        for m, t in (("SBJV", "PRS"), ("IND", "PST"), ("IND", "PRS"))
        for p in ("3", "1", "2")
        for n in ("PL", "SG")
    ] + [["V", "NFIN"]]
    found = layout(bundles)
    assert (found.row_dimension, found.column_dimension) == ("person", "number")
    assert found.block_dimensions == ("finiteness", "mood", "tense")
    ordered = [found.places[i] for i in found.order]
    blocks = list(dict.fromkeys(b for b, _, _ in ordered))
    # finite forms first (no finiteness feature), indicative before subjunctive, present first
    assert blocks == [("IND", "PRS"), ("IND", "PST"), ("SBJV", "PRS"), ("NFIN",)]
    assert [(r, c) for _, r, c in ordered[:6]] == [
        ("1", "SG"), ("1", "PL"), ("2", "SG"), ("2", "PL"), ("3", "SG"), ("3", "PL"),
    ]  # fmt: skip
    assert ordered[-1] == (("NFIN",), "", "")


def test_one_varying_dimension_is_a_list_and_a_repeated_bundle_is_refused():
    found = layout([["V.PTCP", "PST"], ["V.PTCP", "PRS"]])
    assert (found.row_dimension, found.column_dimension) == ("tense", None)
    assert [found.places[i][1] for i in found.order] == ["PRS", "PST"]
    with pytest.raises(ValueError, match="given twice"):
        layout([["N", "PL"], ["PL", "N"]])


def test_the_shipped_cells_have_the_training_data_counts():
    # counted with `cut -f3 LANG-train-high | sort -u | grep -c ...` on the shared-task files
    high = load_cells("high")
    assert len(high.bundles("finnish", "N")) == 28
    assert {b.text for b in high.bundles("german", "N")} == GERMAN_N
    # Spanish verbs: 65 finite and infinitive bundles (V), 4 participles, 1 gerund (V.CVB)
    assert len(high.bundles("spanish", "V")) == 70
    assert high.parts_of_speech("spanish") == {"V": 65, "V.PTCP": 4, "V.CVB": 1}


def _plain_cells(path: Path) -> dict[str, set[frozenset[str]]]:
    """Part of speech -> the distinct tag bundles of a 2018 file, read with plain Python."""
    out: dict[str, set[frozenset[str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) < 3:
            continue
        features = frozenset(fields[2].split(";"))
        pos = [f for f in features if f in POS_FEATURES]
        if not pos:
            continue
        most_specific = max(pos, key=lambda p: (p.count("."), p))
        out.setdefault(most_specific, set()).add(features)
    return out


@pytest.mark.parametrize(
    "language", ["finnish", "german", "spanish", "lithuanian", "navajo", "basque", "arabic"]
)
def test_the_shipped_cells_are_the_training_data_bundles(conll2018, language):
    for setting in ("high", "medium", "low"):
        path = conll2018 / f"{language}-train-{setting}"
        if not path.is_file():
            continue
        expected = _plain_cells(path)
        table = load_cells(setting)
        assert set(table.languages[language]) == set(expected), setting
        for pos, bundles in expected.items():
            stored = [frozenset(t.split(";")) for t in table.languages[language][pos]]
            assert len(stored) == len(set(stored)) and set(stored) == bundles, (setting, pos)
        # each bundle is written as the data write it most often
        for pos, texts in table.languages[language].items():
            written = path.read_text(encoding="utf-8").count
            assert all(written(f"\t{t}\n") > 0 for t in texts), (setting, pos)


@pytest.fixture(scope="module")
def german() -> Paradigms:
    return Paradigms.from_default("german")


def test_the_paradigm_is_each_cell_asked_alone(german):
    found = german.paradigm("Haus", "german", "N")
    assert found.language == "german" and found.part_of_speech == "N"
    assert {c.tags for c in found.cells} == GERMAN_N
    assert found.cells_from == "conll2018-task1 train-high"
    [block] = found.blocks
    assert block.rows == ("NOM", "GEN", "DAT", "ACC") and block.columns == ("SG", "PL")
    assert [c.tags for c in found.cells] == [
        f"N;{c};{n}" for c in ("NOM", "GEN", "DAT", "ACC") for n in ("SG", "PL")
    ]
    for cell in found.cells:
        alone = german.predictor.predict("Haus", cell.tags, "german")
        assert cell.certificate is alone.certificate
        assert [f.form for f in cell.forms] == [f.form for f in alone.forms]
        assert [f.probability for f in cell.forms] == pytest.approx(
            [f.probability for f in alone.forms], rel=1e-4, abs=1e-7
        )
        assert all(f.source is None for f in cell.forms)
        if cell.complete:
            assert math.fsum(f.probability for f in cell.forms) == pytest.approx(1.0, abs=1e-4)
        best = cell.forms[0].probability
        assert cell.uncertain == (best < 0.9 or cell.certificate.value == "none")


def test_a_paradigm_is_one_batch(german, monkeypatch):
    sizes = []
    run = german.predictor.run_detailed

    def counting(items, **kwargs):
        sizes.append(len(items))
        return run(items, **kwargs)

    monkeypatch.setattr(german.predictor, "run_detailed", counting)
    german.paradigm("Katze", "german", "N")
    assert sizes == [8]


class _AttestedForm(NamedTuple):
    """A form as a lexicon-aware predictor gives it: with a source."""

    form: str
    probability: float
    source: str | None = None


class _Lexicon(Predictor):
    """A predictor whose records mark one attested form, as the lexicon will: the paradigm
    code must carry the mark without knowing about lexicons."""

    def record(self, item, outcome):
        pred = super().record(item, outcome)
        forms = [_AttestedForm("Häuser", 1.0, "shared-task data")] if "PL" in pred.tags else []
        forms += [_AttestedForm(f.form, f.probability) for f in pred.forms]
        return Prediction(
            pred.lemma,
            pred.tags,
            pred.language,
            pred.source,
            **{**pred.outcome(), "forms": tuple(forms)},
        )


def test_attested_forms_keep_their_source(german):
    lexicon = _Lexicon(german.predictor.loaded)
    found = Paradigms(lexicon).paradigm("Haus", "german", "N")
    plural = found.cell("N;PL;NOM")  # order-free lookup
    assert plural.best == CellForm("Häuser", 1.0, "shared-task data") and plural.best.attested
    assert not found.cell("N;NOM;SG").best.attested


def test_bad_input_is_a_clear_error(german):
    with pytest.raises(UnknownLanguageError, match="klingon"):
        german.paradigm("Haus", "klingon", "N")
    with pytest.raises(ParadigmError, match=r"german has no ADV cells .*N \(8 cells\)"):
        german.paradigm("Haus", "german", "ADV")
    with pytest.raises(ParadigmError, match=r"german has 2 parts of speech; choose one with --pos"):
        german.paradigm("Haus", "german")
    for empty in ("", "   "):
        with pytest.raises(InputError, match="empty lemma"):
            german.paradigm(empty, "german", "N")
    # a part of speech in any case, or by its English name
    assert german.paradigm("Haus", "german", "noun").part_of_speech == "N"
    assert german.paradigm("Haus", "german", "n").part_of_speech == "N"


def test_parts_of_speech_are_offered_with_their_cell_counts(german):
    # german-train-high (`cut -f3 | sort -u`): 8 bundles with N, 27 with V and 2 with V.PTCP;
    # V counts its participles too
    assert german.parts_of_speech("de") == {"N": 8, "V": 29, "V.PTCP": 2}
    with pytest.raises(ParadigmError, match=r"N \(8 cells\), V \(29 cells, of which V.PTCP 2\)"):
        german.paradigm("Haus", "german", "ADJ")


def test_requests_are_read_lazily_with_file_and_line(tmp_path):
    path = tmp_path / "lemmas.txt"
    path.write_bytes(b"Haus\nKatze\tN\n\nHund\tN\textra\n")
    blanks = []
    requests = read_requests(path, on_blank=lambda src, n: blanks.append(n))
    assert next(requests) == ParadigmRequest("Haus", None, None, str(path), 1)
    assert next(requests) == ParadigmRequest("Katze", "N", None, str(path), 2)
    with pytest.raises(ParadigmError, match=rf"^{path}:4: 3 tab-separated fields"):
        next(requests)
    assert blanks == [3]
    path.write_bytes(b"Haus\n\xff\n")
    with pytest.raises(ParadigmError, match=rf"^{path}:2: bytes that are not UTF-8 at byte 1"):
        list(read_requests(path))
    path.write_bytes(b"\tN\n")
    with pytest.raises(ParadigmError, match=rf"^{path}:1: empty lemma"):
        list(read_requests(path))


def test_an_input_file_streams_paradigms_with_their_lines(german, tmp_path):
    path = tmp_path / "lemmas.txt"
    path.write_text("Haus\tN\nKatze\tN\n\tN\n", encoding="utf-8")
    stream = german.stream(read_requests(path), "german")
    first = next(stream)
    assert (first.lemma, first.where) == ("Haus", f"{path}:1")
    assert next(stream).lemma == "Katze"
    with pytest.raises(ParadigmError, match=rf"{path}:3: empty lemma"):
        next(stream)


def test_a_missing_or_malformed_cells_file_is_named(tmp_path):
    import gzip

    from inflect.corpora.cells import CellsError, cells_file

    with pytest.raises(
        CellsError,
        match=r"conll2018-task1-low\.json\.gz: the paradigm cells .* "
        r"missing; reinstall",
    ):
        load_cells("low", tmp_path)
    cells_file("medium", tmp_path).write_bytes(gzip.compress(b'{"format": "other/9"}'))
    with pytest.raises(CellsError, match=r"format 'other/9', expected 'sparse-inflect-cells/1'"):
        load_cells("medium", tmp_path)
    with pytest.raises(ValueError, match="unknown setting 'huge'"):
        load_cells("huge")
