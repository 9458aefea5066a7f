"""The translation recipe (recipes/translation/run.py) and the core pieces it relies on: the
SentencePiece codec (detokenisation round trip, stored inside the checkpoint), parallel-text items,
BLEU-based model selection, and translation from a checkpoint after the training data are gone.

The end-to-end test runs a reduced smoke size (1,200 pairs, a tiny model, one epoch) and checks the
recipe's numbers against values recomputed here: BLEU and chrF by calling sacrebleu directly on the
saved hypotheses, the mean output support per step of the softmax run (every entry of a softmax is
nonzero, so it must equal V exactly), throughput = tokens / seconds.
"""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch

spm = pytest.importorskip("sentencepiece")
sacrebleu = pytest.importorskip("sacrebleu")

from click.testing import CliRunner  # noqa: E402

from inflect.cli import main  # noqa: E402
from inflect.decoding.protocol import Certificate  # noqa: E402
from inflect.inference.predictor import InputError  # noqa: E402
from inflect.inference.translator import Translator, read_sentences  # noqa: E402
from inflect.nn.checkpoint import (  # noqa: E402
    CheckpointError,
    LoadedModel,
    load_checkpoint,
    load_tensors,
)
from inflect.text.codec import (  # noqa: E402
    CharCodec,
    SentencePieceCodec,
    codec_from_dict,
    train_sentencepiece,
)
from inflect.text.languages import resolve  # noqa: E402
from inflect.training.items import items_from_texts  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
RECIPE = REPO / "recipes" / "translation" / "run.py"

SENTENCES = [
    "Ein Hund läuft über die Wiese.",
    "A dog runs across the meadow.",
    "Zwei Männer spielen Fußball im Park.",
    "Two men play football in the park.",
    "Eine Frau mit einem roten Hut liest ein Buch.",
    "A woman with a red hat reads a book.",
] * 20


