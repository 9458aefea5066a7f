"""Sparsity statistics of a model's predictions: pure functions over simple inputs.

As discussed in Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models" (ACL), for
inflection: how often the whole probability sits on one string, how many strings have nonzero
probability, how often beam search is certified exact (:class:`inflect.decoding.Certificate`), how
many symbols have nonzero probability at a decoding step, and how many source positions the
attention touches. The inputs are per-input lists of string probabilities, certificates, per-step
output support sizes and attention matrices; :mod:`inflect.evaluation.runner` collects them from a
predictor's results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import torch

__all__ = [
    "SparsityStats",
    "attention_statistics",
    "certificate_shares",
    "mean_step_support",
    "mean_support_strings",
    "single_string_share",
    "sparsity_statistics",
]


def _nonzero(probabilities: Sequence[float]) -> list[float]:
    values = [float(p) for p in probabilities]
    for p in values:
        if not (p >= 0.0) or math.isinf(p):
            raise ValueError(f"a probability must be finite and >= 0, got {p!r}")
    return [p for p in values if p > 0.0]


def single_string_share(probabilities: Sequence[Sequence[float]], atol: float = 1e-6) -> float:
    """Share of inputs whose whole probability is on one string.

    An input counts when exactly one string has nonzero probability and that probability is at
    least ``1 - atol`` (so an incomplete list whose only string holds half the mass does not).

    Args:
        probabilities: per input, the probabilities of the strings found (zeros are ignored).
        atol: tolerance on the sum-to-one of float32 step probabilities.

    Returns:
        A fraction in [0, 1]; NaN for no input.

    Raises:
        ValueError: a negative, NaN or infinite probability.
    """
    if not probabilities:
        return math.nan
    hits = 0
    for probs in probabilities:
        nonzero = _nonzero(probs)
        hits += len(nonzero) == 1 and nonzero[0] >= 1.0 - atol
    return hits / len(probabilities)


def mean_support_strings(probabilities: Sequence[Sequence[float]]) -> float:
    """Mean number of nonzero-probability strings per input.

    Args:
        probabilities: per input, the probabilities of the strings found (zeros are ignored).
            Where a list was capped (``SupportResult.more_than_cap``) the count is a lower bound.

    Returns:
        The mean (float); NaN for no input.

    Raises:
        ValueError: a negative, NaN or infinite probability.
    """
    if not probabilities:
        return math.nan
    return sum(len(_nonzero(p)) for p in probabilities) / len(probabilities)


_CERTIFICATES = ("full_support", "mode_only", "none")


def _certificate_name(certificate: Any) -> str:
    value = getattr(certificate, "value", certificate)
    name = "none" if value is None else str(value).lower()
    if name not in _CERTIFICATES:
        raise ValueError(
            f"unknown certificate {certificate!r}; expected one of {', '.join(_CERTIFICATES)}"
        )
    return name


def certificate_shares(certificates: Sequence[Any]) -> dict[str, float]:
    """Share of inputs per beam-search certificate.

    Args:
        certificates: per input, an :class:`inflect.decoding.Certificate` or its value
            (``"full_support"``, ``"mode_only"``, ``"none"``; case-insensitive); None means
            no certificate (greedy search) and counts as ``"none"``.

    Returns:
        ``{"full_support": f, "mode_only": f, "none": f}``, fractions in [0, 1] summing to 1;
        NaN each for no input.

    Raises:
        ValueError: an unknown certificate.
    """
    if not certificates:
        return dict.fromkeys(_CERTIFICATES, math.nan)
    counts = dict.fromkeys(_CERTIFICATES, 0)
    for certificate in certificates:
        counts[_certificate_name(certificate)] += 1
    return {name: count / len(certificates) for name, count in counts.items()}


def mean_step_support(step_supports: Sequence[Sequence[int]]) -> float:
    """Mean output support size per decoding step, pooled over the steps of all inputs.

    Args:
        step_supports: per input, the number of nonzero entries of the output distribution at
            each decoding step (e.g. :attr:`inflect.decoding.ForcedPath.support_sizes`); 1 means the
            step was deterministic.

    Returns:
        ``sum of sizes / number of steps``; NaN when there is no step.

    Raises:
        ValueError: a size < 1 (a distribution has at least one nonzero entry).
    """
    total = steps = 0
    for sizes in step_supports:
        for size in sizes:
            if int(size) < 1:
                raise ValueError(f"a step's support size must be >= 1, got {size!r}")
            total += int(size)
            steps += 1
    return total / steps if steps else math.nan


def _as_numpy(matrix: Any) -> np.ndarray:
    import numpy as np

    if hasattr(matrix, "detach"):
        matrix = matrix.detach().to("cpu").float().numpy()
    return np.asarray(matrix)


def attention_statistics(
    attentions: Sequence[torch.Tensor | np.ndarray],
    source_lengths: Sequence[int] | None = None,
) -> tuple[float, float]:
    """Attention sparsity: attended source positions per target symbol, and density.

    Args:
        attentions: per input, the attention weights [T, S] (row t: the weights of the step that
            emitted target symbol t, e.g. ``Hypothesis.attention``).
        source_lengths: per input, the true source length; columns beyond it (batch padding)
            are left out. Default: all S columns count.

    Returns:
        ``(mean attended, density)``: the number of nonzero weights divided by the number of
        target symbols (rows), pooled over all inputs; and the nonzero weights divided by all
        weights (rows x true source length), pooled. NaN each when there is no row.

    Raises:
        ValueError: a matrix that is not 2-D, a source length out of range, or a mismatch in
            the number of inputs.
    """
    import numpy as np

    if source_lengths is not None and len(source_lengths) != len(attentions):
        raise ValueError(
            f"{len(attentions)} attention matrices but {len(source_lengths)} source lengths"
        )
    nonzero = rows = cells = 0
    for i, matrix in enumerate(attentions):
        array = _as_numpy(matrix)
        if array.ndim != 2:
            raise ValueError(f"attention {i}: expected a [T, S] matrix, got shape {array.shape}")
        if source_lengths is not None:
            length = int(source_lengths[i])
            if not 0 < length <= array.shape[1]:
                raise ValueError(
                    f"attention {i}: source length {length} outside 1..{array.shape[1]}"
                )
            array = array[:, :length]
        nonzero += int(np.count_nonzero(array))
        rows += array.shape[0]
        cells += array.size
    if rows == 0:
        return math.nan, math.nan
    return nonzero / rows, nonzero / cells


@dataclass(frozen=True)
class SparsityStats:
    """The sparsity statistics of one evaluation (see the module docstring).

    Attributes:
        inputs: inputs described.
        single_string: share of inputs whose whole probability is on one string.
        full_support: share of inputs whose beam search is certified exact with full support.
        mode_only: share certified exact for the mode only.
        mean_strings: mean number of nonzero-probability strings per input.
        incomplete: inputs whose list of strings was cut (cap, length or budget), so
            ``mean_strings`` is a lower bound when this is > 0.
        mean_step_support: mean output support size per decoding step.
        mean_attended: mean attended source positions per target symbol.
        attention_density: nonzero attention weights over all weights.
    """

    inputs: int
    single_string: float
    full_support: float
    mode_only: float
    mean_strings: float
    incomplete: int
    mean_step_support: float
    mean_attended: float
    attention_density: float

    def to_dict(self) -> dict[str, float | int]:
        """The statistics as a flat dict (e.g. to add as DataFrame columns)."""
        return asdict(self)


def sparsity_statistics(
    probabilities: Sequence[Sequence[float]],
    certificates: Sequence[Any],
    step_supports: Sequence[Sequence[int]],
    attentions: Sequence[torch.Tensor | np.ndarray],
    source_lengths: Sequence[int] | None = None,
    incomplete: int = 0,
) -> SparsityStats:
    """All sparsity statistics from simple inputs (see the functions it calls).

    Raises:
        ValueError: as the functions it calls.
    """
    shares = certificate_shares(certificates)
    attended, density = attention_statistics(attentions, source_lengths)
    return SparsityStats(
        inputs=len(probabilities),
        single_string=single_string_share(probabilities),
        full_support=shares["full_support"],
        mode_only=shares["mode_only"],
        mean_strings=mean_support_strings(probabilities),
        incomplete=incomplete,
        mean_step_support=mean_step_support(step_supports),
        mean_attended=attended,
        attention_density=density,
    )
