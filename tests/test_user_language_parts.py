"""The parts of "Your own language" (README): a spec made from data (checked by hand and against
the shipped specs, measured independently from the same data), the user's folder of languages,
training on files as on the shared task's data (the same weights), resume checks, `inflect runs
compare`, and the attention figure's fonts."""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner
from made_up import write_language

from inflect.cli import main
from inflect.corpora.user_langs import (
    NFD_EVIDENCE,
    add_user_spec,
    derive_spec,
    remove_user_spec,
    spec_toml,
)
from inflect.text import languages
from inflect.text.languages import LanguageSpecError, load_spec, resolve

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


@pytest.fixture
def own_folder(tmp_path, monkeypatch):
    """An empty folder of the user's languages."""
    folder = tmp_path / "langs"
    monkeypatch.setenv(languages.LANGS_ENV, str(folder))
    languages._REMEMBERED.clear()  # no checkpoint's language of an earlier test
    yield folder
    languages._REMEMBERED.clear()


# --- the spec made from data --------------------------------------------------------------------


def test_scripts_direction_and_shares_by_hand():
    # 6 Ethiopic letters, 1 Latin (14 %: listed); Arabic: right to left
    made = derive_spec("Made Up", ["ሰበረ", "ለመነ", "x"])
    assert made.spec.name == "made-up" and made.spec.display_name == "Made Up"
    assert made.spec.scripts == ("Ethi", "Latn") and made.spec.direction == "ltr"
    assert made.scripts == {"Ethi": 6, "Latn": 1}
    assert derive_spec("arx", ["كتب", "يكتب"]).spec.direction == "rtl"
    # 1 Latin letter of 101 (under 1 %): not listed; digits and spaces belong to no script
    few = derive_spec("few", ["ሰ" * 100 + " 12", "x"])
    assert few.spec.scripts == ("Ethi",) and few.scripts == {"Ethi": 100, "Latn": 1}


def test_normalisation_and_its_exceptions_by_hand():
    nfc = derive_spec("nfcx", ["é", "e"]).spec
    assert (nfc.normalization, nfc.exceptions) == ("NFC", ())
    # decomposed data (NFD) writing ç precomposed, and never decomposed: an exception
    nfd_data = [unicodedata.normalize("NFD", "rô"), "ça", unicodedata.normalize("NFD", "tê")]
    spec = derive_spec("nfdx", nfd_data).spec
    assert (spec.normalization, spec.exceptions) == ("NFD", ("ç",))
    for s in nfd_data:
        assert spec.from_symbols(spec.to_symbols(s)) == s
        assert spec.normalize_input(unicodedata.normalize("NFC", s)) == s


@pytest.mark.parametrize("alone", [NFD_EVIDENCE - 1, NFD_EVIDENCE])
def test_model_symbols_are_decomposed_from_the_evidence_on(alone):
    # ą́: NFC keeps the acute alone (no precomposed letter has both); á has it inside
    strings = [unicodedata.normalize("NFC", "ą́")] * alone + ["á"] * NFD_EVIDENCE
    spec = derive_spec("marks", strings).spec
    assert spec.model_transform == ("nfd" if alone >= NFD_EVIDENCE else "none")
    for s in set(strings):
        assert spec.from_symbols(spec.to_symbols(s)) == s


def test_the_toml_reads_back_as_the_spec(tmp_path):
    made = derive_spec(
        "amharic", ["ሰበረ", "ሰበርኩ"], display_name="አማርኛ", iso639_3="amh", aliases=("Amarinya",)
    )
    path = tmp_path / "amharic.toml"
    path.write_text(spec_toml(made.spec, made.notes), encoding="utf-8")
    assert load_spec(path) == made.spec
    assert "# Scripts: Ethiopic 100.00 %" in path.read_text(encoding="utf-8")


def test_a_new_name_must_be_ascii_words():
    with pytest.raises(LanguageSpecError, match=r"ASCII letters.*display name"):
        derive_spec("አማርኛ", ["ሰበረ"])


#: Languages whose specs have each kind of field: a second script (Glagolitic 1.9 %; Cyrillic
#: 1.1 %), NFD data with an exception (Khaling), NFD model symbols (Middle Low German: 110 and
#: 400 circumflexes), right to left (Arabic), stray Latin letters under 1 % (Adyghe).
SHIPPED = ("old-church-slavonic", "romanian", "khaling", "middle-low-german", "arabic", "adyghe")


