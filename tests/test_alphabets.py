"""Output alphabets (:mod:`inflect.nn.alphabets`): a multilingual model's search writes only the
symbols of the input's language (probability exactly 0 elsewhere, the rest α-entmax of the
kept scores, by a float64 reference); the record is made by the trainer and kept in the
checkpoint."""

from __future__ import annotations

import dataclasses

import numpy as np
import synthetic
import torch
from _sparse_ref import entmax_ref
from test_train import tiny_config
from test_trim import _bilingual_model, _other_language

from inflect.decoding.beam import beam_search
from inflect.nn.alphabets import OutputAlphabets
from inflect.nn.checkpoint import load_checkpoint
from inflect.nn.model import Seq2Seq
from inflect.training.items import TrainingData
from inflect.training.trainer import train


def test_a_search_step_writes_only_the_languages_symbols():
    model, synth = _bilingual_model()
    other = _other_language(60, seed=4)
    items = synth[:6] + other[:6]
    with torch.inference_mode():
        logits, _ = model(synthetic.item_batch(model, items))
    model.output_alphabets = OutputAlphabets.from_items(synth + other)
    with torch.inference_mode():
        state = model.start(synthetic.item_batch(model, items, targets=False))
        probs, _, _ = model.step(state, torch.full((len(items),), model.bos_id))
    for row, item in enumerate(items):
        pairs = synth if item.language == "synth" else other
        own = {s for it in pairs for s in (*it.source, *it.target)}
        # a symbol the language's forms never write beyond their lemma: only where this lemma
        # has it
        written = {s for it in pairs for s in set(it.target) - set(it.source)}
        allowed = [i for i, s in enumerate(model.target_vocab.symbols)
                   if (s in own and (s in written or s in item.source))
                   or s == "<unk>"]  # (EOS is masked at the first step: no empty form)
        outside = sorted(set(range(len(model.target_vocab))) - set(allowed))
        assert outside, "the two languages share every symbol: the test shows nothing"
        assert (probs[row, outside] == 0).all()
        expected = entmax_ref(logits[row, 0, allowed].double().numpy(), 1.5)
        np.testing.assert_allclose(probs[row, allowed].double().numpy(), expected, atol=1e-5)


def test_beam_search_of_an_unseen_capital_writes_no_other_script():
    model, synth = _bilingual_model()
    assert _search_symbols(model, synth) - LATIN - {"<unk>"}, "the untrained model writes only Latin anyway: the test shows nothing"
    model.output_alphabets = OutputAlphabets.from_items(synth + _other_language(60, seed=4))
    written = _search_symbols(model, synth)
    assert written <= LATIN | {"<unk>"}, written - LATIN


LATIN = set(synthetic.CONSONANTS + synthetic.VOWELS + "äöü ")


def _search_symbols(model, synth) -> set[str]:
    """Every symbol of every finished 4-best string for the synth lemmas, capitalised (K
    unseen: read as the unknown symbol)."""
    items = [dataclasses.replace(it, source=("K", *it.source)) for it in synth[:20]]
    with torch.inference_mode():
        batch = synthetic.item_batch(model, items, targets=False)
        results = beam_search(model, batch, beam_size=4, max_len=12)
    return {s for r in results for h in r.hypotheses for s in model.target_vocab.decode(h.tokens)
            if s != "</s>"}


def test_the_trainer_records_the_alphabets_and_the_checkpoint_keeps_them(tmp_path):
    synth, other = synthetic.items(40, seed=1), _other_language(40, seed=2)
    train(tiny_config(), TrainingData(synth + other, synth[:4] + other[:4],
                                      description={"languages": ["synth", "other"]}),
          tmp_path, device="cpu", max_epochs=1, precision="float32")
    network = load_checkpoint(tmp_path / "model.safetensors").network
    assert network.output_alphabets is not None
    assert network.output_alphabets.table == {
        "synth": sorted({s for it in synth for s in (*it.source, *it.target)}),
        "other": sorted({s for it in other for s in (*it.source, *it.target)}),
    }
    again = Seq2Seq.from_metadata(network.metadata())
    assert again.output_alphabets.table == network.output_alphabets.table
