"""Decoding: greedy and beam search with certificates, support enumeration, ensembles.

Everything here talks to a model only through the *Decodable* protocol (see :class:`Decodable`):
``start`` encodes a batch, ``step`` gives the next-symbol probabilities of N rows, ``reorder``
gathers rows. Probabilities are the model's output mapping (softmax or α-entmax), so they may
contain exact zeros; a string's probability is the product of its step probabilities, kept here as
a sum of float64 logarithms with ``log 0 = -inf``, and a zero-probability continuation is never
selected.

Certificates (per input of :func:`beam_search`):

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

Lengths: ``max_len`` is the largest number of output symbols, EOS not counted; a search takes at
most ``max_len + 1`` steps, the last of which may only emit EOS.
"""

from __future__ import annotations

import enum
import heapq
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import torch

__all__ = [
    "DEFAULT_MAX_LEN",
    "Certificate",
    "Decodable",
    "Ensemble",
    "Hypothesis",
    "MemberBatches",
    "SearchResult",
    "SupportResult",
    "beam_search",
    "enumerate_support",
    "greedy",
]

DEFAULT_MAX_LEN = 100
"""Default largest number of output symbols (EOS not counted)."""

_NEG_INF = float("-inf")


@runtime_checkable
class Decodable(Protocol):
    """What search needs from a model (see ``/work/notes/contracts.md``).

    Attributes:
        bos_id, eos_id, pad_id, unk_id: Reserved target symbol ids.
        target_size: V, the number of target symbols.

    Methods:
        start(batch) -> state: encodes a source batch of B inputs; state has B rows.
        step(state, prev) -> (probs, attention, state): ``prev`` LongTensor[N] (the previous
            symbol of each row); ``probs`` FloatTensor[N, V], rows summing to 1 with exact zeros;
            ``attention`` FloatTensor[N, S] (padding exactly 0).
        reorder(state, index) -> state: rows ``index`` (LongTensor[M]) of ``state``.
        batch_size(batch) -> int: B.
    """

    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int
    target_size: int

    def start(self, batch: Any) -> Any: ...

    def step(self, state: Any, prev: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, Any]: ...

    def reorder(self, state: Any, index: torch.Tensor) -> Any: ...

    def batch_size(self, batch: Any) -> int: ...


class Certificate(enum.Enum):
    """How exact a beam search was for one input (see the module docstring)."""

    FULL_SUPPORT = "full_support"
    MODE_ONLY = "mode_only"
    NONE = "none"

    @property
    def description(self) -> str:
        """The certificate in words, for reports."""
        return {
            "full_support": "exact: the list is every form of nonzero probability",
            "mode_only": "exact: the first form is the most probable one (list may be incomplete)",
            "none": "not certified: a more probable form may have been pruned",
        }[self.value]


@dataclass
class Hypothesis:
    """One output string.

    Attributes:
        tokens: Target symbol ids, without BOS and EOS.
        log_prob: Natural log of the string's probability (float64 sum of step log-probabilities;
            for an unfinished greedy output, of the prefix).
        prob: ``exp(log_prob)``.
        attention: FloatTensor[T, S] on the CPU: row i is the attention of the step that emitted
            symbol i; a finished string has ``T = len(tokens) + 1`` (the last row emitted EOS), an
            unfinished one ``T = len(tokens)``. S is the padded source length of the batch.
            None where the model gave no attention.
        finished: False only for a greedy output that reached ``max_len`` without EOS.
    """

    tokens: list[int]
    log_prob: float
    prob: float
    attention: torch.Tensor | None
    finished: bool = True


