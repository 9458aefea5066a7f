"""The *Decodable* protocol every search talks to, the encoded source, and the search results.

A search talks to a model only through :class:`Decodable`: ``start`` encodes a batch, ``step``
gives the next-symbol probabilities of N rows, ``reorder`` gathers rows. Probabilities are the
model's output mapping (softmax or α-entmax), so they may contain exact zeros; a string's
probability is the product of its step probabilities, kept as a sum of float64 logarithms with
``log 0 = -inf``, and a zero-probability continuation is never selected.

Every search takes either a batch (encoded there) or an :class:`Encoded` batch (:func:`encode`):
a caller that searches the same inputs several times — a beam widened where it was not
certified, support enumeration, teacher forcing along the strings found — runs the encoder once
and passes the encoded state (:meth:`Encoded.select` keeps a subset of its inputs).

Lengths: ``max_len`` (:data:`MaxLen`) is the largest number of output symbols, EOS not counted:
one int for the whole batch, or a sequence of B ints, one limit per input (so that an input's
answer does not depend on the other inputs of its batch); input b takes at most
``max_len[b] + 1`` steps, the last of which may only emit EOS. A search that cut a continuation
of nonzero probability at the limit says so (``hit_max_len``).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, overload, runtime_checkable

import torch

__all__ = [
    "Certificate",
    "Concatenable",
    "Decodable",
    "Encoded",
    "Hypothesis",
    "MaxLen",
    "SearchResult",
    "SupportResult",
    "encode",
]

NEG_INF = float("-inf")
"""``log 0``: the log probability of a string or prefix of zero probability."""

BatchT_contra = TypeVar("BatchT_contra", contravariant=True)
StateT = TypeVar("StateT")
#: A source batch, as the model's ``start`` takes it.
B = TypeVar("B")
#: The model's decoder state of N rows (opaque to search: only the model reads it).
S = TypeVar("S")


@runtime_checkable
class Decodable(Protocol[BatchT_contra, StateT]):
    """What search needs from a model (:class:`inflect.nn.model.Seq2Seq`, an
    :class:`~inflect.decoding.ensemble.Ensemble`).

    Generic in the model's source batch type (what ``start`` takes) and its decoder state type
    (opaque to search: only ``step``, ``reorder`` and ``concat_states`` read it).

    Attributes:
        bos_id, eos_id, pad_id, unk_id: Reserved target symbol ids.
        target_size: V, the number of target symbols.
        device: where the model's tensors are; search makes its index tensors there.

    Methods:
        start(batch) -> state: encodes a source batch of B inputs; state has B rows, row i the
            start of input i (so that ``reorder(state, rows)`` is the start of those inputs).
        step(state, prev) -> (probs, attention, state): ``prev`` LongTensor[N] (the previous
            symbol of each row); ``probs`` FloatTensor[N, V], rows summing to 1 with exact zeros;
            ``attention`` FloatTensor[N, S] (padding exactly 0), or None for a model without.
        reorder(state, index) -> state: rows ``index`` (LongTensor[M]) of ``state``.
        batch_size(batch) -> int: B.

    Optional: ``concat_states`` (:class:`Concatenable`), used by
    :func:`~inflect.decoding.support.enumerate_support` to expand prefixes of different earlier
    steps in one ``step``; ``target_vocab``, an object whose ``symbols`` list the target symbols
    in id order (:class:`inflect.nn.vocab.Vocab`), which an
    :class:`~inflect.decoding.ensemble.Ensemble` compares between its members.
    """

    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int

    @property
    def target_size(self) -> int: ...

    @property
    def device(self) -> torch.device: ...

    def start(self, batch: BatchT_contra) -> StateT: ...

    def step(
        self, state: StateT, prev: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None, StateT]: ...

    def reorder(self, state: StateT, index: torch.Tensor) -> StateT: ...

    def batch_size(self, batch: BatchT_contra) -> int: ...


class Concatenable(Protocol[StateT]):
    """The optional part of :class:`Decodable`: ``concat_states(states) -> state``, the rows of
    several states stacked in list order (:meth:`inflect.nn.model.Seq2Seq.concat_states`)."""

    def concat_states(self, states: Sequence[StateT]) -> StateT: ...


def concat_states_of(model: Decodable[B, S]) -> Callable[[Sequence[S]], S] | None:
    """The model's optional ``concat_states`` (:class:`Concatenable`), or None where it has none
    (an :class:`~inflect.decoding.ensemble.Ensemble` has it exactly when every member has)."""
    concat: Callable[[Sequence[S]], S] | None = getattr(model, "concat_states", None)
    return concat


class Certificate(enum.Enum):
    """How exact a beam search was for one input (:mod:`inflect.decoding.beam` says when each
    holds)."""

    FULL_SUPPORT = "full_support"
    MODE_ONLY = "mode_only"
    NONE = "none"

    @property
    def description(self) -> str:
        """The certificate in words, for reports: a statement about the search over the model's
        distribution, never about the language (a certified form can be wrong)."""
        return {
            "full_support": "search exact: these are all the forms the model gives any "
                            "probability",
            "mode_only": "search exact for the first form: it is the model's most probable "
                         "(the list may be incomplete)",
            "none": "search not certified: the model may give a form not listed more probability",
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
class Encoded(Generic[S]):
    """A source batch encoded once (``model.start``), ready for any number of searches.

    Attributes:
        state: the model's start state, one row per input.
        size: B, the number of inputs.
    """

    state: S
    size: int

    def select(self, model: Decodable[B, S], inputs: Sequence[int]) -> Encoded[S]:
        """The encoded start of ``inputs`` (indices into this batch, in the order given)."""
        index = torch.as_tensor(list(inputs), dtype=torch.long, device=model.device)
        return Encoded(model.reorder(self.state, index), len(index))


def encode(model: Decodable[B, S], batch: B) -> Encoded[S]:
    """Run the model's encoder over ``batch`` once (see :class:`Encoded`)."""
    return Encoded(model.start(batch), model.batch_size(batch))


