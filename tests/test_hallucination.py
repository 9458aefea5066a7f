"""Hallucinated training pairs (Anastasopoulos & Neubig 2019): the alignment's stem runs, the
substitution, the fill-up per language, and the trainer's use and record of them; long pairs
(stems lengthened by pieces of other lemmas, for long new words): where the insertion goes, what it is made
of, how many, and the trainer's use and record of them."""

from __future__ import annotations

import random

import pytest
import synthetic
from click.testing import CliRunner

from inflect.cli import main
from inflect.nn.checkpoint import load_checkpoint
from inflect.training.config import Config, TrainConfig
from inflect.training.hallucination import (
    alphabet,
    hallucinate,
    hallucinate_item,
    lengthen,
    lengthen_item,
    stem_runs,
)
from inflect.training.items import Item, TrainingData
from inflect.training.trainer import Trainer, train

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


def item(lemma: str, form: str, tags: tuple[str, ...] = ("V", "PST"), lang: str = "x") -> Item:
    return Item(tuple(lemma), tags, lang, tuple(form))


# ------------------------------------------------------------------------- the alignment, by hand


def test_stem_runs_of_a_prefix_and_a_suffix():
    # sagen -> gesagt: "ge" inserted, "sag" aligned (lemma 0..2, form 2..4), "en" -> "t"
    assert stem_runs(tuple("sagen"), tuple("gesagt")) == [(0, 2, 3)]


def test_stem_runs_keep_only_runs_of_three_or_more():
    # Haus -> Häuser: H | a/ä | us | +er: no run of three
    assert stem_runs(tuple("Haus"), tuple("Häuser")) == []
    # spielen -> gespielt: "spiele" is not all kept: "spiel" (5) then e/t, n deleted
    assert stem_runs(tuple("spielen"), tuple("gespielt")) == [(0, 2, 5)]


def test_stem_runs_find_two_runs_around_an_infix():
    # kitabun -> kutubun: k|i/u|t|a/u|bun: only "bun" is three long
    assert stem_runs(tuple("kitabun"), tuple("kutubun")) == [(4, 4, 3)]
    # abcdXefgh -> abcdYefghZ: two runs, "abcd" and "efgh"
    assert stem_runs(tuple("abcdXefgh"), tuple("abcdYefghZ")) == [(0, 0, 4), (5, 5, 4)]


def test_alphabet_leaves_out_spaces_and_punctuation():
    items = [item("a-b c", "a-b cd"), item("xy'", "xyz")]
    assert alphabet(items) == ["a", "b", "c", "d", "x", "y", "z"]


# ------------------------------------------------------------------------- the substitution


class Scripted(random.Random):
    """A random source whose draws are given: ``random()`` answers from ``coins``, ``choice``
    from ``picks`` (each an index into the sequence)."""

    def __init__(self, coins: list[float], picks: list[int]) -> None:
        super().__init__(0)
        self.coins, self.picks = list(coins), list(picks)

    def random(self) -> float:
        return self.coins.pop(0)

    def choice(self, seq):
        return seq[self.picks.pop(0)]


def test_a_short_run_has_every_symbol_replaceable():
    # run "sag" (3 <= 5): all three places; coins 0.1, 0.9, 0.3 replace places 0 and 2
    rng = Scripted([0.1, 0.9, 0.3], [0, 1])
    new = hallucinate_item(item("sagen", "gesagt"), ["x", "y"], rng)
    assert new == item("xayen", "gexayt")


def test_a_long_run_keeps_its_first_and_last_symbol():
    # run "spiel" is 5 long: all places; "abcdefg" -> "abcdefgs": run of 7 keeps a and g
    rng = Scripted([0.0] * 5, [0, 0, 0, 0, 0])
    new = hallucinate_item(item("abcdefg", "abcdefgs"), ["z"], rng)
    assert new == item("azzzzzg", "azzzzzgs")


def test_at_least_one_symbol_is_replaced():
    # every coin says "keep": one place is chosen (index 1 of the three), then its symbol
    rng = Scripted([0.9, 0.9, 0.9], [1, 0])
    new = hallucinate_item(item("sagen", "gesagt"), ["q"], rng)
    assert new == item("sqgen", "gesqgt")


def test_a_pair_without_a_stem_run_gives_nothing():
    assert hallucinate_item(item("Haus", "Häuser"), ["x"], random.Random(1)) is None


def test_spaces_inside_a_run_stay():
    rng = Scripted([0.0] * 4, [0] * 4)
    new = hallucinate_item(item("ab cd", "ab cde"), ["z"], rng)
    assert new == item("zz zz", "zz zze")


# ------------------------------------------------------------------------- the fill-up


