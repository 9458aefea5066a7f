"""French, Spanish, Italian and Portuguese verbs from ``verbecc`` 1.10 (its conjugation tables,
the Verbiste data; LGPL; Portuguese read by :mod:`inflect.lexicon.field_verbecc_more`): the simple tenses of a verb in its list, mapped to the UniMorph bundles of the
shared-task files. In the ``dictionaries`` extra (``pip install 'sparse-inflect[dictionaries]'``).

verbecc's package imports scikit-learn for a classifier that guesses the conjugation of verbs it
does not list, trains it on first use and writes it into its own folder, and opens a log file
``verbecc.log`` in the working folder when imported. None of that is needed for a lookup: the
adapter imports verbecc with the classifier's module replaced by an empty one and the log file
replaced by a null handler (the root logger untouched), and sets ``verbecc.config.ml = False``,
so a verb verbecc does not list is not answered (its guess is never asked).

Each table maps ``(mood, tense)`` as verbecc names them to the bundle prefix; the list verbecc
gives is read in its order: six persons (``1;SG 2;SG 3;SG 1;PL 2;PL 3;PL``), the imperative's
persons (:data:`IMPERATIVE`), or single forms (``V;NFIN``; participles by gender and number).
Compound tenses (``passé composé``) have no bundle of their own in the 2018 files and are left
out.

What verbecc's lists say is read by the template they come from, not by their length:

- each form is put in the bundle of its place in the template (verbecc drops the places a
  template leaves empty, so an impersonal verb's one row, ``pleut``, is the third person
  singular, not the first; the defective ``clore`` has no ``1;PL``);
- an empty ending (``<i/>``: the bare stem, ``pas`` for ``pasar``, whose template in verbecc is
  an impersonal one) and a slot written ``-`` are no form;
- alternatives written as one string (``scommessero/scommisero``, ``faccio/fo``) are separate
  forms, each once, in verbecc's order; where such an alternative of a participle or of the
  perfective past is the verb's own present indicative, verbecc's template lost the stem's
  change (Italian ``perdo/perduto`` for ``perso/perduto``, ``perde/perdé/perdette`` for
  ``perse/...``) and it is left out;
- a template whose name has no ending (``rigiacere:``) makes verbecc take the whole infinitive as
  the stem (``rigiacereiaccio``): such a verb is not answered; two tenses with the same forms
  in every person (Spanish ``abol:ir``'s preterite, a copy of its imperfect: ``blandías``; which
  one is right is not known, so neither answers) and a personal form that is the verb's
  infinitive or participle (its negative imperative ``no blandir``, ``no blandido``) are
  template errors and left out;
- a Spanish reflexive verb (``fugarse``) gets its pronoun where the 2018 files write it:
  ``me fugué``, ``no te fugues`` (verbecc gives the bare ``fugué``; its imperatives and gerund
  already carry theirs: ``fúgate``, ``fugándose``);
- the lemma's letter case is carried into the forms (:func:`inflect.lexicon.field.carry_case`;
  verbecc writes some templates in capitals: ``FALSEamos`` for ``falsear``).
"""

from __future__ import annotations

import logging
import sys
import types
from typing import Any, ClassVar

from inflect.lexicon.field import (
    PERSONS,
    FieldDictionary,
    Paradigm,
    add_form,
    split_alternatives,
)
from inflect.text.records import TagBundle

__all__ = ["IMPERATIVE", "PERSONS", "REFLEXIVE", "TENSES", "Verbecc"]

#: The persons of each language's affirmative (and Spanish negative) imperative list.
IMPERATIVE = {
    "fr": ("2;SG", "1;PL", "2;PL"),
    "es": ("2;SG", "3;SG", "1;PL", "2;PL", "3;PL"),
    "it": (None, "2;SG", "3;SG", "1;PL", "2;PL", "3;PL"),
}
#: The pronoun of a reflexive verb (an infinitive in ``-se``) by person, where the 2018 files
#: write it before the form (Spanish).
REFLEXIVE = {"es": {"1;SG": "me", "2;SG": "te", "3;SG": "se", "1;PL": "nos", "2;PL": "os",
                    "3;PL": "se"}}
