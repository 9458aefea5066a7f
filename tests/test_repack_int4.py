"""recipes/sigmorphon2018/repack_int4.py: a shipped 4-bit model in the padded layout (before
2026-12-07) is rewritten in the tight one; its weights, loaded, are the same bit for bit."""

from __future__ import annotations

import pytest
import torch
from test_checkpoint_quantized import _padded_layout, _trained
from test_recipe_sigmorphon import _load_ship

from inflect.nn.checkpoint import GROUP_SUFFIX, INT4_GROUPS, load_checkpoint, save_tensors


def _padded_checkpoint(tensors: dict, meta: dict, path) -> None:
    """``tensors`` quantized in 4 bits (groups of 32) in the padded layout, saved to ``path``."""
    out = {}
    for name, t in tensors.items():
        if t.is_floating_point() and t.dim() >= 2 and t.numel() >= 1024:
            stored = _padded_layout(t.detach().reshape(t.shape[0], -1), 32)
            stored["w:shape"] = torch.tensor(t.shape[1:])
            out |= {name + k[1:]: v for k, v in stored.items()}
        else:
            out[name] = t.detach().to(torch.float16) if t.is_floating_point() else t
    save_tensors(path, out, meta | {"quantized": INT4_GROUPS})


def test_repack_rewrites_the_named_models_and_keeps_their_weights(tmp_path, capsys):
    repack = _load_ship("repack_int4")
    tensors, meta, _ = _trained(tmp_path)
    # 45 columns a row: padded to 64 nibbles in the old layout, 46 in the tight one
    tensors = tensors | {"extra.weight": torch.randn(40, 45, generator=torch.Generator()
                                                      .manual_seed(2))}
    models = tmp_path / "models"
    (models / "a").mkdir(parents=True)
    (models / "b").mkdir()
    _padded_checkpoint(tensors, meta, models / "a" / "member-1.safetensors")
    _padded_checkpoint(tensors, meta, models / "b" / "member-1.safetensors")
    (models / "registry.toml").write_text(
        '[model.a]\nmembers = ["a/member-1.safetensors"]\n'
        '[model.b]\nmembers = ["b/member-1.safetensors"]\n', encoding="utf-8")
    from inflect.nn.checkpoint import dequantize, load_tensors

    old_tensors, old_meta = load_tensors(models / "a" / "member-1.safetensors")
    before = dequantize(old_tensors, old_meta)
    size_a = (models / "a" / "member-1.safetensors").stat().st_size
    size_b = (models / "b" / "member-1.safetensors").stat().st_size

    repack.main(["--models-dir", str(models), "a"])

    new_tensors, new_meta = load_tensors(models / "a" / "member-1.safetensors")
    assert new_meta == old_meta
    assert new_tensors["extra.weight"].shape == (40, 23)  # 45 weights: 22.5 bytes, not 32
    assert new_tensors["extra.weight" + GROUP_SUFFIX].tolist() == [32]
    after = dequantize(new_tensors, new_meta)
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    # 40 rows of 9 bytes fewer, less the header entry of the group tensor
    assert size_a - 360 < (models / "a" / "member-1.safetensors").stat().st_size < size_a
    assert (models / "b" / "member-1.safetensors").stat().st_size == size_b  # not named
    assert "a: a/member-1.safetensors" in capsys.readouterr().out
    # the model loads (its own weights, without extra.weight, which no network has)
    del new_tensors["extra.weight"], new_tensors["extra.weight:scale"]
    del new_tensors["extra.weight:shape"], new_tensors["extra.weight" + GROUP_SUFFIX]
    save_tensors(tmp_path / "loadable.safetensors", new_tensors, new_meta)
    assert load_checkpoint(tmp_path / "loadable.safetensors").network is not None

    # a second run finds nothing to do
    size = (models / "a" / "member-1.safetensors").stat().st_size
    repack.main(["--models-dir", str(models), "a"])
    assert (models / "a" / "member-1.safetensors").stat().st_size == size
    with pytest.raises(SystemExit, match="has no model c"):
        repack.main(["--models-dir", str(models), "c"])
