"""A language the package does not ship, from a user's files (README "Your own language"): a
made-up language (tests/made_up.py, no spec anywhere) through every command — train, resume,
evaluate (model and predictions), predict, paradigm, explain, report, lang add, runs compare —
on the command line as the README writes them, and over HTTP (`inflect serve --model`).

Expected values come from the test's own data: the paradigm cells are the bundles the test wrote
(made_up.VERB_CELLS), the files' SHA-256 is hashlib's, the accuracy of a predictions file is
recounted here from the file and the gold, and a record over HTTP is the one `inflect predict`
prints for the same input.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from made_up import EXAMPLE_VERB, NOUN_CELLS, VERB_CELLS, write_language

from inflect.cli import main
from inflect.nn.checkpoint import load_metadata
from inflect.text import languages

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py
README = Path(__file__).resolve().parent.parent / "README.md"


def readme_commands() -> list[list[str]]:
    """The argv of each command of the README's "Your own language" block (comments dropped;
    ``> FILE`` kept as the last two items)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if "<!-- own-language" in line)
    fence = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    end = next(i for i in range(fence + 1, len(lines)) if lines[i].startswith("```"))
    return [shlex.split(line, comments=True) for line in lines[fence + 1 : end] if line.strip()]


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder with the made-up language's files, its own languages folder, and the README's
    commands run there one after the other (training shortened: the tiny preset, one epoch,
    then a resume to two): ``(folder, {command name: click result})``."""
    import os

    folder = tmp_path_factory.mktemp("own-language")
    write_language(folder)
    results = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        mp.setenv(languages.LANGS_ENV, str(folder / "langs"))
        for argv in readme_commands():
            assert argv[0] == "inflect"
            args, out = argv[1:], None
            if ">" in args:
                args, out = args[: args.index(">")], args[args.index(">") + 1]
            if args[0] == "serve":
                continue  # over HTTP: test_served_beside_the_shipped_models
            if args[0] == "train":  # short: the tiny preset, one epoch, then a resume to two
                args += (
                    ["--epochs", "2"]
                    if "--resume" in args
                    else ["--preset", "tiny", "--epochs", "1"]
                )
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, (argv, result.output)
            if out:
                (folder / out).write_text(result.stdout, encoding="utf-8")
            key = " ".join(args[:2]) if args[0] in ("train", "lang", "runs", "report") else args[0]
            results.setdefault(key, []).append(result)
        assert os.path.isfile(folder / "runs" / "amh" / "model.safetensors")
    yield folder, results
    languages._REMEMBERED.clear()  # the made-up language is known to this process no more


def _rows(text: str) -> list[dict[str, str]]:
    header, *lines = text.splitlines()
    return [dict(zip(header.split("\t"), line.split("\t"), strict=True)) for line in lines]


def _gold(path: Path) -> dict[tuple[str, str], str]:
    return {
        (a, t): f
        for a, t, f in (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines())
    }


@pytest.mark.slow
def test_train_makes_and_keeps_the_new_languages_spec_cells_and_provenance(place):
    folder, results = place
    [first] = results["train --train"]
    assert "amharic: a language the package does not know" in first.stderr
    assert "runs/amh/model.safetensors" in " ".join(first.stderr.split())
    meta = load_metadata(folder / "runs" / "amh" / "model.safetensors")
    [spec] = meta["languages"]
    assert (spec["name"], spec["scripts"], spec["direction"], spec["normalization"]) == (
        "amharic",
        ["Ethi"],
        "ltr",
        "NFC",
    )
    cells = meta["cells"]["languages"]["amharic"]
    assert set(cells) == {"N", "V"}
    assert set(cells["V"]) == VERB_CELLS and set(cells["N"]) == NOUN_CELLS
    training = meta["training"]
    assert training["commands"][0].startswith("inflect train --train amh.trn --dev amh.dev")
    assert "--resume" in training["commands"][1]
    digests = {Path(s["path"]).name: s["sha256"] for s in training["sources"]}
    for name in ("amh.trn", "amh.dev"):
        assert digests[name] == hashlib.sha256((folder / name).read_bytes()).hexdigest()
    assert meta["versions"]["sparse-inflect"]
    metrics = (folder / "runs" / "amh" / "metrics.csv").read_text().splitlines()
    assert len(metrics) == 1 + 2  # the header, then epoch 1 and the resumed epoch 2


@pytest.mark.slow
def test_every_command_answers_for_the_models_language(place):
    folder, results = place
    gold_tst = _gold(folder / "amh.tst")
    [scored] = _rows(results["evaluate"][0].stdout)[:1]
    assert scored["language"] == "amharic" and int(scored["n"]) == len(gold_tst)
    [best] = _rows(results["predict"][0].stdout)[:1]
    assert (best["lemma"], best["language"]) == (EXAMPLE_VERB, "amharic")
    cells = _rows(results["paradigm"][0].stdout)
    assert {c["tags"] for c in cells} == VERB_CELLS  # the cells the training file attests
    assert (folder / "sabbara.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (folder / "amh-ambiguity.md").read_text(encoding="utf-8")
    assert "amharic" in report


@pytest.mark.slow
def test_predictions_are_scored_for_a_new_language(place):
    """`evaluate --pred --gold --lang amharic`: the accuracy recounted here from the files."""
    folder, results = place
    gold = _gold(folder / "amh.tst")
    predicted = {
        (a, t): f
        for a, f, t in (line.split("\t") for line in (folder / "amh.pred").read_text().splitlines())
    }
    expected = 100 * sum(predicted.get(k) == f for k, f in gold.items()) / len(gold)
    row = _rows(results["evaluate"][1].stdout)[0]
    assert row["language"] == "amharic"
    assert float(row["accuracy"]) == pytest.approx(expected)
    model_row = _rows(results["evaluate"][0].stdout)[0]
    assert float(model_row["accuracy"]) == pytest.approx(expected)  # the same model's answers


@pytest.mark.slow
def test_lang_add_and_runs_compare(place):
    folder, results = place
    written = folder / "langs" / "amharic.toml"
    assert written.is_file()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(languages.LANGS_ENV, str(folder / "langs"))
        assert languages.resolve("አማርኛ").name == "amharic"
        assert languages.resolve("amh").name == "amharic"
        assert [s.name for s in languages.user_languages()] == ["amharic"]
    [compared] = _rows(results["runs compare"][0].stdout)
    meta = load_metadata(folder / "runs" / "amh" / "model.safetensors")
    assert compared["run"] == "runs/amh" and compared["state"] == "finished"
    assert float(compared["dev_accuracy"]) == meta["training"]["best_accuracy"]
    assert int(compared["epochs"]) == 2


@pytest.mark.slow
def test_served_beside_the_shipped_models(place):
    """`inflect serve --model amharic=runs/amh` (the README's line): its record over HTTP is
    `inflect predict`'s; /v1/models lists it beside the shipped ones; its paradigm's cells are
    the training data's."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    from test_serve import Server, call

    folder, _ = place
    [serve] = [argv for argv in readme_commands() if argv[1] == "serve"]
    args = [a.replace("runs/amh", str(folder / "runs" / "amh")) for a in serve[2:]]
    with pytest.MonkeyPatch.context() as mp:  # the server process reads the folder's specs
        mp.setenv(languages.LANGS_ENV, str(folder / "langs"))
        server = Server(*args, "--no-lexicon")
    try:
        status, _, answer = call(
            server.url,
            "/v1/inflect",
            {"lang": "amharic", "lemma": EXAMPLE_VERB, "tags": "V;PFV;NOM(1,SG)"},
        )
        assert status == 200, answer
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(folder)
            here = CliRunner().invoke(
                main,
                [
                    "predict",
                    "--model",
                    "runs/amh",
                    EXAMPLE_VERB,
                    "V;PFV;NOM(1,SG)",
                    "--format",
                    "jsonl",
                    "--no-lexicon",
                ],
            )
        record = json.loads(here.stdout)
        assert [f["form"] for f in answer["forms"]] == [f["form"] for f in record["forms"]]
        for a, b in zip(answer["forms"], record["forms"], strict=True):
            assert a["probability"] == pytest.approx(b["probability"], abs=1e-6)
        status, _, models = call(server.url, "/v1/models")
        served = {m["language"]: m for m in models["models"]}
        assert served["amharic"]["model"].endswith("runs/amh")
        assert "german" in served  # the shipped models beside it
        status, _, paradigm = call(
            server.url, "/v1/paradigm", {"lang": "amharic", "lemma": EXAMPLE_VERB, "pos": "V"}
        )
        assert status == 200, paradigm
        assert {c["tags"] for c in paradigm["cells"]} == VERB_CELLS
    finally:
        server.stop()
