"""The shipped default model: `evaluate` and `report ambiguity` use it when --model is absent, and
the figures the README and the registry state about it are what it does.

Expected values are independent of the code under test: gold forms read with plain Python, exact
matches and certificates counted here, the figures as the README writes them.
"""

from __future__ import annotations

import json
import tomllib
import warnings
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from registry_rule import chosen

from inflect.cli import main

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
SHIPPED = REPO / "inflect" / "models"
GERMAN = "german-high"  # German's own model, the default for German (best on its dev)
MEMBERS = [str(SHIPPED / GERMAN / "member-1.safetensors")]  # one member: German's own model

GOLD = "Katze\tKatzen\tN;NOM;PL\nWort\tWortes\tN;GEN;SG\nHaus\tHäusern\tN;DAT;PL\n"


def readme_text() -> str:
    """The README with whitespace runs (line breaks included) collapsed to one space."""
    return " ".join(README.read_text(encoding="utf-8").split())


def _predicted_best(gold_path, models):
    args = ["predict", "--lang", "german", "--input", str(gold_path), "--format", "jsonl",
            "--no-lexicon"]  # the model's answers, as evaluate scores them
    for m in models:
        args += ["--model", m]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    return [json.loads(line)["forms"][0]["form"] for line in out.output.splitlines()]


def test_evaluate_defaults_to_the_shipped_model(tmp_path):
    gold = tmp_path / "german-gold"
    gold.write_text(GOLD, encoding="utf-8")
    frames = {}
    for name, models in (("default", []), ("explicit", MEMBERS)):
        args = ["evaluate", "--lang", "german", "--gold", str(gold), "--out", str(tmp_path / name)]
        for m in models:
            args += ["--model", m]
        out = CliRunner().invoke(main, args)
        assert out.exit_code == 0, out.output
        frames[name] = pd.read_csv(tmp_path / f"{name}.csv")
    row = frames["default"].iloc[0]
    assert row["language"] == "german" and row["n"] == 3 and row["members"] == len(MEMBERS)
    # the default is the shipped model named explicitly
    pd.testing.assert_frame_equal(frames["default"], frames["explicit"])
    # the accuracy recounted here from the explicitly named model's predictions
    best = _predicted_best(gold, MEMBERS)
    golds = [line.split("\t")[1] for line in GOLD.splitlines()]
    expected = 100.0 * sum(b == g for b, g in zip(best, golds, strict=True)) / len(golds)
    assert row["accuracy"] == pytest.approx(expected, abs=1e-9)
    # the README: "Haus N;DAT;PL gives Hausen 0.59 before Häusern 0.19" (a wrong best form)
    assert best[2] == "Hausen" and expected <= 100.0 * 2 / 3


def test_readme_haus_example_is_what_the_shipped_model_says():
    out = CliRunner().invoke(  # the model alone (a dictionary installed attests Häusern)
        main, ["predict", "--lang", "german", "Haus", "N;DAT;PL", "--format", "jsonl",
               "--no-lexicon"]
    )
    assert out.exit_code == 0, out.output
    forms = {f["form"]: f["probability"] for f in json.loads(out.output)["forms"]}
    assert next(iter(forms)) == "Hausen"
    claim = f"`Haus N;DAT;PL --no-lexicon` gives `Hausen` {forms['Hausen']:.2f} before `Häusern` "
    claim += f"{forms['Häusern']:.2f}"
    assert claim in readme_text()
    assert claim.endswith("0.59 before `Häusern` 0.19")  # the figures as written in the README


