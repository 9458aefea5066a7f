"""Restricting a checkpoint to one language's data (:mod:`inflect.nn.trim`): the kept rows are the
same numbers, the output probabilities are α-entmax of the kept scores alone (a float64
reference), the vocabularies are those a from-scratch model of the data would have, and an int8
checkpoint is sliced exactly."""

from __future__ import annotations

import numpy as np
import pytest
import synthetic
import torch
from _sparse_ref import entmax_ref
from test_train import tiny_config

from inflect.nn.checkpoint import INT4_GROUPS, INT8_ROWS, quantize_int4, quantize_int8
from inflect.nn.config import COPY_FEATURE
from inflect.nn.model import Seq2Seq
from inflect.nn.trim import restrict, restrict_to_items
from inflect.training.items import Item
from inflect.training.warm_start import build_model

CYRILLIC = str.maketrans("bdfgklmnprstaeiouäöü", "бдфгклмнпрстаеиоуӓӧӱ")


def _other_language(n: int, seed: int) -> list[Item]:
    """Items of a second language in another script, with a feature the first never has."""
    out = []
    for it in synthetic.items(n, seed=seed, language="other"):
        out.append(Item(tuple("".join(it.source).translate(CYRILLIC)), it.features | {"ESS"},
                        "other", tuple("".join(it.target).translate(CYRILLIC))))
    return out


def _bilingual_model() -> tuple[Seq2Seq, list[Item]]:
    synth = synthetic.items(60, seed=3)
    model = build_model(tiny_config(copy_bias=True, copy_examples=1.0),
                        synth + _other_language(60, seed=4))
    model.eval()
    return model, synth


def _rebuilt(tensors, meta) -> Seq2Seq:
    model = Seq2Seq.from_metadata(meta["model"])
    model.load_state_dict(tensors, strict=True)
    return model.eval()


def test_the_kept_rows_give_the_same_scores_and_entmax_of_those_scores():
    full, synth = _bilingual_model()
    meta = {"model": full.metadata(), "languages": [{"name": "synth"}, {"name": "other"}]}
    tensors, trimmed_meta = restrict_to_items(full.state_dict(), meta, synth)
    trimmed = _rebuilt(tensors, trimmed_meta)

    # the vocabularies a from-scratch model of the Latin-script data would have
    scratch = build_model(tiny_config(copy_bias=True, copy_examples=1.0), synth)
    assert trimmed.source_vocab.symbols == scratch.source_vocab.symbols
    assert trimmed.feature_vocab.symbols == scratch.feature_vocab.symbols
    assert COPY_FEATURE in trimmed.feature_vocab.symbols and "ESS" not in trimmed.feature_vocab
    assert trimmed.language_vocab.symbols == ["synth"]
    assert [d["name"] for d in trimmed_meta["languages"]] == ["synth"]
    assert len(trimmed.target_vocab) < len(full.target_vocab)

    kept = torch.tensor([full.target_vocab.index(s) for s in trimmed.target_vocab.symbols])
    items = synth[:12]
    with torch.inference_mode():
        logits_full, attn_full = full(synthetic.item_batch(full, items))
        logits_trim, attn_trim = trimmed(synthetic.item_batch(trimmed, items))
        torch.testing.assert_close(logits_trim, logits_full[..., kept], rtol=0, atol=1e-5)
        torch.testing.assert_close(attn_trim, attn_full, rtol=0, atol=1e-6)
        state = trimmed.start(synthetic.item_batch(trimmed, items, targets=False))
        probs, _, _ = trimmed.step(state, torch.full((len(items),), trimmed.bos_id))
    first = logits_full[:, 0, kept].double().numpy()
    # at the first step EOS is masked (the empty string is no form): the entmax of the others
    others = [i for i in range(first.shape[1]) if i != trimmed.eos_id]
    expected = np.zeros_like(first)
    expected[:, others] = np.stack([entmax_ref(row, 1.5) for row in first[:, others]])
    np.testing.assert_allclose(probs.double().numpy(), expected, atol=1e-5)


@pytest.mark.parametrize(("kind", "quantize"), [(INT8_ROWS, quantize_int8),
                                               (INT4_GROUPS, quantize_int4)])
def test_a_quantized_checkpoint_is_sliced_exactly(kind, quantize):
    full, synth = _bilingual_model()
    meta = {"model": full.metadata(), "languages": [], "quantized": kind}
    state = {k: v.clone() for k, v in full.state_dict().items()}
    with torch.no_grad():  # rows of very different size: every row has its own scales
        state["generator.weight"] *= torch.linspace(0.1, 5, state["generator.weight"].shape[0])[
            :, None
        ]
    quantized_then_cut, _ = restrict_to_items(quantize(state, min_size=1), meta, synth)
    cut_then_quantized = quantize(restrict_to_items(state, meta, synth)[0], min_size=1)
    assert quantized_then_cut.keys() == cut_then_quantized.keys()
    for name, value in cut_then_quantized.items():
        assert torch.equal(quantized_then_cut[name], value), name
    assert not quantized_then_cut["generator.weight"].is_floating_point()


def test_a_language_the_model_lacks_is_refused_and_inputs_are_not_changed():
    full, _ = _bilingual_model()
    meta = {"model": full.metadata(), "languages": []}
    state = full.state_dict()
    rows = state["generator.weight"].shape[0]
    with pytest.raises(ValueError, match="no language klingon"):
        restrict(state, meta, symbols="abc", languages=["klingon"])
    out, new_meta = restrict(state, meta, symbols="ab")
    assert out["generator.weight"].shape[0] == 4 + 2  # the reserved symbols, then a and b
    assert state["generator.weight"].shape[0] == rows
    assert meta["model"]["target_vocab"]["symbols"] != new_meta["model"]["target_vocab"]["symbols"]
    with pytest.raises(ValueError, match="no items"):
        restrict_to_items(state, meta, [])
