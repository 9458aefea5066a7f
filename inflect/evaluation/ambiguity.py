"""Ambiguity: the inputs to which a model gives more than one form of nonzero probability.

With a sparse output mapping (α-entmax, α > 1) most inputs get a single form with probability 1;
the rest are the model's genuine ambiguities (Peters, Niculae & Martins, 2019, "Sparse
Sequence-to-Sequence Models", ACL, §5: e.g. German ``N;DAT;PL`` and other bundles with several
attested forms). This module groups such inputs by tag bundle and counts them; rendering is in
:mod:`inflect.render` (:mod:`~inflect.render.tables`, :mod:`~inflect.render.tsv`,
:mod:`~inflect.render.markdown`, :mod:`~inflect.render.report_html`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inflect.text.records import Example, TagBundle, input_key


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
        certificate: the record's certificate, ``"full_support"``, ``"mode_only"`` or ``"none"``
            (:class:`inflect.decoding.Certificate` values).
        more_than: N when more than N forms have nonzero probability and N are listed, else None.
        direction: writing direction of the language (``"ltr"``, ``"rtl"``; ``"auto"`` for a
            language with no spec: the reader decides from the text).
        position: the input's index among the inputs examined (0-based).
        explanation: the :class:`inflect.inference.explain.Explanation` (attention of its strings), or None.
        attested: ``(form, source)`` of each form a lexicon attests for the input (the
            record's :attr:`~inflect.inference.outcomes.Outcome.attested`; empty without a lexicon).
    """

    lemma: str
    tags: str
    language: str
    forms: tuple[tuple[str, float], ...]
    gold: str | None
    gold_in_support: bool | None
    complete: bool
    certificate: str = "full_support"
    more_than: int | None = None
    direction: str = "ltr"
    position: int = 0
    explanation: Any = None
    attested: tuple[tuple[str, str], ...] = ()

    def source_of(self, form: str) -> str | None:
        """Where ``form`` is attested, or None when no lexicon attests it."""
        return next((source for f, source in self.attested if f == form), None)

    @property
    def entropy(self) -> float:
        """Shannon entropy of the listed forms in bits, ``-sum p log2 p`` (float64); a lower
        bound on the model's when the list is not the whole support."""
        return -math.fsum(p * math.log2(p) for _, p in self.forms if p > 0.0)


@dataclass
class TagGroup:
    """The ambiguous inputs of one tag bundle (UniMorph features as a multiset: order-free, a
    repeated feature counts).

    Attributes:
        tags: the bundle as first written.
        inputs: its ambiguous inputs, in input order.
        total: inputs of the bundle examined, ambiguous or not.
    """

    tags: str
    inputs: list[AmbiguousInput] = field(default_factory=list)
    total: int = 0


@dataclass
class BundleSizes:
    """How many forms of nonzero probability the inputs of one tag bundle get.

    Attributes:
        tags: the bundle as first written.
        sizes: number of listed forms of nonzero probability (a lower bound where the list is not
            certified full support) -> number of inputs with that many.
    """

    tags: str
    sizes: dict[int, int] = field(default_factory=dict)

    @property
    def inputs(self) -> int:
        """Inputs of the bundle."""
        return sum(self.sizes.values())

    @property
    def ambiguous(self) -> int:
        """Inputs of the bundle with more than one form of nonzero probability."""
        return sum(n for k, n in self.sizes.items() if k > 1)


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
        full_support: inputs (all, not only ambiguous) certified full support.
        mode_only: inputs certified mode only (the first form is the most probable).
        bundles: every tag bundle examined with the number of forms per input, most ambiguous
            inputs first (ties: more inputs first, then first seen first).
        rejected: inputs the model could not take (unknown features or language), not among
            ``inputs``.
    """

    inputs: int
    ambiguous: int
    with_gold: int
    gold_in_support: int
    incomplete: int
    groups: list[TagGroup]
    full_support: int = 0
    mode_only: int = 0
    bundles: list[BundleSizes] = field(default_factory=list)
    rejected: int = 0

    @property
    def ambiguous_share(self) -> float:
        """``ambiguous / inputs`` (NaN for no input)."""
        return self.ambiguous / self.inputs if self.inputs else float("nan")


def _direction(language: str, cache: dict[str, str]) -> str:
    """The language's writing direction, ``"auto"`` for a language with no spec."""
    if language not in cache:
        from inflect.text.languages import UnknownLanguageError, resolve

        try:
            cache[language] = resolve(language).direction
        except UnknownLanguageError:
            cache[language] = "auto"
    return cache[language]


