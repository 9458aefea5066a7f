"""Tests of model evaluation (inflect.evaluation.runner), ambiguity reports, attention explanations and
the `inflect evaluate --model` / `inflect report ambiguity` / `inflect explain` commands.

Known distributions come from hand-made Decodables (``TableModel`` of tests/test_search.py);
the tiny trained model is the module fixture of tests/test_predict.py. Expected values are
recomputed independently: from the search results, from hand-written tables, by counting.
"""

from __future__ import annotations

import json
import os
import re
import stat
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
import torch
from click.testing import CliRunner
from rich.console import Console
from test_predict import ckpt, ckpt2  # noqa: F401  (module fixtures, reused)
from test_search import EOS, TableModel

from inflect.cli import main
from inflect.decoding.beam import beam_search
from inflect.decoding.forced import teacher_forced
from inflect.decoding.protocol import Certificate
from inflect.evaluation.ambiguity import ambiguity_report
from inflect.evaluation.runner import SPARSITY_COLUMNS, evaluate_predictor
from inflect.evaluation.scoring import MACRO
from inflect.inference.explain import EOS_LABEL, Explanation, explain
from inflect.inference.outcomes import Form, Prediction
from inflect.inference.predictor import Predictor
from inflect.nn.batching import Vocabularies, make_batch
from inflect.nn.checkpoint import checkpoint_members
from inflect.nn.model import Seq2Seq
from inflect.nn.vocab import UnknownSymbolWarning
from inflect.render.markdown import ambiguity_markdown
from inflect.render.report_html import ambiguity_html
from inflect.render.tables import attention_heatmap
from inflect.text.records import Example, TagBundle

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py

V = 6  # ids 4 and 5 are real symbols


def _table(inp: int, prefix: tuple[int, ...]) -> np.ndarray:
    """Input 0: after no symbol, {4: .5, 5: .5}; then EOS. Input 1: 4 (p 1), then {EOS .7, 5 .2,
    4 .1}; after 4 5 (or 4 4), EOS."""
    p = np.zeros(V, dtype=np.float32)
    if inp == 0:
        if not prefix:
            p[4] = p[5] = 0.5
        else:
            p[EOS] = 1.0
    elif not prefix:
        p[4] = 1.0
    elif len(prefix) == 1:
        p[EOS], p[5], p[4] = 0.7, 0.2, 0.1
    else:
        p[EOS] = 1.0
    return p


def test_teacher_forced_support_sizes_and_attention_match_the_table():
    model = TableModel(_table, V, src_len={0: 2, 1: 4})
    out = teacher_forced(model, [0, 1], [[5], [4, 5]])
    # input 0: step 1 {4, 5} -> 2, step 2 (emits EOS) -> 1; input 1: 1, 3, 1
    assert out[0][0] == [2, 1]
    assert out[1][0] == [1, 3, 1]
    # attention rows: the table's fixed pseudo-random rows for (input, prefix), width S = 4
    assert out[0][1].shape == (2, 4) and out[1][1].shape == (3, 4)
    for (inp, tokens), (_, att) in zip([(0, [5]), (1, [4, 5])], out, strict=True):
        for t in range(len(tokens) + 1):
            expected = model.attention(inp, tuple(tokens[:t]), 4)
            np.testing.assert_array_equal(att[t].numpy(), expected)
    # the attention the beam search records for the same strings is the same
    with torch.inference_mode():
        results = beam_search(TableModel(_table, V, src_len={0: 2, 1: 4}), [0, 1], 5, 5)
    best1 = results[1].best
    assert best1.tokens == [4]
    forced1 = teacher_forced(model, [1], [best1.tokens])[0]
    torch.testing.assert_close(forced1[1], best1.attention[:, :4], rtol=0, atol=0)


def test_teacher_forced_rejects_a_wrong_number_of_strings():
    with pytest.raises(ValueError, match="2 output strings for a batch of 1"):
        teacher_forced(TableModel(_table, V), [0], [[4], [5]])


