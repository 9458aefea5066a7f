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
    GROUP_SUFFIX,
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
    repack_int4,
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
    # 3-D, and 45 weights a row: two groups (32 + 13), 23 bytes (the last nibble a zero)
    w = torch.randn(12, 9, 5, generator=gen, dtype=torch.float64)
    w *= torch.logspace(-3, 1, 12, dtype=torch.float64)[:, None, None]
    w[4] = 0.0
    w[6, :2] = 0.0  # a row's first group zero, its second not
    q = quantize_int4({"w": w.float(), "b": torch.randn(12, generator=gen)}, group=32, min_size=1)
    assert q["w"].shape == (12, 23) and q["w" + SCALE_SUFFIX].shape == (12, 2)
    assert q["w" + GROUP_SUFFIX].tolist() == [32] and (q["w"][:, -1] >> 4 == 8).all()
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


def _padded_layout(w: torch.Tensor, group: int) -> dict[str, torch.Tensor]:
    """The 4-bit layout before 2026-12-07, built from its definition in float64: each row of
    ``w`` (2-D) zero-padded to a multiple of ``group``, q + 8 packed two to a byte, no group
    tensor."""
    rows, cols = w.shape
    padded = -(-cols // group) * group
    full = torch.zeros(rows, padded, dtype=torch.float64)
    full[:, :cols] = w.double()
    groups = full.reshape(rows, -1, group)
    scale = (groups.abs().amax(dim=2) / 7).to(torch.float16)
    step = torch.where(scale > 0, scale.double(), torch.ones_like(scale.double()))
    q = (torch.clamp(torch.round(groups / step[..., None]), -7, 7) + 8).reshape(rows, padded)
    q = q.to(torch.uint8)
    return {"w": q[:, 0::2] + q[:, 1::2] * 16, "w" + SCALE_SUFFIX: scale,
            "w" + SHAPE_SUFFIX: torch.tensor([cols])}


def test_repack_int4_drops_the_padding_and_keeps_every_weight(tmp_path):
    gen = torch.Generator().manual_seed(3)
    w = torch.randn(6, 45, generator=gen, dtype=torch.float64)
    legacy = _padded_layout(w, 32)
    assert legacy["w"].shape == (6, 32)  # 64 nibbles a row, 19 of them padding
    before = dequantize(legacy, {"quantized": INT4_GROUPS})["w"]
    tight = repack_int4(legacy)
    assert tight["w"].shape == (6, 23) and tight["w" + GROUP_SUFFIX].tolist() == [32]
    assert torch.equal(tight["w" + SCALE_SUFFIX], legacy["w" + SCALE_SUFFIX])
    after = dequantize(tight, {"quantized": INT4_GROUPS})["w"]
    assert torch.equal(before, after)  # bit for bit
    # and both are what quantize_int4 stores today for the same weights
    fresh = dequantize(quantize_int4({"w": w.float()}, group=32, min_size=1),
                       {"quantized": INT4_GROUPS})["w"]
    assert torch.equal(fresh, after)
    assert repack_int4(tight)["w"] is tight["w"]  # already tight: as it is
    # an even row length: 64 weights, no padding in either layout, the same bytes
    even = _padded_layout(torch.randn(3, 64, generator=gen, dtype=torch.float64), 32)
    assert torch.equal(repack_int4(even)["w"], even["w"])
    broken = dict(legacy)
    broken["w" + SHAPE_SUFFIX] = torch.tensor([70])  # more weights than the 64 stored
    with pytest.raises(CheckpointError, match="does not match its scales"):
        repack_int4(broken, tmp_path / "x.safetensors")


def test_a_checkpoint_in_the_padded_layout_still_loads(tmp_path):
    tensors, meta, _ = _trained(tmp_path)
    tight = tmp_path / "tight.safetensors"
    save_tensors(tight, quantize_int4(tensors), meta | {"quantized": INT4_GROUPS})
    legacy_tensors = {}
    for name, t in tensors.items():
        if t.is_floating_point() and t.dim() >= 2 and t.numel() >= 1024:
            legacy = _padded_layout(t.detach().reshape(t.shape[0], -1), 32)
            legacy["w" + SHAPE_SUFFIX] = torch.tensor(t.shape[1:])
            legacy_tensors |= {name + k[1:]: v for k, v in legacy.items()}
        else:
            legacy_tensors[name] = t.detach().to(torch.float16) if t.is_floating_point() else t
    padded = tmp_path / "padded.safetensors"
    save_tensors(padded, legacy_tensors, meta | {"quantized": INT4_GROUPS})
    a, b = load_checkpoint(tight).network, load_checkpoint(padded).network
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert torch.equal(x, y), name
