"""The CoNLL–SIGMORPHON 2018 task 1 metrics (inflect.evaluation.scoring), the sparsity statistics
(inflect.evaluation.sparsity), the atomic writer (inflect.io.atomic) and `inflect evaluate`.

Expected values are computed by hand (in the comments) or by a float64 dynamic-programming
Levenshtein and a dict-based scorer written here from the definitions of the shared task's
evalm.py (forms keyed by lemma and tag text, last one wins, missing = "").
"""

from __future__ import annotations

import math
import os
import random
import re
import stat

import numpy as np
import pandas as pd
import pytest
import torch
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from inflect.cli import main
from inflect.evaluation.runner import write_results
from inflect.evaluation.scoring import (
    MACRO,
    SCORE_COLUMNS,
    levenshtein,
    read_predictions,
    score_files,
    score_predictions,
)
from inflect.evaluation.sparsity import (
    attention_statistics,
    certificate_shares,
    mean_step_support,
    mean_support_strings,
    single_string_share,
    sparsity_statistics,
)
from inflect.io.atomic import atomic_write, write_text
from inflect.text.reading import language_from_filename, read_examples
from inflect.text.records import DataFormatError, Example, TagBundle

# --- references -------------------------------------------------------------------------------


def dp_distance(a: str, b: str) -> int:
    """Levenshtein distance over code points: float64 dynamic programming, unit costs."""
    m = np.zeros((len(b) + 1, len(a) + 1), dtype=np.float64)
    m[:, 0] = np.arange(len(b) + 1)
    m[0, :] = np.arange(len(a) + 1)
    for x in range(1, len(b) + 1):
        for y in range(1, len(a) + 1):
            cost = 0.0 if a[y - 1] == b[x - 1] else 1.0
            m[x, y] = min(m[x - 1, y] + 1, m[x, y - 1] + 1, m[x - 1, y - 1] + cost)
    return int(m[len(b), len(a)])


def reference_scores(gold_triples, pred_triples) -> tuple[float, float]:
    """(accuracy %, mean distance) by the scorer's definition on (lemma, form, tag text)."""
    gold = {(lemma, tags): form for lemma, form, tags in gold_triples}
    pred = {(lemma, tags): form for lemma, form, tags in pred_triples}
    correct = distance = 0
    for key, form in gold.items():
        guess = pred.get(key, "")
        correct += form == guess
        distance += dp_distance(form, guess)
    return 100 * correct / len(gold), distance / len(gold)


def ex(lemma: str, form: str | None, tags: str, language: str = "german", line: int | None = None):
    return Example(lemma, TagBundle.parse(tags), form, language, "mem.tsv", line)


def row(frame: pd.DataFrame, language: str) -> dict:
    return frame.set_index("language").loc[language].to_dict()


# --- Levenshtein ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("kitten", "sitting", 3),  # k->s, e->i, +g
        ("Häuser", "", 6),  # a missing prediction costs the gold's length
        ("", "abc", 3),
        ("Häuser", "Hauser", 1),  # one substitution
        ("e\u0301", "\u00e9", 2),  # decomposed vs precomposed é: 2 code points vs 1
        ("e\u0301", "e", 1),  # delete the combining acute
        ("\u00e9", "e", 1),
        ("wandert aus", "wandertaus", 1),  # the space is a symbol
        ("wandert aus", "wandert  aus", 1),
        ("𐌰𐌱", "𐌰", 1),  # astral code point: one symbol, not two UTF-16 units
        ("abc", "abc", 0),
    ],
)
def test_levenshtein_by_hand(gold, pred, expected):
    assert levenshtein(gold, pred) == expected
    assert dp_distance(gold, pred) == expected


_TEXT = st.text(alphabet=st.sampled_from(list("abé e\u0301\u0308ÄäßΣσ𐌰ا")), max_size=9)


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
def test_levenshtein_equals_the_scorer_definition(a, b):
    assert levenshtein(a, b) == dp_distance(a, b)


# --- score_predictions ------------------------------------------------------------------------


