"""Tests of inflect.inference.predictor, inflect.inference.registry and `inflect predict` / `inflect models`.

A tiny model is trained once per module on the synthetic language of ``tests/synthetic.py``
(labelled German, so that the German language spec does the text pipeline). Expected values come
from direct calls of :mod:`inflect.decoding` on the model and from teacher-forced scoring.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest
import synthetic
import torch
from click.testing import CliRunner

from inflect.cli import main
from inflect.decoding.beam import beam_search
from inflect.decoding.ensemble import Ensemble, MemberBatches
from inflect.decoding.protocol import Certificate
from inflect.decoding.support import enumerate_support
from inflect.inference.predictor import InputError, Predictor, load_predictor, make_query
from inflect.inference.queries import read_queries
from inflect.inference.registry import (
    NoDefaultModelError,
    RegistryError,
    default_model,
    list_models,
)
from inflect.nn.batching import Vocabularies, make_batch, output_symbols
from inflect.nn.checkpoint import load_checkpoint, load_model, save_model
from inflect.nn.model import Seq2Seq
from inflect.nn.vocab import UnknownSymbolWarning, Vocab
from inflect.text.languages import UnknownLanguageError, resolve
from inflect.text.parsing import parse_lines
from inflect.text.records import DataFormatError
from inflect.training.config import Config
from inflect.training.items import TrainingData
from inflect.training.trainer import train

REPO = Path(__file__).resolve().parent.parent

# (lemma, tags as written)
QUERIES = [
    ("bakomu", "V;PL;UML"),
    ("kala", "REFL;V;PL"),
    ("toreni", "V;PST"),
    ("mudi", "V"),
    ("gasu", "UML;V;PST;REFL"),
]


pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory) -> Path:
    """A tiny model (about 5 s on one thread) of the synthetic language, labelled German."""
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("model")
    data = TrainingData(
        synthetic.items(300, seed=1, language="german"),
        synthetic.items(40, seed=2, language="german"),
        [resolve("german")],
    )
    train(Config.from_preset("tiny"), data, out, device="cpu", max_epochs=8, patience=8)
    return out


@pytest.fixture(scope="module")
def ckpt2(ckpt, tmp_path_factory) -> Path:
    """A second member: the first model's weights plus small noise (same vocabularies)."""
    model = load_model(ckpt)
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=gen))
    out = tmp_path_factory.mktemp("model2")
    save_model(out, model, languages=[resolve("german").to_dict()])
    return out


def direct_batch(model, lemma, tags):
    spec = resolve("german")
    symbols = spec.to_symbols(spec.normalize_input(lemma))
    feats = frozenset(tags.split(";"))
    return make_batch(Vocabularies.of(model), [symbols], [feats], ["german"], warn=False), symbols


def decode(model, hyp, symbols):
    return resolve("german").from_symbols(
        output_symbols(model.target_vocab, hyp.tokens, hyp.attention, symbols)
    )


def score(model, batch, tokens):
    """Teacher-forced probability of ``tokens`` + EOS: the product of the step probabilities."""
    return ensemble_score([model], [batch], tokens)


def ensemble_score(models, batches, tokens):
    """Teacher-forced probability of ``tokens`` + EOS under the mean of ``models``: each member
    stepped here on its own batch, the product over steps of the mean of the members' step
    probabilities (float64), independently of :class:`inflect.decoding.Ensemble`."""
    with torch.inference_mode():
        states = [m.start(b) for m, b in zip(models, batches, strict=True)]
        prev, logp = models[0].bos_id, 0.0
        for y in [*tokens, models[0].eos_id]:
            outs = [m.step(s, torch.tensor([prev])) for m, s in zip(models, states, strict=True)]
            states = [o[2] for o in outs]
            p = math.fsum(float(o[0][0, y].double()) for o in outs) / len(outs)
            logp += math.log(p) if p > 0 else -math.inf
            prev = y
    return math.exp(logp)


def form_tokens(model, form):
    """The target ids of a German form (the text pipeline of the language spec)."""
    return model.target_vocab.encode(resolve("german").to_symbols(form))


def as_dict(forms):
    return {f.form: f.probability for f in forms}


# ---------------------------------------------------------------------------------------- library


def test_single_input_matches_direct_search(ckpt):
    loaded = load_checkpoint(ckpt)
    model = loaded.network
    predictor = Predictor([loaded])  # support="auto": beam 5, widened to 20 where uncertified
    exact = Predictor([loaded], support="always")  # best-first enumeration
    rank = {Certificate.FULL_SUPPORT: 2, Certificate.MODE_ONLY: 1, Certificate.NONE: 0}
    for lemma, tags in QUERIES:
        pred = predictor.predict(lemma, tags, "de")
        assert (pred.lemma, pred.tags, pred.language) == (lemma, tags, "german")
        batch, symbols = direct_batch(model, lemma, tags)
        max_len = 2 * len(symbols) + 10
        beam = beam_search(model, batch, 5, max_len)[0]
        assert pred.beam_certificate is beam.certificate
        chosen = beam
        if beam.certificate is not Certificate.FULL_SUPPORT:
            wide = beam_search(model, batch, 20, max_len)[0]
            chosen = wide if rank[wide.certificate] >= rank[beam.certificate] else beam
        expected = {}
        for h in chosen.hypotheses:
            form = decode(model, h, symbols)
            expected[form] = expected.get(form, 0.0) + h.prob
        assert as_dict(pred.forms) == pytest.approx(expected, rel=1e-9)
        assert pred.certificate is chosen.certificate
        probs = [f.probability for f in pred.forms]
        assert probs == sorted(probs, reverse=True)
        # each probability is the product of the step probabilities along the form
        top = chosen.hypotheses[0]
        assert probs[0] == pytest.approx(score(model, batch, top.tokens), rel=1e-5)
        # the enumeration agrees: the whole support, or at least the mode
        sup = enumerate_support(model, batch, 100, max_len)[0]
        other = exact.predict(lemma, tags)
        assert as_dict(other.forms) == pytest.approx(
            {decode(model, h, symbols): h.prob for h in sup.hypotheses}, rel=1e-9
        )
        if pred.complete:  # the whole distribution: probabilities sum to one
            assert math.fsum(probs) == pytest.approx(1.0, abs=1e-6)
            # float32 products of up to 9 step probabilities, batched differently: a few ulps
            assert sup.complete and as_dict(other.forms) == pytest.approx(expected, abs=5e-6)
        if pred.certificate is not Certificate.NONE:
            assert pred.best.form == other.best.form