@pytest.mark.shared_data
@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_specs_text_fields_come_out_of_their_data(conll2018, name):
    """The shipped specs were measured from the shared-task data (their comments say how);
    made from the same files by the rules of a new language, they come out the same."""
    from inflect.text.reading import read_examples

    words = [
        w
        for path in sorted(conll2018.glob(f"{name}-*"))
        for ex in read_examples(path, name)
        for w in (ex.lemma, ex.form)
        if w
    ]
    made, shipped = derive_spec(name + "-again", words).spec, resolve(name)
    for field in ("scripts", "direction", "normalization", "exceptions", "model_transform"):
        assert getattr(made, field) == getattr(shipped, field), field


# --- the user's folder ----------------------------------------------------------------------------


def test_the_user_folder_is_read_beside_the_shipped_specs(own_folder):
    with pytest.raises(languages.UnknownLanguageError):
        resolve("zorbish")
    spec = derive_spec("zorbish", ["ሰበረ"], aliases=("zrb-lang",)).spec
    path = add_user_spec(spec)
    assert path == own_folder / "zorbish.toml"
    assert resolve("ZORBISH") == spec and resolve("zrb lang") == spec
    assert languages.user_languages() == [spec]
    assert "zorbish" not in {s.name for s in languages.all_languages()}
    with pytest.raises(LanguageSpecError, match=r"already one of your languages.*--force"):
        add_user_spec(spec)
    remove_user_spec("zorbish")
    with pytest.raises(languages.UnknownLanguageError):
        resolve("zorbish")


def test_a_shipped_name_or_alias_is_refused(own_folder):
    with pytest.raises(LanguageSpecError, match="german is a language the package ships"):
        add_user_spec(derive_spec("german", ["Haus"]).spec)
    with pytest.raises(LanguageSpecError, match="'Deutsch' of zorb is already german's"):
        add_user_spec(derive_spec("zorb", ["x"], aliases=("Deutsch",)).spec)
    assert not own_folder.exists() or not list(own_folder.iterdir())


def test_a_broken_file_in_the_folder_is_named(own_folder):
    own_folder.mkdir()
    (own_folder / "broken.toml").write_text('name = "broken"\n', encoding="utf-8")
    with pytest.raises(LanguageSpecError, match=r"broken\.toml.*missing field"):
        resolve("german")


def test_lang_add_from_data_files_with_corrections(own_folder, tmp_path):
    files = write_language(tmp_path)
    result = CliRunner().invoke(
        main,
        [
            "lang",
            "add",
            "amharic",
            "--from",
            str(files["trn"]),
            "--from",
            str(files["dev"]),
            "--direction",
            "rtl",
            "--iso639-3",
            "amh",
        ],
    )
    assert result.exit_code == 0, result.output
    spec = resolve("amh")
    assert (spec.name, spec.scripts, spec.direction) == ("amharic", ("Ethi",), "rtl")
    text = (own_folder / "amharic.toml").read_text(encoding="utf-8")
    assert "Made from amh.trn, amh.dev." in text
    shown = CliRunner().invoke(main, ["lang", "show", "amharic"])
    assert load_spec_text(shown.stdout, tmp_path) == spec


def load_spec_text(text: str, folder: Path):
    path = folder / "shown" / "amharic.toml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return load_spec(path)


# --- training on files ----------------------------------------------------------------------------


def _weights(path):
    from safetensors.torch import load_file

    return load_file(str(path))


@pytest.mark.shared_data
@pytest.mark.slow
def test_files_of_a_shipped_language_under_a_new_name_train_the_same_model(
    conll2018, tmp_path, own_folder
):
    """German's low-setting files passed as a user's, under a new name, give the weights and
    the figures of `--lang german --setting low` (the spec made from them is German's)."""
    common = ["--preset", "tiny", "--epochs", "1", "--seed", "3"]
    shared = CliRunner().invoke(
        main,
        [
            "train",
            "--lang",
            "german",
            "--setting",
            "low",
            "--data-dir",
            str(conll2018),
            *common,
            "--out",
            str(tmp_path / "a"),
        ],
    )
    assert shared.exit_code == 0, shared.output
    files = CliRunner().invoke(
        main,
        [
            "train",
            "--train",
            str(conll2018 / "german-train-low"),
            "--dev",
            str(conll2018 / "german-dev"),
            "--lang",
            "deutschlike",
            *common,
            "--out",
            str(tmp_path / "b"),
        ],
    )
    assert files.exit_code == 0, files.output
    assert "deutschlike: a language the package does not know" in files.stderr
    a, b = (
        _weights(tmp_path / "a" / "model.safetensors"),
        _weights(tmp_path / "b" / "model.safetensors"),
    )
    assert a.keys() == b.keys()
    for name in a:
        assert (a[name] == b[name]).all(), name
    metrics = [
        (tmp_path / r / "metrics.csv").read_text().splitlines()[1].split(",")[:5] for r in "ab"
    ]
    assert metrics[0] == metrics[1]


