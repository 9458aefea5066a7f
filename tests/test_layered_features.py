"""UniMorph 4 layered features as structure: a layer is a name and an
order-free set of parts; a model reads it as its parts (``NOM(1,SG)`` -> ``NOM(1)``,
``NOM(SG)``) or as one symbol (``opaque``, every earlier checkpoint); `inflect data check`
names a layer it cannot read and a layer written in another order, with their lines.

Expected values are written by hand from the UniMorph 4 layout (Batsuren et al. 2022, §3.2) and
from the test's own data (tests/made_up.py)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from made_up import write_language

from inflect.cli import main
from inflect.nn.batching import Vocabularies, make_batch, model_features
from inflect.nn.vocab import UnknownSymbolWarning
from inflect.text import languages
from inflect.text.layers import LayerError, canonical_feature, feature_symbols, parse_feature
from inflect.text.records import TagBundle

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("PSS(PL,1)", "PSS(1,PL)"),
        ("NOM(MASC;3,SG)", "NOM(3,MASC,SG)"),
        ("DAT(PL;LGSPEC2)", "DAT(LGSPEC2,PL)"),
        ("ACC(PSS(SG,1),PL)", "ACC(PL,PSS(1,SG))"),
        ("(non)NOM", "(non)NOM"),
        ("N", "N"),
        ("PSS(1,PL", "PSS(1,PL"),
    ],
)
def test_the_canonical_spelling(written, canonical):
    assert canonical_feature(written) == canonical


def test_a_bundle_holds_its_layers_order_free():
    assert TagBundle.parse("N;PSS(PL,1)") == TagBundle.parse("N;PSS(1,PL)")
    assert TagBundle.parse("V;NOM(1,SG)") != TagBundle.parse("V;NOM(1,PL)")
    bundle = TagBundle.parse("V;NOM(SG,1)")
    assert str(bundle) == "V;NOM(SG,1)" and bundle.multiset == ("NOM(1,SG)", "V")
    assert "NOM(1,SG)" in bundle and "NOM(SG,1)" in bundle
    assert TagBundle.parse("V;NOM(1,SG);NOM(SG,1)").had_duplicates


@pytest.mark.parametrize(
    ("feature", "parts"),
    [
        ("NOM(1,SG)", ("NOM(1)", "NOM(SG)")),
        ("ACC(PL,PSS(1,SG))", ("ACC(PL)", "ACC(PSS(1))", "ACC(PSS(SG))")),
        ("PL", ("PL",)),
        ("(non)NOM", ("(non)NOM",)),
    ],
)
def test_the_symbols_of_a_layer(feature, parts):
    assert feature_symbols(feature, True) == parts
    assert feature_symbols(feature, False) == (feature,)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("PSS(1,PL", "never closed"),
        ("NOM()", "empty layer"),
        ("NOM(1,,SG)", "empty part"),
        ("DAT(PL)X", "after the layer"),
        ("NOM)1(", "closes no bracket"),
    ],
)
def test_what_cannot_be_read_as_a_layer(text, what):
    with pytest.raises(LayerError, match=what):
        parse_feature(text)


def test_data_check_names_unreadable_and_reordered_layers_with_their_lines(tmp_path):
    path = tmp_path / "mixed.tsv"
    path.write_text(
        "ሰበረ\tV;PFV;NOM(3,SG,MASC)\tሰበረ\n"  # line 1: the first spelling
        "ለመነ\tV;PFV;NOM(MASC;3,SG)\tለመነ\n"  # 2: another order, ';' inside
        "መከረ\tV;PFV;NOM(SG,3,MASC)\tመከረ\n"  # 3: another order ...
        "ደረ\tV;PFV;NOM(SG,3,MASC)\tደረ\n"  # 4: ... written so again
        "ከበረ\tN;PSS(1,PL\tከበረ\n"  # 5: a '(' never closed
        "ሰበረ\tV;PFV;NOM(3,SG,MASC)\tሰበረ\n",  # 6: the first spelling again
        encoding="utf-8",
    )
    out = CliRunner().invoke(main, ["data", "check", str(path)])
    assert out.exit_code == 1, out.output  # line 5 is an error: its tags cannot be read
    assert f"{path}:5: '(' at character 6 is never closed" in out.output
    warnings = [line for line in out.output.splitlines() if line.startswith("warning:")]
    lines = [int(w.split(":")[2]) for w in warnings if "layer" in w]
    assert lines == [2, 3]  # the unreadable layer is not warned of again
    assert "2 lines write it so" in warnings[1]


# --- the model -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Tiny models of the made-up language (1 epoch), reading layers as parts and opaque."""
    folder = tmp_path_factory.mktemp("layers")
    files = write_language(folder)
    found = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(languages.LANGS_ENV, str(folder / "langs"))
        for reading in ("parts", "opaque"):
            out = folder / reading
            result = CliRunner().invoke(
                main,
                [
                    "train",
                    "--train",
                    str(files["trn"]),
                    "--dev",
                    str(files["dev"]),
                    "--lang",
                    "amharic",
                    "--preset",
                    "tiny",
                    "--epochs",
                    "1",
                    "--layered-features",
                    reading,
                    "--out",
                    str(out),
                ],
            )
            assert result.exit_code == 0, result.output
            found[reading] = out
    yield found
    languages._REMEMBERED.clear()


