"""Answers that agree with the README and with each other: an ensemble folder with a member that
cannot be read, a lexicon's language from its file name, the lexicon's edge cases, paradigm
cells with a repeated feature."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from inflect.cli import main
from inflect.nn.checkpoint import checkpoint_members

REPO = Path(__file__).resolve().parent.parent
GERMAN = REPO / "inflect" / "models" / "german-high" / "member-1.safetensors"


# ----------------------------------------------------------------- ensembles of members
def test_a_dangling_member_is_an_error_naming_it(tmp_path):
    """A member left as a dangling link (git-annex, DVC) is not silently dropped."""
    folder = tmp_path / "ens"
    folder.mkdir()
    (folder / "m1.safetensors").symlink_to(GERMAN)
    (folder / "m2.safetensors").symlink_to(tmp_path / "annex" / "objects" / "m2")
    with pytest.raises(FileNotFoundError, match=r"m2\.safetensors"):
        checkpoint_members([folder])
    # the same for a member folder whose model.safetensors is a dangling link
    runs = tmp_path / "runs"
    (runs / "seed1").mkdir(parents=True)
    (runs / "seed2").mkdir()
    (runs / "seed1" / "model.safetensors").symlink_to(GERMAN)
    (runs / "seed2" / "model.safetensors").symlink_to(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="seed2"):
        checkpoint_members([runs])
    result = CliRunner().invoke(
        main, ["predict", "--model", str(folder), "--lang", "german", "Haus", "N;DAT;PL"])
    assert result.exit_code == 1
    assert "m2.safetensors" in result.output and "not there" in result.output
    assert "Traceback" not in result.output


def test_a_queue_folder_given_as_model_says_how_to_pick_a_language(tmp_path):
    queue = tmp_path / "high"
    for language in ("german", "finnish"):
        (queue / language).mkdir(parents=True)
        (queue / language / "model.safetensors").symlink_to(GERMAN)
    (queue / "queue.json").write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["predict", "--model", str(queue), "--lang", "german", "Haus", "N;DAT;PL"])
    assert result.exit_code == 1
    assert "queue" in result.output and f"--model {queue / 'finnish'}" in result.output
    assert "target vocabularies" not in result.output


# ----------------------------------------------------------------- paradigm cells: multisets
def _shipped_bundles(language: str, setting: str = "high") -> set[tuple[str, ...]]:
    path = REPO / "inflect" / "cells" / f"conll2018-task1-{setting}.json.gz"
    table = json.loads(gzip.decompress(path.read_bytes()))["languages"][language]
    return {tuple(sorted(b.split(";"))) for bundles in table.values() for b in bundles}


def test_shipped_cells_keep_a_repeated_feature():
    """Albanian's pluperfect V;2;PL;IND;PRF;PRF is a cell of its own beside the perfect."""
    bundles = _shipped_bundles("albanian")
    assert tuple(sorted(["V", "2", "PL", "IND", "PRF", "PRF"])) in bundles
    assert tuple(sorted(["V", "2", "PL", "IND", "PRF"])) in bundles


@pytest.mark.parametrize("language", ["albanian", "breton", "adyghe"])
def test_shipped_cells_are_the_training_bundles_as_multisets(language, conll2018):
    """Every distinct multiset of features of train-high (with a part of speech), counted here
    with plain string splitting, is one shipped cell."""
    pos = {"N", "V", "ADJ", "V.PTCP", "V.CVB", "V.MSDR", "ADV", "PRO", "DET", "ART", "NUM",
           "ADP", "PROPN"}
    want = set()
    for line in (conll2018 / f"{language}-train-high").read_text(encoding="utf-8").splitlines():
        if line.strip():
            features = tuple(sorted(line.split("\t")[2].split(";")))
            if pos & set(features):
                want.add(features)
    assert _shipped_bundles(language) == want


def test_albanian_verb_paradigm_has_every_bundle_of_its_data():
    from inflect.inference.paradigm import Paradigms

    paradigm = Paradigms.from_default("albanian").paradigm("filloj", pos="V")
    verbs = {b for b in _shipped_bundles("albanian") if "V" in b or "V.PTCP" in b}
    assert len(paradigm.cells) == len(verbs) == 120
    pluperfect, perfect = paradigm.cell("V;2;PL;IND;PRF;PRF"), paradigm.cell("V;2;PL;IND;PRF")
    assert pluperfect.forms and perfect.forms and pluperfect is not perfect
    assert pluperfect.block != perfect.block


