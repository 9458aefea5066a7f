"""Support enumeration: every output string of nonzero probability, best-first, with its exact
probability.

A sparse output mapping (α-entmax, α > 1) gives many symbols probability exactly 0, so a model's
*support*, the set of strings of nonzero probability, is often small enough to list whole
(Peters, Niculae & Martins 2019, "Sparse Sequence-to-Sequence Models", ACL, §5). Probabilities
and length limits are those of every search (:mod:`inflect.decoding.protocol`).
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from typing import Generic, TypeAlias

import torch

from inflect import defaults
from inflect.decoding.protocol import (
    NEG_INF,
    B,
    Decodable,
    Encoded,
    Hypothesis,
    MaxLen,
    S,
    SupportResult,
    as_encoded,
    attention_rows,
    check_len,
    check_positive,
    check_step,
    concat_states_of,
    limits_of,
    stack_rows,
)

__all__ = ["enumerate_support"]


class _Group(Generic[S]):
    """The post-step state of one expansion batch; prefix nodes point at its rows."""

    __slots__ = ("attn", "state")

    def __init__(self, state: S, attn: torch.Tensor | None) -> None:
        self.state = state
        self.attn = attn


_Trail: TypeAlias = "tuple[_Trail[S] | None, _Group[S], int]"
"""The attention rows of a prefix, as a linked list: (parent trail, group, row of the group)."""


@dataclass
class _Node(Generic[S]):
    log_prob: float
    input: int
    tokens: tuple[int, ...]
    group: _Group[S] | None  # None for a finished string (EOS emitted)
    row: int
    prev: int
    trail: _Trail[S] | None


def enumerate_support(
    model: Decodable[B, S],
    source: B | Encoded[S],
    cap: int = defaults.MAX_FORMS,
    max_len: MaxLen = defaults.SEARCH_MAX_LEN,
    *,
    max_expansions: int = defaults.SUPPORT_MAX_EXPANSIONS,
    width: int = defaults.SUPPORT_WIDTH,
) -> list[SupportResult]:
    """Every output string of nonzero probability with its exact probability (best-first).

    A best-first search over prefixes (priority = prefix probability) that expands only symbols of
    nonzero probability. A finished string is reported when it is the most probable item left, so
    strings come out in order of decreasing probability and, when the search stops at ``cap``,
    the list is exactly the ``cap`` most probable strings. Up to ``width`` prefixes per input are
    expanded together: one ``model.step`` call per round if the model has the optional
    ``concat_states(states: list) -> state`` (rows stacked in list order;
    :class:`~inflect.decoding.protocol.Concatenable`), else one call per
    earlier expansion the prefixes come from (their states cannot be merged through the protocol).

    Args:
        model: A :class:`~inflect.decoding.protocol.Decodable`.
        source: The model's source batch of B inputs, or that batch
            :func:`~inflect.decoding.protocol.encode`\\ d.
        cap: Largest number of strings listed per input; the search looks for one more to say
            ``more_than_cap``.
        max_len: Largest number of output symbols (EOS not counted), one int or B ints (one
            per input); longer nonzero prefixes are cut and reported with ``hit_max_len``.
        max_expansions: Largest number of prefixes expanded per input (a guard for dense, e.g.
            softmax, models); reaching it sets ``hit_budget``.
        width: Prefixes expanded together per input and round.

    Returns:
        B :class:`~inflect.decoding.protocol.SupportResult` in input order.

    Raises:
        ValueError: On a bad ``cap``/``max_len``/``max_expansions``/``width`` or a malformed
            ``model.step`` output.
    """
    check_len(max_len)
    check_positive(cap=cap, max_expansions=max_expansions, width=width)
    encoded = as_encoded(model, source)
    if encoded.size == 0:
        return []
    limits = limits_of(max_len, encoded.size)
    search = _Enumeration(model, encoded, cap, limits, max_expansions, width)
    while search.running:
        popped = search.pop_round()
        if popped:
            search.expand(popped)
    return search.results()


class _Enumeration(Generic[B, S]):
    """The state of one batched support enumeration (see :func:`enumerate_support`)."""

    def __init__(
        self,
        model: Decodable[B, S],
        encoded: Encoded[S],
        cap: int,
        max_len: list[int],
        max_expansions: int,
        width: int,
    ) -> None:
        n = encoded.size
        self.model, self.cap, self.max_len = model, cap, max_len
        self.max_expansions, self.width = max_expansions, width
        self.device = model.device
        self.counter = itertools.count()
        root = _Group(encoded.state, None)
        self.queues: list[list[tuple[float, int, _Node[S]]]] = [
            [(0.0, next(self.counter), _Node(0.0, b, (), root, b, model.bos_id, None))]
            for b in range(n)
        ]
        self.found: list[list[Hypothesis]] = [[] for _ in range(n)]
        self.more = [False] * n
        self.cut_max = [NEG_INF] * n
        self.expansions = [0] * n
        self.hit_budget = [False] * n
        self.running = set(range(n))

    @staticmethod
    def _emit(node: _Node[S]) -> Hypothesis:
        rows = []
        trail = node.trail
        while trail is not None:
            trail, grp, r = trail
            if grp.attn is not None:
                rows.append(grp.attn[r])
        rows.reverse()
        log_prob = node.log_prob
        return Hypothesis(list(node.tokens), log_prob, math.exp(log_prob), stack_rows(rows))

    def pop_round(self) -> list[_Node[S]]:
        """Report the finished strings at the top of each queue; pop up to ``width`` prefixes
        per input to expand."""
        popped: list[_Node[S]] = []
        for b in sorted(self.running):
            q = self.queues[b]
            while q and q[0][2].group is None:
                if len(self.found[b]) == self.cap:
                    self.more[b] = True  # a (cap + 1)-th string of nonzero probability exists
                    break
                self.found[b].append(self._emit(heapq.heappop(q)[2]))
            if self.more[b] or not q:
                self.running.discard(b)
                continue
            n = 0
            while q and q[0][2].group is not None and n < self.width:
                if self.expansions[b] >= self.max_expansions:
                    self.hit_budget[b] = True
                    break
                popped.append(heapq.heappop(q)[2])
                self.expansions[b] += 1
                n += 1
            if self.hit_budget[b]:
                self.running.discard(b)
        return popped

    def expand(self, popped: list[_Node[S]]) -> None:
        """One ``model.step`` per group of prefixes (one in all with ``concat_states``)."""
        by_group: dict[int, list[_Node[S]]] = {}
        for node in popped:
            by_group.setdefault(id(node.group), []).append(node)
        parts = []
        for nodes in by_group.values():
            group = nodes[0].group
            assert group is not None
            idx = torch.tensor([nd.row for nd in nodes], dtype=torch.long, device=self.device)
            parts.append((nodes, self.model.reorder(group.state, idx)))
        concat = concat_states_of(self.model)
        if concat is not None and len(parts) > 1:  # one step for the whole round
            parts = [([nd for nodes, _ in parts for nd in nodes], concat([st for _, st in parts]))]
        for nodes, sub in parts:
            prev = torch.tensor([nd.prev for nd in nodes], dtype=torch.long, device=self.device)
            probs, attn, new_state = self.model.step(sub, prev)
            check_step(probs, len(nodes), self.model.target_size)
            self._push_children(nodes, probs, _Group(new_state, attention_rows(attn)))

    def _push_children(
        self, nodes: list[_Node[S]], probs: torch.Tensor, group: _Group[S]
    ) -> None:
        logp = torch.log(probs.to(torch.float64))
        nz_row, nz_sym = torch.isfinite(logp).nonzero(as_tuple=True)
        vals = logp[nz_row, nz_sym].tolist()
        eos = self.model.eos_id
        for i, y, lp in zip(nz_row.tolist(), nz_sym.tolist(), vals, strict=True):
            parent = nodes[i]
            total = parent.log_prob + lp
            trail = (parent.trail, group, i)
            child: _Node[S]
            if y == eos:
                child = _Node(total, parent.input, parent.tokens, None, i, y, trail)
            elif len(parent.tokens) == self.max_len[parent.input]:
                self.cut_max[parent.input] = max(self.cut_max[parent.input], total)
                continue
            else:
                child = _Node(total, parent.input, (*parent.tokens, y), group, i, y, trail)
            heapq.heappush(self.queues[parent.input], (-total, next(self.counter), child))

    def results(self) -> list[SupportResult]:
        out = []
        for b, q in enumerate(self.queues):
            top = -q[0][0] if q else NEG_INF
            hit_len = self.cut_max[b] > NEG_INF
            complete = not q and not hit_len and not self.hit_budget[b] and not self.more[b]
            unexplored = max(top, self.cut_max[b])
            out.append(
                SupportResult(
                    hypotheses=self.found[b],
                    complete=complete,
                    more_than_cap=self.more[b],
                    hit_max_len=hit_len,
                    hit_budget=self.hit_budget[b],
                    unexplored_max_prob=0.0 if complete else math.exp(unexplored),
                    mass=math.fsum(h.prob for h in self.found[b]),
                    cap=self.cap,
                )
            )
        return out


# Searches run under torch.inference_mode, applied here rather than as decorators so that
# mutation testing (mutmut skips decorated functions; README, Development) reaches their bodies.
enumerate_support = torch.inference_mode()(enumerate_support)