# ------------------------------------------------------------------------- trained tiny model


def _gold(n: int = 24, seed: int = 5) -> list[Example]:
    import synthetic

    out = []
    for item in synthetic.items(n, seed=seed, language="german"):
        tags = ";".join(sorted(item.features))
        out.append(
            Example("".join(item.source), TagBundle.parse(tags), "".join(item.target), "german")
        )
    return out


def test_evaluate_predictor_matches_an_independent_recount(ckpt):  # noqa: F811
    predictor = Predictor.from_checkpoints([ckpt])  # one chunk: the 24 inputs searched together
    gold = _gold()
    gold[3] = Example(gold[3].lemma, gold[3].tags, "wrong-gold", "german")
    result = evaluate_predictor(predictor, gold)
    frame = result.frame
    assert list(frame["language"]) == ["german", MACRO]
    for column in SPARSITY_COLUMNS:
        assert column in frame.columns
    # independent: the predictor's own records for the same inputs, counted here
    records = predictor.predict_many(Example(e.lemma, e.tags, None, "german") for e in gold)
    correct = sum(
        r.best is not None and r.best.form == e.form for r, e in zip(records, gold, strict=True)
    )
    row = frame.iloc[0]
    assert row["n"] == len(gold)
    assert row["accuracy"] == pytest.approx(100.0 * correct / len(gold))
    assert row["single_string"] == pytest.approx(
        sum(len(r.forms) == 1 and r.forms[0].probability >= 1 - 1e-6 for r in records) / len(gold)
    )
    assert row["mean_strings"] == pytest.approx(sum(len(r.forms) for r in records) / len(gold))
    assert row["full_support"] == pytest.approx(
        sum(r.certificate is Certificate.FULL_SUPPORT for r in records) / len(gold)
    )
    assert row["incomplete"] == sum(not r.complete for r in records)
    assert row["inputs"] == len(gold) and row["rejected"] == 0
    # attention: nonzero weights of the best strings' matrices within the lemma, counted here
    nonzero = rows = cells = 0
    bests = [s.beam.best for s in result.searched]
    for s, best in zip(result.searched, bests, strict=True):
        att = best.attention[:, : len(s.prepared.symbols)]
        nonzero += int((att != 0).sum())
        rows += att.shape[0]
        cells += att.numel()
    assert row["mean_attended"] == pytest.approx(nonzero / rows)
    assert row["attention_density"] == pytest.approx(nonzero / cells)
    # step supports: the model's teacher-forced forward pass (model.forward) over the best strings
    from inflect.sparse import entmax

    model = predictor.members[0]
    items = [s.prepared for s in result.searched]
    batch = make_batch(Vocabularies.of(model), [i.symbols for i in items], [i.features for i in items],
                             targets=[model.target_vocab.decode(b.tokens) for b in bests])
    with torch.inference_mode():
        logits, _ = model.forward(batch)
        # the symbols each input may write (its language's alphabet; a copy-only symbol where
        # its lemma has it): probability 0 elsewhere, in the search as here
        mask = model.encode(batch).source.output_mask
        if mask is not None:
            logits = logits.masked_fill(~mask[:, None, :], float("-inf"))
        probs = entmax(logits.float(), model.output_alpha, dim=-1)
    live = batch.target_out != -100
    support = int((probs > 0).sum(-1)[live].sum())
    assert row["mean_step_support"] == pytest.approx(support / int(live.sum()))
    assert frame.iloc[1]["accuracy"] == pytest.approx(row["accuracy"])


def test_rejected_inputs_are_scored_empty(ckpt):  # noqa: F811
    predictor = Predictor.from_checkpoints([ckpt])
    gold = _gold(6)
    too_long = "b" * (predictor.max_input_len + 1)
    gold.append(Example(too_long, TagBundle.parse("V;PST"), "bako", "german"))
    result = evaluate_predictor(predictor, gold)
    row = result.frame.iloc[0]
    assert row["rejected"] == 1 and row["missing"] == 1 and row["inputs"] == 6
    assert f"lemma of {predictor.max_input_len + 1} symbols is longer" in result.errors[0]
    assert result.searched[-1] is None