def test_full_support_certificate_lists_the_whole_support(ckpt):
    predictor = Predictor.from_checkpoints([ckpt])
    preds = [predictor.predict(lemma, tags) for lemma, tags in QUERIES]
    full = [p for p in preds if p.certificate is Certificate.FULL_SUPPORT]
    assert full, "the tiny model should certify some inputs"
    for p in full:
        assert p.more_than is None and p.complete
        assert p.mass == pytest.approx(1.0, abs=1e-6)
    never = Predictor.from_checkpoints([ckpt], support="never")
    for p, q in zip(preds, [never.predict(*x) for x in QUERIES], strict=True):
        assert q.method == "beam" and q.certificate is q.beam_certificate
        if p.beam_certificate is Certificate.FULL_SUPPORT:  # no second search was needed
            assert p.method == "beam" and as_dict(p.forms) == as_dict(q.forms)


def test_max_forms_caps_the_list_and_says_more_than(ckpt):
    predictor = Predictor.from_checkpoints([ckpt], max_forms=1, support="always")
    model = load_model(ckpt)
    for lemma, tags in QUERIES:
        pred = predictor.predict(lemma, tags)
        batch, symbols = direct_batch(model, lemma, tags)
        sup = enumerate_support(model, batch, 100, 2 * len(symbols) + 10)[0]
        n = len({decode(model, h, symbols) for h in sup.hypotheses})
        assert len(pred.forms) == 1
        if n > 1:
            assert pred.more_than == 1 and pred.certificate is Certificate.MODE_ONLY
        else:
            assert pred.more_than is None and pred.certificate is Certificate.FULL_SUPPORT


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_file_input_matches_single_queries(ckpt, tmp_path):
    predictor = Predictor.from_checkpoints([ckpt], chunk_size=2)
    covered = write(tmp_path / "in.tsv", [f"{lemma}\t{tags}" for lemma, tags in QUERIES])
    three = write(
        tmp_path / "in3.tsv", ["", *[f"{lemma}\tIGNORED\t{tags}" for lemma, tags in QUERIES]]
    )
    singles = [predictor.predict(lemma, tags) for lemma, tags in QUERIES]
    for path, first_line in ((covered, 1), (three, 2)):
        preds = list(predictor.stream(read_queries(path)))
        assert [p.line for p in preds] == list(range(first_line, first_line + len(QUERIES)))
        assert {p.source for p in preds} == {str(path)}
        for p, s in zip(preds, singles, strict=True):
            assert (p.lemma, p.tags, p.certificate) == (s.lemma, s.tags, s.certificate)
            assert as_dict(p.forms) == pytest.approx(as_dict(s.forms), rel=1e-4, abs=1e-6)


def test_ensemble_of_one_equals_single(ckpt):
    loaded = load_checkpoint(ckpt)
    model = loaded.network
    single = Predictor([loaded])
    twice = Predictor.from_checkpoints([ckpt, ckpt])
    assert isinstance(twice.decodable, Ensemble)
    for lemma, tags in QUERIES:
        batch, _ = direct_batch(model, lemma, tags)
        a = beam_search(model, batch, 5, 20)[0]
        b = beam_search(Ensemble([model]), batch, 5, 20)[0]
        assert [(h.tokens, h.log_prob) for h in a.hypotheses] == [
            (h.tokens, h.log_prob) for h in b.hypotheses
        ]
        p, q = single.predict(lemma, tags), twice.predict(lemma, tags)
        assert p.forms == q.forms and p.certificate is q.certificate


