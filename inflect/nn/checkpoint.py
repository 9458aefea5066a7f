"""Self-contained checkpoints: safetensors weights with their JSON description, written atomically.

A checkpoint folder holds

* ``model.safetensors`` — the selected (best-on-dev) weights. Its safetensors metadata key
  ``"sparse_inflect"`` holds one JSON document: format version, the run's config (one flat dict
  of the network's fields and the training procedure's), vocabularies
  (source, target, UniMorph features, languages), the language specs
  (:meth:`inflect.text.languages.LanguageSpec.to_dict`), the codec that turns raw text into symbols
  where the run had one (:mod:`inflect.text.codec`; e.g. a SentencePiece model, base64), the training
  metrics and the software versions.
  Loading it needs no training data and executes no pickled code (safetensors holds only tensors).
* ``metrics.csv`` — one row per epoch (written by :mod:`inflect.training.trainer`).
* ``trainer_state.safetensors`` — what ``inflect train --resume`` needs: the weights at the last
  epoch boundary, the Adam state (tensors here, hyperparameters in the JSON metadata) and the
  loop's counters (epoch, learning rate, best accuracy, patience).

Every file is written through :func:`inflect.io.atomic.atomic_write` (a temporary file in the same
folder, renamed over the target), so an interruption never leaves a half-written checkpoint.

Reading: :func:`load_checkpoint` gives a :class:`LoadedModel` — the network with everything stored
beside its weights (language specs, codec, metadata); :func:`load_model` the network alone.
:func:`checkpoint_members` is the one rule by which every command turns ``--model`` paths
(checkpoints, or folders of ensemble members) into checkpoint files.
"""

from __future__ import annotations

import json
import math
import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from inflect.io.atomic import atomic_write
from inflect.nn.model import Seq2Seq, resolve_device

if TYPE_CHECKING:
    from inflect.text.codec import Codec
    from inflect.text.languages import LanguageSpec

FORMAT = "sparse-inflect/1"
META_KEY = "sparse_inflect"
MODEL_FILE = "model.safetensors"
STATE_FILE = "trainer_state.safetensors"
METRICS_FILE = "metrics.csv"


class CheckpointError(ValueError):
    """A checkpoint file is missing, unreadable or not a sparse-inflect checkpoint."""


def versions() -> dict[str, str]:
    """Versions of the software that wrote a checkpoint, and the git commit of the code where
    it ran from a git working tree (:func:`inflect.io.provenance.source_commit`)."""
    import safetensors

    from inflect import __version__
    from inflect.io.provenance import source_commit

    found = {
        "sparse-inflect": __version__,
        "torch": torch.__version__,
        "safetensors": safetensors.__version__,
        "python": platform.python_version(),
    }
    commit = source_commit()
    return found | ({"sparse-inflect-commit": commit} if commit else {})


def save_tensors(
    path: str | os.PathLike[str], tensors: dict[str, torch.Tensor], meta: dict[str, Any]
) -> None:
    """Atomically write ``tensors`` with ``meta`` (JSON) under the metadata key ``sparse_inflect``."""
    cpu = {k: v.detach().to("cpu").contiguous() for k, v in tensors.items()}
    metadata = {META_KEY: json.dumps(meta, ensure_ascii=False)}
    atomic_write(path, lambda temp: save_file(cpu, str(temp), metadata=metadata))