def test_an_unseen_feature_is_answered_not_rejected(ckpt):  # noqa: F811
    predictor = Predictor.from_checkpoints([ckpt])
    gold = _gold(6)
    gold.append(Example("bako", TagBundle.parse("V;NEVERSEEN"), "bako", "german"))
    result = evaluate_predictor(predictor, gold)
    row = result.frame.iloc[0]
    assert row["rejected"] == 0 and row["inputs"] == 7 and not result.errors
    assert any("'NEVERSEEN'" in w for w in result.searched[-1].prepared.warnings)


def test_checkpoint_members_expands_a_folder_of_members(ckpt, ckpt2, tmp_path):  # noqa: F811
    assert checkpoint_members([ckpt]) == [ckpt]
    folder = tmp_path / "ens"
    folder.mkdir()
    (folder / "b").symlink_to(ckpt2, target_is_directory=True)
    (folder / "a").symlink_to(ckpt, target_is_directory=True)
    (folder / "notes").mkdir()
    assert checkpoint_members([folder]) == [folder / "a", folder / "b"]
    with pytest.raises(FileNotFoundError, match="nor a folder of checkpoints"):
        checkpoint_members([folder / "notes"])
    # a folder of .safetensors member files (as the shipped models are kept)
    files = tmp_path / "files"
    files.mkdir()
    (files / "m2.safetensors").symlink_to(ckpt2 / "model.safetensors")
    (files / "m1.safetensors").symlink_to(ckpt / "model.safetensors")
    assert checkpoint_members([files]) == [files / "m1.safetensors", files / "m2.safetensors"]
    # every command takes such a folder: predict as an ensemble of its members
    res = CliRunner().invoke(main, ["predict", "--model", str(folder), "kala", "V;PL",
                                    "--format", "jsonl"])
    assert res.exit_code == 0, res.output
    direct = Predictor.from_checkpoints([ckpt, ckpt2]).predict("kala", "V;PL")
    got = json.loads(res.stdout)
    assert {f["form"]: f["probability"] for f in got["forms"]} == {
        f.form: f.probability for f in direct.forms}


def test_one_encoder_pass_per_member_and_one_warning_per_unseen_symbol(ckpt, ckpt2):  # noqa: F811
    predictor = Predictor.from_checkpoints([ckpt, ckpt2])
    calls = []
    original = Seq2Seq.encode

    def counted(self, batch):
        calls.append(len(batch))
        return original(self, batch)

    gold = _gold(24)
    try:
        Seq2Seq.encode = counted
        result = evaluate_predictor(predictor, gold)  # beam, widening, teacher forcing
        widened = sum(s.prediction.beam_certificate is not Certificate.FULL_SUPPORT
                      for s in result.searched)
        assert calls == [24, 24]  # one chunk: one pass per member, shared by every search
        calls.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pred = predictor.predict("xazo", "V;PST")
        assert calls == [1, 1]
    finally:
        Seq2Seq.encode = original
    assert widened > 0  # the wider beam ran too, on the same encoder pass
    unseen = [str(w.message) for w in caught if w.category is UnknownSymbolWarning]
    assert len(unseen) == 2 and list(pred.warnings) == unseen  # 'x' and 'z', once each
    assert "'x' (U+0078)" in unseen[0] and "'z' (U+007A)" in unseen[1]


