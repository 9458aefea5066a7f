"""Quantized storage of shipped weights: int8 with a scale per row
(:func:`inflect.nn.checkpoint.quantize_int8`) and 4 bits with a scale per group of a row
(:func:`inflect.nn.checkpoint.quantize_int4`). The error bounds of symmetric quantization, the
packed bytes of a hand-worked example, and a checkpoint stored either way loads as float32."""

from __future__ import annotations

import pytest
import synthetic
import torch
from test_train import tiny_config

from inflect.nn.checkpoint import (
    INT4_GROUPS,
    INT8_ROWS,
    SCALE_SUFFIX,
    SHAPE_SUFFIX,
    CheckpointError,
    dequantize,
    load_checkpoint,
    load_tensors,
    quantize_int4,
    quantize_int8,
    save_tensors,
)
from inflect.training.items import TrainingData
from inflect.training.trainer import train


def test_per_row_int8_keeps_every_weight_within_half_a_step():
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(40, 64, generator=gen, dtype=torch.float64) * torch.linspace(0.01, 3, 40)[:, None]
    w[7] = 0.0  # an all-zero row: scale 0, stays exactly 0
    bias = torch.randn(40, generator=gen)
    q = quantize_int8({"w": w.float(), "b": bias, "ids": torch.arange(3)})
    assert q["w"].dtype == torch.int8 and q["b"].dtype == torch.float16
    assert q["ids"].dtype == torch.int64
    # the step, computed here in float64 from the definition: max |row| / 127 (stored in float16)
    step = (w.abs().amax(dim=1) / 127).to(torch.float16).double()
    assert torch.equal(q["w" + SCALE_SUFFIX].double(), step)
    back = dequantize(q, {"quantized": INT8_ROWS})
    assert set(back) == {"w", "b", "ids"} and back["w"].dtype == torch.float32
    error = (back["w"].double() - w).abs()
    assert (error <= step[:, None] / 2 + 1e-6 * w.abs()).all()
    assert torch.equal(back["w"][7], torch.zeros(64))
    assert q["w"].abs().max() <= 127


def _trained(tmp_path):
    """The float32 tensors and metadata of a tiny model trained one epoch, and its file."""
    out = tmp_path / "run"
    train(tiny_config(), TrainingData(synthetic.items(48, seed=1), synthetic.items(8, seed=2),
                                      description={"languages": ["synth"]}),
          out, device="cpu", max_epochs=1, precision="float32")
    return (*load_tensors(out / "model.safetensors"), out / "model.safetensors")


def test_an_int8_checkpoint_loads_and_a_scale_missing_is_named(tmp_path):
    tensors, meta, original = _trained(tmp_path)
    small = tmp_path / "int8.safetensors"
    save_tensors(small, quantize_int8(tensors), meta | {"quantized": INT8_ROWS})
    assert small.stat().st_size < 0.4 * original.stat().st_size
    model = load_checkpoint(small).network
    for name, value in model.state_dict().items():
        original = tensors[name]
        if original.is_floating_point():
            step = original.abs().max() / 127
            assert (value - original).abs().max() <= step, name
    broken = quantize_int8(tensors)
    del broken[next(k for k in broken if k.endswith(SCALE_SUFFIX))]
    save_tensors(tmp_path / "broken.safetensors", broken, meta | {"quantized": INT8_ROWS})
    try:
        load_checkpoint(tmp_path / "broken.safetensors")
    except CheckpointError as exc:
        assert "lacks its per-row scales" in str(exc)
    else:
        raise AssertionError("a missing scale was not refused")


