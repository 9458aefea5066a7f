"""Ambiguity: the inputs to which a model gives more than one form of nonzero probability.

With a sparse output mapping (α-entmax, α > 1) most inputs get a single form with probability 1;
the rest are the model's genuine ambiguities (Peters, Niculae & Martins, 2019, "Sparse
Sequence-to-Sequence Models", ACL, §5: e.g. German ``N;DAT;PL`` and other bundles with several
attested forms). This module groups such inputs by tag bundle and counts them; rendering is in
:mod:`inflect.report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inflect.data import Example, TagBundle
from inflect.evaluate import input_key


@dataclass(frozen=True)
class AmbiguousInput:
    """One input with more than one nonzero-probability form.

    Attributes:
        lemma: the lemma.
        tags: the tag bundle as written.
        language: shared-task name of the language.
        forms: ``(form, probability)`` pairs, most probable first (probabilities > 0).
        gold: the gold form, or None when no gold form is known.
        gold_in_support: whether the gold form is among ``forms`` (None without gold).
        complete: whether ``forms`` is certified to be the whole support (otherwise a gold form
            outside the list may still have nonzero probability).
    """

    lemma: str
    tags: str
    language: str
    forms: tuple[tuple[str, float], ...]
    gold: str | None
    gold_in_support: bool | None
    complete: bool


@dataclass
class TagGroup:
    """The ambiguous inputs of one tag bundle (UniMorph features as a set).

    Attributes:
        tags: the bundle as first written.
        inputs: its ambiguous inputs, in input order.
    """

    tags: str
    inputs: list[AmbiguousInput] = field(default_factory=list)


@dataclass
class AmbiguityReport:
    """Summary counts and the ambiguous inputs grouped by tag bundle.

    Attributes:
        inputs: inputs examined.
        ambiguous: inputs with more than one nonzero-probability form.
        with_gold: ambiguous inputs whose gold form is known.
        gold_in_support: ambiguous inputs whose gold form is among their forms.
        incomplete: ambiguous inputs whose list is not certified to be the whole support.
        groups: tag-bundle groups, largest first (ties: first seen first).
    """

    inputs: int
    ambiguous: int
    with_gold: int
    gold_in_support: int
    incomplete: int
    groups: list[TagGroup]

    @property
    def ambiguous_share(self) -> float:
        """``ambiguous / inputs`` (NaN for no input)."""
        return self.ambiguous / self.inputs if self.inputs else float("nan")


def ambiguity_report(
    predictions: Sequence[Any], gold: Sequence[Example] | None = None
) -> AmbiguityReport:
    """Group the inputs with more than one nonzero-probability form by tag bundle.

    Args:
        predictions: :class:`inflect.predict.Prediction` records (``lemma``, ``tags``,
            ``language``, ``forms`` of ``(form, probability)``, ``complete``).
        gold: gold examples, matched to the records by language, lemma and tag bundle as
            written (:func:`inflect.evaluate.input_key`); None for no gold.

    Returns:
        The :class:`AmbiguityReport`.

    Raises:
        ValueError: a record whose tag bundle cannot be parsed (naming it).
    """
    gold_forms: dict[Any, str] = {}
    for example in gold or ():
        if example.form is not None:
            gold_forms[input_key(example)] = example.form
    groups: dict[frozenset[str], TagGroup] = {}
    ambiguous = with_gold = in_support = incomplete = 0
    for record in predictions:
        forms = tuple((f[0], float(f[1])) for f in record.forms if float(f[1]) > 0.0)
        if len(forms) < 2:
            continue
        try:
            tags = TagBundle.parse(record.tags)
        except ValueError as exc:
            raise ValueError(f"{record.lemma!r}: bad tag bundle {record.tags!r} ({exc})") from None
        key = input_key(Example(record.lemma, tags, None, record.language))
        gold_form = gold_forms.get(key)
        hit = None if gold_form is None else any(f == gold_form for f, _ in forms)
        ambiguous += 1
        with_gold += gold_form is not None
        in_support += bool(hit)
        incomplete += not record.complete
        group = groups.setdefault(tags.features, TagGroup(record.tags))
        group.inputs.append(
            AmbiguousInput(record.lemma, record.tags, record.language, forms, gold_form, hit,
                           bool(record.complete))
        )
    ordered = sorted(groups.values(), key=lambda g: -len(g.inputs))  # stable: first seen first
    return AmbiguityReport(len(predictions), ambiguous, with_gold, in_support, incomplete, ordered)
