"""Forced decoding: a model run along given output strings (teacher forcing), recording what each
step's distribution was.

Used to describe the strings a search found (how many symbols had nonzero probability at each of
their steps, where the attention was) on the same encoder pass, without searching again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import torch

from inflect.decoding.protocol import B, Decodable, Encoded, S, as_encoded

__all__ = ["ForcedPath", "teacher_forced"]


class ForcedPath(NamedTuple):
    """A model run along a given output string (see :func:`teacher_forced`).

    Attributes:
        support_sizes: the number of nonzero output probabilities at each of the
            ``len(tokens) + 1`` steps (ints >= 1; the last step is the one that emits EOS).
        attention: float32 [len(tokens) + 1, S] on the CPU, the attention rows of those steps.
    """

    support_sizes: list[int]
    attention: torch.Tensor


def teacher_forced(
    model: Decodable[B, S], source: B | Encoded[S], outputs: Sequence[Sequence[int]]
) -> list[ForcedPath]:
    """Run a Decodable along given output strings and record each step's output support size.

    The decoder is fed BOS, then the string's own symbols (teacher forcing), for
    ``len(tokens) + 1`` steps: one per emitted symbol and the last one that emits EOS — the same
    steps (and so the same distributions) as the search that found the string.

    Args:
        model: a :class:`~inflect.decoding.protocol.Decodable` (:class:`inflect.nn.model.Seq2Seq`
            or :class:`~inflect.decoding.ensemble.Ensemble`).
        source: its source batch of B inputs, or that batch
            :func:`~inflect.decoding.protocol.encode`\\ d (e.g. the one the strings were searched
            with: no second encoder pass).
        outputs: B target id sequences without BOS/EOS (e.g. ``Hypothesis.tokens``).

    Returns:
        One :class:`ForcedPath` per input, in order.

    Raises:
        ValueError: ``len(outputs)`` differs from the batch size, or the model gives no attention.
    """
    encoded = as_encoded(model, source)
    n = encoded.size
    if len(outputs) != n:
        raise ValueError(f"{len(outputs)} output strings for a batch of {n} inputs")
    device = model.device
    steps = max((len(o) for o in outputs), default=0) + 1
    sizes: list[list[int]] = [[] for _ in range(n)]
    rows: list[list[torch.Tensor]] = [[] for _ in range(n)]
    state = encoded.state
    prev = torch.full((n,), model.bos_id, dtype=torch.long, device=device)
    for t in range(steps):
        probs, attention, state = model.step(state, prev)
        counts = torch.count_nonzero(probs, dim=-1).tolist()
        if attention is None:
            raise ValueError("teacher_forced needs a model whose step gives attention (got None)")
        attention = attention.detach().float().cpu()
        for i, out in enumerate(outputs):
            if t <= len(out):
                sizes[i].append(int(counts[i]))
                rows[i].append(attention[i])
        prev = torch.tensor(
            [out[t] if t < len(out) else model.eos_id for out in outputs],
            dtype=torch.long,
            device=device,
        )
    return [ForcedPath(s, torch.stack(r)) for s, r in zip(sizes, rows, strict=True)]


# Searches run under torch.inference_mode, applied here rather than as decorators so that
# mutation testing (mutmut skips decorated functions; README, Development) reaches their bodies.
teacher_forced = torch.inference_mode()(teacher_forced)