def test_a_model_of_another_language_is_an_error_not_zero(ckpt, tmp_path):  # noqa: F811
    predictor = Predictor.from_checkpoints([ckpt])  # a (synthetic) German model
    finnish = [Example(e.lemma, e.tags, e.form, "finnish") for e in _gold(6)]
    with pytest.raises(ValueError, match="could take only 0 of the 6 finnish inputs") as info:
        evaluate_predictor(predictor, finnish)
    assert "not trained on finnish" in str(info.value)
    assert "is it a model of finnish?" in str(info.value)
    gold_file = tmp_path / "finnish-dev"
    _write_gold(gold_file, finnish)
    res = CliRunner().invoke(main, ["evaluate", "--model", str(ckpt), "--gold", str(gold_file)])
    assert res.exit_code == 1 and "could take only 0 of the 6 finnish inputs" in res.output
    # one rejected input in six is scored as empty, not an error
    mixed = _gold(6)
    too_long = "b" * (predictor.max_input_len + 1)
    mixed[0] = Example(too_long, mixed[0].tags, mixed[0].form, "german")
    assert evaluate_predictor(predictor, mixed).frame.iloc[0]["rejected"] == 1


def test_trainer_state_given_as_a_model_says_what_to_pass(ckpt):  # noqa: F811
    state = ckpt / "trainer_state.safetensors"
    assert state.is_file()
    res = CliRunner().invoke(main, ["predict", "--model", str(state), "kala", "V;PL"])
    assert res.exit_code == 1
    message = " ".join(res.stderr.split())
    assert f"{state}: this is the trainer state of a run" in message
    assert f"pass the run folder {ckpt} or its model.safetensors" in message
    assert len(res.stderr) < 400  # no dump of state-dict keys


# ------------------------------------------------------------------------- ambiguity


def _record(lemma, tags, forms, cert=Certificate.FULL_SUPPORT):
    return Prediction(lemma, tags, "german", forms=tuple(Form(f, p) for f, p in forms),
                      certificate=cert, more_than=None, beam_certificate=cert, method="beam")


def test_ambiguity_groups_by_tag_bundle_and_counts():
    records = [
        _record("Haus", "N;DAT;PL", [("Häusern", 0.75), ("Hausen", 0.25)]),
        _record("Maus", "N;NOM;SG", [("Maus", 1.0)]),
        _record("Baum", "PL;N;DAT", [("Bäumen", 0.6), ("Baumen", 0.4)]),
        _record(
            "See", "V;PST", [("sah", 0.5), ("seete", 0.5), ("nie", 0.0)], Certificate.MODE_ONLY
        ),
        _record("Kind", "N;DAT;PL", [("Kindern", 1.0)]),
    ]
    gold = [
        Example("Haus", TagBundle.parse("N;DAT;PL"), "Häusern", "german"),
        Example("Baum", TagBundle.parse("PL;N;DAT"), "Bäume", "german"),
        Example("Maus", TagBundle.parse("N;NOM;SG"), "Maus", "german"),
    ]
    report = ambiguity_report(records, gold)
    assert (
        report.inputs,
        report.ambiguous,
        report.with_gold,
        report.gold_in_support,
        report.incomplete,
    ) == (5, 3, 2, 1, 1)
    assert [g.tags for g in report.groups] == ["N;DAT;PL", "V;PST"]
    first = report.groups[0].inputs
    assert [i.lemma for i in first] == ["Haus", "Baum"]
    assert first[0].gold_in_support is True and first[1].gold_in_support is False
    see = report.groups[1].inputs[0]
    assert see.gold is None and see.gold_in_support is None and not see.complete
    assert see.forms == (("sah", 0.5), ("seete", 0.5))  # the zero-probability form dropped
    md = ambiguity_markdown(report)
    assert "| Haus | **Häusern** (0.7500), Hausen (0.2500) | Häusern | yes |" in md
    assert "- ambiguous (more than one nonzero-probability form): 3 (60.0 %)" in md
    html = ambiguity_html(report)
    assert 'Häusern<span class="goldmark">gold</span>' in html and html.count("<section class=") == 2


# ------------------------------------------------------------------------- explain


def _render(table, width=120) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(table)
    return console.export_text()


