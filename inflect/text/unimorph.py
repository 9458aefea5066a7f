"""The UniMorph schema's dimensions: which dimension a UniMorph feature belongs to, and the order
in which a reader expects dimensions and their values.

Source: Sylak-Glassman, "The Composition and Use of the Universal Morphological Feature Schema
(UniMorph Schema)", 2016 (its appendix lists every dimension and its features); the features of
the shared-task data that the schema does not list (``ARGABS3``, ``PSS2S``, ``LGSPEC1``,
``BANTU7``, ``IN+ESS``, ``NOM/ACC``, ``PRF:COL``, ...) are placed by their parts: a prefix
(``ARG`` argument marking, ``PSS`` possession, ``LGSPEC`` language-specific, ``BANTU`` gender), or
the first part of a combination written with ``+``, ``/`` or ``:``. A feature of no known
dimension is in :data:`OTHER`, after every dimension but the language-specific one.

The *dimension order* (:data:`DIMENSIONS`) is a reader's, not the schema's alphabetical list: part
of speech, then the verbal dimensions from the outside in (finiteness, mood, tense, aspect,
voice, polarity, ...), then agreement (person, number, gender, animacy), then the nominal ones
(case, definiteness, possession, comparison, ...). Within a dimension, values follow the order
of :data:`VALUES` (grammars' habits: ``SG`` before ``DU`` before ``PL``; core cases before the
local ones, ``IN`` before ``AT``, each as essive, ablative (from), allative (to)); values not
listed come after the listed ones, alphabetically. This module imports only the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = [
    "DIMENSIONS",
    "LANGUAGE_SPECIFIC",
    "OTHER",
    "PARTS_OF_SPEECH",
    "PART_OF_SPEECH",
    "VALUES",
    "bundle_parts_of_speech",
    "by_dimension",
    "dimension_of",
    "ordered_features",
    "part_of_speech",
    "value_key",
]

PART_OF_SPEECH = "part of speech"
LANGUAGE_SPECIFIC = "language-specific"
OTHER = "other"

#: The dimensions in a reader's order (see the module docstring).
DIMENSIONS: tuple[str, ...] = (
    PART_OF_SPEECH,
    "finiteness",
    "mood",
    "tense",
    "aspect",
    "voice",
    "polarity",
    "evidentiality",
    "interrogativity",
    "politeness",
    "switch-reference",
    "valency",
    "aktionsart",
    "person",
    "number",
    "gender",
    "animacy",
    "case",
    "definiteness",
    "possession",
    "comparison",
    "deixis",
    "argument marking",
    "information structure",
    OTHER,
    LANGUAGE_SPECIFIC,
)

#: The features of each dimension (the schema's, plus spellings of the 2018 data), in the order
#: a paradigm shows them.
VALUES: Mapping[str, tuple[str, ...]] = {
    PART_OF_SPEECH: (
        "N",
        "PROPN",
        "ADJ",
        "PRO",
        "CLF",
        "ART",
        "DET",
        "V",
        "AUX",
        "V.PTCP",
        "V.PTCP.PRS",
        "V.PTCP.PST",
        "V.PCTP",
        "V.MSDR",
        "V.CVB",
        "V.CONV",
        "V.NFIN",
        "ADV",
        "ADP",
        "COMP",
        "CONJ",
        "NUM",
        "PART",
        "INTJ",
    ),
    "finiteness": ("FIN", "NFIN"),
    "mood": (
        "IND",
        "REAL",
        "SBJV",
        "IRR",
        "COND",
        "IMP",
        "IMPERATIVE",
        "OPT",
        "HYP",
        "COUNTERFACTUAL",
        "POT",
        "PURP",
        "INTEN",
        "LKLY",
        "ADM",
        "OBLIG",
        "DEB",
        "PERM",
        "DED",
        "SIM",
        "AUPRP",
        "AUNPRP",
    ),
    "tense": (
        "PRS",
        "PRES",
        "PRESENT",
        "PST",
        "PAST",
        "FUT",
        "FUT1",
        "FUT2",
        "FUTURE",
        "IMMED",
        "HOD",
        "1DAY",
        "RCT",
        "RMT",
        "NFUT",
    ),
    "aspect": ("IPFV", "PFV", "PRF", "PROG", "PROSP", "ITER", "HAB", "HABITUAL", "FREQ"),
    "voice": (
        "ACT",
        "MID",
        "PASS",
        "ANTIP",
        "DIR",
        "INV",
        "CAUSV",
        "AGFOC",
        "PFOC",
        "LFOC",
        "BFOC",
        "ACFOC",
        "IFOC",
        "CFOC",
    ),
    "polarity": ("POS", "NEG", "NEGATIVE"),
    "evidentiality": (
        "FH",
        "DRCT",
        "SEN",
        "VIS",
        "NVSEN",
        "AUD",
        "NFH",
        "QUOT",
        "RPRT",
        "HRSY",
        "INFER",
        "ASSUM",
    ),
    "interrogativity": ("DECL", "INT", "INTERROGATIVE"),
    "politeness": ("INFM", "FORM", "FRML_POL", "POL", "ELEV", "HUMB", "AVOID", "LOW", "HIGH"),
    "switch-reference": ("SS", "SSADV", "DS", "DSADV", "OR", "SIMMA", "SEQMA", "LOG"),
    "valency": ("IMPRS", "INTR", "TR", "DITR", "REFL", "RECP", "CAUS", "APPL"),
    "aktionsart": ("STAT", "DYN", "TEL", "ATEL", "PCT", "DUR", "ACH", "ACCMP", "SEMEL", "ACTY"),
    "person": ("0", "1", "2", "3", "4", "INCL", "EXCL", "PRX", "OBV"),
    "number": (
        "SG",
        "SINGULAR",
        "SGDEF",
        "DU",
        "TRI",
        "PAUC",
        "PC",
        "GRPAUC",
        "PL",
        "PLURAL",
        "PLDEF",
        "GRPL",
        "INVN",
    ),
    "gender": ("MASC", "FEM", "NEUT"),
    "animacy": ("ANIM", "HUM", "NHUM", "INAN"),
    "case": (
        "NOM",
        "GEN",
        "DAT",
        "ACC",
        "ERG",
        "ABS",
        "NOMS",
        "PRT",
        "VOC",
        "BEN",
        "PRP",
        "REL",
        "LOC",
        "ESS",
        "FRML",
        "TRANS",
        "EQTV",
        "COMPV",
        "BYWAY",
        "IN",
        "AT",
        "ON",
        "INTER",
        "POST",
        "CIRC",
        "ANTE",
        "APUD",
        "ONHR",
        "ONVR",
        "SUB",
        "REM",
        "PROXM",
        "ABL",
        "ALL",
        "APPRX",
        "TERM",
        "PROL",
        "PRIV",
        "PROPR",
        "AVR",
        "COM",
        "INS",
        "INST",
    ),
    "definiteness": ("DEF", "INDF", "INDF1", "INDF2", "INDF3", "NDEF", "SPEC", "NSPEC"),
    "possession": ("ALN", "NALN", "PSSD"),
    "comparison": ("CMPR", "SPRL", "AB", "RL", "EQT"),
    "deixis": (
        "PROX",
        "VERYNEAR",
        "NEAR",
        "MED",
        "REMT",
        "REF1",
        "REF2",
        "NOREF",
        "PHOR",
        "NVIS",
        "ABV",
        "EVEN",
        "BEL",
    ),
    "information structure": ("TOP", "FOC"),
}

#: The part-of-speech features (:data:`VALUES` of :data:`PART_OF_SPEECH`).
PARTS_OF_SPEECH: frozenset[str] = frozenset(VALUES[PART_OF_SPEECH])

_DIMENSION_OF: dict[str, str] = {v: d for d, values in VALUES.items() for v in values}
_RANK: dict[str, int] = {v: i for values in VALUES.values() for i, v in enumerate(values)}
_DIMENSION_RANK: dict[str, int] = {d: i for i, d in enumerate(DIMENSIONS)}
#: Prefixes of the data's composite features: (pattern, dimension).
_PREFIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^LGSPEC", re.IGNORECASE), LANGUAGE_SPECIFIC),
    (re.compile(r"^ARG"), "argument marking"),
    (re.compile(r"^PSS"), "possession"),
    (re.compile(r"^BANTU\d"), "gender"),
    (re.compile(r"^NAKH\d"), "gender"),
    (re.compile(r"^\d(st|nd|rd|th)_PERSON"), "person"),
    (re.compile(r"^\d[SP]$"), "person"),
)
_TOKEN = re.compile(r"[A-Z0-9][A-Z0-9.]*")


def dimension_of(feature: str) -> str:
    """The UniMorph dimension of ``feature`` (one of :data:`DIMENSIONS`).

    ``"NOM"`` → ``"case"``, ``"IN+ESS"`` → ``"case"`` (its first part), ``"PSS2S"`` →
    ``"possession"``, ``"LGSPEC1"`` → ``"language-specific"``; a feature of no known dimension
    (after prefixes and parts) → :data:`OTHER`. Never raises.
    """
    found = _DIMENSION_OF.get(feature)
    if found is not None:
        return found
    for pattern, dimension in _PREFIXES:
        if pattern.match(feature):
            return dimension
    for part in _TOKEN.findall(feature):  # IN+ESS, NOM/ACC, PRF:COL, (non)NOM, not{NOM}
        found = _DIMENSION_OF.get(part)
        if found is not None:
            return found
    if feature.startswith("V."):
        return PART_OF_SPEECH
    return OTHER


def value_key(feature: str) -> tuple[int, tuple[int, ...], str]:
    """The sort key of one feature: (its dimension's rank in :data:`DIMENSIONS`, the ranks of
    its parts among the :data:`VALUES` of the dimension, the feature itself). A composite feature
    (``IN+ALL``) ranks by its parts in turn, after its first part alone (``IN``); an unlisted
    part after the listed ones, then alphabetically."""
    parts = _TOKEN.findall(feature) or [feature]
    ranks = tuple(_RANK.get(p, len(_RANK)) for p in parts)
    return _DIMENSION_RANK[dimension_of(feature)], ranks, feature


def ordered_features(features: Iterable[str]) -> tuple[str, ...]:
    """The features sorted by :func:`value_key`: part of speech first, then mood, tense, ...,
    person, number, case (``{"PL", "N", "DAT"}`` → ``("N", "PL", "DAT")``); a feature given
    twice is kept twice (a tag bundle is a multiset: Albanian's pluperfect ``V;IND;PRF;PRF``)."""
    return tuple(sorted(features, key=value_key))


def by_dimension(features: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The features grouped by dimension, dimensions in :data:`DIMENSIONS` order, features in
    :func:`value_key` order (``{"V", "IND", "PRS", "1", "SG"}`` → ``{"part of speech": ("V",),
    "mood": ("IND",), "tense": ("PRS",), "person": ("1",), "number": ("SG",)}``)."""
    out: dict[str, list[str]] = {}
    for feature in ordered_features(features):
        out.setdefault(dimension_of(feature), []).append(feature)
    return {d: tuple(v) for d, v in out.items()}


def bundle_parts_of_speech(features: Iterable[str]) -> tuple[str, ...]:
    """The part-of-speech features of a tag bundle, in :data:`VALUES` order (usually one; the
    Lithuanian data write ``V;V.PTCP;...``, Navajo's some bundles without any)."""
    return tuple(dict.fromkeys(
        f for f in ordered_features(features) if dimension_of(f) == PART_OF_SPEECH))


def part_of_speech(features: Iterable[str]) -> str | None:
    """The part of speech of a tag bundle: its part-of-speech feature, the most specific where
    it has several (``V;V.PTCP;PST`` → ``"V.PTCP"``); None where it has none."""
    found = bundle_parts_of_speech(features)
    if not found:
        return None
    return max(found, key=lambda p: (p.count("."), -_RANK.get(p, 0)))
