"""UniMorph 4 layered features as structure, the minimum the records and the model need: a
layer is a name and an order-free set of parts (``PSS(PL,1) == PSS(1,PL)``), its canonical
spelling, the symbols a model reads for it, and the problems ``inflect data check`` names.

UniMorph 4 (Batsuren et al., 2022, "UniMorph 4.0: Universal Morphology", LREC, §3.2) writes the
features of one argument of a verb, or of a noun's possessor or case, as a layer: a name
(``NOM``, ``ACC``, ``DAT``, ``PSS``) and, in brackets, its parts (``NOM(3,SG)``); the SIGMORPHON
2023 files also separate parts with ``;`` (``DAT(PL;LGSPEC2)``), read the same. A part may be a
layer itself (``ACC(PL,PSS(1,SG))``). A feature with brackets but no name before them (the 2018
data's ``(non)NOM``) is no layer.

This module is a stand-in with the names and meaning of the UniMorph 4 layer parser of issue 62
(``inflect/text/unimorph4.py``: ``Layer``, ``LayerError``, ``is_layer``, ``parse_feature``), kept
separate until the two are unified. It imports only the standard library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "Layer",
    "LayerError",
    "canonical_feature",
    "feature_symbols",
    "is_layer",
    "layer_problem",
    "parse_feature",
]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+/_:\-]*")


class LayerError(ValueError):
    """A layered feature that cannot be read (unbalanced brackets, an empty layer or part, text
    after the closing bracket); the message names the text."""

    def __init__(self, text: str, what: str) -> None:
        self.text, self.what = text, what
        super().__init__(f"{what} in UniMorph 4 layered feature {text!r}")


@dataclass(frozen=True)
class Layer:
    """One layered feature.

    Attributes:
        name: the layer's name (``"NOM"``, ``"PSS"``).
        parts: its parts, each a plain feature or a nested :class:`Layer`; a set, so
            ``PSS(PL,1) == PSS(1,PL)``.
        text: the layer as written (not compared).
    """

    name: str
    parts: frozenset[str | Layer]
    text: str = field(default="", compare=False)

    def __str__(self) -> str:
        """The canonical spelling: plain parts sorted, then nested layers, ``,`` between
        (``PSS(1,PL)``)."""
        plain = sorted(p for p in self.parts if isinstance(p, str))
        nested = sorted(str(p) for p in self.parts if isinstance(p, Layer))
        return f"{self.name}({','.join(plain + nested)})"


def is_layer(feature: str) -> bool:
    """True when ``feature`` is written as a layer: a name directly followed by ``(``."""
    found = _NAME.match(feature)
    return found is not None and feature[found.end() : found.end() + 1] == "("


def _balance_problem(text: str) -> str | None:
    depth = 0
    for i, c in enumerate(text, 1):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return f"')' at character {i} closes no bracket"
    return "a '(' is never closed" if depth else None


def parse_feature(text: str) -> str | Layer:
    """A feature: plain (returned as it is) or a :class:`Layer` (``,`` or ``;`` between parts).

    Raises:
        LayerError: unbalanced brackets, an empty layer or part, text after the layer.
    """
    if "(" not in text and ")" not in text:
        return text
    problem = _balance_problem(text)
    if problem:
        raise LayerError(text, problem)
    if not is_layer(text):
        return text
    name = _NAME.match(text).group()  # type: ignore[union-attr]
    depth, end = 0, -1
    for i in range(len(name), len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            end = i
            break
    if end != len(text) - 1:
        raise LayerError(text, "text after the layer's closing bracket")
    parts, depth, start, inner = [], 0, 0, text[len(name) + 1 : end]
    for i, c in enumerate(inner + ","):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c in ",;" and depth == 0:
            piece = inner[start:i].strip()
            if not piece:
                raise LayerError(text, "empty layer" if not inner.strip() else "empty part")
            parts.append(parse_feature(piece))
            start = i + 1
    return Layer(name, frozenset(parts), text)


def canonical_feature(feature: str) -> str:
    """A feature in its canonical spelling: a layer's parts sorted (``PSS(PL,1)`` ->
    ``PSS(1,PL)``, ``DAT(PL;LGSPEC2)`` -> ``DAT(LGSPEC2,PL)``); a plain feature, or one that
    cannot be read as a layer (``PSS(1,PL``: :func:`layer_problem` names it), as written."""
    if "(" not in feature:
        return feature
    try:
        return str(parse_feature(feature))
    except LayerError:
        return feature


def _parts(layer: Layer, prefix: str) -> list[str]:
    out = []
    for part in layer.parts:
        if isinstance(part, Layer):
            out += _parts(part, f"{prefix}{layer.name}(")
            continue
        out.append(f"{prefix}{layer.name}({part})" + ")" * prefix.count("("))
    return out


def feature_symbols(feature: str, parts: bool) -> tuple[str, ...]:
    """The symbols a model reads for one feature of a tag bundle.

    Args:
        feature: a feature, in any order of a layer's parts.
        parts: False: the feature is one symbol, its canonical spelling (``NOM(1,SG)``:
            "opaque", :func:`canonical_feature`); True: a layer is one
            symbol per part, each with the layer's name (``NOM(1,SG)`` -> ``NOM(1)``,
            ``NOM(SG)``; nested: ``ACC(PL,PSS(1,SG))`` -> ``ACC(PL)``, ``ACC(PSS(1))``,
            ``ACC(PSS(SG))``), so that ``NOM(1,SG)`` and ``NOM(1,PL)`` share ``NOM(1)``.

    Returns:
        The symbols, sorted (a plain feature: itself).
    """
    if "(" not in feature:
        return (feature,)
    if not parts:
        return (canonical_feature(feature),)
    try:
        layer = parse_feature(feature)
    except LayerError:
        return (feature,)
    return (feature,) if isinstance(layer, str) else tuple(sorted(_parts(layer, "")))


def layer_problem(feature: str) -> str | None:
    """What is wrong with a feature written as a layer (``PSS(1,PL``: a '(' never closed), or
    None (a plain feature, a well-formed layer)."""
    if "(" not in feature and ")" not in feature:
        return None
    try:
        parse_feature(feature)
    except LayerError as exc:
        return exc.what
    return None
