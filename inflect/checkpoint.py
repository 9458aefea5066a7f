"""Self-contained checkpoints: safetensors weights with their JSON description, written atomically.

A checkpoint folder holds

* ``model.safetensors`` — the selected (best-on-dev) weights. Its safetensors metadata key
  ``"sparse_inflect"`` holds one JSON document: format version, model config, vocabularies
  (source, target, UniMorph features, languages), the language specs
  (:meth:`inflect.languages.LanguageSpec.to_dict`), the codec that turns raw text into symbols
  where the run had one (:mod:`inflect.codec`; e.g. a SentencePiece model, base64), the training
  metrics and the software versions.
  Loading it needs no training data and executes no pickled code (safetensors holds only tensors).
* ``metrics.csv`` — one row per epoch (written by :mod:`inflect.train`).
* ``trainer_state.safetensors`` — what ``inflect train --resume`` needs: the weights at the last
  epoch boundary, the Adam state (tensors here, hyperparameters in the JSON metadata) and the
  loop's counters (epoch, learning rate, best accuracy, patience).

Every file is written to a temporary file in the same folder, then renamed over the target
(``os.replace``), so an interruption never leaves a half-written checkpoint.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from inflect.model import Seq2Seq, resolve_device

FORMAT = "sparse-inflect/1"
META_KEY = "sparse_inflect"
MODEL_FILE = "model.safetensors"
STATE_FILE = "trainer_state.safetensors"
METRICS_FILE = "metrics.csv"


def _umask_mode() -> int:
    """File mode 0o666 filtered by the process umask (mkstemp creates files 0o600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class CheckpointError(ValueError):
    """A checkpoint file is missing, unreadable or not a sparse-inflect checkpoint."""


def versions() -> dict[str, str]:
    """Versions of the software that wrote a checkpoint."""
    import safetensors

    from inflect import __version__

    return {
        "sparse-inflect": __version__,
        "torch": torch.__version__,
        "safetensors": safetensors.__version__,
        "python": platform.python_version(),
    }


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_tensors(
    path: str | os.PathLike[str], tensors: dict[str, torch.Tensor], meta: dict[str, Any]
) -> None:
    """Atomically write ``tensors`` with ``meta`` (JSON) under the metadata key ``sparse_inflect``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(fd)
    try:
        cpu = {k: v.detach().to("cpu").contiguous() for k, v in tensors.items()}
        save_file(cpu, tmp, metadata={META_KEY: json.dumps(meta, ensure_ascii=False)})
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_tensors(path: str | os.PathLike[str]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Read a file written by :func:`save_tensors`: (tensors on CPU, JSON metadata).

    Raises:
        CheckpointError: if the file is missing, unreadable, or lacks the metadata.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        with safe_open(str(path), framework="pt", device="cpu") as fh:
            raw = (fh.metadata() or {}).get(META_KEY)
            tensors = {k: fh.get_tensor(k) for k in fh.keys()}  # noqa: SIM118
    except CheckpointError:
        raise
    except Exception as exc:
        raise CheckpointError(f"{path}: not a readable safetensors file ({exc})") from None
    if raw is None:
        raise CheckpointError(f"{path}: safetensors file without {META_KEY!r} metadata")
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"{path}: metadata is not valid JSON ({exc})") from None
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
    return tensors, meta


def save_model(
    path: str | os.PathLike[str],
    model: Seq2Seq,
    *,
    languages: list[dict[str, Any]] | None = None,
    metrics: list[dict[str, Any]] | None = None,
    training: dict[str, Any] | None = None,
    state_dict: dict[str, torch.Tensor] | None = None,
    codec: dict[str, Any] | None = None,
) -> None:
    """Write a self-contained model checkpoint (``model.safetensors``) atomically.

    Args:
        path: the file (or a folder, then ``folder/model.safetensors``).
        model: the model (architecture and vocabularies are taken from it).
        languages: the language specs as :meth:`LanguageSpec.to_dict` dicts.
        metrics: per-epoch training metrics (JSON-able rows).
        training: other facts about the run (data, seed, best epoch, ...).
        state_dict: the weights to store (default: the model's current ones).
        codec: the :meth:`inflect.codec.Codec.to_dict` dict of the model's codec, or None.
    """
    path = Path(path)
    if path.suffix != ".safetensors":
        path = path / MODEL_FILE
    meta = {
        "format": FORMAT,
        "model": model.metadata(),
        "languages": languages or [],
        "metrics": metrics or [],
        "training": training or {},
        "versions": versions(),
    }
    if codec is not None:
        meta["codec"] = codec
    save_tensors(path, state_dict if state_dict is not None else model.state_dict(), meta)


def _language_specs(dicts: list[dict[str, Any]]) -> dict[str, Any]:
    """LanguageSpec objects by name (plain dicts where inflect.languages cannot rebuild them)."""
    try:
        from inflect.languages import LanguageSpec
    except ImportError:  # pragma: no cover - the languages room is always shipped
        return {d.get("name", str(i)): d for i, d in enumerate(dicts)}
    return {d["name"]: LanguageSpec.from_dict(d) for d in dicts}


def load_model(path: str | os.PathLike[str], device: str | torch.device = "cpu") -> Seq2Seq:
    """Load a model checkpoint written by :func:`save_model` (no data, no pickle).

    Args:
        path: a checkpoint folder or its ``model.safetensors``.
        device: where to put the weights (``"auto"``: CUDA when available, see
            :func:`inflect.model.resolve_device`).

    Returns:
        The :class:`~inflect.model.Seq2Seq` in eval mode, with two extra attributes:
        ``language_specs`` (dict name -> :class:`~inflect.languages.LanguageSpec`) and
        ``checkpoint`` (the JSON metadata: metrics, training facts, versions) and ``codec``
        (the :class:`inflect.codec.Codec` stored with it; where none is stored, a
        :class:`~inflect.codec.CharCodec` of the model's language when it has exactly one
        :class:`~inflect.languages.LanguageSpec`, else None).

    Raises:
        CheckpointError: if the file is missing or is not a sparse-inflect checkpoint, its
            weights are not finite or do not match its described architecture, or its codec cannot be rebuilt
            (e.g. sentencepiece is not installed).
    """
    path = Path(path)
    if path.is_dir():
        path = path / MODEL_FILE
    tensors, meta = load_tensors(path)
    broken = sorted(k for k, t in tensors.items() if t.is_floating_point() and not t.isfinite().all())
    if broken:
        raise CheckpointError(
            f"{path}: non-finite (NaN or infinite) weights in {', '.join(broken[:5])}"
            f"{' …' if len(broken) > 5 else ''}; the file is corrupt or training diverged"
        )
    try:
        model = Seq2Seq.from_metadata(meta["model"])
        model.load_state_dict(tensors, strict=True)
    except (KeyError, ValueError, RuntimeError) as exc:
        raise CheckpointError(f"{path}: cannot rebuild the model ({exc})") from None
    model.to(resolve_device(device))
    model.eval()
    model.language_specs = _language_specs(meta.get("languages", []))
    model.checkpoint = meta
    model.codec = _codec(path, meta, model.language_specs)
    return model


def _codec(path: Path, meta: dict[str, Any], specs: dict[str, Any]) -> Any:
    """The checkpoint's codec (see :func:`load_model`)."""
    from inflect.codec import CharCodec, codec_from_dict

    stored = meta.get("codec")
    if stored is None:
        values = list(specs.values())
        return CharCodec(values[0]) if len(values) == 1 and hasattr(values[0], "to_symbols") else None
    try:
        return codec_from_dict(stored)
    except (ValueError, ImportError) as exc:
        raise CheckpointError(f"{path}: cannot rebuild the codec ({exc})") from None


def optimizer_to_tensors(
    optimizer: torch.optim.Optimizer,
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Split an optimizer's state dict into tensors (for safetensors) and JSON."""
    sd = optimizer.state_dict()
    tensors: dict[str, torch.Tensor] = {}
    plain: dict[str, dict[str, Any]] = {}
    for pid, st in sd["state"].items():
        for key, value in st.items():
            if isinstance(value, torch.Tensor):
                tensors[f"optim.{pid}.{key}"] = value
            else:
                plain.setdefault(str(pid), {})[key] = value
    return tensors, {"param_groups": sd["param_groups"], "plain_state": plain}


def optimizer_from_tensors(
    optimizer: torch.optim.Optimizer, tensors: dict[str, torch.Tensor], meta: dict[str, Any]
) -> None:
    """Inverse of :func:`optimizer_to_tensors`: load the state into ``optimizer``."""
    state: dict[int, dict[str, Any]] = {}
    for name, value in tensors.items():
        if not name.startswith("optim."):
            continue
        _, pid, key = name.split(".", 2)
        state.setdefault(int(pid), {})[key] = value
    for pid, st in meta.get("plain_state", {}).items():
        state.setdefault(int(pid), {}).update(st)
    optimizer.load_state_dict({"state": state, "param_groups": meta["param_groups"]})
