"""The encoder is a seam: ``ModelConfig.encoder`` chooses one, :func:`build_encoder` builds it,
the decoder starts from the encoder's bridge, and the checkpoint layout's BiLSTM rows hold for
the BiLSTM only. A second encoder (a transformer) trains, is saved and loaded, and resumes.

The BiLSTM's bridge is checked against ``torch.nn.LSTM`` over a packed sequence (an oracle); the
memory bridge against its definition in float64.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import synthetic
import torch
from safetensors import safe_open
from synthetic import item_batch
from torch import nn

from inflect.decoding.greedy import greedy
from inflect.nn import layout
from inflect.nn.checkpoint import load_checkpoint, load_metadata, save_model
from inflect.nn.config import ENCODERS, ModelConfig
from inflect.nn.encoder import BiLSTMEncoder, MemoryBridge
from inflect.nn.encoders import ENCODER_CLASSES, build_encoder
from inflect.nn.transformer import TransformerEncoder, sinusoids
from inflect.training.config import Config
from inflect.training.items import TrainingData
from inflect.training.trainer import train
from inflect.training.warm_start import build_model

REPO = Path(__file__).resolve().parent.parent
GERMAN = REPO / "inflect" / "models" / "german-high" / "member-1.safetensors"


def _tables(E=8, D=6, symbols=12):
    torch.manual_seed(0)
    return (nn.Embedding(symbols, E, padding_idx=0), nn.Embedding(5, D, padding_idx=0),
            nn.Embedding(2, D))


def _inputs():
    source = torch.tensor([[4, 5, 6, 7], [8, 9, 0, 0], [10, 0, 0, 0]])
    features = torch.tensor([[1, 2], [3, 0], [4, 4]])
    return source, source != 0, features, torch.tensor([0, 1, 1])


def test_every_encoder_name_has_its_class_and_an_unknown_name_is_refused():
    assert tuple(ENCODER_CLASSES) == ENCODERS
    for name, cls in ENCODER_CLASSES.items():
        encoder = build_encoder(ModelConfig(emb_dim=8, hidden_dim=16, layers=1, encoder=name),
                                *_tables())
        assert type(encoder) is cls
    with pytest.raises(ValueError, match=r"config encoder must be one of .*'rnn'"):
        ModelConfig(encoder="rnn")


def test_the_bilstm_starts_the_decoder_from_its_final_states():
    """h, c per layer: the forward direction's state at the row's last symbol beside the
    backward direction's at its first, as nn.LSTM gives them over a packed sequence."""
    config = ModelConfig(emb_dim=8, hidden_dim=10, layers=2, dropout=0.0)
    encoder = BiLSTMEncoder(config, *_tables()).eval()
    source, mask, features, languages = _inputs()
    out = encoder(source, mask, features, languages)
    x = torch.cat([encoder.source_embedding(source),
                   out.condition.unsqueeze(1).expand(3, 4, -1)], dim=-1)
    packed = nn.utils.rnn.pack_padded_sequence(x, mask.sum(1), batch_first=True,
                                               enforce_sorted=False)
    memory, (h, c) = encoder.lstm(packed)
    memory, _ = nn.utils.rnn.pad_packed_sequence(memory, batch_first=True, total_length=4)
    # nn.LSTM's states: (layers * 2, B, H / 2), forward then backward per layer
    expect_h = torch.cat([h[0::2], h[1::2]], dim=-1)
    expect_c = torch.cat([c[0::2], c[1::2]], dim=-1)
    torch.testing.assert_close(out.memory, memory)
    torch.testing.assert_close(out.h, expect_h)
    torch.testing.assert_close(out.c, expect_c)


def test_the_memory_bridge_is_a_map_of_the_mean_over_real_positions():
    torch.manual_seed(1)
    bridge = MemoryBridge(hidden_dim=4, layers=2).double()
    memory = torch.randn(2, 3, 4, dtype=torch.float64)
    mask = torch.tensor([[True, True, False], [True, True, True]])
    memory = memory * mask.unsqueeze(-1)
    h, c = bridge(memory, mask)
    assert h.shape == c.shape == (2, 2, 4)
    W, b = bridge.proj.weight, bridge.proj.bias
    for row, n in ((0, 2), (1, 3)):
        mean = sum(memory[row, s] for s in range(n)) / n
        out = W @ mean + b  # 2 * L * H: h of layer 0, 1, then c of layer 0, 1
        for layer in range(2):
            torch.testing.assert_close(h[layer, row], torch.tanh(out[4 * layer: 4 * layer + 4]))
            torch.testing.assert_close(c[layer, row], out[8 + 4 * layer: 8 + 4 * layer + 4])


def test_sinusoids_are_the_papers():
    table = sinusoids(5, 6)
    p, i = 3, 1  # column 2i and 2i + 1 of position p
    angle = torch.tensor(p / 10000 ** (2 * i / 6), dtype=torch.float64)
    assert table[p, 2 * i].item() == pytest.approx(torch.sin(angle).item(), abs=1e-6)
    assert table[p, 2 * i + 1].item() == pytest.approx(torch.cos(angle).item(), abs=1e-6)


