"""The fidelity gate of the field dictionaries: on a fixed sample of the pairs each
installed dictionary shares with the shared-task train and dev files, the data's form is among
its forms on at least 98.5% and its first form is the data's on at least 97.5%, and every
difference is of a kind the README classifies (``recipes/dictionaries/README.md``), no more
of each kind than the sample held when they were classified.

The table is recomputed by ``recipes/dictionaries/agreement.py`` itself (its ``measure`` on every
8th lemma of the files: about 1,400 pairs a language, a few seconds of CPU a dictionary); a kind that looks like an adapter bug (a joined ``a/b`` form, a bare
stem, a difference of letter case or of a hyphen) is allowed nowhere. A dictionary added to
:data:`inflect.lexicon.dictionaries.ADAPTERS` fails here until its differences are classified in
the README and recorded in :data:`KNOWN`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from inflect.lexicon.dictionaries import ADAPTERS

AGREEMENT = Path(__file__).resolve().parent.parent / "recipes" / "dictionaries" / "agreement.py"
#: The sample: the pairs of every so many lemmas (in sorted order) of the four files.
EVERY = 8
#: Per (library, language): the pairs of the sample the dictionary held when its differences
#: were classified (a dictionary that holds far fewer has lost words: an adapter bug), and the
#: differences of each kind the sample held then (recipes/dictionaries/README.md explains each
#: kind, with examples; ``agreement.py --every 8`` prints them). A kind not listed is a new kind
#: and fails; a kind listed may grow by :data:`SLACK` (a library's new release). Kinds of an
#: adapter bug (agreement.BUG_KINDS) appear nowhere.
KNOWN: dict[tuple[str, str], tuple[int, dict[str, int]]] = {
    ("lemminflect", "english"): (296, {"near": 1, "other": 1}),
    ("pymorphy3", "russian"): (
        1247,
        {"variant": 2, "analytic future": 2, "diacritics": 5, "near": 1},
    ),
    ("pymorphy3", "ukrainian"): (1296, {"variant": 13, "near": 1}),
    ("german-nouns", "german"): (518, {"variant": 4, "diacritics": 2, "near": 4}),
    ("verbecc", "french"): (948, {"variant": 10, "pronoun": 4, "diacritics": 3, "other": 3}),
    ("verbecc", "italian"): (830, {"variant": 3, "other": 3}),
    ("verbecc", "spanish"): (1111, {"diacritics": 4, "near": 4, "other": 1}),
    ("verbecc", "portuguese"): (1190, {"diacritics": 1, "near": 3}),
    ("ablaut", "german"): (17, {}),
    ("morfeusz2", "polish"): (1231, {"variant": 10, "near": 3, "other": 1}),
}
SLACK = 2


def _agreement():
    spec = importlib.util.spec_from_file_location("dictionary_agreement", AGREEMENT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = [(cls, language) for cls in ADAPTERS for language in sorted(cls.codes)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("adapter", "language"), CASES, ids=[f"{cls.library}-{language}" for cls, language in CASES]
)
def test_every_dictionary_passes_the_fidelity_gate(adapter, language, conll2018):
    if not adapter.available():
        pytest.skip(f"{adapter.library} is not installed (pip install '.[dictionaries]')")
    dictionary = adapter()
    if language not in dictionary.languages():
        pytest.skip(f"{adapter.library} has no data for {language} here")
    agreement = _agreement()
    row = agreement.measure(dictionary, language, str(conll2018), None, every=EVERY)
    key = (adapter.library, language)
    assert key in KNOWN, (
        f"{key}: not classified yet; classify its differences in recipes/dictionaries/README.md "
        f"and record them in KNOWN: held {row['held']}, kinds {dict(row['kinds'])}"
    )
    held, allowed = KNOWN[key]
    assert row["held"] >= 0.95 * held, (key, row["held"], held)
    assert row["agree"] / row["held"] >= agreement.GATE["agree"], row
    assert row["first"] / row["held"] >= agreement.GATE["first"], row
    bugs = {k: n for k, n in row["kinds"].items() if k in agreement.BUG_KINDS}
    assert not bugs, (key, bugs)
    new = {k: n for k, n in row["kinds"].items() if n > allowed.get(k, -SLACK) + SLACK}
    assert not new, f"{key}: a new kind of difference, or more of one: {new} (allowed {allowed})"


def test_the_kinds_are_told_apart_by_hand():
    """:func:`classify` on differences typed by hand, one per kind."""
    classify = _agreement().classify
    assert (
        classify("scommettere", "V;IND;PST;3;PL;PFV", "scommisero", ["scommessero/scommisero"])
        == "joined"
    )
    assert classify("pasar", "V;IND;PRS;1;SG", "paso", ["pas"]) == "bare stem"
    assert classify("ЗАГС", "N;ACC;PL", "ЗАГСы", ["загсы"]) == "letter case"
    assert (
        classify("overwrite", "V;PST", "overwrote", ["over-wrote", "overwrote"])
        == "hyphen or space"
    )
    assert classify("strive", "V;PST", "strived", ["strove", "strived"]) == "variant"
    assert classify("fugarse", "V;IND;PST;1;SG;PFV", "me fugué", ["fugué"]) == "pronoun"
    assert classify("envoler", "V;IND;FUT;1;SG", "m’envolerai", ["envolerai"]) == "pronoun"
    assert (
        classify("инфицировать", "V;FUT;3;SG", "будет инфицировать", ["инфицирует"])
        == "analytic future"
    )
    assert classify("врасти", "V;FUT;2;SG", "врастешь", ["врастёшь"]) == "diacritics"
    assert classify("say", "V;PST", "sayed", ["said"]) == "near"
    assert classify("tweet", "V;PST", "twote", ["tweeted"]) == "other"
    assert (
        classify("невежественный", "ADJ;MASC;SG;LGSPEC1", "невежественен", ["невежествен"])
        == "near"
    )  # not a verb's bare stem
