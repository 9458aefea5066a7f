"""The network's config (``inflect.nn.config.ModelConfig``) apart from the training
procedure's (``inflect.training.config.TrainConfig``), with checkpoints that keep one flat dict.

The flat dicts below are those of checkpoints written by the code before the split (a shipped
member, the run folder ``tests/fixtures/run-flat-0.1``), written out here by hand, so the
expected values do not come from the code under test.
"""

from __future__ import annotations

import dataclasses
import importlib
import shutil
import warnings
from pathlib import Path

import pytest
import synthetic
import torch
from synthetic import item_batch

from inflect.decoding.greedy import greedy
from inflect.nn.checkpoint import (
    load_checkpoint,
    load_metadata,
    load_tensors,
    save_model,
    save_tensors,
)
from inflect.nn.config import COPY_FEATURE, ModelConfig
from inflect.nn.model import Seq2Seq
from inflect.text.languages import resolve
from inflect.training import state as run_state
from inflect.training.config import (
    MODEL_FIELDS,
    PRESETS,
    RESUME_FIELDS,
    TRAIN_FIELDS,
    WARM_START_FIELDS,
    Config,
    TrainConfig,
)
from inflect.training.warm_start import build_model, initial_config, warm_start_model

REPO = Path(__file__).resolve().parent.parent
MEDIUM_MEMBER = REPO / "inflect" / "models" / "multilingual-medium" / "member-1.safetensors"
FLAT_RUN = Path(__file__).resolve().parent / "fixtures" / "run-flat-0.1"

#: ``meta["model"]["config"]`` of the shipped multilingual-medium member 1, as the old code wrote
#: it (before ``dev_sample``, ``language_temperature`` and ``tag_bundles`` existed).
MEDIUM_STORED = {
    "emb_dim": 100, "feature_dim": 100, "hidden_dim": 200, "layers": 1, "dropout": 0.3,
    "attention_score": "general", "attention_mapping": "entmax15", "output_mapping": "entmax15",
    "learn_attention_alpha": False, "learning_rate": 0.001, "batch_size": 32,
    "max_grad_norm": 5.0, "lr_decay": 0.5, "min_learning_rate": 0.0001, "copy_examples": 1.0,
    "copy_bias": True, "max_epochs": 50, "patience": 6, "max_decode_len": None,
    "eval_batch_size": 500, "seed": 1, "preset": "cpu-small",
}  # fmt: skip
#: What the old ``Config.from_dict(...).to_dict()`` made of it: the later fields' defaults, and
#: ``tag_bundles="set"`` (the model read bundles as sets).
MEDIUM_FLAT = MEDIUM_STORED | {"dev_sample": 0, "language_temperature": 1.0, "tag_bundles": "set"}
#: The fields added since, at the value a config without them means: the encoder of every model
#: before the field was the BiLSTM, no run hallucinated pairs or added long pairs, and every
#: model read a UniMorph 4 layered feature as one symbol.
NEW_FIELDS = {"encoder": "bilstm", "hallucinate": 0, "long_pairs": 0, "layered_features": "opaque"}
#: The old ``Config``'s 25 fields.
OLD_FIELDS = {
    "emb_dim", "feature_dim", "hidden_dim", "layers", "dropout", "attention_score",
    "attention_mapping", "output_mapping", "learn_attention_alpha", "learning_rate",
    "batch_size", "max_grad_norm", "lr_decay", "min_learning_rate", "copy_examples", "copy_bias",
    "max_epochs", "patience", "max_decode_len", "eval_batch_size", "seed", "preset",
    "dev_sample", "language_temperature", "tag_bundles",
}  # fmt: skip
#: The old ``inflect.training.warm_start.TRAINING_FIELDS`` (hand-kept): what a warm start could
#: change. ``copy_examples`` is added: a training field, checked against the vocabulary instead.
OLD_WARM_START = {
    "learning_rate", "batch_size", "max_grad_norm", "lr_decay", "min_learning_rate",
    "max_epochs", "patience", "max_decode_len", "eval_batch_size", "seed", "preset",
    "dev_sample", "language_temperature", "dropout", "tag_bundles",
}  # fmt: skip
#: The old ``inflect.training.state.RESUME_FREE_FIELDS`` (hand-kept).
OLD_RESUME = {"max_epochs", "patience", "preset", "eval_batch_size", "tag_bundles"}