def load_tensors(path: str | os.PathLike[str]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Read a file written by :func:`save_tensors`: (tensors on CPU, JSON metadata).

    Raises:
        CheckpointError: if the file is missing, unreadable, or lacks the metadata.
    """
    return _read(path, tensors=True)


def load_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The JSON metadata of a file written by :func:`save_tensors`, without reading its tensors
    (a run's state in milliseconds, for status tables).

    Raises:
        CheckpointError: as :func:`load_tensors`.
    """
    return _read(path, tensors=False)[1]


def _read(path: str | os.PathLike[str], tensors: bool) -> tuple[dict[str, torch.Tensor], dict]:
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        with safe_open(str(path), framework="pt", device="cpu") as fh:
            raw = (fh.metadata() or {}).get(META_KEY)
            values = {k: fh.get_tensor(k) for k in fh.keys()} if tensors else {}  # noqa: SIM118
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
    return values, meta


def save_model(
    path: str | os.PathLike[str],
    model: Seq2Seq,
    *,
    languages: list[dict[str, Any]] | None = None,
    metrics: list[dict[str, Any]] | None = None,
    training: dict[str, Any] | None = None,
    state_dict: dict[str, torch.Tensor] | None = None,
    codec: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    cells: dict[str, Any] | None = None,
) -> None:
    """Write a self-contained model checkpoint (``model.safetensors``) atomically.

    Args:
        path: the file (or a folder, then ``folder/model.safetensors``).
        model: the model (architecture and vocabularies are taken from it).
        languages: the language specs as :meth:`LanguageSpec.to_dict` dicts.
        metrics: per-epoch training metrics (JSON-able rows).
        training: other facts about the run (data, seed, best epoch, ...).
        state_dict: the weights to store (default: the model's current ones).
        codec: the :meth:`inflect.text.codec.Codec.to_dict` dict of the model's codec, or None.
        settings: the training procedure's config fields
            (:meth:`inflect.training.config.TrainConfig.to_dict`), stored beside the network's in
            the flat ``config`` (see :meth:`Seq2Seq.metadata`); None: the network's alone.
        cells: the paradigm cells of the training data (:func:`inflect.corpora.cells.cells_record`)
            of a model trained on a user's files, or None.

    Raises:
        ValueError: ``settings`` names a field of the network.
    """
    path = Path(path)
    if path.suffix != ".safetensors":
        path = path / MODEL_FILE
    meta = {
        "format": FORMAT,
        "model": model.metadata(settings),
        "languages": languages or [],
        "metrics": metrics or [],
        "training": training or {},
        "versions": versions(),
    }
    if codec is not None:
        meta["codec"] = codec
    if cells is not None:
        meta["cells"] = cells
    save_tensors(path, state_dict if state_dict is not None else model.state_dict(), meta)


@dataclass(frozen=True)
class LoadedModel:
    """A checkpoint read back: the network and what was stored beside its weights.

    Attributes:
        network: the :class:`~inflect.nn.model.Seq2Seq` in eval mode, on the device asked for.
        languages: the :class:`~inflect.text.languages.LanguageSpec` of each language the model was
            trained on, by name (empty for a translation model).
        codec: the stored :class:`~inflect.text.codec.Codec` (e.g. the SentencePiece model of a
            translation checkpoint), or None: an inflection model turns text into symbols with
            the codec of each query's language (:class:`~inflect.text.codec.CharCodec` of its spec).
        metadata: the checkpoint's JSON document (format, model description, languages,
            metrics, training facts, software versions).
        path: the file read.
    """

    network: Seq2Seq
    languages: dict[str, LanguageSpec] = field(default_factory=dict)
    codec: Codec | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def is_translation(self) -> bool:
        """True for a model of sentence pairs: a stored codec and no tag bundles."""
        return self.codec is not None and self.network.feature_vocab is None


#: ``meta["quantized"]`` of a checkpoint stored by :func:`quantize_int8`.
INT8_ROWS = "int8-rows"
#: Suffix of the tensor that holds the per-row scales of an int8 tensor.
SCALE_SUFFIX = ":scale"


def quantize_int8(
    tensors: dict[str, torch.Tensor], min_size: int = 1024
) -> dict[str, torch.Tensor]:
    """Weights in int8 with one float16 scale per row (symmetric, per output row), for shipping.

    Every floating-point tensor of two or more dimensions with at least ``min_size`` elements
    (the embeddings and the LSTM, attention and output matrices) becomes ``round(w / s)`` in
    int8 (``-127 .. 127``) with ``s = max |row| / 127`` per row (dim 0) stored as
    ``name + SCALE_SUFFIX`` (float16, shape (rows,)); the others (biases, small matrices) stay
    float16. The error is at most ``s / 2`` per weight (about 0.4% of a row's largest
    magnitude). Store the result with ``meta["quantized"] = INT8_ROWS``; :func:`load_checkpoint`
    turns it back into float32 (:func:`dequantize`).

    Args:
        tensors: name -> tensor of a model checkpoint (float32 or float16).
        min_size: the smallest tensor quantized.

    Returns:
        A new dict (the input is not changed).
    """

    def rows_in_int8(rows: torch.Tensor, shape: torch.Size) -> dict[str, torch.Tensor]:
        scale = rows.abs().amax(dim=1) / 127.0
        scale = scale.to(torch.float16).float()  # the stored scale is what dequantizes
        safe = torch.where(scale > 0, scale, torch.ones_like(scale))
        q = torch.clamp(torch.round(rows / safe[:, None]), -127, 127).to(torch.int8)
        return {"": q.reshape(shape), SCALE_SUFFIX: scale.to(torch.float16)}

    return _quantized(tensors, min_size, rows_in_int8)


def _quantized(
    tensors: dict[str, torch.Tensor], min_size: int, store_rows: Callable
) -> dict[str, torch.Tensor]:
    """``tensors`` with each floating-point tensor of two or more dimensions and at least
    ``min_size`` elements stored by ``store_rows(rows, shape)`` (its rows, float32 of shape
    (dim 0, the rest), and its shape -> suffix -> stored tensor, ``""`` for the tensor itself),
    the other floating-point tensors in float16 and the rest as they are."""
    out: dict[str, torch.Tensor] = {}
    for name, t in tensors.items():
        if not t.is_floating_point():
            out[name] = t
        elif t.dim() >= 2 and t.numel() >= min_size:
            rows = t.detach().float().reshape(t.shape[0], -1)
            out |= {name + suffix: value for suffix, value in store_rows(rows, t.shape).items()}
        else:
            out[name] = t.detach().to(torch.float16)
    return out


#: ``meta["quantized"]`` of a checkpoint stored by :func:`quantize_int4`.
INT4_GROUPS = "int4-groups"
#: Suffix of the tensor that holds an int4 tensor's shape past its first dimension (int64).
SHAPE_SUFFIX = ":shape"
#: Suffix of the tensor that holds an int4 tensor's group size (int64, shape (1,)): present, the
#: rows are packed tightly (:func:`quantize_int4`: a row's last group may be partial); absent,
#: each row fills whole groups, zero-padded where it must (the layout before 2026-12-07, still
#: read, and the same bytes where no row needs padding: :func:`repack_int4`).
GROUP_SUFFIX = ":group"


def quantize_int4(
    tensors: dict[str, torch.Tensor], group: int = 32, min_size: int = 1024
) -> dict[str, torch.Tensor]:
    """Weights in 4 bits with one float16 scale per group of ``group`` weights of a row, for
    shipping at about 0.56 bytes a weight (int8: 1; before 2026-12-07 also the padding of each
    row to whole groups, about 7% more for the shipped models).

    Every floating-point tensor of two or more dimensions with at least ``min_size`` elements
    is read as rows (dim 0) of ``c`` weights, each row cut into groups of ``group`` (the last
    group of a row holds the ``c mod group`` weights left, where there are any); a group's
    weights become ``q = round(w / s)`` in ``-7 .. 7`` with ``s = max |group| / 7``
    (symmetric, stored in float16). ``q + 8`` is packed two to a byte (the even column in the
    low nibble; a row of odd ``c`` ends with a zero, stored as 8, in the high nibble): ``name``
    holds uint8 of shape (rows, ceil(c / 2)), ``name + SCALE_SUFFIX`` the float16 scales, shape
    (rows, ceil(c / group)), ``name + SHAPE_SUFFIX`` the tensor's shape past dim 0 and, where
    ``c`` is not a multiple of ``group``, ``name + GROUP_SUFFIX`` the group (int64; else the
    bytes are those of the padded layout and the group is ``c`` over the scales a row). A row
    is its own bytes, so
    :mod:`inflect.nn.trim` slices rows of a stored tensor exactly as of a float one. The error is
    at most ``s / 2`` per weight (1/14 of its group's largest magnitude). The others (biases,
    small matrices) are stored in float16. Store the result with ``meta["quantized"] =
    INT4_GROUPS``; :func:`load_checkpoint` turns it back into float32 (:func:`dequantize`).

    Args:
        tensors: name -> tensor of a model checkpoint (float32 or float16).
        group: weights per scale (even).
        min_size: the smallest tensor quantized.

    Returns:
        A new dict (the input is not changed).

    Raises:
        ValueError: an odd or non-positive ``group``.
    """
    if group <= 0 or group % 2:
        raise ValueError(f"group must be a positive even number of weights, got {group}")

    def rows_in_int4(rows: torch.Tensor, shape: torch.Size) -> dict[str, torch.Tensor]:
        cols = rows.shape[1]
        pad = (-cols) % group  # zeros: they change no group's largest magnitude
        groups = torch.nn.functional.pad(rows, (0, pad)).reshape(rows.shape[0], -1, group)
        scale = (groups.abs().amax(dim=2) / 7.0).to(torch.float16).float()
        safe = torch.where(scale > 0, scale, torch.ones_like(scale))
        q = torch.clamp(torch.round(groups / safe[..., None]), -7, 7) + 8
        q = q.reshape(rows.shape[0], -1)[:, :cols].to(torch.uint8)
        stored = {"": _pack_nibbles(q), SCALE_SUFFIX: scale.to(torch.float16),
                  SHAPE_SUFFIX: torch.tensor(shape[1:], dtype=torch.int64)}
        if pad:  # else both layouts are the same bytes, and the group is what they divide into
            stored[GROUP_SUFFIX] = torch.tensor([group], dtype=torch.int64)
        return stored

    return _quantized(tensors, min_size, rows_in_int4)


def _pack_nibbles(q: torch.Tensor) -> torch.Tensor:
    """Values 0..15 of shape (rows, c) as uint8 (rows, ceil(c / 2)): the even column in the low
    nibble; an odd ``c`` is completed with 8 (a zero weight)."""
    if q.shape[1] % 2:
        q = torch.cat([q, torch.full((q.shape[0], 1), 8, dtype=torch.uint8)], dim=1)
    return q[:, 0::2] | (q[:, 1::2] << 4)


def repack_int4(
    tensors: dict[str, torch.Tensor], path: Path | None = None
) -> dict[str, torch.Tensor]:
    """A checkpoint stored in 4 bits with zero-padded rows (the layout before 2026-12-07, no
    ``GROUP_SUFFIX`` tensors) in the tight layout of :func:`quantize_int4`: the same stored
    values and scales, without the padding's bytes (for a row of 200 weights in groups of 32,
    100 bytes instead of 112). Lossless: :func:`dequantize` gives the same float32 weights,
    bit for bit. Tensors already tight, and the others, are returned as they are.

    Raises:
        CheckpointError: a 4-bit tensor without its scales or shape, or of the wrong size.
    """
    out = dict(tensors)
    for name, t in tensors.items():
        if (t.dtype != torch.uint8 or name.endswith((SCALE_SUFFIX, SHAPE_SUFFIX, GROUP_SUFFIX))
                or name + GROUP_SUFFIX in tensors):
            continue
        cols, group, _ = _int4_layout(name, t, tensors, path)
        if cols % group == 0:
            continue  # no padding: already the tight bytes
        q = torch.stack([t & 15, t >> 4], dim=2).reshape(t.shape[0], -1)[:, :cols]
        out[name] = _pack_nibbles(q)
        out[name + GROUP_SUFFIX] = torch.tensor([group], dtype=torch.int64)
    return out


def _int4_layout(
    name: str, t: torch.Tensor, tensors: dict[str, torch.Tensor], path: Path | None
) -> tuple[int, int, torch.Tensor]:
    """``(c, group, scales)`` of the 4-bit tensor ``name`` (either layout), checked against its
    stored size."""
    scale = tensors.get(name + SCALE_SUFFIX)
    trailing = tensors.get(name + SHAPE_SUFFIX)
    if scale is None or trailing is None or scale.dim() != 2 or scale.shape[0] != t.shape[0]:
        raise CheckpointError(
            f"{path}: the int4 tensor {name} lacks its per-group scales or its shape"
        )
    cols = math.prod(int(d) for d in trailing.tolist())
    stored = tensors.get(name + GROUP_SUFFIX)
    if stored is None:  # zero-padded rows: the group is what the padding divides into
        padded = 2 * t.shape[-1]
        group = padded // scale.shape[1] if padded % scale.shape[1] == 0 else 0
        fits = group > 0 and 0 < cols <= padded and -(-cols // group) == scale.shape[1]
    else:
        group = int(stored.reshape(-1)[0]) if stored.numel() == 1 else 0
        fits = (group > 0 and cols > 0 and t.shape[-1] == -(-cols // 2)
                and scale.shape[1] == -(-cols // group))
    if t.dim() != 2 or not fits:
        raise CheckpointError(
            f"{path}: the int4 tensor {name} ({tuple(t.shape)} bytes) does not match "
            f"its scales {tuple(scale.shape)} and shape {trailing.tolist()}"
        )
    return cols, group, scale


def dequantize(
    tensors: dict[str, torch.Tensor], meta: dict[str, Any], path: Path | None = None
) -> dict[str, torch.Tensor]:
    """Float32 weights from a checkpoint stored by :func:`quantize_int8` or :func:`quantize_int4`
    (either 4-bit layout: see :data:`GROUP_SUFFIX`; as ``meta["quantized"]`` says; other
    checkpoints are returned as they are).

    Raises:
        CheckpointError: a quantized tensor without its scales (or, int4, its shape), or
            scales of the wrong shape.
    """
    kind = meta.get("quantized")
    if kind not in (INT8_ROWS, INT4_GROUPS):
        return tensors
    out: dict[str, torch.Tensor] = {}
    for name, t in tensors.items():
        if name.endswith((SCALE_SUFFIX, SHAPE_SUFFIX, GROUP_SUFFIX)):
            continue
        scale = tensors.get(name + SCALE_SUFFIX)
        if kind == INT8_ROWS and t.dtype == torch.int8:
            if scale is None or scale.shape != (t.shape[0],):
                raise CheckpointError(f"{path}: the int8 tensor {name} lacks its per-row scales")
            shape = (-1,) + (1,) * (t.dim() - 1)
            out[name] = t.float() * scale.float().reshape(shape)
        elif kind == INT4_GROUPS and t.dtype == torch.uint8:
            cols, group, scale = _int4_layout(name, t, tensors, path)
            rows, groups = t.shape[0], scale.shape[1]
            q = torch.stack([t & 15, t >> 4], dim=2).reshape(rows, -1)[:, :cols].float() - 8
            q = torch.nn.functional.pad(q, (0, groups * group - cols))
            w = q.reshape(rows, groups, group) * scale.float()[..., None]
            trailing = [int(d) for d in tensors[name + SHAPE_SUFFIX].tolist()]
            out[name] = w.reshape(rows, -1)[:, :cols].reshape(rows, *trailing)
        else:
            out[name] = t.float() if t.is_floating_point() else t
    return out


def load_checkpoint(
    path: str | os.PathLike[str], device: str | torch.device = "cpu"
) -> LoadedModel:
    """Load a model checkpoint written by :func:`save_model` (no data, no pickle).

    Args:
        path: a checkpoint folder or its ``model.safetensors`` (any ``.safetensors`` file
            written by :func:`save_model`).
        device: where to put the weights (``"auto"``: CUDA when available, see
            :func:`inflect.nn.model.resolve_device`).

    Returns:
        The :class:`LoadedModel`.

    Raises:
        CheckpointError: if the file is missing or is not a sparse-inflect model checkpoint
            (a trainer state is named as such, with the file to pass instead), its weights are
            not finite or do not match its described architecture, or its codec cannot be
            rebuilt (e.g. sentencepiece is not installed).
    """
    path = Path(path)
    if path.is_dir():
        path = path / MODEL_FILE
    tensors, meta = load_tensors(path)
    tensors = dequantize(tensors, meta, path)
    if meta.get("kind") == "trainer_state" or "model" not in meta:
        raise CheckpointError(
            f"{path}: this is the trainer state of a run (what `inflect train --resume` reads), "
            f"not a model; pass the run folder {path.parent} or its {MODEL_FILE}"
        )
    broken = sorted(
        k for k, t in tensors.items() if t.is_floating_point() and not t.isfinite().all()
    )
    if broken:
        raise CheckpointError(
            f"{path}: non-finite (NaN or infinite) weights in {', '.join(broken[:5])}"
            f"{' …' if len(broken) > 5 else ''}; the file is corrupt or training diverged"
        )
    try:
        network = Seq2Seq.from_metadata(meta["model"])
        network.load_state_dict(tensors, strict=True)
    except (KeyError, ValueError, RuntimeError) as exc:
        raise CheckpointError(f"{path}: cannot rebuild the model ({exc})") from None
    network.to(resolve_device(device))
    network.eval()
    languages = stored_languages(path, meta)
    return LoadedModel(network, languages, _codec(path, meta), meta, path)


def stored_languages(path: Path, meta: dict[str, Any]) -> dict[str, LanguageSpec]:
    """The language specs checkpoint ``path`` stores (its metadata ``meta``), by name, each made known to
    :func:`inflect.text.languages.resolve` for the rest of the process where no shipped or user
    spec has its name (:func:`inflect.text.languages.remember`: a model of a user's language).

    Raises:
        CheckpointError: a stored spec that is malformed.
    """
    from inflect.text.languages import LanguageSpec, remember

    try:
        languages = {d["name"]: LanguageSpec.from_dict(d) for d in meta.get("languages", [])}
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: cannot rebuild the language specs ({exc})") from None
    for spec in languages.values():
        remember(spec)
    return languages


def load_model(path: str | os.PathLike[str], device: str | torch.device = "cpu") -> Seq2Seq:
    """The network of a checkpoint (see :func:`load_checkpoint`, which keeps the rest).

    Raises:
        CheckpointError: as :func:`load_checkpoint`.
    """
    return load_checkpoint(path, device).network


def _codec(path: Path, meta: dict[str, Any]) -> Codec | None:
    """The codec stored in the checkpoint, or None."""
    from inflect.text.codec import codec_from_dict

    stored = meta.get("codec")
    if stored is None:
        return None
    try:
        return codec_from_dict(stored)
    except (ValueError, ImportError) as exc:
        raise CheckpointError(f"{path}: cannot rebuild the codec ({exc})") from None


def checkpoint_members(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The checkpoint files of a model or an ensemble: the rule of every ``--model`` option.

    Each path is a checkpoint (a ``.safetensors`` file, or a folder holding
    ``model.safetensors``), or a folder of members: its immediate subfolders holding a
    ``model.safetensors``, and the ``.safetensors`` model files in it, in name order.

    A member that is named but cannot be read (a ``model.safetensors`` or ``.safetensors``
    entry that is a dangling link, as git-annex or DVC leave files not yet fetched, or not a
    readable file) is an error naming it, never a smaller ensemble.

    Returns:
        The member paths, in order (at least one).

    Raises:
        FileNotFoundError: a path that does not exist, a folder with no checkpoint in it or
            in its subfolders, or a member that cannot be read.
        ValueError: a folder of ``inflect queue`` (one model per language, not an ensemble):
            the message says how to choose one language's model.
    """
    members: list[Path] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such checkpoint or folder")
        if path.is_file() or (path / MODEL_FILE).is_file():
            members.append(path)
            continue
        _unreadable(path / MODEL_FILE)
        if (path / "queue.json").is_file():  # inflect.training.queue.QUEUE_FILE
            runs = sorted(p.name for p in path.iterdir() if (p / MODEL_FILE).is_file())
            example = f"{path / runs[0]}" if runs else f"{path}/LANGUAGE"
            raise ValueError(
                f"{path} is a queue of one model per language (inflect queue), not an ensemble: "
                f"give one language's run folder, e.g. --model {example}"
                + (f" (trained: {', '.join(runs)})" if runs else "")
            )
        entries = sorted(path.iterdir())
        for p in entries:
            _unreadable(p / MODEL_FILE)
            if p.suffix == ".safetensors" and p.name != STATE_FILE and not p.is_dir():
                _unreadable(p)
        found = [
            p
            for p in entries
            if (p / MODEL_FILE).is_file()
            or (p.is_file() and p.suffix == ".safetensors" and p.name != STATE_FILE)
        ]
        if not found:
            raise FileNotFoundError(
                f"{path}: neither a checkpoint ({MODEL_FILE}) nor a folder of checkpoints"
            )
        members.extend(found)
    if not members:
        raise FileNotFoundError("no checkpoint given")
    return members


def _unreadable(path: Path) -> None:
    """Raise where ``path`` is there as a name but is not a readable file (a dangling link, a
    folder, a file without read permission)."""
    if not os.path.lexists(path):
        return
    if path.is_symlink() and not path.exists():
        raise FileNotFoundError(
            f"{path}: a link to {os.readlink(path)}, which is not there (a file not fetched yet, "
            "e.g. `git annex get` or `dvc pull`): the ensemble would miss this member"
        )
    if not path.is_file() or not os.access(path, os.R_OK):
        raise FileNotFoundError(f"{path}: not a readable checkpoint file")