@dataclass
class SearchResult:
    """The beam search outcome for one input.

    Attributes:
        hypotheses: The n-best finished strings, most probable first (may be empty).
        certificate: See :class:`Certificate`.
        pruned_max_log_prob: Log of the largest probability of a pruned prefix (-inf if none had
            nonzero probability): an upper bound on every string the search did not finish.
        pruned_log_mass: Log of the total probability of the pruned prefixes (they are disjoint,
            so this is the probability mass the search never explored).
        finished_mass: Sum of the probabilities in ``hypotheses`` (1 for full support, up to
            float error).
        n_finished: Number of finished strings found (``len(hypotheses)`` or more).
    """

    hypotheses: list[Hypothesis]
    certificate: Certificate
    pruned_max_log_prob: float
    pruned_log_mass: float
    finished_mass: float
    n_finished: int

    @property
    def best(self) -> Hypothesis | None:
        """The most probable finished string, or None if nothing finished."""
        return self.hypotheses[0] if self.hypotheses else None

    @property
    def pruned_max_prob(self) -> float:
        """``exp(pruned_max_log_prob)``."""
        return math.exp(self.pruned_max_log_prob)

    @property
    def pruned_mass(self) -> float:
        """``exp(pruned_log_mass)``."""
        return math.exp(self.pruned_log_mass)


@dataclass
class SupportResult:
    """The support enumeration outcome for one input.

    Attributes:
        hypotheses: Strings of nonzero probability, most probable first, with exact probabilities;
            at most ``cap``. When ``complete``, this is every string of nonzero probability.
        complete: True when the list is the model's whole support.
        more_than_cap: True when a further string of nonzero probability exists beyond the
            ``cap`` listed (the list is then exactly the ``cap`` most probable strings).
        hit_max_len: True when a nonzero-probability prefix longer than ``max_len`` was cut.
        hit_budget: True when the search stopped at ``max_expansions`` expanded prefixes.
        unexplored_max_prob: An upper bound on the probability of any nonzero string not listed
            (0 when complete).
        mass: Sum of the listed probabilities.
        cap: The cap used.
    """

    hypotheses: list[Hypothesis]
    complete: bool
    more_than_cap: bool
    hit_max_len: bool
    hit_budget: bool
    unexplored_max_prob: float
    mass: float
    cap: int


# --------------------------------------------------------------------------------------------
# helpers


def _device_of(model: Any, state: Any) -> torch.device:
    """The device of the model's tensors: ``model.device``, its parameters, or the state's."""
    dev = getattr(model, "device", None)
    if isinstance(dev, torch.device | str):
        return torch.device(dev)
    params = getattr(model, "parameters", None)
    if callable(params):
        for p in params():
            return p.device
    todo = [state]
    while todo:
        x = todo.pop()
        if isinstance(x, torch.Tensor):
            return x.device
        if isinstance(x, Mapping):
            todo.extend(x.values())
        elif isinstance(x, list | tuple):
            todo.extend(x)
    return torch.device("cpu")


def _check_len(max_len: int) -> None:
    if not isinstance(max_len, int) or max_len < 0:
        raise ValueError(f"max_len must be a non-negative int, got {max_len!r}")


def _check_step(probs: torch.Tensor, n: int, v: int, live: torch.Tensor | None = None) -> None:
    """Shape check, and no NaN in the rows that matter (``live``: bool[N], default all)."""
    if probs.shape != (n, v):
        raise ValueError(
            f"model.step returned probabilities of shape {tuple(probs.shape)}, expected ({n}, {v})"
        )
    nan = torch.isnan(probs).any(dim=1)
    if live is not None:
        nan &= live
    if bool(nan.any()):
        raise ValueError(f"model.step returned NaN probabilities in row {int(nan.nonzero()[0])}")


def _attn_rows(attn: torch.Tensor | None) -> torch.Tensor | None:
    return None if attn is None else attn.detach().to("cpu", torch.float32)


def _stack(rows: list[torch.Tensor]) -> torch.Tensor | None:
    if not rows:
        return None
    return torch.stack(rows)


# --------------------------------------------------------------------------------------------
# greedy


