"""ship.py's preparation of every member before it is scored (recipes/sigmorphon2018/ship.py,
``prepared``): the search records of its training data are added, a per-language model is
restricted to its own language's symbols, features and language, ``--int8`` stores int8 rows
with a float16 scale per row, ``--int4`` the models it names in 4 bits from their float
checkpoint only, and a prepared copy is rewritten only when its source changes."""

from __future__ import annotations

import os

import pytest
import synthetic
import torch
from test_recipe_sigmorphon import _load_ship
from test_train import tiny_config
from test_trim import CYRILLIC

from inflect.nn.checkpoint import INT4_GROUPS, dequantize, load_tensors
from inflect.training.items import load_data
from inflect.training.trainer import train


def _write_language(folder, language: str, seed: int, script=None) -> set[str]:
    """``LANGUAGE-train-high`` and ``LANGUAGE-dev`` (2018 layout); the symbols written."""
    symbols = set()
    for split, n in (("train-high", 40), ("dev", 6)):
        lines = []
        for it in synthetic.items(n, seed=seed + len(split), language=language):
            lemma, form = "".join(it.source), "".join(it.target)
            if script:
                lemma, form = lemma.translate(script), form.translate(script)
            if split == "train-high":
                symbols |= set(lemma) | set(form)
            lines.append(f"{lemma}\t{form}\t{';'.join(sorted(it.features))}\n")
        (folder / f"{language}-{split}").write_text("".join(lines), encoding="utf-8")
    return symbols


def test_prepared_members_carry_records_are_trimmed_and_int8(tmp_path):
    ship = _load_ship()
    data = tmp_path / "data"
    data.mkdir()
    german = _write_language(data, "german", 1)
    russian = _write_language(data, "russian", 5, CYRILLIC)
    assert russian - german, "the two languages share every symbol: the test shows nothing"
    both = load_data("german,russian", "high", data)
    train(tiny_config(), both, tmp_path / "multi", device="cpu", max_epochs=1,
          precision="float32")
    train(tiny_config(), load_data("german", "high", data), tmp_path / "de", device="cpu",
          max_epochs=1, precision="float32", init_from=tmp_path / "multi" / "model.safetensors")
    _, de_meta = load_tensors(tmp_path / "de" / "model.safetensors")
    assert set(de_meta["model"]["target_vocab"]["symbols"]) == german | russian  # warm start

    models = {"german-high": [tmp_path / "de"], "multilingual-high": [tmp_path / "multi"]}
    out = ship.prepared(models, {"german-high"}, tmp_path / "results", str(data), int8=True)
    de_tensors, de = load_tensors(out["german-high"][0])
    multi_tensors, multi = load_tensors(out["multilingual-high"][0])

    # the per-language member: its own language's symbols, features and language only
    assert set(de["model"]["target_vocab"]["symbols"]) == german
    assert set(de["model"]["source_vocab"]["symbols"]) == german
    assert de["model"]["language_vocab"]["symbols"] == ["german"]
    alphabets = dict(de["model"]["output_alphabets"])
    written = alphabets.pop("*written*")  # the symbols its forms write, not only copy
    assert alphabets == {"german": sorted(german)}
    assert list(written) == ["german"] and set(written["german"]) <= german
    assert [d["name"] for d in de["languages"]] == ["german"]
    specials = len(de["model"]["target_vocab"]["specials"])
    assert de_tensors["generator.weight"].shape[0] == specials + len(german)
    # the multilingual member: every row kept, each language's alphabet recorded
    assert set(multi["model"]["target_vocab"]["symbols"]) == german | russian
    alphabets = dict(multi["model"]["output_alphabets"])
    written = alphabets.pop("*written*")
    assert alphabets == {"german": sorted(german), "russian": sorted(russian)}
    assert set(written) == {"german", "russian"}
    assert set(written["german"]) <= german and set(written["russian"]) <= russian
    for tensors, meta in ((de_tensors, de), (multi_tensors, multi)):
        assert meta["model"]["output_lengths"]  # the length limits of its training data
        assert tensors["generator.weight"].dtype == torch.int8
        assert tensors["generator.weight:scale"].dtype == torch.float16
    # the trimmed int8 rows are the untrimmed int8 rows of the kept symbols
    multi_vocab = ["<pad>", "<s>", "</s>", "<unk>"][:specials] + \
        multi["model"]["target_vocab"]["symbols"]
    de_vocab = multi_vocab[:specials] + de["model"]["target_vocab"]["symbols"]
    original, _ = load_tensors(tmp_path / "de" / "model.safetensors")
    kept = torch.tensor([multi_vocab.index(s) for s in de_vocab])
    expected = original["generator.weight"].index_select(0, kept)
    scale = de_tensors["generator.weight:scale"].unsqueeze(1)
    assert torch.allclose(de_tensors["generator.weight"].float() * scale, expected,
                          atol=float(scale.max()) / 2 + 1e-7)

    # prepared again: nothing is rewritten while the sources are the same
    stamps = {p: os.stat(p).st_mtime_ns for ps in out.values() for p in ps}
    again = ship.prepared(models, {"german-high"}, tmp_path / "results", str(data), int8=True)
    assert {p: os.stat(p).st_mtime_ns for ps in again.values() for p in ps} == stamps
    # ... and without --int8 the same source is prepared again, in float32
    plain = ship.prepared(models, {"german-high"}, tmp_path / "results", str(data), int8=False)
    tensors, _ = load_tensors(plain["german-high"][0])
    assert tensors["generator.weight"].dtype == torch.float32

    # a shipped member (a prepared copy) shipped again the same way is taken byte for byte:
    # prepared again, its bytes (and so its cached scores' key) would change
    first = ship.prepared(models, {"german-high"}, tmp_path / "first", str(data), int8=True)
    shipped = {n: [tmp_path / "shipped" / n / "member-1.safetensors"] for n in first}
    for name, (path,) in first.items():
        shipped[name][0].parent.mkdir(parents=True)
        shipped[name][0].write_bytes(path.read_bytes())
    for results in ("first", "second"):  # a stale copy there, and none
        again = ship.prepared(shipped, {"german-high"}, tmp_path / results, str(data), int8=True)
        for name, (path,) in again.items():
            assert path.read_bytes() == shipped[name][0].read_bytes(), (results, name)
    # ... but not where it was prepared otherwise: an int8 copy asked for in float32
    plain = ship.prepared(shipped, {"german-high"}, tmp_path / "third", str(data), int8=False)
    _, meta = load_tensors(plain["german-high"][0])
    assert meta["prepared_from"]["int8"] is False


