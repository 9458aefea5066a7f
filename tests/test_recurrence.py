"""The hand-differentiated recurrences (inflect.nn.recurrence) against autograd, in float64.

The references are independent of the code under test: PyTorch's own ``nn.LSTM`` over a packed
sequence for the encoder, and autograd through the model's step-by-step decoder
(``Decoder.step``, plain tensor operations) for the decoder.
"""

from __future__ import annotations

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from inflect.nn.batching import Vocabularies, make_batch
from inflect.nn.cell import gate_scale, gate_slope, lstm_cell, lstm_cell_backward
from inflect.nn.config import ModelConfig
from inflect.nn.model import Seq2Seq
from inflect.nn.recurrence import (
    RecurrenceSpec,
    bilstm_layer,
    decoder_recurrence,
    entmax_backward,
)
from inflect.nn.vocab import PAD, Vocab
from inflect.sparse import entmax

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


@pytest.mark.parametrize("layers", [1, 2])
def test_bilstm_layer_equals_packed_nn_lstm_values_and_gradients(layers):
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(6, 4, num_layers=layers, bidirectional=True, batch_first=True).double()
    x = torch.randn(5, 7, 6, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([7, 3, 5, 1, 7])
    mask = torch.arange(7)[None] < lengths[:, None]
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, (h, c) = lstm(packed)
    ref_out, _ = pad_packed_sequence(out, batch_first=True, total_length=7)
    go, gh, gc = torch.randn_like(ref_out), torch.randn_like(h), torch.randn_like(c)
    params = [x, *lstm.parameters()]
    ref = torch.autograd.grad((ref_out * go).sum() + (h * gh).sum() + (c * gc).sum(), params)

    inp, hs, cs = x, [], []
    for layer in range(layers):
        names = [f"_l{layer}", f"_l{layer}_reverse"]
        pre = torch.stack(
            [
                torch.nn.functional.linear(
                    inp,
                    getattr(lstm, "weight_ih" + n),
                    getattr(lstm, "bias_ih" + n) + getattr(lstm, "bias_hh" + n),
                )
                for n in names
            ]
        )
        w_hh = torch.stack([getattr(lstm, "weight_hh" + n) for n in names])
        o, hl, cl = bilstm_layer(pre, w_hh, mask)
        inp = torch.cat([o[0], o[1]], dim=-1)
        hs.append(hl)
        cs.append(cl)
    ours_h, ours_c = torch.cat(hs), torch.cat(cs)
    torch.testing.assert_close(inp, ref_out, atol=1e-12, rtol=0)
    torch.testing.assert_close(ours_h, h, atol=1e-12, rtol=0)
    torch.testing.assert_close(ours_c, c, atol=1e-12, rtol=0)
    assert torch.all(inp[~mask] == 0)
    ours = torch.autograd.grad((inp * go).sum() + (ours_h * gh).sum() + (ours_c * gc).sum(), params)
    for a, b in zip(ref, ours, strict=True):
        torch.testing.assert_close(b, a, atol=1e-12, rtol=0)


@pytest.mark.parametrize("alpha", [1.0, 1.3, 1.5, 2.0])
def test_entmax_backward_equals_autograd(alpha):
    torch.manual_seed(1)
    x = torch.randn(4, 9, dtype=torch.float64, requires_grad=True)
    x.data[0, 5:] = float("-inf")  # padding positions
    p = entmax(x, alpha, dim=-1) if alpha != 1.0 else torch.softmax(x, -1)
    g = torch.randn_like(p)
    (ref,) = torch.autograd.grad((p * g).sum(), [x])
    ours = entmax_backward(p.detach(), g, alpha)
    torch.testing.assert_close(ours, ref, atol=1e-6 if alpha == 1.3 else 1e-12, rtol=0)
    assert torch.all(ours[0, 5:] == 0)


def _model(attention: str, layers: int, copy: bool, score: str = "general") -> Seq2Seq:
    symbols = Vocab.build([list("abcdefgh")], name="symbol")
    feats = Vocab(["F1", "F2", "F3"], specials=(PAD,), name="feature")
    langs = Vocab(["xx", "yy"], specials=(), name="language")
    cfg = ModelConfig(
        emb_dim=5,
        feature_dim=4,
        hidden_dim=6,
        layers=layers,
        dropout=0.0,
        attention_mapping=attention,
        output_mapping="entmax15",
        copy_bias=copy,
        attention_score=score,
    )
    torch.manual_seed(3)
    model = Seq2Seq(cfg, symbols, symbols, feats, langs).double()
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(3.0)  # larger weights: sparse attention with zeros
    return model


def _batch(model):
    return make_batch(
        Vocabularies.of(model),
        [list("abcde"), list("fg"), list("hab")],
        [["F1"], ["F2", "F3"], []],
        ["xx", "yy", "xx"],
        [list("abc"), list("defgh"), list("a")],
        warn=False,
    )


@pytest.mark.parametrize("attention", ["softmax", "entmax:1.3", "entmax15", "sparsemax"])
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("copy", [False, True])
def test_fused_decoder_equals_step_by_step_autograd(attention, layers, copy):
    """Loss and every parameter's gradient through the fused recurrence equal autograd through
    the model's step-by-step path (used for a learned α), in float64."""
    model = _model(attention, layers, copy)
    batch = _batch(model)
    model.train()  # dropout is 0: both paths are deterministic

    loss, n = model.loss(batch)
    fused = torch.autograd.grad(loss, list(model.parameters()), allow_unused=True)
    assert n == 3 + 5 + 1 + 3

    def step_by_step_loss():
        from inflect.sparse import entmax_loss

        state = model.encode(batch)
        emb = model.decoder.target_embedding(batch.target_in)
        gates = emb @ state.weights.embedding.t()
        feeds, attns = [], []
        for g in gates.unbind(1):
            feed, attn, state = model.decoder.step(state, None, g)
            feeds.append(feed)
            attns.append(attn)
        attn = torch.stack(attns, 1)
        logits = model.decoder.logits(torch.stack(feeds, 1), attn, state.source.copy_index)
        return entmax_loss(
            logits.reshape(-1, logits.shape[-1]),
            batch.target_out.reshape(-1),
            1.5,
            ignore_index=-100,
            reduction="sum",
        ), attn

    ref_loss, ref_attn = step_by_step_loss()
    ref = torch.autograd.grad(ref_loss, list(model.parameters()), allow_unused=True)
    torch.testing.assert_close(loss, ref_loss, atol=1e-10, rtol=0)
    if attention != "softmax":
        assert (ref_attn == 0).any()  # the sparse case is exercised
    names = [name for name, _ in model.named_parameters()]
    for name, a, b in zip(names, fused, ref, strict=True):
        if b is None:
            assert a is None or torch.all(a == 0), name
            continue
        # the attention mapping runs in float32 on both paths (model convention), so the float64
        # comparison holds to float32 rounding; a wrong formula is off by orders more
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=name)


