"""What a new user trips on, checked as the user meets it (the command line, mostly): language
names, tag bundles the language never uses, invisible characters, exit codes, messages that say
what to do. Each test's expected values are written by hand from the language's data or the
README's promise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from inflect.cli import main
from inflect.text.languages import resolve

REPO = Path(__file__).resolve().parent.parent


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


# ----------------------------------------------------------------- language names
@pytest.mark.parametrize(("name", "language"), [
    ("español", "spanish"), ("Français", "french"), ("suomi", "finnish"), ("русский", "russian"),
    ("deutsch", "german"), ("Kurmancî", "kurmanji"), ("Nynorsk", "norwegian-nynorsk"),
])
def test_a_language_by_its_own_name(name, language):
    assert resolve(name).name == language


@pytest.mark.parametrize(("name", "languages"), [
    ("ku", ("kurmanji", "sorani")), ("Kurdish", ("kurmanji", "sorani")),
    ("norwegian", ("norwegian-bokmaal", "norwegian-nynorsk")),
    ("no", ("norwegian-bokmaal", "norwegian-nynorsk")),
])
def test_a_name_several_languages_share_lists_them(name, languages):
    from inflect.text.languages import AmbiguousLanguageError

    with pytest.raises(AmbiguousLanguageError) as caught:
        resolve(name)
    assert caught.value.suggestions == languages
    assert all(lang in str(caught.value) for lang in languages)
    result = run("predict", "--lang", name, "hus", "N;NOM;SG")  # a wrong --lang: usage error
    assert result.exit_code == 2 and all(lang in result.output for lang in languages)


def test_an_unknown_language_names_no_folder():
    from inflect.text.languages import UnknownLanguageError

    with pytest.raises(UnknownLanguageError) as caught:
        resolve("germn")
    assert "'german'" in str(caught.value)
    assert "/" not in str(caught.value).replace("639-1/639-3", "")


def test_predict_takes_one_language():
    result = run("predict", "--lang", "german,finnish", "Haus", "N;DAT;PL")
    assert result.exit_code == 2
    assert "one language" in result.output and "unknown language" not in result.output


# ----------------------------------------------------------------- the Python API
def test_a_cell_the_data_do_not_attest_is_an_empty_cell():
    """README: "A pair the data do not attest (Finnish N;COM;SG) is an empty cell"."""
    from inflect.inference.paradigm import Paradigms

    talo = Paradigms.from_default("finnish").paradigm("talo", pos="N")
    empty = talo.cell("N;COM;SG")
    assert empty.forms == () and empty.best is None and not empty.complete
    assert (empty.row, empty.column) == ("COM", "SG")
    assert "empty cell" in empty.warnings[0]
    assert talo.cell("N;SG;IN+ESS").best.form == "talossa"


# ----------------------------------------------------------------- tag bundles
def _record(*args: str) -> dict:
    result = run("predict", "--no-lexicon", "--format", "jsonl", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.splitlines()[0])


def test_a_bundle_the_language_never_uses_is_warned_with_the_nearest():
    """Finnish data write V;ACT;PRS;POS;IND;3;SG, never V;IND;PRS;3;SG."""
    record = _record("--lang", "finnish", "olla", "V;IND;PRS;3;SG")
    note = next(w for w in record["warnings"] if "V;IND;PRS;3;SG" in w)
    assert "V;ACT;PRS;POS;IND;3;SG" in note and "did you mean" in note
    for bundle in ("N;DAT;SG;PL", "N;N;N"):
        record = _record("--lang", "german", "Haus", bundle)
        assert any("not one of the" in w and "N;DAT;PL" in w for w in record["warnings"])
    # a bundle of the data: no note
    assert _record("--lang", "german", "Haus", "N;PL;DAT")["warnings"] == []
    strict = run("predict", "--strict", "--no-lexicon", "--lang", "finnish", "olla",
                 "V;IND;PRS;3;SG")
    assert strict.exit_code == 1 and "V;ACT;PRS;POS;IND;3;SG" in strict.output
    assert strict.stdout.count("\n") <= 1  # the header at most: no answer


def test_a_lowercase_bundle_reads_as_the_one_it_spells():
    lower = _record("--lang", "german", "Haus", "n;dat;pl")
    upper = _record("--lang", "german", "Haus", "N;DAT;PL")
    assert lower["tags"] == "n;dat;pl" and lower["asked"] == "N;DAT;PL"  # as written, and read
    assert [f["form"] for f in lower["forms"]] == [f["form"] for f in upper["forms"]]
    assert any("read as N;DAT;PL" in w for w in lower["warnings"])


def test_a_bundle_in_another_layout_gets_a_hint():
    record = _record("--lang", "german", "Haus", "N,DAT,PL")
    assert any("separates features by ';': N;DAT;PL" in w for w in record["warnings"])


def test_a_bundle_in_unimorph_4_is_read_as_the_2018_bundle():
    """The 2023 task's layered features are read, not hinted at."""
    record = _record("--lang", "german", "Haus", "N;NOM(SG)")
    assert (record["tags"], record["asked"]) == ("N;NOM(SG)", "N;NOM;SG")
    assert any("read as N;NOM;SG" in w for w in record["warnings"])