def test_ensemble_matches_direct_ensemble_search(ckpt, ckpt2):
    m1, m2 = load_model(ckpt), load_model(ckpt2)
    predictor = Predictor.from_checkpoints([ckpt, ckpt2], support="never")
    differs = 0
    for lemma, tags in QUERIES:
        pred = predictor.predict(lemma, tags)
        (b1, symbols), (b2, _) = direct_batch(m1, lemma, tags), direct_batch(m2, lemma, tags)
        res = beam_search(Ensemble([m1, m2]), MemberBatches((b1, b2)), 5, 2 * len(symbols) + 10)[0]
        expected = {}
        for h in res.hypotheses:
            form = decode(m1, h, symbols)
            expected[form] = expected.get(form, 0.0) + h.prob
            # the ensemble's probability is the product over steps of the members' mean; a step
            # probability just inside the support, p = ((α-1)z - τ)^2 with (α-1)z - τ small, has
            # a float32 relative precision of about 1e-7 |z| / ((α-1)z - τ): 2e-5 for p = 0.002
            # (the batched search and these single steps round differently)
            assert h.prob == pytest.approx(ensemble_score([m1, m2], [b1, b2], h.tokens), rel=1e-4)
            alone = (score(m1, b1, h.tokens), score(m2, b2, h.tokens))
            differs += h.prob != pytest.approx(alone[0], rel=1e-3)
            differs += h.prob != pytest.approx(alone[1], rel=1e-3)
        assert as_dict(pred.forms) == pytest.approx(expected, rel=1e-9)
        assert pred.certificate is res.certificate
    assert differs > 0  # the members differ, so the mean is told from either member


def test_ensemble_members_must_share_the_target_vocabulary(ckpt, tmp_path):
    model = load_model(ckpt)
    meta = model.metadata()
    meta["target_vocab"] = Vocab(["a", "b", "c"], name="symbol").to_dict()
    other = Seq2Seq.from_metadata(meta)
    save_model(tmp_path / "other", other, languages=[resolve("german").to_dict()])
    with pytest.raises(ValueError, match="different target vocabularies") as info:
        Predictor.from_checkpoints([ckpt, tmp_path / "other"])
    assert str(tmp_path / "other") in str(info.value)


# ---------------------------------------------------------------------------------- bad inputs


def test_unknown_feature_is_named_with_the_known_ones(ckpt):
    predictor = Predictor.from_checkpoints([ckpt], strict=True)
    with pytest.raises(InputError) as info:
        predictor.predict("kala", "V;DAT;PL")
    msg = str(info.value)
    assert "'DAT'" in msg and "V;DAT;PL" in msg
    assert "PL, PST, REFL, UML, V" in msg  # every feature of the synthetic language


def test_an_unknown_feature_is_read_as_the_unknown_feature(ckpt):
    """Not strict (the default), an unseen feature adds nothing to the
    condition (as the padding id): the answer is the one of the bundle without it, marked with
    a note, and warned once per feature."""
    predictor = Predictor.from_checkpoints([ckpt])
    with pytest.warns(UnknownSymbolWarning, match="'DAT'") as caught:
        got = predictor.predict("kala", "V;DAT;PL")
        again = predictor.predict("kala", "V;PL;DAT")
    assert len([w for w in caught if "'DAT'" in str(w.message)]) == 1
    without = predictor.predict("kala", "V;PL")
    assert [f.form for f in got.forms] == [f.form for f in without.forms]
    for a, b in zip(got.forms, without.forms, strict=True):
        assert a.probability == pytest.approx(b.probability, rel=1e-6)
    assert any("'DAT'" in w and "unknown feature" in w for w in got.warnings)
    assert got.warnings == again.warnings


def test_empty_and_too_long_lemmas(ckpt):
    predictor = Predictor.from_checkpoints([ckpt], max_input_len=12, support="never")
    for lemma in ("", "   "):
        with pytest.raises(InputError, match="empty lemma"):
            predictor.predict(lemma, "V")
    with pytest.raises(InputError, match="13 symbols is longer than the model's limit of 12"):
        predictor.predict("b" * 13, "V")
    assert predictor.predict("b" * 12, "V").lemma == "b" * 12
    with pytest.raises(InputError, match="empty tag bundle"):
        make_query("kala", "")


def test_languages_are_resolved_and_checked(ckpt):
    with pytest.raises(UnknownLanguageError, match="'german'"):
        load_predictor([ckpt], "germn")
    with pytest.raises(InputError, match="not trained on french; it knows german"):
        load_predictor([ckpt], "fr")
    predictor = load_predictor([ckpt], "deu")
    assert predictor.predict("kala", "V").language == "german"
    with pytest.raises(ValueError, match="--lang"):
        load_predictor(None, None)


def test_unseen_characters_become_unknown_with_a_warning(ckpt):
    predictor = Predictor.from_checkpoints([ckpt])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pred = predictor.predict("xazo", "V;PST")
    assert [str(w.message) for w in caught if w.category is UnknownSymbolWarning] == list(
        pred.warnings
    )
    assert len(pred.warnings) == 2
    assert "'x' (U+0078)" in pred.warnings[0] and "'z' (U+007A)" in pred.warnings[1]
    assert pred.forms  # still predicts


def test_stream_yields_records_before_a_bad_line(ckpt, tmp_path):
    predictor = Predictor.from_checkpoints([ckpt], chunk_size=4, strict=True)
    good = [f"{lemma}\t{tags}" for lemma, tags in QUERIES] * 2  # 10 lines: 2 chunks + 2
    path = write(tmp_path / "bad.tsv", [*good, "kala V", *good])
    got = []
    with pytest.raises(DataFormatError) as info:
        for pred in predictor.stream(read_queries(path)):
            got.append(pred)
    assert str(info.value).startswith(f"{path}:11: ")
    assert [p.line for p in got] == list(range(1, 11))
    # a validation error (unknown feature) also comes after the records before it
    path2 = write(tmp_path / "bad2.tsv", [*good[:3], "kala\tV;NOM"])
    got = []
    with pytest.raises(InputError, match=rf"^{path2}:4: unknown UniMorph feature 'NOM'"):
        for pred in predictor.stream(read_queries(path2)):
            got.append(pred)
    assert len(got) == 3


