"""Lexicons of attested forms: reading user files (2018 and 2023 layouts), the shipped
store, order-free lookup, precedence, and the predictor's answers.

Expected values are read independently: the shared-task files split on TAB with plain Python,
synthetic lexicon lines written here.
"""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner

from inflect.cli import main
from inflect.lexicon import (
    FileLexicon,
    LexiconError,
    Lexicons,
    ShippedLexicon,
    load_lexicons,
    write_store,
)
from inflect.lexicon.store import SHIPPED_STORE
from inflect.text.records import DataFormatError, TagBundle

SPLITS = ("train-high", "train-medium", "train-low", "dev")


def bundle(text: str) -> TagBundle:
    return TagBundle.parse(text)


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- user files ---------------------------------------------------------------------------------


def test_a_2018_file_is_looked_up_order_free_with_every_form_in_file_order(tmp_path):
    path = write(
        tmp_path / "english.tsv",
        ["dream\tdreamed\tV;PST", "walk\twalked\tV;PST", "dream\tdreamt\tPST;V", ""],
    )
    lex = FileLexicon([path])
    found = lex.lookup("english", "dream", bundle("V;PST"))
    assert [a.form for a in found] == ["dreamed", "dreamt"]
    assert [a.source for a in found] == [f"{path}:1", f"{path}:3"]
    assert lex.lookup("english", "walk", bundle("PST;V"))[0].form == "walked"
    assert lex.lookup("english", "walk", bundle("V;PRS")) == ()
    assert lex.lookup("german", "walk", bundle("V;PST")) == ()
    assert lex.languages() == {"english"}
    assert lex.size == 3


def test_a_2023_file_is_detected_by_where_the_tag_bundles_are(tmp_path):
    path = write(tmp_path / "de.tsv", ["Haus\tN;DAT;PL\tHäusern", "Maus\tN;NOM;PL\tMäuse"])
    lex = FileLexicon([path])
    assert lex.languages() == {"german"}  # "de" in the file name
    assert [a.form for a in lex.lookup("german", "Haus", bundle("PL;N;DAT"))] == ["Häusern"]
    assert lex.lookup("german", "Maus", bundle("N;NOM;PL"))[0].source == f"{path}:2"


def test_lemmas_and_forms_are_brought_to_the_data_normalisation(tmp_path):
    nfd = unicodedata.normalize("NFD", "été")
    path = write(tmp_path / "words.tsv", [f"{nfd}\t{nfd}s\tN;PL"])
    lex = FileLexicon([path], language="french")
    found = lex.lookup("french", unicodedata.normalize("NFC", "été"), bundle("N;PL"))
    assert [a.form for a in found] == [unicodedata.normalize("NFC", "étés")]


def test_a_malformed_line_is_an_error_naming_file_and_line(tmp_path):
    path = write(tmp_path / "english.tsv", ["go\twent\tV;PST", "go\tgone", "be\twas\tV;PST"])
    with pytest.raises(DataFormatError) as caught:
        FileLexicon([path])
    assert str(caught.value).startswith(f"{path}:2: ")
    bad_tags = write(tmp_path / "english-2.tsv", ["go\twent\tV;;PST"])
    with pytest.raises(DataFormatError, match=rf"^{bad_tags}:1: "):
        FileLexicon([bad_tags], language="english")


def test_a_file_without_forms_or_language_is_refused(tmp_path):
    covered = write(tmp_path / "english.tsv", ["go\tV;PST"])
    with pytest.raises(DataFormatError, match="no forms"):
        FileLexicon([covered])
    nameless = write(tmp_path / "my-words.tsv", ["go\twent\tV;PST"])
    with pytest.raises(LexiconError, match="--lang"):
        FileLexicon([nameless])
    assert FileLexicon([nameless], language="en").languages() == {"english"}


# --- the store ----------------------------------------------------------------------------------


def test_a_store_reads_back_what_was_written_one_language_at_a_time(tmp_path):
    rows = {
        "english": [
            ("go", "V;PST", "went", "train-high", 7),
            ("go", "V;PST", "went", "dev", 3),  # the same pair again: kept once, first split
            ("dream", "V;PST", "dreamed", "train-high", 2),
            ("dream", "PST;V", "dreamt", "dev", 9),
        ],
        "german": [("Haus", "N;DAT;PL", "Häusern", "train-low", 5)],
    }
    store = tmp_path / "store.parquet"
    pairs = write_store(store, rows, dataset="synthetic", splits=SPLITS)
    assert pairs == {"english": 3, "german": 1}
    lex = ShippedLexicon(store)
    assert lex.languages() == {"english", "german"}
    assert lex.lookup("english", "go", bundle("PST;V")) == (
        ("went", "shared-task data (english-train-high:7)"),
    )
    assert [a.form for a in lex.lookup("english", "dream", bundle("V;PST"))] == [
        "dreamed",
        "dreamt",
    ]
    assert lex.lookup("german", "Haus", bundle("PL;DAT;N"))[0].source.endswith("-train-low:5)")
    assert lex.lookup("finnish", "talo", bundle("N;PL")) == ()


