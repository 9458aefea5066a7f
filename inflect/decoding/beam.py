"""Beam search with n-best lists and certificates, batched over the inputs of a batch.

Certificates (per input of :func:`beam_search`, :class:`~inflect.decoding.protocol.Certificate`):

- :attr:`Certificate.FULL_SUPPORT`: beam search pruned no continuation of nonzero probability and
  dropped no finished string, so the n-best list holds *every* string of nonzero probability (its
  probabilities then sum to 1 up to float error); its first entry is the true mode. This is the
  exactness criterion of Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models",
  ACL, §5 (there: finished probabilities summing to 1), checked here structurally so that a
  pruned continuation of tiny nonzero probability is never hidden by the float tolerance.
- :attr:`Certificate.MODE_ONLY`: the best finished string's probability is at least the
  probability of every prefix the beam pruned (continuations cut at a step, live hypotheses at the
  early stop and continuations past ``max_len``). A string extending a pruned prefix cannot be more
  probable than that prefix, so the best finished string is the true mode. Valid for softmax too.
- :attr:`Certificate.NONE`: neither holds.

Probabilities and length limits are those of every search (:mod:`inflect.decoding.protocol`).
"""

from __future__ import annotations

import math
from typing import Generic

import torch

from inflect import defaults
from inflect.decoding.protocol import (
    NEG_INF,
    B,
    Certificate,
    Decodable,
    Encoded,
    Hypothesis,
    MaxLen,
    S,
    SearchResult,
    as_encoded,
    attention_rows,
    check_len,
    check_positive,
    check_step,
    limits_of,
)

__all__ = ["beam_search"]


def beam_search(
    model: Decodable[B, S],
    source: B | Encoded[S],
    beam_size: int = defaults.BEAM_SIZE,
    max_len: MaxLen = defaults.SEARCH_MAX_LEN,
    n_best: int | None = None,
) -> list[SearchResult]:
    """Beam search with n-best lists and certificates, batched over the B inputs.

    At every step the candidates of an input are its live hypotheses extended by every symbol of
    nonzero probability; the ``beam_size`` most probable (no length penalty) are kept, those ending
    in EOS become finished strings, the rest stay live. A beam with fewer than ``beam_size``
    nonzero candidates keeps only those. The live hypotheses of all inputs go through one
    ``model.step`` per time step (only live ones: an input's beam holds as many rows as it has
    live hypotheses); selection uses ``model.reorder``. An input stops when it has no live
    hypothesis, or when it has ``n_best`` finished strings and the ``n_best``-th is at least as
    probable as its best live prefix (no continuation could then enter the list). At an input's
    step ``max_len + 1`` its every EOS candidate is finished and every other continuation pruned
    (and ``hit_max_len`` set when one had nonzero probability). Ties
    between equally probable candidates are broken by ``torch.topk``.

    Every continuation of nonzero probability that is not kept is recorded as pruned (the largest
    such probability per input), which gives the certificates (Peters, Niculae & Martins 2019, §5;
    see the module docstring).

    Args:
        model: A :class:`~inflect.decoding.protocol.Decodable` (a model or an
            :class:`~inflect.decoding.ensemble.Ensemble`).
        source: The model's source batch of B inputs, or that batch
            :func:`~inflect.decoding.protocol.encode`\\ d.
        beam_size: k ≥ 1, the number of hypotheses kept per input and step.
        max_len: Largest number of output symbols (EOS not counted): one int, or B ints (one
            per input, so that no input's result depends on the others of the batch).
        n_best: Length of the returned lists (default ``beam_size``).

    Returns:
        B :class:`~inflect.decoding.protocol.SearchResult` in input order.

    Raises:
        ValueError: On a bad ``beam_size``/``n_best``/``max_len`` (or a number of limits other
            than B) or a malformed ``model.step`` output.
    """
    check_len(max_len)
    check_positive(beam_size=beam_size)
    n_best = beam_size if n_best is None else n_best
    check_positive(n_best=n_best)
    encoded = as_encoded(model, source)
    if encoded.size == 0:
        return []
    limits = limits_of(max_len, encoded.size)
    search = _BeamSearch(model, encoded, beam_size, n_best, limits)
    for t in range(1, max(limits) + 2):
        if not search.advance(t):
            break
    return search.results()