def greedy(model: Decodable, batch: Any, max_len: int = DEFAULT_MAX_LEN) -> list[Hypothesis]:
    """Greedy decoding: the most probable symbol at every step, batched over the B inputs.

    One ``model.step`` call per time step for the whole batch; inputs that emitted EOS are dropped
    from the state with ``model.reorder``. Ties go to the symbol ``torch.max`` picks (the lowest id
    on the CPU).

    Args:
        model: A :class:`Decodable`.
        batch: The model's encoded source batch of B inputs.
        max_len: Largest number of output symbols (EOS not counted).

    Returns:
        B hypotheses, in input order. An input still unfinished after ``max_len`` symbols gets a
        hypothesis with ``finished=False``, its ``max_len`` symbols and their probability.

    Raises:
        ValueError: On a negative ``max_len`` or a malformed ``model.step`` output.
    """
    _check_len(max_len)
    state = model.start(batch)
    n_inputs = model.batch_size(batch)
    if n_inputs == 0:
        return []
    device = _device_of(model, state)
    eos, v = model.eos_id, model.target_size
    active = torch.arange(n_inputs, device=device)
    prev = torch.full((n_inputs,), model.bos_id, dtype=torch.long, device=device)
    log_prob = torch.zeros(n_inputs, dtype=torch.float64, device=device)
    history: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]] = []
    finished = torch.zeros(n_inputs, dtype=torch.bool, device=device)
    for t in range(1, max_len + 2):
        probs, attn, state = model.step(state, prev)
        _check_step(probs, active.numel(), v)
        p, y = probs.max(dim=1)
        is_eos = y == eos
        # the last step may only emit EOS: any other symbol leaves the input unfinished
        take = is_eos if t == max_len + 1 else torch.ones_like(is_eos)
        log_prob.index_add_(0, active, torch.where(take, torch.log(p.double()), 0.0))
        history.append((active, y, take, attn))
        finished[active[is_eos]] = True
        keep = ~is_eos
        if t == max_len + 1 or not bool(keep.any()):
            break
        if not bool(keep.all()):
            idx = keep.nonzero().squeeze(1)
            state = model.reorder(state, idx)
            active, y = active[idx], y[idx]
        prev = y
    tokens: list[list[int]] = [[] for _ in range(n_inputs)]
    rows: list[list[torch.Tensor]] = [[] for _ in range(n_inputs)]
    for act, y, take, attn in history:
        a_cpu = _attn_rows(attn)
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
        Hypothesis(tokens[b], lp[b], math.exp(lp[b]), _stack(rows[b]), fin[b])
        for b in range(n_inputs)
    ]


# --------------------------------------------------------------------------------------------
# beam search