@pytest.mark.slow
def test_a_parts_model_has_a_symbol_per_part_and_reads_unseen_combinations(models):
    from inflect.inference.predictor import Predictor

    parts = Predictor.from_checkpoints([models["parts"]])
    opaque = Predictor.from_checkpoints([models["opaque"]])
    symbols = set(parts.members[0].feature_vocab.symbols)
    assert {"NOM(1)", "NOM(2)", "NOM(3)", "NOM(SG)", "NOM(PL)", "NOM(MASC)", "NOM(FEM)"} <= symbols
    assert not any("," in s for s in symbols)
    assert "NOM(3,MASC,SG)" in set(opaque.members[0].feature_vocab.symbols)
    # NOM(1,MASC,SG) is in no training bundle; each of its parts is
    assert parts.reads("NOM(1,MASC,SG)") and not opaque.reads("NOM(1,MASC,SG)")
    assert parts.reads("NOM(SG,3,MASC)") and opaque.reads("NOM(MASC,3,SG)")
    assert not parts.reads("NOM(4,SG)")
    record = parts.predict("ሰበረ", "V;PFV;NOM(SG,MASC,1)")
    assert not any("not seen in training" in w for w in record.warnings)
    with pytest.warns(UnknownSymbolWarning, match=r"NOM\(1,MASC,SG\).*not seen in training"):
        record = opaque.predict("ሰበረ", "V;PFV;NOM(SG,MASC,1)")
    assert any("not seen in training" in w for w in record.warnings)


@pytest.mark.slow
def test_a_batch_holds_the_ids_of_the_parts(models):
    from inflect.nn.checkpoint import load_model

    model = load_model(models["parts"])
    vocabs = Vocabularies.of(model)
    assert vocabs.parts
    batch = make_batch(
        vocabs, [["ሰ"]], [TagBundle.parse("V;PFV;NOM(SG,1)").multiset], ["amharic"], warn=False
    )
    wanted = sorted(model.feature_vocab.index(s) for s in ("NOM(1)", "NOM(SG)", "PFV", "V"))
    assert batch.features.tolist() == [wanted]
    assert model_features(("NOM(1,SG)", "V"), True) == ("NOM(1)", "NOM(SG)", "V")


@pytest.mark.slow
def test_earlier_checkpoints_read_layers_opaque_and_resume_with_their_reading(models):
    from inflect.nn.checkpoint import load_checkpoint
    from inflect.nn.config import ModelConfig

    assert ModelConfig.from_dict({}).layered_features == "opaque"  # a config before the field
    assert ModelConfig().layered_features == "opaque"  # a new run's (the recipe's comparison)
    shipped = load_checkpoint("inflect/models/german-high/member-1.safetensors")
    assert shipped.network.config.layered_features == "opaque"
    result = CliRunner().invoke(
        main,
        ["train", "--resume", "--out", str(models["opaque"]), "--preset", "tiny", "--epochs", "2"],
    )
    assert result.exit_code == 0, result.output
    assert load_checkpoint(models["opaque"]).network.config.layered_features == "opaque"


# --- the recipe ------------------------------------------------------------------------------


def _recipe():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "recipes" / "user_language" / "layers.py"
    spec = importlib.util.spec_from_file_location("user_language_layers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("tags", "layered"),
    [
        ("V;IND;PRS;1;SG", "V;IND;PRS;NOM(1,SG)"),
        ("V;SBJV;PST;3;PL;MASC", "V;SBJV;PST;NOM(3,PL,MASC)"),
        ("V;NFIN", "V;NFIN"),  # no person: no subject agreement
        ("N;NOM;PL", "N;NOM;PL"),  # not a verb
        ("V.PTCP;PST;FEM;SG", "V.PTCP;PST;FEM;SG"),
    ],
)
def test_the_recipe_writes_a_verbs_agreement_as_a_layer(tags, layered):
    assert _recipe().layered(tags) == layered


@pytest.mark.slow
def test_the_recipe_compares_the_two_readings(tmp_path, monkeypatch):
    files = write_language(tmp_path)
    monkeypatch.setenv(languages.LANGS_ENV, str(tmp_path / "langs"))
    _recipe().main(
        [
            "--train",
            str(files["trn"]),
            "--dev",
            str(files["dev"]),
            "--lang",
            "amharic",
            "--out",
            str(tmp_path / "out"),
            "--preset",
            "tiny",
            "--epochs",
            "1",
        ]
    )
    table = (tmp_path / "out" / "results.md").read_text(encoding="utf-8").splitlines()
    rows = {
        line.split("|")[1].strip(): line.split("|")[2:-1]
        for line in table
        if line.startswith("| opaque") or line.startswith("| parts")
    }
    assert set(rows) == {"opaque", "parts"}
    # feature symbols: V, N, PFV, IPFV, SG, PL, and 8 subject layers or 7 parts (1, 2, 3, SG, PL,
    # MASC, FEM), as the made-up data write them
    assert int(rows["opaque"][4]) == 6 + 8 and int(rows["parts"][4]) == 6 + 7
