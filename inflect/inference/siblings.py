"""The model's forms re-ranked by the lemma's other forms: analogy over attested paradigms.

Most inputs of a high-setting dev file are lemmas the training data already inflect in other cells
(Norwegian Nynorsk: 895 of 1,000; Lithuanian 994): ``ulv`` N;DEF;SG is asked, and the training
pairs ``ulv`` -> ``ulvane`` (N;DEF;PL), ``ulvar`` (N;NDEF;PL) say that ``ulv`` is masculine, so
``ulven`` and not the feminine ``ulva``. The model often gives both (its support holds the gold
form for 95% of Nynorsk's dev inputs, its top form for 81%) but weighs them by the lemma's look.
This module weighs them again by what the lemma's own forms say, as the other lemmas of the same
classes do.

An edit rule is what turns a lemma into a form after their longest common prefix
(:func:`edit_rule`: ``ulv`` -> ``ulvane`` is ``("", "ane")``). From the pairs of one language
(lemma, form, tag bundle), for every two cells ``T``, ``T'`` of a lemma, the number of lemmas whose
rules in them are ``(r, r')`` is counted: ``n(T, r, T', r')``, and ``d(T, T', r') = Σ_r n``.
A form ``c`` of the model, with probability ``p_c``, for lemma ``L`` and cell ``T``, where the
pairs give ``L`` the forms ``f_i`` in cells ``T_i`` (rule ``r_i``), scores

    s(c) = log p_c + λ mean_{i: d(T, T_i, r_i) > 0} log((n(T, rule(L, c), T_i, r_i) + α p_c)
                                                      / (d(T, T_i, r_i) + α))

(the smoothed share of the lemmas of class ``r_i`` in ``T_i`` that take ``c``'s rule in ``T``,
with the model's probability as the prior, averaged over the lemma's informative cells, which
are far from independent: a sum lets a verb with 40 attested cells outvote the model whatever
it says; λ = 0.5, α = 0.1); the forms are ordered by it, ties kept in the model's order. Their
probabilities stay the model's, and so does the certificate: the support is the model's, only
its order changes. A lemma with no other attested cell, or whose cells no other lemma shares,
keeps the model's order.

The mean, λ and α were chosen on the dev files of 33 high-setting languages (the analogy over
train-high only; the model's beam-5 forms): a sum over the cells gained 192 words and lost 84, the
mean 228 and 34. The recipe README (``recipes/sigmorphon2018``, "The lemma's other forms") has
the figures of every language, gains and losses.

Python::

    from inflect.inference.siblings import SiblingEvidence
    evidence = SiblingEvidence.from_pairs(pairs)          # (lemma, form, TagBundle) of one language
    evidence.rerank("ulv", TagBundle.parse("N;DEF;SG"), forms)   # forms: Form records, best first
"""

from __future__ import annotations

import math
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

#: The weight λ of the attested forms' evidence against the model's log-probability.
WEIGHT = 0.5
#: The prior count α that the model's probability spreads over the rules of a cell.
PRIOR = 0.1
#: The smallest probability a log is taken of (a form the model lists with probability 0).
_FLOOR = 1e-9

F = TypeVar("F")

#: Per setting and language, the shipped model's dev accuracy alone and re-ranked, and whether
#: ``auto`` re-ranks (written by ``recipes/sigmorphon2018/siblings.py --write``).
SHIPPED_TABLE = Path(__file__).resolve().parents[1] / "models" / "siblings.toml"