# ------------------------------------------------------------------------------ the fields
def test_the_two_configs_split_the_old_fields_and_declare_what_may_change():
    assert {
        "emb_dim", "feature_dim", "hidden_dim", "layers", "dropout", "attention_score",
        "attention_mapping", "output_mapping", "learn_attention_alpha", "copy_bias",
        "max_decode_len", "tag_bundles", "encoder", "layered_features",
    } == MODEL_FIELDS  # fmt: skip
    assert not MODEL_FIELDS & TRAIN_FIELDS
    assert OLD_FIELDS | set(NEW_FIELDS) == MODEL_FIELDS | TRAIN_FIELDS
    # hallucinated and long pairs: training fields, a warm start may change them; the encoder:
    # not
    assert OLD_WARM_START | {"copy_examples", "hallucinate", "long_pairs"} == WARM_START_FIELDS
    assert TRAIN_FIELDS <= WARM_START_FIELDS  # a warm start keeps the network alone
    assert {"dropout", "max_decode_len", "tag_bundles"} == WARM_START_FIELDS & MODEL_FIELDS
    # the reading of layered features: declared by the model, kept by a resume (an earlier
    # checkpoint, without the field, resumes with its opaque reading)
    assert OLD_RESUME | {"layered_features"} == RESUME_FIELDS
    from inflect.training.state import RESUME_FREE_FIELDS
    from inflect.training.warm_start import TRAINING_FIELDS

    assert (TRAINING_FIELDS, RESUME_FREE_FIELDS) == (WARM_START_FIELDS, RESUME_FIELDS)


def test_config_keeps_flat_construction_access_and_presets():
    config = Config(emb_dim=100, learning_rate=5e-4, copy_bias=True, max_epochs=7)
    assert (config.model.emb_dim, config.model.copy_bias) == (100, True)
    assert (config.train.learning_rate, config.train.max_epochs) == (5e-4, 7)
    assert (config.emb_dim, config.learning_rate, config.attention_alpha) == (100, 5e-4, 1.5)
    config.max_epochs = 9  # the trainer's --epochs on a resumed run
    assert config.train.max_epochs == 9
    with pytest.raises(AttributeError, match="nothing"):
        config.nothing = 1
    with pytest.raises(TypeError, match="nothing"):
        Config(nothing=1)
    with pytest.raises(TypeError, match="not both"):
        Config(model=ModelConfig(), emb_dim=8)
    tiny = Config.from_preset("tiny", seed=3)
    assert tiny.model == ModelConfig(emb_dim=32, hidden_dim=64, layers=1, dropout=0.0)
    assert tiny.train == TrainConfig(batch_size=16, max_epochs=60, patience=60, lr_decay=1.0,
                                     learning_rate=5e-3, seed=3, preset="tiny")
    assert Config.from_preset("cpu-small").to_dict()["copy_examples"] == 1.0
    assert set(PRESETS) == {"paper", "cpu-small", "cpu-small-plain", "tiny"}
    with pytest.raises(ValueError, match="config batch_size must be a positive integer"):
        Config(batch_size=0)


def test_the_old_import_path_gives_the_same_objects_with_a_warning():
    old = importlib.import_module("inflect.nn.config")
    with pytest.warns(DeprecationWarning, match=r"inflect\.training\.config\.Config"):
        assert old.Config is Config
    with pytest.warns(DeprecationWarning, match="PRESETS"):
        assert old.PRESETS is PRESETS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not hasattr(old, "TrainConfig")