GOLD = [
    ex("Haus", "Häuser", "N;NOM;PL", line=1),
    ex("gehen", "ging", "V;PST;1;SG", line=2),
    ex("auswandern", "wandert aus", "V;IND;PRS;3;SG", line=3),
    ex("Kind", "Kinder", "N;NOM;PL", line=4),
]


def test_counts_and_distances_by_hand():
    pred = [
        ex("Kind", "Kinder", "N;NOM;PL"),  # exact, distance 0
        ex("auswandern", "wandertaus", "V;IND;PRS;3;SG"),  # space lost: 1
        ex("Haus", "Hauser", "N;NOM;PL"),  # ä -> a: 1
        # gehen missing: "" vs "ging" = 4
        ex("Maus", "Mäuse", "N;NOM;PL"),  # no gold input: extra, not scored
    ]
    frame = score_predictions(pred, GOLD)
    assert list(frame.columns) == list(SCORE_COLUMNS)
    german = row(frame, "german")
    assert german["n"] == 4
    assert german["accuracy"] == pytest.approx(25.0)  # 1 of 4
    assert german["levenshtein"] == pytest.approx((0 + 1 + 1 + 4) / 4)
    assert (german["missing"], german["extra"]) == (1, 1)
    assert list(frame["language"]) == ["german", MACRO]


def test_matching_is_by_key_not_position():
    """The scorer reads both files into (lemma, tags) -> form: the order of lines is irrelevant,
    and a prediction file shorter than the gold scores its absent inputs as ""."""
    preds = [ex(e.lemma, e.form, e.tags.text) for e in GOLD]
    random.Random(1).shuffle(preds)
    full = row(score_predictions(preds, GOLD), "german")
    assert (full["accuracy"], full["levenshtein"], full["missing"]) == (100.0, 0.0, 0)
    short = row(
        score_predictions([ex(e.lemma, e.form, e.tags.text) for e in GOLD[:2]], GOLD), "german"
    )
    # the last two gold inputs are missing: distances len("wandert aus") = 11, len("Kinder") = 6
    assert short["accuracy"] == pytest.approx(50.0)
    assert short["levenshtein"] == pytest.approx((0 + 0 + 11 + 6) / 4)
    assert short["missing"] == 2


def test_tag_text_order_and_repeats_are_part_of_the_key():
    # albanian-dev has both V;2;PL;IND;PRF (keni kuptuar) and V;2;PL;IND;PRF;PRF (patët kuptuar)
    gold = [
        ex("kuptoj", "keni kuptuar", "V;2;PL;IND;PRF", "albanian"),
        ex("kuptoj", "patët kuptuar", "V;2;PL;IND;PRF;PRF", "albanian"),
    ]
    pred = [
        ex("kuptoj", "patët kuptuar", "V;2;PL;IND;PRF;PRF", "albanian"),
        ex("kuptoj", "keni kuptuar", "V;PL;2;IND;PRF", "albanian"),  # other order: no match
    ]
    albanian = row(score_predictions(pred, gold), "albanian")
    assert albanian["n"] == 2
    assert albanian["accuracy"] == pytest.approx(50.0)
    assert albanian["levenshtein"] == pytest.approx((0 + len("keni kuptuar")) / 2)
    assert (albanian["missing"], albanian["extra"]) == (1, 1)


def test_whitespace_around_a_feature_is_ignored():
    gold = [ex("bonus", "bonis", "ADJ;ABL; PL", "latin")]
    pred = [ex("bonus", "bonis", "ADJ;ABL;PL", "latin")]
    assert row(score_predictions(pred, gold), "latin")["accuracy"] == 100.0


def test_repeated_keys_keep_the_last_form_and_are_counted():
    gold = [ex("a", "x", "N"), ex("a", "y", "N")]  # scored once, against "y"
    pred = [ex("a", "y", "N"), ex("a", "x", "N")]  # the last prediction, "x", is used
    german = row(score_predictions(pred, gold), "german")
    assert german["n"] == 1
    assert german["accuracy"] == 0.0 and german["levenshtein"] == 1.0
    assert (german["gold_duplicates"], german["pred_duplicates"]) == (1, 1)


