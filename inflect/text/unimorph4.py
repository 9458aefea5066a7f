"""UniMorph 4 layered features: ``N;DAT(PL)``, ``V;IND;PRS;NOM(3,SG)``, ``N;IN+ESS(SG)``,
possessors ``PSS(2,PL,FEM)``, read as a name and an order-free set of parts.

UniMorph 4 (Batsuren et al., 2022, "UniMorph 4.0: Universal Morphology", LREC, §3.2) writes the
features that belong to one argument of a word, or to one case of a noun, as a *layer*: the
layer's name (a case: the argument's role, ``NOM``, ``ACC``, ``ERG``, ``ABS``, ``DAT``; or
``PSS``, the possessor) and, in brackets, its parts (``3,SG``). The SIGMORPHON 2022 and 2023
shared tasks' data use this layout (Kodner et al., 2022, §2; Goldman et al., 2023, "SIGMORPHON–
UniMorph 2023 Shared Task 0", §2): ``DAT(PL)`` is a dative plural noun, ``NOM(3,SG)`` a verb that
agrees with a 3rd-person singular subject. Parts are separated by ``,``; the 2023 files also
write ``;`` inside a layer (``DAT(PL;LGSPEC2)``), read the same. A part may itself be a layer
(``ACC(PL,PSS(1,SG))``). Parts are a set: ``PSS(PL,1) == PSS(1,PL)``.

A bracket that is never closed or closed without being opened, an empty layer (``DAT()``), an
empty part (``NOM(3,,SG)``) or a part in brackets with no layer name (``DAT((PL))``) is a
:class:`LayerError` naming the text. The parser of one
feature is :mod:`inflect.text.layers`' (:func:`parse_feature`, :class:`Layer`), re-exported here. A feature that only
contains brackets without a name before them (the 2018 data's ``(non)NOM``) is not a layer.

The conversion of a layered bundle to the 2018 data's features of a language is
:func:`unpacked` (its candidates) and :mod:`inflect.text.dialects` (the choice among the
language's bundles). This module imports only the standard library.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from inflect.text.layers import (
    Layer,
    LayerError,
    check_balance,
    is_layer,
    parse_feature,
    split_top,
)
from inflect.text.tagsets import language_table
from inflect.text.unimorph import part_of_speech

__all__ = [
    "Choice",
    "Layer",
    "LayerError",
    "Unpacked",
    "has_layers",
    "is_layer",
    "layer_choices",
    "parse_bundle",
    "parse_feature",
    "unpack_unimorph4",
]

#: A layer anywhere in a bundle's text: a name directly followed by ``(``.
_LAYER_START = re.compile(r"(?:^|[;,(])\s*[A-Za-z0-9][A-Za-z0-9.+/_:\-]*\(")


def has_layers(text: str) -> bool:
    """True when a tag bundle's text holds a layered feature anywhere (``N;DAT(PL)``)."""
    return "(" in text and _LAYER_START.search(text) is not None


def parse_bundle(text: str) -> tuple[str | Layer, ...]:
    """A tag bundle's features, each plain or a :class:`Layer`, in the order written: ``;``
    outside brackets separates features (``V;IND;PRS;NOM(3,SG)`` -> ``("V", "IND", "PRS",
    Layer("NOM", {"3", "SG"}))``).

    Raises:
        LayerError: unbalanced brackets anywhere in the bundle, an empty feature, or as
            :func:`parse_feature`.
    """
    check_balance(text)
    features = []
    for piece in split_top(text, ";"):
        if not piece.strip():
            raise LayerError(text, "empty feature")
        features.append(parse_feature(piece))
    return tuple(features)


# ------------------------------------------------------------------ towards the 2018 features
@dataclass(frozen=True)
class Choice:
    """Alternative readings of one part of foreign tags in the 2018 data's features, in order of
    preference; the language's bundles choose.

    Attributes:
        label: the part as written (``"ACC(3,SG,MASC)"``, ``"VerbForm=Ger"``).
        options: the alternatives, each a tuple of features (``()``: nothing).
        layer: True for a layer (an argument or a possessor): where the tags have no 2018 cell
            only because of it, the error names it.
    """

    label: str
    options: tuple[tuple[str, ...], ...]
    layer: bool = True