def test_each_language_is_filled_up_to_the_size():
    xs = [item(lem, "ge" + lem[:-2] + "t", lang="x") for lem in ("sagen", "machen", "legen")]
    ys = [item("kaufen", "gekauft", lang="y")] * 4
    made = hallucinate(xs + ys, 10, seed=3)
    langs = [it.language for it in made]
    assert langs.count("x") == 7 and langs.count("y") == 6
    for new in made:
        source, target = "".join(new.source), "".join(new.target)
        assert new.features == ("V", "PST")
        # the stem changed in both alike: the form is still "ge" + stem + "t"
        assert target == "ge" + source[:-2] + "t"
        assert new not in xs + ys
        own = xs if new.language == "x" else ys  # letters of the pair's own language only
        assert set(source) <= {s for it in own for s in it.source + it.target}


def test_a_language_at_the_size_gets_none_and_the_pairs_are_seeded():
    xs = [item("sagen", "gesagt"), item("legen", "gelegt")]
    assert hallucinate(xs, 2, seed=1) == []
    assert hallucinate(xs, 0, seed=1) == []
    assert hallucinate(xs, 50, seed=1) == hallucinate(xs, 50, seed=1)
    assert hallucinate(xs, 50, seed=1) != hallucinate(xs, 50, seed=2)


def test_a_language_without_stem_runs_gets_none():
    assert hallucinate([item("Haus", "Häuser"), item("ab", "abe")], 100, seed=1) == []


def test_the_report_says_the_size_after_and_warns_where_none_was_added():
    from inflect.training.hallucination import hallucination_report
    from inflect.training.progress import hallucination_lines

    xs = [item(lem, "ge" + lem[:-2] + "t", lang="x") for lem in ("sagen", "machen", "legen")]
    ys = [item("kaufen", "gekauft", lang="y")] * 12  # 12 pairs: at or above the size
    zs = [item("Haus", "Häuser", lang="z")]  # no stem run
    items = xs + ys + zs
    made = hallucinate(items, 10, seed=3)
    report = hallucination_report(items, made, 10)
    # x: 3 + 7 = 10; y: 12 >= 10, none; z: no stem run, none (counted by hand)
    assert report == {"size": 10, "before": 16, "after": 23, "added": {"x": 7, "y": 0, "z": 0},
                      "full": {"y": 12}, "no_stem": ["z"]}
    line, warning = hallucination_lines(report)
    assert line == ("--hallucinate 10: 7 hallucinated pairs (x 7) added to the 16 of the data: "
                    "23 training pairs")
    assert "y 12" in warning and "give N above it" in warning and "no pair of z" in warning
    assert hallucination_report(items, [], 0) is None

    # the case met: --hallucinate 5000 on a training set of 10,000 pairs adds nothing, said so
    many = [item(f"sag{i:05d}en", f"gesag{i:05d}t", lang="german") for i in range(10_000)]
    report = hallucination_report(many, hallucinate(many, 5000, seed=1), 5000)
    line, warning = hallucination_lines(report)
    assert line == "--hallucinate 5,000: no pair added; the training set keeps its 10,000 pairs"
    assert warning is not None and "german 10,000" in warning


def test_the_config_field_is_checked():
    assert TrainConfig(hallucinate=10_000).hallucinate == 10_000
    with pytest.raises(ValueError, match="hallucinate"):
        TrainConfig(hallucinate=-1)
    with pytest.raises(ValueError, match="hallucinate"):
        TrainConfig(hallucinate=2.5)


# ------------------------------------------------------------------------- the trainer


def test_the_trainer_trains_on_the_hallucinated_pairs_and_records_them(tmp_path):
    train_items, dev_items = synthetic.items(60, seed=1), synthetic.items(20, seed=2)
    config = Config.from_preset("tiny", hallucinate=200, max_epochs=1)
    events = []
    trainer = Trainer(config, TrainingData(train_items, dev_items), tmp_path, device="cpu",
                      progress=lambda event, info: events.append((event, info)))
    result = trainer.run()
    start = next(info for event, info in events if event == "start")
    assert (start["hallucination"]["before"], start["hallucination"]["after"]) == (60, 200)
    expected = hallucinate(train_items, 200, seed=1)
    # 60 real pairs and 140 hallucinated ones in every epoch (no copy items in `tiny`)
    assert trainer.sampler.items_per_epoch == 200 and len(expected) == 140
    assert result.epochs == 1
    meta = load_checkpoint(tmp_path / "model.safetensors").metadata
    assert meta["model"]["config"]["hallucinate"] == 200
    assert meta["training"]["hallucinated"] == {"synth": 140}


def test_the_train_command_takes_hallucinate(tmp_path):
    out = CliRunner().invoke(main, ["train", "--help"])
    assert "--hallucinate N" in out.output
    bad = CliRunner().invoke(main, ["train", "--lang", "german", "--hallucinate", "-3",
                                    "--out", str(tmp_path / "r")])
    assert bad.exit_code == 2 and "--hallucinate" in bad.output


