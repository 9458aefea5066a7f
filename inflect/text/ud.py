"""Universal Dependencies features: ``NOUN|Case=Dat|Number=Plur``, read towards UniMorph.

The tags that spaCy, Stanza, UDPipe and every UD treebank give a word are its UPOS (the universal
part-of-speech tag) and its FEATS, ``Name=Value`` pairs separated by ``|`` (de Marneffe et al.,
2021, "Universal Dependencies", Computational Linguistics 47(2); the CoNLL-U format's columns 4
and 6). Written on one line here as ``UPOS|Name=Value|...``: the UPOS first and optional
(``Case=Dat|Number=Plur`` alone is read too), ``_`` an empty FEATS. A value may be a list
(``PronType=Int,Rel``); a layered feature names its layer in brackets (``Number[psor]=Sing``, the
possessor's number).

Each UPOS and value becomes UniMorph features by the table ``tagsets/ud.toml`` (after McCarthy
et al., 2018, "Marrying Universal Dependencies and Universal Morphology", and the
``unimorph/ud-compatibility`` table; the file says where it differs); a layered feature's values
form a UniMorph 4 layer (``Number[psor]=Sing|Person[psor]=1`` -> ``PSS(1,SG)``). An unknown UPOS,
feature or value (``Case=Foo``) is a :class:`UdError` naming it and what the feature takes.
This module imports only the standard library and :mod:`inflect.text`.
"""

from __future__ import annotations

import re

from inflect.text.tagsets import ud_table
from inflect.text.unimorph4 import Choice, Layer, Unpacked, layer_choices

__all__ = ["UdError", "parse_ud", "unpack_ud"]

_LAYERED = re.compile(r"^([A-Za-z0-9]+)\[([a-z0-9]+)\]$")


class UdError(ValueError):
    """UD tags that cannot be read: malformed, or a UPOS, feature or value UD does not have.

    Attributes:
        what: what is wrong, in words (naming the item).
        text: the tags as written.
    """

    def __init__(self, what: str, text: str) -> None:
        self.what, self.text = what, text
        super().__init__(f"{what} in UD tags {text!r}")


def parse_ud(text: str) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """``"NOUN|Case=Dat|Number=Plur"`` -> ``("NOUN", (("Case", "Dat"), ("Number", "Plur")))``.

    The UPOS is the first item without ``=`` (optional); ``_`` is an empty FEATS.

    Raises:
        UdError: an empty item, an item without ``=`` after the first, an empty name or value,
            a feature given twice.
    """
    upos = None
    pairs: list[tuple[str, str]] = []
    for i, raw in enumerate(text.split("|")):
        item = raw.strip()
        if not item:
            raise UdError("empty item (two '|' in a row, or one at an end)", text)
        if item == "_":
            continue
        if "=" not in item:
            if i != 0:
                raise UdError(f"{item!r} is not Name=Value (the UPOS comes first)", text)
            upos = item
            continue
        name, value = (p.strip() for p in item.split("=", 1))
        if not name or not value:
            raise UdError(f"{item!r} is not Name=Value", text)
        if any(name == seen for seen, _ in pairs):
            raise UdError(f"feature {name} given twice", text)
        pairs.append((name, value))
    return upos, tuple(pairs)


def _value(name: str, value: str, text: str) -> tuple[tuple[str, ...], ...]:
    """The UniMorph reading of one UD value (alternatives), by the table.

    Raises:
        UdError: an unknown feature or value, or a value no 2018 cell marks.
    """
    table = ud_table()
    values = table.features.get(name)
    if values is None:
        known = ", ".join(sorted([*table.features, *table.ignored]))
        raise UdError(f"unknown UD feature {name!r} (UD's features: {known})", text)
    if value not in values:
        raise UdError(
            f"UD value '{name}={value}' does not exist ({name} takes {', '.join(values)})", text
        )
    reading = values[value]
    if reading is None:
        raise UdError(f"'{name}={value}' has no cell in the 2018 data's features", text)
    return reading


def _upos(upos: str, text: str) -> tuple[tuple[str, ...], ...]:
    pos = ud_table().pos
    if upos not in pos:
        raise UdError(f"unknown UPOS {upos!r} (UD's: {', '.join(pos)})", text)
    reading = pos[upos]
    if reading is None:
        raise UdError(f"UPOS {upos} has no inflection in the 2018 data", text)
    return reading


def unpack_ud(text: str, language: str = "") -> Unpacked:
    """UD tags unpacked towards UniMorph: the features each UPOS and value reads as, a
    :class:`~inflect.text.unimorph4.Choice` where the table gives alternatives
    (``VerbForm=Ger``), and the layers of layered features
    (:func:`~inflect.text.unimorph4.layer_choices`).

    Raises:
        UdError: as :func:`parse_ud`, or an unknown UPOS, feature or value (``Case=Foo``: the
            message names it and lists the values of ``Case``), or one that no 2018 cell marks.
    """
    table = ud_table()
    upos, pairs = parse_ud(text)
    features: list[str] = []
    choices: list[Choice] = []
    layers: dict[str, list[str]] = {}
    labels: dict[str, list[str]] = {}

    def add(label: str, reading: tuple[tuple[str, ...], ...]) -> None:
        if len(reading) == 1:
            features.extend(reading[0])
        else:
            choices.append(Choice(label, reading, layer=False))

    if upos is not None:
        add(upos, _upos(upos, text))
    for name, values in pairs:
        layered = _LAYERED.match(name)
        base = layered.group(1) if layered else name
        if base in table.ignored:
            continue
        for value in values.split(","):
            reading = _value(base, value.strip(), text)
            if layered:
                layer = layered.group(2)
                if layer not in table.layers:
                    raise UdError(
                        f"unknown layer [{layer}] of {name!r} (UD's: {', '.join(table.layers)})",
                        text,
                    )
                layers.setdefault(layer, []).extend(reading[0])
                labels.setdefault(layer, []).append(f"{name}={values}")
            else:
                add(f"{name}={values}", reading)
    verbal = "V" in features and not any(f.startswith("V.") for f in features)
    for layer, parts in layers.items():
        found = Layer(table.layers[layer], frozenset(parts), "|".join(labels[layer]))
        choices += layer_choices(found, verbal, language)
    return Unpacked(tuple(dict.fromkeys(features)), tuple(choices))
