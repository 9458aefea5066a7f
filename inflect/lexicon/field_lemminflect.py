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


def _joints(text: str) -> tuple[int, int]:
    """How many hyphens and spaces ``text`` writes (``over-wrote``: one hyphen)."""
    return text.count("-"), text.count(" ")