def test_every_line_gets_an_answer_or_an_error_record(ckpt, tmp_path):
    """Not strict, a line that cannot be read (line 11: one field; line 12:
    not UTF-8; line 13: an empty lemma) takes its place as an error record naming its line, and
    every other line is answered, in order."""
    from inflect.inference.outcomes import ErrorRecord

    predictor = Predictor.from_checkpoints([ckpt], chunk_size=4)
    good = [f"{lemma}\t{tags}" for lemma, tags in QUERIES] * 2
    path = tmp_path / "bad.tsv"
    lines = [*good, "kala V", "k\xe4la\tV", " \tV", *good]
    path.write_bytes(
        b"".join(
            (line.encode("latin-1") if "\xe4" in line else line.encode()) + b"\n" for line in lines
        )
    )
    got = list(predictor.stream(read_queries(path, errors="yield")))
    assert [r.line for r in got] == list(range(1, len(lines) + 1))
    errors = [r for r in got if isinstance(r, ErrorRecord)]
    assert [(r.line, r.where) for r in errors] == [(n, f"{path}:{n}") for n in (11, 12, 13)]
    assert "bytes that are not UTF-8" in errors[1].message
    assert errors[0].message.startswith(f"{path}:11: ")
    assert all(r.forms for r in got if not isinstance(r, ErrorRecord))


def test_read_queries_errors_name_file_and_line(tmp_path):
    path = tmp_path / "in.tsv"
    path.write_bytes(b"kala\tV\n\tV;PL\n")
    with pytest.raises(DataFormatError, match=r"in.tsv:2: empty lemma"):
        list(read_queries(path))
    path.write_bytes(b"kala\tV\nk\xe4la\tV\n")
    with pytest.raises(DataFormatError, match=r"in.tsv:2: bytes that are not UTF-8"):
        list(read_queries(path))
    path.write_bytes(b"kala\tV;;PL\n")
    with pytest.raises(DataFormatError, match=r"in.tsv:1: empty UniMorph feature"):
        list(read_queries(path))
    # the lazy reader agrees with the whole-file reader on a valid file
    lines = ["\ufeffkala\tx\tV;PL", "", "mudi\ty\tV\r", "gasu\tz\tPST;V;PST"]
    path.write_text("\n".join(lines), encoding="utf-8")
    lazy = list(read_queries(path, "german"))
    whole = parse_lines(lines, source=str(path), language="german").examples
    assert lazy == whole


# ----------------------------------------------------------------------------------------- CLI


def run(*args, env=None, input=None):
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200", **(env or {})}, input=input)


TSV_HEADER = (
    "lemma\ttags\tlanguage\tcertificate\tcount\trank\tform\tprobability\tsource\tasked"
)


def parse_tsv(text):
    """`inflect predict`'s TSV: the header, then one line per form (rank 1, 2, ...; an input
    without a form has one line with rank, form and probability empty). Returns one record per
    input: (lemma, tags, language, certificate, count, {form: probability})."""
    header, *lines = text.splitlines()
    assert header == TSV_HEADER
    records = []
    for line in lines:
        fields = line.split("\t")
        assert len(fields) == 10, line
        lemma, tags, language, cert, count, rank, form, prob, source, _asked = fields
        assert source == ("model" if rank else ""), line  # synthetic lemmas: never attested
        if rank in ("", "1"):
            records.append((lemma, tags, language, cert, count, {}))
        else:
            assert records[-1][:5] == (lemma, tags, language, cert, count)
            assert int(rank) == len(records[-1][5]) + 1
        if rank:
            records[-1][5][form] = float(prob)
    return records


def test_cli_formats_parse(ckpt, tmp_path):
    predictor = Predictor.from_checkpoints([ckpt])
    path = write(tmp_path / "in.tsv", [f"{lemma}\t{tags}" for lemma, tags in QUERIES])
    expected = predictor.predict_many(read_queries(path))  # one chunk, as the command searches
    res = run("predict", "--model", str(ckpt), "--input", str(path))  # a pipe: TSV by default
    assert res.exit_code == 0, res.output
    rows = parse_tsv(res.stdout)
    assert len(rows) == len(QUERIES)
    for row, e in zip(rows, expected, strict=True):
        count = f">{e.more_than}" if e.more_than else str(len(e.forms))
        assert row[:5] == (e.lemma, e.tags, "german", e.certificate.value, count)
        assert row[5] == as_dict(e.forms)  # repr round-trips exactly

    res = run("predict", "--model", str(ckpt), "--input", str(path), "--format", "jsonl")
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in res.stdout.splitlines()]
    for r, e in zip(records, expected, strict=True):
        assert {f["form"]: f["probability"] for f in r["forms"]} == as_dict(e.forms)
        assert r["certificate"] == e.certificate.value and r["line"] >= 1
        assert r["certificate_words"] == e.certificate.description

    res = run("predict", "--model", str(ckpt), "--input", str(path), "--format", "2018")
    parsed = parse_lines(res.stdout.splitlines(), fmt="2018").examples
    assert [(x.lemma, x.form, x.tags.text) for x in parsed] == [
        (e.lemma, e.best.form, e.tags) for e in expected
    ]

    res = run("predict", "--model", str(ckpt), "bakomu", "V;PL;UML", "--format", "table")
    assert res.exit_code == 0, res.output
    single = predictor.predict("bakomu", "V;PL;UML")
    assert single.best.form in res.stdout and f"{single.best.probability:.4f}" in res.stdout
    assert single.certificate.description in " ".join(res.stdout.split())