def test_combining_marks_are_not_normalised():
    gold = [ex("eler", "el\u00e9", "V;PST", "french"), ex("x", "e\u0301", "N", "french")]
    pred = [ex("eler", "ele\u0301", "V;PST", "french"), ex("x", "e\u0301", "N", "french")]
    french = row(score_predictions(pred, gold), "french")
    assert french["accuracy"] == pytest.approx(50.0)
    assert french["levenshtein"] == pytest.approx((2 + 0) / 2)  # é vs e + U+0301: 2


def test_macro_average_over_two_languages():
    gold = [
        ex("a", "ab", "N", "german"),
        ex("b", "bc", "N", "german"),
        ex("c", "cd", "N", "finnish"),
        ex("d", "de", "N", "finnish"),
        ex("e", "ef", "N", "finnish"),
    ]
    pred = [
        ex("a", "ab", "N", "german"),
        ex("b", "b", "N", "german"),  # 50 %, (0 + 1) / 2
        ex("c", "cd", "N", "finnish"),
        ex("d", "de", "N", "finnish"),  # e missing: 2
    ]
    frame = score_predictions(pred, gold)
    assert list(frame["language"]) == ["german", "finnish", MACRO]
    finnish = row(frame, "finnish")
    assert finnish["accuracy"] == pytest.approx(200 / 3)
    assert finnish["levenshtein"] == pytest.approx(2 / 3)
    macro = row(frame, MACRO)
    assert macro["n"] == 5 and macro["missing"] == 1
    assert macro["accuracy"] == pytest.approx((50 + 200 / 3) / 2)  # unweighted, not 80 %
    assert macro["levenshtein"] == pytest.approx((0.5 + 2 / 3) / 2)


def test_score_errors():
    with pytest.raises(ValueError, match="no gold"):
        score_predictions([], [])
    with pytest.raises(ValueError, match=r"mem\.tsv:7: gold example has no form"):
        score_predictions([], [ex("a", None, "N", line=7)])
    with pytest.raises(ValueError, match="no gold examples: finnish"):
        score_predictions([ex("a", "b", "N", "finnish")], [ex("a", "b", "N")])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("abc"),
            st.text("xyé ", max_size=4),
            st.sampled_from(["N", "V", "N;PL", "PL;N"]),
        ),
        min_size=1,
        max_size=8,
    ),
    st.lists(
        st.tuples(
            st.sampled_from("abcd"),
            st.text("xyé ", max_size=4),
            st.sampled_from(["N", "V", "N;PL", "PL;N"]),
        ),
        max_size=8,
    ),
)
def test_agrees_with_the_reference_scorer(gold_triples, pred_triples):
    gold = [ex(lemma, form, tags) for lemma, form, tags in gold_triples]
    pred = [ex(lemma, form, tags) for lemma, form, tags in pred_triples]
    accuracy, distance = reference_scores(gold_triples, pred_triples)
    german = row(score_predictions(pred, gold), "german")
    assert german["accuracy"] == pytest.approx(accuracy)
    assert german["levenshtein"] == pytest.approx(distance)


def test_real_dev_file_against_the_reference(conll2018, tmp_path):
    gold_path = conll2018 / "german-dev"
    lines = [line.split("\t") for line in gold_path.read_text("utf-8").splitlines() if line]
    rng = random.Random(3)
    out = []
    for lemma, form, tags in lines:
        r = rng.random()
        if r < 0.1:
            continue  # missing
        if r < 0.3:
            form = form[:-1] + "x"
        out.append((lemma, form, tags))
    rng.shuffle(out)
    pred_path = tmp_path / "german.pred"
    pred_path.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in out), "utf-8")
    accuracy, distance = reference_scores(lines, out)
    german = row(score_files([pred_path], [gold_path]), "german")
    assert german["n"] == len(lines)
    assert german["accuracy"] == pytest.approx(accuracy)
    assert german["levenshtein"] == pytest.approx(distance)


# --- reading predictions, writing results -----------------------------------------------------