#: ``(mood, tense) -> (kind, UniMorph bundle or prefix)``: ``persons`` adds the six persons,
#: ``imperative`` the language's :data:`IMPERATIVE` persons, ``slots`` gives one bundle per
#: position of the list (None: left out).
TENSES: dict[str, dict[tuple[str, str], tuple[str, Any]]] = {
    "fr": {
        ("infinitif", "infinitif-présent"): ("slots", ("V;NFIN",)),
        ("indicatif", "présent"): ("persons", "V;IND;PRS"),
        ("indicatif", "imparfait"): ("persons", "V;IND;PST;IPFV"),
        ("indicatif", "passé-simple"): ("persons", "V;IND;PST;PFV"),
        ("indicatif", "futur-simple"): ("persons", "V;IND;FUT"),
        ("conditionnel", "présent"): ("persons", "V;COND"),
        ("subjonctif", "présent"): ("persons", "V;SBJV;PRS"),
        ("subjonctif", "imparfait"): ("persons", "V;SBJV;PST"),
        ("imperatif", "imperatif-présent"): ("imperative", "V;POS;IMP"),
        ("participe", "participe-présent"): ("slots", ("V.PTCP;PRS",)),
        ("participe", "participe-passé"): ("slots", ("V.PTCP;PST",)),
    },
    "es": {
        ("infinitivo", "infinitivo"): ("slots", ("V;NFIN",)),
        ("indicativo", "presente"): ("persons", "V;IND;PRS"),
        ("indicativo", "pretérito-imperfecto"): ("persons", "V;IND;PST;IPFV"),
        ("indicativo", "pretérito-perfecto-simple"): ("persons", "V;IND;PST;PFV"),
        ("indicativo", "futuro"): ("persons", "V;IND;FUT"),
        ("condicional", "presente"): ("persons", "V;COND"),
        ("subjuntivo", "presente"): ("persons", "V;SBJV;PRS"),
        ("subjuntivo", "pretérito-imperfecto-1"): ("persons", "V;SBJV;PST;LGSPEC1"),
        ("subjuntivo", "pretérito-imperfecto-2"): ("persons", "V;SBJV;PST"),
        ("subjuntivo", "futuro"): ("persons", "V;SBJV;FUT"),
        ("imperativo", "afirmativo"): ("imperative", "V;POS;IMP"),
        ("imperativo", "negativo"): ("imperative", "V;NEG;IMP"),
        ("gerundio", "gerundio"): ("slots", ("V.CVB;PRS",)),
        ("participo", "participo"): ("slots", ("V.PTCP;PST;MASC;SG", "V.PTCP;PST;FEM;SG",
                                               "V.PTCP;PST;MASC;PL", "V.PTCP;PST;FEM;PL")),
    },
    "it": {
        ("infinito", "gerundio"): ("slots", ("V;NFIN", None, "V.CVB;PRS")),
        ("indicativo", "presente"): ("persons", "V;IND;PRS"),
        ("indicativo", "imperfetto"): ("persons", "V;IND;PST;IPFV"),
        ("indicativo", "passato-remoto"): ("persons", "V;IND;PST;PFV"),
        ("indicativo", "futuro"): ("persons", "V;IND;FUT"),
        ("condizionale", "presente"): ("persons", "V;COND"),
        ("congiuntivo", "presente"): ("persons", "V;SBJV;PRS"),
        ("congiuntivo", "imperfetto"): ("persons", "V;SBJV;PST"),
        ("imperativo", "affermativo"): ("imperative", "V;POS;IMP"),
        ("participio", "participio-presente"): ("slots", ("V.PTCP;PRS",)),
        ("participio", "participio-passato"): ("slots", ("V.PTCP;PST",)),
    },
}


