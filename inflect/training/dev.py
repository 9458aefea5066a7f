"""Dev evaluation for model selection: the teacher-forced loss, exact-match accuracy of greedy
decoding (the shared task's metric), per-language accuracies, and the fixed dev sample.

Peters et al. (2019) selected checkpoints by teacher-forced symbol accuracy on dev; the trainer
selects by exact-match accuracy of greedy decoding (or ``TrainingData.dev_score``) on the sample
of :func:`dev_sample`, computed after every epoch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from inflect import defaults
from inflect.nn.batching import EncodedItems, output_symbols
from inflect.nn.lengths import output_limit
from inflect.nn.model import Seq2Seq
from inflect.training.items import DevScore, Item, encode_items
from inflect.training.precision import autocast

__all__ = ["dev_figures", "dev_sample", "evaluate_dev", "item_limits", "language_accuracies"]


def item_limits(model: Seq2Seq, items: Sequence[Item]) -> list[int]:
    """Each item's output length limit under ``model`` (its own source length and language)."""
    return [output_limit(model.output_lengths, it.language, len(it.source)) for it in items]


@torch.inference_mode()
def evaluate_dev(
    model: Seq2Seq,
    items: Sequence[Item],
    batch_size: int = defaults.EVAL_BATCH_SIZE,
    max_len: int | None = None,
    encoded: EncodedItems | None = None,
) -> tuple[float, float, list[tuple[str, ...]]]:
    """Dev loss (teacher-forced) and exact-match accuracy of greedy decoding.

    Args:
        model: the model (put in eval mode).
        items: examples with targets.
        batch_size: examples per batch (sorted by source length to limit padding; the figures
            are the same at any size).
        max_len: output length cap (default: ``config.max_decode_len``, else each item's own
            limit, :func:`inflect.nn.lengths.output_limit` of ``model.output_lengths``).
        encoded: ``items`` already encoded with :func:`~inflect.training.items.encode_items`
            (else encoded here).

    Returns:
        (mean loss per target symbol, accuracy in percent, predicted symbol tuples in the
        order of ``items`` — UNKs replaced by the most attended source symbol).
    """
    from inflect.decoding.greedy import greedy
    from inflect.decoding.protocol import Encoded

    model.eval()
    device = model.device
    encoded = encoded if encoded is not None else encode_items(model, items)
    order = sorted(range(len(items)), key=lambda i: (len(items[i].source), i))
    preds: list[tuple[str, ...]] = [()] * len(items)
    total_loss, total_tokens, correct = 0.0, 0, 0
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        batch = encoded.batch(idx, device)
        with autocast(device):
            state = model.encode(batch)  # one encoder pass for the loss and the search
            loss, n = model.loss(batch, state)
            total_loss += float(loss)
            total_tokens += n
            cap = (
                max_len
                or model.config.max_decode_len
                or item_limits(model, [items[i] for i in idx])
            )
            hyps = greedy(model, Encoded(state, len(batch)), cap)
        for j, (i, hyp) in enumerate(zip(idx, hyps, strict=True)):
            symbols = tuple(
                output_symbols(
                    model.target_vocab, hyp.tokens, hyp.attention, batch.source_symbols[j],
                    model.source_vocab,
                )
            )
            preds[i] = symbols
            correct += symbols == items[i].target
    accuracy = 100.0 * correct / max(1, len(items))
    return total_loss / max(1, total_tokens), accuracy, preds


def language_accuracies(
    predictions: Sequence[tuple[str, ...]], items: Sequence[Item]
) -> list[dict[str, Any]]:
    """Exact-match accuracy per language: rows ``{"language", "examples", "accuracy"}`` (percent),
    sorted by language (None first)."""
    per_language: dict[Any, list[int]] = {}
    for pred, item in zip(predictions, items, strict=True):
        counts = per_language.setdefault(item.language, [0, 0])
        counts[0] += 1
        counts[1] += pred == item.target
    return [
        {"language": lang, "examples": n, "accuracy": 100.0 * ok / n}
        for lang, (n, ok) in sorted(per_language.items(), key=lambda x: x[0] or "")
    ]


def dev_figures(
    model: Seq2Seq,
    items: Sequence[Item],
    encoded: EncodedItems,
    batch_size: int,
    dev_score: DevScore | None = None,
) -> tuple[float, float, float, list[dict[str, Any]]]:
    """An epoch's dev figures: (dev loss, accuracy in percent, the model-selection score —
    ``dev_score(predictions, items)``, or the accuracy when None —, per-language accuracies,
    see :func:`language_accuracies`)."""
    dev_loss, dev_acc, preds = evaluate_dev(model, items, batch_size, encoded=encoded)
    score = dev_acc if dev_score is None else float(dev_score(preds, items))
    return dev_loss, dev_acc, score, language_accuracies(preds, items)


def dev_sample(items: Sequence[Item], per_language: int) -> list[int]:
    """Indices of a fixed sample of at most ``per_language`` items of each language.

    The sample depends only on the items and ``per_language`` (a generator seeded with
    :data:`inflect.defaults.DEV_SAMPLE_SEED`), in the items' order; 0 means every item.
    """
    if per_language <= 0:
        return list(range(len(items)))
    by_language: dict[str | None, list[int]] = {}
    for i, it in enumerate(items):
        by_language.setdefault(it.language, []).append(i)
    gen = torch.Generator().manual_seed(defaults.DEV_SAMPLE_SEED)
    chosen: list[int] = []
    for lang in sorted(by_language, key=lambda x: x or ""):
        rows = by_language[lang]
        if len(rows) > per_language:
            pick = torch.randperm(len(rows), generator=gen)[:per_language].tolist()
            rows = [rows[j] for j in pick]
        chosen += rows
    return sorted(chosen)