def test_heat_map_leaves_zero_weights_blank():
    pred = _record("ab", "V", [("ba", 1.0)])
    att = np.array([[0.0, 1.0], [0.25, 0.75], [0.001, 0.0]], dtype=np.float32)
    text = _render(attention_heatmap(Explanation(pred, ["a", "b"], ["b", "a", EOS_LABEL], att)))
    lines = {
        line.split()[0]: line
        for line in text.splitlines()
        if line.strip().split()[:1] in (["b"], ["a"], [EOS_LABEL])
    }
    assert re.fullmatch(r"\s*b\s+100\s*", lines["b"])  # the zero cell is blank
    assert re.fullmatch(r"\s*a\s+25\s+75\s*", lines["a"])
    assert re.fullmatch(r"\s*</s>\s+·\s*", lines[EOS_LABEL])


def _forced_attention(model, lemma, tags, form):
    """The attention (T, S) of the model's teacher-forced forward pass over ``form`` + EOS."""
    from inflect.text.languages import resolve

    spec = resolve("german")
    batch = make_batch(
        Vocabularies.of(model),
        [spec.to_symbols(lemma)],
        [tags.split(";")],
        ["german"],
        targets=[spec.to_symbols(form)],
    )
    model.eval()
    with torch.inference_mode():
        _, attn = model.forward(batch)
    return attn[0].double().numpy()


def test_explain_rows_are_the_emitted_symbols_then_eos(ckpt, ckpt2):  # noqa: F811
    predictor = Predictor.from_checkpoints([ckpt])
    found = explain(predictor, "bakomu", "V;PL", "german")
    best = found.prediction.best.form
    assert "".join(found.target[:-1]) == best and found.target[-1] == EOS_LABEL
    assert found.source == list("bakomu")
    assert found.attention.shape == (len(best) + 1, 6)
    np.testing.assert_allclose(found.attention.sum(axis=1), 1.0, atol=1e-5)
    # the matrix is the model's attention along the best form (teacher-forced, not searched)
    forced = _forced_attention(predictor.members[0], "bakomu", "V;PL", best)
    np.testing.assert_allclose(found.attention, forced, atol=1e-6)
    # an ensemble explains with the members' mean attention, each member forced here
    pair = Predictor.from_checkpoints([ckpt, ckpt2])
    both = explain(pair, "bakomu", "V;PL", "german")
    form = both.prediction.best.form
    each = [_forced_attention(m, "bakomu", "V;PL", form) for m in pair.members]
    assert not np.allclose(each[0], each[1], atol=1e-4)  # members attend differently
    np.testing.assert_allclose(both.attention, np.mean(each, axis=0), atol=1e-6)


# ------------------------------------------------------------------------- CLI


def _write_gold(path, gold):
    path.write_text(
        "".join(f"{e.lemma}\t{e.form}\t{e.tags.text}\n" for e in gold), encoding="utf-8"
    )


def test_cli_evaluate_model_writes_frame(ckpt, ckpt2, tmp_path):  # noqa: F811
    gold = _gold(10)
    gold_file = tmp_path / "german-dev"
    _write_gold(gold_file, gold)
    runner = CliRunner()
    out = tmp_path / "res" / "ens"
    result = runner.invoke(main, ["evaluate", "--model", str(ckpt), "--model", str(ckpt2),
                                  "--gold", str(gold_file), "--out", str(out), "--format",
                                  "table"])
    assert result.exit_code == 0, result.output
    frame = pd.read_parquet(str(out) + ".parquet")
    assert list(frame["language"]) == ["german", MACRO]
    assert (frame["members"] == 2).all() and (frame["beam"] == 5).all()
    csv = pd.read_csv(str(out) + ".csv")
    assert csv["accuracy"].tolist() == pytest.approx(frame["accuracy"].tolist())
    # the ensemble's accuracy, recounted from the predictor's own records
    predictor = Predictor.from_checkpoints([ckpt, ckpt2])
    records = [predictor.predict(e.lemma, e.tags.text, "german") for e in gold]
    acc = 100.0 * sum(r.best.form == e.form for r, e in zip(records, gold, strict=True)) / 10
    assert frame["accuracy"][0] == pytest.approx(acc)
    assert "1-str %" in result.output and "accuracy %" in result.output
    bad = runner.invoke(main, ["evaluate", "--model", str(ckpt)])
    assert bad.exit_code != 0 and "--lang" in bad.output