def _import_verbecc() -> Any:
    """``verbecc.conjugator`` and ``verbecc.config``, imported without scikit-learn and without
    the log file verbecc opens at import (see the module's docstring)."""
    if "verbecc.conjugator" not in sys.modules:
        sys.modules.setdefault("verbecc.mlconjug", types.ModuleType("verbecc.mlconjug"))
        file_handler, root = logging.FileHandler, logging.getLogger()
        guard = logging.NullHandler()  # basicConfig leaves a root with a handler alone
        root.addHandler(guard)
        logging.FileHandler = lambda *args, **kwargs: logging.NullHandler()  # type: ignore
        try:
            import verbecc.conjugator
        finally:
            logging.FileHandler = file_handler  # type: ignore[misc]
            root.removeHandler(guard)
    import verbecc.config
    import verbecc.conjugations_parser
    import verbecc.conjugator
    import verbecc.verbs_parser

    verbecc.config.ml = False
    verbecc.conjugations_parser.ConjugationsParser = _lazy_templates(
        verbecc.conjugations_parser.ConjugationsParser)
    verbecc.verbs_parser.VerbsParser = _lazy_verbs(verbecc.verbs_parser.VerbsParser)
    return verbecc.conjugator


def _lazy_verbs(parser: type) -> type:
    """verbecc's ``VerbsParser`` answering a listed infinitive from an index of the XML
    elements, building verbecc's ``Verb`` for that one element (Italian's 7,839 verbs took 0.23
    of the 0.73 s of ``Conjugator("it")``); anything else (an infinitive found only without its
    accents, the list of verbs) is answered by verbecc's own parser, built then."""
    if getattr(parser, "lazy", False):
        return parser
    from verbecc import verb

    class LazyVerbsParser(parser):  # type: ignore[misc, valid-type]
        lazy = True

        def __init__(self, lang: str = "fr") -> None:
            self._lang, self._full = lang, None
            root = _verbecc_xml("verbs", f"verbs-{lang}.xml", validate=False)
            self._elements: dict[str, Any] = {}
            for child in root:  # the first of equal infinitives, as verbecc's sorted search
                if child.tag == "v":
                    self._elements.setdefault(child.findtext("i") or "", child)

        def listed(self, infinitive: str) -> bool:
            """Whether verbecc lists this infinitive as written (no accent stripped)."""
            return infinitive in self._elements

        def _parsed(self) -> Any:
            if self._full is None:
                self._full = parser(self._lang)
            return self._full

        def find_verb_by_infinitive(self, infinitive: str) -> Any:
            found = self._elements.get(infinitive.lower())
            if found is not None:
                return verb.Verb(found)
            return self._parsed().find_verb_by_infinitive(infinitive)

        @property
        def verbs(self) -> list[Any]:
            return self._parsed().verbs

        def get_verbs_that_start_with(self, pre: str, max_results: int = 10) -> list[str]:
            return self._parsed().get_verbs_that_start_with(pre, max_results)

    return LazyVerbsParser


def _verbecc_xml(folder: str, name: str, validate: bool) -> Any:
    """The root element of verbecc's data file ``verbecc/data/xml/FOLDER/NAME``, parsed as
    verbecc parses it (its DTD checked where ``validate``)."""
    from importlib.resources import as_file, files

    from lxml import etree

    xml = etree.XMLParser(dtd_validation=validate, encoding="utf-8", remove_blank_text=True,
                          remove_comments=True)
    with as_file(files(f"verbecc.data.xml.{folder}").joinpath(name)) as path:
        return etree.parse(str(path), xml).getroot()