def test_read_predictions_keeps_empty_and_blank_forms(tmp_path):
    path = tmp_path / "german.pred"
    path.write_text("Haus\tHäuser\tN;NOM;PL\ngehen\t\tV;PST\nKind\t \tN;PL\n", "utf-8")
    preds = read_predictions(path)
    assert [(p.lemma, p.form, p.line, p.language) for p in preds] == [
        ("Haus", "Häuser", 1, "german"),
        ("gehen", "", 2, "german"),
        ("Kind", " ", 3, "german"),
    ]
    gold = [ex("gehen", "ging", "V;PST"), ex("Kind", "Kinder", "N;PL")]
    german = row(score_predictions(preds, gold), "german")
    assert german["missing"] == 0 and german["extra"] == 1
    assert german["levenshtein"] == pytest.approx((4 + 6) / 2)  # "" vs ging; " " vs Kinder


def test_read_predictions_rejects_bad_lines(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("Haus\tHäuser\tN;NOM;PL\nonly\ttwo\n", "utf-8")
    with pytest.raises(DataFormatError, match=re.escape(f"{path}:2: expected 3")):
        read_predictions(path)
    path.write_text("Haus\t\tN;;PL\n", "utf-8")
    with pytest.raises(DataFormatError, match=re.escape(f"{path}:1: empty UniMorph feature")):
        read_predictions(path)


def test_write_results_round_trip(tmp_path):
    frame = score_predictions([ex("a", "b", "N")], [ex("a", "b", "N"), ex("c", "d", "N")])
    parquet, csv = write_results(frame, tmp_path / "sub" / "scores")
    assert parquet.name == "scores.parquet" and csv.name == "scores.csv"
    pd.testing.assert_frame_equal(pd.read_parquet(parquet), frame)
    pd.testing.assert_frame_equal(pd.read_csv(csv), frame)
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["scores.csv", "scores.parquet"]


# --- sparsity statistics ----------------------------------------------------------------------


PROBS = [[1.0], [0.6, 0.4], [0.5], [1.0, 0.0], [0.9999999]]


def test_single_string_share_and_mean_strings():
    # one string holding all mass: inputs 0, 3 (a zero is not in the support) and 4 (float32
    # rounding); input 2 has one string but only half the mass listed
    assert single_string_share(PROBS) == pytest.approx(3 / 5)
    assert mean_support_strings(PROBS) == pytest.approx((1 + 2 + 1 + 1 + 1) / 5)
    assert math.isnan(single_string_share([])) and math.isnan(mean_support_strings([]))
    with pytest.raises(ValueError, match="finite and >= 0"):
        single_string_share([[0.5, -0.1]])
    with pytest.raises(ValueError, match="finite and >= 0"):
        mean_support_strings([[float("nan")]])


def test_certificate_shares():
    from inflect.decoding.protocol import Certificate

    shares = certificate_shares(
        [Certificate.FULL_SUPPORT, "full_support", Certificate.MODE_ONLY, "NONE", None]
    )
    assert shares == pytest.approx({"full_support": 2 / 5, "mode_only": 1 / 5, "none": 2 / 5})
    with pytest.raises(ValueError, match="unknown certificate"):
        certificate_shares(["exact"])


def test_step_support():
    assert mean_step_support([[2, 1, 4], [1]]) == pytest.approx(8 / 4)  # pooled over steps
    assert math.isnan(mean_step_support([[], []]))
    with pytest.raises(ValueError, match=">= 1"):
        mean_step_support([[0]])


def test_attention_statistics():
    a = torch.tensor([[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])  # source length 3, 1 padding
    b = np.array([[0.2, 0.8], [0.0, 1.0], [0.3, 0.7]])  # source length 2
    attended, density = attention_statistics([a, b], [3, 2])
    # nonzero weights 3 + 5 = 8 over 2 + 3 = 5 target symbols; cells 2*3 + 3*2 = 12
    assert attended == pytest.approx(8 / 5)
    assert density == pytest.approx(8 / 12)
    attended, density = attention_statistics([a])  # padding counted when no lengths given
    assert (attended, density) == (pytest.approx(3 / 2), pytest.approx(3 / 8))
    with pytest.raises(ValueError, match="source length 5"):
        attention_statistics([a], [5])
    with pytest.raises(ValueError, match="2 attention matrices but 1"):
        attention_statistics([a, b], [3])


def test_sparsity_statistics_by_hand():
    att = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])  # source length 2 (+1 padding)
    stats = sparsity_statistics(
        [[1.0], [0.7, 0.3]],
        ["full_support", "none"],
        [[1, 1], [3, 2, 1]],
        [att],
        [2],
        incomplete=1,
    )
    assert stats.inputs == 2 and stats.incomplete == 1
    assert stats.single_string == pytest.approx(1 / 2)
    assert (stats.full_support, stats.mode_only) == (pytest.approx(1 / 2), 0.0)
    assert stats.mean_strings == pytest.approx(3 / 2)
    assert stats.mean_step_support == pytest.approx(8 / 5)  # (1+1+3+2+1) over 5 steps
    assert stats.mean_attended == pytest.approx(3 / 2)  # 3 nonzero weights, 2 target symbols
    assert stats.attention_density == pytest.approx(3 / 4)  # over 2 x 2 cells