# ----------------------------------------------------------------- invisible characters
@pytest.mark.parametrize("mark", ["\u200b", "\u200f", "\ufeff"])
def test_an_invisible_character_around_a_lemma_is_no_part_of_it(mark):
    plain = _record("--lang", "german", "Haus", "N;DAT;PL")
    marked = _record("--lang", "german", f"{mark}Haus{mark}", "N;DAT;PL")
    assert marked["lemma"] == "Haus"
    assert [f["form"] for f in marked["forms"]] == [f["form"] for f in plain["forms"]]


def test_a_byte_order_mark_starting_paradigm_input_is_no_part_of_the_lemma(tmp_path):
    words = tmp_path / "nouns.txt"
    words.write_bytes("\ufeffHaus\n".encode())
    for args, given in ((["--input", str(words)], None), (["--input", "-"], "\ufeffHaus\n")):
        result = run("paradigm", "--lang", "german", "--pos", "N", "--format", "jsonl", *args,
                     input=given)
        assert result.exit_code == 0, result.output
        cells = [json.loads(line) for line in result.stdout.splitlines()]
        assert {c["lemma"] for c in cells} == {"Haus"}
        assert next(c for c in cells if c["tags"] == "N;NOM;SG")["forms"][0]["form"] == "Haus"


# ----------------------------------------------------------------- the queue's lock
def test_a_second_queue_on_one_folder_stops_at_once(tmp_path):
    from filelock import FileLock

    from inflect.training.queue import QUEUE_LOCK

    root = tmp_path / "queue"
    root.mkdir()
    with FileLock(root / QUEUE_LOCK):  # the first queue, running
        result = run("queue", "--lang", "german", "--setting", "low", "--out", str(root),
                     "--data-dir", str(tmp_path), "--", "--epochs", "1")
    assert result.exit_code == 1
    assert "another inflect queue is running" in result.output
    assert not (root / "german").exists() and "finished" not in result.output


def test_a_language_whose_training_failed_is_failed_even_if_its_folder_reads_finished(
        tmp_path, monkeypatch):
    """Two queues racing on one folder: the second's `inflect train` fails on the run lock
    while the first's run ends finished; the second must not report it finished."""
    import sys

    from inflect.training import queue as q

    def status(root, language, failed=False, probe_lock=True):
        state = "new" if probe_lock else "finished"  # finished by the other queue meanwhile
        return q.LanguageStatus(language, "failed" if failed else state, epochs=1,
                                best_accuracy=50.0, best_epoch=1)

    monkeypatch.setattr(q, "language_status", status)
    fake = tmp_path / "python"
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(1)\n", encoding="utf-8")
    fake.chmod(0o755)
    lines: list[str] = []
    statuses = q.run_queue(q.QueueSpec("low", ("german",), ("--epochs", "1")), tmp_path / "out",
                           python=str(fake), log=lines.append, poll_seconds=0.05)
    assert [s.state for s in statuses] == ["failed"]
    assert any("german: FAILED (exit status 1)" in line for line in lines)
    assert not any("german: finished" in line for line in lines)