def _lazy_templates(parser: type) -> type:
    """verbecc's ``ConjugationsParser`` building a conjugation template when a verb first needs
    it, not all of them at load: Italian's 602 templates (41,520 person endings) took 0.50 of the
    0.73 s that ``Conjugator("it")`` took (recipes/dictionaries/README.md, "A cold query"). The
    XML is read and validated as verbecc reads it; a template is verbecc's own
    ``ConjugationTemplate`` of the same element, so every form is verbecc's."""
    if getattr(parser, "lazy", False):
        return parser
    from verbecc import conjugation_template, exceptions

    class LazyConjugationsParser(parser):  # type: ignore[misc, valid-type]
        lazy = True

        def __init__(self, lang: str = "fr") -> None:
            root = _verbecc_xml("conjugations", f"conjugations-{lang}.xml", validate=True)
            if root.tag != f"conjugation-{lang}":
                raise exceptions.ConjugationsParserError(
                    f"Root XML Tag conjugation-{lang} Not Found")
            self._elements = {str(c.get("name")): c for c in root if c.tag == "template"}
            self._built: dict[str, Any] = {}
            self._keys = sorted(self._elements)

        def find_template(self, name: str) -> Any:
            if name not in self._elements:
                raise exceptions.TemplateNotFoundError
            if name not in self._built:
                self._built[name] = conjugation_template.ConjugationTemplate(self._elements[name])
            return self._built[name]

        @property
        def templates(self) -> list[Any]:  # every template, built (verbecc's listing)
            return [self.find_template(name) for name in self._keys]

    return LazyConjugationsParser


class Verbecc(FieldDictionary):
    """French, Spanish, Italian and Portuguese verbs from ``verbecc``'s conjugation tables
    (Portuguese by :func:`inflect.lexicon.field_verbecc_more.paradigm`; Catalan and Romanian:
    measured, not taken)."""

    library = "verbecc"
    module = "verbecc"
    codes: ClassVar[dict[str, str]] = {
        "french": "fr", "spanish": "es", "italian": "it", "portuguese": "pt"
    }
    #: Tables measured and not taken: below the fidelity gate on the 2018 files
    #: (recipes/dictionaries/README.md; ``agreement.py --untaken`` measures them again).
    untaken: ClassVar[dict[str, str]] = {"catalan": "ca", "romanian": "ro"}
    parts_of_speech = frozenset({"V"})
    lower_case = True

    @classmethod
    def available(cls) -> bool:
        """True where verbecc 1.x is installed (2.x, a rewrite with another interface, is not
        read)."""
        import importlib.metadata

        try:
            return super().available() and importlib.metadata.version("verbecc").startswith("1.")
        except importlib.metadata.PackageNotFoundError:
            return False

    def load(self, code: str) -> Any:
        return _import_verbecc().Conjugator(code)

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        code = self.codes[language]
        if code not in TENSES:  # Portuguese (and the untaken Catalan and Romanian)
            from inflect.lexicon import field_verbecc_more

            return field_verbecc_more.paradigm(backend, code, lemma)
        parser = backend._inflector._verb_parser
        if not parser.listed(lemma):  # only the verbs it lists (no guess)
            return {}
        from verbecc import exceptions

        try:
            template = backend._inflector._get_conj_obs(lemma).template
            found = backend.conjugate(lemma, include_alternates=True, conjugate_pronouns=False)
        except (exceptions.ConjugatorError, exceptions.TemplateNotFoundError,
                exceptions.VerbNotFoundError):  # a listed verb its templates cannot conjugate
            return {}
        if template.name.endswith(":"):  # no ending: the whole infinitive taken as the stem
            return {}
        reflexive = REFLEXIVE.get(code) if lemma.endswith("se") else None
        table: Paradigm = {}
        split: set[str] = set()  # the bundles of alternatives written as one string
        for (mood, tense), (kind, tags) in TENSES[code].items():
            slots = found["moods"].get(mood, {}).get(tense, [])
            places = _places(template, mood, tense)
            if kind == "persons":
                names = [f"{tags};{p}" for p in PERSONS]
            elif kind == "imperative":
                names = [p and f"{tags};{p}" for p in IMPERATIVE[code]]
            else:
                names = list(tags)
            for (place, endings), forms in zip(places, slots, strict=False):
                name = names[place] if place < len(names) else None
                for ending, written in zip(endings, forms, strict=False):
                    if name is None or not ending or ending == "-" or written == "-":
                        continue  # no bundle, or an empty ending: the bare stem is no form
                    alternatives = split_alternatives(written)
                    if len(alternatives) > 1:
                        split.add(name)
                    for form in alternatives:
                        add_form(table, name, _with_pronoun(form, name, reflexive))
        _drop_lost_stems(table, split)
        _drop_copies(table)
        if code == "fr":  # the gerund: "en" + the present participle, as the 2018 data write it
            for form in table.get(TagBundle.parse("V.PTCP;PRS"), []):
                add_form(table, "V.CVB;PRS", f"en {form}")
        return table


