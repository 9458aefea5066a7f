"""A language the package does not ship: its spec made from the user's data, written as TOML, and
kept in the user's folder of languages (:func:`inflect.text.languages.user_langs_dir`), which
every command reads beside the shipped ``langs/``.

:func:`derive_spec` measures the lemmas and forms of the data as the shipped specs were measured
(their TOML comments say how): the scripts seen (ISO 15924, by the Unicode Script property of
each character that has one, through ``fontTools.unicodedata``), the writing direction of the
main script (Unicode's, the same library), the normalisation the data are written in (NFC or
NFD, and the characters written against it), and whether the model's symbols are the canonical
decomposition (where the data write a combining mark both alone and inside precomposed letters,
at least :data:`NFD_EVIDENCE` times each: the rule behind the shipped Greek, Lithuanian, Middle
Low German and Navajo specs). The result always passes the text pipeline's exactness check on
the data: ``from_symbols(to_symbols(s)) == s`` for every lemma and form.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from inflect.io.atomic import write_text
from inflect.text.languages import (
    LanguageSpec,
    LanguageSpecError,
    UnknownLanguageError,
    all_languages,
    load_spec,
    name_key,
    resolve,
    user_langs_dir,
)

__all__ = [
    "NFD_EVIDENCE",
    "SCRIPT_SHARE",
    "DerivedSpec",
    "add_user_spec",
    "derive_spec",
    "new_language_name",
    "remove_user_spec",
    "spec_toml",
]

#: Occurrences of a combining mark both alone and inside precomposed letters from which the
#: model's symbols are the canonical decomposition (``model_transform = "nfd"``).
NFD_EVIDENCE = 100
#: The least share of a language's letters a script must have to be listed in its spec beside
#: the main script (the rule of the shipped specs: Old Church Slavonic's Glagolitic, 1.90 %, is
#: listed; the 0.13 % Latin of Adyghe's data is not).
SCRIPT_SHARE = 0.01
#: Scripts that are no language's own (Common, Inherited, Unknown).
_NO_SCRIPT = ("Zyyy", "Zinh", "Zzzz")


@dataclass(frozen=True)
class DerivedSpec:
    """A spec made from data, with what it was made from.

    Attributes:
        spec: the :class:`~inflect.text.languages.LanguageSpec`.
        strings: the lemmas and forms measured (every occurrence).
        scripts: ISO 15924 code -> characters of that script, most frequent first.
        notes: one line per decision, for the TOML's comments and the message of ``inflect
            train`` (``Scripts: Ethiopic (Ethi) 99.9 %``, ...).
    """

    spec: LanguageSpec
    strings: int
    scripts: dict[str, int]
    notes: tuple[str, ...]

    def summary(self) -> str:
        """One line: main script, normalisation, model symbols and direction."""
        spec = self.spec
        return (
            f"script {_script_name(spec.scripts[0])} ({spec.scripts[0]}), "
            f"{spec.normalization}"
            + (", NFD symbols" if spec.model_transform == "nfd" else "")
            + f", {'right to left' if spec.is_rtl else 'left to right'}"
        )


def _script_name(code: str) -> str:
    from fontTools import unicodedata as fontdata

    return fontdata.script_name(code, default=code)


def new_language_name(name: str) -> str:
    """The name a new language's spec gets from the name a user gives (``Amharic`` ->
    ``amharic``, ``North Frisian`` -> ``north-frisian``).

    Raises:
        LanguageSpecError: a name that is not ASCII letters joined by ``-``, ``_`` or spaces
            (the message says that the display name may be any text).
    """
    import re

    key = name_key(name)
    if not re.fullmatch(r"[a-z]+(?:-[a-z]+)*", key):
        raise LanguageSpecError(
            f"a new language's name must be ASCII letters, words joined by '-' (got {name!r}); "
            "choose one such as 'amharic' (its own name, in any script, can be the display "
            "name: inflect lang add amharic --display-name አማርኛ --from FILE)"
        )
    return key


def _scripts(strings: Sequence[str]) -> Counter[str]:
    from fontTools import unicodedata as fontdata

    counts: Counter[str] = Counter()
    for text in strings:
        for ch in text:
            code = fontdata.script(ch)
            if code not in _NO_SCRIPT:
                counts[code] += 1
    return counts


def _clusters(text: str) -> list[str]:
    """``text`` cut before each character that is not a combining mark."""
    out: list[str] = []
    for ch in text:
        if out and unicodedata.combining(ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _normalization(strings: Sequence[str]) -> tuple[str, tuple[str, ...], str]:
    """The form the data are written in, the clusters written against it whose normalised
    writing the data never use (the spec's ``exceptions``), and a note."""
    nfc = sum(unicodedata.is_normalized("NFC", s) for s in strings)
    nfd = sum(unicodedata.is_normalized("NFD", s) for s in strings)
    form = "NFC" if nfc >= nfd else "NFD"
    if (nfc if form == "NFC" else nfd) == len(strings):
        return form, (), f"Data: every string is {form}."
    seen = {c for s in strings for c in _clusters(s)}
    against = sorted({c for c in seen if unicodedata.normalize(form, c) != c})
    exceptions = tuple(c for c in against if unicodedata.normalize(form, c) not in seen)
    stable = nfc if form == "NFC" else nfd
    return (
        form,
        exceptions,
        (
            f"Data: {stable:,} of {len(strings):,} strings are {form}; "
            f"{len(exceptions)} character(s) written against it are kept as the data write them."
        ),
    )


def _model_transform(strings: Sequence[str]) -> tuple[str, str]:
    """``"nfd"`` where a combining mark is written alone and inside precomposed letters at least
    :data:`NFD_EVIDENCE` times each, else ``"none"``; and a note."""
    alone: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    for text in strings:
        for ch in text:
            if unicodedata.combining(ch):
                alone[ch] += 1
                continue
            parts = unicodedata.normalize("NFD", ch)
            for mark in parts[1:]:
                inside[mark] += 1
    both = sorted(m for m in alone if alone[m] >= NFD_EVIDENCE and inside[m] >= NFD_EVIDENCE)
    if both:
        named = ", ".join(f"U+{ord(m):04X}" for m in both)
        return "nfd", (
            f"Model symbols: the canonical decomposition ({named} written both alone "
            f"and inside precomposed letters, at least {NFD_EVIDENCE} times each)."
        )
    return "none", "Model symbols: the code points as the data write them."


def derive_spec(
    name: str,
    strings: Iterable[str],
    *,
    display_name: str | None = None,
    iso639_3: str | None = None,
    aliases: Sequence[str] = (),
) -> DerivedSpec:
    """The spec of a language the package does not ship, from its lemmas and forms: the scripts
    of at least :data:`SCRIPT_SHARE` of its letters (the most frequent first), the main
    script's direction, the normalisation and model symbols (see the module docstring).

    Args:
        name: the language's name (:func:`new_language_name`).
        strings: the lemmas and forms of its data, every occurrence (at least one).
        display_name: its name in words (default: ``name`` with capitals, ``-`` as spaces).
        iso639_3: its ISO 639-3 code, if known.
        aliases: further names it answers to.

    Returns:
        The :class:`DerivedSpec`.

    Raises:
        LanguageSpecError: a bad name, code or alias, or no strings.
    """
    key = new_language_name(name)
    texts = [s for s in strings if s]
    if not texts:
        raise LanguageSpecError(f"{key}: no lemma or form to make a spec from")
    scripts = _scripts(texts)
    total = sum(scripts.values()) or 1
    main = [
        code
        for i, (code, n) in enumerate(scripts.most_common())
        if i == 0 or n >= SCRIPT_SHARE * total
    ] or ["Zyyy"]
    from fontTools import unicodedata as fontdata

    direction = fontdata.script_horizontal_direction(main[0], "LTR").lower()
    distinct = list(dict.fromkeys(texts))
    normalization, exceptions, norm_note = _normalization(distinct)
    transform, transform_note = _model_transform(texts)
    shares = (
        ", ".join(f"{_script_name(c)} {100 * n / total:.2f} %" for c, n in scripts.most_common())
        or "none (no letter of any script)"
    )
    spec_fields = dict(
        name=key,
        display_name=display_name or key.replace("-", " ").title(),
        iso639_3=iso639_3,
        iso639_1=None,
        aliases=tuple(aliases),
        scripts=tuple(main),
        direction=direction,
        settings=(),
        normalization=normalization,
        exceptions=exceptions,
    )
    spec = LanguageSpec(**spec_fields, model_transform=transform)
    if transform == "nfd" and any(spec.from_symbols(spec.to_symbols(s)) != s for s in distinct):
        spec = LanguageSpec(**spec_fields, model_transform="none")
        transform_note = (
            "Model symbols: the code points as the data write them (NFD symbols "
            "would not give every string back)."
        )
    listed = f" (listed: those of at least {SCRIPT_SHARE:.0%})" if len(scripts) > len(main) else ""
    notes = (
        f"Measured over {len(texts):,} lemmas and forms ({len(distinct):,} distinct).",
        f"Scripts: {shares}{listed}; direction of {_script_name(main[0])}: {direction}.",
        norm_note,
        transform_note,
    )
    return DerivedSpec(spec, len(texts), dict(scripts.most_common()), notes)


def spec_toml(spec: LanguageSpec, notes: Sequence[str] = ()) -> str:
    """The spec as a TOML file in the layout of the shipped ``langs/*.toml`` (``notes`` as its
    opening comments); :func:`~inflect.text.languages.load_spec` reads it back equal."""

    def value(v: object) -> str:
        return json.dumps(list(v) if isinstance(v, tuple) else v, ensure_ascii=False)

    lines = [
        f"# {spec.display_name}: language spec for sparse-inflect.",
        *(f"# {n}" for n in notes),
        "",
        f"name = {value(spec.name)}",
        f"display_name = {value(spec.display_name)}",
    ]
    lines += [
        f"{k} = {value(getattr(spec, k))}" for k in ("iso639_3", "iso639_1") if getattr(spec, k)
    ]
    lines += [
        f"{k} = {value(getattr(spec, k))}" for k in ("aliases", "scripts", "direction", "settings")
    ]
    if spec.shared_names:
        lines.append(f"shared_names = {value(spec.shared_names)}")
    lines += ["", "[text]"] + [
        f"{k} = {value(getattr(spec, k))}"
        for k in ("normalization", "exceptions", "model_transform")
    ]
    return "\n".join(lines) + "\n"


def _check_names_free(spec: LanguageSpec) -> None:
    """Refuse a spec one of whose names is a shipped language's or another user language's."""
    for given in spec.names:
        try:
            other = resolve(given)
        except UnknownLanguageError:
            continue
        if other.name != spec.name:
            raise LanguageSpecError(
                f"the name {given!r} of {spec.name} is already {other.name}'s; drop it or give "
                "the language another name"
            )
        if other.name in {s.name for s in all_languages()}:
            raise LanguageSpecError(
                f"{spec.name} is a language the package ships; its spec is langs/{spec.name}.toml "
                "(give your language another name, e.g. with a suffix: "
                f"{spec.name}-mine)"
            )


def add_user_spec(spec: LanguageSpec, notes: Sequence[str] = (), *, force: bool = False) -> Path:
    """Write ``spec`` into the user's folder of languages (atomically), where every command
    finds it.

    Returns:
        The file written (``FOLDER/NAME.toml``).

    Raises:
        LanguageSpecError: a name of a shipped language or another language's, or (without
            ``force``) a user spec of the name already there.
        OSError: the folder cannot be written.
    """
    path = user_langs_dir() / f"{spec.name}.toml"
    if path.exists() and not force:
        raise LanguageSpecError(
            f"{path}: {spec.name} is already one of your languages; --force replaces its spec "
            "(or inflect lang remove it first)"
        )
    _check_names_free(spec)
    text = spec_toml(spec, notes)
    write_text(path, text)
    try:
        if load_spec(path) != spec:  # pragma: no cover - spec_toml is tested to round-trip
            raise LanguageSpecError(f"{path}: the spec written does not read back the same")
    except LanguageSpecError:
        path.unlink(missing_ok=True)
        raise
    return path


def remove_user_spec(name: str) -> Path:
    """Remove one of the user's languages.

    Returns:
        The file removed.

    Raises:
        LanguageSpecError: no such spec in the user's folder.
    """
    path = user_langs_dir() / f"{name_key(name)}.toml"
    if not path.is_file():
        raise LanguageSpecError(f"{name!r} is none of your languages (no {path})")
    path.unlink()
    return path
