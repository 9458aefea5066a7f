"""Portuguese verbs from ``verbecc`` 1.10, read for :class:`inflect.lexicon.field_verbecc.Verbecc`
(the same layer, library and lazy load as its French, Spanish and Italian tables):
the simple tenses of a verb in its list, mapped to the UniMorph bundles of the shared-task files.
In the ``dictionaries`` extra. Its Catalan and Romanian tables are mapped too but not taken:
their agreement with the 2018 files is below the fidelity gate (Catalan 97.3%, Romanian 95.8%
of the pairs verbecc holds; recipes/dictionaries/README.md).

verbecc writes some forms of these languages as a phrase; the adapter writes them as the 2018
files do (:func:`written`):

- Portuguese: the imperative and the personal infinitive carry their pronoun (``fala tu``,
  ``por falares tu``) and the negative imperative its ``não`` (``não fales tu``); the data
  write the verb alone (``fala``, ``falares``, ``fales``).
- Romanian: verbecc spells ş and ţ with a cedilla (U+015F, U+0163), the data with a comma
  below (ș, ț: U+0219, U+021B); the data write the infinitive with ``a`` (``a lucra``) and the
  subjunctive with ``să`` (``să lucrez``), and file the plural imperative under
  ``V;POS;IMP;3;PL`` / ``V;NEG;IMP;3;PL`` (``lucrați``, ``nu lucrați``).
- Catalan: as verbecc writes it.

Compound tenses have no bundle in the 2018 files and are left out. A participle verbecc gives in
the masculine singular only (Portuguese, Romanian) answers that bundle only.
"""

from __future__ import annotations

from typing import Any

from inflect.lexicon.field import PERSONS, Paradigm, add_form, split_alternatives
from inflect.text.records import TagBundle

__all__ = ["ERRATA", "MORE_TENSES", "paradigm", "written"]


def _persons(bundle: str) -> tuple[str, ...]:
    """The bundle with each of the six persons, in verbecc's order."""
    return tuple(f"{bundle};{p}" for p in PERSONS)


_PT_IMPERATIVE = (None, "2;SG", "3;SG", "1;PL", "2;PL", "3;PL")
#: ``(mood, tense) -> list of bundles, one per position of verbecc's list`` (None: left out).
MORE_TENSES: dict[str, dict[tuple[str, str], tuple[str | None, ...]]] = {
    "pt": {
        ("infinitivo", "infinitivo"): ("V;NFIN", None),
        ("indicativo", "presente"): _persons("V;IND;PRS"),
        ("indicativo", "pretérito-imperfeito"): _persons("V;IND;PST;IPFV"),
        ("indicativo", "pretérito-perfeito"): _persons("V;IND;PST;PFV"),
        ("indicativo", "pretérito-mais-que-perfeito"): _persons("V;IND;PST;PRF"),
        ("indicativo", "futuro-do-presente"): _persons("V;IND;FUT"),
        ("condicional", "futuro-do-pretérito"): _persons("V;COND"),
        ("subjuntivo", "presente"): _persons("V;SBJV;PRS"),
        ("subjuntivo", "pretérito-imperfeito"): _persons("V;SBJV;PST;IPFV"),
        ("subjuntivo", "futuro"): _persons("V;SBJV;FUT"),
        ("infinitivo", "infinitivo-pessoal-presente"): _persons("V;NFIN"),
        ("imperativo", "afirmativo"): tuple(p and f"V;IMP;POS;{p}" for p in _PT_IMPERATIVE),
        ("imperativo", "negativo"): tuple(p and f"V;IMP;NEG;{p}" for p in _PT_IMPERATIVE),
        ("gerúndio", "gerúndio"): ("V.PTCP;PRS", None),
        ("particípio", "particípio"): ("V.PTCP;PST;MASC;SG",),
    },
    "ca": {
        ("infinitiu", "infinitiu-present"): ("V;NFIN",),
        ("indicatiu", "present"): _persons("V;IND;PRS"),
        ("indicatiu", "imperfet"): _persons("V;IND;PST;IPFV"),
        ("indicatiu", "passat-simple"): _persons("V;IND;PST;PFV"),
        ("indicatiu", "futur"): _persons("V;IND;FUT"),
        ("condicional", "present"): _persons("V;COND"),
        ("subjuntiu", "present"): _persons("V;SBJV;PRS"),
        ("subjuntiu", "imperfet"): _persons("V;SBJV;PST"),
        ("imperatiu", "imperatiu-present"): tuple(
            f"V;POS;IMP;{p}" for p in ("2;SG", "3;SG", "1;PL", "2;PL", "3;PL")
        ),
        ("gerundi", "gerundi"): ("V.PTCP;PRS",),
        ("particip", "particip"): (
            "V.PTCP;PST;SG;MASC",
            "V.PTCP;PST;SG;FEM",
            "V.PTCP;PST;PL;MASC",
            "V.PTCP;PST;PL;FEM",
        ),
    },
    "ro": {
        ("infinitiv", "afirmativ"): ("V;NFIN",),
        ("indicativ", "prezent"): _persons("V;IND;PRS"),
        ("indicativ", "imperfect"): _persons("V;IND;PST;IPFV"),
        ("indicativ", "perfect-simplu"): _persons("V;IND;PST;PFV"),
        ("indicativ", "mai-mult-ca-perfect"): _persons("V;IND;PST;PRF"),
        ("conjunctiv", "prezent"): _persons("V;SBJV;PRS"),
        ("imperativ", "imperativ"): ("V;POS;IMP;2;SG", "V;POS;IMP;3;PL"),
        ("imperativ", "negativ"): ("V;NEG;IMP;2;SG", "V;NEG;IMP;3;PL"),
        ("gerunziu", "gerunziu"): ("V.CVB;PRS",),
        ("participiu", "participiu"): ("V.PTCP;PST",),
    },
}
_PT_PRONOUNS = frozenset({"eu", "tu", "ele", "você", "nós", "vós", "eles", "vocês"})
_PARTICLES = frozenset({"não", "por", "nu"})
_RO_COMMA = str.maketrans({"ş": "ș", "ţ": "ț", "Ş": "Ș", "Ţ": "Ț"})