@dataclass(frozen=True)
class Unpacked:
    """Foreign tags unpacked towards the 2018 data's features: the plain features and the
    choices still open (see :func:`inflect.text.dialects.read_tags`)."""

    features: tuple[str, ...]
    choices: tuple[Choice, ...] = ()

    @property
    def readings(self) -> int:
        """How many candidates :meth:`candidates` gives: the product of the choices' numbers of
        options (it grows as a power of the number of layers)."""
        return math.prod(len(c.options) for c in self.choices)

    def candidates(self, skip: int | None = None) -> list[tuple[str, ...]]:
        """Every combination of one option per choice (the ``skip``-th choice left out), the
        preferred first, each after the plain features."""
        options = [c.options for i, c in enumerate(self.choices) if i != skip]
        return [
            self.features + tuple(f for option in combo for f in option)
            for combo in itertools.product(*options)
        ]


def _composite(prefix: str, parts: tuple[str, ...], letters: dict[str, str]) -> str:
    """``PSS`` + person + the letters of number, gender, clusivity (``PSS(2,PL,MASC)`` ->
    ``PSS2PM``), in the order the 2018 data write them."""
    person = "".join(p for p in parts if p.isdigit())
    lettered = "".join(letters[p] for p in parts if p in letters)
    return f"{prefix}{person}{lettered}"


def _possessor_options(parts: tuple[str, ...], letters: dict[str, str]) -> list[tuple[str, ...]]:
    """The 2018 spellings of a possessor, the most specific first: ``PSS(2,SG,FEM)`` ->
    ``PSS2SF``; ``PSS2S`` with ``FEM`` beside it (Hebrew); ``PSS2S``; ``PSS2``."""
    person = tuple(p for p in parts if p.isdigit())
    number = tuple(p for p in parts if p in ("SG", "PL", "DU"))
    other = tuple(p for p in parts if p in letters and p not in number)
    gender = tuple(p for p in other if p in ("MASC", "FEM", "NEUT"))
    rest = tuple(p for p in other if p not in gender)
    options = [
        (_composite("PSS", person + number + gender + rest, letters),),
        (_composite("PSS", person + number + rest, letters), *gender),
        (_composite("PSS", person + number + rest, letters),),
        (_composite("PSS", person + number, letters),),
        (_composite("PSS", person, letters),),
    ]
    return list(dict.fromkeys(options))


def layer_choices(layer: Layer, verbal: bool, language: str = "") -> list[Choice]:
    """The readings of one layer in the 2018 data's features (a :class:`Choice`), and one
    choice per nested layer.

    A possessor (``PSS(1,SG)``) is one composite feature (``PSS1S``, see
    :func:`_possessor_options`). A case layer (``DAT(PL)``, ``NOM(3,SG)``) is, in order: the case
    with its parts (a noun's own case: ``DAT;PL``), or its parts alone (a verb's subject
    agreement: ``3;SG``; first where ``verbal``), or the 2018 composite features of an argument
    (Navajo ``ARGAC3S``; Basque ``ARGABS3;ARGABSSG``; Khaling ``ARG1;ARGSG``).
    """
    table = language_table(language)
    parts = layer.features
    label = layer.text or str(layer)
    if layer.name == "PSS":
        options = _possessor_options(parts, table.letters)
    else:
        kept, dropped = (layer.name, *parts), parts
        options = [dropped, kept] if verbal else [kept, dropped]
        for code in table.roles.get(layer.name, ()):
            options.append((_composite(f"ARG{code}", parts, table.letters),))
            options.append(tuple(f"ARG{code}{p}" for p in parts))
        options.append(tuple(f"ARG{p}" for p in parts))
    choices = [Choice(label, tuple(dict.fromkeys(options)))]
    for nested in layer.layers:
        choices += layer_choices(nested, verbal, language)
    return choices


def unpack_unimorph4(text: str, language: str = "") -> Unpacked:
    """A UniMorph 4 bundle's plain features and a choice per layer (:func:`layer_choices`; a
    layer of a bundle whose part of speech is ``V`` reads as the verb's agreement first).

    Raises:
        LayerError: as :func:`parse_bundle`.
    """
    features = parse_bundle(text)
    plain = tuple(f for f in features if isinstance(f, str))
    verbal = part_of_speech(plain) == "V"
    choices: list[Choice] = []
    for feature in features:
        if isinstance(feature, Layer):
            choices += layer_choices(feature, verbal, language)
    return Unpacked(plain, tuple(choices))