def test_int4_packs_a_hand_worked_row():
    # group 2: [1, -0.5] has step 1/7 (float16: 0.142822...), so q = [7, round(-3.5) = -4];
    # [0.25, 0] has step 0.25/7, q = [7, 0]; stored q + 8 = [15, 4, 15, 8], the even column in
    # the low nibble: 15 + 4 * 16 = 79 and 15 + 8 * 16 = 143.
    q = quantize_int4({"w": torch.tensor([[1.0, -0.5, 0.25, 0.0]])}, group=2, min_size=1)
    assert q["w"].dtype == torch.uint8 and q["w"].tolist() == [[79, 143]]
    steps = torch.tensor([1 / 7, 0.25 / 7], dtype=torch.float64).to(torch.float16)
    assert torch.equal(q["w" + SCALE_SUFFIX], steps[None, :])
    assert q["w" + SHAPE_SUFFIX].tolist() == [4]
    back = dequantize(q, {"quantized": INT4_GROUPS})["w"].double()
    q_by_hand = torch.tensor([[7, -4, 7, 0]], dtype=torch.float64)
    expected = q_by_hand * steps.double().repeat_interleave(2)
    assert torch.equal(back, expected)


def test_int4_keeps_every_weight_within_half_a_step_of_its_group():
    gen = torch.Generator().manual_seed(1)
    # 3-D, and 45 weights a row: the last group of each row is padded (32 + 13)
    w = torch.randn(12, 9, 5, generator=gen, dtype=torch.float64)
    w *= torch.logspace(-3, 1, 12, dtype=torch.float64)[:, None, None]
    w[4] = 0.0
    w[6, :2] = 0.0  # a row's first group zero, its second not
    q = quantize_int4({"w": w.float(), "b": torch.randn(12, generator=gen)}, group=32, min_size=1)
    assert q["w"].shape == (12, 32) and q["w" + SCALE_SUFFIX].shape == (12, 2)
    assert q["b"].dtype == torch.float16
    rows = w.reshape(12, 45)
    # the step of each weight, from the definition: max |group| / 7, stored in float16
    step = torch.stack([rows[:, :32].abs().amax(1), rows[:, 32:].abs().amax(1)], dim=1) / 7
    step = step.to(torch.float16).double()
    per_weight = torch.cat([step[:, :1].expand(12, 32), step[:, 1:].expand(12, 13)], dim=1)
    back = dequantize(q, {"quantized": INT4_GROUPS})
    assert back["w"].shape == w.shape and back["w"].dtype == torch.float32
    error = (back["w"].double().reshape(12, 45) - rows).abs()
    assert (error <= per_weight / 2 + 1e-6 * rows.abs()).all()
    assert torch.equal(back["w"][4], torch.zeros(9, 5))
    assert (error / rows.abs().amax(1, keepdim=True).clamp_min(1e-12)).max() > 0.005  # 4 bits
    with pytest.raises(ValueError, match="even"):
        quantize_int4({"w": w.float()}, group=3)


def test_an_int4_checkpoint_loads_and_a_shape_missing_is_named(tmp_path):
    tensors, meta, _ = _trained(tmp_path)
    small = tmp_path / "int4.safetensors"
    save_tensors(small, quantize_int4(tensors), meta | {"quantized": INT4_GROUPS})
    int8 = tmp_path / "int8.safetensors"
    save_tensors(int8, quantize_int8(tensors), meta | {"quantized": INT8_ROWS})
    assert small.stat().st_size < 0.7 * int8.stat().st_size
    model = load_checkpoint(small).network
    for name, value in model.state_dict().items():
        original = tensors[name]
        if original.is_floating_point():
            step = original.abs().max() / 7
            assert (value - original).abs().max() <= step / 2 + 1e-3 * step, name
    broken = quantize_int4(tensors)
    del broken[next(k for k in broken if k.endswith(SHAPE_SUFFIX))]
    save_tensors(tmp_path / "broken.safetensors", broken, meta | {"quantized": INT4_GROUPS})
    with pytest.raises(CheckpointError,
                       match=r"int4 tensor \S+ lacks its per-group scales or its shape"):
        load_checkpoint(tmp_path / "broken.safetensors")
    mismatched = quantize_int4(tensors)
    name = next(k for k, v in mismatched.items() if v.dtype == torch.uint8)
    mismatched[name + SHAPE_SUFFIX] = mismatched[name + SHAPE_SUFFIX] * 3  # more than stored
    save_tensors(tmp_path / "mismatched.safetensors", mismatched,
                 meta | {"quantized": INT4_GROUPS})
    with pytest.raises(CheckpointError, match=r"does not match its scales"):
        load_checkpoint(tmp_path / "mismatched.safetensors")