def beam_search(
    model: Decodable,
    batch: Any,
    beam_size: int = 5,
    max_len: int = DEFAULT_MAX_LEN,
    n_best: int | None = None,
) -> list[SearchResult]:
    """Beam search with n-best lists and certificates, batched over the B inputs.

    At every step the candidates of an input are its live hypotheses extended by every symbol of
    nonzero probability; the ``beam_size`` most probable (no length penalty) are kept, those ending
    in EOS become finished strings, the rest stay live. A beam with fewer than ``beam_size``
    nonzero candidates keeps only those. The rows of all inputs (B × beam_size) go through one
    ``model.step`` per time step; selection uses ``model.reorder``. An input stops when it has no
    live hypothesis, or when it has ``n_best`` finished strings and the ``n_best``-th is at least
    as probable as its best live prefix (no continuation could then enter the list). At step
    ``max_len + 1`` every EOS candidate is finished and every other continuation pruned. Ties
    between equally probable candidates are broken by ``torch.topk``.

    Every continuation of nonzero probability that is not kept is recorded as pruned (its maximum
    and total), which gives the certificates (Peters, Niculae & Martins 2019, §5; see the module
    docstring).

    Args:
        model: A :class:`Decodable` (a model or an :class:`Ensemble`).
        batch: The model's encoded source batch of B inputs.
        beam_size: k ≥ 1, the number of hypotheses kept per input and step.
        max_len: Largest number of output symbols (EOS not counted).
        n_best: Length of the returned lists (default ``beam_size``).

    Returns:
        B :class:`SearchResult` in input order.

    Raises:
        ValueError: On a bad ``beam_size``/``n_best``/``max_len`` or a malformed ``model.step``
            output.
    """
    _check_len(max_len)
    if not isinstance(beam_size, int) or beam_size < 1:
        raise ValueError(f"beam_size must be a positive int, got {beam_size!r}")
    n_best = beam_size if n_best is None else n_best
    if not isinstance(n_best, int) or n_best < 1:
        raise ValueError(f"n_best must be a positive int, got {n_best!r}")
    state = model.start(batch)
    n_inputs = model.batch_size(batch)
    if n_inputs == 0:
        return []
    device = _device_of(model, state)
    v, eos, k = model.target_size, model.eos_id, beam_size
    f64 = torch.float64
    neg_inf = torch.tensor(_NEG_INF, dtype=f64, device=device)

    pruned_max = torch.full((n_inputs,), _NEG_INF, dtype=f64, device=device)
    pruned_lse = torch.full((n_inputs,), _NEG_INF, dtype=f64, device=device)
    fin_top = torch.full((n_inputs, n_best), _NEG_INF, dtype=f64, device=device)
    # finished strings: per step, (input, row of that step, log prob) tensors
    fin_records: list[tuple[int, torch.Tensor, torch.Tensor, torch.Tensor]] = []
    # per step: (parent row in the previous step or None, symbol fed, attention)
    history: list[tuple[torch.Tensor | None, torch.Tensor, torch.Tensor | None]] = []

    def add_pruned(inputs: torch.Tensor, mx: torch.Tensor, lse: torch.Tensor) -> None:
        pruned_max[inputs] = torch.maximum(pruned_max[inputs], mx)
        pruned_lse[inputs] = torch.logaddexp(pruned_lse[inputs], lse)

    active = torch.arange(n_inputs, device=device)
    width = 1
    scores = torch.zeros(n_inputs, dtype=f64, device=device)
    prev = torch.full((n_inputs,), model.bos_id, dtype=torch.long, device=device)
    parent: torch.Tensor | None = None
    for t in range(1, max_len + 2):
        n_rows = active.numel() * width
        probs, attn, state = model.step(state, prev)
        _check_step(probs, n_rows, v, torch.isfinite(scores))  # dead slots may hold anything
        history.append((parent, prev, attn))
        n_act = active.numel()
        logp = torch.log(probs.to(f64))
        cand = torch.where(torch.isfinite(scores)[:, None], scores[:, None] + logp, neg_inf)
        cand = cand.view(n_act, width * v)
        last = t == max_len + 1
        if last:
            sel = torch.zeros_like(cand, dtype=torch.bool)
            sel.view(n_act, width, v)[:, :, eos] = True
            eos_vals = cand.view(n_act, width, v)[:, :, eos]
            is_eos = torch.isfinite(eos_vals)
            rows = torch.arange(n_act, device=device)[:, None] * width + torch.arange(
                width, device=device
            )
            top_vals = eos_vals
        else:
            kk = min(k, width * v)
            top_vals, top_idx = cand.topk(kk, dim=1)
            valid = torch.isfinite(top_vals)
            sel = torch.zeros_like(cand, dtype=torch.bool).scatter_(1, top_idx, valid)
            sym = top_idx % v
            origin = top_idx // v
            rows = torch.arange(n_act, device=device)[:, None] * width + origin
            is_eos = valid & (sym == eos)
            live = valid & ~is_eos
        rest = cand.masked_fill(sel, _NEG_INF)
        add_pruned(active, rest.max(dim=1).values, torch.logsumexp(rest, dim=1))
        if bool(is_eos.any()):
            a_idx, j_idx = is_eos.nonzero(as_tuple=True)
            fin_records.append((t, active[a_idx], rows[a_idx, j_idx], top_vals[a_idx, j_idx]))
            new_fin = torch.where(is_eos, top_vals, neg_inf)
            merged = torch.cat([fin_top[active], new_fin], dim=1)
            fin_top[active] = merged.topk(n_best, dim=1).values
        if last:
            break
        live_vals = torch.where(live, top_vals, neg_inf)
        live_max = live_vals.max(dim=1).values
        done = ~live.any(dim=1) | (fin_top[active, -1] >= live_max)
        if bool(done.any()):
            d = done.nonzero().squeeze(1)
            add_pruned(active[d], live_max[d], torch.logsumexp(live_vals[d], dim=1))
        keep = (~done).nonzero().squeeze(1)
        if keep.numel() == 0:
            break
        parent = rows[keep].reshape(-1)
        scores = live_vals[keep].reshape(-1)
        prev = torch.where(live, sym, model.pad_id)[keep].reshape(-1)
        active = active[keep]
        width = kk
        state = model.reorder(state, parent)

    # ---- backtracking (on the CPU)
    parents = [None if p is None else p.tolist() for p, _, _ in history]
    fed = [s.tolist() for _, s, _ in history]
    attns = [_attn_rows(a) for _, _, a in history]
    per_input: list[list[tuple[float, int, int]]] = [[] for _ in range(n_inputs)]
    for t, inp, row, lp in fin_records:
        for b, r, x in zip(inp.tolist(), row.tolist(), lp.tolist(), strict=True):
            per_input[b].append((x, t, r))

    def backtrack(t: int, r: int) -> tuple[list[int], torch.Tensor | None]:
        toks: list[int] = []
        arows: list[torch.Tensor] = []
        for s in range(t, 0, -1):
            a = attns[s - 1]
            if a is not None:
                arows.append(a[r])
            if s > 1:
                toks.append(fed[s - 1][r])
                r = parents[s - 1][r]  # type: ignore[index]
        toks.reverse()
        arows.reverse()
        return toks, _stack(arows)

    pmax = pruned_max.tolist()
    plse = pruned_lse.tolist()
    results = []
    for b in range(n_inputs):
        fins = sorted(per_input[b], key=lambda x: -x[0])  # stable: earlier finish first on ties
        hyps = []
        for lp, t, r in fins[:n_best]:
            toks, att = backtrack(t, r)
            hyps.append(Hypothesis(toks, lp, math.exp(lp), att))
        if hyps and pmax[b] == _NEG_INF and len(fins) <= n_best:
            cert = Certificate.FULL_SUPPORT
        elif hyps and hyps[0].log_prob >= pmax[b]:
            cert = Certificate.MODE_ONLY
        else:
            cert = Certificate.NONE
        results.append(
            SearchResult(
                hypotheses=hyps,
                certificate=cert,
                pruned_max_log_prob=pmax[b],
                pruned_log_mass=plse[b],
                finished_mass=math.fsum(h.prob for h in hyps),
                n_finished=len(fins),
            )
        )
    return results


