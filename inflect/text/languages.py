"""Language specs: names, scripts, direction, settings and the text pipeline of each language.

One declarative TOML file per language lives in ``langs/`` (shipped as ``inflect/_data/langs``);
:func:`resolve` turns any of a language's names (shared-task name, English name, ISO 639-3 or
ISO 639-1 code, alias) into its :class:`LanguageSpec`. Beside them, :func:`resolve` reads the
user's own specs, one TOML file each in :func:`user_langs_dir` (``inflect lang add``), and the
specs of the checkpoints loaded in the process (:func:`remember`: a model trained on a language
that neither folder has carries its spec). The specs cover the 103 languages of
CoNLL–SIGMORPHON 2018 task 1 (Cotterell et al., "The CoNLL–SIGMORPHON 2018 Shared Task: Universal
Morphological Reinflection", CoNLL 2018). Codes follow ISO 639-3 / 639-1 (languages) and ISO 15924
(scripts); normalisation forms are those of Unicode Standard Annex #15.

The text pipeline is exact: the shared task's scorer compares strings without normalising them,
so for every lemma and form ``s`` of a language's data,
``spec.from_symbols(spec.to_symbols(s)) == s`` code point for code point. Two fields say how:

* ``normalization`` (``"NFC"`` or ``"NFD"``) and ``exceptions``: the Unicode normalisation form the
  data are written in, and the characters the data write against it (Khaling writes its
  circumflex tone decomposed but ``ç`` precomposed: ``"NFD"`` with exception ``"ç"``). User input
  is brought to this form by :meth:`LanguageSpec.normalize_input`.
* ``model_transform``: ``"none"`` (the model's symbols are the code points as written) or
  ``"nfd"`` (canonical decomposition, so that a diacritic or a Hangul jamo is a symbol of its own;
  the output is recomposed to the data's normalisation).

Specs are read lazily, on the first call, and cached; this module imports only the standard
library.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inflect._resources import data_path
from inflect.defaults import SETTINGS

__all__ = [
    "DIRECTIONS",
    "MODEL_TRANSFORMS",
    "NORMALIZATIONS",
    "SETTINGS",
    "AmbiguousLanguageError",
    "LanguageSpec",
    "LanguageSpecError",
    "UnknownLanguageError",
    "all_languages",
    "load_spec",
    "name_key",
    "remember",
    "resolve",
    "user_langs_dir",
    "user_languages",
]

#: The environment variable naming the folder of the user's language specs (default: the
#: platform's user config folder, ``~/.config/sparse-inflect/langs`` on Linux).
LANGS_ENV = "INFLECT_LANGS_DIR"

DIRECTIONS: tuple[str, ...] = ("ltr", "rtl")
NORMALIZATIONS: tuple[str, ...] = ("NFC", "NFD")
MODEL_TRANSFORMS: tuple[str, ...] = ("none", "nfd")

_NAME_RE = re.compile(r"[a-z]+(?:-[a-z]+)*")
_ISO3_RE = re.compile(r"[a-z]{3}")
_ISO1_RE = re.compile(r"[a-z]{2}")
_SCRIPT_RE = re.compile(r"[A-Z][a-z]{3}")  # ISO 15924 four-letter code, e.g. "Latn"
_SEPARATORS_RE = re.compile(r"[\s_\-]+")

_FIELDS_TOP = (
    "name",
    "display_name",
    "iso639_3",
    "iso639_1",
    "aliases",
    "scripts",
    "direction",
    "settings",
    "shared_names",
)
_FIELDS_TEXT = ("normalization", "exceptions", "model_transform")


class LanguageSpecError(ValueError):
    """A language spec (TOML file or dict) is malformed; the message names the file and field."""


class UnknownLanguageError(ValueError):
    """No language has the given name; the message lists the closest known names.

    Attributes:
        name: the name that was looked up.
        suggestions: shared-task names of the closest languages, best first (may be empty).
    """

    def __init__(self, name: str, suggestions: Sequence[str]) -> None:
        self.name = name
        self.suggestions = tuple(suggestions)
        hint = (
            f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?"
            if self.suggestions
            else ""
        )
        super().__init__(
            f"unknown language {name!r}{hint} (a shared-task name such as 'north-frisian', an "
            "English name, the language's own name such as 'español', or an ISO 639-1/639-3 "
            "code; `inflect data list` lists the languages)"
        )


class AmbiguousLanguageError(UnknownLanguageError):
    """A name that several languages share (``kurdish``: Kurmanji and Sorani; ``norwegian``:
    Bokmål and Nynorsk); the message lists them.

    Attributes:
        name: the name that was looked up.
        suggestions: the shared-task names of the languages it names, in name order.
    """

    def __init__(self, name: str, languages: Sequence[LanguageSpec]) -> None:
        ValueError.__init__(
            self,
            f"{name!r} names {len(languages)} languages of the shared task: "
            + ", ".join(s.name if name_key(s.display_name) == s.name
                        else f"{s.name} ({s.display_name})" for s in languages)
            + "; give one of them",
        )
        self.name = name
        self.suggestions = tuple(s.name for s in languages)


def name_key(name: str) -> str:
    """The lookup key of a language name: case-folded, accents removed, ``_``/spaces as ``-``.

    ``"Norwegian Bokmål"``, ``"norwegian_bokmal"`` and ``"NORWEGIAN-BOKMAL"`` share one key.

    Args:
        name: any spelling of a language name or code.

    Returns:
        The key, e.g. ``"norwegian-bokmal"``.
    """
    folded = unicodedata.normalize("NFKD", name.casefold())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _SEPARATORS_RE.sub("-", folded.strip()).strip("-")


@dataclass(frozen=True)
class LanguageSpec:
    """One language: its names, writing system, settings and the exact text pipeline.

    Attributes:
        name: shared-task name, e.g. ``"north-frisian"`` (lowercase words joined by ``-``).
        display_name: English name, e.g. ``"North Frisian"``.
        iso639_3: ISO 639-3 code, e.g. ``"frr"``; None for a user's language whose spec gives
            none.
        iso639_1: ISO 639-1 code where one exists (``"de"``), else None.
        aliases: further names and codes that resolve to this language.
        scripts: ISO 15924 codes of the scripts of the data, main script first (``("Latn",)``).
        direction: ``"ltr"`` or ``"rtl"`` (writing direction of the main script).
        settings: training settings of the shared task present, a subset of ``("high",
            "medium", "low")`` in that order (empty for a user's language).
        shared_names: names the language shares with others (a macrolanguage's: ``"Kurdish"``,
            ``"ku"`` for Kurmanji and Sorani), which :func:`resolve` answers with
            :class:`AmbiguousLanguageError` listing them all.
        normalization: Unicode normalisation form the data are written in, ``"NFC"`` or ``"NFD"``.
        exceptions: characters the data write against ``normalization`` (as the data write them).
        model_transform: ``"none"`` (symbols are code points as written) or ``"nfd"`` (symbols are
            the canonical decomposition; output is recomposed to ``normalization``).
    """

    name: str
    display_name: str
    iso639_3: str | None
    iso639_1: str | None
    aliases: tuple[str, ...]
    scripts: tuple[str, ...]
    direction: str
    settings: tuple[str, ...]
    normalization: str = "NFC"
    exceptions: tuple[str, ...] = ()
    model_transform: str = "none"
    shared_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _validate(self.to_dict(), f"LanguageSpec({self.name!r})")

    @property
    def is_rtl(self) -> bool:
        """True for right-to-left languages (Arabic, Hebrew, Syriac scripts)."""
        return self.direction == "rtl"

    @property
    def names(self) -> tuple[str, ...]:
        """Every name this spec answers to: name, display name, ISO codes, aliases."""
        codes = tuple(c for c in (self.iso639_3, self.iso639_1) if c)
        return (self.name, self.display_name, *codes, *self.aliases)

    def normalize_input(self, text: str) -> str:
        """Bring a user's text to the normalisation the language's data are written in.

        Applies ``normalization`` (NFC or NFD), then rewrites each exception into the form the
        data use. Idempotent; the identity on every lemma and form of the language's data.

        Args:
            text: a lemma or form as typed (any Unicode normalisation).

        Returns:
            The same text in the data's normalisation.
        """
        out = unicodedata.normalize(self.normalization, text)
        for written in self.exceptions:
            other = unicodedata.normalize(self.normalization, written)
            if other != written:
                out = out.replace(other, written)
        return out

    def to_symbols(self, text: str) -> list[str]:
        """Split a lemma or form into the model's symbols (one code point each).

        Spaces inside multiword forms are symbols like any other character.

        Args:
            text: a lemma or form in the data's normalisation (see :meth:`normalize_input`).

        Returns:
            The symbols: ``list(text)`` for ``model_transform="none"``, the code points of its
            canonical decomposition (NFD) for ``"nfd"``.
        """
        if self.model_transform == "nfd":
            return list(unicodedata.normalize("NFD", text))
        return list(text)

    def from_symbols(self, symbols: Sequence[str]) -> str:
        """Join model symbols back into text: the exact inverse of :meth:`to_symbols` on the data.

        For ``model_transform="nfd"`` the joined text is recomposed to the data's normalisation
        (``normalize_input``), so NFC data come back NFC and Hangul jamo become syllables again.

        Args:
            symbols: symbols as produced by :meth:`to_symbols` or by the model.

        Returns:
            The lemma or form as the data write it.
        """
        text = "".join(symbols)
        if self.model_transform == "nfd":
            return self.normalize_input(text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field (lists for tuples), e.g. for checkpoints;
        ``shared_names`` only where there are some."""
        shared = {"shared_names": list(self.shared_names)} if self.shared_names else {}
        return shared | {
            "name": self.name,
            "display_name": self.display_name,
            "iso639_3": self.iso639_3,
            "iso639_1": self.iso639_1,
            "aliases": list(self.aliases),
            "scripts": list(self.scripts),
            "direction": self.direction,
            "settings": list(self.settings),
            "normalization": self.normalization,
            "exceptions": list(self.exceptions),
            "model_transform": self.model_transform,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LanguageSpec:
        """Rebuild a spec from :meth:`to_dict` output.

        Raises:
            LanguageSpecError: on a missing or unknown field or a bad value (named in the message).
        """
        if not isinstance(d, Mapping):
            raise LanguageSpecError(f"language spec: expected a dict, got {type(d).__name__}")
        _validate(d, "language spec dict")
        return cls(
            name=d["name"],
            display_name=d["display_name"],
            iso639_3=d.get("iso639_3"),
            iso639_1=d.get("iso639_1"),
            aliases=tuple(d.get("aliases", ())),
            scripts=tuple(d["scripts"]),
            direction=d["direction"],
            settings=tuple(d["settings"]),
            normalization=d.get("normalization", "NFC"),
            exceptions=tuple(d.get("exceptions", ())),
            model_transform=d.get("model_transform", "none"),
            shared_names=tuple(d.get("shared_names", ())),
        )


def _validate(d: Mapping[str, Any], where: str) -> None:
    """Check every field of a flat spec dict; raise LanguageSpecError naming ``where`` and field."""

    def fail(field: str, what: str) -> None:
        value = d.get(field, None)
        raise LanguageSpecError(f"{where}: field {field!r}: {what} (got {value!r})")

    unknown = sorted(set(d) - set(_FIELDS_TOP) - set(_FIELDS_TEXT))
    if unknown:
        raise LanguageSpecError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}")
    for field in ("name", "display_name", "scripts", "direction", "settings"):
        if field not in d:
            raise LanguageSpecError(f"{where}: missing field {field!r}")
    if not isinstance(d["name"], str) or not _NAME_RE.fullmatch(d["name"]):
        fail("name", "expected lowercase ASCII words joined by '-'")
    if not isinstance(d["display_name"], str) or not d["display_name"].strip():
        fail("display_name", "expected a non-empty string")
    iso3 = d.get("iso639_3")
    if iso3 is not None and (not isinstance(iso3, str) or not _ISO3_RE.fullmatch(iso3)):
        fail("iso639_3", "expected an ISO 639-3 code of 3 lowercase letters or nothing")
    iso1 = d.get("iso639_1")
    if iso1 is not None and (not isinstance(iso1, str) or not _ISO1_RE.fullmatch(iso1)):
        fail("iso639_1", "expected an ISO 639-1 code of 2 lowercase letters or nothing")
    for field in ("aliases", "shared_names"):
        names = d.get(field, [])
        if not _is_str_list(names) or any(not name_key(a) for a in names):
            fail(field, "expected a list of non-empty strings")
    scripts = d["scripts"]
    if (
        not _is_str_list(scripts)
        or not scripts
        or not all(_SCRIPT_RE.fullmatch(s) for s in scripts)
    ):
        fail("scripts", "expected a non-empty list of ISO 15924 codes such as 'Latn'")
    if d["direction"] not in DIRECTIONS:
        fail("direction", f"expected one of {DIRECTIONS}")
    settings = d["settings"]
    if (
        not _is_str_list(settings)
        or tuple(settings) != tuple(s for s in SETTINGS if s in settings)
        or len(set(settings)) != len(settings)
    ):
        fail("settings", f"expected a subset of {SETTINGS}, in that order")
    normalization = d.get("normalization", "NFC")
    if normalization not in NORMALIZATIONS:
        fail("normalization", f"expected one of {NORMALIZATIONS}")
    exceptions = d.get("exceptions", [])
    if not _is_str_list(exceptions) or any(
        not e or unicodedata.normalize(normalization, e) == e for e in exceptions
    ):
        fail("exceptions", f"expected strings that {normalization} would change")
    if d.get("model_transform", "none") not in MODEL_TRANSFORMS:
        fail("model_transform", f"expected one of {MODEL_TRANSFORMS}")


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def load_spec(path: str | Path, *, named: bool = True) -> LanguageSpec:
    """Read one language spec from a TOML file.

    The file has the top-level fields of :class:`LanguageSpec` (``iso639_1`` and ``iso639_3``
    may be omitted)
    and a ``[text]`` table with ``normalization``, ``exceptions`` and ``model_transform``.

    Args:
        path: the ``.toml`` file; its stem must equal its ``name`` field (unless ``named`` is
            False: a spec file of any name, e.g. one given to ``inflect lang add``).

    Returns:
        The spec.

    Raises:
        LanguageSpecError: on invalid TOML (with line and column) or a missing, unknown or bad
            field; the message starts with the file's path.
        OSError: if the file cannot be read.
    """
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = tomllib.load(f)
    except tomllib.TOMLDecodeError as err:
        raise LanguageSpecError(f"{path}: invalid TOML: {err}") from err
    except UnicodeDecodeError as err:
        raise LanguageSpecError(f"{path}: not UTF-8: {err}") from err
    flat = {k: v for k, v in raw.items() if k != "text"}
    if "text" in raw:
        text = raw["text"]
        if not isinstance(text, dict):
            raise LanguageSpecError(f"{path}: field 'text': expected a table (got {text!r})")
        unknown = sorted(set(text) - set(_FIELDS_TEXT))
        if unknown:
            raise LanguageSpecError(
                f"{path}: unknown field(s) in [text]: {', '.join(map(repr, unknown))}"
            )
        flat.update(text)
    for field in _FIELDS_TEXT:
        if field in raw:
            raise LanguageSpecError(f"{path}: field {field!r} belongs in the [text] table")
    _validate(flat, str(path))
    if named and flat["name"] != path.stem:
        raise LanguageSpecError(
            f"{path}: field 'name': must equal the file name {path.stem!r} (got {flat['name']!r})"
        )
    return LanguageSpec.from_dict(flat)


@dataclass(frozen=True)
class _Registry:
    specs: tuple[LanguageSpec, ...]
    by_key: Mapping[str, LanguageSpec]
    shared: Mapping[str, tuple[LanguageSpec, ...]]
    user: tuple[LanguageSpec, ...] = ()


def _build_registry(paths: Iterable[Path], user_paths: Iterable[Path] = ()) -> _Registry:
    """The registry of the shipped specs ``paths`` and the user's ``user_paths`` (read after
    them: a user's file that reuses a shipped name is the one named in the error)."""
    specs: list[LanguageSpec] = []
    by_key: dict[str, LanguageSpec] = {}
    owner: dict[str, Path] = {}
    shipped = sorted(paths)
    for path in [*shipped, *sorted(user_paths)]:
        spec = load_spec(path)
        specs.append(spec)
        for alias in dict.fromkeys(name_key(n) for n in spec.names):
            if alias in by_key:
                raise LanguageSpecError(
                    f"{path}: name {alias!r} is already used by {owner[alias]}; every name, code "
                    "and alias must resolve to one language"
                )
            by_key[alias] = spec
            owner[alias] = path
    shared: dict[str, list[LanguageSpec]] = {}
    for spec in specs:
        for name in dict.fromkeys(name_key(n) for n in spec.shared_names):
            if name in by_key:
                raise LanguageSpecError(
                    f"language spec {spec.name!r}: shared name {name!r} is also a name of "
                    f"{by_key[name].name}; a name is one language's or several's, not both"
                )
            shared.setdefault(name, []).append(spec)
    return _Registry(
        tuple(sorted(specs[: len(shipped)], key=lambda s: s.name)),
        by_key,
        {k: tuple(sorted(v, key=lambda s: s.name)) for k, v in shared.items()},
        tuple(sorted(specs[len(shipped) :], key=lambda s: s.name)),
    )


def user_langs_dir() -> Path:
    """The folder of the user's own language specs (one ``NAME.toml`` each, the layout of the
    shipped ones, written by ``inflect lang add``): ``$INFLECT_LANGS_DIR``, else ``langs`` in the
    platform's user config folder (``~/.config/sparse-inflect/langs`` on Linux). It need not
    exist."""
    import os

    env = os.environ.get(LANGS_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("sparse-inflect")) / "langs"


@functools.cache
def _shipped_paths() -> tuple[Path, ...]:
    return tuple(sorted(data_path("langs").glob("*.toml")))


@functools.cache
def _registry_of(folder: str, stamp: int | None) -> _Registry:
    user = sorted(Path(folder).glob("*.toml")) if stamp is not None else []
    return _build_registry(_shipped_paths(), user)


def _registry() -> _Registry:
    """The shipped specs and the user's, read again when the user's folder changes (a file
    added, removed or renamed: its modification time)."""
    folder = user_langs_dir()
    try:
        stamp = folder.stat().st_mtime_ns if folder.is_dir() else None
    except OSError:
        stamp = None
    return _registry_of(str(folder), stamp)


#: Specs of the checkpoints loaded in this process whose names neither folder knows, by each
#: name's key (:func:`remember`).
_REMEMBERED: dict[str, LanguageSpec] = {}


def remember(spec: LanguageSpec) -> LanguageSpec:
    """Make a loaded checkpoint's language known to :func:`resolve` for the rest of the process,
    where neither the package nor the user's folder has a language of its name (a model trained
    on a user's files carries its spec). A name another language has is left to that language.

    Returns:
        The spec :func:`resolve` now gives for ``spec.name`` (the known one, where there is one).

    Raises:
        LanguageSpecError: a malformed shipped or user spec file.
    """
    registry = _registry()
    known = registry.by_key.get(spec.name) or _REMEMBERED.get(spec.name)
    if known is not None:
        return known
    for key in dict.fromkeys(name_key(n) for n in spec.names):
        if key and key not in registry.by_key and key not in registry.shared:
            _REMEMBERED.setdefault(key, spec)
    return spec


def all_languages() -> list[LanguageSpec]:
    """Every shipped language spec (103 for CoNLL–SIGMORPHON 2018 task 1), sorted by name.

    Raises:
        LanguageSpecError: if a shipped TOML file is malformed (the message names file and field).
    """
    return list(_registry().specs)


def user_languages() -> list[LanguageSpec]:
    """The user's own language specs (:func:`user_langs_dir`), sorted by name.

    Raises:
        LanguageSpecError: a malformed spec file (the message names file and field).
    """
    return list(_registry().user)


def resolve(name: str | LanguageSpec) -> LanguageSpec:
    """Find a language by any of its names.

    Accepts the shared-task name, the English name, the ISO 639-3 or 639-1 code or an alias of
    a shipped language, a user's (:func:`user_langs_dir`) or a loaded checkpoint's
    (:func:`remember`), ignoring case, accents and the difference between ``-``, ``_`` and spaces:
    ``"de"``, ``"deu"``, ``"german"`` and ``"German"`` all give the German spec.

    Args:
        name: the name to look up (a LanguageSpec is returned unchanged).

    Returns:
        The language's spec.

    Raises:
        UnknownLanguageError: if no language has this name; the message suggests the closest.
        AmbiguousLanguageError: a name several languages share (a subclass of
            UnknownLanguageError); the message lists them.
        TypeError: if ``name`` is neither a string nor a LanguageSpec.
    """
    if isinstance(name, LanguageSpec):
        return name
    if not isinstance(name, str):
        raise TypeError(f"language name must be a string, got {type(name).__name__}")
    registry = _registry()
    spec = registry.by_key.get(name_key(name)) or _REMEMBERED.get(name_key(name))
    if spec is not None:
        return spec
    shared = registry.shared.get(name_key(name))
    if shared:
        raise AmbiguousLanguageError(name, shared)
    raise UnknownLanguageError(name, _closest(name, registry))


def _closest(name: str, registry: _Registry, n: int = 3) -> list[str]:
    import difflib

    key = name_key(name)
    matches = difflib.get_close_matches(key, list(registry.by_key), n=4 * n, cutoff=0.6)
    out: list[str] = []
    for match in matches:
        spec_name = registry.by_key[match].name
        if spec_name not in out:
            out.append(spec_name)
    out = out[:n]
    # A prefix ("norwegian" -> both Norwegians) is a strong hint that difflib may rank low.
    if len(key) >= 3:
        out += [s.name for s in registry.specs if s.name.startswith(key) and s.name not in out]
    return out
