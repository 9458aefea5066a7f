"""Hallucinated training pairs: data augmentation for small training sets.

Anastasopoulos & Neubig (2019), "Pushing the Limits of Low-Resource Morphological Inflection"
(EMNLP), section 3 ("data hallucination"): align a lemma with its form, take every run of three or
more aligned identical symbols as (part of) the stem, and replace symbols of the stem with random
symbols of the language's training alphabet, in the lemma and the form alike, keeping the tag
bundle. The model sees new "stems" with the same affixes, which teaches it to copy the stem and
to learn the affixes from their context rather than from the stem.

As in the authors' implementation (``augment.py`` of antonisa/inflection): a run longer than five
symbols keeps its first and last symbol (stem edges often take part in the inflection), and each
other symbol of a run is replaced with probability 1/2 (at least one per pair here) by a symbol
drawn from the language's training alphabet, which may be the symbol it replaces (as in the
authors' code), so a hallucinated pair can, rarely, repeat its original. The alignment is the Levenshtein alignment of
:func:`rapidfuzz.distance.Levenshtein.opcodes` (its ``equal`` blocks are the runs).

Long pairs (:func:`lengthen`, ``inflect train --long-pairs N``) are a second kind: a stem run is
lengthened, not replaced. Pieces of other lemmas of the language are inserted inside the run (its
edges kept), at the same place in the lemma and the form, so that the model sees lemmas up to
about three times as long as the language's longest, written with the language's own sequences of
letters: a new compound (German, Dutch, Swedish, Finnish) is longer than almost every lemma of the
training data, and a model trained without such words garbles the long stem it should copy
(``Assemblerspracheschwierigkeit`` -> ``Assemblersprachwierigkeit Am``; the made-up-compound
test, :mod:`inflect.evaluation.compounds`).

Everything is a function of the items and the seed (:class:`random.Random` seeded with the seed
and the language's name), so a resumed run rebuilds the same pairs.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Sequence
from typing import Any

from rapidfuzz.distance import Levenshtein

from inflect.training.items import Item

__all__ = [
    "MIN_RUN",
    "alphabet",
    "hallucinate",
    "hallucinate_item",
    "hallucination_report",
    "lengthen",
    "lengthen_item",
    "stem_runs",
]

#: The shortest run of aligned identical symbols taken as stem (the paper's 3).
MIN_RUN = 3
#: A run longer than this keeps its first and last symbol.
_LONG_RUN = 5


def stem_runs(source: Sequence[str], target: Sequence[str],
              min_run: int = MIN_RUN) -> list[tuple[int, int, int]]:
    """The runs of at least ``min_run`` aligned identical symbols of ``source`` and ``target``.

    Args:
        source, target: symbol sequences (a lemma's and its form's).
        min_run: the shortest run kept.

    Returns:
        ``(source_start, target_start, length)`` of each run, in order (0-based symbol indices).
    """
    return [
        (op.src_start, op.dest_start, op.src_end - op.src_start)
        for op in Levenshtein.opcodes(source, target)
        if op.tag == "equal" and op.src_end - op.src_start >= min_run
    ]


def _replaceable(symbol: str) -> bool:
    """A symbol that may be replaced or be a replacement: no space, punctuation or mark of a
    separator (a multiword form keeps its shape)."""
    return not any(unicodedata.category(ch)[0] in "ZPC" for ch in symbol)


def alphabet(items: Sequence[Item]) -> list[str]:
    """The symbols of ``items`` (lemmas and forms) that hallucination draws from: every symbol
    but spaces, punctuation and control characters, sorted."""
    symbols = {s for it in items for s in (*it.source, *it.target)}
    return sorted(s for s in symbols if _replaceable(s))


def _places(item: Item) -> list[tuple[int, int]]:
    """The (lemma, form) indices that hallucination may replace in ``item``: the replaceable
    symbols of its stem runs, a run longer than five without its first and last symbol."""
    places: list[tuple[int, int]] = []
    for s, t, n in stem_runs(item.source, item.target):
        inner = range(1, n - 1) if n > _LONG_RUN else range(n)
        places += [(s + k, t + k) for k in inner if _replaceable(item.source[s + k])]
    return places


def hallucinate_item(item: Item, symbols: Sequence[str], rng: random.Random) -> Item | None:
    """One hallucinated pair from ``item``, or None where it has no stem run.

    Each replaceable symbol inside a run (:func:`stem_runs`; a run longer than five without its
    first and last symbol) is replaced with probability 1/2 by a symbol drawn uniformly from
    ``symbols``, at the same place in the lemma and in the form; where none was drawn, one of
    them is replaced.

    Args:
        item: a training pair.
        symbols: the language's alphabet (:func:`alphabet`), not empty.
        rng: the random source.

    Returns:
        An :class:`~inflect.training.items.Item` with the same tag bundle and language.
    """
    places = _places(item)
    if not places or not symbols:
        return None
    chosen = [p for p in places if rng.random() < 0.5] or [rng.choice(places)]
    source, target = list(item.source), list(item.target)
    for s, t in chosen:
        source[s] = target[t] = rng.choice(symbols)
    return Item(tuple(source), item.features, item.language, tuple(target))


def _by_language(items: Sequence[Item]) -> dict[str | None, list[Item]]:
    """The items of each language, languages in the order they first appear."""
    grouped: dict[str | None, list[Item]] = {}
    for it in items:
        grouped.setdefault(it.language, []).append(it)
    return grouped


def hallucinate(items: Sequence[Item], size: int, seed: int) -> list[Item]:
    """Hallucinated pairs that bring each language's training set up to ``size`` pairs.

    For each language, its items are visited in a random order (repeatedly, as often as needed)
    and each gives one hallucinated pair (:func:`hallucinate_item`) until the language has
    ``size`` pairs, the original ones included. A language with ``size`` pairs or more gets
    none; one whose pairs have no stem run (no run of three aligned identical symbols) gets none.

    Args:
        items: the training items (any number of languages).
        size: the number of pairs per language to reach (0: none).
        seed: the run's seed (``TrainConfig.seed``); the pairs are a function of the items, the
            seed and ``size``.

    Returns:
        The new items only, grouped by language in the order languages first appear.
    """
    by_language = _by_language(items)
    out: list[Item] = []
    for language, own in by_language.items():
        missing = size - len(own)
        if missing <= 0:
            continue
        rng = random.Random(f"hallucinate:{seed}:{language}")
        symbols = alphabet(own)
        usable = [it for it in own if _places(it)] if symbols else []
        made: list[Item] = []
        while usable and len(made) < missing:
            order = list(usable)
            rng.shuffle(order)
            for it in order:
                new = hallucinate_item(it, symbols, rng)
                if new is not None:
                    made.append(new)
                    if len(made) == missing:
                        break
        out += made
    return out


def _pieces(items: Sequence[Item]) -> list[tuple[str, ...]]:
    """The lemmas of ``items`` without their first symbol (a capital in German nouns), each cut
    at its first symbol that may not be replaced (:func:`_replaceable`), those of at least
    :data:`MIN_RUN` symbols, in order of first appearance, each once."""
    out: dict[tuple[str, ...], None] = {}
    for it in items:
        cut = next((k for k, s in enumerate(it.source[1:]) if not _replaceable(s)), None)
        piece = it.source[1:] if cut is None else it.source[1 : 1 + cut]
        if len(piece) >= MIN_RUN:
            out[piece] = None
    return list(out)


def lengthen_item(
    item: Item, pieces: Sequence[tuple[str, ...]], longest: int, rng: random.Random
) -> Item | None:
    """One long pair from ``item``, or None where it has no stem run (:func:`stem_runs`) whose
    symbols may all be replaced (:func:`_replaceable`: no space or punctuation).

    A run (:func:`stem_runs`, at least :data:`MIN_RUN` symbols) is chosen uniformly, and a
    place strictly inside it (the run's first and last symbols stay its edges); there pieces
    drawn uniformly (lemmas of the language without their first symbol, :func:`_pieces`),
    joined and cut to a length drawn uniformly from ``MIN_RUN`` to ``longest``, are inserted
    into the lemma and the form alike. The tag bundle and language are kept.

    Args:
        item: a training pair.
        pieces: the language's pieces (:func:`_pieces`), not empty.
        longest: the most symbols inserted (:func:`lengthen` gives twice the language's
            longest lemma).
        rng: the random source.

    Returns:
        An :class:`~inflect.training.items.Item`, its lemma and form each longer by the same
        inserted symbols.
    """
    runs = [
        (s, t, n)
        for s, t, n in stem_runs(item.source, item.target)
        if all(_replaceable(x) for x in item.source[s : s + n])
    ]
    if not runs or not pieces:
        return None
    s, t, n = rng.choice(runs)
    at = rng.randint(1, n - 1)
    size = rng.randint(MIN_RUN, max(MIN_RUN, longest))
    inserted: list[str] = []
    while len(inserted) < size:
        inserted += rng.choice(pieces)
    inserted = inserted[:size]
    source = (*item.source[: s + at], *inserted, *item.source[s + at :])
    target = (*item.target[: t + at], *inserted, *item.target[t + at :])
    return Item(source, item.features, item.language, target)


def lengthen(items: Sequence[Item], size: int, seed: int) -> list[Item]:
    """``size`` long pairs per language (:func:`lengthen_item`), beside the items.

    For each language, its items are visited in a random order (repeatedly, as often as needed)
    and each gives one long pair until the language has ``size`` of them; a language whose
    pairs have no stem run gets none.

    Args:
        items: the training items (any number of languages).
        size: long pairs per language (0: none).
        seed: the run's seed; the pairs are a function of the items, the seed and ``size``.

    Returns:
        The new items only, grouped by language in the order languages first appear.
    """
    by_language = _by_language(items)
    out: list[Item] = []
    for language, own in by_language.items() if size > 0 else ():
        rng = random.Random(f"lengthen:{seed}:{language}")
        pieces = _pieces(own)
        longest = 2 * max(len(it.source) for it in own)
        made: list[Item] = []
        usable = list(own) if pieces else []
        while usable and len(made) < size:
            rng.shuffle(usable)
            kept = []
            for it in usable:
                new = lengthen_item(it, pieces, longest, rng)
                if new is not None:
                    kept.append(it)
                    made.append(new)
                    if len(made) == size:
                        break
            usable = kept if len(made) < size else []
        out += made
    return out
def hallucination_report(
    items: Sequence[Item], made: Sequence[Item], size: int
) -> dict[str, Any] | None:
    """What :func:`hallucinate` did, for the run's start line: None when ``size`` is 0, else
    ``size``; ``before`` and ``after``: the training pairs without and with the hallucinated
    ones; ``added``: pairs added per language (in order of first appearance, 0 included);
    ``full``: the languages that had ``size`` pairs or more already (none added: ``--hallucinate``
    above their size adds some), with their sizes; ``no_stem``: those below ``size`` whose pairs
    have no stem run to replace."""
    if not size:
        return None
    own: dict[str, int] = {}
    for it in items:
        own[it.language or ""] = own.get(it.language or "", 0) + 1
    added = {language: 0 for language in own}
    for it in made:
        added[it.language or ""] += 1
    return {
        "size": size, "before": len(items), "after": len(items) + len(made), "added": added,
        "full": {language: n for language, n in own.items() if n >= size},
        "no_stem": [language for language, n in own.items() if n < size and not added[language]],
    }