def _places(template: Any, mood: str, tense: str) -> list[tuple[int, list[str]]]:
    """The place in the template of each list verbecc gives for ``mood`` and ``tense`` (verbecc
    leaves out the places a template leaves empty) with that place's endings, in order."""
    from verbecc import grammar_defines

    tenses = template.moods.get(mood)
    found = tenses.tenses.get(tense) if tenses is not None else None
    if found is None:
        return []
    persons = (grammar_defines.IMPERATIVE_PRESENT_PERSONS if tense == "imperatif-présent"
               else grammar_defines.PERSONS)
    return [(persons.index(p.get_person()), p.get_endings()) for p in found.person_endings]


def _drop_lost_stems(table: Paradigm, split: set[str]) -> None:
    """Leave out an alternative of a participle's or the perfective past's bundle (``split``:
    the bundles whose forms verbecc wrote as one string) that is the verb's present indicative
    (``perdo`` of ``perdo/perduto``): see the module's docstring."""
    present = {f for tags, forms in table.items() if {"IND", "PRS"} <= set(tags.multiset)
               for f in forms}
    for name in split:
        tags = TagBundle.parse(name)
        if not ({"V.PTCP", "PFV"} & set(tags.multiset)):
            continue
        kept = [f for f in table.get(tags, ()) if f not in present]
        if kept:
            table[tags] = kept
        else:
            table.pop(tags, None)


def _drop_copies(table: Paradigm) -> None:
    """Leave out both of two tenses whose six persons are the same forms (a template's copy:
    which is the right one is not known), a personal form that is the verb's infinitive, and a
    negative imperative that is ``no`` and the infinitive or a participle (see the module's
    docstring)."""
    persons = {"1", "2", "3", "SG", "PL"}
    tenses: dict[frozenset[str], dict[frozenset[str], tuple[str, ...]]] = {}
    for tags, forms in table.items():
        person = frozenset(f for f in tags.multiset if f in persons)
        if len(person) == 2 and "IMP" not in tags.multiset:
            tenses.setdefault(frozenset(tags.multiset) - person, {})[person] = tuple(forms)
    full = [(rest, frozenset(p.items())) for rest, p in tenses.items() if len(p) == 6]
    copies = {rest for rest, forms in full for other, same in full
              if other != rest and same == forms}
    for tags in [t for t in table if frozenset(t.multiset) - persons in copies]:
        del table[tags]
    infinitive = set(table.get(TagBundle.parse("V;NFIN"), ()))
    participle = {f for tags, forms in table.items() if "V.PTCP" in tags.multiset for f in forms}
    for tags in list(table):
        if persons & set(tags.multiset) - {"SG", "PL"}:  # (French "dit" is both 3;SG and a
            kept = [f for f in table[tags] if f not in infinitive  # participle: kept)
                    and not (f.startswith("no ") and f[3:] in infinitive | participle)]
            if kept:
                table[tags] = kept
            else:
                del table[tags]


def _with_pronoun(form: str, tags: str, pronouns: dict[str, str] | None) -> str:
    """A reflexive verb's finite form with its pronoun before it (``fugué`` -> ``me fugué``,
    ``no fugues`` -> ``no te fugues``), as the 2018 files write it; other forms as they are."""
    if pronouns is None or ";POS;" in f";{tags};" or not tags.startswith("V;"):
        return form
    person = next((p for p in pronouns if tags.endswith(f";{p}")), None)
    if person is None:
        return form
    if form.startswith("no "):
        return f"no {pronouns[person]} {form[3:]}"
    return f"{pronouns[person]} {form}"
