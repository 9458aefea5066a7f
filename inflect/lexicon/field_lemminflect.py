"""English from ``lemminflect`` (its dictionary of inflections; the rules for unknown words are
not asked): Penn Treebank tags mapped to the UniMorph bundles of the English shared-task data.

The dictionary is asked for the lemma in lower case and the lemma's letter case is carried into
the forms (:func:`inflect.lexicon.field.carry_case`: ``MiST`` -> ``MiSTed``, where lemminflect
itself would write ``Misted``). A form that writes the lemma with a hyphen or a space it does
not have (``over-wrote`` for ``overwrite``, ``proof reads`` for ``proofread``) spells another
lemma and is left out (and the other way round)."""

from __future__ import annotations

from typing import Any, ClassVar

from inflect.lexicon.field import FieldDictionary, Paradigm, add_form

__all__ = ["PENN_TO_UNIMORPH", "LemmInflect"]

#: ``(UniMorph part of speech, lemminflect's universal POS, Penn tag) -> UniMorph bundle``; the
#: English shared-task files have the five verb bundles (``VBP``, the non-third-person present, is
#: the bare form and has no bundle of its own there).
PENN_TO_UNIMORPH: dict[tuple[str, str, str], str] = {
    ("V", "VERB", "VB"): "V;NFIN",
    ("V", "VERB", "VBD"): "V;PST",
    ("V", "VERB", "VBN"): "V;V.PTCP;PST",
    ("V", "VERB", "VBG"): "V;V.PTCP;PRS",
    ("V", "VERB", "VBZ"): "V;3;SG;PRS",
    ("N", "NOUN", "NN"): "N;SG",
    ("N", "NOUN", "NNS"): "N;PL",
    ("ADJ", "ADJ", "JJ"): "ADJ",
    ("ADJ", "ADJ", "JJR"): "ADJ;CMPR",
    ("ADJ", "ADJ", "JJS"): "ADJ;SPRL",
}


class LemmInflect(FieldDictionary):
    """English verbs, nouns and adjectives from ``lemminflect``'s dictionary."""

    library = "lemminflect"
    module = "lemminflect"
    codes: ClassVar[dict[str, str]] = {"english": "en"}
    parts_of_speech = frozenset({"V", "N", "ADJ"})
    lower_case = True

    def load(self, code: str) -> Any:
        """``lemminflect``, imported without spaCy: where spaCy is installed, lemminflect's
        import imports it to register its token extensions (a second or more, and its own data
        loaded for them), which a lookup does not need. A spaCy already imported is left as
        it is (lemminflect then hooks into it, as it would)."""
        import sys

        if "lemminflect" not in sys.modules and "spacy" not in sys.modules:
            sys.meta_path.insert(0, _NoSpacy)
            try:
                import lemminflect
            finally:
                sys.meta_path.remove(_NoSpacy)
        import lemminflect

        return lemminflect

    def paradigm(self, backend: Any, language: str, lemma: str, pos: str) -> Paradigm:
        table: Paradigm = {}
        found: dict[str, dict[str, tuple[str, ...]]] = {}
        for (unimorph_pos, upos, penn), tags in PENN_TO_UNIMORPH.items():
            if unimorph_pos != pos:
                continue
            if upos not in found:
                found[upos] = backend.getAllInflections(lemma, upos=upos)
            for form in found[upos].get(penn, ()):
                if _joints(form) == _joints(lemma):
                    add_form(table, tags, form)
        return table


class _NoSpacy:
    """A finder (on ``sys.meta_path`` while lemminflect is imported) that makes ``import
    spacy`` fail, as where spaCy is not installed."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "spacy" or name.startswith("spacy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _joints(text: str) -> tuple[int, int]:
    """How many hyphens and spaces ``text`` writes (``over-wrote``: one hyphen)."""
    return text.count("-"), text.count(" ")
