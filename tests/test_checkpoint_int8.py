"""int8 storage of shipped weights (:func:`inflect.nn.checkpoint.quantize_int8`): the error bound
of symmetric per-row quantization, and a checkpoint stored that way loads as float32."""

from __future__ import annotations

import synthetic
import torch
from test_train import tiny_config

from inflect.nn.checkpoint import (
    INT8_ROWS,
    SCALE_SUFFIX,
    CheckpointError,
    dequantize,
    load_checkpoint,
    load_tensors,
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


def test_an_int8_checkpoint_loads_and_a_scale_missing_is_named(tmp_path):
    out = tmp_path / "run"
    train(tiny_config(), TrainingData(synthetic.items(48, seed=1), synthetic.items(8, seed=2),
                                      description={"languages": ["synth"]}),
          out, device="cpu", max_epochs=1, precision="float32")
    tensors, meta = load_tensors(out / "model.safetensors")
    small = tmp_path / "int8.safetensors"
    save_tensors(small, quantize_int8(tensors), meta | {"quantized": INT8_ROWS})
    assert small.stat().st_size < 0.4 * (out / "model.safetensors").stat().st_size
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