def test_cli_report_ambiguity_and_explain(ckpt, tmp_path):  # noqa: F811
    gold = _gold(12)
    gold_file = tmp_path / "german-dev"
    _write_gold(gold_file, gold)
    runner = CliRunner()
    md = tmp_path / "amb.md"
    old_umask = os.umask(0o022)
    try:
        result = runner.invoke(main, ["report", "ambiguity", "--model", str(ckpt), "--gold",
                                      str(gold_file), "--out", str(md)])
    finally:
        os.umask(old_umask)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(md.stat().st_mode) == 0o644  # as the umask says, not private
    text = md.read_text(encoding="utf-8")
    predictor = Predictor.from_checkpoints([ckpt])
    records = [predictor.predict(e.lemma, e.tags.text, "german") for e in gold]
    n_amb = sum(sum(f.probability > 0 for f in r.forms) > 1 for r in records)
    assert f"- inputs: {len(gold)}" in text
    assert f"(more than one nonzero-probability form): {n_amb} " in text
    html = tmp_path / "amb.html"
    assert (
        runner.invoke(
            main,
            [
                "report",
                "ambiguity",
                "--model",
                str(ckpt),
                "--gold",
                str(gold_file),
                "--out",
                str(html),
            ],
        ).exit_code
        == 0
    )
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    bad = runner.invoke(
        main,
        [
            "report",
            "ambiguity",
            "--model",
            str(ckpt),
            "--gold",
            str(gold_file),
            "--out",
            str(tmp_path / "x.txt"),
        ],
    )
    assert bad.exit_code != 0 and ".md or .html" in bad.output
    shown = runner.invoke(
        main, ["explain", "--model", str(ckpt), "--lang", "german", "bakomu", "V;PL"]
    )
    assert shown.exit_code == 0, shown.output
    assert EOS_LABEL in shown.output
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        png = runner.invoke(
            main,
            ["explain", "--model", str(ckpt), "bakomu", "V;PL", "--png", str(tmp_path / "a.png")],
        )
        assert png.exit_code != 0 and "matplotlib" in png.output
    else:
        old_umask = os.umask(0o022)
        try:
            png = runner.invoke(main, ["explain", "--model", str(ckpt), "bakomu", "V;PL",
                                       "--png", str(tmp_path / "a.png")])
        finally:
            os.umask(old_umask)
        assert png.exit_code == 0 and (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"
        assert stat.S_IMODE((tmp_path / "a.png").stat().st_mode) == 0o644


def test_ensemble_members_run_side_by_side_with_the_same_results(ckpt, ckpt2):  # noqa: F811
    predictor = Predictor.from_checkpoints([ckpt, ckpt2])
    queries = [Example(e.lemma, e.tags, None, "german") for e in _gold(12)]
    alone = predictor.predict_many(queries)  # one torch thread (the one_thread fixture)
    seen = []
    original = Seq2Seq.step

    def spy(self, state, prev):
        seen.append((threading.current_thread().name, torch.get_num_threads()))
        return original(self, state, prev)

    try:
        torch.set_num_threads(2)
        Seq2Seq.step = spy
        together = predictor.predict_many(queries)
        assert torch.get_num_threads() == 2  # restored after the search
    finally:
        Seq2Seq.step = original
        torch.set_num_threads(1)
    assert {name.split("_")[0] for name, _ in seen} == {"ensemble"}  # a thread per member
    assert {n for _, n in seen} == {1}  # each operation on one thread
    assert [(r.forms, r.certificate) for r in together] == [
        (r.forms, r.certificate) for r in alone
    ]