def as_encoded(model: Decodable[B, S], source: B | Encoded[S]) -> Encoded[S]:
    """``source`` itself where it is :class:`Encoded`, else the batch :func:`encode`\\ d."""
    return source if isinstance(source, Encoded) else encode(model, source)


# --------------------------------------------------------------------------------------------
# checks shared by the searches

MaxLen = int | Sequence[int]
"""A length limit: one int for every input of a batch, or one int per input."""


def check_len(max_len: MaxLen) -> None:
    """Raises ValueError unless ``max_len`` is one or several non-negative ints."""
    values = [max_len] if isinstance(max_len, int) else list(max_len)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"max_len must be a non-negative int, got {value!r}")


def limits_of(max_len: MaxLen, n: int) -> list[int]:
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


def check_positive(**values: object) -> None:
    """Raises ValueError naming the first of ``values`` that is not a positive int."""
    for name, value in values.items():
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")


def check_step(probs: torch.Tensor, n: int, v: int) -> None:
    """Raises ValueError unless ``probs`` (a ``step`` output) is (n, v) and free of NaN."""
    if probs.shape != (n, v):
        raise ValueError(
            f"model.step returned probabilities of shape {tuple(probs.shape)}, expected ({n}, {v})"
        )
    nan = torch.isnan(probs).any(dim=1)
    if bool(nan.any()):
        raise ValueError(f"model.step returned NaN probabilities in row {int(nan.nonzero()[0])}")


@overload
def attention_rows(attn: torch.Tensor) -> torch.Tensor: ...


@overload
def attention_rows(attn: None) -> None: ...


def attention_rows(attn: torch.Tensor | None) -> torch.Tensor | None:
    """A step's attention (N, S) as float32 on the CPU, or None."""
    return None if attn is None else attn.detach().to("cpu", torch.float32)


def stack_rows(rows: list[torch.Tensor]) -> torch.Tensor | None:
    """The attention rows of one string as (T, S), or None where there are none."""
    if not rows:
        return None
    return torch.stack(rows)


# Searches run under torch.inference_mode, applied here rather than as decorators so that
# mutation testing (mutmut skips decorated functions; README, Development) reaches their bodies.
encode = torch.inference_mode()(encode)
