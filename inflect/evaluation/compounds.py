"""Made-up compounds: long new words whose gold form needs no model.

German, Dutch, Swedish and Finnish write new compounds every day, and a compound inflects as its
last part (the head) does: ``Assemblersprache`` + ``Schwierigkeit`` is
``Assemblerspracheschwierigkeit``, and its ``N;DAT;PL`` is ``Assemblersprache`` +
``schwierigkeiten``. :func:`make_compounds` joins lemmas of a training file of the CoNLL–SIGMORPHON
2018 task 1 data into such words and asks them in the cells that the head has in that file, so the
gold form is the modifiers followed by the head's form as the data write it (its initial
lower-cased where the language capitalises the head: German nouns). The joining is plain
concatenation (no linking ``-s-`` or ``-e-``): the words are made up, and what is tested is that
the model copies a long stem it has never seen and inflects its end as it inflects the head.

:func:`score_compounds` asks a predictor each compound and its head (the same cells of the plain
head words, the control) and gives one row per item; :func:`by_length` the accuracy per length
band (characters of the compound's lemma, :data:`BANDS`).

Everything is a function of the data file, the language, the seed and the number of items per
band: :class:`random.Random` seeded with ``"compounds:{seed}:{language}"``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inflect.text.reading import read_examples

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BANDS",
    "RULES",
    "Compound",
    "CompoundRule",
    "band_of",
    "by_length",
    "make_compounds",
    "score_compounds",
]


@dataclass(frozen=True)
class CompoundRule:
    """How a language's compounds are made for the test.

    Attributes:
        pos: the UniMorph part of speech of the heads and modifiers (``"N"``, ``"ADJ"``).
        lower_head: lower-case the initial of every part after the first (German nouns are
            written with a capital, inside a compound without one); otherwise words with a
            capital (names) are left out.
    """

    pos: str
    lower_head: bool = False


#: The compounding languages of the 2018 data and their test compounds. Dutch has no nouns in
#: the 2018 files (adjectives, verbs): its compounds are adjectives (``donker`` + ``blauw``).
RULES: dict[str, CompoundRule] = {
    "german": CompoundRule("N", lower_head=True),
    "dutch": CompoundRule("ADJ"),
    "swedish": CompoundRule("N"),
    "finnish": CompoundRule("N"),
}

#: Length bands of a compound's lemma in characters, ``(first, last)`` inclusive: the training
#: lemmas of these languages are 8–10 characters at the median, 15–21 at the 99th percentile.
BANDS: tuple[tuple[int, int], ...] = ((1, 12), (13, 18), (19, 24), (25, 30), (31, 99))

#: Most modifiers before the head (a compound has 2 to MAX_MODIFIERS + 1 parts).
MAX_MODIFIERS = 3


@dataclass(frozen=True)
class Compound:
    """One made-up compound asked in one cell of its head.

    Attributes:
        lemma: the compound (the modifiers, then the head's lemma).
        tags: the tag bundle as the data write it.
        form: the gold form: the modifiers, then the head's form.
        head_lemma, head_form: the head as the data write it (the control item).
        modifiers: the lemmas joined before the head, as the data write them.
    """

    lemma: str
    tags: str
    form: str
    head_lemma: str
    head_form: str
    modifiers: tuple[str, ...]

    @property
    def lemma_cell(self) -> bool:
        """True in a cell whose form is the head's lemma itself (German ``N;NOM;SG``)."""
        return self.head_form == self.head_lemma


def band_of(length: int) -> str:
    """The name of the band (:data:`BANDS`) of a lemma of ``length`` characters: ``"13-18"``,
    ``"31+"`` for the last."""
    for first, last in BANDS:
        if first <= length <= last:
            return f"{first}+" if (first, last) == BANDS[-1] else f"{first}-{last}"
    raise ValueError(f"length {length} is in no band of {BANDS}")


def _part(word: str, rule: CompoundRule, inner: bool) -> str | None:
    """``word`` as a part of a compound (inner: not the first), or None where it cannot be one:
    not all letters (spaces, hyphens, apostrophes), a capital inside it, or a capital initial in
    a language whose parts are lower-case."""
    if not word.isalpha() or word[1:] != word[1:].lower():
        return None
    if word[0] != word[0].lower() and not rule.lower_head:
        return None
    return word[0].lower() + word[1:] if inner and rule.lower_head else word


def make_compounds(
    path: str | Path, language: str, per_band: int = 60, seed: int = 0
) -> list[Compound]:
    """Made-up compounds from a 2018 training file, up to ``per_band`` in each length band.

    Each draw takes a head (a line of the file whose tag bundle has the rule's part of speech,
    uniformly), 1 to :data:`MAX_MODIFIERS` modifiers (distinct lemmas of that part of speech,
    uniformly), and keeps the compound where its band (:data:`BANDS`, by the compound lemma's
    characters) still has room and the compound is not a lemma of the file; draws stop when
    every band is full or after ``200 × per_band × len(BANDS)`` draws (a band of short words may
    stay short of ``per_band``).

    Args:
        path: a file of the 2018 layout (``lemma<TAB>form<TAB>tags``), e.g.
            ``german-train-high``.
        language: a language of :data:`RULES` (its shared-task name).
        per_band: items per length band.
        seed: the seed; the items are a function of the file, language, seed and ``per_band``.

    Returns:
        The compounds, shortest band first, in the order drawn within a band.

    Raises:
        KeyError: a language without a rule (the message lists those with one).
        ValueError: the file has no usable head of the rule's part of speech.
        DataFormatError, OSError: as :func:`inflect.text.reading.read_examples`.
    """
    if language not in RULES:
        raise KeyError(f"no compounding rule for {language!r}; languages: {sorted(RULES)}")
    rule = RULES[language]
    heads, lemmas = [], set()
    for ex in read_examples(path, language):
        if rule.pos not in ex.tags.features:
            continue
        lemma, form = _part(ex.lemma, rule, True), _part(ex.form or "", rule, True)
        if lemma is not None and form is not None:
            heads.append((ex, lemma, form))
        if _part(ex.lemma, rule, False) is not None:
            lemmas.add(ex.lemma)
    if not heads:
        raise ValueError(f"{path}: no {rule.pos} line usable as the head of a compound")
    modifiers = sorted(lemmas)
    known = {ex.lemma for ex, _, _ in heads} | lemmas
    rng = random.Random(f"compounds:{seed}:{language}")
    bands: dict[str, list[Compound]] = {band_of(first): [] for first, _ in BANDS}
    for _ in range(200 * per_band * len(BANDS)):
        if all(len(b) >= per_band for b in bands.values()):
            break
        ex, lemma, form = rng.choice(heads)
        mods = tuple(rng.sample(modifiers, rng.randint(1, MAX_MODIFIERS)))
        stem = mods[0] + "".join(_part(m, rule, True) or m for m in mods[1:])
        band = bands[band_of(len(stem + lemma))]
        if len(band) < per_band and stem + lemma not in known:
            band.append(
                Compound(stem + lemma, ex.tags.text, stem + form, ex.lemma, ex.form or "", mods)
            )
    return [c for b in bands.values() for c in b]


def score_compounds(predictor: Any, compounds: Sequence[Compound], language: str) -> pd.DataFrame:
    """Ask ``predictor`` every compound and its head; one row per compound.

    Args:
        predictor: an :class:`inflect.inference.predictor.Predictor` (the model alone: built
            without lexicons, as ``inflect predict --no-lexicon``).
        compounds: from :func:`make_compounds`.
        language: the language the predictor is asked in.

    Returns:
        A DataFrame with the columns ``lemma``, ``tags``, ``gold``, ``predicted`` (the most
        probable form, ``""`` where the model finished none), ``correct``, ``length``
        (characters of the lemma), ``band``, ``lemma_cell``, ``head_lemma``, ``head_gold``,
        ``head_predicted``, ``head_correct``, ``length_limit`` (True where the search stopped at
        the input's output length limit).
    """
    import pandas as pd

    from inflect.inference.queries import make_query

    def best(queries: Iterable[tuple[str, str]]) -> list[Any]:
        return predictor.predict_many(
            [make_query(lemma, tags, language) for lemma, tags in queries]
        )

    asked = best((c.lemma, c.tags) for c in compounds)
    heads = best((c.head_lemma, c.tags) for c in compounds)
    rows = []
    for c, p, h in zip(compounds, asked, heads, strict=True):
        predicted = p.model_best.form if p.model_best else ""
        head = h.model_best.form if h.model_best else ""
        rows.append(
            {
                "lemma": c.lemma,
                "tags": c.tags,
                "gold": c.form,
                "predicted": predicted,
                "correct": predicted == c.form,
                "length": len(c.lemma),
                "band": band_of(len(c.lemma)),
                "lemma_cell": c.lemma_cell,
                "head_lemma": c.head_lemma,
                "head_gold": c.head_form,
                "head_predicted": head,
                "head_correct": head == c.head_form,
                "length_limit": p.length_limit is not None,
            }
        )
    return pd.DataFrame(rows)


def by_length(scored: pd.DataFrame) -> pd.DataFrame:
    """Accuracy (percent) per length band of a :func:`score_compounds` frame, and ``all``.

    Returns:
        A DataFrame indexed by band (:data:`BANDS` order, then ``"all"``) with the columns ``n``,
        ``compound`` (accuracy on the compounds), ``head`` (on their heads, same cells),
        ``lemma_cells`` (on the compounds asked in a cell whose form is the lemma) and
        ``length_limit`` (searches stopped at the output length limit).
    """
    import pandas as pd

    def summary(frame: pd.DataFrame) -> dict[str, float]:
        cells = frame[frame["lemma_cell"]]
        return {
            "n": len(frame),
            "compound": 100.0 * frame["correct"].mean() if len(frame) else float("nan"),
            "head": 100.0 * frame["head_correct"].mean() if len(frame) else float("nan"),
            "lemma_cells": 100.0 * cells["correct"].mean() if len(cells) else float("nan"),
            "length_limit": int(frame["length_limit"].sum()),
        }

    names = [band_of(first) for first, _ in BANDS]
    table = {name: summary(scored[scored["band"] == name]) for name in names}
    table["all"] = summary(scored)
    return pd.DataFrame.from_dict(table, orient="index")
