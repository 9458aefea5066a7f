"""Explaining one prediction: the attention matrix of its best output string.

Row i of the matrix is the attention over the source (lemma) symbols at the decoding step that
emitted target symbol i; the last row is the step that emitted the end of the string (EOS). With
sparse attention (α-entmax, α > 1; Peters, Niculae & Martins, 2019, "Sparse Sequence-to-Sequence
Models", ACL, §3) many weights are exactly zero. Rendering is in :mod:`inflect.report`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Row label of the step that emits the end of the string.
EOS_LABEL = "</s>"


@dataclass(frozen=True)
class Explanation:
    """The attention of one prediction's best output string.

    Attributes:
        prediction: the :class:`inflect.predict.Prediction` record.
        source: the lemma's model symbols (S columns).
        target: the best string's target symbols, then :data:`EOS_LABEL` (T + 1 rows).
        attention: float32 numpy array [T + 1, S]: attention weights, rows sum to 1, exact zeros
            where the attention mapping gave none.
    """

    prediction: Any
    source: list[str]
    target: list[str]
    attention: Any


def explain(predictor: Any, lemma: str, tags: str, language: str | None = None) -> Explanation:
    """Predict one input and return the attention matrix of its most probable token string.

    Args:
        predictor: an :class:`inflect.predict.Predictor` (one model, or an ensemble: then the
            members' averaged attention).
        lemma: the lemma as typed.
        tags: the tag bundle, e.g. ``"N;DAT;PL"``.
        language: any name or code; None for the model's only language.

    Returns:
        The :class:`Explanation`.

    Raises:
        InputError, UnknownLanguageError: as :meth:`Predictor.prepare`.
        ValueError: the search finished no string, or the model gives no attention.
    """
    from inflect.predict import make_query

    item = predictor.prepare(make_query(lemma, tags, language))
    result = predictor.run_detailed([item])[0]
    best = result.beam.best
    if best is None:
        raise ValueError(f"no output string finished for {lemma!r} {tags!r}")
    if best.attention is None:
        raise ValueError("the model gives no attention weights")
    length = len(item.symbols)
    attention = best.attention[:, :length].float().numpy()
    symbols = predictor.members[0].tokens_to_symbols(best.tokens, best.attention, item.symbols)
    return Explanation(result.prediction, list(item.symbols), [*symbols, EOS_LABEL], attention)