# --- the atomic writer ------------------------------------------------------------------------


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_write_honours_the_umask_and_leaves_nothing_behind(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        path = write_text(tmp_path / "sub" / "a.txt", "é\n")
        assert path.read_text("utf-8") == "é\n"
        assert stat.S_IMODE(path.stat().st_mode) == mode  # as open() would create it
    finally:
        os.umask(old)

    def fail(temp):
        temp.write_text("half")
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        atomic_write(tmp_path / "sub" / "a.txt", fail)
    assert path.read_text("utf-8") == "é\n"  # the old content stays
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.txt"]  # no temporary file


# --- the command line -------------------------------------------------------------------------


def run(*args: str):
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})


def _write(path, rows):
    path.write_text("".join("\t".join(r) + "\n" for r in rows), "utf-8")
    return path


def test_cli_evaluate_prints_and_writes(tmp_path):
    gold_de = _write(
        tmp_path / "german-dev", [("Haus", "Häuser", "N;NOM;PL"), ("gehen", "ging", "V;PST")]
    )
    pred_de = _write(tmp_path / "de.pred", [("Haus", "Hauser", "N;NOM;PL")])  # 1; gehen missing: 4
    gold_fi = _write(tmp_path / "finnish-dev", [("talo", "talot", "N;NOM;PL")])
    pred_fi = _write(tmp_path / "fi.pred", [("talo", "talot", "N;NOM;PL")])
    out = tmp_path / "res" / "scores"
    result = run(
        "evaluate",
        "--pred",
        str(pred_de),
        "--gold",
        str(gold_de),
        "--pred",
        str(pred_fi),
        "--gold",
        str(gold_fi),
        "--out",
        str(out),
        "--format",
        "table",
    )
    assert result.exit_code == 0, result.output
    german = re.search(r"german\s*│\s*2\s*│\s*([\d.]+)\s*│\s*([\d.]+)\s*│\s*1", result.output)
    assert german and german.groups() == ("0.00", "2.50")  # (1 + 4) / 2
    macro = re.search(rf"{MACRO}\s*│\s*3\s*│\s*([\d.]+)\s*│\s*([\d.]+)", result.output)
    assert macro and macro.groups() == ("50.00", "1.25")
    frame = pd.read_parquet(str(out) + ".parquet")
    assert list(frame["language"]) == ["german", "finnish", MACRO]
    assert frame["levenshtein"].tolist() == pytest.approx([2.5, 0.0, 1.25])
    pd.testing.assert_frame_equal(pd.read_csv(str(out) + ".csv"), frame)