def ambiguity_report(
    predictions: Sequence[Any],
    gold: Sequence[Example] | None = None,
    explanations: Sequence[Any] | None = None,
    rejected: int = 0,
) -> AmbiguityReport:
    """Group the inputs with more than one nonzero-probability form by tag bundle.

    Args:
        predictions: :class:`inflect.inference.outcomes.Prediction` records (``lemma``, ``tags``,
            ``language``, ``forms`` of ``(form, probability)``, ``complete``, ``certificate``,
            ``more_than``).
        gold: gold examples, matched to the records by language, lemma and tag bundle as
            written (:func:`inflect.text.records.input_key`); None for no gold.
        explanations: per record, its :class:`inflect.inference.explain.Explanation` or None (same length
            and order as ``predictions``; :func:`inflect.inference.explain.explain_all`); None for none.
        rejected: how many inputs the model could not take (left out of ``predictions``), for
            the report to say so.

    Returns:
        The :class:`AmbiguityReport`.

    Raises:
        ValueError: a record whose tag bundle cannot be parsed (naming it); ``explanations`` of
            another length than ``predictions``.
    """
    if explanations is not None and len(explanations) != len(predictions):
        raise ValueError(f"{len(explanations)} explanations for {len(predictions)} predictions")
    gold_forms = _gold_forms(gold)
    groups: dict[tuple[str, ...], TagGroup] = {}
    bundles: dict[tuple[str, ...], BundleSizes] = {}
    directions: dict[str, str] = {}
    full = mode = 0
    for position, record in enumerate(predictions):
        certificate = getattr(record.certificate, "value", record.certificate)
        full += certificate == "full_support"
        mode += certificate == "mode_only"
        model = getattr(record, "model_forms", record.forms)  # the model's, not attested ones
        forms = tuple((f[0], float(f[1])) for f in model if float(f[1]) > 0.0)
        tags = _tag_bundle(record)
        sizes = bundles.setdefault(tags.multiset, BundleSizes(record.tags)).sizes
        sizes[len(forms)] = sizes.get(len(forms), 0) + 1
        if len(forms) < 2:
            continue
        key = input_key(Example(record.lemma, tags, None, record.language))
        item = _ambiguous_input(
            record,
            forms,
            gold_forms.get(key),
            str(certificate),
            position,
            _direction(record.language, directions),
            None if explanations is None else explanations[position],
        )
        groups.setdefault(tags.multiset, TagGroup(record.tags)).inputs.append(item)
    return _summary(len(predictions), groups, bundles, full, mode, rejected)


def _gold_forms(gold: Sequence[Example] | None) -> dict[Any, str]:
    """The gold form of each input (:func:`inflect.text.records.input_key`) that has one."""
    gold_forms: dict[Any, str] = {}
    for example in gold or ():
        if example.form is not None:
            gold_forms[input_key(example)] = example.form
    return gold_forms


def _tag_bundle(record: Any) -> TagBundle:
    """The record's tag bundle, parsed.

    Raises:
        ValueError: it cannot be parsed (naming the record's lemma and bundle).
    """
    try:
        return TagBundle.parse(record.tags)
    except ValueError as exc:
        raise ValueError(f"{record.lemma!r}: bad tag bundle {record.tags!r} ({exc})") from None


def _ambiguous_input(
    record: Any,
    forms: tuple[tuple[str, float], ...],
    gold_form: str | None,
    certificate: str,
    position: int,
    direction: str,
    explanation: Any,
) -> AmbiguousInput:
    """The :class:`AmbiguousInput` of a record with its nonzero-probability ``forms``; whether the
    gold form is among them is None without a gold form."""
    hit = None if gold_form is None else any(f == gold_form for f, _ in forms)
    return AmbiguousInput(
        record.lemma,
        record.tags,
        record.language,
        forms,
        gold_form,
        hit,
        bool(record.complete),
        certificate,
        record.more_than,
        direction,
        position,
        explanation,
        tuple((f.form, f.source) for f in getattr(record, "attested", ())),
    )


def _summary(
    inputs: int,
    groups: dict[tuple[str, ...], TagGroup],
    bundles: dict[tuple[str, ...], BundleSizes],
    full: int,
    mode: int,
    rejected: int,
) -> AmbiguityReport:
    """The report of the tag-bundle ``groups`` of ambiguous inputs and the ``bundles`` of every
    input: the counts over the ambiguous inputs, each group's total, groups largest first and
    bundles most ambiguous first (stable sorts: ties keep the order first seen)."""
    ambiguous = [item for group in groups.values() for item in group.inputs]
    for features, group in groups.items():
        group.total = bundles[features].inputs
    ordered = sorted(groups.values(), key=lambda g: -len(g.inputs))  # stable: first seen first
    by_size = sorted(bundles.values(), key=lambda b: (-b.ambiguous, -b.inputs))
    return AmbiguityReport(
        inputs,
        len(ambiguous),
        sum(item.gold is not None for item in ambiguous),
        sum(bool(item.gold_in_support) for item in ambiguous),
        sum(not item.complete for item in ambiguous),
        ordered,
        full,
        mode,
        by_size,
        rejected,
    )