def test_a_missing_or_foreign_store_is_a_lexicon_error(tmp_path):
    with pytest.raises(LexiconError, match="missing"):
        ShippedLexicon(tmp_path / "absent.parquet").lookup("english", "go", bundle("V"))
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet")
    with pytest.raises(LexiconError, match="not a lexicon store"):
        ShippedLexicon(junk).lookup("english", "go", bundle("V"))


def test_a_user_lexicon_comes_first_and_the_shipped_forms_follow(tmp_path, conll2018):
    attested = read_pairs(conll2018 / "english-train-high")
    lemma, key = sorted(attested)[0]
    other = sorted(attested)[1]
    tags = ";".join(key)
    user = write(tmp_path / "english.tsv", [f"{lemma}\tmyform\t{tags}"])
    lexicons = load_lexicons([user], dictionaries=False, unimorph=False)
    found = lexicons.lookup("english", lemma, bundle(tags))
    assert [a.form for a in found] == ["myform", *attested[(lemma, key)]]
    assert found[0].source == f"{user}:1"
    assert all(a.source.startswith("shared-task data (english-") for a in found[1:])
    assert lexicons.answered == {str(user): 1}
    found = lexicons.lookup("english", other[0], bundle(";".join(other[1])))
    assert [a.form for a in found] == attested[other]
    assert all(a.source.startswith("shared-task data (english-") for a in found)
    assert not Lexicons([])


# --- the shipped store against the data ---------------------------------------------------------


def read_pairs(path: Path) -> dict[tuple[str, tuple[str, ...]], list[str]]:
    """``(lemma, sorted features) -> forms`` of a shared-task file, read with plain Python."""
    pairs: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        lemma, form, tags = line.split("\t")
        key = (lemma, tuple(sorted(f.strip() for f in tags.split(";"))))
        found = pairs.setdefault(key, [])
        if form not in found:
            found.append(form)
    return pairs


def language_files(conll2018: Path) -> dict[str, list[Path]]:
    files: dict[str, list[Path]] = {}
    for split in SPLITS:
        for path in sorted(conll2018.glob(f"*-{split}")):
            files.setdefault(path.name[: -len(split) - 1], []).append(path)
    return files


def test_the_shipped_store_holds_every_pair_of_the_data(conll2018):
    """Every language's store holds as many pairs as its four files have distinct (lemma, form,
    tags) lines, and a sample of each file's lines is found with its line number."""
    store = ShippedLexicon()
    files = language_files(conll2018)
    assert store.languages() == set(files)
    rng = random.Random(36)
    for language, paths in files.items():
        distinct = set()
        for path in paths:
            lines = [x for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]
            distinct.update(lines)
            for number in rng.sample(range(len(lines)), min(3, len(lines))):
                lemma, form, tags = lines[number].split("\t")
                found = store.lookup(language, lemma, bundle(tags))
                assert form in [a.form for a in found], (path, number + 1)
        assert store.pairs(language) == len(distinct), language
    assert SHIPPED_STORE.stat().st_size < 10e6


@pytest.mark.slow
def test_the_first_form_is_the_attested_one_on_a_sample_of_every_language(conll2018, one_thread):
    """For a sample of the train and dev pairs of every language, the shipped default model with
    the shipped lexicon answers the attested form first (the first of the data's forms of that
    input), the model's forms after it."""
    from inflect.inference.predictor import Predictor
    from inflect.inference.queries import make_query
    from inflect.inference.registry import default_model

    rng = random.Random(2018)
    by_model: dict[tuple[str, ...], list[tuple[str, str, str, list[str]]]] = {}
    for language, paths in language_files(conll2018).items():
        attested: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for path in paths:  # the data's order of precedence: train-high first, dev last
            for key, forms in read_pairs(path).items():
                known = attested.setdefault(key, [])
                known += [f for f in forms if f not in known]
        for path in paths:
            lines = [x for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]
            for line in rng.sample(lines, 1):
                lemma, _, tags = line.split("\t")
                key = (lemma, tuple(sorted(f.strip() for f in tags.split(";"))))
                members = tuple(str(m) for m in default_model(language).members)
                by_model.setdefault(members, []).append((language, lemma, tags, attested[key]))
    lexicons = load_lexicons(dictionaries=False, unimorph=False)
    checked = 0
    for members, queries in by_model.items():
        predictor = Predictor.from_checkpoints(
            members, beam_size=1, support="never", lexicons=lexicons
        )
        good = []
        for language, lemma, tags, forms in queries:
            try:
                good.append((predictor.prepare(make_query(lemma, tags, language)), forms))
            except ValueError:  # a feature the model does not know: not an answer to check
                continue
        for (_, forms), record in zip(good, predictor.run([g for g, _ in good]), strict=True):
            assert [f.form for f in record.attested] == forms, record
            assert record.best.form == forms[0]
            assert record.best.source.startswith(f"shared-task data ({record.language}-")
            assert record.model_forms and all(f.source is None for f in record.model_forms)
            checked += 1
    assert checked > 0.9 * sum(len(q) for q in by_model.values())


