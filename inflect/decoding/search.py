"""Decoding: greedy and beam search with certificates, support enumeration, teacher forcing,
ensembles.

Everything here talks to a model only through the *Decodable* protocol (see :class:`Decodable`):
``start`` encodes a batch, ``step`` gives the next-symbol probabilities of N rows, ``reorder``
gathers rows. Probabilities are the model's output mapping (softmax or α-entmax), so they may
contain exact zeros; a string's probability is the product of its step probabilities, kept here as
a sum of float64 logarithms with ``log 0 = -inf``, and a zero-probability continuation is never
selected.

Every search takes either a batch (encoded here) or an :class:`Encoded` batch (:func:`encode`):
a caller that searches the same inputs several times — a beam widened where it was not
certified, support enumeration, teacher forcing along the strings found — runs the encoder once
and passes the encoded state (:meth:`Encoded.select` keeps a subset of its inputs).

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

Lengths: ``max_len`` is the largest number of output symbols, EOS not counted: one int for the
whole batch, or a sequence of B ints, one limit per input (so that an input's answer does not
depend on the other inputs of its batch); input b takes at most ``max_len[b] + 1`` steps, the
last of which may only emit EOS. A search that cut a continuation of nonzero probability at the
limit says so (``hit_max_len``).
"""

from __future__ import annotations

import contextlib
import enum
import heapq
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

import torch

from inflect import defaults

__all__ = [
    "DEFAULT_MAX_LEN",
    "Certificate",
    "Decodable",
    "Encoded",
    "Ensemble",
    "ForcedPath",
    "Hypothesis",
    "MemberBatches",
    "SearchResult",
    "SupportResult",
    "beam_search",
    "encode",
    "enumerate_support",
    "greedy",
    "teacher_forced",
]

DEFAULT_MAX_LEN = 100
"""Default largest number of output symbols (EOS not counted)."""

_NEG_INF = float("-inf")


@runtime_checkable
class Decodable(Protocol):
    """What search needs from a model.

    Attributes:
        bos_id, eos_id, pad_id, unk_id: Reserved target symbol ids.
        target_size: V, the number of target symbols.

    Methods:
        start(batch) -> state: encodes a source batch of B inputs; state has B rows, row i the
            start of input i (so that ``reorder(state, rows)`` is the start of those inputs).
        step(state, prev) -> (probs, attention, state): ``prev`` LongTensor[N] (the previous
            symbol of each row); ``probs`` FloatTensor[N, V], rows summing to 1 with exact zeros;
            ``attention`` FloatTensor[N, S] (padding exactly 0).
        reorder(state, index) -> state: rows ``index`` (LongTensor[M]) of ``state``.
        batch_size(batch) -> int: B.

    Optional: ``concat_states(states) -> state`` (rows stacked in list order), used by
    :func:`enumerate_support` to expand prefixes of different earlier steps in one ``step``.
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

    @property
    def rank(self) -> int:
        """2 for full support, 1 for mode only, 0 for none (stronger is larger)."""
        return {"full_support": 2, "mode_only": 1, "none": 0}[self.value]


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
        n_finished: Number of finished strings found (``len(hypotheses)`` or more).
        hit_max_len: True when a continuation of nonzero probability was cut because it would
            have been longer than the input's ``max_len`` (the search stopped at the limit).
        max_len: the input's length limit (output symbols, EOS not counted).
    """

    hypotheses: list[Hypothesis]
    certificate: Certificate
    pruned_max_log_prob: float
    n_finished: int
    hit_max_len: bool = False
    max_len: int | None = None

    @property
    def best(self) -> Hypothesis | None:
        """The most probable finished string, or None if nothing finished."""
        return self.hypotheses[0] if self.hypotheses else None

    @property
    def pruned_max_prob(self) -> float:
        """``exp(pruned_max_log_prob)``."""
        return math.exp(self.pruned_max_log_prob)


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
# the encoded source


