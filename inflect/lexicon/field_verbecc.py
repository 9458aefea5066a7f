"""French, Spanish and Italian verbs from ``verbecc`` 1.10 (its conjugation tables, the Verbiste
data; LGPL): the simple tenses of a verb in its list, mapped to the UniMorph bundles of the
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
out; a slot verbecc writes as ``-`` is empty.
"""

from __future__ import annotations

import logging
import sys
import types
from typing import Any, ClassVar

from inflect.lexicon.field import FieldDictionary, Paradigm, add_form
from inflect.text.records import TagBundle

__all__ = ["IMPERATIVE", "PERSONS", "TENSES", "Verbecc"]

PERSONS = ("1;SG", "2;SG", "3;SG", "1;PL", "2;PL", "3;PL")
#: The persons of each language's affirmative (and Spanish negative) imperative list.
IMPERATIVE = {
    "fr": ("2;SG", "1;PL", "2;PL"),
    "es": ("2;SG", "3;SG", "1;PL", "2;PL", "3;PL"),
    "it": (None, "2;SG", "3;SG", "1;PL", "2;PL", "3;PL"),
}
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
    """French, Spanish and Italian verbs from ``verbecc``'s conjugation tables."""

    library = "verbecc"
    module = "verbecc"
    codes: ClassVar[dict[str, str]] = {"french": "fr", "spanish": "es", "italian": "it"}
    parts_of_speech = frozenset({"V"})

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
        parser = backend._inflector._verb_parser
        if not parser.listed(lemma.lower()):  # only the verbs it lists (no guess)
            return {}
        import verbecc.exceptions

        try:
            found = backend.conjugate(lemma.lower(), include_alternates=True,
                                      conjugate_pronouns=False)
        except verbecc.exceptions.ConjugatorError:  # a listed verb its templates cannot conjugate
            return {}
        table: Paradigm = {}
        for (mood, tense), (kind, tags) in TENSES[code].items():
            slots = found["moods"].get(mood, {}).get(tense, [])
            if kind == "persons":
                names = [f"{tags};{p}" for p in PERSONS]
            elif kind == "imperative":
                names = [p and f"{tags};{p}" for p in IMPERATIVE[code]]
            else:
                names = list(tags)
            for name, forms in zip(names, slots, strict=False):
                for form in forms if name else ():
                    if form and form != "-":
                        add_form(table, name, form)
        if code == "fr":  # the gerund: "en" + the present participle, as the 2018 data write it
            for form in table.get(TagBundle.parse("V.PTCP;PRS"), []):
                add_form(table, "V.CVB;PRS", f"en {form}")
        return table
