"""Explaining one prediction: the attention matrix of each output string of its support.

Row i of a matrix is the attention over the source (lemma) symbols at the decoding step that
emitted target symbol i; the last row is the step that emitted the end of the string (EOS). With
sparse attention (α-entmax, α > 1; Peters, Niculae & Martins, 2019, "Sparse Sequence-to-Sequence
Models", ACL, §3) many weights are exactly zero. Rendering is in :mod:`inflect.render.tables`,
:mod:`inflect.render.tsv` and :mod:`inflect.render.figures`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inflect.nn.batching import output_symbols

#: Row label of the step that emits the end of the string.
EOS_LABEL = "</s>"


@dataclass(frozen=True)
class AttentionPanel:
    """The attention of one output string.

    Attributes:
        form: the string as text (the form it spells).
        probability: the string's probability under the model (or the ensemble's average); a form
            spelled by two token strings has one panel per string.
        target: the string's target symbols, then :data:`EOS_LABEL` (T + 1 rows).
        attention: float32 numpy array [T + 1, S]: rows sum to 1, exact zeros where the attention
            mapping gave none.
    """

    form: str
    probability: float
    target: list[str]
    attention: Any


@dataclass(frozen=True)
class Explanation:
    """The attention of one prediction's output strings.

    Attributes:
        prediction: the :class:`inflect.inference.outcomes.Prediction` record.
        source: the lemma's model symbols (S columns).
        target: the best string's target symbols, then :data:`EOS_LABEL` (T + 1 rows).
        attention: float32 numpy array [T + 1, S] of the best string: attention weights, rows sum
            to 1, exact zeros where the attention mapping gave none.
        panels: one :class:`AttentionPanel` per output string of nonzero probability, most
            probable first (the first is the best string), at most the ``max_forms`` asked for.
        direction: writing direction of the language, ``"ltr"`` or ``"rtl"`` (the
            :class:`inflect.text.languages.LanguageSpec`'s); the source axis is drawn right to left for
            ``"rtl"``.
    """

    prediction: Any
    source: list[str]
    target: list[str]
    attention: Any
    panels: tuple[AttentionPanel, ...] = ()
    direction: str = "ltr"


def explain_searched(predictor: Any, searched: Any, max_forms: int = 1) -> Explanation:
    """The attention matrices of an input already searched (no second search).

    Args:
        predictor: the :class:`inflect.inference.predictor.Predictor` that searched it (its first member's
            target vocabulary turns token ids into symbols, unknown symbols replaced by
            attention; the input's codec turns them into text).
        searched: the :class:`inflect.inference.searcher.Searched` of :meth:`Predictor.run_detailed`.
        max_forms: most panels (output strings of nonzero probability, most probable first), ≥ 1.

    Returns:
        The :class:`Explanation`; ``target`` and ``attention`` are the best string's.

    Raises:
        ValueError: ``max_forms < 1``, the search finished no string, or the model gives no
            attention.
    """
    if max_forms < 1:
        raise ValueError(f"max_forms must be at least 1, got {max_forms}")
    item, prediction = searched.prepared, searched.prediction
    best = searched.beam.best
    if best is None:
        raise ValueError(f"no output string finished for {prediction.lemma!r} {prediction.tags!r}")
    if best.attention is None:
        raise ValueError("the model gives no attention weights")
    length = len(item.symbols)
    vocab = predictor.members[0].target_vocab
    panels = []
    for h in searched.beam.hypotheses:
        if len(panels) == max_forms:
            break
        if h.prob <= 0.0 and panels:  # the best string is kept even if it underflowed to 0
            continue
        symbols = output_symbols(vocab, h.tokens, h.attention, item.symbols,
                                 predictor.members[0].source_vocab)
        panels.append(
            AttentionPanel(
                item.codec.decode(symbols),
                float(h.prob),
                [*symbols, EOS_LABEL],
                h.attention[:, :length].float().numpy(),
            )
        )
    first = panels[0]
    return Explanation(
        prediction,
        list(item.symbols),
        first.target,
        first.attention,
        tuple(panels),
        item.direction,
    )


def explain_all(predictor: Any, searched: list[Any], max_forms: int = 1) -> list[Any]:
    """:func:`explain_searched` for each input; None where it has no attention to show.

    Args:
        predictor: as :func:`explain_searched`.
        searched: :class:`inflect.inference.searcher.Searched` records, or None (a rejected input).
        max_forms: as :func:`explain_searched`.

    Returns:
        One :class:`Explanation` or None per entry of ``searched``, in order (None where the
        input was rejected, no string finished, or the model gives no attention).

    Raises:
        ValueError: ``max_forms < 1``.
    """
    if max_forms < 1:
        raise ValueError(f"max_forms must be at least 1, got {max_forms}")
    out: list[Explanation | None] = []
    for s in searched:
        try:
            out.append(None if s is None else explain_searched(predictor, s, max_forms))
        except ValueError:
            out.append(None)
    return out


def explain(
    predictor: Any, lemma: str, tags: str, language: str | None = None, max_forms: int = 1
) -> Explanation:
    """Predict one input and return the attention matrices of its most probable strings.

    Args:
        predictor: an :class:`inflect.inference.predictor.Predictor` (one model, or an ensemble: then the
            members' averaged attention).
        lemma: the lemma as typed.
        tags: the tag bundle, e.g. ``"N;DAT;PL"``.
        language: any name or code; None for the model's only language.
        max_forms: most panels, one per output string of nonzero probability (≥ 1).

    Returns:
        The :class:`Explanation` (see :func:`explain_searched`).

    Raises:
        InputError, UnknownLanguageError: as :meth:`Predictor.prepare`.
        ValueError: as :func:`explain_searched`.
    """
    from inflect.inference.queries import make_query

    item = predictor.prepare(make_query(lemma, tags, language))
    return explain_searched(predictor, predictor.run_detailed([item])[0], max_forms)