def test_cli_reads_standard_input(ckpt):
    lines = "".join(f"{lemma}\t{tags}\n" for lemma, tags in QUERIES[:2]).encode()
    res = run("predict", "--model", str(ckpt), "--lang", "german", "--input", "-", input=lines)
    assert res.exit_code == 0, res.output
    assert [row[0] for row in parse_tsv(res.stdout)] == ["bakomu", "kala"]


def test_cli_errors_keep_written_results(ckpt, tmp_path):
    good = [f"{lemma}\t{tags}" for lemma, tags in QUERIES]
    path = write(tmp_path / "in.tsv", [*good, "onlyonefield", *good])
    res = run("predict", "--model", str(ckpt), "--input", str(path), "--strict")
    assert res.exit_code == 1
    assert len(parse_tsv(res.stdout)) == len(QUERIES)
    assert f"{path}:6:" in res.stderr
    # not strict: every other line is answered, line 6 is an error record, exit status 1
    res = run("predict", "--model", str(ckpt), "--input", str(path))
    assert res.exit_code == 1
    records = parse_tsv(res.stdout)
    assert len(records) == 2 * len(QUERIES) + 1
    assert records[len(QUERIES)][3:5] == ("error", "0")
    assert f"error: {path}:6:" in res.stderr and "1 input got no answer" in res.stderr
    # jsonl: the error record in its place
    res = run("predict", "--model", str(ckpt), "--input", str(path), "--format", "jsonl")
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r.get("line") for r in rows] == list(range(1, 2 * len(QUERIES) + 2))
    assert rows[len(QUERIES)]["error"].startswith(f"{path}:6: ")
    # an unknown feature is answered (with one warning), unless --strict
    res = run("predict", "--model", str(ckpt), "kala", "V;GEN")
    assert res.exit_code == 0 and "UniMorph feature 'GEN'" in res.stderr
    assert res.stderr.count("'GEN'") == 1

    cases = [
        (["--lang", "germn", "kala", "V"], "did you mean 'german'", 2),  # a wrong option value
        (["kala", "V;GEN", "--strict"], "unknown UniMorph feature 'GEN' in tag bundle", 1),
        (["kala", "v", "--strict"], "unknown UniMorph feature 'v' (did you mean 'V'?)", 1),
        (["", "V"], "empty lemma", 1),
        (["b" * 101, "V"], "longer than the model's limit of 100 symbols", 1),
    ]
    for args, message, status in cases:
        res = run("predict", "--model", str(ckpt), *args)
        assert res.exit_code == status, args
        assert message in res.stderr, res.stderr
    res = run("predict", "--model", str(ckpt), "kala")
    assert res.exit_code == 2 and "TAGS" in res.stderr
    res = run("predict", "--model", str(ckpt), "kala", "V", "--input", str(path))
    assert res.exit_code == 2


# -------------------------------------------------------------------------------------- models


def registry(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "registry.toml").write_text(text, encoding="utf-8")
    return folder


def test_models_on_an_empty_registry(tmp_path, monkeypatch):
    folder = registry(tmp_path / "a", "version = 2\n")
    assert list_models(folder) == []
    res = run("models", env={"INFLECT_MODELS_DIR": str(folder)})
    assert res.exit_code == 0
    assert "no shipped models" in res.stdout
    # a folder that does not exist, or has no registry, is a mistake, not an empty registry
    (tmp_path / "bare").mkdir()
    for folder, what in ((tmp_path / "none", "does not exist"), (tmp_path / "bare", "has no")):
        with pytest.raises(RegistryError, match=what):
            list_models(folder)
        res = run("models", "--models-dir", str(folder))
        assert res.exit_code == 1
        assert f"--models-dir / $INFLECT_MODELS_DIR {folder} {what}" in res.output
        res = run(
            "predict", "--lang", "de", "Haus", "N;DAT;PL", env={"INFLECT_MODELS_DIR": str(folder)}
        )
        assert res.exit_code == 1 and what in res.output
    # the shipped registry: what list_models() gives is the TOML file read here with tomllib
    monkeypatch.delenv("INFLECT_MODELS_DIR", raising=False)
    shipped = REPO / "inflect" / "models"
    raw = tomllib.loads((shipped / "registry.toml").read_text(encoding="utf-8"))
    assert raw["version"] == 2
    pairs = list_models(every=True)
    assert sorted((e.language, e.name) for e in pairs) == sorted(
        (lang, name) for lang, table in raw["language"].items() for name in table
    )
    for e in pairs:
        t = raw["model"][e.name]
        assert e.members == tuple((shipped / m).resolve() for m in t["members"])
        assert e.dev_accuracy == raw["language"][e.language][e.name]
        assert e.setting == t["setting"]
        assert e.size_bytes == sum((shipped / m).stat().st_size for m in t["members"])
    assert sorted(e.language for e in list_models()) == sorted(raw["language"])