# --- the command line ---------------------------------------------------------------------------


def english_past(conll2018: Path, lemma: str) -> str:
    for line in (conll2018 / "english-train-high").read_text(encoding="utf-8").split("\n"):
        parts = line.split("\t")
        if parts[0] == lemma and parts[-1] == "V;PST":
            return parts[1]
    raise AssertionError(f"no {lemma} V;PST in english-train-high")


def test_predict_answers_the_attested_form_first_and_no_lexicon_the_model_alone(
    conll2018, tmp_path, monkeypatch
):
    got = english_past(conll2018, "get")
    runner = CliRunner()
    args = ["predict", "--lang", "english", "get", "V;PST", "--format", "tsv"]
    out = runner.invoke(main, args)
    assert out.exit_code == 0, out.output
    header, *rows = [line.split("\t") for line in out.output.splitlines()]
    assert header[8:] == ["source", "asked"]
    assert rows[0][5:7] == ["1", got]
    # the shared-task data attest it (a field dictionary installed may attest it too, first)
    assert "shared-task data (english-train-high:" in rows[0][8]
    model = [r for r in rows[1:] if r[8] == "model"]
    assert model and all(r[8] == "model" for r in model)

    alone = runner.invoke(main, [*args, "--no-lexicon"])
    assert alone.exit_code == 0, alone.output
    alone_rows = [line.split("\t") for line in alone.output.splitlines()[1:]]
    assert [r[6:8] for r in alone_rows] == [r[6:8] for r in model]  # the same distribution
    assert all(r[8] == "model" for r in alone_rows)

    user = write(tmp_path / "english.tsv", ["get\tgat\tPST;V"])
    monkeypatch.setenv("INFLECT_LEXICON", str(user))
    mine = runner.invoke(
        main, ["predict", "--lang", "english", "get", "V;PST", "--format", "jsonl"]
    )
    assert mine.exit_code == 0, mine.output
    record = json.loads(mine.output)
    # an attested form carries the model's probability of the same text (0.0 when unlisted)
    model_p = {r[6]: float(r[7]) for r in alone_rows}
    assert record["forms"][0] == {
        "form": "gat",
        "probability": pytest.approx(model_p.get("gat", 0.0)),
        "source": f"{user}:1",
        "attested": True,
    }
    attested = [f["form"] for f in record["forms"] if f["attested"]]
    assert attested == ["gat", got]  # the user's form first, the others' after it
    best = runner.invoke(main, ["predict", "--lang", "english", "get", "V;PST", "--format", "2018"])
    assert best.output == "get\tgat\tV;PST\n"
    model = runner.invoke(main, [*args, "--no-lexicon"])  # overrides INFLECT_LEXICON
    assert model.exit_code == 0, model.output
    assert model.output == alone.output


def test_predict_refuses_a_malformed_lexicon_naming_file_and_line(tmp_path):
    bad = write(tmp_path / "english.tsv", ["go\twent\tV;PST", "go\tV;PST\twent\textra"])
    out = CliRunner().invoke(
        main, ["predict", "--lang", "english", "go", "V;PST", "--lexicon", str(bad)]
    )
    assert out.exit_code == 1
    assert f"{bad}:2:" in out.output
    both = CliRunner().invoke(
        main, ["predict", "--lang", "english", "go", "V;PST", "--lexicon", str(bad), "--no-lexicon"]
    )
    assert both.exit_code == 2 and "--no-lexicon" in both.output


# --- evaluation stays honest --------------------------------------------------------------------

GERMAN_GOLD = ["Katze\tKatzen\tN;NOM;PL", "Wort\tWortes\tN;GEN;SG", "Haus\tHäusern\tN;DAT;PL"]