def test_cli_evaluate_lang_alias_and_errors(tmp_path):
    gold = _write(tmp_path / "gold.tsv", [("Haus", "Häuser", "N;NOM;PL")])
    pred = _write(tmp_path / "pred.tsv", [("Haus", "Häuser", "N;NOM;PL")])
    result = run(
        "evaluate", "--pred", str(pred), "--gold", str(gold), "--lang", "de", "--format", "table"
    )
    assert result.exit_code == 0, result.output
    assert re.search(r"german\s*│\s*1\s*│\s*100\.00\s*│\s*0\.00", result.output)

    result = run("evaluate", "--pred", str(pred), "--gold", str(gold), "--gold", str(gold))
    assert result.exit_code != 0 and "1 prediction file(s) but 2 gold file(s)" in result.output

    # a name no spec has is scored as given (a language of the user's own), and the
    # closest known names are offered where it may be a misspelling
    result = run("evaluate", "--pred", str(pred), "--gold", str(gold), "--lang", "germn")
    assert result.exit_code == 0, result.output
    assert "'germn' is a language neither" in result.output and "'german'" in result.output
    assert "germn\t1\t100.0" in result.stdout

    bad = _write(tmp_path / "bad.tsv", [("Haus", "N;NOM;PL")])
    # (a language the file name does not give is an error of its own: --lang names it)
    result = run("evaluate", "--pred", str(bad), "--gold", str(gold), "--lang", "de")
    assert result.exit_code != 0 and f"{bad}: the file has no forms (2 fields" in result.output
    result = run("evaluate", "--pred", str(bad), "--gold", str(gold), "--lang", "de",
                 "--input-format", "2018")
    assert result.exit_code != 0 and f"{bad}:1: expected 3" in result.output

    covered = _write(tmp_path / "covered.tsv", [("Haus", "N;NOM;PL")])
    result = run("evaluate", "--pred", str(pred), "--gold", str(covered), "--lang", "de")
    assert result.exit_code != 0 and f"{covered}: the file has no forms" in result.output


def test_cli_evaluate_model_must_exist():
    result = run("evaluate", "--model", "no-such-model", "--lang", "de", "--split", "dev")
    assert result.exit_code == 2 and "does not exist" in result.output


def test_read_examples_and_read_predictions_agree_on_complete_files(tmp_path):
    path = _write(
        tmp_path / "german-dev",
        [("Haus", "Häuser", "N;NOM;PL"), ("auswandern", "wandert aus", "V;IND;PRS;3;SG")],
    )
    assert read_predictions(path) == read_examples(path)


def test_official_gold_test_file_names_give_the_language(tmp_path):
    # the shared task's gold test files are named <language>-test
    assert language_from_filename("conll/german-test") == "german"
    assert language_from_filename("german-covered-test") == "german"
    gold = _write(tmp_path / "german-test", [("Haus", "Häuser", "N;NOM;PL"), ("a", "b", "V")])
    pred = _write(tmp_path / "german.pred", [("Haus", "Häuser", "N;NOM;PL")])
    result = run("evaluate", "--pred", str(pred), "--gold", str(gold), "--format", "table")
    assert result.exit_code == 0, result.output
    # german: 1 of 2 right, distances 0 and len("b") = 1
    assert re.search(r"german\s*│\s*2\s*│\s*50\.00\s*│\s*0\.50", result.output)


def test_mispaired_prediction_and_gold_files_are_an_error(tmp_path):
    # German predictions scored against Finnish gold: no prediction matches a gold input
    gold = _write(
        tmp_path / "finnish-dev",
        [("talo", "talot", "N;NOM;PL")] * 1
        + [(f"sana{i}", f"sanat{i}", "N;NOM;PL") for i in range(19)],
    )
    pred = _write(
        tmp_path / "german.pred", [(f"Haus{i}", f"Häuser{i}", "N;NOM;PL") for i in range(20)]
    )
    result = run("evaluate", "--pred", str(pred), "--gold", str(gold))
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert "barely overlap: 0 of the 20 gold inputs have a prediction and 20 predictions" in message
    assert "same language (finnish)" in message
    # 2 of 20 gold inputs predicted (10%), no stray prediction: a partial file, scored
    partial = _write(
        tmp_path / "partial.pred", [("talo", "talot", "N;NOM;PL"), ("sana0", "x", "N;NOM;PL")]
    )
    result = run("evaluate", "--pred", str(partial), "--gold", str(gold), "--format", "table")
    assert result.exit_code == 0, result.output
    assert re.search(r"finnish\s*│\s*20\s*│\s*5\.00", result.output)  # 1 of 20 right
    # an empty prediction file: refused, not a silent 0%
    empty = tmp_path / "empty.pred"
    empty.write_text("", encoding="utf-8")
    result = run("evaluate", "--pred", str(empty), "--gold", str(gold))
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert f"{empty} holds no prediction: all 20 gold inputs of {gold} would score" in message


