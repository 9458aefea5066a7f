"""Tests of inflect.nn.vocab and inflect.nn.model: vocabularies, mappings, masking, tag-set invariance,
the Decodable protocol."""

from __future__ import annotations

import itertools
import json
import warnings

import entmax as oracle
import pytest
import torch

from inflect.nn.batching import Vocabularies, make_batch, output_symbols
from inflect.nn.config import ATTENTION_SCORES
from inflect.nn.model import Seq2Seq
from inflect.nn.vocab import (
    BOS_ID,
    EOS_ID,
    PAD,
    PAD_ID,
    SPECIALS,
    UNK,
    UNK_ID,
    UnknownSymbolWarning,
    Vocab,
    replace_unknowns,
)
from inflect.training.config import PRESETS, Config

MAPPINGS = ("softmax", "sparsemax", "entmax15", "entmax:1.3")


def tiny_model(
    attention="entmax15", output="entmax15", score="general", learn=False, seed=0, copy=False
):
    torch.manual_seed(seed)
    symbols = Vocab.build(["abcdefg", "äö "], name="symbol")
    feats = Vocab(["N", "PL", "SG", "V", "PST"], specials=(PAD,), name="feature")
    langs = Vocab(["xx", "yy"], specials=(), name="language")
    cfg = Config.from_preset(
        "tiny",
        attention_mapping=attention,
        output_mapping=output,
        attention_score=score,
        learn_attention_alpha=learn or None,
        dropout=0.2,
        copy_bias=copy,
    )
    return Seq2Seq(cfg.model, symbols, symbols, feats, langs)


def batch_of(model, feats=(("N", "PL"), ("V", "PST", "SG"), ("SG",))):
    return make_batch(
        Vocabularies.of(model),
        [list("abcde"), list("fa"), list("gäb")],
        [list(f) for f in feats],
        ["xx", "yy", "xx"],
        targets=[list("abcdeg"), list("äf"), list("gö b")],
    )


# ----------------------------------------------------------------------------------- vocab
def test_vocab_reserved_ids_and_json_round_trip():
    v = Vocab.build([["b", "a"], ["c", "a"]], name="symbol")
    assert (PAD_ID, BOS_ID, EOS_ID, UNK_ID) == (0, 1, 2, 3)
    assert v.symbols == [*SPECIALS, "a", "b", "c"]
    assert v.encode(["c", "a"]) == [6, 4]
    assert v.decode([4, 6, EOS_ID]) == ["a", "c", SPECIALS[2]]
    again = Vocab.from_dict(json.loads(json.dumps(v.to_dict())))
    assert again == v and again.symbols == v.symbols


def test_vocab_rejects_duplicates_and_reserved():
    with pytest.raises(ValueError, match="duplicate"):
        Vocab(["a", "a"])
    with pytest.raises(ValueError, match="reserved"):
        Vocab(["a", UNK])


def test_unseen_symbol_maps_to_unk_with_warning():
    v = Vocab(["a", "b"])
    with pytest.warns(UnknownSymbolWarning, match="'z'"):
        assert v.encode(["a", "z", "b"]) == [4, UNK_ID, 5]
    closed = Vocab(["xx"], specials=(), name="language")
    with pytest.raises(KeyError, match="no symbol 'zz'"):
        closed.encode(["zz"])


def test_replace_unknowns_copies_most_attended_source_symbol():
    attention = [[0.1, 0.9, 0.0], [0.0, 0.0, 1.0], [0.6, 0.4, 0.0]]
    out = replace_unknowns([UNK, "x", UNK], attention, ["p", "q", "r"])
    assert out == ["q", "x", "p"]
    assert replace_unknowns([UNK], None, ["p"]) == [UNK]