def test_an_answer_names_the_shipped_model_that_gave_it():
    import tomllib

    registry = tomllib.loads((SHIPPED / "registry.toml").read_text(encoding="utf-8"))
    expected = chosen(registry, "german")  # the default: the most accurate on German dev
    out = CliRunner().invoke(
        main, ["predict", "--lang", "german", "Haus", "N;DAT;PL", "--format", "jsonl"]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["model"] == expected
    out = CliRunner().invoke(main, ["predict", "--lang", "german", "Haus", "N;DAT;PL",
                                    "--format", "table"], env={"COLUMNS": "100"})
    assert f"model: {expected} (inflect models)" in out.output
    # checkpoints given by path are no shipped model: no name
    member = SHIPPED / registry["model"][expected]["members"][0]
    out = CliRunner().invoke(
        main, ["predict", "--model", str(member), "Haus", "N;DAT;PL", "--format", "jsonl"]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["model"] is None


def test_report_ambiguity_defaults_to_the_shipped_model(tmp_path):
    gold = tmp_path / "german-gold"
    gold.write_text(GOLD, encoding="utf-8")
    out_file = tmp_path / "amb.md"
    out = CliRunner().invoke(
        main,
        ["report", "ambiguity", "--lang", "german", "--gold", str(gold), "--out", str(out_file)],
    )
    assert out.exit_code == 0, out.output
    text = out_file.read_text(encoding="utf-8")
    assert "- inputs: 3" in text
    # Wort and Haus have several nonzero-probability forms (README: Wortes and Worts for Wort)
    assert "| Wort | " in text and "| Haus | " in text


def test_no_model_and_no_shipped_model_is_a_clear_error(tmp_path):
    gold = tmp_path / "finnish-gold"
    gold.write_text("talo\ttalossa\tN;IN+ESS;SG\n", encoding="utf-8")
    (tmp_path / "no-models").mkdir()
    (tmp_path / "no-models" / "registry.toml").write_text("version = 2\n", encoding="utf-8")
    out = CliRunner().invoke(
        main,
        ["evaluate", "--lang", "finnish", "--gold", str(gold)],
        env={"INFLECT_MODELS_DIR": str(tmp_path / "no-models")},
    )
    assert out.exit_code != 0
    assert "no shipped default model for finnish" in out.output


def test_shipped_members_load_as_typed_models():
    from inflect.inference.registry import default_model
    from inflect.nn.checkpoint import checkpoint_members, load_checkpoint, load_model

    members = default_model("german").members
    assert len(members) == 1
    for path in members:
        loaded = load_checkpoint(path)
        assert list(loaded.languages) == ["german"] and loaded.codec is None
        assert not loaded.is_translation and loaded.path == path
        # written by the split config: the network's fields, and the run's beside them
        assert loaded.network.config.tag_bundles == "multiset"
        assert loaded.network.config.copy_bias is False
        assert loaded.metadata["model"]["config"]["preset"] == "cpu-small-plain"
        assert loaded.metadata["format"] == "sparse-inflect/1"
        assert load_model(path).config == loaded.network.config
    # the folder holding the member files is an ensemble for every --model option
    assert checkpoint_members([members[0].parent]) == sorted(members)


# ---------------------------------------------------------------------- the README's figures

#: As the README and inflect/models/registry.toml state them (german-dev, 1,000 inputs).
README_GERMAN = {
    "accuracy": "90.2",  # % exact match, beam 5 widened where not certified (the default)
    "full_support": "93.6",  # % of inputs certified full support
    "mode_only": "6.4",  # % certified mode only
    "one_form": "61.9",  # % with all probability on one form
    "mean_forms": "3.42",  # nonzero-probability forms per input
}
README_GREEDY = ("90.2",)  # each member alone, greedy (training's selection)


def _gold_rows(folder: Path) -> list[tuple[str, str, str]]:
    """german-dev read with plain Python: (lemma, form, tags) per line."""
    rows = []
    for line in (folder / "german-dev").read_text(encoding="utf-8").splitlines():
        lemma, form, tags = line.split("\t")
        rows.append((lemma, form, tags))
    return rows


def _exact_match(records, rows) -> float:
    hits = sum(
        r.best is not None and r.best.form == form
        for r, (_, form, _) in zip(records, rows, strict=True)
    )
    return 100.0 * hits / len(rows)


@pytest.mark.slow
@pytest.mark.shared_data
def test_readme_figures_of_the_shipped_german_model_on_german_dev(conll2018, one_thread):
    from inflect.inference.predictor import Predictor
    from inflect.inference.queries import make_query
    from inflect.nn.vocab import UnknownSymbolWarning

    rows = _gold_rows(conll2018)
    assert len(rows) == 1000
    queries = [make_query(lemma, tags, "german") for lemma, _, tags in rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownSymbolWarning)  # dev letters unseen in training
        records = Predictor.from_checkpoints(MEMBERS).predict_many(queries)  # the defaults
        greedy = [
            _exact_match(
                Predictor.from_checkpoints([m], beam_size=1, support="never").predict_many(queries),
                rows,
            )
            for m in MEMBERS
        ]
    n = len(rows)
    certificates = [r.certificate.value for r in records]
    nonzero = [[f.probability for f in r.forms if f.probability > 0] for r in records]
    measured = {
        "accuracy": f"{_exact_match(records, rows):.1f}",
        "full_support": f"{100 * certificates.count('full_support') / n:.1f}",
        "mode_only": f"{100 * certificates.count('mode_only') / n:.1f}",
        "one_form": f"{100 * sum(len(p) == 1 and p[0] >= 1 - 1e-6 for p in nonzero) / n:.1f}",
        "mean_forms": f"{sum(len(p) for p in nonzero) / n:.2f}",
    }
    assert measured == README_GERMAN
    assert tuple(f"{a:.1f}" for a in greedy) == README_GREEDY
    # the README and the registry say exactly these figures
    text = readme_text()
    e = README_GERMAN
    assert f"**{e['accuracy']}% exact match on german-dev**" in text
    assert f"{README_GREEDY[0]} greedy" in text
    assert (
        f"{e['full_support']}% of inputs certified full support, {e['mode_only']}% mode only, "
        f"{e['one_form']}% with all probability on one form, {e['mean_forms']} "
        "nonzero-probability forms on average"
    ) in text
    registry = tomllib.loads((SHIPPED / "registry.toml").read_text(encoding="utf-8"))
    assert f"{registry['language']['german'][GERMAN]:.1f}" == e["accuracy"]
    assert [str(SHIPPED / m) for m in registry["model"][GERMAN]["members"]] == MEMBERS


# ----------------------------------------------------------------- every language answers


def _first_dev_line(folder: Path, language: str) -> tuple[str, str, str]:
    first = (folder / f"{language}-dev").read_text(encoding="utf-8").split("\n")[0]
    lemma, form, tags = first.split("\t")
    return lemma, form, tags


def test_every_language_resolves_to_its_most_accurate_shipped_model():
    """The registry covers langs/; a language's default is the model with the highest dev
    accuracy in its [language.NAME] table (read here with tomllib), of any setting, among each
    setting's choice (the best pooled figure of [heldout.NAME] where it lists them all, else the
    best dev figure: registry_rule.py); `--setting medium` picks the medium model wherever there
    is one, `--setting high` fails where there is no high one (Telugu: its low data are in the
    medium model)."""
    from inflect.inference.registry import NoDefaultModelError, default_model
    from inflect.text.languages import all_languages

    registry = tomllib.loads((SHIPPED / "registry.toml").read_text(encoding="utf-8"))
    specs = all_languages()
    assert len(specs) == 103
    for spec in specs:
        table = registry["language"][spec.name]
        best = chosen(registry, spec.name)
        model = default_model(spec.name)
        assert model.members and not model.missing, spec.name
        assert model.name == best, (spec.name, model.name, table)
        assert model.dev_accuracy == pytest.approx(table[best])
        settings = {registry["model"][name]["setting"] for name in table}
        assert settings == ({"high", "medium"} if "high" in spec.settings else {"medium"})
        medium = default_model(spec.name, setting="medium")
        assert medium.setting == "medium", (spec.name, medium.name)
        assert medium.name == chosen(registry, spec.name, "medium")
        if "high" in spec.settings:
            assert default_model(spec.name, setting="high").setting == "high"
        else:
            with pytest.raises(NoDefaultModelError, match="no shipped high-setting model"):
                default_model(spec.name, setting="high")


@pytest.mark.slow
@pytest.mark.shared_data
def test_every_language_answers_with_its_default_model(conll2018, one_thread):
    """`inflect predict --lang L LEMMA TAGS` answers for each of the 103 languages: the first
    dev input of each gets a distribution whose probabilities sum to at most 1."""
    from inflect.inference.predictor import Predictor
    from inflect.inference.queries import make_query
    from inflect.inference.registry import default_model
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.text.languages import all_languages

    predictors: dict[tuple[Path, ...], Predictor] = {}
    for spec in all_languages():
        model = default_model(spec.name)
        if model.members not in predictors:
            predictors[model.members] = Predictor.from_checkpoints(list(model.members))
        lemma, _, tags = _first_dev_line(conll2018, spec.name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnknownSymbolWarning)
            (record,) = predictors[model.members].predict_many([make_query(lemma, tags, spec.name)])
        assert record.forms, spec.name
        total = sum(f.probability for f in record.forms)
        assert 0.0 < total <= 1.0 + 1e-5, (spec.name, total)


def test_setting_option_chooses_the_medium_model_on_the_command_line():
    out = CliRunner().invoke(main, ["models", "--all"])
    assert out.exit_code == 0, out.output
    registry = tomllib.loads((SHIPPED / "registry.toml").read_text(encoding="utf-8"))
    # Finnish's medium model: the most accurate model of the medium setting on Finnish dev
    medium = [chosen(registry, "finnish", "medium")]
    assert medium[0] in out.output
    a = CliRunner().invoke(
        main, ["predict", "--lang", "finnish", "talo", "N;IN+ESS;SG", "--setting", "medium",
               "--format", "jsonl"]
    )
    assert a.exit_code == 0, a.output
    explicit = []
    for member in registry["model"][medium[0]]["members"]:
        explicit += ["--model", str(SHIPPED / member)]
    b = CliRunner().invoke(
        main, ["predict", "--lang", "finnish", "talo", "N;IN+ESS;SG", "--format", "jsonl", *explicit]
    )
    assert b.exit_code == 0, b.output
    assert json.loads(a.output)["forms"] == json.loads(b.output)["forms"]
    # --setting with --model (or --pred) would be ignored: refused before any work, every command
    for command in (
        ["predict", "--lang", "finnish", "talo", "N;IN+ESS;SG", *explicit],
        ["explain", "--lang", "finnish", "talo", "N;IN+ESS;SG", *explicit],
        ["evaluate", "--lang", "finnish", *explicit],
        ["evaluate", "--pred", str(SHIPPED / "registry.toml"), "--gold", str(README)],
        ["report", "ambiguity", "--lang", "finnish", *explicit],
    ):
        c = CliRunner().invoke(main, [*command, "--setting", "high"])
        assert c.exit_code == 2, (command, c.output)
        assert "--setting chooses among the shipped models; with --" in c.output, command


def test_report_ambiguity_says_which_inputs_the_model_rejected(tmp_path):
    # a fourth line the German model cannot take (a lemma over its 100-symbol input limit):
    # before, it vanished
    gold = tmp_path / "german-gold"
    long = "Haus" * 26  # 104 symbols
    gold.write_text(GOLD + f"{long}\t{long}en\tN;DAT;PL\n", encoding="utf-8")
    out_file = tmp_path / "amb.md"
    out = CliRunner().invoke(
        main,
        ["report", "ambiguity", "--lang", "german", "--gold", str(gold), "--out", str(out_file)],
    )
    assert out.exit_code == 0, out.output
    assert f"rejected (not in the report): {gold}:4: lemma of 104 symbols is longer than the " \
        "model's limit of 100 symbols" in " ".join(out.output.split())
    assert "- inputs: 3 (and 1 rejected: the model cannot take them)" in out_file.read_text(
        encoding="utf-8"
    )


def test_evaluate_says_the_language_comes_from_the_gold_file_name(tmp_path):
    gold = tmp_path / "my-data.tsv"
    gold.write_text(GOLD, encoding="utf-8")
    out = CliRunner().invoke(main, ["evaluate", "--lang", "german", "--gold", str(gold)])
    assert out.exit_code == 0, out.output  # --lang given: the name does not matter
    # a model of one language: a file whose name gives none is of the model's language
    model = str(REPO / "inflect" / "models" / "german-high")
    out = CliRunner().invoke(main, ["evaluate", "--model", model, "--gold", str(gold),
                                    "--format", "tsv"])
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[1].startswith("german\t")
    # a multilingual model: the file's name must give the language, or --lang
    model = str(REPO / "inflect" / "models" / "multilingual-medium")
    out = CliRunner().invoke(main, ["evaluate", "--model", model, "--gold", str(gold)])
    assert out.exit_code == 1
    message = " ".join(out.output.split())
    assert f"{gold}: its language is taken from the file name, and unknown language 'my-data'" in (
        message
    )
    assert "give the language with --lang" in message


def test_explain_warns_of_symbols_unseen_in_training_as_predict_does():
    warned = []
    for command in ("predict", "explain"):
        out = CliRunner().invoke(
            main, [command, "--lang", "german", "Haus😀", "N;DAT;PL", "--format", "tsv"]
        )
        assert out.exit_code == 0, out.output
        warned.append([line for line in out.stderr.splitlines() if line.startswith("warning:")])
    assert warned[0] == warned[1] == [
        "warning: symbol '😀' (U+1F600) of lemma 'Haus😀' was not seen in training; the model "
        "reads it as the unknown symbol"
    ]


def test_a_long_unknown_feature_is_cut_in_the_message():
    tags = "N;DAT;PL;" + "X" * 20_000
    # answered, with the unknown feature read as the unknown feature: the warning is cut
    out = CliRunner().invoke(main, ["predict", "--lang", "german", "Haus", tags, "--format", "tsv"])
    assert out.exit_code == 0, out.stderr[:500]
    bundle, feature = out.stderr.splitlines()
    # the bundle is not one of the language's (named cut), and its feature is unknown (cut)
    assert bundle.startswith(f"warning: tag bundle '{tags[:80]}") and "did you mean" in bundle
    assert feature.startswith(f"warning: UniMorph feature {'X' * 40!r}… (20,000 characters")
    assert len(out.stderr) < 1_500
    # --strict refuses it: the error is cut as well
    out = CliRunner().invoke(main, ["predict", "--lang", "german", "Haus", tags, "--strict"])
    assert out.exit_code == 1
    # (the bundle is refused first: the language never uses it)
    assert f"tag bundle {tags[:120]!r}… (20,009 characters in all)" in out.output
    assert "--strict refuses it" in out.output
    assert len(out.output) < 1_000  # before: the feature and the bundle whole, 40,000 characters