def test_covered_test_split_is_refused_before_predicting():
    # --lang german alone: the shipped model; the split fails before any model is loaded
    result = run("evaluate", "--lang", "german", "--split", "covered-test")
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert "covered-test split has no gold forms" in message and "--gold LANGUAGE-test" in message


def test_evaluate_out_files_follow_the_umask(tmp_path):
    gold = _write(tmp_path / "german-dev", [("Haus", "Häuser", "N;NOM;PL")])
    pred = _write(tmp_path / "de.pred", [("Haus", "Häuser", "N;NOM;PL")])
    old = os.umask(0o022)
    try:
        result = run(
            "evaluate",
            "--pred",
            str(pred),
            "--gold",
            str(gold),
            "--out",
            str(tmp_path / "out" / "res"),
        )
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    written = sorted((tmp_path / "out").iterdir())
    assert [p.name for p in written] == ["res.csv", "res.parquet", "res.svg"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o644}


# --- edges found by mutation testing (README, Development) -------------------------------------


def test_duplicate_and_extra_counts_by_hand():
    gold = [ex("a", "x", "N"), ex("a", "x", "N"), ex("a", "y", "N"), ex("b", "z", "N")]
    pred = [ex("a", "y", "N"), ex("q", "1", "N"), ex("r", "2", "N"), ex("s", "3", "N")]
    german = row(score_predictions(pred, gold), "german")
    # gold key (a, N) three times: 2 repeats; 3 predictions match no gold input; b is missing
    assert (german["n"], german["gold_duplicates"], german["pred_duplicates"]) == (2, 2, 0)
    assert (german["extra"], german["missing"]) == (3, 1)
    assert german["accuracy"] == 50.0  # a: the last gold form "y" is predicted
    # a gold language without any prediction: no prediction repeats, everything missing
    frame = score_predictions(pred, [*gold, ex("c", "w", "N", "finnish")])
    finnish = row(frame, "finnish")
    assert (finnish["pred_duplicates"], finnish["missing"], finnish["extra"]) == (0, 1, 0)
    for column in ("n", *SCORE_COLUMNS[4:]):
        assert frame[column].dtype == np.int64, column
    for column in ("accuracy", "levenshtein"):
        assert frame[column].dtype == np.float64, column


def test_a_prediction_without_form_is_named_as_a_prediction():
    with pytest.raises(ValueError, match=r"mem\.tsv:3: prediction example has no form"):
        score_predictions([ex("a", None, "N", line=3)], [ex("a", "b", "N")])


def test_single_string_share_boundary_and_empty_certificates():
    # exactly 1 - atol counts (">="), just below does not
    assert single_string_share([[1.0 - 1e-6]]) == 1.0
    assert single_string_share([[1.0 - 1.1e-6]]) == 0.0
    assert single_string_share([[0.75]], atol=0.25) == 1.0
    empty = certificate_shares([])
    assert sorted(empty) == ["full_support", "mode_only", "none"]
    assert all(math.isnan(v) for v in empty.values())


def test_attention_statistics_length_edges():
    a = np.array([[1.0, 0.0, 0.0]])  # one row, source length 1 is in range, 0 is not
    assert attention_statistics([a], [1]) == (1.0, 1.0)
    assert attention_statistics([a]) == (pytest.approx(1.0), pytest.approx(1 / 3))
    with pytest.raises(ValueError, match=r"source length 0 outside 1\.\.3"):
        attention_statistics([a], [0])
    assert all(math.isnan(x) for x in attention_statistics([np.zeros((0, 3))]))
