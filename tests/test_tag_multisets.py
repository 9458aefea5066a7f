"""A tag bundle is a multiset (order-free, counts matter); checkpoints trained
with sets keep loading and answer as before, retrained models tell the cells apart.

Expected values are independent of the code under test: the conflicting pairs of the shared-task
files counted with plain Python (``collections.Counter`` of the ``;``-split features), the gold
forms of the tiny language from its rule below.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
import torch
from synthetic import item_batch

from inflect.nn.checkpoint import load_model
from inflect.text.reading import read_examples
from inflect.training.config import Config
from inflect.training.items import Item, TrainingData
from inflect.training.trainer import train

pytestmark = pytest.mark.usefixtures("one_thread")


def _pairs(path: Path) -> tuple[int, int]:
    """(lemma, bundle) pairs that are one cell read as sets but two read as multisets, and the
    distinct (lemma, multiset) inputs: counted by hand from the text."""
    by_set: dict[tuple[str, frozenset], set[tuple]] = {}
    inputs = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line:
            continue
        lemma, _, tags = line.split("\t")
        counts = Counter(f.strip() for f in tags.split(";"))
        multiset = tuple(sorted(counts.elements()))
        inputs.add((lemma, multiset))
        by_set.setdefault((lemma, frozenset(counts)), set()).add(multiset)
    conflicts = sum(len(v) * (len(v) - 1) // 2 for v in by_set.values())
    return conflicts, len(inputs)


def test_the_reader_keeps_the_cells_the_2018_data_tell_apart(conll2018):
    """albanian-dev has 3 such pairs and train-high 55 (counted here); the
    reader gives each multiset its own input key."""
    for name, expected in (("albanian-dev", 3), ("albanian-train-high", 55)):
        conflicts, distinct = _pairs(conll2018 / name)
        assert conflicts == expected
        examples = read_examples(conll2018 / name, language="albanian")
        assert len({(ex.lemma, ex.tags) for ex in examples}) == distinct


def test_a_checkpoint_trained_with_sets_answers_as_before():
    """The shipped multilingual high model predates the field: it reads bundles as sets, so the
    Albanian pluperfect and perfect get the same forms, as they did. Albanian's own model
    (shipped 2026-12-05) was trained with multisets and tells them apart as its training pairs
    do: `kundërshtoj` V;2;PL;IND;PRF;PRF `patët kundërshtuar`, `stimuloj` V;2;PL;IND;PRF `keni
    stimuluar` (albanian-train-high)."""
    from inflect.inference.predictor import Predictor
    from inflect.inference.registry import default_model, list_models

    multi = next(m for m in list_models(every=True) if m.name == "multilingual-high")
    predictor = Predictor.from_checkpoints(list(multi.members))
    assert {m.config.tag_bundles for m in predictor.members} == {"set"}
    plu = predictor.predict("kuptoj", "V;2;PL;IND;PRF;PRF", "albanian")
    perf = predictor.predict("kuptoj", "V;2;PL;IND;PRF", "albanian")
    assert plu.forms == perf.forms

    own = Predictor.from_checkpoints(list(default_model("albanian").members))
    assert {m.config.tag_bundles for m in own.members} == {"multiset"}
    plu = own.predict("kuptoj", "V;2;PL;IND;PRF;PRF", "albanian")
    perf = own.predict("kuptoj", "V;2;PL;IND;PRF", "albanian")
    assert (plu.forms[0].form, perf.forms[0].form) == ("patët kuptuar", "keni kuptuar")


def _items(n: int, seed: int) -> list[Item]:
    """A tiny language: ``V;PL`` adds ``en``, ``V;PL;PL`` adds ``er`` (every lemma both)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        lemma = "".join(rng.choice("bdgklmt") + rng.choice("aeiou") for _ in range(2))
        out.append(Item(tuple(lemma), ("PL", "V"), "german", tuple(lemma + "en")))
        out.append(Item(tuple(lemma), ("PL", "PL", "V"), "german", tuple(lemma + "er")))
    return out


@pytest.mark.slow
def test_a_retrained_model_tells_a_repeated_feature_apart(tmp_path):
    train_items, dev_items = _items(150, seed=1), _items(20, seed=2)
    data = TrainingData(train_items, dev_items)
    config = Config.from_preset("tiny")
    assert config.tag_bundles == "multiset"
    result = train(config, data, tmp_path / "multi", device="cpu", max_epochs=8)
    assert result.best_dev_accuracy == 100.0
    multi = load_model(tmp_path / "multi")
    batch = item_batch(multi, dev_items[:2], targets=False)
    assert batch.features[0].tolist() != batch.features[1].tolist()
    # the predictor, end to end: each cell its own gold form (the rule above)
    from inflect.inference.predictor import Predictor

    predictor = Predictor.from_checkpoints([tmp_path / "multi"])
    for it in dev_items[:6]:
        lemma = "".join(it.source)
        got = predictor.predict(lemma, ";".join(it.features), "german")
        assert got.forms[0].form == "".join(it.target)
    # read as sets, the two cells are one input: bit-identical conditions, one answer for both
    as_sets = load_model(tmp_path / "multi")
    as_sets.config.tag_bundles = "set"
    batch = item_batch(as_sets, dev_items[:2], targets=False)
    assert torch.equal(batch.features[0], batch.features[1])