def test_models_on_a_test_registry(ckpt, ckpt2, tmp_path):
    folder = registry(
        tmp_path / "models",
        f"""
version = 2
[model.german]
members = ["{ckpt / "model.safetensors"}", "{ckpt2}"]
setting = "high"
data = "synthetic"
method = "ensemble of 2, each from scratch"
commands = ["inflect train --lang german --seed 1", "noise"]
[language.german]
german = 97.5
""",
    )
    entries = list_models(folder)
    assert [e.language for e in entries] == ["german"] and entries[0].dev_accuracy == 97.5
    assert entries[0].size_bytes == (ckpt / "model.safetensors").stat().st_size + sum(
        p.stat().st_size for p in ckpt2.iterdir()
    )
    res = run("models", "--models-dir", str(folder), "--format", "table", "--commands")
    assert res.exit_code == 0, res.output
    assert "german" in res.stdout and "97.50" in res.stdout
    assert "inflect train --lang german --seed 1" in res.stdout
    # in a pipe (the test runner's stdout is not a terminal): TSV with a header
    res = run("models", "--models-dir", str(folder))
    assert res.exit_code == 0, res.output
    header, row = res.stdout.splitlines()
    assert header.split("\t")[:7] == [
        "language",
        "model",
        "members",
        "member_files",
        "dev_accuracy",
        "setting",
        "size_bytes",
    ]
    fields = row.split("\t")
    assert fields[:4] == ["german", "german", "2", f"{ckpt / 'model.safetensors'},{ckpt2}"]
    assert fields[4:7] == ["97.50", "high", str(entries[0].size_bytes)]
    assert header.split("\t")[7:10] == ["method", "data", "commands"]
    assert fields[7:10] == ["ensemble of 2, each from scratch", "synthetic",
                            "inflect train --lang german --seed 1 && noise"]

    # the default model of a language (any alias) is that ensemble
    assert default_model("de", folder).members == (ckpt / "model.safetensors", ckpt2)
    res = run("predict", "--lang", "de", "kala", "V;PL", env={"INFLECT_MODELS_DIR": str(folder)})
    assert res.exit_code == 0, res.output
    direct = Predictor.from_checkpoints([ckpt, ckpt2]).predict("kala", "V;PL")
    shown = parse_tsv(res.stdout)[0][5]
    assert shown == as_dict(direct.forms)
    # independently: the first form's probability is the two members' teacher-forced mean
    m1, m2 = load_model(ckpt), load_model(ckpt2)
    (b1, _), (b2, _) = direct_batch(m1, "kala", "V;PL"), direct_batch(m2, "kala", "V;PL")
    form, prob = next(iter(shown.items()))
    tokens = form_tokens(m1, form)
    assert prob == pytest.approx(ensemble_score([m1, m2], [b1, b2], tokens), rel=1e-5)
    assert prob != pytest.approx(score(m1, b1, tokens), rel=1e-4)  # not the first member alone
    with pytest.raises(NoDefaultModelError, match=r"french \(shipped: german\)"):
        default_model("fr", folder)
    res = run("predict", "--lang", "fr", "kala", "V", env={"INFLECT_MODELS_DIR": str(folder)})
    assert res.exit_code == 1 and "no shipped default model for french" in res.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'version = 2\n[model.m]\nmembers = ["m"]\n[language.deu]\nm = 90\n',
            r"\[language.deu\] tables are named by shared-task name: use \[german\]",
        ),
        ('version = 2\n[model.m]\nmembers = ["m"]\nacc = 1\n', r"\[model.m\] unknown key\(s\) acc"),
        ("version = 2\n[model.m]\nmembers = []\n", r"members must be a non-empty list"),
        (
            'version = 2\n[model.m]\nmembers = ["m"]\n[language.german]\nm = 120\n',
            "dev_accuracy must be a percentage",
        ),
        ("[german\n", "not valid TOML"),
        (
            'version = 2\n[selection]\ncriterion = "test"\n',
            r"\[selection\] criterion must be one of dev, dev\+heldout, got 'test'",
        ),
        (
            'version = 2\n[model.m]\nmembers = ["m"]\n[language.german]\nm = 90\n'
            "[heldout.german]\nwords = 10\npooled = {n = 90}\n",
            r"\[heldout.german\] pooled: 'n' is no model of \[language.german\]; its models: m",
        ),
        (
            'version = 2\n[model.m]\nmembers = ["m"]\n[language.german]\nm = 90\n'
            "[heldout.german]\nwords = 0\npooled = {m = 90}\n",
            r"\[heldout.german\] words must be a positive whole number, got 0",
        ),
        (
            'version = 2\n[model.m]\nmembers = ["m"]\n[language.german]\nm = 90\n'
            "[heldout.german]\nwords = 10\npooled = {m = 190}\n",
            r"\[heldout.german\] pooled accuracy must be a percentage, got 190",
        ),
        # version 1 (one table per language, 0.1's format) is no longer read: say what is
        ('[german]\nmembers = ["m"]\n', r"registry version 1, this program reads 2"),
    ],
)
def test_malformed_registry_is_named(tmp_path, text, message):
    folder = registry(tmp_path, text)
    with pytest.raises(RegistryError, match=message) as info:
        list_models(folder)
    assert str(folder / "registry.toml") in str(info.value)