def test_fused_decoder_with_bfloat16_products_stays_close_to_float32():
    torch.manual_seed(0)
    model = _model("entmax15", 1, True).float()
    batch = _batch(model)
    model.train()
    loss32, _ = model.loss(batch)
    g32 = torch.autograd.grad(loss32, list(model.parameters()))
    model.matmul_dtype = torch.bfloat16
    loss16, _ = model.loss(batch)
    g16 = torch.autograd.grad(loss16, list(model.parameters()))
    assert loss16 != loss32  # the products did run in bfloat16
    l16, l32 = loss16.item(), loss32.item()
    assert abs(l16 - l32) <= 0.02 * abs(l32)
    cos = torch.nn.functional.cosine_similarity(
        torch.cat([g.flatten() for g in g32]), torch.cat([g.flatten() for g in g16]), dim=0
    )
    assert cos > 0.99
    with torch.no_grad():  # without gradients (evaluation) the products stay float32
        low = model.loss(batch)[0]
        model.matmul_dtype = None
        assert torch.equal(low, model.loss(batch)[0])


def test_mlp_score_trains_through_the_step_by_step_path():
    model = _model("entmax15", 1, False, score="mlp")
    batch = _batch(model)
    loss, _ = model.loss(batch)
    grads = dict(
        zip(
            [n for n, _ in model.named_parameters()],
            torch.autograd.grad(loss, list(model.parameters()), allow_unused=True),
            strict=True,
        )
    )
    for name in (
        "decoder.attention.query_proj.weight",
        "decoder.attention.v.weight",
        "decoder.layers.0.weight_hh",
    ):
        assert grads[name] is not None and grads[name].abs().sum() > 0, name