def test_the_transformer_memory_ignores_padding():
    config = ModelConfig(emb_dim=8, hidden_dim=10, layers=2, dropout=0.0, encoder="transformer")
    encoder = TransformerEncoder(config, *_tables()).eval()
    source, mask, features, languages = _inputs()
    with torch.no_grad():
        together = encoder(source, mask, features, languages)
        alone = encoder(source[1:2, :2], mask[1:2, :2], features[1:2], languages[1:2])
    assert together.memory.shape == (3, 4, 10) and together.h.shape == (2, 3, 10)
    assert torch.all(together.memory[1, 2:] == 0) and torch.all(together.memory[2, 1:] == 0)
    torch.testing.assert_close(together.memory[1, :2], alone.memory[0])
    torch.testing.assert_close(together.h[:, 1], alone.h[:, 0])
    torch.testing.assert_close(together.c[:, 1], alone.c[:, 0])


def test_the_bilstm_rows_of_the_layout_are_the_bilstm_s_only():
    assert ("encoder.", "encoder.lstm.") in layout.checkpoint_names("bilstm")
    assert layout.checkpoint_names("bilstm") == layout.CHECKPOINT_NAMES
    rows = layout.checkpoint_names("transformer")
    assert ("encoder.", "encoder.lstm.") not in rows and len(rows) == len(layout.CHECKPOINT_NAMES) - 1
    assert layout.module_path("encoder.input_proj.weight", rows) == "encoder.input_proj.weight"
    assert layout.module_path("encoder.weight_ih_l0") == "encoder.lstm.weight_ih_l0"
    # the shared rows rename a transformer model's embeddings and decoder as a BiLSTM model's
    model = build_model(Config.from_preset("tiny", encoder="transformer"), synthetic.items(20, 1))
    names = list(model.state_dict())
    assert names[:4] == ["source_embedding.weight", "target_embedding.weight",
                         "feature_embedding.weight", "language_embedding.weight"]
    assert "encoder.input_proj.weight" in names and "generator.weight" in names
    assert not any(n.startswith("encoder.lstm") for n in names)


def test_a_checkpoint_without_the_field_is_a_bilstm():
    assert "encoder" not in load_metadata(GERMAN)["model"]["config"]
    network = load_checkpoint(GERMAN).network
    assert type(network.encoder) is BiLSTMEncoder and network.config.encoder == "bilstm"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with safe_open(str(path), "pt") as f:
        for k in sorted(f.keys()):
            h.update(k.encode())
            h.update(f.get_tensor(k).contiguous().numpy().tobytes())
    return h.hexdigest()


def test_a_transformer_model_trains_saves_and_loads(tmp_path):
    """A few Adam steps lower the loss and reach every encoder weight; the checkpoint says
    "transformer", and the loaded model has the same weights and answers the same."""
    items = synthetic.items(48, seed=3)
    torch.manual_seed(0)
    model = build_model(Config.from_preset("tiny", encoder="transformer"), items)
    assert type(model.encoder) is TransformerEncoder
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    batch = item_batch(model, items)
    model.train()
    losses = []
    for _ in range(8):
        optimizer.zero_grad()
        loss, tokens = model.loss(batch)
        (loss / tokens).backward()
        if not losses:
            silent = [n for n, p in model.encoder.named_parameters() if p.grad is None
                      or not p.grad.abs().sum()]
            assert not silent, silent
        optimizer.step()
        losses.append(loss.item() / tokens)
    assert losses[-1] < 0.8 * losses[0], losses
    save_model(tmp_path / "m", model)
    assert load_metadata(tmp_path / "m" / "model.safetensors")["model"]["config"][
        "encoder"] == "transformer"
    loaded = load_checkpoint(tmp_path / "m").network
    assert type(loaded.encoder) is TransformerEncoder
    saved = model.state_dict()
    assert list(loaded.state_dict()) == list(saved)
    assert all(torch.equal(v, saved[k]) for k, v in loaded.state_dict().items())
    model.eval()
    search = item_batch(model, items[:6], targets=False)
    with torch.no_grad():
        again, first = greedy(loaded, search, 12), greedy(model, search, 12)
        assert [(h.tokens, h.log_prob) for h in again] == [(h.tokens, h.log_prob) for h in first]
        torch.testing.assert_close(loaded.loss(batch)[0], model.loss(batch)[0], rtol=0, atol=0)


def test_a_transformer_run_resumes_to_its_uninterrupted_weights(tmp_path):
    """The trainer's whole path with the second encoder: a run stopped after epoch 1 and
    resumed ends with the weights of the run that was not stopped (the optimizer state
    indexes the transformer's weights in the same order on both sides)."""
    data = TrainingData(synthetic.items(64, seed=5), synthetic.items(12, seed=6))
    config = Config.from_preset("tiny", encoder="transformer", max_epochs=2, seed=4)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        train(config, data, tmp_path / "whole", device="cpu")
        train(config, data, tmp_path / "parts", device="cpu", max_epochs=1)
        train(None, data, tmp_path / "parts", device="cpu", resume=True, max_epochs=2)
    finally:
        torch.set_num_threads(threads)
    whole, parts = (tmp_path / d / "model.safetensors" for d in ("whole", "parts"))
    assert _digest(whole) == _digest(parts)
    assert type(load_checkpoint(parts).network.encoder) is TransformerEncoder
