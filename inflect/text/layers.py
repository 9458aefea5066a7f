"""UniMorph 4 layered features as structure, the minimum the records and the model need: a
layer is a name and an order-free set of parts (``PSS(PL,1) == PSS(1,PL)``), its canonical
spelling, the symbols a model reads for it, and the problems ``inflect data check`` names.

UniMorph 4 (Batsuren et al., 2022, "UniMorph 4.0: Universal Morphology", LREC, §3.2) writes the
features of one argument of a verb, or of a noun's possessor or case, as a layer: a name
(``NOM``, ``ACC``, ``DAT``, ``PSS``) and, in brackets, its parts (``NOM(3,SG)``); the SIGMORPHON
2023 files also separate parts with ``;`` (``DAT(PL;LGSPEC2)``), read the same. A part may be a
layer itself (``ACC(PL,PSS(1,SG))``). A feature with brackets but no name before them (the 2018
data's ``(non)NOM``) is no layer.

This module is the one parser of layered features: :mod:`inflect.text.unimorph4` (the reading of
UniMorph 4 bundles as the 2018 data's) uses it. It imports only the standard library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "Layer",
    "LayerError",
    "canonical_feature",
    "check_balance",
    "feature_symbols",
    "is_layer",
    "layer_problem",
    "parse_feature",
    "split_top",
]

#: The name of a layer: what stands before its opening bracket (``NOM``, ``IN+ESS``, ``PSS``).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+/_:\-]*")


class LayerError(ValueError):
    """A layered feature that cannot be read: unbalanced brackets, an empty layer or part.

    The message reads ``what in 'TEXT'``.

    Attributes:
        text: the feature (or bundle) as written.
        what: what is wrong, in words (with the character's position, counted from 1).
    """

    def __init__(self, text: str, what: str) -> None:
        self.text, self.what = text, what
        super().__init__(f"{what} in UniMorph 4 layered feature {text!r}")


@dataclass(frozen=True)
class Layer:
    """One layered feature: a name and an order-free set of parts.

    Attributes:
        name: the layer's name (``"NOM"``, ``"IN+ESS"``, ``"PSS"``).
        parts: its parts, each a feature (``"3"``, ``"SG"``) or a nested :class:`Layer`; a set,
            so ``PSS(PL,1) == PSS(1,PL)``.
        text: the layer as written (not compared).
    """

    name: str
    parts: frozenset[str | Layer]
    text: str = field(default="", compare=False)

    def __str__(self) -> str:
        """The layer in a canonical spelling: parts sorted (nested layers last), ``,`` between
        them (``PSS(1,PL)``)."""
        return f"{self.name}({','.join(_sorted_parts(self.parts))})"

    @property
    def features(self) -> tuple[str, ...]:
        """The plain parts (not nested layers), sorted."""
        return tuple(sorted(p for p in self.parts if isinstance(p, str)))

    @property
    def layers(self) -> tuple[Layer, ...]:
        """The nested layers, sorted by their canonical spelling."""
        return tuple(sorted((p for p in self.parts if isinstance(p, Layer)), key=str))

    def atoms(self) -> tuple[str, ...]:
        """The name and every plain part, nested layers' included, depth first (``ACC(PL,
        PSS(1,SG))`` -> ``("ACC", "PL", "PSS", "1", "SG")``)."""
        out = [self.name, *self.features]
        for nested in self.layers:
            out.extend(nested.atoms())
        return tuple(out)


def _sorted_parts(parts: frozenset[str | Layer]) -> list[str]:
    plain = sorted(p for p in parts if isinstance(p, str))
    return plain + sorted(str(p) for p in parts if isinstance(p, Layer))


def is_layer(feature: str) -> bool:
    """True when ``feature`` is written as a layer: a name directly followed by ``(``
    (``NOM(3,SG)``, ``IN+ESS(SG)``; not the 2018 data's ``(non)NOM``)."""
    found = _NAME.match(feature.strip())
    return found is not None and feature.strip()[found.end() : found.end() + 1] == "("


def check_balance(text: str) -> None:
    """Raise :class:`LayerError` for a ``(`` never closed or a ``)`` never opened."""
    opened: list[int] = []
    for i, c in enumerate(text, 1):
        if c == "(":
            opened.append(i)
        elif c == ")":
            if not opened:
                raise LayerError(text, f"')' at character {i} closes no bracket")
            opened.pop()
    if opened:
        raise LayerError(text, f"'(' at character {opened[-1]} is never closed")


def split_top(text: str, separators: str) -> list[str]:
    """``text`` split on the ``separators`` that are outside round brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c in separators and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_feature(text: str) -> str | Layer:
    """One feature of a bundle: a plain feature (returned stripped, as it is) or a
    :class:`Layer`.

    ``"DAT(PL)"`` -> ``Layer("DAT", {"PL"})``; ``"PSS(2,PL,FEM)"``; ``"DAT(PL;LGSPEC2)"``
    (``;`` inside a layer separates parts, as ``,`` does); ``"ACC(PL,PSS(1,SG))"`` (a nested
    layer); ``"N"`` -> ``"N"``; ``"(non)NOM"`` -> ``"(non)NOM"`` (no name before the bracket: not a
    layer).

    Raises:
        LayerError: unbalanced brackets, an empty layer or part, a part in brackets with no
            layer name (``DAT((PL))``), or text after a layer's closing bracket
            (``DAT(PL)X``); the message names the text.
    """
    stripped = text.strip()
    if "(" not in stripped and ")" not in stripped:
        return stripped
    check_balance(stripped)
    if not is_layer(stripped):
        return stripped
    name = _NAME.match(stripped).group()  # type: ignore[union-attr]
    inner_start = len(name) + 1
    depth, end = 0, -1
    for i in range(len(name), len(stripped)):
        depth += {"(": 1, ")": -1}.get(stripped[i], 0)
        if depth == 0:
            end = i
            break
    if end != len(stripped) - 1:
        raise LayerError(stripped, f"text after the layer's closing bracket (character {end + 2})")
    inner = stripped[inner_start:end]
    if not inner.strip():
        raise LayerError(stripped, "empty layer")
    parts: list[str | Layer] = []
    for piece in split_top(inner, ",;"):
        if not piece.strip():
            raise LayerError(stripped, "empty part")
        part = parse_feature(piece)
        if isinstance(part, str) and ("(" in part or ")" in part):
            raise LayerError(stripped, f"part {part!r} has brackets but no layer name before them")
        parts.append(part)
    return Layer(name, frozenset(parts), stripped)


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