def test_evaluate_scores_the_model_alone_unless_a_lexicon_is_given(tmp_path, one_thread):
    from inflect.evaluation.runner import evaluate_checkpoints
    from inflect.inference.registry import default_model

    gold = write(tmp_path / "german-dev", GERMAN_GOLD)
    runner = CliRunner()
    alone = runner.invoke(
        main, ["evaluate", "--gold", str(gold), "--lang", "german", "--format", "tsv"]
    )
    assert alone.exit_code == 0, alone.output
    assert "scored: the model alone" in alone.output

    refused = runner.invoke(
        main, ["evaluate", "--gold", str(gold), "--lang", "german", "--lexicon", str(gold)]
    )
    assert refused.exit_code == 1
    assert "attests the gold form of 3 of the 3 german gold inputs" in refused.output

    wrong = write(tmp_path / "german.tsv", ["Haus\tHausx\tN;DAT;PL"])
    members = default_model("german").members
    result = evaluate_checkpoints(
        members, ["german"], gold_files=[gold],
        lexicons=load_lexicons([wrong], shipped=False, dictionaries=False, unimorph=False),
    )
    assert result.attested == {"german": (1, 0)}
    assert result.lexicon == str(wrong)
    best = [s.prediction.best.form for s in result.searched]
    assert best[2] == "Hausx"
    right = sum(b == line.split("\t")[1] for b, line in zip(best, GERMAN_GOLD, strict=True))
    assert result.frame["accuracy"][0] == pytest.approx(100 * right / 3)
    assert right <= 2


def test_evaluate_refuses_the_shipped_lexicon_on_the_dev_set_it_holds(conll2018):
    out = CliRunner().invoke(
        main,
        [
            "evaluate",
            "--lang",
            "english",
            "--split",
            "dev",
            "--data-dir",
            str(conll2018),
            "--lexicon",
            "shipped",
        ],
    )
    assert out.exit_code == 1, out.output
    dev = [x for x in (conll2018 / "english-dev").read_text(encoding="utf-8").split("\n") if x]
    assert f"of the {len(dev):,} english gold inputs" in out.output


# --- renderers: the mark ------------------------------------------------------------------------


def attested_record():
    from inflect.decoding.protocol import Certificate
    from inflect.inference.predictor import Form, Prediction

    forms = (
        Form("dreamt", 0.25, "english.tsv:4"),  # attested, also the model's
        Form("dreamnt", 0.0, "english.tsv:5"),  # attested, not the model's
        Form("dreamed", 0.75),
        Form("dreamt", 0.25),
    )
    return Prediction(
        "dream",
        "V;PST",
        "english",
        forms=forms,
        certificate=Certificate.FULL_SUPPORT,
        more_than=None,
        beam_certificate=Certificate.FULL_SUPPORT,
        method="beam",
    )


def test_the_records_tell_attested_and_model_forms_apart():
    from inflect.render.jsonl import prediction_jsonl
    from inflect.render.tsv import prediction_2018, prediction_tsv

    rec = attested_record()
    assert [f.form for f in rec.attested] == ["dreamt", "dreamnt"]
    assert [f.form for f in rec.model_forms] == ["dreamed", "dreamt"]
    assert rec.best.form == "dreamt" and rec.model_best.form == "dreamed"
    assert rec.mass == pytest.approx(1.0)  # the model's distribution only
    rows = [line.split("\t") for line in prediction_tsv(rec).split("\n")]
    assert [(r[4], r[5], r[6], r[8]) for r in rows] == [
        ("2", "1", "dreamt", "english.tsv:4"),
        ("2", "2", "dreamnt", "english.tsv:5"),
        ("2", "3", "dreamed", "model"),
        ("2", "4", "dreamt", "model"),
    ]
    forms = json.loads(prediction_jsonl(rec))["forms"]
    assert [(f["source"], f["attested"]) for f in forms] == [
        ("english.tsv:4", True),
        ("english.tsv:5", True),
        ("model", False),
        ("model", False),
    ]
    assert prediction_2018(rec) == "dream\tdreamt\tV;PST"


def test_the_table_and_the_ambiguity_reports_show_the_mark():
    import lxml.html
    from rich.console import Console

    from inflect.evaluation.ambiguity import ambiguity_report
    from inflect.render.markdown import ambiguity_markdown
    from inflect.render.report_html import ambiguity_html
    from inflect.render.tables import prediction_table

    rec = attested_record()
    console = Console(width=120, record=True)
    console.print(prediction_table(rec))
    text = console.export_text()
    assert "attested" in text and "english.tsv:4" in text and "the model's forms:" in text
    report = ambiguity_report([rec])
    item = report.groups[0].inputs[0]
    assert item.attested == (("dreamt", "english.tsv:4"), ("dreamnt", "english.tsv:5"))
    assert [f for f, _ in item.forms] == ["dreamed", "dreamt"]  # the model's forms
    page = lxml.html.fromstring(ambiguity_html(report))
    marks = page.xpath('//span[@class="attmark"]')
    assert [m.get("title") for m in marks] == ["english.tsv:4"]
    assert marks[0].getparent().text == "dreamt"
    extra = page.xpath('//p[@class="attested"]')
    assert len(extra) == 1 and "dreamnt" in extra[0].text_content()
    assert "attested: dreamt (english.tsv:4), dreamnt (english.tsv:5)" in ambiguity_markdown(report)