def test_resume_refuses_a_changed_file_and_names_a_missing_one(tmp_path, own_folder):
    files = write_language(tmp_path, layout="2018")
    out = tmp_path / "run"
    args = [
        "train",
        "--train",
        str(files["trn"]),
        "--dev",
        str(files["dev"]),
        "--lang",
        "zorbish",
        "--preset",
        "tiny",
        "--epochs",
        "1",
        "--out",
        str(out),
    ]
    assert CliRunner().invoke(main, args).exit_code == 0
    from inflect.nn.checkpoint import load_metadata

    data = load_metadata(out / "model.safetensors")["training"]["data"]
    assert [r["layout"] for r in data["train_files"]] == ["2018"]
    assert data["train_files"][0]["sha256"] == hashlib.sha256(files["trn"].read_bytes()).hexdigest()
    with files["trn"].open("a", encoding="utf-8") as handle:
        handle.write("ሰበረ\tሰበረ\tN;SG\n")
    changed = CliRunner().invoke(main, ["train", "--resume", "--out", str(out), "--epochs", "2"])
    assert changed.exit_code == 1
    assert "amh.trn (SHA-256" in changed.output and "is not the same file" in changed.output
    files["trn"].unlink()
    gone = CliRunner().invoke(main, ["train", "--resume", "--out", str(out), "--epochs", "2"])
    assert gone.exit_code == 1 and "which is not there any more" in gone.output


def test_file_options_are_checked(tmp_path, own_folder):
    files = write_language(tmp_path)
    base = ["train", "--train", str(files["trn"]), "--out", str(tmp_path / "r")]
    no_dev = CliRunner().invoke(main, [*base, "--lang", "x"])
    assert no_dev.exit_code == 1 and "give both --train FILE and --dev FILE" in no_dev.output
    no_lang = CliRunner().invoke(main, [*base, "--dev", str(files["dev"])])
    assert no_lang.exit_code == 1 and "give the language of" in no_lang.output
    setting = CliRunner().invoke(
        main, [*base, "--dev", str(files["dev"]), "--lang", "x", "--setting", "low"]
    )
    assert setting.exit_code == 2 and "--setting and --data-dir" in setting.output
    assert not (tmp_path / "r").exists()


# --- runs compare ----------------------------------------------------------------------------------


def test_runs_compare_shows_the_settings_that_differ(tmp_path, own_folder):
    files = write_language(tmp_path)
    common = [
        "train",
        "--train",
        str(files["trn"]),
        "--dev",
        str(files["dev"]),
        "--lang",
        "zorbish",
        "--preset",
        "tiny",
        "--epochs",
        "1",
    ]
    for name, extra in (("a", []), ("b", ["--attention", "sparsemax"])):
        result = CliRunner().invoke(main, [*common, *extra, "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    out = CliRunner().invoke(
        main, ["runs", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "tsv"]
    )
    assert out.exit_code == 0, out.output
    header, *rows = [line.split("\t") for line in out.stdout.splitlines()]
    assert header[:7] == [
        "run",
        "state",
        "dev_accuracy",
        "best_epoch",
        "epochs",
        "cpu_minutes",
        "wall_minutes",
    ]
    assert "attention_mapping" in header and "seed" not in header and "data" not in header
    column = header.index("attention_mapping")
    assert [r[column] for r in rows] == ["entmax15", "sparsemax"]
    from inflect.nn.checkpoint import load_metadata

    for row, name in zip(rows, "ab", strict=True):
        facts = load_metadata(tmp_path / name / "model.safetensors")["training"]
        assert float(row[2]) == facts["best_accuracy"]


# --- figures --------------------------------------------------------------------------------------


def test_a_script_the_default_font_lacks_is_drawn_with_one_that_has_it():
    pytest.importorskip("matplotlib")
    from matplotlib import font_manager

    from inflect.render.figures import _charmap, figure_fonts

    families, missing = figure_fonts(["Haus"])
    assert families == ["DejaVu Sans"] and missing == []
    # ᴕ (U+1D15): in matplotlib's DejaVu Serif, not in its DejaVu Sans
    families, missing = figure_fonts(["Haus\u1d15"])
    assert missing == [] and len(families) == 2
    path = font_manager.findfont(font_manager.FontProperties(family=families[1]))
    assert 0x1D15 in _charmap(path)


def test_the_font_note_names_the_script_to_install():
    pytest.importorskip("matplotlib")
    from inflect.render.figures import figure_fonts, font_note

    assert font_note(["Haus"]) is None
    _, missing = figure_fonts(["ሰበረ"])
    note = font_note(["ሰበረ"])
    assert (note is None) == (missing == [])  # a machine with an Ethiopic font needs no note
    if note is not None:
        assert "Noto Sans Ethiopic" in note and "ሰ" in note