def test_int4_members_come_from_the_float_checkpoint_only(tmp_path):
    ship, storage = _load_ship(), _load_ship("ship_storage")
    data = tmp_path / "data"
    data.mkdir()
    german = _write_language(data, "german", 1)
    train(tiny_config(), load_data("german", "high", data), tmp_path / "de", device="cpu",
          max_epochs=1, precision="float32")
    models = {"german-high": [tmp_path / "de"]}
    four = ship.prepared(models, {"german-high"}, tmp_path / "four", str(data), int8=True,
                         int4=frozenset({"german-high"}))
    tensors, meta = load_tensors(four["german-high"][0])
    assert meta["quantized"] == INT4_GROUPS
    assert meta["prepared_from"]["int4"] == storage.INT4_GROUP and not meta["prepared_from"]["int8"]
    weight = tensors["generator.weight"]
    rows = len(meta["model"]["target_vocab"]["specials"]) + len(german)
    assert weight.dtype == torch.uint8 and weight.shape[0] == rows
    hidden = int(tensors["generator.weight:shape"][0])
    groups = -(-hidden // storage.INT4_GROUP)
    assert tensors["generator.weight:scale"].shape == (rows, groups)
    # every weight within half a step of its group (max |group| / 7) of the float checkpoint's
    original, _ = load_tensors(tmp_path / "de" / "model.safetensors")
    back = dequantize(tensors, meta)["generator.weight"]
    step = tensors["generator.weight:scale"].float().repeat_interleave(storage.INT4_GROUP, dim=1)
    assert ((back - original["generator.weight"]).abs() <= step[:, :hidden] / 2 + 1e-6).all()

    # shipped, then shipped again the same way: byte for byte
    shipped = {"german-high": [tmp_path / "shipped" / "member-1.safetensors"]}
    shipped["german-high"][0].parent.mkdir()
    shipped["german-high"][0].write_bytes(four["german-high"][0].read_bytes())
    again = ship.prepared(shipped, {"german-high"}, tmp_path / "again", str(data), int8=True,
                          int4=frozenset({"german-high"}))
    assert again["german-high"][0].read_bytes() == shipped["german-high"][0].read_bytes()
    # ... but never quantized twice: an int4 copy asked for in int8, an int8 one in int4
    with pytest.raises(SystemExit, match=r"stored in int4-groups.*give the float checkpoint"):
        ship.prepared(shipped, {"german-high"}, tmp_path / "eight", str(data), int8=True)
    eight = ship.prepared(models, {"german-high"}, tmp_path / "eight", str(data), int8=True)
    with pytest.raises(SystemExit, match="stored in int8-rows; to store it in int4"):
        ship.prepared(eight, {"german-high"}, tmp_path / "eight-four", str(data), int8=True,
                      int4=frozenset({"german-high"}))


def test_a_kept_int8_model_is_stored_again_in_4_bits_only_when_named(tmp_path):
    """--int4-kept: a shipped int8 model whose float checkpoint is gone competes as NAME~int4,
    its int8 weights dequantized then stored in 4 bits: each weight within half a 4-bit step
    of the int8 copy's (max |group| / 7 of that copy); only int8 kept models of one language."""
    ship, storage = _load_ship(), _load_ship("ship_storage")
    candidates = _load_ship("ship_candidates")
    data = tmp_path / "data"
    data.mkdir()
    _write_language(data, "german", 1)
    train(tiny_config(), load_data("german", "high", data), tmp_path / "de", device="cpu",
          max_epochs=1, precision="float32")
    eight = ship.prepared({"german-high": [tmp_path / "de"]}, {"german-high"},
                          tmp_path / "eight", str(data), int8=True)
    out_dir = tmp_path / "models"
    member = out_dir / "per-language" / "high" / "german" / "member-1.safetensors"
    member.parent.mkdir(parents=True)
    member.write_bytes(eight["german-high"][0].read_bytes())
    kept = {"german-high": {"members": ["per-language/high/german/member-1.safetensors"]},
            "multi": {"members": ["multi/member-1.safetensors"]}}
    v = ship.INT4_VARIANT
    requantized = candidates.requantized_kept(["german-high"], kept, out_dir)
    assert requantized == {"german-high" + v: [member]}
    four = ship.prepared(requantized, {"german-high" + v}, tmp_path / "four", str(data),
                         int8=True, requantize=frozenset(requantized))
    tensors, meta = load_tensors(four["german-high" + v][0])
    assert meta["quantized"] == INT4_GROUPS
    assert meta["prepared_from"]["from"] == "int8-rows"
    assert meta["prepared_from"]["int4"] == storage.INT4_GROUP
    int8_tensors, int8_meta = load_tensors(member)
    before = dequantize(int8_tensors, int8_meta)["generator.weight"]
    back = dequantize(tensors, meta)["generator.weight"]
    hidden = before.shape[1]
    step = tensors["generator.weight:scale"].float().repeat_interleave(storage.INT4_GROUP, dim=1)
    assert ((back - before).abs() <= step[:, :hidden] / 2 + 1e-6).all()
    assert (back != before).any()  # stored again, not copied
    # not named: an int8 member is still never quantized again
    with pytest.raises(SystemExit, match="stored in int8-rows; to store it in int4"):
        ship.prepared(requantized, {"german-high" + v}, tmp_path / "refused", str(data),
                      int8=True, int4=frozenset(requantized))
    # only int8 models of one language that are kept
    with pytest.raises(SystemExit, match="not a --keep model of one language"):
        candidates.requantized_kept(["multi"], kept, out_dir)
    with pytest.raises(SystemExit, match="not a --keep model"):
        candidates.requantized_kept(["latin-high"], kept, out_dir)
    member.write_bytes(four["german-high" + v][0].read_bytes())
    with pytest.raises(SystemExit, match=r"stored as \['int4-groups'\], not int8-rows"):
        candidates.requantized_kept(["german-high"], kept, out_dir)


def test_each_member_of_a_kept_4_bit_ensemble_competes_alone_as_it_is(tmp_path):
    """--members-alone: NAME~memberK~int4 for each member of a kept 4-bit ensemble, prepared
    by taking the shipped file as it is (the same bytes); refused for a single model and for
    an ensemble not in 4 bits."""
    ship = _load_ship()
    candidates = _load_ship("ship_candidates")
    data = tmp_path / "data"
    data.mkdir()
    _write_language(data, "german", 1)
    out_dir = tmp_path / "models"
    folder = out_dir / "per-language" / "high" / "german"
    folder.mkdir(parents=True)
    members = []
    for k in (1, 2):
        train(tiny_config(seed=k), load_data("german", "high", data), tmp_path / f"de{k}",
              device="cpu", max_epochs=1, precision="float32")
        four = ship.prepared({"german-high~int4": [tmp_path / f"de{k}"]}, {"german-high~int4"},
                             tmp_path / f"four{k}", str(data), int8=True,
                             int4=frozenset({"german-high~int4"}))
        members.append(folder / f"member-{k}.safetensors")
        members[-1].write_bytes(four["german-high~int4"][0].read_bytes())
    kept = {"german-high": {"members": [f"per-language/high/german/member-{k}.safetensors"
                                        for k in (1, 2)]},
            "latin-high": {"members": ["per-language/high/german/member-1.safetensors"]}}
    alone = candidates.members_alone(["german-high"], kept, out_dir)
    v = ship.INT4_VARIANT
    assert alone == {f"german-high~member1{v}": [members[0]],
                     f"german-high~member2{v}": [members[1]]}
    assert {candidates.base_name(n) for n in alone} == {"german-high"}
    again = ship.prepared(alone, set(alone), tmp_path / "alone", str(data), int8=True,
                          int4=frozenset(alone))
    for name, (path,) in zip(alone, ([members[0]], [members[1]]), strict=True):
        assert again[name][0].read_bytes() == path.read_bytes()
    with pytest.raises(SystemExit, match="not a --keep ensemble of one language"):
        candidates.members_alone(["latin-high"], kept, out_dir)
    eight = ship.prepared({"german-high": [tmp_path / "de1"]}, {"german-high"},
                          tmp_path / "eight", str(data), int8=True)
    members[1].write_bytes(eight["german-high"][0].read_bytes())
    with pytest.raises(SystemExit, match="not all stored in int4-groups"):
        candidates.members_alone(["german-high"], kept, out_dir)


def test_a_shipped_4_bit_model_competes_as_its_4_bit_variant(tmp_path):
    ship = _load_ship()
    data = tmp_path / "data"
    data.mkdir()
    _write_language(data, "german", 1)
    train(tiny_config(), load_data("german", "high", data), tmp_path / "de", device="cpu",
          max_epochs=1, precision="float32")
    queued = {"german-high": [tmp_path / "de"], "latin-high": [tmp_path / "de"]}
    four = ship.prepared({"german-high": queued["german-high"]}, {"german-high"},
                         tmp_path / "four", str(data), int8=True, int4=frozenset({"german-high"}))
    eight = ship.prepared({"latin-high": queued["latin-high"]}, {"latin-high"},
                          tmp_path / "eight", str(data), int8=True)
    shipped = {"german-high": four["german-high"], "latin-high": eight["latin-high"]}
    v = ship.INT4_VARIANT
    # out of --int4 (committed twice): each competes only as it is stored
    assert ship.storage_variants(shipped, queued, set()) == {
        "german-high" + v: four["german-high"], "latin-high": eight["latin-high"]}
    # named by --int4: the other storage from the queue's float checkpoint as well
    assert ship.storage_variants(shipped, queued, {"german-high", "latin-high"}) == {
        "german-high" + v: four["german-high"], "german-high": queued["german-high"],
        "latin-high": eight["latin-high"], "latin-high" + v: queued["latin-high"]}
    # the shipped 4-bit copy under its variant's name is taken as it is, never quantized again
    again = ship.prepared({"german-high" + v: four["german-high"]}, {"german-high" + v},
                          tmp_path / "again", str(data), int8=True,
                          int4=frozenset({"german-high" + v}))
    assert again["german-high" + v][0].read_bytes() == four["german-high"][0].read_bytes()


def test_a_language_trained_again_keeps_the_better_model(capsys):
    ship = _load_ship()
    shipped = {"finnish-high": ["old/finnish"], "latin-high": ["old/latin"]}
    queued = {"finnish-high": ["new/finnish"], "latin-high": ["new/latin"],
              "navajo-high": ["new/navajo"]}
    models, greedy = ship.reship_candidates(
        shipped, {"finnish-high": 91.4, "latin-high": 60.0},
        queued, {"finnish-high": 90.0, "latin-high": 64.9, "navajo-high": 61.0})
    assert models == {"finnish-high": ["old/finnish"], "latin-high": ["new/latin"],
                      "navajo-high": ["new/navajo"]}
    assert greedy == {"finnish-high": 91.4, "latin-high": 64.9, "navajo-high": 61.0}
    # a tie keeps the shipped one
    models, _ = ship.reship_candidates(shipped, {"finnish-high": 90.0}, queued,
                                       {"finnish-high": 90.0})
    assert models["finnish-high"] == ["old/finnish"]
    assert "greedy dev 90.0 and 90.0" in capsys.readouterr().out


def test_a_language_finished_in_two_queues_gives_the_better_run_then_the_smaller(tmp_path,
                                                                                  capsys):
    ship = _load_ship("ship_candidates")
    runs = {}
    for name, size in (("warm", 900), ("small", 400), ("other", 400)):
        runs[name] = tmp_path / name / "latin"
        runs[name].mkdir(parents=True)
        (runs[name] / "model.safetensors").write_bytes(b"x" * size)
    models, greedy = {}, {}
    ship.keep_better_run(models, greedy, "latin-high", runs["warm"], 96.0)
    ship.keep_better_run(models, greedy, "latin-high", runs["small"], 95.0)  # worse: left out
    assert models == {"latin-high": [runs["warm"]]} and greedy == {"latin-high": 96.0}
    ship.keep_better_run(models, greedy, "latin-high", runs["small"], 96.0)  # a tie, smaller
    assert models == {"latin-high": [runs["small"]]}
    ship.keep_better_run(models, greedy, "latin-high", runs["other"], 96.0)  # a tie of both
    assert models == {"latin-high": [runs["small"]]}
    ship.keep_better_run(models, greedy, "latin-high", runs["warm"], 97.5)  # better
    assert models == {"latin-high": [runs["warm"]]} and greedy == {"latin-high": 97.5}
    assert "greedy dev 96.0, 0.00 MB" in capsys.readouterr().out


def test_a_warm_start_from_a_snapshot_of_the_package_is_named_by_its_package_path():
    ship = _load_ship("ship_registry")
    root = ship.Path(ship.__file__).resolve().parents[2]
    member = "inflect/models/multilingual-high/member-1.safetensors"
    assert ship.checkout_relative(str(root / member)) == member
    assert ship.checkout_relative(f"/somewhere/code-1/{member}") == member
    assert ship.checkout_relative("/somewhere/runs/high-s1/model.safetensors") == \
        "/somewhere/runs/high-s1/model.safetensors"


def test_a_start_written_by_hand_is_kept_when_its_run_is_gone():
    ship = _load_ship("ship_registry")
    digest = "98cdf2cf" * 8
    facts = {"member_trainings": [{"init_from": {"path": "runs/gone/model.safetensors",
                                                 "sha256": digest}}] * 2}
    commands, note = ship.start_of(facts)
    assert commands == [] and "not here, so its command is not recorded" in note
    previous = {"start_commands": ["inflect train --lang all --epochs 9 --out runs/high-s1"],
                "start_note": f"runs/gone/model.safetensors (SHA-256 {digest}) is run high-s1"}
    assert ship.start_of(facts, previous) == (previous["start_commands"],
                                              previous["start_note"])
    # a note about another start is not carried over
    other = dict(previous, start_note="runs/gone/model.safetensors (SHA-256 0123) is ...")
    assert ship.start_of(facts, other)[0] == []


def test_the_per_language_table_names_queue_states_and_averages_by_hand(tmp_path):
    """ship.py's per-language table: the shipped figure is the best shipped model of the
    setting; a queue language not yet trained reads "queued"; the macro row by hand."""
    import pandas as pd

    from inflect.training.queue import QueueSpec

    ship = _load_ship()
    root = tmp_path / "queue"
    root.mkdir()
    QueueSpec("high", ("alpha", "beta")).save(root)
    scores = {
        "multilingual-high": pd.DataFrame({"language": ["alpha", "beta", "gamma"],
                                           "accuracy": [50.0, 80.0, 90.0]}),
        "alpha-high": pd.DataFrame({"language": ["alpha"], "accuracy": [70.0]}),
    }
    settings = {"multilingual-high": "high", "alpha-high": "high"}
    baseline = pd.DataFrame({"setting": ["high"] * 3, "language": ["alpha", "beta", "gamma"],
                             "accuracy": [60.0, 85.0, 80.0]})
    # the 2018 winner's test figures (the official sheet's layout): beside ours, as anchors
    sheet = tmp_path / "data" / "conll2018-task1-results"
    sheet.mkdir(parents=True)
    (sheet / "high.tsv").write_text("languages\tuzh-01\tbaseline\nalpha\t95.0\t1\n"
                                    "beta\t96.5\t2\ngamma\t97.0\t3\n", encoding="utf-8")
    table = ship.per_language_table("high", scores, settings, {"alpha-high"},
                                    {"multilingual-high", "alpha-high"}, [f"high={root}"],
                                    baseline, str(tmp_path / "data"))
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    assert rows[0] == ["alpha", "60.0", "50.0", "70.0", "", "70.0", "alpha-high", "95.0"]
    assert rows[1] == ["beta", "85.0", "80.0", "queued", "", "80.0", "multilingual-high", "96.5"]
    assert rows[2] == ["gamma", "80.0", "90.0", "—", "", "90.0", "multilingual-high", "97.0"]
    # macro: baseline (60+85+80)/3 = 75.0, before (50+80+90)/3 = 73.3, shipped 80.0; 2 of 3
    # above; the winner (95+96.5+97)/3 = 96.2
    assert rows[3] == ["**macro (3)**", "75.0", "73.3", "", "0.0 h", "**80.0**",
                       "2 of 3 at or above the baseline", "96.2"]


def test_the_per_language_table_counts_a_queue_named_twice_once(tmp_path, monkeypatch):
    """A queue given with --queue and inside an --ensemble reaches the table twice: its
    language's CPU minutes are its runs' (10 CPU minutes here), not twice them."""
    import pandas as pd

    from inflect.training import queue as queue_module
    from inflect.training.queue import LanguageStatus, QueueSpec

    ship = _load_ship()
    root = tmp_path / "queue"
    root.mkdir()
    QueueSpec("high", ("alpha",)).save(root)
    monkeypatch.setattr(queue_module, "queue_status", lambda r, failed=(): [
        LanguageStatus("alpha", "finished", epochs=3, best_accuracy=70.0, cpu_seconds=600.0)])
    scores = {"multilingual-high": pd.DataFrame({"language": ["alpha"], "accuracy": [50.0]}),
              "alpha-high": pd.DataFrame({"language": ["alpha"], "accuracy": [70.0]})}
    baseline = pd.DataFrame({"setting": ["high"], "language": ["alpha"], "accuracy": [60.0]})
    table = ship.per_language_table("high", scores, {"multilingual-high": "high",
                                                     "alpha-high": "high"}, {"alpha-high"},
                                    {"multilingual-high", "alpha-high"},
                                    [f"high={root}", f"high={root}"],
                                    baseline, str(tmp_path / "data"))
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    assert rows[0][4] == "10.0" and rows[1][4] == "0.2 h"


def test_an_ensemble_variant_ships_under_its_models_name_and_says_how_it_was_made():
    """The variants of a per-language model (4 bits, an ensemble of its runs in several queues)
    compete under their own names and ship under the model's; the registry's method says how
    the members were made."""
    candidates = _load_ship("ship_candidates")
    selection = _load_ship("ship_selection")
    registry = _load_ship("ship_registry")
    ens = "basque-medium" + candidates.ENSEMBLE_VARIANT
    assert ens == "basque-medium~ens~int4" and ens.endswith(candidates.INT4_VARIANT)
    assert candidates.language_of(ens) == "basque" and candidates.base_name(ens) == "basque-medium"
    assert candidates.language_of("old-english-medium~int4") == "old-english"
    chosen = [ens]
    table = {"basque-medium~int4": 1, ens: 2, "zulu-medium": 3}
    selection.settle_variants(chosen, table)
    assert table == {"basque-medium": 2, "zulu-medium": 3}
    scratch = "inflect train --lang basque --setting medium --seed 1 --preset cpu-small --out a"
    halluc = scratch.replace("--out a", "--hallucinate 5000 --out b")
    warm = scratch.replace("--out a", "--init-from m.safetensors --learning-rate 0.0005 --out c")
    assert registry.method_of([scratch]) == "from scratch"
    assert registry.method_of([warm]) == "warm start"
    assert registry.method_of([scratch, scratch]) == "ensemble of 2, each from scratch"
    assert registry.method_of([scratch, halluc]) == (
        "ensemble of 2: from scratch; from scratch, hallucinated pairs to 5,000 a language")
    long = warm.replace("--out c", "--long-pairs 3000 --out d")
    assert registry.method_of([long]) == "warm start, 3,000 long pairs a language"


def test_only_int4_leaves_out_the_other_storage(tmp_path):
    candidates = _load_ship("ship_candidates")
    run = tmp_path / "q" / "zulu"
    run.mkdir(parents=True)
    train(tiny_config(), load_data("german", "high", _tiny_data(tmp_path)), run, device="cpu",
          max_epochs=1, precision="float32")
    queued = {"zulu-medium": [run]}
    both = candidates.storage_variants(queued, queued, {"zulu-medium"})
    assert both == {"zulu-medium": [run], "zulu-medium~int4": [run]}
    only = candidates.storage_variants(queued, queued, {"zulu-medium"}, only_int4=True)
    assert only == {"zulu-medium~int4": [run]}
    # a model not named in int4 ships as it is either way
    assert candidates.storage_variants(queued, queued, set(), only_int4=True) == queued


def _tiny_data(tmp_path):
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    _write_language(data, "german", 1)
    return data


def test_an_ensemble_is_offered_for_the_languages_finished_in_every_queue(tmp_path):
    from inflect.training.queue import QueueSpec

    candidates = _load_ship("ship_candidates")
    data = load_data("german", "high", _tiny_data(tmp_path))
    roots = [tmp_path / "scratch", tmp_path / "halluc"]
    for k, root in enumerate(roots, 1):
        QueueSpec("high", ("german", "latin")).save(root)  # latin: queued, never trained
        train(tiny_config(seed=k), data, root / "german", device="cpu", max_epochs=1,
              precision="float32")
    models, greedy = candidates.ensemble_models([f"high={roots[0]}+{roots[1]}"])
    assert models == {"german-high~ens~int4": [roots[0] / "german", roots[1] / "german"]}
    assert set(greedy) == {"german-high~ens~int4"}
    # german in two specs: each pairing competes, the second under its own name
    models, _ = candidates.ensemble_models([f"high={roots[0]}+{roots[1]}",
                                            f"high={roots[1]}+{roots[0]}"])
    assert models == {"german-high~ens~int4": [roots[0] / "german", roots[1] / "german"],
                      "german-high~ens2~int4": [roots[1] / "german", roots[0] / "german"]}
    assert candidates.language_of("german-high~ens2~int4") == "german"
    with pytest.raises(SystemExit, match="SETTING=ROOT"):
        candidates.ensemble_models([f"high={roots[0]}"])
    with pytest.raises(SystemExit, match="not medium"):
        candidates.ensemble_models([f"medium={roots[0]}+{roots[1]}"])


def test_a_kept_model_of_one_language_competes_with_its_ensemble_and_may_leave():
    """With --kept-compete the kept per-language models join the selection (ship.py's pool):
    a language's ensemble replaces its kept model where it gains more per byte, and a kept model
    of little gain per byte leaves to make room within the budget. Gains by hand: cornish's
    ensemble +34 over the multilingual 32 for 1.0 MB, its kept model +1 for 0.9 MB; zulu's
    kept model +1 for 0.5 MB."""
    import pandas as pd

    candidates = _load_ship("ship_candidates")
    selection = _load_ship("ship_selection")
    assert candidates.is_per_language({"members": ["per-language/medium/zulu/member-1.safetensors"]})
    assert not candidates.is_per_language({"members": ["multilingual-medium/member-1.safetensors"]})

    def frame(scores):
        return pd.DataFrame(list(scores.items()), columns=["language", "accuracy"])

    ens = "cornish-medium" + candidates.ENSEMBLE_VARIANT
    scores = {"multi": frame({"cornish": 32.0, "zulu": 68.0}),
              "cornish-medium": frame({"cornish": 33.0}), ens: frame({"cornish": 66.0}),
              "zulu-medium": frame({"zulu": 69.0})}
    settings = dict.fromkeys(scores, "medium")
    sizes = {"multi": 1_000_000, "cornish-medium": 900_000, ens: 1_000_000,
             "zulu-medium": 500_000}
    pool = {"cornish-medium", ens, "zulu-medium"}
    # room for everything: the ensemble replaces cornish's kept model, zulu's stays
    chosen, _ = selection.select_per_language(scores, settings, sizes, pool, 10e6)
    assert sorted(chosen) == [ens, "zulu-medium"]
    # 2.0 MB: the multilingual model and the ensemble; zulu's kept model (+1) no longer fits
    chosen, _ = selection.select_per_language(scores, settings, sizes, pool, 2.0e6)
    assert chosen == [ens]


def test_a_language_trained_again_competes_beside_its_kept_model_of_the_same_name(tmp_path):
    """A queue's model named as a kept per-language model competes beside it as NAME~queued
    (and in 4 bits as NAME~queued~int4 where --int4 names NAME) under --kept-compete, unless
    its prepared storage is the kept file byte for byte, and ships as NAME if chosen; a kept model that is not per-language, or kept models that do not
    compete, leave the queue's model out."""
    import pandas as pd

    candidates = _load_ship("ship_candidates")
    selection = _load_ship("ship_selection")
    run = tmp_path / "q" / "czech"  # a float checkpoint, for storage_variants
    run.mkdir(parents=True)
    train(tiny_config(), load_data("german", "high", _tiny_data(tmp_path)), run, device="cpu",
          max_epochs=1, precision="float32")
    per_language = {"czech-medium": [run], "german-high": ["q/german"],
                    "latin-medium": [run]}
    greedy = {"czech-medium": 83.2, "german-high": 90.0, "latin-medium": 40.0}
    kept = {"czech-medium": {"members": ["per-language/medium/czech/member-1.safetensors"]},
            "german-high": {"members": ["german-high/member-1.safetensors"]}}
    models, got_greedy, queued, int4 = candidates.beside_kept(
        per_language, greedy, dict(per_language), {"czech-medium"}, kept, kept_compete=True)
    assert models == {"czech-medium~queued": [run], "latin-medium": [run]}
    assert got_greedy == {"czech-medium~queued": 83.2, "latin-medium": 40.0}
    assert int4 == {"czech-medium", "czech-medium~queued"}
    assert per_language["czech-medium"] == [run]  # the arguments are left as they were
    assert candidates.storage_variants(models, queued, int4) == {
        "czech-medium~queued": [run], "czech-medium~queued~int4": [run], "latin-medium": [run]}
    assert candidates.base_name("czech-medium~queued~int4") == "czech-medium"
    assert candidates.language_of("czech-medium~queued~int4") == "czech"
    # the run that was shipped, prepared again the same way, is the kept model itself
    ship = _load_ship()
    names = {"czech-medium~queued", "czech-medium~queued~int4"}
    ready = ship.prepared({n: [run] for n in names}, names, tmp_path / "prep",
                          str(_tiny_data(tmp_path)), int8=True,
                          int4=frozenset({"czech-medium~queued~int4"}))
    out_dir = tmp_path / "models"
    member = out_dir / kept["czech-medium"]["members"][0]
    member.parent.mkdir(parents=True)
    member.write_bytes(ready["czech-medium~queued~int4"][0].read_bytes())
    assert candidates.same_as_kept(ready, kept, out_dir) == ["czech-medium~queued~int4"]
    member.write_bytes(ready["czech-medium~queued"][0].read_bytes())
    assert candidates.same_as_kept(ready, kept, out_dir) == ["czech-medium~queued"]
    # without --kept-compete the kept model stays and the queue's model is left out
    models, got_greedy, _, _ = candidates.beside_kept(per_language, greedy, dict(per_language),
                                                      set(), kept, kept_compete=False)
    assert models == {"latin-medium": [run]} and got_greedy == {"latin-medium": 40.0}

    # the selection: the kept model (81.8, 0.56 MB) against the new run in 4 bits (82.5,
    # 0.55 MB) over the multilingual model's 69.8: the new run gains more in fewer bytes
    def frame(acc):
        return pd.DataFrame({"language": ["czech"], "accuracy": [acc]})

    new = "czech-medium~queued~int4"
    scores = {"multi": frame(69.8), "czech-medium": frame(81.8), new: frame(82.5)}
    settings = dict.fromkeys(scores, "medium")
    sizes = {"multi": 1_000_000, "czech-medium": 560_000, new: 550_000}
    chosen, _ = selection.select_per_language(scores, settings, sizes,
                                              {"czech-medium", new}, 10e6)
    assert chosen == [new]
    table = {"czech-medium": "kept", new: "new"}
    for name in [n for n in table if n not in chosen]:
        table.pop(name)  # as ship.py's choose(): the models not chosen leave first
    selection.settle_variants(chosen, table)
    assert table == {"czech-medium": "new"}


def test_a_kept_4_bit_model_and_a_new_run_compete_as_one_ensemble(tmp_path, capsys):
    """--ensemble-kept: NAME~plus-QUEUE~int4 is the kept 4-bit model's shipped members (the
    same bytes once prepared) and the queue's new run of its language (stored in 4 bits from
    its float checkpoint); NAME~memberK~plus-QUEUE~int4 each member with the run; a kept int8
    model is passed over."""
    from inflect.io.atomic import sha256_of
    from inflect.nn.checkpoint import load_metadata
    from inflect.training.queue import QueueSpec

    ship = _load_ship()
    candidates = _load_ship("ship_candidates")
    data = _tiny_data(tmp_path)
    _write_language(data, "latin", 3)
    out_dir = tmp_path / "models"
    kept = {}
    for lang in ("german", "latin"):
        kept[f"{lang}-high"] = {"members": []}
        for k in ((1, 2) if lang == "german" else (1,)):
            run = tmp_path / f"{lang}{k}"
            train(tiny_config(seed=k), load_data(lang, "high", data), run, device="cpu",
                  max_epochs=1, precision="float32")
            name = f"{lang}-high" + ("~int4" if lang == "german" else "")
            ready = ship.prepared({name: [run]}, {name}, tmp_path / f"p{lang}{k}", str(data),
                                  int8=True, int4=frozenset({"german-high~int4"}))
            member = f"per-language/high/{lang}/member-{k}.safetensors"
            (out_dir / member).parent.mkdir(parents=True, exist_ok=True)
            (out_dir / member).write_bytes(ready[name][0].read_bytes())
            kept[f"{lang}-high"]["members"].append(member)
    queue = tmp_path / "queue"
    QueueSpec("high", ("german", "latin", "navajo")).save(queue)  # navajo: never trained
    for lang in ("german", "latin"):
        train(tiny_config(seed=5), load_data(lang, "high", data), queue / lang, device="cpu",
              max_epochs=1, precision="float32")
    got = candidates.kept_plus_run([f"high={queue}"], kept, out_dir)
    m1, m2 = (out_dir / m for m in kept["german-high"]["members"])
    new = queue / "german"
    assert got == {"german-high~plus-queue~int4": [m1, m2, new],
                   "german-high~member1~plus-queue~int4": [m1, new],
                   "german-high~member2~plus-queue~int4": [m2, new]}
    assert "latin-high is not stored in 4 bits" in capsys.readouterr().out
    assert {candidates.base_name(n) for n in got} == {"german-high"}
    ready = ship.prepared(got, set(got), tmp_path / "plus", str(data), int8=True,
                          int4=frozenset(got))
    three = ready["german-high~plus-queue~int4"]
    assert three[0].read_bytes() == m1.read_bytes() and three[1].read_bytes() == m2.read_bytes()
    meta = load_metadata(three[2])
    assert meta["quantized"] == INT4_GROUPS
    assert meta["prepared_from"]["source_sha256"] == sha256_of(new / "model.safetensors")
    with pytest.raises(SystemExit, match="SETTING=ROOT"):
        candidates.kept_plus_run([str(queue)], kept, out_dir)