# ----------------------------------------------------------------- lexicons
def _predict(*args: str, env: dict | None = None):
    return CliRunner(env=env).invoke(main, ["predict", "--format", "jsonl", *args])


@pytest.mark.parametrize(("name", "language"), [
    ("de-words.tsv", "german"), ("english_verbs.tsv", "english"), ("en-GB.tsv", "english"),
    ("north-frisian-nouns.tsv", "north-frisian"), ("german-train-high", "german"),
])
def test_a_lexicons_language_is_its_file_names(tmp_path, name, language):
    from inflect.lexicon.files import file_language

    path = tmp_path / name
    path.write_text("x\ty\tN;NOM;SG\n", encoding="utf-8")
    assert file_language(path, "finnish") == language


def test_a_german_lexicon_is_not_read_as_english(tmp_path, monkeypatch):
    """README: de-words.tsv is German; asked in English, it is not consulted."""
    monkeypatch.chdir(tmp_path)
    Path("de-words.tsv").write_text("Haus\tHäusern\tN;DAT;PL\n", encoding="utf-8")
    result = _predict("--lang", "english", "--lexicon", "de-words.tsv", "Haus", "N;DAT;PL")
    assert "holds german forms, not english" in result.output
    record = json.loads(result.stdout.splitlines()[0])
    assert not any("de-words.tsv" in f["source"] for f in record["forms"])


def test_a_file_name_that_names_no_language_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("words.tsv").write_text("Haus\tHäusern\tN;DAT;PL\n", encoding="utf-8")
    result = _predict("--lang", "german", "--no-lexicon", "Haus", "N;DAT;PL")
    assert result.exit_code == 0 and "words.tsv" not in result.output  # not given: not read
    result = _predict("--lang", "german", "--lexicon", "words.tsv", "Haus", "N;DAT;PL")
    assert "words.tsv: the file name names no language" in result.output
    record = json.loads(result.stdout.splitlines()[0])
    assert record["forms"][0]["form"] == "Häusern" and "words.tsv:1" in record["forms"][0]["source"]


def test_an_empty_entry_of_inflect_lexicon_is_skipped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("english.tsv").write_text("get\tgat\tV;PST\n", encoding="utf-8")
    result = _predict("--lang", "english", "get", "V;PST", env={"INFLECT_LEXICON": "english.tsv:"})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[0])["forms"][0]["form"] == "gat"
    missing = _predict("--lang", "english", "get", "V;PST", env={"INFLECT_LEXICON": "eng:"})
    assert missing.exit_code == 2
    assert "INFLECT_LEXICON" in missing.output and "'--lexicon'" not in missing.output


def test_a_feature_the_language_never_uses_is_warned_once_with_the_closest(tmp_path,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("russian.tsv").write_text("кот\tкотом\tN;INST;SG\nпёс\tпсом\tN;INST;SG\n",
                                   encoding="utf-8")
    result = _predict("--lang", "russian", "--lexicon", "russian.tsv", "кот", "N;INS;SG")
    warned = [line for line in result.output.splitlines() if "'INST'" in line]
    assert len(warned) == 1 and "(did you mean 'INS'?)" in warned[0]
    assert "russian.tsv:1" in warned[0]


def test_two_user_lexicons_that_disagree_are_both_listed_as_the_readme_says(tmp_path,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("english.tsv").write_text("dream\tdreamed\tV;PST\n", encoding="utf-8")
    Path("en-mine.tsv").write_text("dream\tdreamt\tV;PST\n", encoding="utf-8")
    result = _predict("--lang", "english", "--lexicon", "english.tsv", "--lexicon",
                      "en-mine.tsv", "dream", "V;PST")
    record = json.loads(result.stdout.splitlines()[0])
    attested = [(f["form"], f["source"].split(";")[0]) for f in record["forms"] if f["attested"]]
    assert attested[:2] == [("dreamed", "english.tsv:1"), ("dreamt", "en-mine.tsv:1")]
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "two files that disagree are both listed, the first given first" in readme
    assert "The first lexicon that holds an input answers it" not in readme