# --------------------------------------------------------------------------------------------
# support enumeration


class _Group:
    """The post-step state of one expansion batch; prefix nodes point at its rows."""

    __slots__ = ("attn", "state")

    def __init__(self, state: Any, attn: torch.Tensor | None) -> None:
        self.state = state
        self.attn = attn


@dataclass
class _Node:
    log_prob: float
    input: int
    tokens: tuple[int, ...]
    group: _Group | None  # None for a finished string (EOS emitted)
    row: int
    prev: int
    trail: tuple | None  # linked list of attention rows: (parent trail, group, row)


def enumerate_support(
    model: Decodable,
    batch: Any,
    cap: int = 100,
    max_len: int = DEFAULT_MAX_LEN,
    *,
    max_expansions: int = 2_000,
    width: int = 8,
) -> list[SupportResult]:
    """Every output string of nonzero probability with its exact probability (best-first).

    A best-first search over prefixes (priority = prefix probability) that expands only symbols of
    nonzero probability. A finished string is reported when it is the most probable item left, so
    strings come out in order of decreasing probability and, when the search stops at ``cap``,
    the list is exactly the ``cap`` most probable strings. Up to ``width`` prefixes per input are
    expanded together: one ``model.step`` call per round if the model has the optional
    ``concat_states(states: list) -> state`` (rows stacked in list order), else one call per
    earlier expansion the prefixes come from (their states cannot be merged through the protocol).

    Args:
        model: A :class:`Decodable`.
        batch: The model's encoded source batch of B inputs.
        cap: Largest number of strings listed per input; the search looks for one more to say
            ``more_than_cap``.
        max_len: Largest number of output symbols (EOS not counted); longer nonzero prefixes are
            cut and reported with ``hit_max_len``.
        max_expansions: Largest number of prefixes expanded per input (a guard for dense, e.g.
            softmax, models); reaching it sets ``hit_budget``.
        width: Prefixes expanded together per input and round.

    Returns:
        B :class:`SupportResult` in input order.

    Raises:
        ValueError: On a bad ``cap``/``max_len``/``max_expansions``/``width`` or a malformed
            ``model.step`` output.
    """
    _check_len(max_len)
    for name, val in (("cap", cap), ("max_expansions", max_expansions), ("width", width)):
        if not isinstance(val, int) or val < 1:
            raise ValueError(f"{name} must be a positive int, got {val!r}")
    state = model.start(batch)
    n_inputs = model.batch_size(batch)
    if n_inputs == 0:
        return []
    device = _device_of(model, state)
    v, eos = model.target_size, model.eos_id
    counter = itertools.count()
    concat = getattr(model, "concat_states", None)
    root = _Group(state, None)
    queues: list[list[tuple[float, int, _Node]]] = [
        [(0.0, next(counter), _Node(0.0, b, (), root, b, model.bos_id, None))]
        for b in range(n_inputs)
    ]
    found: list[list[Hypothesis]] = [[] for _ in range(n_inputs)]
    more = [False] * n_inputs
    cut_max = [_NEG_INF] * n_inputs
    expansions = [0] * n_inputs
    hit_budget = [False] * n_inputs
    running = set(range(n_inputs))

    def emit(node: _Node) -> Hypothesis:
        rows = []
        trail = node.trail
        while trail is not None:
            trail, grp, r = trail
            if grp.attn is not None:
                rows.append(grp.attn[r])
        rows.reverse()
        return Hypothesis(list(node.tokens), node.log_prob, math.exp(node.log_prob), _stack(rows))

    while running:
        popped: list[_Node] = []
        for b in sorted(running):
            q = queues[b]
            while q and q[0][2].group is None:
                if len(found[b]) == cap:
                    more[b] = True  # a (cap + 1)-th string of nonzero probability exists
                    break
                found[b].append(emit(heapq.heappop(q)[2]))
            if more[b] or not q:
                running.discard(b)
                continue
            n = 0
            while q and q[0][2].group is not None and n < width:
                if expansions[b] >= max_expansions:
                    hit_budget[b] = True
                    break
                popped.append(heapq.heappop(q)[2])
                expansions[b] += 1
                n += 1
            if hit_budget[b]:
                running.discard(b)
        if not popped:
            continue
        by_group: dict[int, list[_Node]] = {}
        for node in popped:
            by_group.setdefault(id(node.group), []).append(node)
        parts = []
        for nodes in by_group.values():
            group = nodes[0].group
            assert group is not None
            idx = torch.tensor([nd.row for nd in nodes], dtype=torch.long, device=device)
            parts.append((nodes, model.reorder(group.state, idx)))
        if concat is not None and len(parts) > 1:  # one step for the whole round
            parts = [([nd for nodes, _ in parts for nd in nodes], concat([st for _, st in parts]))]
        for nodes, sub in parts:
            prev = torch.tensor([nd.prev for nd in nodes], dtype=torch.long, device=device)
            probs, attn, new_state = model.step(sub, prev)
            _check_step(probs, len(nodes), v)
            new_group = _Group(new_state, _attn_rows(attn))
            logp = torch.log(probs.to(torch.float64))
            nz_row, nz_sym = torch.isfinite(logp).nonzero(as_tuple=True)
            vals = logp[nz_row, nz_sym].tolist()
            for i, y, lp in zip(nz_row.tolist(), nz_sym.tolist(), vals, strict=True):
                parent = nodes[i]
                total = parent.log_prob + lp
                trail = (parent.trail, new_group, i)
                if y == eos:
                    child = _Node(total, parent.input, parent.tokens, None, i, y, trail)
                elif len(parent.tokens) == max_len:
                    cut_max[parent.input] = max(cut_max[parent.input], total)
                    continue
                else:
                    child = _Node(total, parent.input, (*parent.tokens, y), new_group, i, y, trail)
                heapq.heappush(queues[parent.input], (-total, next(counter), child))

    results = []
    for b in range(n_inputs):
        q = queues[b]
        top = -q[0][0] if q else _NEG_INF
        hit_len = cut_max[b] > _NEG_INF
        complete = not q and not hit_len and not hit_budget[b] and not more[b]
        unexplored = max(top, cut_max[b])
        results.append(
            SupportResult(
                hypotheses=found[b],
                complete=complete,
                more_than_cap=more[b],
                hit_max_len=hit_len,
                hit_budget=hit_budget[b],
                unexplored_max_prob=0.0 if complete else math.exp(unexplored),
                mass=math.fsum(h.prob for h in found[b]),
                cap=cap,
            )
        )
    return results


