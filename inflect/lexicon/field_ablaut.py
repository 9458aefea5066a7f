"""German verbs from ``ablaut`` (a verb conjugator in Rust, MIT or Apache-2.0): the simple
tenses, the subjunctives, the imperative and the participles of the verbs it stores, mapped to
the UniMorph bundles of the German shared-task files. In the ``dictionaries`` extra.

ablaut is a rule engine with tables of exceptions: it conjugates any string shaped like an
infinitive (``zorpieren`` -> ``zorpierte``), by the weak paradigm where its tables do not name
the verb, and a prefixed verb or a phrase through its last verb. Its Python binding does not say
which verbs its tables name (the Rust ``Verb::is_lexical``), so the adapter reads that from the
table ablaut gives, and answers only a verb that ablaut itself stores: its strong, mixed and
preterite-present verbs and the suppletive ``sein``, ``werden``, ``tun``. A table is ablaut's
guess, and not answered, where

- the verb is weak: its preterite is its Konjunktiv II and its first person present its first
  person Konjunktiv I (``machte``/``machte``, ``mache``/``mache``; a stored verb differs in
  one of the two: ``ging``/``ginge``, ``soll``/``solle``);
- the verb is prefixed: its past participle does not begin with ``ge-`` (``verstanden``,
  ``aufgestanden``): ablaut derives it from its base by its prefix rules, which decide
  separability by rule (``unterschreiben`` -> ``schreibt unter``, ``überkommen`` -> ``kämest
  über``) and give one of two written variants (``missverstünden`` where the data write
  ``missverständen``); the one listed verb this leaves out is ``beginnen``;
- the lemma is a phrase (a space: ``Rad fahren``).

=====================================  ======================================================
ablaut field (rows ``ich du er wir     UniMorph bundle
ihr sie``)
=====================================  ======================================================
``infinitive``                         ``V;NFIN``
``present`` / ``preterite``            ``V;IND;PRS;<person>`` / ``V;IND;PST;<person>``
``konjunktiv1`` / ``konjunktiv2``      ``V;SBJV;PRS;<person>`` / ``V;SBJV;PST;<person>``
``imperative`` (2sg, 2pl; None: the    ``V;IMP;2;SG`` / ``V;IMP;2;PL``
modals have none)
``present_participle`` /               ``V.PTCP;PRS`` / ``V.PTCP;PST``
``past_participle``
=====================================  ======================================================

The analytic tenses (``perfect``, ``future1``, ``wuerde``) have no bundle in the 2018 files.
"""

from __future__ import annotations

from typing import Any, ClassVar

from inflect.lexicon.field import PERSONS, FieldDictionary, Paradigm, add_form

__all__ = ["PERSONS", "ROWS", "Ablaut", "stored"]

#: ablaut's six-person rows -> the bundle that the person is added to.
ROWS = {
    "present": "V;IND;PRS",
    "preterite": "V;IND;PST",
    "konjunktiv1": "V;SBJV;PRS",
    "konjunktiv2": "V;SBJV;PST",
}
#: ablaut's single forms -> bundle.
SINGLE = {
    "infinitive": "V;NFIN",
    "present_participle": "V.PTCP;PRS",
    "past_participle": "V.PTCP;PST",
}


def stored(lemma: str, table: Any) -> bool:
    """Whether ablaut's ``table`` of ``lemma`` comes from the verbs it stores, not from its rules
    (see the module's docstring: not weak, not prefixed, not a phrase)."""
    weak = table.preterite[0] == table.konjunktiv2[0] and table.present[0] == table.konjunktiv1[0]
    return not weak and " " not in lemma.strip() and table.past_participle.startswith("ge")


class Ablaut(FieldDictionary):
    """German verbs that ``ablaut`` stores (strong, mixed, preterite-present, suppletive)."""

    library = "ablaut"
    module = "ablaut"
    codes: ClassVar[dict[str, str]] = {"german": "de"}
    parts_of_speech = frozenset({"V"})

    def load(self, code: str) -> Any:
        import ablaut

        return ablaut

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        try:
            table = backend.conjugate(lemma, lang=self.codes[language])
        except ValueError:  # not shaped like an infinitive of the language
            return {}
        if table.infinitive != lemma or not stored(lemma, table):
            return {}
        found: Paradigm = {}
        for field, tags in SINGLE.items():
            add_form(found, tags, getattr(table, field))
        for field, tags in ROWS.items():
            for person, form in zip(PERSONS, getattr(table, field), strict=True):
                add_form(found, f"{tags};{person}", form)
        for person, form in zip(("2;SG", "2;PL"), table.imperative, strict=True):
            add_form(found, f"V;IMP;{person}", form or "")
        return found
