"""Attested forms: lexicons consulted before the model.

A *lexicon* holds forms that are written down: ``(language, lemma, tag bundle) -> form(s)``. The
predictor (:class:`inflect.inference.predictor.Predictor`) asks its lexicon first and lists the attested
forms before the model's own distribution; the lexicon is a room of its own, not a branch of the
search (the model is searched either way, so a user sees where it agrees).

- :class:`FileLexicon`: a user's files in the UniMorph layouts (``lemma<TAB>form<TAB>tags``, the
  2018 layout, or ``lemma<TAB>tags<TAB>form``, the 2023 layout, detected as everywhere), read by
  :func:`inflect.text.reading.parse_file` (the same errors, with file and line).
- :class:`ShippedLexicon`: the attested pairs of CoNLL–SIGMORPHON 2018 task 1 (train-high,
  train-medium, train-low and dev of each language), stored in the package as one Parquet file
  with one row group per language (:mod:`inflect.lexicon.store`), read one language at a time.
- Field dictionaries where their library is installed (:mod:`inflect.lexicon.field`:
  ``pymorphy3``, ``lemminflect``, ``german-nouns``, ``verbecc``), each loaded for its language at
  its first lookup.
- UniMorph on demand (:mod:`inflect.lexicon.unimorph`): a language's files fetched (pinned,
  verified by git blob id) or added by hand, indexed on disk (:mod:`inflect.lexicon.indexed`).
- :class:`Lexicons`: layers asked in order (:func:`load_lexicons`: the user's files, the field
  dictionaries, UniMorph, the shared-task data); every layer that holds a ``(language, lemma,
  tag bundle)`` adds its forms, each form once: the user's first, then a form more layers attest
  before one fewer do, else the earlier layer's first. :meth:`Lexicons.consult` also says where
  the layers disagree (no form in common: a conflict), and answers a lemma no dictionary lists
  as typed for the spelling one lists (``haus``: ``Haus``), with a note
  (:class:`Consultation`).

Matching: the lemma in the language's data normalisation
(:meth:`inflect.text.languages.LanguageSpec.normalize_input`, as the model reads it) and the tag bundle
as a :class:`inflect.text.records.TagBundle` (order-free, by the bundle's own equality).
"""

from inflect.lexicon.core import (
    SHARED_TASK_SOURCE,
    Attestation,
    Consultation,
    Lexicon,
    LexiconError,
    Lexicons,
)
from inflect.lexicon.files import FileLexicon
from inflect.lexicon.loading import load_lexicons
from inflect.lexicon.store import SHIPPED_STORE, ShippedLexicon, write_store

__all__ = [
    "SHARED_TASK_SOURCE",
    "SHIPPED_STORE",
    "Attestation",
    "Consultation",
    "FileLexicon",
    "Lexicon",
    "LexiconError",
    "Lexicons",
    "ShippedLexicon",
    "load_lexicons",
    "write_store",
]
