"""The tag bundles a language's training data use, to check a bundle a user gives against them.

A model answers any multiset of features it has embeddings for, also one its language never
writes (Finnish ``V;IND;PRS;3;SG``, whose data write ``V;ACT;PRS;POS;IND;3;SG``): the answer is
then a guess at a cell that does not exist. :class:`LanguageBundles` holds the bundles of every
training setting of one language (the shipped paradigm cells, :mod:`inflect.corpora.cells`: no
data folder needed) and says whether a bundle is one of them (as a multiset: order-free,
repeats counted), which are nearest (fewest features to add or drop), how a lowercase bundle
reads (``n;dat;pl`` -> ``N;DAT;PL``, where each feature matches one known feature up to case),
and how a bundle written in another layout reads (``N,DAT,PL``; the 2023 task's ``N;NOM(SG)``).
This module imports only the standard library, :mod:`inflect.text` and
:mod:`inflect.corpora.cells`.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from inflect.corpora.cells import load_cells
from inflect.defaults import SETTINGS
from inflect.text.languages import resolve
from inflect.text.records import DataFormatError, Example, TagBundle, quoted, split_features

__all__ = ["LanguageBundles", "language_bundles", "tag_problems"]

#: How many of the nearest bundles a suggestion lists.
NEAREST = 3


@dataclass(frozen=True)
class LanguageBundles:
    """The tag bundles of one language's training data (every setting).

    Attributes:
        language: the shared-task name.
        bundles: the distinct bundles, as the data write them, sorted by text.
        features: every UniMorph feature they use.
    """

    language: str
    bundles: tuple[TagBundle, ...]
    features: frozenset[str]

    def knows(self, tags: TagBundle) -> bool:
        """True when ``tags`` is one of :attr:`bundles` as a multiset."""
        return tags.multiset in self._multisets

    @functools.cached_property
    def _multisets(self) -> dict[tuple[str, ...], TagBundle]:
        return {b.multiset: b for b in self.bundles}

    def spelled(self, tags: TagBundle) -> TagBundle | None:
        """The bundle of the data that ``tags`` is as a multiset, as the data write it (their
        order of features), or None."""
        return self._multisets.get(tags.multiset)

    def nearest(self, tags: TagBundle, n: int = NEAREST) -> list[str]:
        """The ``n`` known bundles with the fewest features to add or drop to reach them from
        ``tags`` (multiset difference), ties broken by fewer features dropped, then by text."""
        given = Counter(tags.multiset)

        def cost(bundle: TagBundle) -> tuple[int, int, str]:
            other = Counter(bundle.multiset)
            dropped = sum((given - other).values())
            return dropped + sum((other - given).values()), dropped, bundle.text

        return [b.text for b in sorted(self.bundles, key=cost)[:n]]

    def case_fixed(self, tags: TagBundle) -> TagBundle | None:
        """``tags`` with each feature the language does not use replaced by the one known
        feature equal to it up to case (``n;dat;pl`` -> ``N;DAT;PL``), where every such feature
        has exactly one and the result is a known bundle; else None."""
        by_fold: dict[str, list[str]] = {}
        for f in self.features:
            by_fold.setdefault(f.casefold(), []).append(f)
        written = [f.strip() for f in split_features(tags.text) if f.strip()]
        if sorted(written) != list(tags.multiset):  # built from features: no written order
            written = list(tags.multiset)
        fixed = []
        for f in written:
            if f in self.features:
                fixed.append(f)
                continue
            match = by_fold.get(f.casefold(), [])
            if len(match) != 1:
                return None
            fixed.append(match[0])
        out = TagBundle(fixed)
        return out if out.multiset != tags.multiset and self.knows(out) else None

    def layout_hint(self, text: str) -> str | None:
        """A known bundle that ``text`` writes in another layout, with what to write: features
        separated by ``,`` (``N,DAT,PL``) or the 2023 task's layers (``N;NOM(SG)``,
        ``V;IND;PRS;NOM(3,SG)``); None where ``text`` is not such a bundle."""
        if not re.search(r"[,()]", text):
            return None
        parts = [p.strip() for p in re.split(r"[;,()]", text) if p.strip()]
        candidate = TagBundle(parts)
        candidate = self.case_fixed(candidate) or candidate
        if not self.knows(candidate):
            return None
        written = next(b.text for b in self.bundles if b.multiset == candidate.multiset)
        kind = ("the 2023 task's layered features" if "(" in text
                else "features separated by ','")
        return (f"{quoted(text)} looks like {kind}; the 2018 layout this model reads separates "
                f"features by ';': {written}")

    def feature_hint(self, feature: str) -> str | None:
        """The known feature equal to ``feature`` up to case, else the closest by
        :func:`difflib.get_close_matches` (cutoff 0.6: ``INST`` -> ``INS``); None if none."""
        known = sorted(self.features)
        match = next((k for k in known if k.casefold() == feature.casefold()), None)
        if match is None:
            close = difflib.get_close_matches(feature, known, n=1, cutoff=0.6)
            match = close[0] if close else None
        return match

    def unknown_bundle_note(self, tags: TagBundle) -> str:
        """The warning for a bundle that is not one of :attr:`bundles`: what the data write,
        the nearest bundles (``did you mean V;ACT;PRS;POS;IND;3;SG?``), or the layout it seems
        written in."""
        hint = self.layout_hint(tags.text)
        if hint is not None:
            return hint
        nearest = self.nearest(tags)
        name = resolve(self.language).display_name
        return (f"tag bundle {quoted(tags.text)} is not one of the {len(self.bundles):,} bundles of "
                f"{name}'s training data, so the answer is a guess at a cell the language may "
                f"not have; did you mean {' or '.join(nearest)}?")


@functools.cache
def language_bundles(language: str) -> LanguageBundles | None:
    """The :class:`LanguageBundles` of ``language`` (shared-task name) from the shipped cells of
    every setting; None for a language without training data there.

    Raises:
        CellsError: a shipped cells file is missing or malformed.
    """
    seen: dict[tuple[str, ...], TagBundle] = {}
    found = False
    for setting in SETTINGS:
        table = load_cells(setting)
        groups = [*table.languages.get(language, {}).values(),
                  table.without_part_of_speech.get(language, ())]
        for bundles in groups:
            found = found or bool(bundles)
            for text in bundles:
                bundle = TagBundle.parse(text)
                seen.setdefault(bundle.multiset, bundle)
    if not found:
        return None
    bundles = tuple(sorted(seen.values(), key=lambda b: b.text))
    return LanguageBundles(language, bundles, frozenset(f for b in bundles for f in b.multiset))


def tag_problems(
    examples: Iterable[Example], language: str | None = None, fmt: str = "auto"
) -> tuple[list[DataFormatError], list[DataFormatError]]:
    """The lines whose tags cannot be read (errors) or are read as no bundle of ``language``'s
    2018 data, or not converted (:attr:`inflect.text.dialects.TagReading.refused`: warnings, for
    tags in UniMorph 4 or UD), by :func:`inflect.text.dialects.read_tags`
    (each distinct text once). Without ``language`` (or one without 2018 data), only whether the
    tags can be read at all (balanced layers, UD values that exist).

    Returns:
        ``(errors, warnings)``, each naming the file, the line and the tags.

    Raises:
        UnknownLanguageError: an unknown ``language``.
    """
    from inflect.text.dialects import DIALECT_NAMES, TagError, read_tags

    name = resolve(language).name if language else ""
    known = language_bundles(name) if name else None
    errors: list[DataFormatError] = []
    found: list[DataFormatError] = []
    seen: dict[str, TagError | str | None] = {}
    for example in examples:
        text = example.tags.text
        if text not in seen:
            try:
                reading = read_tags(text, fmt, known, name)
                unread = reading.dialect != "unimorph" and not reading.known and known
                seen[text] = (
                    None if not unread
                    else reading.refused  # a conversion the 2023 data do not support
                    or f"{DIALECT_NAMES[reading.dialect]} tags read as {reading.asked.text}, "
                    f"which is not one of {resolve(name).display_name}'s 2018 bundles"
                )
            except TagError as exc:
                seen[text] = exc
        problem = seen[text]
        where = example.source or "<string>", example.line
        if isinstance(problem, TagError):
            errors.append(DataFormatError(*where, problem.what, text))
        elif problem is not None:
            found.append(DataFormatError(*where, problem, text))
    return errors, found