@pytest.mark.parametrize("attention", ["softmax", "entmax15", "sparsemax"])
@pytest.mark.parametrize("layers", [1, 2])
def test_fused_recurrence_equals_the_decoder_step_run_t_times(attention, layers):
    """The decoder's private fast path (inflect.nn.recurrence.decoder_recurrence) against T
    calls of its one step implementation (Decoder.step, autograd through plain tensor
    operations): h̃ and attention of every step, and the gradients of every parameter under
    random output gradients, in float64."""
    model = _model(attention, layers, copy=False)
    batch = _batch(model)
    model.train()  # dropout is 0: both paths are deterministic
    decoder = model.decoder
    T = batch.target_in.shape[1]
    torch.manual_seed(7)
    d_feeds = torch.randn(3, T, 6, dtype=torch.float64)
    d_attns = torch.randn(3, T, batch.source.shape[1], dtype=torch.float64)
    params = list(model.parameters())

    def outputs(fused: bool):
        state = model.encode(batch)
        gates = decoder.target_embedding(batch.target_in) @ state.weights.embedding.t()
        if fused:
            alpha = decoder.attention.fixed_alpha
            src = state.source
            feeds, attn = decoder_recurrence(
                RecurrenceSpec(alpha, 0.0), gates, src.gate_bias, state.h, state.c, src.keys,
                src.memory, src.mask, decoder.combine.weight, state.weights.layers,
                state.weights.biases,
            )
        else:
            steps = []
            for g in gates.unbind(1):
                feed, attn, state = decoder.step(state, None, g)
                steps.append((feed, attn))
            feeds = torch.stack([f for f, _ in steps], 1)
            attn = torch.stack([a for _, a in steps], 1)
        total = (feeds * d_feeds).sum() + (attn.double() * d_attns).sum()
        return feeds, attn, torch.autograd.grad(total, params, allow_unused=True)

    fused_feeds, fused_attn, fused_grads = outputs(True)
    ref_feeds, ref_attn, ref_grads = outputs(False)
    assert fused_feeds.dtype == ref_feeds.dtype == torch.float64
    if attention != "softmax":
        assert (ref_attn == 0).any()  # the sparse case is exercised
        assert torch.equal(fused_attn == 0, ref_attn == 0)  # the same supports
    # the attention mapping runs in float32 on both paths (model convention)
    torch.testing.assert_close(fused_attn, ref_attn, atol=1e-6, rtol=0)
    torch.testing.assert_close(fused_feeds, ref_feeds, atol=1e-6, rtol=0)
    names = [n for n, _ in model.named_parameters()]
    for name, a, b in zip(names, fused_grads, ref_grads, strict=True):
        if b is None:
            assert a is None or torch.all(a == 0), name
            continue
        assert a is not None, name
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=name)


@pytest.mark.parametrize("fused", [False, True])
def test_lstm_cell_equals_torch_lstm_cell(fused):
    """Both forms of inflect.nn.cell.lstm_cell against nn.LSTMCell in float64; the fused form's
    hand-written backward against autograd through the textbook equations."""
    torch.manual_seed(2)
    cell = torch.nn.LSTMCell(5, 4).double()
    x = torch.randn(3, 5, dtype=torch.float64)
    h = torch.randn(3, 4, dtype=torch.float64)
    c = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    gates = (x @ cell.weight_ih.T + cell.bias_ih + h @ cell.weight_hh.T + cell.bias_hh).detach()
    gates.requires_grad_(True)
    ref_h, ref_c = cell(x, (h, c))
    ours_h, ours_c, s, tc = lstm_cell(gates, c, gate_scale(4, gates) if fused else None)
    torch.testing.assert_close(ours_h, ref_h, atol=1e-12, rtol=0)
    torch.testing.assert_close(ours_c, ref_c, atol=1e-12, rtol=0)
    if not fused:
        return
    dh, dc = torch.randn_like(ref_h), torch.randn_like(ref_c)
    i, f, g, o = gates.chunk(4, dim=-1)  # autograd through the textbook equations
    c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h_new = torch.sigmoid(o) * torch.tanh(c_new)
    ref_dgates, ref_dc = torch.autograd.grad((h_new * dh).sum() + (c_new * dc).sum(), [gates, c])
    d_gates, d_c = lstm_cell_backward(dh, dc, s.detach(), tc.detach(), c.detach(),
                                      gate_slope(4, gates))
    torch.testing.assert_close(d_gates, ref_dgates, atol=1e-12, rtol=0)
    torch.testing.assert_close(d_c, ref_dc, atol=1e-12, rtol=0)
