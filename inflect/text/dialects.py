"""Tag dialects: the tags a user writes, read as the bundle of a language's 2018 data.

Three dialects are read (:data:`DIALECTS`):

- ``"unimorph"``: the CoNLL–SIGMORPHON 2018 data's bundles (``N;DAT;PL``), what the shipped
  models were trained on;
- ``"unimorph4"``: UniMorph 4's layered features (``N;DAT(PL)``, ``V;IND;PRS;NOM(3,SG)``,
  :mod:`inflect.text.unimorph4`), the SIGMORPHON 2022–2023 data's;
- ``"ud"``: Universal Dependencies' ``UPOS|Name=Value|...`` (:mod:`inflect.text.ud`), what
  spaCy, Stanza, UDPipe and the treebanks give.

:func:`detect_dialect` tells them apart (a ``=`` or ``|`` means UD, a layer ``NAME(...)``
UniMorph 4); ``fmt`` forces one. :func:`read_tags` reads the tags as one of a language's 2018 bundles (the
:class:`KnownBundles` of :mod:`inflect.corpora.bundles`), keeping the text as written beside the
bundle asked (:class:`TagReading`):

1. foreign tags are unpacked into candidates (each layer's readings, each UD alternative);
   each candidate is spelled the language's way (``tagsets/``: a feature the language never
   uses read as its synonym that it does, ``INST``/``INS``; the language's rules);
2. the first candidate that is one of the language's bundles, also up to a redundant
   part-of-speech feature (English ``V;V.PTCP;PST``, French ``V.PTCP;PST``), is the answer;
3. else the bundle that shares most features with a candidate and adds only unmarked values of
   dimensions it leaves unsaid (``ACT``, ``POS``: Finnish ``V;ACT;PRS;POS;IND;3;SG``), dropping
   features the language does not mark (Russian nouns' ``Gender``); but where the candidates
   fit only once a layer is left out (an object agreement, a Spanish clitic), that layer has no
   2018 cell: a :class:`TagError` naming it and the language's nearest bundles;
4. tags that fit no bundle, or several equally, are read by the tables alone (the first
   candidate, :attr:`TagReading.known` False: the caller notes it, as it notes a 2018 bundle the
   language does not have; the lexicons may still know it: English nouns, whose 2018 data have
   verbs only);
5. a reading that the SIGMORPHON 2023 data show to answer another cell is not converted
   (``tagsets/unconverted.toml``, measured by ``recipes/unimorph4/agreement.py``): UniMorph 4
   tags of a cell listed there, or tags whose reading leaves out a feature listed there for the
   language (Turkish ``NEC``), are read as in step 4, with :attr:`TagReading.refused` saying
   why and how often the reading had the 2018 form.

The 2018 dialect is read as written, up to case (``n;dat;pl``), a redundant part-of-speech
feature and a synonym; a bundle the language does not have stays as written (the caller notes
it). This module imports only the standard library and :mod:`inflect.text`.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, get_args

from inflect.text.languages import resolve
from inflect.text.records import TagBundle, quoted
from inflect.text.tagsets import LanguageTable, Unconverted, language_table, unconverted
from inflect.text.ud import UdError, unpack_ud
from inflect.text.unimorph import PART_OF_SPEECH, dimension_of
from inflect.text.unimorph4 import LayerError, Unpacked, has_layers, unpack_unimorph4

__all__ = [
    "DIALECTS",
    "DIALECT_NAMES",
    "MAX_READINGS",
    "TAG_FORMATS",
    "KnownBundles",
    "TagError",
    "TagFormat",
    "TagReading",
    "detect_dialect",
    "read_tags",
]

Dialect = Literal["unimorph", "unimorph4", "ud"]
DIALECTS: tuple[str, ...] = get_args(Dialect)
#: A tag format a user may force (``--tag-format``, the service's ``tag_format``): a dialect, or
#: ``"auto"``, which detects the dialect of each bundle (:func:`detect_dialect`).
TagFormat = Literal["auto", Dialect]
#: ``--tag-format``'s choices, in order: ``("auto", "unimorph", "unimorph4", "ud")``.
TAG_FORMATS: tuple[str, ...] = get_args(TagFormat)
DIALECT_NAMES = {"unimorph": "UniMorph", "unimorph4": "UniMorph 4", "ud": "UD"}
#: The most readings (combinations of one option per layer or UD alternative) that foreign tags
#: may give: their number is a power of the number of layers, and each is matched against the
#: language's bundles, so that a few dozen layers would exhaust the memory. The SIGMORPHON 2023
#: train and dev files' bundles give at most 63 (Spanish ``V;IMP;DAT(3,SG);NOM(INFM,2,SG)``).
MAX_READINGS = 512


class TagError(ValueError):
    """Tags that cannot be read as a bundle of the language: malformed, unknown, or with no 2018
    cell (the message names the part at fault and the language's nearest bundles).

    Attributes:
        what: what is wrong, in words.
        text: the tags as written.
    """

    def __init__(self, what: str, text: str) -> None:
        self.what, self.text = what, text
        super().__init__(f"{what} ({quoted(text)})")


class KnownBundles(Protocol):
    """A language's 2018 bundles (:class:`inflect.corpora.bundles.LanguageBundles`)."""

    language: str
    bundles: tuple[TagBundle, ...]
    features: frozenset[str]

    def knows(self, tags: TagBundle) -> bool: ...
    def nearest(self, tags: TagBundle, n: int = ...) -> list[str]: ...
    def case_fixed(self, tags: TagBundle) -> TagBundle | None: ...
    def spelled(self, tags: TagBundle) -> TagBundle | None: ...


@dataclass(frozen=True)
class TagReading:
    """Tags as written and the bundle asked.

    Attributes:
        written: the tags as the user wrote them.
        dialect: ``"unimorph"``, ``"unimorph4"`` or ``"ud"``.
        asked: the bundle the model is asked (the language's own spelling where it has it).
        notes: how the tags were read, where not as written.
        known: ``asked`` is one of the language's bundles (False: not checked, or not one).
        dropped: the features of the tags that the reading leaves out, because the language's
            2018 bundles do not mark them (``NEC`` of Turkish's ``V;NEC;PST;NEG;INTR;NOM(3,PL)``,
            read as ``V;IND;3;PL;PST;NEG;INTR``), also where that reading is then refused.
        refused: where the conversion is not trusted (the module docstring's step 5), the note
            saying so (also in ``notes``; ``known`` is False and ``asked`` the tags as read),
            else ``""``.
    """

    written: str
    dialect: str
    asked: TagBundle
    notes: tuple[str, ...] = ()
    known: bool = True
    dropped: tuple[str, ...] = ()
    refused: str = ""


def detect_dialect(text: str) -> Dialect:
    """``"ud"`` for text with a ``=`` or a ``|`` (``NOUN|Case=Dat``; ``|`` separates UD's items
    and is in no UniMorph feature, so that ``NOUN|Case`` is malformed UD rather than an unknown
    UniMorph feature), ``"unimorph4"`` for one with a layer (``N;DAT(PL)``), else
    ``"unimorph"``."""
    if "=" in text or "|" in text:
        return "ud"
    return "unimorph4" if has_layers(text) else "unimorph"


def read_tags(
    text: str,
    fmt: str = "auto",
    known: KnownBundles | None = None,
    language: str = "",
    *,
    refuse: bool = True,
) -> TagReading:
    """The tags ``text`` read as a bundle of the language of ``known`` (see the module
    docstring); without ``known`` (a language with no 2018 data), foreign tags are read by the
    tables alone (each choice's first reading).

    Args:
        text: the tags as written.
        fmt: ``"auto"`` (:func:`detect_dialect`) or one of :data:`DIALECTS`.
        known: the language's 2018 bundles, or None.
        language: the language's shared-task name, where ``known`` is None.
        refuse: leave the readings ``unconverted.toml`` lists unconverted (step 5); False reads
            them as the tables do (the recipe that measures them).

    Raises:
        TagError: malformed tags (unbalanced layers, a UD item without ``=``), an unknown UD
            UPOS, feature or value (``Case=Foo``), a layer with no 2018 cell, more layers or
            alternatives than :data:`MAX_READINGS` readings allow.
        ValueError: an unknown ``fmt``.
    """
    if fmt not in TAG_FORMATS:
        raise ValueError(f"unknown tag format {fmt!r}; choose one of {', '.join(TAG_FORMATS)}")
    dialect = detect_dialect(text) if fmt == "auto" else fmt
    language = known.language if known is not None else language
    try:
        if dialect == "unimorph":
            return _unimorph(TagBundle.parse(text), known)
        unpack = unpack_ud if dialect == "ud" else unpack_unimorph4
        unpacked = unpack(text, language)
    except (LayerError, UdError) as exc:
        raise TagError(exc.what, text) from None
    except ValueError as exc:  # TagBundle.parse
        raise TagError(str(exc), text) from None
    if unpacked.readings > MAX_READINGS:
        raise TagError(
            f"too many layers or alternatives ({len(unpacked.choices)}): their readings number "
            f"more than the {MAX_READINGS:,} read (the SIGMORPHON 2023 train and dev bundles give "
            "at most 63)",
            text,
        )
    table = language_table(language)
    if known is None:
        asked = TagBundle(unpacked.candidates()[0])
        return TagReading(text, dialect, asked, (_read_as(dialect, text, asked),), known=False)
    return _Resolver(text, dialect, unpacked, known, table, refuse).reading()


def _read_as(dialect: str, text: str, asked: TagBundle, why: str = "") -> str:
    return f"{DIALECT_NAMES[dialect]} tags {quoted(text)} read as {asked.text}{why}"


def _with_pos_variants(features: tuple[str, ...]) -> list[tuple[str, ...]]:
    """``features``, then without a redundant ``V`` beside ``V.PTCP`` (or another ``V.``), or
    with it added (English ``V;V.PTCP;PST``, French ``V.PTCP;PST``)."""
    out = [features]
    sub = [f for f in features if f.startswith("V.") and dimension_of(f) == PART_OF_SPEECH]
    if sub and "V" in features:
        out.append(tuple(f for f in features if f != "V"))
    elif sub:
        out.append(("V", *features))
    return out


def _spelled(features: Sequence[str], known: KnownBundles, table: LanguageTable) -> tuple[str, ...]:
    """Each feature the language never uses read as its rename or synonym that it uses."""
    out = []
    for feature in features:
        if feature not in known.features:
            feature = table.renames.get(feature, feature)
        if feature not in known.features:
            for group in table.synonyms:
                if feature in group:
                    feature = next((s for s in group if s in known.features), feature)
        out.append(feature)
    return tuple(out)


def _unimorph(bundle: TagBundle, known: KnownBundles | None) -> TagReading:
    """A 2018-dialect bundle: as written, or up to case, a redundant part of speech or a
    synonym."""
    text = bundle.text
    if known is None or known.knows(bundle):
        return TagReading(text, "unimorph", bundle, known=known is not None)
    fixed = known.case_fixed(bundle)
    if fixed is None:
        table = language_table(known.language)
        for variant in _with_pos_variants(_spelled(bundle.multiset, known, table)):
            fixed = known.spelled(TagBundle(variant))
            if fixed is not None:
                break
    if fixed is None:
        return TagReading(text, "unimorph", bundle, known=False)
    return TagReading(text, "unimorph", fixed, (f"tag bundle {quoted(text)} read as {fixed.text}",))


#: The dimensions whose values tell one cell of a paradigm from another, so that a reading that
#: drops one the language marks answers another cell (:meth:`_Resolver.selects_another_cell`).
_CELL_DIMENSIONS = frozenset({"tense", "mood", "aspect", "person"})


@dataclass(frozen=True)
class _Fit:
    """A bundle of the language for a candidate: its key (more features shared first, then
    fewer added), the features dropped and added."""

    key: tuple[int, int]
    bundle: TagBundle
    dropped: tuple[str, ...]
    added: tuple[str, ...]


class _Resolver:
    """The choice of a language's bundle for unpacked foreign tags (the module docstring's
    steps 2–4)."""

    def __init__(
        self,
        text: str,
        dialect: str,
        unpacked: Unpacked,
        known: KnownBundles,
        table: LanguageTable,
        refuse: bool = True,
    ) -> None:
        self.text, self.dialect, self.unpacked = text, dialect, unpacked
        self.known, self.table, self.refuse = known, table, refuse
        self.name = resolve(known.language).display_name

    def candidates(self, skip: int | None = None) -> list[tuple[str, ...]]:
        """The candidates spelled the language's way, its first rule that applies applied. A
        feature given twice stays twice: Albanian's pluperfect ``PRF;PRF`` is not its perfect
        ``PRF``, and an object layer with the subject's person and number (Spanish
        ``ACC(2,SG)`` beside ``NOM(2,SG)``, a reflexive clitic: *cómete*) is not the plain
        imperative (the layer has no 2018 cell: :meth:`blame`)."""
        out = []
        for candidate in self.unpacked.candidates(skip):
            spelled = _spelled(candidate, self.known, self.table)
            for rule in self.table.rules:
                ruled = rule.apply(spelled)
                if ruled is not None:
                    spelled = ruled
                    break
            out.append(spelled)
        return list(dict.fromkeys(out))

    def exact(self, candidates: list[tuple[str, ...]]) -> TagBundle | None:
        for candidate in candidates:
            for variant in _with_pos_variants(candidate):
                found = self.known.spelled(TagBundle(variant))
                if found is not None:
                    return found
        return None

    def fits(self, candidate: tuple[str, ...]) -> list[_Fit]:
        """The bundles that fit ``candidate``, best first (see the module docstring, step 3)."""
        asked = Counter(candidate)
        said = {dimension_of(f) for f in asked}
        pos = {f for f in asked if dimension_of(f) == PART_OF_SPEECH}
        found = []
        for bundle in self.known.bundles:
            have = Counter(bundle.multiset)
            added = have - asked
            if any(f not in self.table.defaults or dimension_of(f) in said for f in added):
                continue
            if pos and not pos & set(have):
                continue
            shared = sum((have & asked).values())
            if shared:
                dropped = tuple((asked - have).elements())
                found.append(
                    _Fit((-shared, sum(added.values())), bundle, dropped, tuple(added.elements()))
                )
        return sorted(found, key=lambda f: f.key)

    def best(self, candidates: list[tuple[str, ...]]) -> list[_Fit]:
        """The best fits over all candidates: one, several tied (of the first candidate that
        has the best key), or none."""
        every = [(fit, i) for i, c in enumerate(candidates) for fit in self.fits(c)]
        if not every:
            return []
        key = min(fit.key for fit, _ in every)
        first = min(i for fit, i in every if fit.key == key)
        return [fit for fit, i in every if fit.key == key and i == first]

    def clean(self, fit: _Fit) -> bool:
        """The fit drops only features the language never marks."""
        return all(f not in self.known.features for f in fit.dropped)

    def reading(self) -> TagReading:
        candidates = self.candidates()
        exact = self.exact(candidates)
        if exact is not None:
            return self.done(exact)
        best = self.best(candidates)
        if len(best) == 1 and self.clean(best[0]):
            return self.done(best[0].bundle, best[0])
        self.blame()
        if len(best) == 1 and not self.selects_another_cell(best[0]):
            return self.done(best[0].bundle, best[0])
        asked = TagBundle(candidates[0])
        why = ""
        if len(best) == 1:  # it drops what the language marks a cell by: another cell
            why = (f"; the nearest of {self.name}'s 2018 bundles, {best[0].bundle.text}, lacks "
                   f"{', '.join(best[0].dropped)}, which {self.name} marks: no 2018 cell")
        elif best:
            tied = " or ".join(f.bundle.text for f in best)
            why = f", which fits several of {self.name}'s 2018 bundles equally: {tied}"
        note = _read_as(self.dialect, self.text, asked, why)
        return TagReading(self.text, self.dialect, asked, (note,), known=False)

    def selects_another_cell(self, fit: _Fit) -> bool:
        """The fit drops a feature of a dimension that tells a language's cells apart (tense,
        mood, aspect, person) which the language marks, but never on the fit's part of speech:
        Turkish ``N;PL;IND;PST;NOM(2,PL)``, a noun as a predicate ("you were ..."), is not the
        plain ``N;NOM;PL``. Dropping an inherent feature (a Russian noun's UD ``Gender``), or one
        the part of speech carries in other cells (Spanish UD's subjunctive ``IPFV``), keeps the
        cell."""
        pos = {f for f in fit.bundle.multiset if dimension_of(f) == PART_OF_SPEECH}
        carried = {f for b in self.known.bundles if pos & set(b.multiset) for f in b.multiset}
        return any(
            f in self.known.features and f not in carried and dimension_of(f) in _CELL_DIMENSIONS
            for f in fit.dropped
        )

    def blame(self) -> None:
        """Raise a :class:`TagError` naming the layer without which the tags fit cleanly (the
        subject's layer, ``NOM(...)``, tried last)."""
        choices = list(enumerate(self.unpacked.choices))
        # the subject's layer (NOM) last: an object's layer is the one a bundle lacks
        choices.sort(key=lambda c: c[1].label.startswith("NOM("))
        for i, choice in choices:
            if not choice.layer:
                continue
            rest = self.candidates(skip=i)
            found = self.exact(rest)
            if found is None:
                best = self.best(rest)
                found = best[0].bundle if len(best) == 1 and self.clean(best[0]) else None
            if found is not None:
                nearest = " or ".join(dict.fromkeys([found.text, *self.known.nearest(found)]))
                raise TagError(
                    f"the layer {choice.label} has no cell in {self.name}'s 2018 "
                    f"data (no bundle marks it); the nearest bundles: {nearest}",
                    self.text,
                )

    def done(self, asked: TagBundle, fit: _Fit | None = None) -> TagReading:
        dropped = fit.dropped if fit is not None else ()
        entry = self.untrusted(dropped) if self.refuse else None
        if entry is not None:
            return self.refused(asked, dropped, entry)
        why = ""
        if fit is not None and fit.dropped:
            why += f"; {self.left_out(fit.dropped)}"
        if fit is not None and fit.added:
            why += f"; {', '.join(fit.added)} added (unmarked)"
        return TagReading(
            self.text,
            self.dialect,
            asked,
            (_read_as(self.dialect, self.text, asked, why),),
            dropped=dropped,
        )

    def left_out(self, dropped: tuple[str, ...]) -> str:
        """The features a reading leaves out, in words: those the language's 2018 bundles never
        mark, then those they mark (Swahili's ``SUBJ``, marked in other cells)."""
        never = [f for f in dropped if f not in self.known.features]
        marked = [f for f in dropped if f in self.known.features]
        parts = [f"{', '.join(never)} not marked in {self.name}'s 2018 bundles"] if never else []
        return "; ".join([*parts, *([f"{', '.join(marked)} left out"] if marked else [])])

    def untrusted(self, dropped: tuple[str, ...]) -> Unconverted | None:
        """The entry of ``unconverted.toml`` that refuses this reading: the cell of the tags
        as written (UniMorph 4), else the feature left out whose readings agree least."""
        cells, features = _untrusted(self.known.language)
        if self.dialect == "unimorph4":
            try:
                found = cells.get(TagBundle.parse(self.text).multiset)
            except ValueError:
                found = None
            if found is not None:
                return found
        listed = [features[f] for f in dropped if f in features]
        return min(listed, key=lambda e: (e.agree / e.total, -e.total), default=None)

    def refused(self, asked: TagBundle, dropped: tuple[str, ...], entry: Unconverted) -> TagReading:
        """The tags read as in step 4 (the first candidate), with the note that they are not
        converted, and why."""
        if entry.kind == "cell":
            left = f" ({self.left_out(dropped)})" if dropped else ""
            why = (f"on the SIGMORPHON 2023 data, their reading as {asked.text}{left} had the "
                   f"2018 form on {entry.agree:,} of {entry.total:,} pairs")
        else:
            never = (f", which {self.name}'s 2018 bundles never mark"
                     if entry.what not in self.known.features else "")
            why = (f"their reading as {asked.text} leaves out {entry.what}{never}, and on the "
                   f"SIGMORPHON 2023 data, readings that leave it out had the 2018 form on "
                   f"{entry.agree:,} of {entry.total:,} pairs")
        as_read = TagBundle(self.candidates()[0])
        note = (f"{DIALECT_NAMES[self.dialect]} tags {quoted(self.text)} not converted: {why}; "
                f"asked as read, {as_read.text}")
        return TagReading(
            self.text, self.dialect, as_read, (note,), known=False, dropped=dropped, refused=note
        )


@functools.cache
def _untrusted(language: str) -> tuple[dict[tuple[str, ...], Unconverted], dict[str, Unconverted]]:
    """``unconverted.toml``'s entries of ``language``: the cells by their tags' multiset, the
    features by name."""
    cells, features = {}, {}
    for entry in unconverted(language):
        if entry.kind == "cell":
            cells[TagBundle.parse(entry.what).multiset] = entry
        else:
            features[entry.what] = entry
    return cells, features
