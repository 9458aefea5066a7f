"""ship.py's storage: each member made ready to ship (records, trimmed, quantized), written in
the models folder, and the weight files no model lists removed.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from ship_candidates import Models, checkpoint_file

#: Weights per float16 scale of a model stored with ``--int4``.
INT4_GROUP = 32


def prepared(models: Models, per_language: set[str], results: Path, data_dir: str | None,
             int8: bool, int4: frozenset[str] = frozenset(),
             requantize: frozenset[str] = frozenset()) -> Models:
    """The same models with every member made ready to ship, written to
    ``results/prepared/NAME/`` (rewritten when the member's checkpoint changed: the copy records
    the source's SHA-256 and what was done):

    * the records a search takes from the training data (output length limits and each
      language's output alphabet, :func:`inflect.training.items.record_training_data`), for a
      checkpoint written before the trainer made them;
    * a per-language model (``per_language``) restricted to the symbols, features and language
      of its training data (:func:`inflect.nn.trim.restrict_to_items`: a warm start's
      multilingual rows dropped);
    * with ``int8``, int8 weights (:func:`inflect.nn.checkpoint.quantize_int8`; an int8 member
      stays as it is); a model named in ``int4``, 4-bit weights with a float16 scale per 32
      (:func:`inflect.nn.checkpoint.quantize_int4`), from a float checkpoint only, except
      for a model named in ``requantize`` (``--int4-kept``: a shipped int8 model whose float
      checkpoint is gone), whose int8 weights are dequantized first (recorded as
      ``"from": "int8-rows"``).

    A member that is itself such a copy, prepared the same way (a shipped member shipped again),
    is taken as it is: preparing it again would change its bytes and so its cached scores.

    Raises:
        SystemExit: a member stored in 4 bits that is to be prepared another way, or a model
            named in ``int4`` whose member is already quantized (quantizing twice adds the
            errors: give its queue's float checkpoint).
    """
    from inflect.io.atomic import atomic_write, sha256_of
    from inflect.nn.checkpoint import INT8_ROWS, load_metadata

    out: Models = {}
    for name, paths in models.items():
        out[name] = []
        for k, path in enumerate(paths, 1):
            source = checkpoint_file(path)
            target = results / "prepared" / name / f"member-{k}.safetensors"
            record = {"source_sha256": sha256_of(source), "recorded": True,
                      "trimmed": name in per_language, "int8": int8 and name not in int4}
            if name in int4 or name in requantize:
                record["int4"] = INT4_GROUP
            if name in requantize:
                record["from"] = INT8_ROWS
            already = load_metadata(source).get("prepared_from")
            if already and {**already, "source_sha256": None} == {**record, "source_sha256": None}:
                # a member shipped before, prepared the same way: shipped again as it is
                if not target.is_file() or load_metadata(target).get("prepared_from") != already:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write(target, functools.partial(shutil.copyfile, source))
                out[name].append(target)
                continue
            if not target.is_file() or load_metadata(target).get("prepared_from") != record:
                print(f"{name}: preparing member {k} ({source})", flush=True)
                _prepare(name, source, target, record, data_dir)
            out[name].append(target)
    return out


def _prepare(name: str, source: Path, target: Path, record: dict, data_dir: str | None) -> None:
    """Write member ``source`` of model ``name`` to ``target``, prepared as ``record`` says (see
    :func:`prepared`): the training data's records, trimmed to its data (``record["trimmed"]``),
    in 4 bits (``"int4"`` in ``record``) or int8 (``record["int8"]``); ``record`` is stored as
    its ``prepared_from``."""
    from inflect.nn.checkpoint import (
        INT4_GROUPS,
        INT8_ROWS,
        dequantize,
        load_tensors,
        quantize_int4,
        quantize_int8,
        save_tensors,
    )
    from inflect.nn.model import Seq2Seq
    from inflect.nn.trim import restrict_to_items
    from inflect.training.config import Config
    from inflect.training.items import load_data, record_training_data

    four = "int4" in record
    tensors, meta = load_tensors(source)
    stored_as = meta.get("quantized")
    if stored_as == INT8_ROWS and record.get("from") == INT8_ROWS:
        tensors, stored_as = dequantize(tensors, meta, source), None
        meta = {k: v for k, v in meta.items() if k not in ("quantized", "prepared_from")}
    if stored_as == INT4_GROUPS or (stored_as and four):
        raise SystemExit(
            f"{name}: {source} is stored in {stored_as}; to store it "
            f"{'in int4' if four else 'otherwise'}, give the float "
            "checkpoint it was prepared from (its queue's run folder)")
    data = (meta.get("training") or {}).get("data") or {}
    languages = "all" if data.get("smaller_settings") else data["languages"]
    items = load_data(languages, data["setting"], data_dir).train
    network = Seq2Seq.from_metadata(meta["model"])
    record_training_data(network, items)
    # the network's fields and, beside them, the training procedure's, as stored
    settings = Config.from_dict(meta["model"]["config"]).train.to_dict()
    meta = meta | {"model": network.metadata(settings)}
    if record["trimmed"]:
        tensors, meta = restrict_to_items(tensors, meta, items)
    if four:
        tensors = quantize_int4(tensors, group=INT4_GROUP)
        meta = meta | {"quantized": INT4_GROUPS}
    elif record["int8"]:
        tensors, meta = quantize_int8(tensors), meta | {"quantized": INT8_ROWS}
    target.parent.mkdir(parents=True, exist_ok=True)
    save_tensors(target, tensors, meta | {"prepared_from": record})


def store_members(name: str, paths: list[Path], out_dir: Path, half: bool,
                  folder_name: str | None = None) -> list[str]:
    """Write the members to ``out_dir/FOLDER/member-k.safetensors`` (FOLDER: ``folder_name``,
    default NAME); their paths relative to ``out_dir``. Every member is read before anything is
    written (the members may already lie in ``out_dir/FOLDER``: re-shipping a shipped model),
    into a new folder that then replaces the old one."""
    import torch

    from inflect.nn.checkpoint import load_tensors, save_tensors

    members = [load_tensors(checkpoint_file(path)) for path in paths]
    name = folder_name or name
    folder = out_dir / name
    staging = folder.parent / f".{folder.name}.new"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    rel = []
    for k, (tensors, meta) in enumerate(members, 1):
        if half:
            tensors = {
                n: (t.to(torch.float16) if t.is_floating_point() else t) for n, t in tensors.items()
            }
        save_tensors(staging / f"member-{k}.safetensors", tensors, meta)
        rel.append(f"{name}/member-{k}.safetensors")
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    return rel


def remove_unshipped(out_dir: Path, members: list[str]) -> None:
    """Remove the weight files under ``out_dir`` that no shipped model lists (a model dropped
    or replaced), and the folders they leave empty."""
    keep = {(out_dir / m).resolve() for m in members}
    for path in sorted(out_dir.rglob("*.safetensors")):
        if path.resolve() not in keep:
            print(f"removed {path} (no longer shipped)")
            path.unlink()
    for folder in sorted((p for p in out_dir.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
