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
        form: the form the string spells (one panel per form).
        probability: the form's probability under the model (or the ensemble's average), as the
            prediction lists it: the sum over the token strings that spell it (an unknown
            symbol and its copy spell the same form).
        target: the string's target symbols, then :data:`EOS_LABEL` (T + 1 rows): of the most
            probable token string that spells the form.
        attention: float32 numpy array [T + 1, S]: rows sum to 1, exact zeros where the attention
            mapping gave none (that string's).
        strings: the token strings found that spell the form (1 mostly).
    """

    form: str
    probability: float
    target: list[str]
    attention: Any
    strings: int = 1


@dataclass(frozen=True)
class Explanation:
    """The attention of one prediction's output strings.

    Attributes:
        prediction: the :class:`inflect.inference.outcomes.Prediction` record.
        source: the lemma's model symbols (S columns).
        target: the first panel's target symbols (the most probable form's most probable token
            string), then :data:`EOS_LABEL` (T + 1 rows).
        attention: float32 numpy array [T + 1, S] of that string: attention weights, rows sum
            to 1, exact zeros where the attention mapping gave none.
        panels: one :class:`AttentionPanel` per form of nonzero probability (the most probable
            token string that spells it), the most probable form first (as the prediction lists
            them), at most the ``max_forms`` asked for.
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
        The :class:`Explanation`; ``target`` and ``attention`` are its first panel's.

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
    listed = {f.form: f.probability for f in getattr(prediction, "model_forms", ())}
    found: dict[str, list] = {}  # form -> [panel fields of its first string, mass, strings]
    for h in searched.beam.hypotheses:
        if h.prob <= 0.0 and found:  # the best string is kept even if it underflowed to 0
            continue
        symbols = output_symbols(vocab, h.tokens, h.attention, item.symbols,
                                 predictor.members[0].source_vocab)
        form = item.codec.decode(symbols)
        if form in found:  # another token string of the same form: one panel per form
            found[form][1] += float(h.prob)
            found[form][2] += 1
            continue
        found[form] = [([*symbols, EOS_LABEL], h.attention[:, :length].float().numpy()),
                       float(h.prob), 1]
    panels = sorted(
        (AttentionPanel(form, listed.get(form, mass), target, attention, strings)
         for form, ((target, attention), mass, strings) in found.items()),
        key=lambda p: -p.probability)[:max_forms]
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
