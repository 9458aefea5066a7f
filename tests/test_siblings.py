"""Re-ranking the model's forms by the lemma's other forms (``inflect.inference.siblings``):
the edit rules and scores by hand, and the shipped Nynorsk model on dev lines of the data."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
from click.testing import CliRunner

from inflect.inference.siblings import PRIOR, WEIGHT, SiblingEvidence, edit_rule
from inflect.text.records import TagBundle

DEF_SG, DEF_PL, NDEF_PL = (TagBundle.parse(t) for t in ("N;DEF;SG", "N;DEF;PL", "N;NDEF;PL"))


@dataclass
class F:
    form: str
    probability: float


@pytest.mark.parametrize("lemma, form, rule", [
    ("ulv", "ulvane", ("", "ane")),
    ("gata", "gate", ("a", "e")),
    ("gå", "gå", ("", "")),
    ("bok", "bøker", ("ok", "øker")),
    ("", "x", ("", "x")),
])
def test_edit_rule_by_hand(lemma, form, rule):
    assert edit_rule(lemma, form) == rule


def _nynorsk_like() -> SiblingEvidence:
    """Two masculine lemmas (-en, -ane), two feminine (-a, -ene), and ulv with its plural only."""
    pairs = [
        ("hund", "hunden", DEF_SG), ("hund", "hundane", DEF_PL),
        ("stol", "stolen", DEF_SG), ("stol", "stolane", DEF_PL),
        ("sol", "sola", DEF_SG), ("sol", "solene", DEF_PL),
        ("tid", "tida", DEF_SG), ("tid", "tidene", DEF_PL),
        ("ulv", "ulvane", DEF_PL),
    ]
    return SiblingEvidence.from_pairs(pairs)


def test_scores_by_hand():
    evidence = _nynorsk_like()
    # ulv's sibling: N;DEF;PL by ("", "ane"); two lemmas share it (hund, stol), both -en
    got = evidence.scores("ulv", DEF_SG, ["ulva", "ulven"], [0.6, 0.4])
    assert got[0] == pytest.approx(math.log(0.6) + WEIGHT * math.log((0 + PRIOR * 0.6) / (2 + PRIOR)))
    assert got[1] == pytest.approx(math.log(0.4) + WEIGHT * math.log((2 + PRIOR * 0.4) / (2 + PRIOR)))
    ranked = evidence.rerank("ulv", DEF_SG, [F("ulva", 0.6), F("ulven", 0.4)])
    assert [f.form for f in ranked] == ["ulven", "ulva"]
    assert [f.probability for f in ranked] == [0.4, 0.6]  # the model's, unchanged


def test_two_cells_are_averaged_by_hand():
    # ulv attested in N;DEF;PL (-ane: hund, stol, both -en) and N;NDEF;PL (-ar: hund only, -en)
    evidence = SiblingEvidence.from_pairs([
        (lem, f, t) for lem, cells in _nynorsk_like().cells.items() for t, f in cells.items()
    ] + [("hund", "hundar", NDEF_PL), ("ulv", "ulvar", NDEF_PL)])
    p_a, p_en = 0.6, 0.4
    a = [math.log((0 + PRIOR * p_a) / (2 + PRIOR)), math.log((0 + PRIOR * p_a) / (1 + PRIOR))]
    en = [math.log((2 + PRIOR * p_en) / (2 + PRIOR)), math.log((1 + PRIOR * p_en) / (1 + PRIOR))]
    got = evidence.scores("ulv", DEF_SG, ["ulva", "ulven"], [p_a, p_en])
    assert got == pytest.approx([math.log(p_a) + WEIGHT * sum(a) / 2,
                                 math.log(p_en) + WEIGHT * sum(en) / 2])


def test_no_evidence_keeps_the_models_order():
    evidence = _nynorsk_like()
    forms = [F("elgja", 0.7), F("elgen", 0.3)]
    assert evidence.rerank("elg", DEF_SG, forms) == forms  # a lemma the pairs do not have
    # a sibling class no other lemma has: no count, the model's order
    odd = SiblingEvidence.from_pairs([("ulv", "ulvxyz", DEF_PL), ("hund", "hunden", DEF_SG)])
    assert odd.rerank("ulv", DEF_SG, [F("ulva", 0.6), F("ulven", 0.4)])[0].form == "ulva"
    # a single form is returned as it is
    assert evidence.rerank("ulv", DEF_SG, [F("ulva", 1.0)])[0].form == "ulva"


def test_the_asked_cell_is_not_its_own_evidence():
    # ulv attested in the asked cell only: no sibling cell, so the model's order (the attested
    # form itself is the lexicon's to give, not this evidence's)
    evidence = SiblingEvidence.from_pairs([("ulv", "ulven", DEF_SG), ("hund", "hunden", DEF_SG),
                                           ("hund", "hundane", DEF_PL)])
    assert evidence.scores("ulv", DEF_SG, ["ulva", "ulven"], [0.6, 0.4]) == pytest.approx(
        [math.log(0.6), math.log(0.4)])
    assert evidence.rerank("ulv", DEF_SG, [F("ulva", 0.6), F("ulven", 0.4)])[0].form == "ulva"


def test_ties_keep_their_order():
    evidence = SiblingEvidence.from_pairs([("a", "ab", DEF_PL), ("c", "cb", DEF_PL)])
    forms = [F("ax", 0.5), F("ay", 0.5)]
    assert evidence.rerank("a", DEF_SG, forms) == forms


def test_shipped_nynorsk_model_with_the_training_paradigms(conll2018):
    """Two dev lines of the data where the model's top form has the wrong gender and the lemma's
    train-high forms say which (postboks N;DEF;SG -> postboksen; sfære N;NDEF;PL -> sfærar)."""
    from inflect.corpora.splits import load_split
    from inflect.inference.predictor import Predictor

    pairs = load_split("norwegian-nynorsk", "train-high", conll2018)
    evidence = SiblingEvidence.from_pairs((e.lemma, e.form, e.tags) for e in pairs)
    plain = Predictor.from_default("norwegian-nynorsk", setting="high")
    ranked = Predictor.from_default("norwegian-nynorsk", setting="high",
                                    siblings={"norwegian-nynorsk": evidence})
    for lemma, tags, gold in [("postboks", "N;DEF;SG", "postboksen"),
                              ("sfære", "N;NDEF;PL", "sfærar")]:
        alone, with_siblings = plain.predict(lemma, tags), ranked.predict(lemma, tags)
        assert alone.best.form != gold
        assert with_siblings.best.form == gold
        assert sorted((f.form, f.probability) for f in alone.forms) == sorted(
            (f.form, f.probability) for f in with_siblings.forms)
        assert with_siblings.certificate == alone.certificate


def test_evaluate_siblings_option(conll2018, tmp_path):
    from inflect.cli import main

    gold = tmp_path / "norwegian-nynorsk-dev"
    lines = [line for line in (conll2018 / "norwegian-nynorsk-dev").read_text("utf-8").splitlines()
             if line.split("\t")[0] in ("postboks", "sfære")]
    assert len(lines) == 2
    gold.write_text("\n".join(lines) + "\n", "utf-8")
    runner = CliRunner()
    args = ["evaluate", "--lang", "norwegian-nynorsk", "--setting", "high", "--gold", str(gold),
            "--data-dir", str(conll2018), "--format", "tsv"]
    alone = runner.invoke(main, args)
    ranked = runner.invoke(main, [*args, "--siblings", "train-high"])
    assert alone.exit_code == 0 and ranked.exit_code == 0, alone.output + ranked.output
    row = {r.split("\t")[0]: r.split("\t")[2] for r in ranked.stdout.splitlines()}
    assert float(row["norwegian-nynorsk"]) == 100.0
    row = {r.split("\t")[0]: r.split("\t")[2] for r in alone.stdout.splitlines()}
    assert float(row["norwegian-nynorsk"]) == 0.0
    assert "re-ranked by the lemma's other forms in train-high" in ranked.stderr


def test_evaluate_siblings_refusals(conll2018, tmp_path):
    from inflect.cli import main

    runner = CliRunner()
    same = runner.invoke(main, ["evaluate", "--lang", "norwegian-nynorsk", "--setting", "high",
                                "--split", "train-high", "--siblings", "train-high",
                                "--data-dir", str(conll2018)])
    assert same.exit_code == 1 and "the gold split (train-high)" in same.output
    pred = tmp_path / "p"
    pred.write_text("a\tb\tN;SG\n", "utf-8")
    with_pred = runner.invoke(main, ["evaluate", "--pred", str(pred), "--gold", str(pred),
                                     "--siblings", "train-high"])
    assert with_pred.exit_code == 2 and "--siblings is used when the model predicts" in (
        with_pred.output)


def test_predict_and_api_re_rank_by_the_shipped_lexicon():
    """The shipped lexicon (the shared-task data) gives sfære's other cells: the model's own
    forms after the attested one are re-ranked (sfærar before the model's sfærer)."""
    import inflect as api
    from inflect.cli import main

    def model_forms(forms):
        return [f.form for f in forms if f.source is None]

    plain = api.inflect("sfære", "N;NDEF;PL", lang="norwegian-nynorsk", setting="high",
                        siblings="off")
    ranked = api.inflect("sfære", "N;NDEF;PL", lang="norwegian-nynorsk", setting="high",
                         siblings="on")
    assert model_forms(plain.forms)[0] == "sfærer"
    assert model_forms(ranked.forms)[0] == "sfærar"
    with pytest.raises(ValueError, match="no_lexicon"):
        api.inflect("sfære", "N;NDEF;PL", lang="norwegian-nynorsk", siblings="on",
                    no_lexicon=True)
    runner = CliRunner()
    out = runner.invoke(main, ["predict", "--lang", "nn", "--setting", "high", "--siblings",
                               "on", "--format", "tsv", "sfære", "N;NDEF;PL"])
    assert out.exit_code == 0, out.output
    rows = [r.split("\t") for r in out.stdout.splitlines()[1:]]
    assert next(r[6] for r in rows if r[8] == "model") == "sfærar"
    refused = runner.invoke(main, ["predict", "--lang", "nn", "--siblings", "on",
                                   "--no-lexicon", "sfære", "N;NDEF;PL"])
    assert refused.exit_code == 2 and "--no-lexicon" in refused.output


@pytest.mark.parametrize("value, no_lexicon, expected", [
    ("auto", False, "auto"), ("auto", True, None), ("on", False, True), (True, False, True),
    ("off", False, None), (False, False, None), (None, True, None),
])
def test_siblings_choice(value, no_lexicon, expected):
    from inflect.inference.siblings import siblings_choice

    assert siblings_choice(value, no_lexicon) == expected


def test_siblings_choice_refusals():
    from inflect.inference.siblings import siblings_choice

    with pytest.raises(ValueError, match="no_lexicon"):
        siblings_choice("on", no_lexicon=True)
    with pytest.raises(ValueError, match="unknown value 'yes'"):
        siblings_choice("yes")


def test_the_choices_are_one_list():
    """predict's, paradigm's and explain's --siblings, the service's schema and the library name
    the same choices."""
    import typing

    from inflect.cli.explain import explain_command
    from inflect.cli.paradigm import paradigm_command
    from inflect.cli.predict import predict_command
    from inflect.inference.siblings import SIBLINGS_CHOICES
    from inflect.serve.schema import Siblings

    for command in (predict_command, paradigm_command, explain_command):
        option = next(p for p in command.params if p.name == "siblings")
        assert tuple(option.type.choices) == SIBLINGS_CHOICES == typing.get_args(Siblings)


def test_auto_follows_the_shipped_table():
    """auto re-ranks Nynorsk's shipped high model (its table entry is on: dev 81.3 -> 88.8) and
    leaves Dutch's (96.9 -> 95.9: off) and a model given by path (not measured) in the model's
    order."""
    from inflect.inference.predictor import Predictor
    from inflect.inference.siblings import SHIPPED_TABLE, re_ranks
    from inflect.lexicon import load_lexicons

    assert re_ranks("norwegian-nynorsk", "high", "norwegian-nynorsk-high")
    assert not re_ranks("dutch", "high", "dutch-high")
    lexicons = load_lexicons([], language="norwegian-nynorsk")
    auto = Predictor.from_default("norwegian-nynorsk", setting="high", lexicons=lexicons,
                                  siblings="auto")
    model_forms = [f.form for f in auto.predict("sfære", "N;NDEF;PL").forms if f.source is None]
    assert model_forms[0] == "sfærar"
    by_path = Predictor.from_checkpoints([m.path for m in auto.loaded], lexicons=lexicons,
                                         siblings="auto")
    model_forms = [f.form for f in by_path.predict("sfære", "N;NDEF;PL").forms
                   if f.source is None]
    assert model_forms[0] == "sfærer"
    assert SHIPPED_TABLE.is_file()


def test_re_ranks_reads_the_table(tmp_path):
    from inflect.inference.siblings import re_ranks

    table = tmp_path / "siblings.toml"
    table.write_text('[high]\nnorwegian-nynorsk = { model = "norwegian-nynorsk-high", '
                     'alone = 81.3, re_ranked = 88.9, on = true }\n'
                     'dutch = { model = "dutch-high", alone = 96.9, re_ranked = 95.9, '
                     'on = false }\n', "utf-8")
    assert re_ranks("norwegian-nynorsk", "high", "norwegian-nynorsk-high", table)
    assert re_ranks("norwegian-nynorsk", "high", None, table)
    assert not re_ranks("norwegian-nynorsk", "high", "multilingual-high", table)  # not measured
    assert not re_ranks("dutch", "high", "dutch-high", table)
    assert not re_ranks("norwegian-nynorsk", "medium", None, table)
    assert not re_ranks("norwegian-nynorsk", None, None, table)
    assert not re_ranks("german", "high", None, tmp_path / "absent.toml")


def test_a_users_lexicon_feeds_the_analogy(tmp_path):
    """A lexicon file of the user (here: the hand-made masculine and feminine lemmas, and ulv's
    plural) lists its pairs for the analogy as the shipped lexicon does, and a predictor with
    only that layer builds its evidence from exactly those paradigms."""
    from inflect.inference.predictor import Predictor
    from inflect.lexicon import FileLexicon

    lexicon = tmp_path / "norwegian-nynorsk.tsv"
    lexicon.write_text("".join(f"{lem}\t{form}\t{tags.text}\n" for lem, cells in
                               _nynorsk_like().cells.items() for tags, form in cells.items()),
                       "utf-8")
    layer = FileLexicon([lexicon])
    assert sorted(layer.attested_pairs("norwegian-nynorsk")) == sorted(
        (lem, form, tags) for lem, cells in _nynorsk_like().cells.items()
        for tags, form in cells.items())
    assert layer.attested_pairs("german") == []
    predictor = Predictor.from_default("norwegian-nynorsk", setting="high", lexicons=[layer],
                                       siblings=True)
    evidence = predictor._sibling_evidence("norwegian-nynorsk")
    assert evidence is not None and set(evidence.cells) == set(_nynorsk_like().cells)