# ------------------------------------------------------------------ checkpoints: one flat dict
def test_a_checkpoint_of_the_old_code_round_trips_to_the_same_flat_dict(tmp_path):
    # the shipped member as the old code wrote it: its weights, the old flat dict
    tensors, meta = load_tensors(MEDIUM_MEMBER)
    meta["model"]["config"] = dict(MEDIUM_STORED)
    old = tmp_path / "old.safetensors"
    save_tensors(old, tensors, meta)
    stored = load_metadata(old)["model"]["config"]
    assert stored == MEDIUM_STORED
    config = Config.from_dict(stored)
    now = MEDIUM_FLAT | NEW_FIELDS
    assert config.to_dict() == now
    assert config.model.to_dict() == {k: now[k] for k in MODEL_FIELDS}
    loaded = load_checkpoint(old)
    assert loaded.network.config == config.model  # the network reads its fields alone
    # written again with the training fields beside the network's: the same flat dict
    assert loaded.network.metadata(config.train.to_dict())["config"] == now
    save_model(tmp_path / "again", loaded.network, settings=config.train.to_dict())
    assert load_metadata(tmp_path / "again" / "model.safetensors")["model"]["config"] == now
    # ... as the shipped member now stores it (ship.py wrote it again through the split code;
    # its run drew 100 dev words per language for the selection, `--dev-sample` of its day)
    assert load_metadata(MEDIUM_MEMBER)["model"]["config"] == MEDIUM_FLAT | {"dev_sample": 100}
    # the run folder of the flat package: every field already there, so the same dict back
    for name in ("model.safetensors", "trainer_state.safetensors"):
        flat = load_metadata(FLAT_RUN / name)["model"]["config"]
        assert (flat["copy_examples"], flat["tag_bundles"], flat["preset"]) == (0.5, "multiset",
                                                                                "tiny")
        assert Config.from_dict(flat).to_dict() == flat | NEW_FIELDS


def test_a_network_is_given_and_keeps_its_model_config_only():
    config = Config.from_preset("tiny")
    model = build_model(config, synthetic.items(20, seed=1))
    assert model.config is config.model and type(model.config) is ModelConfig
    assert set(model.metadata()["config"]) == MODEL_FIELDS
    with pytest.raises(TypeError, match="ModelConfig, not a Config"):
        Seq2Seq(config, model.source_vocab, model.target_vocab)
    with pytest.raises(ValueError, match="settings name network fields \\(dropout\\)"):
        model.metadata({"dropout": 0.1})
    with pytest.raises(ValueError, match="unknown config keys: nothing"):
        Config.from_dict(config.to_dict() | {"nothing": 1})


def test_the_network_reads_exactly_the_model_fields(tmp_path):
    """Every field of ModelConfig is read by building, training, searching or predicting with
    a network, and nothing else is (a field it lacks would raise AttributeError)."""
    read: set[str] = set()

    class Recording(ModelConfig):
        def __getattribute__(self, name):
            if name in MODEL_FIELDS:
                read.add(name)
            return super().__getattribute__(name)

    base = Config.from_preset("tiny", copy_bias=True, feature_dim=16, dropout=0.1)
    items = synthetic.items(30, seed=1, language="german")
    torch.manual_seed(0)
    model = build_model(base, items)
    save_model(tmp_path / "m", model, languages=[resolve("german").to_dict()])
    recording = Recording(**base.model.to_dict())
    read.clear()
    torch.manual_seed(0)
    network = Seq2Seq(recording, model.source_vocab, model.target_vocab, model.feature_vocab,
                      model.language_vocab)
    network.train()
    network.loss(item_batch(network, items[:4]))[0].backward()
    with torch.no_grad():
        greedy(network, item_batch(network, items[:4], targets=False), 10)
    from inflect.inference.predictor import Predictor

    predictor = Predictor.from_checkpoints([tmp_path / "m"])
    predictor.members[0].config = recording
    predictor.predict("bakomu", "V;PL", "german")
    assert read == MODEL_FIELDS


# --------------------------------------------------------------------- warm start and resume
@pytest.fixture
def start(tmp_path) -> tuple[Path, Config, list]:
    """A model checkpoint of the tiny preset (untrained, no copy items) and its config."""
    config = Config.from_preset("tiny", seed=2)
    items = synthetic.items(40, seed=1)
    save_model(tmp_path / "start", build_model(config, items), settings=config.train.to_dict())
    return tmp_path / "start", config, items


OTHER_VALUES = {
    "emb_dim": 16, "feature_dim": 8, "hidden_dim": 32, "layers": 2, "dropout": 0.2,
    "attention_score": "dot", "attention_mapping": "softmax", "output_mapping": "sparsemax",
    "learn_attention_alpha": True, "copy_bias": True, "max_decode_len": 20,
    "tag_bundles": "set", "learning_rate": 2e-3, "batch_size": 8, "max_grad_norm": 1.0,
    "lr_decay": 0.25, "min_learning_rate": 1e-5, "copy_examples": 0.5, "max_epochs": 5,
    "patience": 2, "eval_batch_size": 64, "seed": 9, "preset": "paper", "dev_sample": 10,
    "language_temperature": 2.0, "encoder": "transformer", "hallucinate": 500, "long_pairs": 300,
    "layered_features": "parts",
}  # fmt: skip