@dataclass(frozen=True)
class Encoded:
    """A source batch encoded once (``model.start``), ready for any number of searches.

    Attributes:
        state: the model's start state, one row per input.
        size: B, the number of inputs.
    """

    state: Any
    size: int

    def select(self, model: Decodable, inputs: Sequence[int]) -> Encoded:
        """The encoded start of ``inputs`` (indices into this batch, in the order given)."""
        index = torch.as_tensor(
            list(inputs), dtype=torch.long, device=_device_of(model, self.state)
        )
        return Encoded(model.reorder(self.state, index), len(index))


def encode(model: Decodable, batch: Any) -> Encoded:
    """Run the model's encoder over ``batch`` once (see :class:`Encoded`)."""
    return Encoded(model.start(batch), model.batch_size(batch))


def _encoded(model: Decodable, source: Any) -> Encoded:
    return source if isinstance(source, Encoded) else encode(model, source)


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


MaxLen = int | Sequence[int]
"""A length limit: one int for every input of a batch, or one int per input."""


def _check_len(max_len: MaxLen) -> None:
    values = [max_len] if isinstance(max_len, int) else list(max_len)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"max_len must be a non-negative int, got {value!r}")


def _limits(max_len: MaxLen, n: int) -> list[int]:
    """``max_len`` as one limit per input (B ints).

    Raises:
        ValueError: a sequence of other than ``n`` limits.
    """
    if isinstance(max_len, int):
        return [max_len] * n
    limits = list(max_len)
    if len(limits) != n:
        raise ValueError(f"{len(limits)} length limits (max_len) for a batch of {n} inputs")
    return limits


def _check_positive(**values: Any) -> None:
    for name, value in values.items():
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")


def _check_step(probs: torch.Tensor, n: int, v: int) -> None:
    """Shape check, and no NaN."""
    if probs.shape != (n, v):
        raise ValueError(
            f"model.step returned probabilities of shape {tuple(probs.shape)}, expected ({n}, {v})"
        )
    nan = torch.isnan(probs).any(dim=1)
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


