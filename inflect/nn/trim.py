"""Restrict a checkpoint to the symbols, features and languages of some of its training data.

A model warm-started from a multilingual one keeps the multilingual vocabularies: a Finnish model
started from the medium member carries 776 characters of 103 languages, 309 UniMorph features and
103 language rows, and its output layer can write any of those characters. :func:`restrict`
drops the rows nobody asks for: the embedding rows and output-layer rows of the characters the
kept data never use, the feature rows of the features it never has, the language rows of the
other languages. What remains is the network a from-scratch model of that data would have (the
same vocabularies: :func:`inflect.training.warm_start.build_model`), at about two thirds of the
bytes, and it can no longer write a character of another language's script: a lemma's unseen
character is read as the unknown symbol and copied to the output
(:func:`inflect.nn.vocab.replace_unknowns`), as in a from-scratch model.

The rows are sliced, never recomputed: an int8 tensor and its per-row scales
(:func:`inflect.nn.checkpoint.quantize_int8`), or a 4-bit tensor's packed rows and per-group
scales (:func:`inflect.nn.checkpoint.quantize_int4`), are sliced alike, so a quantized
checkpoint stays exactly the quantized values it was. The scores of the kept output symbols are the same numbers
as before; their probabilities are the output mapping (α-entmax) of those scores alone, so a
dropped symbol that had probability 0 changes nothing, and one that had some gives its share to
the kept ones (re-normalised by the mapping's threshold τ, Peters et al. 2019, eq. 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch

from inflect.nn.config import COPY_FEATURE

#: state-dict tensor -> the vocabulary whose ids index its first dimension.
ROWS: dict[str, str] = {
    "source_embedding.weight": "source_vocab",
    "target_embedding.weight": "target_vocab",
    "generator.weight": "target_vocab",
    "generator.bias": "target_vocab",
    "feature_embedding.weight": "feature_vocab",
    "language_embedding.weight": "language_vocab",
}
#: Suffix of a quantized tensor's scales (:data:`inflect.nn.checkpoint.SCALE_SUFFIX`).
_SCALE = ":scale"


def restrict(
    tensors: dict[str, torch.Tensor],
    meta: dict[str, Any],
    symbols: Iterable[str],
    features: Iterable[str] | None = None,
    languages: Iterable[str] | None = None,
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """The checkpoint with its vocabularies cut down to the given symbols (reserved ones kept).

    Args:
        tensors: the checkpoint's state dict (float, or quantized with ``:scale`` tensors), as
            :func:`inflect.nn.checkpoint.load_tensors` reads it.
        meta: its JSON document (``meta["model"]`` holds the vocabularies).
        symbols: the characters to keep in the source and target vocabularies (those not in a
            vocabulary are ignored).
        features: the UniMorph features to keep (``None``: all); the copy feature of
            autoencoding items is kept when the model has it.
        languages: the language names to keep (``None``: all); ``meta["languages"]`` and the
            recorded output lengths keep only those.

    Returns:
        New ``(tensors, meta)``; the inputs are not changed. Rows keep their relative order.

    Raises:
        ValueError: a kept language the model does not have, or a state dict without one of
            the tensors its vocabularies describe.
    """
    model = dict(meta["model"])
    keep_symbols = set(symbols)
    keep = {
        "source_vocab": keep_symbols,
        "target_vocab": keep_symbols,
        "feature_vocab": None if features is None else set(features) | {COPY_FEATURE},
        "language_vocab": None if languages is None else set(languages),
    }
    if keep["language_vocab"] is not None and model.get("language_vocab"):
        missing = keep["language_vocab"] - set(model["language_vocab"]["symbols"])
        if missing:
            raise ValueError(f"the model has no language {', '.join(sorted(missing))}")
    rows: dict[str, torch.Tensor] = {}
    for kind, wanted in keep.items():
        vocab = model.get(kind)
        if not vocab or wanted is None:
            continue
        specials, old = list(vocab["specials"]), list(vocab["symbols"])
        kept = [s for s in old if s in wanted]
        rows[kind] = torch.tensor(
            list(range(len(specials))) + [len(specials) + i for i, s in enumerate(old)
                                          if s in wanted],
            dtype=torch.long,
        )
        model[kind] = {**vocab, "symbols": kept}
    out = dict(tensors)
    for name, kind in ROWS.items():
        if kind not in rows:
            continue
        if name not in tensors:
            raise ValueError(f"the state dict lacks {name}, which the {kind} indexes")
        for key in (name, name + _SCALE):
            if key in tensors:
                out[key] = tensors[key].index_select(0, rows[kind]).clone()
    new_meta = dict(meta, model=model)
    if keep["language_vocab"] is not None:
        names = keep["language_vocab"]
        new_meta["languages"] = [d for d in meta.get("languages", []) if d["name"] in names]
        lengths = model.get("output_lengths")
        if lengths:
            model["output_lengths"] = {k: v for k, v in lengths.items() if k in names or k == ""}
    return out, new_meta


def restrict_to_items(
    tensors: dict[str, torch.Tensor], meta: dict[str, Any], items: Sequence[Any]
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """:func:`restrict` to what ``items`` use: the symbols of their sources and targets, their
    features and their languages (:class:`inflect.training.items.Item` s, e.g. the training
    data of the one language a warm-started model was fine-tuned on).

    Raises:
        ValueError: as :func:`restrict`; no items.
    """
    if not items:
        raise ValueError("no items to restrict the checkpoint to")
    symbols = {s for it in items for s in (*it.source, *it.target)}
    features = {f for it in items for f in it.features}
    languages = {it.language for it in items if it.language is not None}
    return restrict(tensors, meta, symbols, features, languages or None)
