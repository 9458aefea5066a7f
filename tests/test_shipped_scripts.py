"""The shipped models write only their language's symbols: a lemma's unseen
character is copied, never answered in another script. The expected alphabet is read here with
plain Python from the training data of the model's setting, independently of the code."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from inflect.cli import main

# capitals of words the training data never spell so (ЖЭК, a Russian abbreviation), a Greek
# lemma with an accent its data have, and a Finnish one with a foreign letter
CASES = [
    ("russian", "ЖЭК", "N;GEN;PL"),
    ("russian", "ЖЭК", "N;NOM;PL"),
    ("finnish", "Øresund", "N;IN+ESS;SG"),
    ("german", "Жук", "N;DAT;PL"),
]


def _alphabet(conll2018, language: str, setting: str) -> set[str]:
    symbols: set[str] = set()
    with open(conll2018 / f"{language}-train-{setting}", encoding="utf-8") as f:
        for line in f:
            lemma, form, _ = line.rstrip("\n").split("\t")
            symbols |= set(lemma) | set(form)
    return symbols


@pytest.mark.parametrize("setting", ["high", "medium"])
@pytest.mark.parametrize(("language", "lemma", "tags"), CASES)
def test_a_shipped_model_copies_unseen_characters_and_writes_no_other_script(
    conll2018, language, lemma, tags, setting
):
    allowed = _alphabet(conll2018, language, setting) | set(lemma)
    out = CliRunner().invoke(main, ["predict", "--lang", language, "--setting", setting,
                                    "--no-lexicon", "--format", "jsonl", lemma, tags])
    assert out.exit_code == 0, out.output
    record = json.loads(next(line for line in out.output.splitlines() if line.startswith("{")))
    forms = [f["form"] for f in record["forms"]]
    assert forms and all(forms)
    strays = {f: sorted(set(f) - allowed) for f in forms if set(f) - allowed}
    assert not strays, f"{record['model']} writes symbols of no {setting} {language} word: {strays}"
    # every lemma here begins with a letter its training data never have: copied, first
    assert lemma[0] not in allowed - set(lemma)
    assert forms[0].startswith(lemma[0]), (record["model"], forms[:3])