# --------------------------------------------------------------------------------------------
# ensembles


@dataclass(frozen=True)
class MemberBatches:
    """One encoded batch per ensemble member (for members with different source encodings).

    Attributes:
        batches: ``batches[i]`` is given to ``members[i].start``; all must hold the same B inputs.
    """

    batches: tuple[Any, ...]


def _target_symbols(model: Any) -> list[Any] | None:
    """The member's target vocabulary as a list of symbols in id order, where it exposes one."""
    for attr in ("target_vocab", "target_symbols"):
        vocab = getattr(model, attr, None)
        if vocab is None:
            continue
        for inner in ("symbols", "itos", "id_to_symbol"):
            if hasattr(vocab, inner) and not callable(getattr(vocab, inner)):
                vocab = getattr(vocab, inner)
                break
        if isinstance(vocab, Mapping):  # symbol -> id
            return [s for s, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
        return list(vocab)
    return None


class Ensemble:
    """A :class:`Decodable` averaging its members' next-symbol probabilities.

    At each step the members' probability vectors are averaged (raw probabilities, as in Peters,
    Niculae & Martins 2019, §5: a symbol has nonzero probability when any member gives it some;
    averaging log-probabilities would make every member's zero a veto). The attention is the
    members' mean. State is the tuple of member states.

    Args:
        members: One or more Decodables sharing the target vocabulary.

    Raises:
        ValueError: On no members, or members whose target vocabularies differ (the message names
            the members and what differs: ``target_size``, a special id, or a symbol).
    """

    def __init__(self, members: Sequence[Decodable]) -> None:
        members = tuple(members)
        if not members:
            raise ValueError("an ensemble needs at least one member")
        first = members[0]
        names = ("target_size", "bos_id", "eos_id", "pad_id", "unk_id")
        ref_syms = _target_symbols(first)
        for i, m in enumerate(members[1:], start=1):
            for name in names:
                a, b = getattr(first, name), getattr(m, name)
                if a != b:
                    raise ValueError(
                        f"ensemble members 0 and {i} have different target vocabularies: "
                        f"{name} is {a!r} vs {b!r}"
                    )
            syms = _target_symbols(m)
            if ref_syms is not None and syms is not None and syms != ref_syms:
                j = next(
                    (j for j, (x, y) in enumerate(zip(ref_syms, syms, strict=False)) if x != y),
                    min(len(ref_syms), len(syms)),
                )
                x = ref_syms[j] if j < len(ref_syms) else "<none>"
                y = syms[j] if j < len(syms) else "<none>"
                raise ValueError(
                    f"ensemble members 0 and {i} have different target vocabularies: "
                    f"symbol id {j} is {x!r} vs {y!r}"
                )
        self.members = members
        self.target_size: int = first.target_size
        self.bos_id: int = first.bos_id
        self.eos_id: int = first.eos_id
        self.pad_id: int = first.pad_id
        self.unk_id: int = first.unk_id
        if ref_syms is not None:
            self.target_vocab = getattr(first, "target_vocab", None) or ref_syms

    def __len__(self) -> int:
        return len(self.members)

    @property
    def device(self) -> torch.device | None:
        """The first member's device, where it can be told."""
        m = self.members[0]
        dev = getattr(m, "device", None)
        if dev is not None:
            return torch.device(dev)
        params = getattr(m, "parameters", None)
        if callable(params):
            for p in params():
                return p.device
        return None

    def _batches(self, batch: Any) -> tuple[Any, ...]:
        if isinstance(batch, MemberBatches):
            if len(batch.batches) != len(self.members):
                raise ValueError(
                    f"MemberBatches holds {len(batch.batches)} batches for "
                    f"{len(self.members)} ensemble members"
                )
            return batch.batches
        return (batch,) * len(self.members)

    def batch_size(self, batch: Any) -> int:
        """B, the number of inputs (checked equal across members)."""
        sizes = {m.batch_size(b) for m, b in zip(self.members, self._batches(batch), strict=True)}
        if len(sizes) != 1:
            raise ValueError(f"ensemble members see different batch sizes: {sorted(sizes)}")
        return sizes.pop()

    def start(self, batch: Any) -> tuple[Any, ...]:
        """Encode ``batch`` (or a :class:`MemberBatches`) with every member."""
        return tuple(m.start(b) for m, b in zip(self.members, self._batches(batch), strict=True))

    def step(
        self, state: tuple[Any, ...], prev: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None, tuple[Any, ...]]:
        """Average the members' probabilities (FloatTensor[N, V]) and attention ([N, S])."""
        outs = [m.step(s, prev) for m, s in zip(self.members, state, strict=True)]
        if len(outs) == 1:
            return outs[0][0], outs[0][1], (outs[0][2],)
        probs = torch.stack([o[0] for o in outs]).mean(dim=0)
        attns = [o[1] for o in outs]
        attn = None
        if all(a is not None for a in attns):
            shapes = {tuple(a.shape) for a in attns}
            if len(shapes) != 1:
                raise ValueError(f"ensemble members give attention of different shapes: {shapes}")
            attn = torch.stack(attns).mean(dim=0)
        return probs, attn, tuple(o[2] for o in outs)

    def reorder(self, state: tuple[Any, ...], index: torch.Tensor) -> tuple[Any, ...]:
        """Gather rows ``index`` of every member state."""
        return tuple(m.reorder(s, index) for m, s in zip(self.members, state, strict=True))

    def __getattr__(self, name: str) -> Any:
        # ``concat_states`` exists exactly when every member has it (optional protocol method)
        if name == "concat_states" and all(hasattr(m, name) for m in self.members):

            def concat_states(states: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
                return tuple(
                    m.concat_states([s[i] for s in states]) for i, m in enumerate(self.members)
                )

            return concat_states
        raise AttributeError(name)


# Searches run under torch.inference_mode, applied here rather than as decorators so that
# mutation testing (mutmut skips decorated functions; README, Development) reaches their bodies.
greedy = torch.inference_mode()(greedy)
beam_search = torch.inference_mode()(beam_search)
enumerate_support = torch.inference_mode()(enumerate_support)