# ----------------------------------------------------------------- exit status
def test_ctrl_c_in_predict_exits_130_and_keeps_what_was_written():
    import os
    import signal
    import subprocess
    import sys

    env = dict(os.environ, INFLECT_THREADS="1")
    # Ctrl-C as at a terminal: SIGINT at its default in the child (set before an exec, which
    # keeps it), even where this test runs in a background job of a non-interactive shell,
    # which starts it with SIGINT ignored
    command = [sys.executable, "-m", "inflect", "predict", "--lang", "german", "--no-lexicon",
               "--format", "2018", "--input", "-"]
    default_sigint = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                      "os.execv(sys.argv[1], sys.argv[1:])")
    proc = subprocess.Popen(
        [sys.executable, "-c", default_sigint, *command],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdin.write(b"Haus\tN;DAT;PL\n")
    proc.stdin.flush()  # the pipe stays open: the line is answered after the idle pause
    first = proc.stdout.readline().decode()
    proc.send_signal(signal.SIGINT)
    _rest, err = proc.communicate(timeout=60)
    assert first.split("\t")[0] == "Haus" and first.split("\t")[2].strip() == "N;DAT;PL"
    assert proc.returncode == 130
    assert "interrupted" in err.decode() and "Aborted" not in err.decode()


def test_a_bad_paradigm_line_is_status_1_in_every_format_and_html_keeps_the_made(tmp_path):
    words = tmp_path / "nouns.txt"
    words.write_text("Haus\nHaus\tN\textra\nKatze\n", encoding="utf-8")
    page = tmp_path / "p.html"
    html = run("paradigm", "--lang", "german", "--pos", "N", "--input", str(words),
               "--format", "html", "--out", str(page))
    tsv = run("paradigm", "--lang", "german", "--pos", "N", "--input", str(words),
              "--format", "tsv")
    assert html.exit_code == tsv.exit_code == 1
    assert "nouns.txt:2" in html.output and "nouns.txt:2" in tsv.output
    assert page.is_file() and "Haus" in page.read_text(encoding="utf-8")
    assert "holds the 1 paradigm(s) made before it" in html.output
    assert run("paradigm", "--lang", "german", "--no-such-option").exit_code == 2


def test_the_readme_documents_the_exit_status_of_every_command():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Exit status", 1)[1].split("\n## ", 1)[0]
    from inflect.cli.group import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE

    for status in (0, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED):
        assert f"`{status}`" in section


# ----------------------------------------------------------------- messages that say what to do
def test_a_seed_out_of_range_is_a_usage_error_and_leaves_no_folder(tmp_path):
    result = run("train", "--lang", "german", "--setting", "low", "--seed",
                 "100000000000000000000", "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and "--seed" in result.output and "Overflow" not in result.output
    assert not (tmp_path / "run").exists()


def _inflect(*args: str, env: dict | None = None, stdout=None):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "inflect", *args], stdout=stdout or
                          subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "INFLECT_THREADS": "1", **(env or {})})