def test_missing_member_file_is_an_incomplete_installation(tmp_path, monkeypatch):
    import inflect.inference.registry

    folder = registry(
        tmp_path,
        'version = 2\n[model.german]\nmembers = ["gone.safetensors"]\n[language.german]\ngerman = 90\n',
    )
    # the user's own models folder: reinstalling would not help
    with pytest.raises(RegistryError, match=r"correct the members in .*registry\.toml") as info:
        default_model("german", folder)
    assert "gone.safetensors" in str(info.value) and "reinstall" not in str(info.value)
    listed = run("models", "--models-dir", str(folder))
    assert listed.exit_code == 0  # listed, with a warning naming the missing file
    assert f"warning: the model 'german' lacks {folder / 'gone.safetensors'}" in listed.stderr
    # the same registry as the package's own folder: a broken installation
    monkeypatch.setattr(inflect.inference.registry, "_PACKAGE_DIR", folder)
    monkeypatch.delenv("INFLECT_MODELS_DIR", raising=False)
    with pytest.raises(RegistryError, match="installation is incomplete, reinstall"):
        default_model("german")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "heavy"),
    [("--no-lexicon", []), (None, ["pyarrow"])],  # the shipped lexicon's store is Parquet
)
def test_cold_predict_imports_no_data_libraries(ckpt, option, heavy):
    args = ["predict", "--model", str(ckpt), "kala", "V;PL", *([option] if option else [])]
    code = (
        "import sys\n"
        "from inflect.cli import main\n"
        f"try: main({args!r})\n"
        "except SystemExit: pass\n"
        "bad = [m for m in ('pandas', 'pyarrow', 'rich.progress', 'inflect.training.trainer', "
        "'inflect.corpora.manifests') if m in sys.modules]\n"
        "print('HEAVY', bad, file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        cwd=REPO,
        check=True,
    )
    assert f"HEAVY {heavy}" in out.stderr, out.stderr
    assert out.stdout.startswith(TSV_HEADER + "\nkala\tV;PL\tgerman\t")


def test_command_line_bytes_that_are_not_utf8_are_an_error():
    from inflect.inference.queries import InputError, make_query

    lemma = b"K\xe4tze".decode("utf-8", "surrogateescape")  # what Python makes of such argv
    with pytest.raises(InputError, match="not UTF-8"):
        make_query(lemma, "N;NOM;PL", "german")
    assert make_query("Kätze", "N;NOM;PL", "german").lemma == "Kätze"


def test_blank_lines_in_an_input_file_are_reported_with_their_line(tmp_path):
    from inflect.inference.queries import read_queries

    path = tmp_path / "in.tsv"
    path.write_text("aa\tN;PL\n\nbb\tN;PL\n   \ncc\tN;PL\n", encoding="utf-8")
    blanks = []
    queries = list(read_queries(path, None, on_blank=lambda src, n: blanks.append((src, n))))
    assert [(q.lemma, q.line) for q in queries] == [("aa", 1), ("bb", 3), ("cc", 5)]
    assert blanks == [(str(path), 2), (str(path), 4)]


def test_registry_version_2_defaults_and_settings(tmp_path):
    """Multilingual models serve many languages; the default is the model most accurate on the
    language's dev file, of any setting; --setting picks explicitly."""
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("h1", "h2", "m1", "de1"):
        (folder / f"{name}.safetensors").write_bytes(b"x")
    (folder / "registry.toml").write_text(
        """version = 2
[model.multilingual-high]
members = ["h1.safetensors", "h2.safetensors"]
setting = "high"
[model.multilingual-medium]
members = ["m1.safetensors"]
setting = "medium"
[model.german-high]
members = ["de1.safetensors"]
setting = "high"
[language.german]
multilingual-high = 90.0
multilingual-medium = 95.0
german-high = 91.0
[language.finnish]
multilingual-high = 80.0
multilingual-medium = 70.0
[language.telugu]
multilingual-medium = 60.0
""",
        encoding="utf-8",
    )
    # german: the medium model (95.0) beats both high ones; finnish: the high one (80 > 70)
    assert default_model("de", folder).name == "multilingual-medium"
    assert default_model("finnish", folder).name == "multilingual-high"
    assert default_model("te", folder).name == "multilingual-medium"
    assert default_model("de", folder, setting="medium").name == "multilingual-medium"
    assert default_model("de", folder, setting="high").name == "german-high"
    with pytest.raises(
        NoDefaultModelError,
        match=r"no shipped high-setting model for telugu; "
        r"it has: medium \(--setting medium\)",
    ):
        default_model("telugu", folder, setting="high")
    listed = list_models(folder)
    assert [(m.language, m.name, m.dev_accuracy) for m in listed] == [
        ("finnish", "multilingual-high", 80.0),
        ("german", "multilingual-medium", 95.0),
        ("telugu", "multilingual-medium", 60.0),
    ]
    assert len(list_models(folder, every=True)) == 6
    assert default_model("finnish", folder).members == (
        (folder / "h1.safetensors").resolve(),
        (folder / "h2.safetensors").resolve(),
    )
    (folder / "registry.toml").write_text(
        'version = 2\n[model.x]\nmembers = ["h1.safetensors"]\n[language.german]\ny = 1.0\n',
        encoding="utf-8",
    )
    with pytest.raises(RegistryError, match=r"\[language.german\] unknown model 'y'; models: x"):
        list_models(folder)