def _core(form: str) -> str:
    """The verb of verbecc's ``form``, less the pronoun and particles it writes with it."""
    words = form.split()
    if len(words) > 1 and words[-1] in _PT_PRONOUNS:
        words = words[:-1]
    if len(words) > 1 and words[0] in _PARTICLES:
        words = words[1:]
    return " ".join(words)


def written(code: str, tags: str, form: str) -> str:
    """verbecc's ``form`` for the bundle ``tags`` of language ``code``, written as the 2018
    files write it (see the module's docstring)."""
    if code == "pt" and ("IMP" in tags.split(";") or tags.startswith("V;NFIN;")):
        return _core(form)
    if code == "ro":
        form = form.translate(_RO_COMMA)
        if tags == "V;NFIN":
            return f"a {form}"
        if tags.startswith("V;SBJV;"):
            return f"să {form}"
    return form


#: ``(code, lemma) -> {bundle: forms}``: cells where verbecc's table gives a form that is not
#: the language's written standard, replaced by the standard's (checked by hand in a reference
#: grammar: Cunha & Cintra, *Nova Gramática do Português Contemporâneo*, the conjugation of
#: ``ir``): verbecc gives Portuguese ``ir`` the archaic ``imos`` and ``vades``.
ERRATA: dict[tuple[str, str], dict[str, list[str]]] = {
    ("pt", "ir"): {"V;IND;PRS;1;PL": ["vamos"], "V;IND;PRS;2;PL": ["ides"]},
}


def paradigm(backend: Any, code: str, lemma: str) -> Paradigm:
    """The table of a verb of language ``code`` (``pt``, ``ca``, ``ro``: :data:`MORE_TENSES`)
    by verbecc's lists, in their order; :class:`~inflect.lexicon.field_verbecc.Verbecc` answers
    these languages through it (one ``verbecc`` layer for all of verbecc's languages). A verb
    verbecc does not list, or one its templates cannot conjugate, has no table (no guess)."""
    parser = backend._inflector._verb_parser
    if not parser.listed(lemma.lower()):  # no guess
        return {}
    import verbecc.exceptions

    try:
        found = backend.conjugate(lemma.lower(), include_alternates=True, conjugate_pronouns=False)
    except verbecc.exceptions.ConjugatorError:  # a listed verb its templates cannot conjugate
        return {}
    template = parser.find_verb_by_infinitive(lemma.lower()).template
    stem = lemma.lower()[: len(lemma) - len(template.split(":")[-1])]
    table: Paradigm = {}
    for (mood, tense), names in MORE_TENSES[code].items():
        slots = found["moods"].get(mood, {}).get(tense, [])
        for name, forms in zip(names, slots, strict=False):
            for form in forms if name else ():
                for one in split_alternatives(form):  # alternatives, each a form
                    if one != "-" and _core(one) != stem:  # an empty ending
                        # (verbecc's templates leave some endings out: <i/>)
                        add_form(table, name, written(code, name, one))
    for name, right in ERRATA.get((code, lemma.lower()), {}).items():
        table[TagBundle.parse(name)] = list(right)
    return table