def test_an_unseen_source_symbol_is_copied_once_at_the_first_step_attending_it_most():
    """A model that never writes UNK (Øresund -> "Cresundessa", a finnish
    model attending Ø with weight 1 at its first step) still copies the unseen letter."""
    source = ["Ø", "r", "e", "s"]
    unseen = [True, False, False, False]
    attention = [
        [1.0, 0.0, 0.0, 0.0],  # C: the first step attending Ø most -> Ø
        [0.1, 0.9, 0.0, 0.0],  # r
        [0.4, 0.0, 0.6, 0.0],  # e: Ø has less than half -> kept
        [0.0, 0.0, 0.0, 1.0],  # s
        [0.0, 0.0, 0.0, 1.0],  # a
    ]
    out = replace_unknowns(list("Cresa"), attention, source, unseen)
    assert out == list("Øresa")
    # a final unseen letter: copied once, the suffix written while attending it stays
    attention = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1]]
    out = replace_unknowns(list("СЭСов"), attention, ["Ж", "Э", "К"], [True, False, True])
    assert out == list("ЖЭКов")
    # an UNK output copies its position, which is then copied no more, even where a letter
    # attending it comes first (an Irish prefix: "leis na h" + UNK for Íoslannach)
    attention = [[1, 0], [1, 0], [0, 1]]
    assert replace_unknowns([UNK, "a", "b"], attention, ["Ж", "b"], [True, False]) == \
        ["Ж", "a", "b"]
    assert replace_unknowns(["h", UNK, "b"], attention, ["Ж", "b"], [True, False]) == \
        ["h", "Ж", "b"]
    # a weight of exactly one half is the majority; without ``unseen``, letters stay
    assert replace_unknowns(["x"], [[0.5, 0.5]], ["Ж", "b"], [True, False]) == ["Ж"]
    assert replace_unknowns(["x"], [[1.0, 0.0]], ["Ж", "b"]) == ["x"]


# ----------------------------------------------------------------------------------- config
def test_config_defaults_are_the_papers():
    c = Config()
    assert (c.emb_dim, c.hidden_dim, c.layers, c.dropout) == (300, 300, 2, 0.3)
    assert (c.learning_rate, c.batch_size, c.max_grad_norm, c.lr_decay) == (1e-3, 64, 5.0, 0.5)
    assert c.attention_score == "general"
    assert Config.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert "cpu-small" in PRESETS


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("hidden_dim", 7),
        ("attention_mapping", "softermax"),
        ("attention_score", "cosine"),
        ("dropout", 1.0),
        ("output_mapping", "0.5"),
    ],
)
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        Config(**{field: value})


def test_unknown_preset_lists_known_ones():
    with pytest.raises(ValueError, match="cpu-small"):
        Config.from_preset("gpu-huge")