def test_a_run_with_hallucinated_pairs_resumes_to_the_same_weights(tmp_path):
    train_items, dev_items = synthetic.items(40, seed=3), synthetic.items(10, seed=4)
    data = TrainingData(train_items, dev_items)
    config = Config.from_preset("tiny", hallucinate=120)
    train(config, data, tmp_path / "a", device="cpu", max_epochs=2)
    train(Config.from_preset("tiny", hallucinate=120), data, tmp_path / "b", device="cpu",
          max_epochs=1)
    train(None, data, tmp_path / "b", device="cpu", resume=True, max_epochs=2)
    a = load_checkpoint(tmp_path / "a" / "model.safetensors")
    b = load_checkpoint(tmp_path / "b" / "model.safetensors")
    assert a.metadata["training"]["hallucinated"] == b.metadata["training"]["hallucinated"]
    for key, tensor in a.network.state_dict().items():
        assert tensor.equal(b.network.state_dict()[key]), key


# ------------------------------------------------------------------------- long pairs


def _insertion(short: tuple[str, ...], long: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    """Where ``long`` is ``short`` with one block inserted: (index, block), found by hand (the
    longest common prefix, then the rest must be a suffix); the first such index."""
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    n = len(long) - len(short)
    assert long[i + n:] == short[i:], (short, long)
    return i, long[i : i + n]


def test_a_long_pair_inserts_the_same_block_inside_a_stem_run_of_lemma_and_form():
    # legen -> gelegt: the stem run "leg" (lemma 0..2, form 2..4); the insertion goes strictly
    # inside it, after "l" or after "le", in the lemma and the form alike
    pieces = [tuple("ampe"), tuple("rkel")]  # "Lampe", "Merkel" without their first letter
    for seed in range(40):
        new = lengthen_item(item("legen", "gelegt"), pieces, 8, random.Random(seed))
        at, block = _insertion(tuple("legen"), new.source)
        at_form, block_form = _insertion(tuple("gelegt"), new.target)
        assert block == block_form and at_form == at + 2 and at in (1, 2)
        assert 3 <= len(block) <= 8 and new.features == ("V", "PST") and new.language == "x"
        # the block is a prefix of a concatenation of the pieces
        joined = {"".join(p) for p in pieces}
        text = "".join(block)
        assert any(text.startswith(a) or a.startswith(text) for a in joined) or any(
            (a + b).startswith(text) for a in joined for b in joined)


def test_a_long_pair_needs_a_stem_run_without_spaces():
    pieces = [tuple("abcd")]
    assert lengthen_item(item("Haus", "Häuser"), pieces, 8, random.Random(1)) is None
    # "a b" aligned whole, but it holds a space: no run may take the insertion
    assert lengthen_item(item("a bx", "a by"), pieces, 8, random.Random(1)) is None
    assert lengthen_item(item("legen", "gelegt"), [], 8, random.Random(1)) is None


def test_long_pairs_per_language_beside_the_items_and_seeded():
    xs = [item(lem, "ge" + lem[:-2] + "t", lang="x") for lem in ("sagen", "machen", "legen")]
    ys = [item("kaufen", "gekauft", lang="y"), item("Haus", "Häuser", lang="y")]
    made = lengthen(xs + ys, 25, seed=3)
    assert [it.language for it in made] == ["x"] * 25 + ["y"] * 25
    longest = {"x": 6, "y": 6}
    for new in made:
        source, target = "".join(new.source), "".join(new.target)
        assert target == "ge" + source[:-2] + "t"  # the stem grew in both alike
        assert len(new.source) - 6 <= 2 * longest[new.language]
        own = xs if new.language == "x" else ys  # letters of the language's own lemmas
        assert set(source) <= {s for it in own for s in it.source}
    assert max(len(it.source) for it in made) > 2 * 6  # some at least twice the longest lemma
    assert lengthen(xs, 0, seed=1) == []
    assert lengthen(xs, 30, seed=1) == lengthen(xs, 30, seed=1)
    assert lengthen(xs, 30, seed=1) != lengthen(xs, 30, seed=2)
    assert lengthen([item("Haus", "Häuser")], 10, seed=1) == []  # no stem run


def test_the_long_pairs_field_is_checked():
    assert TrainConfig(long_pairs=3000).long_pairs == 3000
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="long_pairs"):
            TrainConfig(long_pairs=bad)
    # a checkpoint's config written before the field: its default, none
    assert TrainConfig.from_dict({"seed": 2}).long_pairs == 0


def test_the_trainer_trains_on_long_pairs_and_records_them(tmp_path):
    train_items, dev_items = synthetic.items(60, seed=1), synthetic.items(20, seed=2)
    config = Config.from_preset("tiny", long_pairs=30, max_epochs=1)
    trainer = Trainer(config, TrainingData(train_items, dev_items), tmp_path, device="cpu")
    trainer.run()
    assert len(lengthen(train_items, 30, seed=1)) == 30
    assert trainer.sampler.items_per_epoch == 90  # 60 real pairs and 30 long ones
    meta = load_checkpoint(tmp_path / "model.safetensors").metadata
    assert meta["model"]["config"]["long_pairs"] == 30
    assert meta["training"]["long_pairs"] == {"synth": 30}
    out = CliRunner().invoke(main, ["train", "--help"])
    assert "--long-pairs N" in out.output