class _BeamSearch(Generic[B, S]):
    """The state of one batched beam search (see :func:`beam_search`).

    Rows are live hypotheses only, grouped by input in the order of ``active`` (the inputs still
    searched); ``slots`` (n_active, width) gives the row of each beam slot, -1 for an empty one
    (an input with fewer live hypotheses than the beam width). Candidates are scored in the
    padded (n_active, width · V) layout, where an empty slot contributes nothing.
    """

    def __init__(
        self, model: Decodable[B, S], encoded: Encoded[S], k: int, n_best: int, limits: list[int]
    ) -> None:
        n = encoded.size
        self.model, self.state, self.k, self.n_best = model, encoded.state, k, n_best
        self.n_inputs, self.v, self.eos = n, model.target_size, model.eos_id
        self.device = device = model.device
        self.limits = limits
        self.max_len = torch.tensor(limits, dtype=torch.long, device=device)
        self.hit_len = torch.zeros(n, dtype=torch.bool, device=device)
        f64 = torch.float64
        self.pruned_max = torch.full((n,), NEG_INF, dtype=f64, device=device)
        self.fin_top = torch.full((n, n_best), NEG_INF, dtype=f64, device=device)
        # finished strings, per step: (step, input, row of that step, log prob)
        self.finished: list[tuple[int, torch.Tensor, torch.Tensor, torch.Tensor]] = []
        # per step: (parent row in the previous step or None, symbol fed, attention)
        self.history: list[tuple[torch.Tensor | None, torch.Tensor, torch.Tensor | None]] = []
        self.active = torch.arange(n, device=device)
        self.slots = torch.arange(n, device=device)[:, None]
        self.scores = torch.zeros(n, dtype=f64, device=device)
        self.prev = torch.full((n,), model.bos_id, dtype=torch.long, device=device)
        self.parent: torch.Tensor | None = None

    def _candidates(self, probs: torch.Tensor) -> torch.Tensor:
        """float64 (n_active, width · V): log probability of every one-symbol extension."""
        n_act, width = self.slots.shape
        rows = self.scores[:, None] + torch.log(probs.to(torch.float64))
        if rows.shape[0] == n_act * width:  # every slot holds a row (in order)
            return rows.view(n_act, width * self.v)
        cand = rows.new_full((n_act * width, self.v), NEG_INF)
        filled = (self.slots.view(-1) >= 0).nonzero().squeeze(1)
        cand.index_copy_(0, filled, rows)
        return cand.view(n_act, width * self.v)

    def _prune(self, inputs: torch.Tensor, log_probs: torch.Tensor) -> None:
        self.pruned_max[inputs] = torch.maximum(self.pruned_max[inputs], log_probs)

    def _finish(
        self,
        t: int,
        is_eos: torch.Tensor,
        values: torch.Tensor,
        rows: torch.Tensor,
        active: torch.Tensor | None = None,
    ) -> None:
        """Record the EOS candidates ``is_eos`` (n, j) of step ``t`` of the inputs ``active``
        (default: every active input)."""
        active = self.active if active is None else active
        if not bool(is_eos.any()):
            return
        a_idx, j_idx = is_eos.nonzero(as_tuple=True)
        self.finished.append((t, active[a_idx], rows[a_idx, j_idx], values[a_idx, j_idx]))
        new = torch.where(is_eos, values, NEG_INF)
        merged = torch.cat([self.fin_top[active], new], dim=1)
        self.fin_top[active] = merged.topk(self.n_best, dim=1).values

    def advance(self, t: int) -> bool:
        """Step ``t``: expand, select, finish, stop. False when no input is left."""
        probs, attn, self.state = self.model.step(self.state, self.prev)
        check_step(probs, self.prev.numel(), self.v)
        self.history.append((self.parent, self.prev, attn))
        cand = self._candidates(probs)
        width = self.slots.shape[1]
        v = self.v
        last = self.max_len[self.active] + 1 == t  # inputs at their last step: only EOS
        if bool(last.any()):
            rows_l = last.nonzero().squeeze(1)
            per_slot = cand[rows_l].view(-1, width, v)
            eos_vals = per_slot[:, :, self.eos]
            others = per_slot.clone()
            others[:, :, self.eos] = NEG_INF
            cut = others.amax(dim=(1, 2))
            inputs = self.active[rows_l]
            self._prune(inputs, cut)
            self.hit_len[inputs] |= torch.isfinite(cut)
            self._finish(t, torch.isfinite(eos_vals), eos_vals, self.slots[rows_l], inputs)
            if bool(last.all()):
                return False
            cand[rows_l] = NEG_INF  # nothing of theirs is kept: they stop at this step
        kk = min(self.k, width * v)
        # one more than kept: its value is the best candidate pruned
        top_vals, top_idx = cand.topk(min(kk + 1, width * v), dim=1)
        if top_vals.shape[1] > kk:
            self._prune(self.active, top_vals[:, kk])
            top_vals, top_idx = top_vals[:, :kk], top_idx[:, :kk]
        valid = torch.isfinite(top_vals)
        sym = top_idx % v
        rows = self.slots.gather(1, top_idx // v)  # the row each candidate extends
        is_eos = valid & (sym == self.eos)
        live = valid & ~is_eos
        self._finish(t, is_eos, top_vals, rows)
        live_vals = torch.where(live, top_vals, NEG_INF)
        live_max = live_vals.max(dim=1).values
        done = ~live.any(dim=1) | (self.fin_top[self.active, -1] >= live_max)
        if bool(done.any()):  # live hypotheses of a stopped input are pruned
            d = done.nonzero().squeeze(1)
            self._prune(self.active[d], live_max[d])
        keep = (~done).nonzero().squeeze(1)
        if keep.numel() == 0:
            return False
        live = live[keep]
        a_new, j_new = live.nonzero(as_tuple=True)
        self.parent = rows[keep][a_new, j_new]
        self.scores = top_vals[keep][a_new, j_new]
        self.prev = sym[keep][a_new, j_new]
        self.active = self.active[keep]
        self.slots = torch.full(live.shape, -1, dtype=torch.long, device=self.device)
        self.slots[a_new, j_new] = torch.arange(a_new.numel(), device=self.device)
        self.state = self.model.reorder(self.state, self.parent)
        return True

    def results(self) -> list[SearchResult]:
        """One :class:`SearchResult` per input, with its n-best list backtracked."""
        per_input: list[list[tuple[float, int, int]]] = [[] for _ in range(self.n_inputs)]
        for t, inp, row, lp in self.finished:
            for b, r, x in zip(inp.tolist(), row.tolist(), lp.tolist(), strict=True):
                per_input[b].append((x, t, r))
        # stable sort: earlier finish first on ties
        fins = [sorted(found, key=lambda x: -x[0]) for found in per_input]
        chosen = [f for found in fins for f in found[: self.n_best]]
        paths = iter(self._backtrack([t for _, t, _ in chosen], [r for _, _, r in chosen]))
        pmax = self.pruned_max.tolist()
        hit_len = self.hit_len.tolist()
        results = []
        for b, found in enumerate(fins):
            hyps = [
                Hypothesis(toks, lp, math.exp(lp), att)
                for (lp, _, _), (toks, att) in zip(found[: self.n_best], paths, strict=False)
            ]
            if hyps and pmax[b] == NEG_INF and len(found) <= self.n_best:
                cert = Certificate.FULL_SUPPORT
            elif hyps and hyps[0].log_prob >= pmax[b]:
                cert = Certificate.MODE_ONLY
            else:
                cert = Certificate.NONE
            results.append(
                SearchResult(hyps, cert, pmax[b], len(found), bool(hit_len[b]), self.limits[b])
            )
        return results

    def _backtrack(
        self, steps: list[int], rows: list[int]
    ) -> list[tuple[list[int], torch.Tensor | None]]:
        """The tokens and attention rows of the K strings that finished at ``steps`` in
        ``rows``, followed back through the parents, all K together (one pass over the steps)."""
        if not steps:
            return []
        k, longest = len(steps), max(steps)
        ends = torch.tensor(steps)
        cur = torch.tensor(rows)
        tokens = torch.full((k, longest), -1, dtype=torch.long)
        first_attn = self.history[0][2]
        attn = None if first_attn is None else torch.zeros((k, longest, first_attn.shape[1]))
        for s in range(longest, 0, -1):
            on = (ends >= s).nonzero().squeeze(1)
            r = cur.index_select(0, on)
            parent, fed, step_attn = self.history[s - 1]
            if attn is not None and step_attn is not None:
                attn[on, s - 1] = attention_rows(step_attn).index_select(0, r)
            if s > 1:
                tokens[on, s - 2] = fed.cpu().index_select(0, r)
                cur[on] = parent.cpu().index_select(0, r)  # type: ignore[union-attr]
        token_lists = tokens.tolist()
        return [
            (token_lists[i][: t - 1], None if attn is None else attn[i, :t])
            for i, t in enumerate(steps)
        ]


# Searches run under torch.inference_mode, applied here rather than as decorators so that
# mutation testing (mutmut skips decorated functions; README, Development) reaches their bodies.
beam_search = torch.inference_mode()(beam_search)