def test_a_full_output_device_and_an_ascii_terminal_say_what_to_do():
    with open("/dev/full", "w") as full:
        done = _inflect("predict", "--lang", "german", "Haus", "N;DAT;PL", stdout=full)
    assert done.returncode == 1
    assert "is full" in done.stderr and "Errno" not in done.stderr
    done = _inflect("predict", "--lang", "german", "--no-lexicon", "Haus", "N;DAT;PL",
                    env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 1 and "PYTHONIOENCODING=utf-8" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_evaluate_table_names_the_model_on_one_line_and_says_scored_once(tmp_path):
    model = REPO / "inflect" / "models" / "german-high" / "member-1.safetensors"
    gold = tmp_path / "de.gold"
    gold.write_text("Haus\tHäuser\tN;NOM;PL\nHund\tHunde\tN;NOM;PL\n", encoding="utf-8")
    result = CliRunner(env={"COLUMNS": "40"}).invoke(main, [
        "evaluate", "--model", str(model), "--lang", "german", "--gold", str(gold),
        "--format", "table"])
    assert result.exit_code == 0, result.output
    assert str(model) in result.stdout.splitlines()
    assert result.output.count("scored: the model alone") == 1


# ----------------------------------------------------------------- explain --png
@pytest.mark.parametrize("name", ["x.jpg", "x.svg", "x"])
def test_explain_png_refuses_a_name_of_another_format(tmp_path, name):
    result = run("explain", "--lang", "german", "Haus", "N;DAT;PL", "--png", str(tmp_path / name))
    assert result.exit_code == 2 and ".png" in result.output
    assert not (tmp_path / name).exists()


def test_explain_panels_labels_do_not_overlap_a_neighbour():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from inflect.inference.explain import explain
    from inflect.inference.predictor import Predictor
    from inflect.render.figures import attention_figure

    found = explain(Predictor.from_default("german"), "Haus", "N;DAT;PL", "german", max_forms=4)
    fig = attention_figure(found, 4)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    panels = [a for a in fig.axes if a.get_visible() and a.get_images()]
    assert len(panels) >= 2
    for ax in panels:
        labels = [ax.yaxis.label, ax.xaxis.label, ax.title]
        for other in panels:
            if other is not ax:
                box = other.get_window_extent(renderer)
                assert not any(t.get_text() and t.get_window_extent(renderer).overlaps(box)
                               for t in labels)


# ----------------------------------------------------------------- inflect data check
def test_data_check_reports_repeated_inputs_with_their_lines(tmp_path):
    path = tmp_path / "words.tsv"
    path.write_text("Haus\tHäuser\tN;NOM;PL\n"
                    "Haus\tHäuser\tN;NOM;PL\n"      # the same line again
                    "Haus\tHause\tN;NOM;PL\n"       # another form of the same input
                    "Hund\tHunde\tN;NOM;PL\n"
                    "Hund\tHunde\tPL;N;NOM\n",      # the same pair, features reordered
                    encoding="utf-8")
    result = run("data", "check", str(path))
    lines = result.output.splitlines()
    assert any(":2: repeats line 1 exactly" in line for line in lines)
    assert any(":3: another form" in line and "line 1" in line for line in lines)
    assert any(":5: repeats line 4" in line and "another order" in line for line in lines)
    assert " OK " not in lines[-1] and "3 warnings" in lines[-1]
    clean = tmp_path / "clean.tsv"
    clean.write_text("Haus\tHäuser\tN;NOM;PL\nHund\tHunde\tN;NOM;PL\n", encoding="utf-8")
    assert ": OK " in run("data", "check", str(clean)).output


# ----------------------------------------------------------------- symbols only ever copied
def test_an_english_model_writes_no_digit_or_capital_its_lemma_lacks():
    """`get V;PST` gave g8t, gLt, g6t: digits and capitals that English forms only ever copy
    from a lemma (86 -> 86ed); a lemma with them still has them copied."""
    record = _record("--lang", "english", "get", "V;PST")
    forms = [f["form"] for f in record["forms"]]
    assert forms and not any(ch.isdigit() or ch.isupper() for form in forms for ch in form)
    assert _record("--lang", "english", "86", "V;PST")["forms"][0]["form"].startswith("86")


def test_written_symbols_and_the_lemma_masks_by_hand():
    import torch

    from inflect.nn.alphabets import OutputAlphabets
    from inflect.nn.vocab import Vocab

    item = type("Item", (), {})
    items = []
    for lemma, form in (("86", "86ed"), ("get", "got"), ("Rome", "Romes")):
        it = item()
        it.source, it.target, it.language = tuple(lemma), tuple(form), "en"
        items.append(it)
    alphabets = OutputAlphabets.from_items(items)
    assert alphabets.written == {"en": ["d", "e", "o", "s"]}  # 'e' of 86ed; 'o' of got
    again = OutputAlphabets.from_dict(alphabets.to_dict())
    assert again.table == alphabets.table and again.written == alphabets.written
    target = Vocab(sorted(set("86edgotRmes")), name="target")
    languages = Vocab(["en"], specials=(), name="language")
    masks = alphabets.mask(target, languages)
    copy_only = alphabets.copy_only(target, languages)
    only = {target.symbol(i) for i in copy_only[0].nonzero().flatten().tolist()}
    assert only == {"8", "6", "g", "t", "R", "m"}
    source = Vocab(sorted(set("86edgotRmes")), name="source")
    s2t = torch.tensor([target.index(s) if s in target else 0 for s in source.symbols])
    lemma = torch.tensor([source.encode(list("get"))])
    rows = OutputAlphabets.lemma_masks(masks[[0]], copy_only[[0]], lemma, s2t)
    allowed = {target.symbol(i) for i in rows[0].nonzero().flatten().tolist()}
    assert allowed == {"</s>", "<unk>", "d", "e", "o", "s", "g", "t"}


def test_the_shipped_written_record_is_the_datas(conll2018):
    from inflect.nn.alphabets import shipped_written

    written = set()
    for setting in ("high", "medium", "low"):
        path = conll2018 / f"english-train-{setting}"
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lemma, form, _ = line.split("\t")
                written |= set(form) - set(lemma)
    assert shipped_written()["english"] == frozenset(written)
    assert not any(ch.isdigit() for ch in written)


# ----------------------------------------------------------------- the certificate's words
def test_the_certificate_reads_as_the_searchs_and_guesses_are_called_guesses(tmp_path):
    from rich.console import Console

    from inflect.decoding.protocol import Certificate
    from inflect.inference.predictor import Predictor
    from inflect.lexicon import FileLexicon
    from inflect.render.paradigm_html import legend_html
    from inflect.render.tables import prediction_table

    for c in Certificate:
        assert c.description.startswith("search"), c
    assert "all the forms the model gives any probability" in Certificate.FULL_SUPPORT.description

    def shown(record) -> str:
        console = Console(width=120, record=True)
        console.print(prediction_table(record))
        return " ".join(console.export_text().split())

    guess = shown(Predictor.from_default("german").predict("Frau", "N;NOM;PL"))
    assert "search exact: these are all the forms the model gives any probability" in guess
    assert "the forms are the model's guesses" in guess
    assert "every form of nonzero probability" not in guess
    (tmp_path / "german.tsv").write_text("Frau\tFrauen\tN;NOM;PL\n", encoding="utf-8")
    lexicon = FileLexicon([tmp_path / "german.tsv"])
    attested = shown(Predictor.from_default("german", lexicons=[lexicon]).predict(
        "Frau", "N;NOM;PL"))
    assert "Frauen" in attested and "guesses" not in attested
    assert "not the language" in legend_html()