def test_a_warm_start_refuses_a_network_change_and_takes_a_training_change(start):
    path, config, items = start
    assert set(OTHER_VALUES) == OLD_FIELDS | set(NEW_FIELDS)
    for field, value in OTHER_VALUES.items():
        if field == "preset":
            continue  # a preset is given as one (its network fields are checked too)
        if field in WARM_START_FIELDS:
            assert getattr(initial_config(path, **{field: value}), field) == value, field
        else:
            saved = config.to_dict()[field]
            with pytest.raises(ValueError, match=f"{field}: the checkpoint's {saved!r}"):
                initial_config(path, **{field: value})
            with pytest.raises(ValueError, match=f"the config differs in {field}"):
                warm_start_model(path, Config(**(config.to_dict() | {field: value})), items)
    assert initial_config(path, "tiny", learning_rate=3e-3).train.preset == "tiny"
    assert initial_config(path).tag_bundles == "multiset"  # a new run reads multisets
    with pytest.raises(ValueError, match="emb_dim: the checkpoint's 32, given 100"):
        initial_config(path, "cpu-small")
    # dropout, which a warm start may change, is the modules' own, not a recorded value only
    model = warm_start_model(path, initial_config(path, dropout=0.25), items)
    assert model.encoder.dropout.p == model.decoder.dropout.p == 0.25
    start_weights = load_checkpoint(path).network.state_dict()
    assert all(torch.equal(v, start_weights[k]) for k, v in model.state_dict().items())


def test_copy_items_need_the_copy_feature_of_the_checkpoint(start, tmp_path):
    path, _, items = start
    with pytest.raises(ValueError, match=f"need the feature '{COPY_FEATURE}'"):
        warm_start_model(path, initial_config(path, copy_examples=1.0), items)
    with_copies = Config.from_preset("tiny", copy_examples=1.0)
    save_model(tmp_path / "copies", build_model(with_copies, items),
               settings=with_copies.train.to_dict())
    for copies in (0.0, 2.0):  # fewer or more copy items: the training procedure's choice
        model = warm_start_model(tmp_path / "copies",
                                 initial_config(tmp_path / "copies", copy_examples=copies), items)
        assert COPY_FEATURE in model.feature_vocab


def test_a_resume_refuses_what_it_refused_before(tmp_path):
    saved = Config.from_preset("tiny")
    for field, value in OTHER_VALUES.items():
        given = Config(**(saved.to_dict() | {field: value}))
        if field in RESUME_FIELDS:
            run_state.check_same_config(saved, given)
        else:
            with pytest.raises(ValueError, match=f"{field}: saved"):
                run_state.check_same_config(saved, given)
    # the flat package's run: its saved config is read back whole, and its own config agrees
    shutil.copytree(FLAT_RUN, tmp_path / "run")
    state = run_state.read_state(tmp_path / "run")
    flat = load_metadata(FLAT_RUN / "trainer_state.safetensors")["model"]["config"]
    assert state.config.to_dict() == flat | NEW_FIELDS
    assert state.config.model is state.model.config
    run_state.check_same_config(state.config, Config.from_dict(flat | {"max_epochs": 3}))
    with pytest.raises(ValueError, match=r"copy_examples: saved 0\.5, given 0\.0"):
        run_state.check_same_config(state.config, Config.from_dict(flat | {"copy_examples": 0.0}))


def test_dataclass_fields_carry_the_declarations():
    """The sets come from the fields' metadata, nothing else: a field declared changeable on
    resume is in RESUME_FIELDS."""
    from inflect.nn.config import CHANGEABLE, RESUME, WARM_START, changeable_fields

    declared = {f.name: f.metadata.get(CHANGEABLE, ()) for f in dataclasses.fields(TrainConfig)}
    assert declared["max_epochs"] == (WARM_START, RESUME) and declared["seed"] == (WARM_START,)
    assert changeable_fields(ModelConfig, RESUME) == {"tag_bundles", "layered_features"}
