"""Greedy search: the most probable symbol at every step, batched over the inputs of a batch.

A string's probability is kept as a float64 sum of step log-probabilities, and the length limits
are those of every search (:mod:`inflect.decoding.protocol`).
"""

from __future__ import annotations

import math

import torch

from inflect import defaults
from inflect.decoding.protocol import (
    B,
    Decodable,
    Encoded,
    Hypothesis,
    MaxLen,
    S,
    as_encoded,
    attention_rows,
    check_len,
    check_step,
    limits_of,
    stack_rows,
)

__all__ = ["greedy"]


def greedy(
    model: Decodable[B, S], source: B | Encoded[S], max_len: MaxLen = defaults.SEARCH_MAX_LEN
) -> list[Hypothesis]:
    """Greedy decoding: the most probable symbol at every step, batched over the B inputs.

    One ``model.step`` call per time step for the whole batch; inputs that emitted EOS are dropped
    from the state with ``model.reorder``. Ties go to the symbol ``torch.max`` picks (the lowest id
    on the CPU).

    Args:
        model: A :class:`~inflect.decoding.protocol.Decodable`.
        source: The model's source batch of B inputs, or that batch
            :func:`~inflect.decoding.protocol.encode`\\ d.
        max_len: Largest number of output symbols (EOS not counted): one int, or B ints (one
            per input).

    Returns:
        B hypotheses, in input order. An input still unfinished after its ``max_len`` symbols
        gets a hypothesis with ``finished=False``, those symbols and their probability.

    Raises:
        ValueError: On a negative ``max_len``, a number of limits other than B, or a malformed
            ``model.step`` output.
    """
    check_len(max_len)
    encoded = as_encoded(model, source)
    state, n_inputs = encoded.state, encoded.size
    if n_inputs == 0:
        return []
    device = model.device
    limits = torch.tensor(limits_of(max_len, n_inputs), dtype=torch.long, device=device)
    eos, v = model.eos_id, model.target_size
    active = torch.arange(n_inputs, device=device)
    prev = torch.full((n_inputs,), model.bos_id, dtype=torch.long, device=device)
    log_prob = torch.zeros(n_inputs, dtype=torch.float64, device=device)
    history: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]] = []
    finished = torch.zeros(n_inputs, dtype=torch.bool, device=device)
    for t in range(1, int(limits.max()) + 2):
        probs, attn, state = model.step(state, prev)
        check_step(probs, active.numel(), v)
        p, y = probs.max(dim=1)
        is_eos = y == eos
        # an input's last step may only emit EOS: any other symbol leaves it unfinished
        last = limits[active] + 1 == t
        take = is_eos | ~last
        log_prob.index_add_(0, active, torch.where(take, torch.log(p.double()), 0.0))
        history.append((active, y, take, attn))
        finished[active[is_eos]] = True
        keep = ~is_eos & ~last
        if not bool(keep.any()):
            break
        if not bool(keep.all()):
            idx = keep.nonzero().squeeze(1)
            state = model.reorder(state, idx)
            active, y = active[idx], y[idx]
        prev = y
    tokens: list[list[int]] = [[] for _ in range(n_inputs)]
    rows: list[list[torch.Tensor]] = [[] for _ in range(n_inputs)]
    for act, y, take, attn in history:
        a_cpu = attention_rows(attn)
        for i, (b, sym, tk) in enumerate(zip(act.tolist(), y.tolist(), take.tolist(), strict=True)):
            if not tk:
                continue
            if sym != eos:
                tokens[b].append(sym)
            if a_cpu is not None:
                rows[b].append(a_cpu[i])
    lp = log_prob.tolist()
    fin = finished.tolist()
    return [
        Hypothesis(tokens[b], lp[b], math.exp(lp[b]), stack_rows(rows[b]), fin[b])
        for b in range(n_inputs)
    ]


# Searches run under torch.inference_mode, applied here rather than as decorators so that
# mutation testing (mutmut skips decorated functions; README, Development) reaches their bodies.
greedy = torch.inference_mode()(greedy)
