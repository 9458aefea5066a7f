"""Store shipped 4-bit models again in the tight layout: the same weights in fewer bytes.

Until 2026-12-07 :func:`inflect.nn.checkpoint.quantize_int4` zero-padded each row of a
quantized tensor to a multiple of its group (a row of 200 weights took 112 bytes, not 100:
about 7% of a shipped per-language model). :func:`inflect.nn.checkpoint.repack_int4` drops the
padding; the stored values and scales stay, so every weight is the same float32 after loading,
bit for bit, and so are the model's predictions and its dev scores in the registry. This
script rewrites the member files of the named models in place (each file written to a
temporary file and renamed; each checked to dequantize to the same weights before it
replaces the old one), and leaves the registry as it is.

    python recipes/sigmorphon2018/repack_int4.py --models-dir inflect/models basque-medium ...

Each rewrite adds the file to git's history again: name only models whose weights were
committed once (the project keeps one model's weights committed at most twice).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def repack_file(path: Path) -> tuple[int, int]:
    """Rewrite one member file in the tight layout (a file already tight, or not in 4 bits, is
    left as it is). Returns the bytes before and after.

    Raises:
        SystemExit: the repacked weights differ from the stored ones (never expected).
        CheckpointError: a file that is not a readable checkpoint.
    """
    import torch

    from inflect.nn.checkpoint import (
        INT4_GROUPS,
        dequantize,
        load_tensors,
        repack_int4,
        save_tensors,
    )

    before = path.stat().st_size
    tensors, meta = load_tensors(path)
    if meta.get("quantized") != INT4_GROUPS:
        return before, before
    tight = repack_int4(tensors, path)
    if tight.keys() == tensors.keys():  # repack_int4 adds a group tensor to each row it packs
        return before, before
    old, new = dequantize(tensors, meta, path), dequantize(tight, meta, path)
    if old.keys() != new.keys() or not all(torch.equal(old[k], new[k]) for k in old):
        raise SystemExit(f"{path}: the repacked weights differ from the stored ones; left as it is")
    save_tensors(path, tight, meta)
    return before, path.stat().st_size


def main(argv: list[str] | None = None) -> None:
    import tomllib

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models-dir", default="inflect/models",
                        help="the models folder holding registry.toml (default: inflect/models)")
    parser.add_argument("models", nargs="+", metavar="NAME",
                        help="registry model names ([model.NAME]) whose members to rewrite")
    args = parser.parse_args(argv)
    folder = Path(args.models_dir)
    registry = tomllib.loads((folder / "registry.toml").read_text(encoding="utf-8"))["model"]
    unknown = [n for n in args.models if n not in registry]
    if unknown:
        raise SystemExit(f"{folder / 'registry.toml'} has no model {', '.join(unknown)}")
    total_before = total_after = 0
    for name in args.models:
        for member in registry[name]["members"]:
            before, after = repack_file(folder / member)
            total_before, total_after = total_before + before, total_after + after
            if after != before:
                print(f"{name}: {member} {before:,} -> {after:,} bytes")
    print(f"{len(args.models)} model(s): {total_before / 1e6:.2f} -> {total_after / 1e6:.2f} MB",
          file=sys.stderr)


if __name__ == "__main__":
    main()
