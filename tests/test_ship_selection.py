"""ship.py's selection on unseen data: for a medium language with a small dev set and
a high setting, the models are chosen by their accuracy on dev and a selection slice S of
``train-high`` pooled (recipes/sigmorphon2018/heldout.py), S being pairs no medium model saw.

The slice is checked against sets of keys built here from the files; the choice against scores
counted by hand from what a stand-in evaluator answers right (the models are tiny real ones,
stored and read back by inflect's registry).
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from test_recipe_sigmorphon import _load_ship
from test_train import tiny_config

from inflect.training.items import load_data
from inflect.training.trainer import train

LANG = "german"  # a language with a high setting; its dev file here has 6 words (< 200)


def _write_data(folder: Path) -> dict[str, list[tuple[str, str, str]]]:
    """german-train-high (30 lemmas x 2 tag bundles, one key written twice), -train-medium (its
    first 20 lines) and -dev (6 words: 3 keys of train-high, 3 new ones)."""
    folder.mkdir(parents=True, exist_ok=True)
    high = [
        (f"wort{i}", f"wort{i}{suffix}", tags)
        for i in range(30)
        for suffix, tags in (("", "N;NOM;SG"), ("e", "N;NOM;PL"))
    ]
    high.append(("wort29", "worte", "N;NOM;PL"))  # a second form of a key: its first counts
    files = {
        "train-high": high,
        "train-medium": high[:20],
        "dev": [
            ("wort10", "wort10", "N;NOM;SG"),
            ("wort11", "wort11e", "N;NOM;PL"),
            ("wort12", "wort12", "N;NOM;SG"),
            ("haus1", "haus1e", "N;NOM;PL"),
            ("haus2", "haus2", "N;NOM;SG"),
            ("haus3", "haus3e", "N;NOM;PL"),
        ],
    }
    for split, pairs in files.items():
        (folder / f"{LANG}-{split}").write_text(
            "".join("\t".join(p) + "\n" for p in pairs), encoding="utf-8"
        )
    return files


def _keys(pairs) -> set[tuple[str, str]]:
    return {(lemma, tags) for lemma, _, tags in pairs}


def test_the_selection_slice_is_seeded_unseen_and_cut_a_third(tmp_path):
    heldout = _load_ship("heldout")
    files = _write_data(tmp_path / "data")
    data = str(tmp_path / "data")
    # the unseen keys, counted here: 60 keys of train-high, less 20 of train-medium, less the 3
    # of dev that train-high has: 37, so S is 37 // 3 = 12 words and H the other 25
    unseen = _keys(files["train-high"]) - _keys(files["train-medium"]) - _keys(files["dev"])
    assert len(unseen) == 37
    s, h = heldout.heldout_slices(LANG, data)
    assert (len(s), len(h)) == (12, 25)
    assert _keys(s) | _keys(h) == unseen and not _keys(s) & _keys(h)
    assert len(_keys(s)) == len(s)  # one pair per key: the first form of wort29 N;NOM;PL
    assert ("wort29", "wort29e", "N;NOM;PL") in s + h and (
        "wort29",
        "worte",
        "N;NOM;PL",
    ) not in s + h
    # seeded: the same words every time, others with another seed; capped by s_max
    assert heldout.heldout_slices(LANG, data) == (s, h)
    assert heldout.heldout_slices(LANG, data, seed=2)[0] != s
    assert heldout.heldout_slices(LANG, data, s_max=5)[0] == s[:5]
    assert heldout.selection_slice(LANG, data) == s
    # a dev set of 200 words is no longer a small one; a language without a high setting has
    # no unseen words to take
    dev = tmp_path / "data" / f"{LANG}-dev"
    dev.write_text(dev.read_text(encoding="utf-8") * 34, encoding="utf-8")  # 204 lines
    assert heldout.selection_slice(LANG, data) is None
    assert heldout.heldout_slices("cornish", data) is None
    assert heldout.selection_slice("cornish", data) is None  # no file read: no high setting
    # a malformed line names its file and line
    (tmp_path / "data" / f"{LANG}-train-medium").write_text("a\tb\tN\nbroken\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{LANG}-train-medium:2: expected lemma<TAB>form"):
        heldout.heldout_slices(LANG, data)


def test_the_pooled_accuracy_is_right_answers_over_words():
    heldout = _load_ship("heldout")
    selection = _load_ship("ship_selection")
    assert heldout.pooled_accuracy((6, 6), (0, 12)) == pytest.approx(100 * 6 / 18)
    assert heldout.right_of(83.33, 6) == 5
    frame = pd.DataFrame({"language": [LANG, "cornish"], "accuracy": [500 / 6, 64.0]})
    got = selection.with_selection(frame, {LANG: (12, 12)}, {LANG: 6})
    # german: 5 of 6 dev words and 12 of 12 slice words, 17 of 18; cornish: dev alone
    assert list(got["selection"]) == pytest.approx([100 * 17 / 18, 64.0])
    assert list(got["heldout_words"]) == [12, 0]
    assert got["heldout_accuracy"].iloc[0] == 100.0 and pd.isna(got["heldout_accuracy"].iloc[1])
    assert "selection" not in frame  # a new frame
    assert list(selection.selection_of(frame)) == [500 / 6, 64.0]


@pytest.mark.shared_data
def test_the_slices_of_the_study_on_the_2018_data(conll2018):
    """S and H as the lead's study cut them (recipe README, its table's "S / H words"): sizes,
    unseen by train-medium and dev, the same twice; the languages without a high setting and
    those with 1,000 dev words have none."""
    heldout = _load_ship("heldout")
    expected = {
        "breton": (327, 656),
        "maltese": (186, 374),
        "uzbek": (20, 40),
        "west-frisian": (26, 52),
        "votic": (76, 154),
        "azeri": (500, 1000),
    }
    for lang, sizes in expected.items():
        s, h = heldout.heldout_slices(lang, conll2018)
        assert (len(s), len(h)) == sizes, lang
        seen = set()
        for split in ("train-medium", "dev"):
            seen |= _keys(
                line.rstrip("\n").split("\t")
                for line in (conll2018 / f"{lang}-{split}").read_text(encoding="utf-8").splitlines()
                if line.strip()
            )
        high = {
            tuple(line.split("\t"))
            for line in (conll2018 / f"{lang}-train-high").read_text(encoding="utf-8").splitlines()
        }
        assert not (_keys(s) | _keys(h)) & seen and not _keys(s) & _keys(h), lang
        assert set(s) <= high and set(h) <= high, lang
        assert heldout.selection_slice(lang, conll2018) == s, lang
    for lang in ("cornish", "norman", "old-irish", "german"):
        assert heldout.selection_slice(lang, conll2018) is None, lang


def _fake_evaluator(data: Path, calls: list):
    """A stand-in for ``evaluate_checkpoints``: model A (trained with seed 1) answers right
    exactly the dev words, model B (seed 2) every word but the last dev word (haus3); the frame
    as the runner gives it."""
    from inflect.evaluation.scoring import MACRO
    from inflect.nn.checkpoint import load_metadata

    def evaluate(models, languages=(), split="dev", gold_files=(), **kw):
        (lang,) = languages
        path = Path(gold_files[0]) if gold_files else data / f"{lang}-{split}"
        pairs = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
        files = [Path(m) / "model.safetensors" if Path(m).is_dir() else Path(m) for m in models]
        (seed,) = {load_metadata(f)["model"]["config"]["seed"] for f in files}
        dev = {
            (p[0], p[2])
            for p in (
                line.split("\t")
                for line in (data / f"{lang}-dev").read_text(encoding="utf-8").splitlines()
            )
        }
        right = sum(((p[0], p[2]) in dev) if seed == 1 else p[0] != "haus3" for p in pairs)
        calls.append((seed, "slice" if gold_files else split, len(pairs)))
        acc = 100.0 * right / len(pairs)
        frame = pd.DataFrame(
            {
                "language": [lang, MACRO],
                "n": [len(pairs)] * 2,
                "accuracy": [acc] * 2,
                "full_support": [1.0] * 2,
                "mode_only": [0.0] * 2,
                "single_string": [1.0] * 2,
                "mean_strings": [1.0] * 2,
            }
        )
        return argparse.Namespace(frame=frame)

    return evaluate


def test_dev_alone_picks_one_model_and_dev_with_the_slice_another(tmp_path, monkeypatch):
    """Model A (german's own, from a queue) is right on all 6 dev words and none of the 12
    slice words; model B (the multilingual one) on 5 of 6 and 12 of 12. By dev alone A wins
    (100 > 83.33) and ships; pooled, A has 6/18 = 33.33 and B 17/18 = 94.44, so A is no
    candidate. Kept models get their slice scores from their shipped files; inflect reads the
    registry and answers with the chosen model."""
    import inflect.evaluation.runner
    import inflect.text.languages
    from inflect.inference.predictor import Predictor
    from inflect.inference.registry import default_model
    from inflect.text.languages import resolve
    from inflect.training.queue import QueueSpec

    ship = _load_ship()
    data = tmp_path / "data"
    _write_data(data)
    items = load_data(LANG, "medium", data)
    queue = tmp_path / "queue"
    QueueSpec("medium", (LANG,)).save(queue)
    train(
        tiny_config(seed=1), items, queue / LANG, device="cpu", max_epochs=1, precision="float32"
    )  # A
    train(
        tiny_config(seed=2),
        items,
        tmp_path / "multi",
        device="cpu",
        max_epochs=1,
        precision="float32",
    )  # B
    calls: list = []
    monkeypatch.setattr(
        inflect.evaluation.runner, "evaluate_checkpoints", _fake_evaluator(data, calls)
    )
    monkeypatch.setattr(inflect.text.languages, "all_languages", lambda: [resolve(LANG)])

    def ship_to(out: str, *options: str) -> dict:
        ship.main(
            [
                "--data-dir",
                str(data),
                "--results",
                str(tmp_path / "results"),
                "--out-dir",
                str(tmp_path / out),
                "--device",
                "cpu",
                *options,
            ]
        )
        return tomllib.loads((tmp_path / out / "registry.toml").read_text(encoding="utf-8"))

    new = ["--model", f"multilingual-medium={tmp_path / 'multi'}", "--queue", f"medium={queue}"]
    pooled = ship_to("pooled", *new)
    assert pooled["selection"]["criterion"] == "dev+heldout"
    assert set(pooled["model"]) == {"multilingual-medium"}  # A is no candidate
    assert pooled["language"][LANG] == {"multilingual-medium": 83.33}  # 5 of 6, the dev figure
    assert pooled["heldout"][LANG] == {"words": 12, "pooled": {"multilingual-medium": 94.44}}
    assert sorted(calls) == [(1, "dev", 6), (1, "slice", 12), (2, "dev", 6), (2, "slice", 12)]

    dev_alone = ship_to("dev", *new, "--select-on", "dev")
    assert dev_alone["selection"]["criterion"] == "dev" and "heldout" not in dev_alone
    # A ships, and B, then no language's best, is dropped
    assert dev_alone["language"][LANG] == {"german-medium": 100.0}
    assert len(calls) == 4  # the dev scores from the cache
    assert default_model(LANG, tmp_path / "dev").name == "german-medium"

    # A shipped by dev alone, kept and competing: its slice score is taken from its shipped
    # file (stored in float16: new bytes, so scored once, then cached), and A leaves
    again = [
        "--model",
        f"multilingual-medium={tmp_path / 'multi'}",
        "--keep",
        "german-medium",
        "--kept-compete",
    ]
    ship.main(
        [
            "--data-dir",
            str(data),
            "--results",
            str(tmp_path / "results"),
            "--out-dir",
            str(tmp_path / "dev"),
            "--device",
            "cpu",
            "--dry-run",
            *again,
        ]
    )
    assert calls[4:] == [(1, "slice", 12)]
    kept = ship_to("dev", *again)
    assert len(calls) == 5  # cached: the same members, the same slice
    assert set(kept["model"]) == {"multilingual-medium"}
    assert kept["heldout"][LANG] == {"words": 12, "pooled": {"multilingual-medium": 94.44}}
    assert not (tmp_path / "dev" / "per-language").exists()  # its weights removed

    # inflect reads the registry: the model chosen, its figures, and it loads and answers
    entry = default_model(LANG, tmp_path / "dev")
    assert entry.name == "multilingual-medium" and entry.dev_accuracy == 83.33
    assert (entry.selection_accuracy, entry.heldout_words) == (94.44, 12)
    record = Predictor.from_checkpoints(list(entry.members)).predict("wort3", "N;NOM;PL")
    assert record.forms