# ----------------------------------------------------------------------------------- mappings
@pytest.mark.parametrize(("attention", "output"), list(itertools.product(MAPPINGS, MAPPINGS)))
def test_every_mapping_combination_trains_one_step(attention, output):
    model = tiny_model(attention, output)
    model.train()
    batch = batch_of(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss, n = model.loss(batch)
    assert n == 6 + 1 + 2 + 1 + 4 + 1
    assert torch.isfinite(loss) and loss.item() >= 0
    (loss / n).backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    assert all(torch.isfinite(g).all() for g in grads)
    assert model.decoder.generator.weight.grad.abs().sum() > 0
    assert model.encoder.source_embedding.weight.grad.abs().sum() > 0
    opt.step()
    model.eval()
    with torch.no_grad():
        after, _ = model.loss(batch)
    assert torch.isfinite(after)


def test_output_loss_is_the_fenchel_young_loss_of_the_oracle():
    model = tiny_model("softmax", "entmax15")
    model.eval()
    batch = batch_of(model)
    with torch.no_grad():
        logits, _ = model(batch)
        loss, _ = model.loss(batch)
    target = batch.target_out.reshape(-1)
    keep = target != -100
    expected = oracle.entmax15_loss(logits.reshape(-1, logits.shape[-1])[keep], target[keep])
    torch.testing.assert_close(loss, expected.sum(), rtol=1e-5, atol=1e-5)


def test_learnable_attention_alpha_gets_a_gradient():
    model = tiny_model("entmax15", "softmax", learn=True)
    assert float(model.attention_alpha.detach()) == pytest.approx(1.5)
    loss, n = model.loss(batch_of(model))
    (loss / n).backward()
    grad = model.decoder.attention.alpha_raw.grad
    assert grad is not None and torch.isfinite(grad)
    assert float(grad.abs()) > 0  # α is in the graph, not merely a leaf that got a zero


# ----------------------------------------------------------------------------------- masking
@pytest.mark.parametrize("attention", MAPPINGS)
@pytest.mark.parametrize("score", ATTENTION_SCORES)
def test_padded_positions_get_exactly_zero_attention(attention, score):
    model = tiny_model(attention, "sparsemax", score=score)
    batch = batch_of(model)
    lengths = batch.source_lengths.tolist()
    assert lengths == [5, 2, 3]
    with torch.no_grad():
        _, attn = model(batch)  # (B, T, S)
    for b, n in enumerate(lengths):
        assert torch.all(attn[b, :, n:] == 0)
        torch.testing.assert_close(attn[b].sum(-1), torch.ones(attn.shape[1]))


def oracle_mapping(scores: torch.Tensor, alpha: float) -> torch.Tensor:
    """The α-entmax of a float64 score vector by the ``entmax`` package (softmax for α = 1)."""
    if alpha == 1.0:
        return torch.softmax(scores, -1)
    if alpha == 2.0:
        return oracle.sparsemax(scores, dim=-1)
    if alpha == 1.5:
        return oracle.entmax15(scores, dim=-1)
    return oracle.entmax_bisect(scores, alpha, dim=-1, n_iter=200)


def attention_oracle(model, state, new_state, alpha: float) -> torch.Tensor:
    """Attention weights (N, S) recomputed from public tensors: the scores of the encoder
    outputs ``state.source.memory`` h̄_s (gathered to the N rows, (N, S, H)) against the
    decoder's output, the top LSTM layer's hidden state ``new_state.h[-1]`` (N, H), in float64
    with plain torch ops from the model's weights (Luong et al. 2015, §3.1: general
    ``h_t·W_a h̄_s``, dot ``h_t·h̄_s``, concat/mlp ``v·tanh(W_q h_t + W_m h̄_s + b)``), then the
    named mapping applied by the ``entmax`` package to each row's real source positions. The
    keys are projected here, not taken from the model's precomputed ``state.source.keys``."""
    memory = state.per_row(state.source.memory).double()
    if model.config.attention_score == "dot":
        keys = memory
    else:
        w = model.decoder.attention.key_proj.weight.double()
        keys = memory @ w.T
        if model.decoder.attention.key_proj.bias is not None:
            keys = keys + model.decoder.attention.key_proj.bias.double()
    query = new_state.h[-1].double()
    if model.config.attention_score == "mlp":
        w_q = model.decoder.attention.query_proj.weight.double()
        v = model.decoder.attention.v.weight.double()[0]
        scores = (torch.tanh((query @ w_q.T)[:, None, :] + keys) * v).sum(-1)
    else:
        scores = (keys * query[:, None, :]).sum(-1)
    out = torch.zeros_like(scores)
    for n, length in enumerate(state.per_row(state.source.mask).sum(-1).tolist()):
        out[n, :length] = oracle_mapping(scores[n, :length], alpha)
    return out


ALPHA = {"softmax": 1.0, "sparsemax": 2.0, "entmax15": 1.5, "entmax:1.3": 1.3}


@pytest.mark.parametrize(
    ("attention", "output"),
    [
        ("sparsemax", "softmax"),
        ("softmax", "sparsemax"),
        ("entmax:1.3", "entmax15"),
        ("entmax15", "entmax:1.3"),
        ("sparsemax", "entmax15"),
    ],
)
@pytest.mark.parametrize("score", ATTENTION_SCORES)
def test_attention_is_the_named_mapping_of_the_scores(attention, output, score):
    """With attention ≠ output mapping (the paper's grid axis), the attention weights are the
    *attention* mapping of the scores, recomputed here from the model's weights."""
    model = tiny_model(attention, output, score=score)
    batch = batch_of(model)
    with torch.no_grad():
        for p in model.parameters():  # larger scores: the sparse mappings have zeros
            p.mul_(8.0)
        state = model.start(batch)
        mask = state.per_row(state.source.mask).clone()
        zeros = 0
        for t in range(batch.target_in.shape[1]):
            _, attn, new = model.step(state, batch.target_in[:, t])
            want = attention_oracle(model, state, new, ALPHA[attention])
            torch.testing.assert_close(attn.double(), want, atol=2e-6, rtol=1e-5)
            zeros += int(((want == 0) & mask).sum())
            state = new
    if attention != "softmax":
        assert zeros > 0  # the test reaches the sparse regime
    else:
        assert zeros == 0


# ----------------------------------------------------------------------------------- tag sets
def test_two_orders_of_a_tag_bundle_give_identical_outputs():
    model = tiny_model("entmax15", "entmax15")
    b1 = batch_of(model, feats=(("N", "PL"), ("V", "PST", "SG"), ("SG",)))
    b2 = batch_of(model, feats=(("PL", "N"), ("SG", "V", "PST"), ("SG",)))
    b3 = batch_of(model, feats=(("N", "SG"), ("V", "PST", "SG"), ("SG",)))
    with torch.no_grad():
        model.eval()
        l1, a1 = model(b1)
        l2, a2 = model(b2)
        l3, _ = model(b3)
    assert torch.equal(l1, l2) and torch.equal(a1, a2)
    assert not torch.equal(l1[0], l3[0])  # the features do matter
    assert torch.equal(l1[1:], l3[1:])
    b4 = batch_of(model, feats=(("N", "PL"), ("V", "PST", "SG"), ("SG", "SG")))
    with torch.no_grad():
        l4, _ = model(b4)
    assert not torch.equal(l1[2], l4[2])  # a bundle is a multiset: a repeated feature counts


def test_unseen_feature_is_left_out_with_a_warning_and_language_is_checked():
    model = tiny_model()
    with pytest.warns(UnknownSymbolWarning, match="'ESS'"):
        b = make_batch(Vocabularies.of(model), [list("ab")], [["N", "ESS"]], ["xx"])
    assert b.features.tolist() == [[model.feature_vocab.index("N")]]
    with pytest.raises(ValueError, match="known: xx, yy"):
        make_batch(Vocabularies.of(model), [list("ab")], [["N"]], ["zz"])
    with pytest.raises(ValueError, match="empty"):
        make_batch(Vocabularies.of(model), [[]], [["N"]], ["xx"])


def test_model_without_tags_or_language_symbol():
    symbols = Vocab.build([["▁the", "▁cat"]], name="subword")
    model = Seq2Seq(Config.from_preset("tiny").model, symbols, symbols)
    b = make_batch(Vocabularies.of(model), [["▁the", "▁cat"]], targets=[["▁cat"]])
    loss, n = model.loss(b)
    assert n == 2 and torch.isfinite(loss)


# ----------------------------------------------------------------------------------- protocol
@pytest.mark.parametrize("output", MAPPINGS)
def test_step_matches_teacher_forced_forward_and_reorder_gathers_rows(output):
    model = tiny_model("entmax15", output, copy=True)
    batch = batch_of(model)
    with torch.no_grad():
        model.decoder.generator.weight.mul_(20.0)  # peaked outputs, so the sparse mappings have zeros
        model.eval()
        logits, attn = model(batch)
        state = model.start(batch)
        assert not model.training and model.batch_size(batch) == 3
        for t in range(batch.target_in.shape[1]):
            probs, a, state = model.step(state, batch.target_in[:, t])
            assert probs.dtype == torch.float32 and probs.shape == (3, model.target_size)
            torch.testing.assert_close(probs.sum(-1), torch.ones(3))
            alpha = {"softmax": 1.0, "sparsemax": 2.0, "entmax15": 1.5, "entmax:1.3": 1.3}[output]
            scores = logits[:, t].double()
            if t == 0:  # the first symbol is never EOS: the empty string is never a form
                scores = scores.index_fill(-1, torch.tensor([model.eos_id]), float("-inf"))
                assert (probs[:, model.eos_id] == 0).all()
            if alpha == 1.0:
                expected = torch.softmax(scores, -1).float()
            else:
                expected = oracle.entmax_bisect(scores, alpha, n_iter=100).float()
            torch.testing.assert_close(probs, expected, atol=2e-5, rtol=1e-4)
            # the forward's fused recurrence and step() agree to float rounding, exact zeros kept
            torch.testing.assert_close(a, attn[:, t], atol=1e-6, rtol=1e-5)
            assert torch.equal(a == 0, attn[:, t] == 0)
        if output in ("sparsemax", "entmax15"):
            assert (probs == 0).any()
        index = torch.tensor([2, 2, 0])
        state2 = model.reorder(state, index)
        nxt = torch.tensor([4, 5, 6])
        p_all, a_all, _ = model.step(state, nxt)
        p_re, a_re, _ = model.step(state2, nxt[index])
        torch.testing.assert_close(p_re, p_all[index])
        torch.testing.assert_close(a_re, a_all[index])
    assert (model.bos_id, model.eos_id, model.pad_id, model.unk_id) == (1, 2, 0, 3)


def test_output_symbols_replace_unknowns_by_attention():
    model = tiny_model()
    attention = torch.tensor([[0.0, 1.0, 0.0], [0.2, 0.0, 0.8]])
    tokens = [UNK_ID, model.target_vocab.index("a")]
    vocab = model.target_vocab
    assert output_symbols(vocab, tokens, attention, ["x", "y", "z"]) == ["y", "a"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert output_symbols(vocab, tokens) == [UNK, "a"]
    # with the source vocabulary, an unseen source symbol is copied where a letter was written
    tokens = [vocab.index("a"), vocab.index("a")]
    unseen_first = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert "Ж" not in model.source_vocab and "a" in model.source_vocab
    assert output_symbols(vocab, tokens, unseen_first, ["Ж", "a", "a"],
                          model.source_vocab) == ["Ж", "a"]
    assert output_symbols(vocab, tokens, unseen_first, ["Ж", "a", "a"]) == ["a", "a"]


def test_copy_bias_adds_gated_attention_mass_to_the_source_symbols_logits():
    torch.manual_seed(0)
    symbols = Vocab.build(["abcdefg"], name="symbol")
    model = Seq2Seq(Config.from_preset("tiny", copy_bias=True).model, symbols, symbols)
    model.eval()
    batch = make_batch(
        Vocabularies.of(model), [list("abca"), list("ge")], targets=[list("ab"), list("g")]
    )
    with torch.no_grad():
        logits, attn = model(batch)
        state = model.encode(batch)
        feeds = []
        for t in range(batch.target_in.shape[1]):
            feed, _, state = model.decoder.step(state, batch.target_in[:, t])
            feeds.append(feed)
        plain = model.decoder.generator(torch.stack(feeds, 1))
        gate = torch.nn.functional.softplus(model.decoder.copy_gate(torch.stack(feeds, 1)))
    # by hand: symbol v gets the attention mass of the source positions holding v
    for b, src in enumerate(["abca", "ge"]):
        for t in range(logits.shape[1]):
            expected = plain[b, t].clone()
            for s, ch in enumerate(src):
                expected[symbols.index(ch)] += gate[b, t, 0] * attn[b, t, s]
            torch.testing.assert_close(logits[b, t], expected)
    # step() uses the same logits
    with torch.no_grad():
        st = model.start(batch)
        probs, _, _ = model.step(st, batch.target_in[:, 0])
    # (at the first step EOS is masked: the empty string is no form)
    first = logits[:, 0].double().clone()
    first[:, model.eos_id] = float("-inf")
    expected = oracle.entmax15(first, dim=-1).float()
    torch.testing.assert_close(probs, expected, atol=1e-5, rtol=1e-4)
    assert torch.equal(probs.argmax(-1), first.argmax(-1))
    assert (probs[:, model.eos_id] == 0).all()


def test_concat_states_stacks_rows_like_reorder():
    model = tiny_model(copy=True)
    batch = batch_of(model)
    with torch.no_grad():
        state = model.start(batch)
        a = model.reorder(state, torch.tensor([0, 2]))
        b = model.reorder(state, torch.tensor([1]))
        joined = model.concat_states([a, b])
        expected = model.reorder(state, torch.tensor([0, 2, 1]))
        prev = torch.tensor([4, 5, 6])
        p_joined, a_joined, _ = model.step(joined, prev)
        p_expected, a_expected, _ = model.step(expected, prev)
    assert torch.equal(p_joined, p_expected) and torch.equal(a_joined, a_expected)
    with pytest.raises(ValueError, match="at least one"):
        model.concat_states([])


# ------------------------------------------------------------------------- checkpoint layout
#: The tensor names (in order) of a two-layer ``mlp``-score model with a learned attention α and
#: the copy bias, as the 0.1 model (one flat module) wrote them into every checkpoint.
FLAT_NAMES = [
    "attention_alpha_raw",
    "source_embedding.weight",
    "target_embedding.weight",
    "feature_embedding.weight",
    "language_embedding.weight",
    *(
        f"encoder.{kind}_{m}_l{layer}{rev}"
        for layer in (0, 1)
        for rev in ("", "_reverse")
        for kind, m in itertools.product(("weight", "bias"), ("ih", "hh"))
    ),
    *(f"decoder.{i}.{k}_{m}" for i in (0, 1) for k in ("weight", "bias") for m in ("ih", "hh")),
    "score_proj.weight",
    "score_proj.bias",
    "score_query.weight",
    "score_v.weight",
    "combine.weight",
    "generator.weight",
    "generator.bias",
    "copy_gate.weight",
    "copy_gate.bias",
]


def test_weights_keep_the_checkpoint_names_and_the_parameter_order():
    """The encoder/decoder modules store their tensors under the 0.1 checkpoint names, in the
    0.1 order, and model.parameters() keeps that order (optimizer states index it)."""
    torch.manual_seed(0)
    symbols = Vocab.build(["abcdefg"], name="symbol")
    feats = Vocab(["N", "PL"], specials=(PAD,), name="feature")
    langs = Vocab(["xx"], specials=(), name="language")
    cfg = Config.from_preset(
        "tiny", layers=2, attention_score="mlp", learn_attention_alpha=True, copy_bias=True
    ).model
    model = Seq2Seq(cfg, symbols, symbols, feats, langs)
    state = model.state_dict()
    assert list(state) == FLAT_NAMES
    assert [p.data_ptr() for p in model.parameters()] == [state[n].data_ptr() for n in FLAT_NAMES]
    again = Seq2Seq(cfg, symbols, symbols, feats, langs)
    assert not again.load_state_dict(state).missing_keys
    for name, value in again.state_dict().items():
        assert torch.equal(value, state[name]), name
    del state["score_v.weight"]
    with pytest.raises(RuntimeError, match=r'Missing key.*"score_v\.weight"'):
        again.load_state_dict(state)