def load_recipe():
    spec = importlib.util.spec_from_file_location("translation_recipe", RECIPE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def small_codec() -> SentencePieceCodec:
    return train_sentencepiece(SENTENCES, 330, "bpe")


def test_detokenisation_round_trip(small_codec):
    # seen text, unseen words, characters never seen (UTF-8 byte pieces), odd spacing
    texts = [*SENTENCES[:6], "Ein Zebra ☃ frisst Äpfel — 3,5 kg!", "  zwei   Leerzeichen ", "ß"]
    for text in texts:
        pieces = small_codec.encode(text)
        assert small_codec.decode(pieces) == text
    assert "<unk>" not in small_codec.encode("☃ Ω")
    # the codec survives its dict (JSON) exactly
    again = codec_from_dict(json.loads(json.dumps(small_codec.to_dict())))
    assert again.model_proto == small_codec.model_proto
    assert again.encode(texts[6]) == small_codec.encode(texts[6])


def test_codec_dict_errors(small_codec):
    d = small_codec.to_dict()
    with pytest.raises(ValueError, match="SHA-256"):
        codec_from_dict(d | {"sha256": "0" * 64})
    with pytest.raises(ValueError, match="unknown codec kind 'words'"):
        codec_from_dict({"kind": "words"})
    with pytest.raises(ValueError, match="not a SentencePiece model"):
        SentencePieceCodec(b"not a model")
    with pytest.raises(ValueError, match="bpe or unigram"):
        train_sentencepiece(SENTENCES, 330, "word")


def test_sentencepiece_training_uses_its_seed(monkeypatch):
    seeds = []
    monkeypatch.setattr(spm, "set_random_generator_seed", seeds.append)
    train_sentencepiece(SENTENCES, 310, "unigram", seed=7)
    train_sentencepiece(SENTENCES, 310, "unigram", seed=8)
    assert seeds == [7, 8]
    monkeypatch.undo()
    a = train_sentencepiece(SENTENCES, 310, "unigram", seed=3)
    b = train_sentencepiece(SENTENCES, 310, "unigram", seed=3)
    assert a.model_proto == b.model_proto  # same seed, same subword model


def test_char_codec_is_the_language_spec():
    spec = resolve("german")
    codec = CharCodec(spec)
    assert codec.encode("Häuser") == spec.to_symbols(spec.normalize_input("Häuser"))
    assert codec.decode(codec.encode("Häuser")) == "Häuser"
    assert codec_from_dict(codec.to_dict()).spec == spec


def test_items_from_texts(small_codec):
    items = items_from_texts(["Ein Hund."], ["A dog."], small_codec)
    assert items[0].source == tuple(small_codec.encode("Ein Hund."))
    assert items[0].target == tuple(small_codec.encode("A dog."))
    assert items[0].features == () and items[0].language is None
    with pytest.raises(ValueError, match=r"train\.de has 2 lines but train\.en has 1"):
        items_from_texts(["a", "b"], ["a"], small_codec, "train.de", "train.en")
    with pytest.raises(ValueError, match=r"train\.en:2: empty line"):
        items_from_texts(["a", "b"], ["a", " "], small_codec, "train.de", "train.en")


def test_read_sentences_names_file_and_line(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(b"Ein Hund.\r\nZwei\n\xff\n")
    found = read_sentences(path)
    first = next(found)
    assert (first.text, first.line, first.source) == ("Ein Hund.", 1, str(path))
    assert next(found).text == "Zwei"
    with pytest.raises(InputError, match=rf"{path}:3: bytes that are not UTF-8 at byte 1"):
        next(found)


@pytest.mark.slow
@pytest.mark.shared_data
def test_smoke_end_to_end_and_checkpoint_without_data(multi30k, tmp_path):
    torch.set_num_threads(1)
    recipe = load_recipe()
    # a private copy of the data, removed before translating
    data = tmp_path / "data"
    data.mkdir()
    for split, n in (("train", 1200), ("val", 40)):
        for lang in ("de", "en"):
            lines = (multi30k / f"{split}.{lang}").read_text(encoding="utf-8").splitlines()[:n]
            (data / f"{split}.{lang}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    size = replace(
        recipe.SMOKE,
        train_pairs=1200,
        dev_pairs=40,
        vocab_size=400,
        config=dict(recipe.SMOKE.config, emb_dim=32, hidden_dim=64, max_decode_len=40),
    )
    out = tmp_path / "runs"
    rows = recipe.run_grid(size, out, data, log=lambda *a: None)
    references = (data / "val.en").read_text(encoding="utf-8").splitlines()
    assert [(r["output"], r["attention"]) for r in rows] == list(size.runs)
    for row in rows:
        run = Path(row["run"])
        scores = json.loads((run / "eval.json").read_text())
        hyps = scores["hypotheses"]
        assert len(hyps) == 40
        assert row["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [references]).score)
        assert row["chrf"] == pytest.approx(sacrebleu.corpus_chrf(hyps, [references]).score)
        assert row["bleu_signature"].startswith("nrefs:1|case:mixed|eff:no|tok:13a")
        speed = json.loads((run / "throughput.json").read_text())
        assert row["tokens_per_s"] == pytest.approx(speed["tokens"] / speed["seconds"])
        assert speed["tokens"] == sum(len(it) + 1 for it in _targets(recipe, data, size))
        assert 0.0 <= row["certified"] == pytest.approx(row["full_support"] + row["mode_only"])
        assert 1.0 <= row["mean_step_support"] <= row["target_vocab"]
    softmax = next(r for r in rows if r["output"] == "softmax")
    # softmax: every symbol nonzero, but EOS at the first step (masked: no empty translation)
    assert softmax["target_vocab"] - 1 < softmax["mean_step_support"] < softmax["target_vocab"]
    assert softmax["certified"] == 0.0  # a dense output never certifies a beam
    sparse = next(r for r in rows if r["output"] == "entmax15")
    assert sparse["mean_step_support"] < sparse["target_vocab"]
    table = [ln for ln in (out / "results.md").read_text().splitlines() if ln.startswith("| ")]
    assert len(table) == len(rows) + 1  # header + one row per run

    # runs=[] (--prepare) only writes the subword model and leaves results alone; a second
    # full call skips the finished runs and reads the cached evaluations
    before = (out / "results.md").read_bytes()
    assert recipe.run_grid(size, out, data, runs=[], log=lambda *a: None) == []
    assert (out / "results.md").read_bytes() == before
    prepared = tmp_path / "prepared"
    assert recipe.run_grid(size, prepared, data, runs=[], log=lambda *a: None) == []
    assert sorted(p.name for p in prepared.iterdir()) == ["codec.json"]
    again = recipe.run_grid(size, out, data, log=lambda *a: None)
    assert [(r["bleu"], r["tokens_per_s"]) for r in again] == [
        (r["bleu"], r["tokens_per_s"]) for r in rows]

    # the checkpoint carries its subword model: translate with the data gone
    run = Path(sparse["run"])
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(run / "model.safetensors", alone / "model.safetensors")
    shutil.rmtree(data)
    shutil.rmtree(out)
    _, meta = load_tensors(alone / "model.safetensors")
    assert meta["codec"]["kind"] == "sentencepiece"
    loaded = load_checkpoint(alone)
    assert isinstance(loaded.codec, SentencePieceCodec) and loaded.is_translation
    assert loaded.codec.sha256 == meta["codec"]["sha256"]
    translator = Translator([loaded], beam_size=5, support="never")
    source = "Ein Mann in einem blauen Hemd steht auf einer Leiter."
    pred = translator.translate(source)
    assert pred.pair == "de-en" and pred.source == source and pred.inputs == (source, "", "de-en")
    assert pred.best is not None and pred.best.form.strip()
    assert pred.certificate in set(Certificate)
    # the same through the command line, and the probability is the record's
    result = CliRunner().invoke(main, ["translate", "--model", str(alone), "--format", "jsonl",
                                       source])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output.splitlines()[0])
    assert record["source"] == source and record["pair"] == "de-en" and "lemma" not in record
    assert record["forms"][0]["form"] == pred.best.form
    assert math.isclose(record["forms"][0]["probability"], pred.best.probability, rel_tol=1e-6)
    with pytest.raises(InputError, match="empty sentence"):
        translator.translate("   ")
    with pytest.raises(InputError, match=r"control character U\+0009 \(TAB\) in the sentence"):
        translator.translate("Ein\tMann.")  # would shift the TSV columns
    result = CliRunner().invoke(main, ["translate", "--model", str(alone), source])  # a pipe
    header, first = result.output.splitlines()[:2]
    assert header == "sentence\ttags\tpair\tcertificate\tcount\trank\ttranslation\tprobability"
    assert first.split("\t")[:3] == [source, "", "de-en"] and first.split("\t")[5:7] == [
        "1", pred.best.form]
    # the translation checkpoint given to `inflect predict`: what it is, what to use instead
    result = CliRunner().invoke(main, ["predict", "--model", str(alone), "kala", "V"])
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert f"{alone / 'model.safetensors'}: a translation model" in message
    assert f"translate with `inflect translate --model {alone / 'model.safetensors'}`" in message


def _targets(recipe, data, size):
    codec = codec_from_dict(json.loads((data.parent / "runs" / "codec.json").read_text()))
    _, en = recipe.read_pairs(data, "train", size.train_pairs)
    return [codec.encode(s) for s in en]


def test_translator_rejects_inflection_models(tmp_path):
    from inflect.nn.config import ModelConfig
    from inflect.nn.model import Seq2Seq
    from inflect.nn.vocab import PAD, Vocab

    syms = Vocab(["a", "b"])
    model = Seq2Seq(ModelConfig(emb_dim=8, hidden_dim=8, layers=1), syms, syms,
                    Vocab(["N"], specials=(PAD,), name="feature"))
    with pytest.raises(ValueError, match="tag bundles"):
        Translator([LoadedModel(model, codec=CharCodec(resolve("german")))])
    with pytest.raises(ValueError, match="codec"):
        Translator([LoadedModel(model)])
    with pytest.raises(FileNotFoundError, match="no such checkpoint"):
        Translator.from_checkpoints([tmp_path / "missing"])
    (tmp_path / "bad.safetensors").write_bytes(b"no")
    with pytest.raises(CheckpointError):
        Translator.from_checkpoints([tmp_path / "bad.safetensors"])


def test_train_stores_codec_selects_on_dev_score_and_refuses_another_codec(small_codec, tmp_path):
    from inflect.training.config import Config
    from inflect.training.items import TrainingData
    from inflect.training.trainer import train

    torch.set_num_threads(1)
    de, en = SENTENCES[0:6:2], SENTENCES[1:6:2]
    items = items_from_texts(de, en, small_codec)
    calls = []

    def score(predictions, dev):
        calls.append((list(predictions), list(dev)))
        return 42.0 - len(calls)  # falls every epoch: only epoch 1 is the best

    data = TrainingData(items, items, codec=small_codec, dev_score=score,
                        dev_score_name="test score", shared_vocab=False)
    config = Config(emb_dim=8, hidden_dim=8, layers=1, dropout=0.0, batch_size=3,
                    max_epochs=2, patience=5)
    result = train(config, data, tmp_path / "run", device="cpu")
    assert len(calls) == 2 and calls[0][1] == items and len(calls[0][0]) == len(items)
    assert result.best_epoch == 1 and result.best_dev_accuracy == 41.0
    assert result.metrics.dev_score.tolist() == [41.0, 40.0]
    loaded = load_checkpoint(tmp_path / "run")
    model = loaded.network
    assert loaded.codec.to_dict() == small_codec.to_dict()
    assert loaded.metadata["training"]["dev_score"] == "test score"
    # separate vocabularies: the target side holds only the English pieces
    english = {p for s in en for p in small_codec.encode(s)}
    assert set(model.target_vocab.symbols[4:]) == english
    assert model.source_vocab != model.target_vocab
    other = train_sentencepiece(SENTENCES, 340, "bpe")
    with pytest.raises(ValueError, match="different codec"):
        train(None, replace(data, codec=other), tmp_path / "run", device="cpu", resume=True,
              max_epochs=3)


def test_results_table_throughput_is_relative_to_the_softmax_output():
    recipe = load_recipe()

    def row(output, attention, speed):
        return {"output": output, "attention": attention, "bleu": 30.0, "chrf": 50.0,
                "mean_step_support": 2.0, "target_vocab": 10, "certified": 0.5,
                "full_support": 0.25, "mode_only": 0.25, "tokens_per_s": speed, "epochs": 3,
                "bleu_signature": "b", "chrf_signature": "c"}

    rows = [row("softmax", "entmax15", 200.0), row("entmax15", "entmax15", 150.0),
            row("softmax", "softmax", 400.0), row("sparsemax", "sparsemax", 100.0)]
    table = [ln for ln in recipe.results_markdown(rows).splitlines() if ln.startswith("| ")]
    ratios = [ln.split("|")[7].strip() for ln in table[1:]]
    # same attention first (150/200), else softmax/softmax (100/400)
    assert ratios == ["200 (1.00×)", "150 (0.75×)", "400 (1.00×)", "100 (0.25×)"]
    assert "| 2.0 (of 10) | 50.0% (25.0% / 25.0%) |" in table[2]