@cache
def _table(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


#: The user's choices (``inflect predict --siblings``, the API's and the service's ``siblings``).
SIBLINGS_CHOICES = ("auto", "on", "off")


def siblings_choice(value: str | bool | None, no_lexicon: bool = False) -> bool | str | None:
    """The :class:`~inflect.inference.predictor.Predictor`'s ``siblings`` for a user's choice:
    ``"auto"`` (re-rank where the shipped model's dev accuracy gained: :func:`re_ranks`; off
    with ``no_lexicon``), ``"on"`` / True (always, by the lexicons' pairs), ``"off"`` / False /
    None (the model's order).

    Raises:
        ValueError: another value, or ``"on"`` with ``no_lexicon`` (nothing to re-rank by).
    """
    choice = {True: "on", False: "off", None: "off"}.get(value, value)  # type: ignore[arg-type]
    if choice not in SIBLINGS_CHOICES:
        raise ValueError(f"siblings: unknown value {value!r}; choose one of "
                         f"{', '.join(repr(c) for c in SIBLINGS_CHOICES)}")
    if choice == "on" and no_lexicon:
        raise ValueError("siblings 'on' re-ranks by the lemma's forms in the lexicons; "
                         "no_lexicon turns them off (drop one of them)")
    if choice == "off" or no_lexicon:
        return None
    return True if choice == "on" else "auto"


def re_ranks(language: str, setting: str | None, model: str | None = None,
             path: Path = SHIPPED_TABLE) -> bool:
    """Whether ``auto`` re-ranks the forms of ``language``'s shipped model of ``setting`` (named
    ``model`` in the registry: the table must have measured that model): where its dev accuracy
    gained from it (:data:`SHIPPED_TABLE`'s ``on``); False for a language, setting or model the
    table does not list."""
    entry = _table(path).get(setting or "", {}).get(language, {})
    if model is not None and entry.get("model") != model:
        return False
    return bool(entry.get("on", False))


def edit_rule(lemma: str, form: str) -> tuple[str, str]:
    """The rule that turns ``lemma`` into ``form`` after their longest common prefix: the
    lemma's rest and the form's (``("", "ane")`` for ``ulv`` -> ``ulvane``; ``("a", "e")`` for
    ``gata`` -> ``gate``)."""
    k = 0
    for a, b in zip(lemma, form, strict=False):
        if a != b:
            break
        k += 1
    return lemma[k:], form[k:]


class SiblingEvidence:
    """The attested paradigms of one language and the co-occurrence counts of their edit rules
    (see the module docstring).

    Build it with :meth:`from_pairs`. Lemmas and tag bundles are compared as given: bring them to
    the language's normalisation first (the model's reading: the shared-task files are).
    """

    def __init__(self, cells: dict[str, dict[Any, str]]):
        """``cells``: lemma -> tag bundle -> form (one form per cell: the first attested)."""
        self.cells = cells
        self.pairs: Counter = Counter()
        self.given: Counter = Counter()
        for lemma, forms in cells.items():
            rules = {tags: edit_rule(lemma, form) for tags, form in forms.items()}
            for tags, rule in rules.items():
                for other, other_rule in rules.items():
                    if other != tags:
                        self.pairs[tags, rule, other, other_rule] += 1
                        self.given[tags, other, other_rule] += 1

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str, Any]]) -> SiblingEvidence:
        """The evidence of ``(lemma, form, tags)`` pairs of one language (tags: a
        :class:`~inflect.text.records.TagBundle` or any hashable key of a cell; a cell attested
        twice keeps its first form)."""
        cells: dict[str, dict[Any, str]] = {}
        for lemma, form, tags in pairs:
            cells.setdefault(lemma, {}).setdefault(tags, form)
        return cls(cells)

    def scores(self, lemma: str, tags: Any, forms: Sequence[str],
               probabilities: Sequence[float]) -> list[float]:
        """``s(c)`` of each form (module docstring), in the order given.

        Args:
            lemma, tags: the input (its cell ``tags`` is left out of the lemma's evidence).
            forms: the model's forms; probabilities: theirs, in [0, 1].
        """
        siblings = [(t, edit_rule(lemma, f)) for t, f in self.cells.get(lemma, {}).items()
                    if t != tags]
        out = []
        for form, p in zip(forms, probabilities, strict=True):
            p = max(float(p), _FLOOR)
            rule = edit_rule(lemma, form)
            evidence = []
            for other, other_rule in siblings:
                given = self.given[tags, other, other_rule]
                if given:
                    together = self.pairs[tags, rule, other, other_rule]
                    evidence.append(math.log((together + PRIOR * p) / (given + PRIOR)))
            mean = sum(evidence) / len(evidence) if evidence else 0.0
            out.append(math.log(p) + WEIGHT * mean)
        return out

    def rerank(self, lemma: str, tags: Any, forms: Sequence[F]) -> list[F]:
        """``forms`` (records with ``form`` and ``probability``, e.g.
        :class:`~inflect.inference.outcomes.Form`) ordered by :meth:`scores`, best first; ties
        keep their order. The records are returned as they are (probabilities unchanged)."""
        if len(forms) < 2 or lemma not in self.cells:
            return list(forms)
        scores = self.scores(lemma, tags, [f.form for f in forms],
                             [f.probability for f in forms])
        order = sorted(range(len(forms)), key=lambda k: (-scores[k], k))
        return [forms[k] for k in order]