def test_a_pooled_figure_chooses_between_the_models_of_its_setting(tmp_path):
    """[heldout.NAME] (ship.py's --select-on dev+heldout): within a setting whose every model
    has a pooled figure (dev and a held-out slice counted together), that figure chooses; the
    setting's choice then competes with the other settings' on dev, and the figure shown is the
    dev figure. Without the table, the most accurate on dev as before."""
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("h", "m", "own"):
        (folder / f"{name}.safetensors").write_bytes(b"x")
    head = """version = 2
[selection]
criterion = "dev+heldout"
about = "test"
[model.multilingual-high]
members = ["h.safetensors"]
setting = "high"
[model.multilingual-medium]
members = ["m.safetensors"]
setting = "medium"
[model.kabardian-medium]
members = ["own.safetensors"]
setting = "medium"
[language.kabardian]
multilingual-high = 96.0
multilingual-medium = 93.0
kabardian-medium = 97.0
"""
    (folder / "registry.toml").write_text(head, encoding="utf-8")
    # dev alone: kabardian-medium (97) is the medium choice and the default (97 > 96)
    assert default_model("kabardian", folder).name == "kabardian-medium"
    assert default_model("kabardian", folder, setting="medium").name == "kabardian-medium"
    pooled = "[heldout.kabardian]\nwords = 500\npooled = {multilingual-medium = 93.67, "
    (folder / "registry.toml").write_text(
        head + pooled + '"kabardian-medium" = 92.14}\n', encoding="utf-8"
    )
    # pooled: the multilingual medium model (93.67 > 92.14) is the medium choice; on dev it
    # (93.0) then loses to the high model (96.0)
    medium = default_model("kabardian", folder, setting="medium")
    assert medium.name == "multilingual-medium" and medium.dev_accuracy == 93.0
    assert (medium.selection_accuracy, medium.heldout_words) == (93.67, 500)
    assert default_model("kabardian", folder).name == "multilingual-high"
    every = {m.name: m for m in list_models(folder, every=True)}
    assert every["kabardian-medium"].selection_accuracy == 92.14
    assert every["multilingual-high"].selection_accuracy is None
    assert every["multilingual-high"].heldout_words == 0
    # a setting where not every model has a pooled figure is chosen on dev
    (folder / "registry.toml").write_text(
        head + "[heldout.kabardian]\nwords = 500\npooled = {multilingual-medium = 93.67}\n",
        encoding="utf-8",
    )
    assert default_model("kabardian", folder, setting="medium").name == "kabardian-medium"
    res = run("models", "--all", "--models-dir", str(folder))
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("place", [0, 1])
def test_the_empty_string_is_never_a_form(monkeypatch, place):
    """An empty output is left out, with a note, and the certificate says
    what still holds: the list is not the whole support (second place: mode only), and the
    first form left is not the mode when the empty string was the most probable (none)."""
    from inflect.decoding.protocol import Certificate
    from inflect.inference.predictor import Form, Predictor

    predictor = Predictor.from_default("german", lexicons=())
    plain = predictor.predict("Wort", "N;GEN;SG")
    assert plain.certificate is Certificate.FULL_SUPPORT and len(plain.forms) >= 2
    original = Predictor._forms

    def with_empty(self, hyps, item):
        forms = original(self, hyps, item)
        p = forms[0].probability + 0.01 if place == 0 else forms[1].probability + 1e-9
        return sorted([*forms, Form("", p)], key=lambda f: -f.probability)

    monkeypatch.setattr(Predictor, "_forms", with_empty)
    got = predictor.predict("Wort", "N;GEN;SG")
    assert [f.form for f in got.forms] == [f.form for f in plain.forms]
    assert got.certificate is (Certificate.NONE if place == 0 else Certificate.MODE_ONLY)
    assert any("empty string" in w for w in got.warnings)


@pytest.mark.parametrize(("language", "lemma", "tags"), [
    ("breton", "mont", "V;FIN;IND;PRS;3;SG"),  # 'ya': the model gave the empty string 0.0218
    ("english", "Lewinsky", "V;V.PTCP;PST"),  # 0.0023: found on the dev sets, with the above
])
def test_the_model_never_ends_before_its_first_symbol(language, lemma, tags):
    """The cause of the note "the model gave the empty string probability ...", met on
    ordinary dev inputs: EOS was a possible first symbol. The first step now gives EOS
    probability 0 (its logit masked before the mapping), so the empty string never comes up,
    nothing is left out, and the certificate is the search's own: where it is full support the
    forms' probabilities are the whole distribution (they sum to 1). (Breton's model of the
    eighth round spreads `mont` over many forms, and its beam is pruned: mode only, as the
    search says, with no empty string.)"""
    import math

    from inflect.decoding.protocol import Certificate
    from inflect.inference.predictor import Predictor

    got = Predictor.from_default(language, lexicons=()).predict(lemma, tags)
    assert not any("empty string" in w for w in got.warnings), got.warnings
    assert all(f.form for f in got.forms)
    total = math.fsum(f.probability for f in got.forms)
    if got.certificate is Certificate.FULL_SUPPORT:
        assert total == pytest.approx(1.0, abs=1e-4)
    else:  # the search's own reason (a pruned beam), not a form left out: never above 1
        assert total <= 1.0 + 1e-4


def test_a_warning_is_shown_once_on_a_terminal_and_once_in_a_pipe():
    """The table shows the record's warnings, so stderr does not repeat
    them; TSV has no warnings column, so they go to stderr (once each)."""
    from click.testing import CliRunner

    from inflect.cli import main

    note = "symbol '😀' (U+1F600) of lemma 'Haus😀' was not seen in training"
    for fmt in ("table", "tsv"):
        out = CliRunner().invoke(main, ["predict", "--lang", "german", "Haus😀", "N;DAT;PL",
                                        "--format", fmt], env={"COLUMNS": "200"})
        assert out.exit_code == 0, out.output
        assert out.output.count(note) == 1, (fmt, out.output)
