"""The conversion tables of the tag dialects, as data: ``common.toml`` (what every language
shares: spellings of one feature, unmarked values, the 2018 spelling of argument and possessor
layers), ``ud.toml`` (Universal Dependencies features to UniMorph), ``LANGUAGE.toml`` (a
language's own rules, where its 2018 data differ from the common ones) and ``unconverted.toml``
(the UniMorph 4 cells, and the features left out, whose conversion the SIGMORPHON 2023 data do
not support: written by ``recipes/unimorph4/agreement.py``). Each file names its sources. This
module reads them (stdlib :mod:`tomllib`) into the records below, once.

Raises :class:`TableError` (naming the file and what is wrong) for a malformed table: the tables
ship with the package, so that is a broken installation.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "FOLDER",
    "REASONS",
    "LanguageTable",
    "Rule",
    "TableError",
    "UdTable",
    "Unconverted",
    "language_table",
    "read_unconverted",
    "ud_table",
    "unconverted",
]

#: The folder of the tables.
FOLDER = Path(__file__).resolve().parent


class TableError(ValueError):
    """A conversion table that cannot be read (``FILE: what``)."""


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML file at ``path``; a :class:`TableError` naming it where it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TableError(f"{path}: {exc}") from None


def _load(name: str) -> dict[str, Any]:
    try:
        return _read_toml(FOLDER / name)
    except TableError as exc:
        raise TableError(f"{exc}; the installation is broken, reinstall") from None


def _features(text: str) -> tuple[str, ...]:
    """``"PST;IPFV"`` -> ``("PST", "IPFV")``; ``""`` -> ``()``."""
    return tuple(f.strip() for f in text.split(";") if f.strip())


@dataclass(frozen=True)
class Rule:
    """A language's rule: where a bundle has every feature of ``when`` and not all of any set of
    ``unless``, it is read as ``read`` (when given), else with ``add`` added and ``drop``
    dropped.

    Example (English, whose data write the present tense other than the 3rd person singular as
    the bare form): ``when = V;PRS``, ``unless = [3;SG, V.PTCP]``, ``read = V;NFIN``.
    """

    when: frozenset[str]
    unless: tuple[frozenset[str], ...] = ()
    read: tuple[str, ...] | None = None
    add: tuple[str, ...] = ()
    drop: frozenset[str] = frozenset()
    why: str = ""

    def apply(self, features: tuple[str, ...]) -> tuple[str, ...] | None:
        """The features after the rule, or None where it does not apply."""
        have = set(features)
        if not self.when <= have or any(u <= have for u in self.unless):
            return None
        if self.read is not None:
            return self.read
        kept = tuple(f for f in features if f not in self.drop)
        return kept + tuple(f for f in self.add if f not in have)


@dataclass(frozen=True)
class LanguageTable:
    """What converting foreign tags to one language's 2018 bundles uses.

    Attributes:
        language: the shared-task name (``""``: the common table alone).
        synonyms: classes of spellings of one feature.
        defaults: unmarked values a bundle of the language may add where the tags say nothing
            of their dimension.
        renames: a feature read as another in this language (Finnish ``ESS`` -> ``FRML``).
        rules: the language's rules, applied in order (the first that applies).
        roles: an argument layer's name -> its 2018 spellings in composite features.
        letters: number, gender and clusivity -> their letter in composite features.
    """

    language: str
    synonyms: tuple[tuple[str, ...], ...]
    defaults: frozenset[str]
    renames: dict[str, str]
    rules: tuple[Rule, ...]
    roles: dict[str, tuple[str, ...]]
    letters: dict[str, str]


def _rule(raw: dict[str, Any], path: str) -> Rule:
    try:
        return Rule(
            when=frozenset(_features(raw["when"])),
            unless=tuple(frozenset(_features(u)) for u in raw.get("unless", ())),
            read=_features(raw["read"]) if "read" in raw else None,
            add=_features(raw.get("add", "")),
            drop=frozenset(_features(raw.get("drop", ""))),
            why=raw.get("why", ""),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise TableError(f"{path}: malformed rule {raw!r} ({exc})") from None


@functools.cache
def language_table(language: str = "") -> LanguageTable:
    """The common table with ``language``'s own (``LANGUAGE.toml``, where there is one).

    Raises:
        TableError: a malformed table.
    """
    common = _load("common.toml")
    own = _load(f"{language}.toml") if language and (FOLDER / f"{language}.toml").is_file() else {}
    return LanguageTable(
        language=language,
        synonyms=tuple(tuple(c) for c in common["synonyms"]),
        defaults=frozenset(common["defaults"]) | frozenset(own.get("defaults", ())),
        renames=dict(own.get("renames", {})),
        rules=tuple(_rule(r, f"{language}.toml") for r in own.get("rules", ())),
        roles={k: tuple(v) for k, v in common["roles"].items()},
        letters=dict(common["letters"]),
    )


#: A UD value's UniMorph reading: alternatives (each a tuple of features; ``()`` none), or None
#: where no 2018 cell marks it.
Reading = tuple[tuple[str, ...], ...] | None


@dataclass(frozen=True)
class UdTable:
    """Universal Dependencies features -> UniMorph (``ud.toml``).

    Attributes:
        pos: UPOS -> its reading.
        features: feature -> value -> its reading.
        ignored: features that no 2018 bundle marks, of any value.
        layers: a layered feature's layer (``psor``) -> the UniMorph 4 layer (``PSS``).
    """

    pos: dict[str, Reading]
    features: dict[str, dict[str, Reading]]
    ignored: frozenset[str]
    layers: dict[str, str]


def _reading(value: Any) -> Reading:
    if value is False:
        return None
    if isinstance(value, str):
        return (_features(value),)
    return tuple(_features(v) for v in value)


@functools.cache
def ud_table() -> UdTable:
    """The UD table (``ud.toml``), read once.

    Raises:
        TableError: a malformed table.
    """
    raw = _load("ud.toml")
    try:
        return UdTable(
            pos={k: _reading(v) for k, v in raw["pos"].items()},
            features={
                name: {str(k): _reading(v) for k, v in values.items()}
                for name, values in raw["features"].items()
            },
            ignored=frozenset(raw["ignored"]["features"]),
            layers=dict(raw["layers"]),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise TableError(f"{FOLDER / 'ud.toml'}: malformed ({exc})") from None


#: The reasons an entry of ``unconverted.toml`` gives, in words.
REASONS = {
    "dropped-feature": "the reading leaves out a feature (one the language's 2018 bundles never "
    "mark, or never beside the rest of the tags), and answers another cell",
    "other-forms": "the reading keeps every feature, and the 2018 cell holds other forms",
}


@dataclass(frozen=True)
class Unconverted:
    """One entry of ``unconverted.toml``: UniMorph 4 tags as written (a cell of the SIGMORPHON
    2023 data), or a feature left out by a reading, whose conversion to the language's 2018
    bundle gave the 2018 form on at most half of the pairs measured
    (``recipes/unimorph4/agreement.py``).

    Attributes:
        language: the shared-task name.
        kind: ``"cell"`` (``what`` is tags as written) or ``"feature"`` (``what`` is a feature
            that readings leave out).
        what: the tags (``V;COND;LGSPEC1;NOM(1,SG)``) or the feature (``NEC``).
        agree: the pairs (lemma, form) whose form is the 2018 form of the bundle read.
        total: the pairs measured (the 2023 train and dev lines in a 2018 cell of the lemma).
        reason: a key of :data:`REASONS`.
        read_as: the 2018 bundle the cell was read as (``""`` for a feature).
        dropped: the features the reading left out.
    """

    language: str
    kind: str
    what: str
    agree: int
    total: int
    reason: str
    read_as: str = ""
    dropped: tuple[str, ...] = ()


def _unconverted_entry(raw: dict[str, Any], kind: str, path: Path) -> Unconverted:
    try:
        entry = Unconverted(
            language=str(raw["language"]),
            kind=kind,
            what=str(raw["tags" if kind == "cell" else "feature"]),
            agree=int(raw["agree"]),
            total=int(raw["total"]),
            reason=str(raw["reason"]),
            read_as=str(raw.get("read_as", "")),
            dropped=tuple(str(f) for f in raw.get("dropped", ())),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise TableError(f"{path}: malformed [[{kind}]] entry {raw!r} ({exc})") from None
    if entry.reason not in REASONS or not 0 <= entry.agree <= entry.total:
        raise TableError(f"{path}: malformed [[{kind}]] entry {raw!r} (reason or counts)")
    return entry


def read_unconverted(path: Path) -> dict[str, tuple[Unconverted, ...]]:
    """The entries of a table in the layout of ``unconverted.toml`` (``[[cell]]`` and
    ``[[feature]]`` arrays of tables), by language.

    Raises:
        TableError: a file that cannot be read, or a malformed entry (naming the file).
    """
    raw = _read_toml(path)
    by_language: dict[str, list[Unconverted]] = {}
    for kind in ("cell", "feature"):
        for item in raw.get(kind, ()):
            entry = _unconverted_entry(item, kind, path)
            by_language.setdefault(entry.language, []).append(entry)
    return {language: tuple(entries) for language, entries in by_language.items()}


@functools.cache
def _unconverted_all() -> dict[str, tuple[Unconverted, ...]]:
    try:
        return read_unconverted(FOLDER / "unconverted.toml")
    except TableError as exc:
        raise TableError(f"{exc}; the installation is broken, reinstall") from None


def unconverted(language: str) -> tuple[Unconverted, ...]:
    """The entries of the package's ``unconverted.toml`` for ``language`` (shared-task name;
    none: ``()``), read once.

    Raises:
        TableError: a malformed table.
    """
    return _unconverted_all().get(language, ())