def greedy(model: Decodable, source: Any, max_len: MaxLen = DEFAULT_MAX_LEN) -> list[Hypothesis]:
    """Greedy decoding: the most probable symbol at every step, batched over the B inputs.

    One ``model.step`` call per time step for the whole batch; inputs that emitted EOS are dropped
    from the state with ``model.reorder``. Ties go to the symbol ``torch.max`` picks (the lowest id
    on the CPU).

    Args:
        model: A :class:`Decodable`.
        source: The model's source batch of B inputs, or that batch :func:`encode`\\ d.
        max_len: Largest number of output symbols (EOS not counted): one int, or B ints (one
            per input).

    Returns:
        B hypotheses, in input order. An input still unfinished after its ``max_len`` symbols
        gets a hypothesis with ``finished=False``, those symbols and their probability.

    Raises:
        ValueError: On a negative ``max_len``, a number of limits other than B, or a malformed
            ``model.step`` output.
    """
    _check_len(max_len)
    encoded = _encoded(model, source)
    state, n_inputs = encoded.state, encoded.size
    if n_inputs == 0:
        return []
    device = _device_of(model, state)
    limits = torch.tensor(_limits(max_len, n_inputs), dtype=torch.long, device=device)
    eos, v = model.eos_id, model.target_size
    active = torch.arange(n_inputs, device=device)
    prev = torch.full((n_inputs,), model.bos_id, dtype=torch.long, device=device)
    log_prob = torch.zeros(n_inputs, dtype=torch.float64, device=device)
    history: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]] = []
    finished = torch.zeros(n_inputs, dtype=torch.bool, device=device)
    for t in range(1, int(limits.max()) + 2):
        probs, attn, state = model.step(state, prev)
        _check_step(probs, active.numel(), v)
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
    source: Any,
    beam_size: int = defaults.BEAM_SIZE,
    max_len: MaxLen = DEFAULT_MAX_LEN,
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
        model: A :class:`Decodable` (a model or an :class:`Ensemble`).
        source: The model's source batch of B inputs, or that batch :func:`encode`\\ d.
        beam_size: k ≥ 1, the number of hypotheses kept per input and step.
        max_len: Largest number of output symbols (EOS not counted): one int, or B ints (one
            per input, so that no input's result depends on the others of the batch).
        n_best: Length of the returned lists (default ``beam_size``).

    Returns:
        B :class:`SearchResult` in input order.

    Raises:
        ValueError: On a bad ``beam_size``/``n_best``/``max_len`` (or a number of limits other
            than B) or a malformed ``model.step`` output.
    """
    _check_len(max_len)
    _check_positive(beam_size=beam_size)
    n_best = beam_size if n_best is None else n_best
    _check_positive(n_best=n_best)
    encoded = _encoded(model, source)
    if encoded.size == 0:
        return []
    limits = _limits(max_len, encoded.size)
    search = _BeamSearch(model, encoded, beam_size, n_best, limits)
    for t in range(1, max(limits) + 2):
        if not search.advance(t):
            break
    return search.results()


class _BeamSearch:
    """The state of one batched beam search (see :func:`beam_search`).

    Rows are live hypotheses only, grouped by input in the order of ``active`` (the inputs still
    searched); ``slots`` (n_active, width) gives the row of each beam slot, -1 for an empty one
    (an input with fewer live hypotheses than the beam width). Candidates are scored in the
    padded (n_active, width · V) layout, where an empty slot contributes nothing.
    """

    def __init__(
        self, model: Decodable, encoded: Encoded, k: int, n_best: int, limits: list[int]
    ) -> None:
        n = encoded.size
        self.model, self.state, self.k, self.n_best = model, encoded.state, k, n_best
        self.n_inputs, self.v, self.eos = n, model.target_size, model.eos_id
        self.device = device = _device_of(model, encoded.state)
        self.limits = limits
        self.max_len = torch.tensor(limits, dtype=torch.long, device=device)
        self.hit_len = torch.zeros(n, dtype=torch.bool, device=device)
        f64 = torch.float64
        self.pruned_max = torch.full((n,), _NEG_INF, dtype=f64, device=device)
        self.fin_top = torch.full((n, n_best), _NEG_INF, dtype=f64, device=device)
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
        cand = rows.new_full((n_act * width, self.v), _NEG_INF)
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
        new = torch.where(is_eos, values, _NEG_INF)
        merged = torch.cat([self.fin_top[active], new], dim=1)
        self.fin_top[active] = merged.topk(self.n_best, dim=1).values

    def advance(self, t: int) -> bool:
        """Step ``t``: expand, select, finish, stop. False when no input is left."""
        probs, attn, self.state = self.model.step(self.state, self.prev)
        _check_step(probs, self.prev.numel(), self.v)
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
            others[:, :, self.eos] = _NEG_INF
            cut = others.amax(dim=(1, 2))
            inputs = self.active[rows_l]
            self._prune(inputs, cut)
            self.hit_len[inputs] |= torch.isfinite(cut)
            self._finish(t, torch.isfinite(eos_vals), eos_vals, self.slots[rows_l], inputs)
            if bool(last.all()):
                return False
            cand[rows_l] = _NEG_INF  # nothing of theirs is kept: they stop at this step
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
        live_vals = torch.where(live, top_vals, _NEG_INF)
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
            if hyps and pmax[b] == _NEG_INF and len(found) <= self.n_best:
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
                attn[on, s - 1] = _attn_rows(step_attn).index_select(0, r)
            if s > 1:
                tokens[on, s - 2] = fed.cpu().index_select(0, r)
                cur[on] = parent.cpu().index_select(0, r)  # type: ignore[union-attr]
        token_lists = tokens.tolist()
        return [
            (token_lists[i][: t - 1], None if attn is None else attn[i, :t])
            for i, t in enumerate(steps)
        ]


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
    source: Any,
    cap: int = defaults.MAX_FORMS,
    max_len: MaxLen = DEFAULT_MAX_LEN,
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
        source: The model's source batch of B inputs, or that batch :func:`encode`\\ d.
        cap: Largest number of strings listed per input; the search looks for one more to say
            ``more_than_cap``.
        max_len: Largest number of output symbols (EOS not counted), one int or B ints (one
            per input); longer nonzero prefixes are cut and reported with ``hit_max_len``.
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
    _check_positive(cap=cap, max_expansions=max_expansions, width=width)
    encoded = _encoded(model, source)
    if encoded.size == 0:
        return []
    limits = _limits(max_len, encoded.size)
    search = _Enumeration(model, encoded, cap, limits, max_expansions, width)
    while search.running:
        popped = search.pop_round()
        if popped:
            search.expand(popped)
    return search.results()


class _Enumeration:
    """The state of one batched support enumeration (see :func:`enumerate_support`)."""

    def __init__(
        self,
        model: Decodable,
        encoded: Encoded,
        cap: int,
        max_len: list[int],
        max_expansions: int,
        width: int,
    ) -> None:
        n = encoded.size
        self.model, self.cap, self.max_len = model, cap, max_len
        self.max_expansions, self.width = max_expansions, width
        self.device = _device_of(model, encoded.state)
        self.counter = itertools.count()
        root = _Group(encoded.state, None)
        self.queues: list[list[tuple[float, int, _Node]]] = [
            [(0.0, next(self.counter), _Node(0.0, b, (), root, b, model.bos_id, None))]
            for b in range(n)
        ]
        self.found: list[list[Hypothesis]] = [[] for _ in range(n)]
        self.more = [False] * n
        self.cut_max = [_NEG_INF] * n
        self.expansions = [0] * n
        self.hit_budget = [False] * n
        self.running = set(range(n))

    @staticmethod
    def _emit(node: _Node) -> Hypothesis:
        rows = []
        trail = node.trail
        while trail is not None:
            trail, grp, r = trail
            if grp.attn is not None:
                rows.append(grp.attn[r])
        rows.reverse()
        return Hypothesis(list(node.tokens), node.log_prob, math.exp(node.log_prob), _stack(rows))

    def pop_round(self) -> list[_Node]:
        """Report the finished strings at the top of each queue; pop up to ``width`` prefixes
        per input to expand."""
        popped: list[_Node] = []
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

    def expand(self, popped: list[_Node]) -> None:
        """One ``model.step`` per group of prefixes (one in all with ``concat_states``)."""
        by_group: dict[int, list[_Node]] = {}
        for node in popped:
            by_group.setdefault(id(node.group), []).append(node)
        parts = []
        for nodes in by_group.values():
            group = nodes[0].group
            assert group is not None
            idx = torch.tensor([nd.row for nd in nodes], dtype=torch.long, device=self.device)
            parts.append((nodes, self.model.reorder(group.state, idx)))
        concat = getattr(self.model, "concat_states", None)
        if concat is not None and len(parts) > 1:  # one step for the whole round
            parts = [([nd for nodes, _ in parts for nd in nodes], concat([st for _, st in parts]))]
        for nodes, sub in parts:
            prev = torch.tensor([nd.prev for nd in nodes], dtype=torch.long, device=self.device)
            probs, attn, new_state = self.model.step(sub, prev)
            _check_step(probs, len(nodes), self.model.target_size)
            self._push_children(nodes, probs, _Group(new_state, _attn_rows(attn)))

    def _push_children(self, nodes: list[_Node], probs: torch.Tensor, group: _Group) -> None:
        logp = torch.log(probs.to(torch.float64))
        nz_row, nz_sym = torch.isfinite(logp).nonzero(as_tuple=True)
        vals = logp[nz_row, nz_sym].tolist()
        eos = self.model.eos_id
        for i, y, lp in zip(nz_row.tolist(), nz_sym.tolist(), vals, strict=True):
            parent = nodes[i]
            total = parent.log_prob + lp
            trail = (parent.trail, group, i)
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
            top = -q[0][0] if q else _NEG_INF
            hit_len = self.cut_max[b] > _NEG_INF
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


# --------------------------------------------------------------------------------------------
# teacher forcing


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
    model: Decodable, source: Any, outputs: Sequence[Sequence[int]]
) -> list[ForcedPath]:
    """Run a Decodable along given output strings and record each step's output support size.

    The decoder is fed BOS, then the string's own symbols (teacher forcing), for
    ``len(tokens) + 1`` steps: one per emitted symbol and the last one that emits EOS — the same
    steps (and so the same distributions) as the search that found the string.

    Args:
        model: a Decodable (:class:`inflect.nn.model.Seq2Seq` or :class:`Ensemble`).
        source: its source batch of B inputs, or that batch :func:`encode`\\ d (e.g. the one the
            strings were searched with: no second encoder pass).
        outputs: B target id sequences without BOS/EOS (e.g. ``Hypothesis.tokens``).

    Returns:
        One :class:`ForcedPath` per input, in order.

    Raises:
        ValueError: ``len(outputs)`` differs from the batch size.
    """
    encoded = _encoded(model, source)
    n = encoded.size
    if len(outputs) != n:
        raise ValueError(f"{len(outputs)} output strings for a batch of {n} inputs")
    device = _device_of(model, encoded.state)
    steps = max((len(o) for o in outputs), default=0) + 1
    sizes: list[list[int]] = [[] for _ in range(n)]
    rows: list[list[torch.Tensor]] = [[] for _ in range(n)]
    state = encoded.state
    prev = torch.full((n,), model.bos_id, dtype=torch.long, device=device)
    for t in range(steps):
        probs, attention, state = model.step(state, prev)
        counts = torch.count_nonzero(probs, dim=-1).tolist()
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

    Attributes:
        executor: where set (:meth:`in_parallel`), the members' ``start`` and ``step`` run
            concurrently on it, each in its own thread (whole members are independent work; on
            a busy CPU this beats splitting each small operation over threads, whose barriers
            wait for descheduled threads).

    Raises:
        ValueError: On no members, or members whose target vocabularies differ (the message names
            the members and what differs: ``target_size``, a special id, or a symbol).
    """

    def __init__(self, members: Sequence[Decodable]) -> None:
        self.executor: Executor | None = None
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

    @contextlib.contextmanager
    def in_parallel(self, workers: int) -> Iterator[Ensemble]:
        """Within the block, ``start`` and ``step`` run the members on ``workers`` threads (at
        most one per member; 1: one after the other, as outside the block)."""
        workers = min(workers, len(self.members))
        if workers < 2:
            yield self
            return
        with ThreadPoolExecutor(workers, thread_name_prefix="ensemble") as executor:
            self.executor = executor
            try:
                yield self
            finally:
                self.executor = None

    def _each(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``member.method(*args[i])`` for every member, on :attr:`executor` where set (with the
        caller's inference and grad modes, which are per thread)."""
        calls = [(getattr(m, method), a) for m, a in zip(self.members, args, strict=True)]
        if self.executor is None:
            return [fn(*a) for fn, a in calls]
        inference, grad = torch.is_inference_mode_enabled(), torch.is_grad_enabled()

        def run(fn: Any, a: tuple[Any, ...]) -> Any:
            with torch.inference_mode(inference), torch.set_grad_enabled(grad):
                return fn(*a)

        return [f.result() for f in [self.executor.submit(run, fn, a) for fn, a in calls]]

    def start(self, batch: Any) -> tuple[Any, ...]:
        """Encode ``batch`` (or a :class:`MemberBatches`) with every member."""
        return tuple(self._each("start", [(b,) for b in self._batches(batch)]))

    def step(
        self, state: tuple[Any, ...], prev: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None, tuple[Any, ...]]:
        """Average the members' probabilities (FloatTensor[N, V]) and attention ([N, S])."""
        outs = self._each("step", [(s, prev) for s in state])
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
encode = torch.inference_mode()(encode)
greedy = torch.inference_mode()(greedy)
beam_search = torch.inference_mode()(beam_search)
enumerate_support = torch.inference_mode()(enumerate_support)
teacher_forced = torch.inference_mode()(teacher_forced)
