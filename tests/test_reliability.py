"""Faults of input and output, each as the kind it stands for: control characters refused at
input, user text shown verbatim, the 2023 layout read as such, output paths checked before any
work and cleaned up after a failure, standard input read when it is a pipe, TSV with a header in
a pipe, the tag bundle shown as written.

Expected values are written out by hand: messages with file, line and code point, TSV headers
and rows, the scores of a 2-line pair computed from the shared task's definitions.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import tempfile

import pandas as pd
import pytest
from click.testing import CliRunner
from rich.console import Console
from test_predict import ckpt  # noqa: F401  (module fixture, reused)

from inflect.cli import main
from inflect.corpora.manifests import fetch, load_manifest
from inflect.decoding.protocol import Certificate
from inflect.inference.predictor import Form, InputError, Prediction, make_query
from inflect.io.outputs import OutputError
from inflect.render.tables import (
    datasets_table,
    evaluation_table,
    languages_table,
    models_table,
    prediction_table,
    scores_table,
    stats_table,
)
from inflect.render.tsv import PREDICTION_TSV_COLUMNS, prediction_2018, prediction_tsv, tsv_line
from inflect.text.layouts import detect_format
from inflect.text.parsing import iter_examples
from inflect.text.reading import check_file, read_examples
from inflect.text.records import DataFormatError

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "200"}, input=input)


def write(path, text):
    path.write_bytes(text.encode("utf-8"))
    return path


# --- 15.2: control characters never reach line-based output -------------------------------------

CONTROLS = [
    ("\x00", "U+0000 (NUL)"),
    ("\r", "U+000D (CR)"),
    ("\x0b", "U+000B (VT)"),
    ("\x1b", "U+001B (ESC)"),
    ("\x01", "U+0001"),
    ("\x7f", "U+007F (DEL)"),
    ("\x85", "U+0085 (NEL)"),
    ("\u2028", "U+2028 (LINE SEPARATOR)"),
]


@pytest.mark.parametrize(("char", "named"), CONTROLS)
@pytest.mark.parametrize(("field", "what"), [(0, "lemma"), (1, "form"), (2, "tag bundle")])
def test_a_control_character_in_a_file_is_refused_with_file_line_and_code_point(
    tmp_path, char, named, field, what
):
    fields = ["Haus", "Häuser", "N;NOM;PL"]
    fields[field] = fields[field][:2] + char + fields[field][2:]
    bad = "\t".join(fields)
    path = write(tmp_path / "german-dev", f"Maus\tMäuse\tN;NOM;PL\n{bad}\n")
    hint = (
        "; the line holds carriage returns (CR): if the file has old Mac line endings (CR alone), "
        "convert them to LF (tr '\\r' '\\n')"
        if char == "\r"
        else ""
    )
    expected = f"{path}:2: control character {named} in the {what}{hint} ({bad!r})"
    with pytest.raises(DataFormatError) as info:
        read_examples(path)
    assert str(info.value) == expected
    checked = check_file(path)  # `data check` collects it
    assert [str(e) for e in checked.errors] == [expected]
    assert [e.lemma for e in checked.examples] == ["Maus"]
    # streamed input (predict --input, standard input) stops at the same line, same message
    lines = [line + b"\n" for line in path.read_bytes().split(b"\n")[:-1]]  # as a pipe reads
    stream = iter_examples(lines, source=str(path))
    assert next(stream).lemma == "Maus"
    with pytest.raises(DataFormatError) as info:
        next(stream)
    assert str(info.value) == expected


def test_crlf_line_endings_stay_accepted(tmp_path):
    path = write(tmp_path / "german-dev", "Haus\tHäuser\tN;NOM;PL\r\nMaus\tMäuse\tN;NOM;PL\r\n")
    parsed = check_file(path)
    assert parsed.errors == [] and parsed.stats.crlf_lines == 2
    assert [e.form for e in parsed.examples] == ["Häuser", "Mäuse"]


def test_data_check_reports_a_nul_byte(tmp_path):
    path = write(tmp_path / "german-dev", "Haus\tHäuser\tN;NOM;PL\nHa\x00us\tHäuser\tN;NOM;PL\n")
    result = run("data", "check", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{path}:2: control character U+0000 (NUL) in the lemma ('Ha\\x00us\\tHäuser\\tN;NOM;PL')",
        f"{path}: 1 problem — 1 examples, format 2018, 2 lines",
    ]


def test_command_line_arguments_go_through_the_same_check():
    with pytest.raises(InputError) as info:
        make_query("Ha\tus", "N;NOM;PL", "german")
    assert str(info.value) == "control character U+0009 (TAB) in the lemma ('Ha\\tus')"
    with pytest.raises(InputError) as info:
        make_query("Haus", "N;NOM\nPL", "german")
    assert str(info.value) == "control character U+000A (LF) in the tag bundle ('N;NOM\\nPL')"


def test_predict_refuses_control_characters_in_arguments_and_input_files(ckpt, tmp_path):  # noqa: F811
    result = run("predict", "--model", ckpt, "Ha\tus", "V;PL", "--format", "tsv")
    assert result.exit_code == 1 and result.stdout == ""
    assert "Error: control character U+0009 (TAB) in the lemma ('Ha\\tus')" in result.stderr
    path = write(tmp_path / "in.tsv", "kala\tV;PL\nka\x00la\tV;PL\n")
    result = run("predict", "--model", ckpt, "--input", path, "--format", "2018")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].split("\t")[::2] == ["kala", "V;PL"]  # kept
    assert result.stdout.splitlines()[1:] == ["\t\t"]  # one line per input: the bad one empty
    assert (
        f"{path}:2: control character U+0000 (NUL) in the lemma ('ka\\x00la\\tV;PL')"
        in result.stderr
    )


def test_tsv_writers_refuse_a_control_character_they_are_given():
    pred = Prediction(
        "Ha\tus",
        "N;PL",
        "german",
        forms=(Form("Häuser", 1.0),),
        certificate=Certificate.FULL_SUPPORT,
        more_than=None,
        beam_certificate=Certificate.FULL_SUPPORT,
        method="beam",
    )
    for render in (prediction_tsv, prediction_2018):
        with pytest.raises(ValueError, match=r"control character U\+0009 \(TAB\)"):
            render(pred)
    assert tsv_line(["a b", 1, 0.5, None]) == "a b\t1\t0.5\t"


# --- 15.3: user text is shown verbatim, never read as markup -----------------------------------

MARKUP = ["Haus[/x]", "[red]Haus[/red]", "[bold]", "[/]"]


def _shown(renderable) -> str:
    console = Console(width=300, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


@pytest.mark.parametrize("text", MARKUP)
def test_every_table_shows_user_text_verbatim(text):
    from inflect.corpora.manifests import LanguageSummary
    from inflect.corpora.stats import SplitStats
    from inflect.inference.explain import Explanation
    from inflect.inference.registry import ShippedModel
    from inflect.render.tables import attention_heatmap

    pred = Prediction(
        text,
        f"N;{text}",
        text,
        forms=(Form(text, 1.0),),
        certificate=Certificate.FULL_SUPPORT,
        more_than=None,
        beam_certificate=Certificate.FULL_SUPPORT,
        method="beam",
        source=text,
        line=1,
    )
    assert _shown(prediction_table(pred)).count(text) >= 4  # lemma, tags, language, source, form
    frame = pd.DataFrame({"language": [text], "n": [1], "accuracy": [100.0], "levenshtein": [0.0]})
    assert text in _shown(scores_table(frame, title=text))
    assert _shown(evaluation_table(frame, title=text)).count(text) >= 2
    stats = SplitStats(text, text, 1, 1, 1, None, 1, 1, 0, text, text, 0, 0, 0, 0)
    assert _shown(stats_table([stats])).count(text) >= 3
    summary = LanguageSummary(text, {"dev": 1}, 10, 1, 1)
    assert _shown(languages_table(text, [summary], ["dev"])).count(text) >= 2
    import dataclasses

    manifest = dataclasses.replace(load_manifest("conll2018-task1"), title=text, licence=text)
    assert _shown(datasets_table([manifest], [0])).count(text) >= 2
    model = ShippedModel(text, (), 1.0, text, text, (text,))
    assert text in _shown(models_table([model]))
    import numpy as np

    explanation = Explanation(pred, [text, "a"], [text, "</s>"], np.eye(2, dtype=np.float32))
    assert _shown(attention_heatmap(explanation)).count(text) >= 3


def test_attention_png_shows_dollar_signs_verbatim(tmp_path):
    pytest.importorskip("matplotlib")
    import numpy as np

    from inflect.inference.explain import Explanation
    from inflect.render.figures import attention_figure, attention_png

    # "$a^$" is a mathtext syntax error: read as mathtext, writing the PNG would fail
    pred = Prediction(
        "$a^$",
        "V",
        "german",
        forms=(Form("$a^$", 1.0),),
        certificate=Certificate.FULL_SUPPORT,
        more_than=None,
        beam_certificate=Certificate.FULL_SUPPORT,
        method="beam",
    )
    explanation = Explanation(pred, ["$", "a"], ["$", "</s>"], np.eye(2, dtype=np.float32))
    (tmp_path / "a.png").write_bytes(attention_png(explanation))
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"
    figure = attention_figure(explanation)
    assert figure.axes[0].get_title() == "\\$a^\\$\np = 1.0000"  # \$ prints as a plain $
    import matplotlib.pyplot as plt

    plt.close(figure)


def test_predict_table_with_markup_in_the_lemma(ckpt):  # noqa: F811
    for lemma in ("Haus[/x]", "[red]Haus[/red]"):
        result = run("predict", "--model", ckpt, lemma, "V;PL", "--format", "table")
        assert result.exit_code == 0, result.output
        assert f"{lemma}  V;PL  (german)" in result.stdout


def test_evaluate_writes_its_files_before_rendering(tmp_path, monkeypatch):
    gold = write(tmp_path / "german-dev", "Haus\tHäuser\tN;NOM;PL\n")
    import inflect.render.tables

    def broken(*args, **kwargs):
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(inflect.render.tables, "scores_table", broken)
    out = tmp_path / "res" / "de"
    result = run("evaluate", "--pred", gold, "--gold", gold, "--out", out, "--format", "table")
    assert isinstance(result.exception, RuntimeError)
    assert pd.read_csv(f"{out}.csv")["accuracy"].tolist() == [100.0, 100.0]
    assert os.path.isfile(f"{out}.parquet") and os.path.isfile(f"{out}.svg")


def test_explain_writes_the_png_before_rendering(ckpt, tmp_path, monkeypatch):  # noqa: F811
    pytest.importorskip("matplotlib")
    import inflect.render.tables

    def broken(*args, **kwargs):
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(inflect.render.tables, "attention_heatmap", broken)
    png = tmp_path / "kala.png"
    result = run("explain", "--model", ckpt, "kala", "V;PL", "--png", png, "--format", "table")
    assert isinstance(result.exception, RuntimeError)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- 15.6: the 2023 layout ---------------------------------------------------------------------


def test_detect_format_looks_for_the_tag_bundle():
    assert detect_format(["Haus", "N;NOM;PL"]) == "covered"
    assert detect_format(["Haus", "Häuser", "N;NOM;PL"]) == "2018"
    assert detect_format(["Haus", "N;NOM;PL", "Häuser"]) == "2023"
    assert detect_format(["ABC", "ABC", "N;INDF;NOM;SG"]) == "2018"  # an upper-case form
    assert detect_format(["extraire", "N", "V;SBJV;PST;3;SG"]) == "2018"  # French data: form N
    assert detect_format(["x", "V.CVB", "y"]) == "2023"  # a one-feature bundle
    assert detect_format(["bor; bihur", "N;NOM", "bor; bihurek"]) == "2023"  # ';' in a lemma
    assert detect_format(["Haus", "Haus", "Haus"]) == "2018"  # undecided: the shared task's
    assert detect_format(["a"]) is None and detect_format(["a", "b", "c", "d"]) is None


def test_evaluate_scores_a_2023_pair(tmp_path):
    gold = write(tmp_path / "german-dev", "Haus\tN;NOM;PL\tHäuser\nBaum\tN;NOM;PL\tBäume\n")
    pred = write(tmp_path / "german.pred", "Haus\tN;NOM;PL\tHäuser\nBaum\tN;NOM;PL\tBäumen\n")
    # Häuser = Häuser; Bäumen is Bäume plus one insertion: accuracy 1/2, Levenshtein (0 + 1)/2
    header = "language\tn\taccuracy\tlevenshtein\tmissing\textra\tgold_duplicates\tpred_duplicates"
    expected = [
        header,
        "german\t2\t50.0\t0.5\t0\t0\t0\t0",
        "macro-average\t2\t50.0\t0.5\t0\t0\t0\t0",
    ]
    for chosen in ([], ["--input-format", "2023"]):
        result = run("evaluate", "--pred", pred, "--gold", gold, *chosen)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines() == expected


def test_data_check_names_the_2023_layout(tmp_path):
    path = write(tmp_path / "german-dev", "Haus\tN;NOM;PL\tHäuser\nBaum\tN;NOM;PL\tBäume\n")
    result = run("data", "check", path)
    assert result.exit_code == 0
    assert result.stdout == f"{path}: OK — 2 examples, format 2023, 2 lines\n"


# --- 15.8: output paths ------------------------------------------------------------------------


def _pair(tmp_path):
    return write(tmp_path / "german-dev", "Haus\tHäuser\tN;NOM;PL\n")


def test_output_under_a_file_is_a_clear_error_before_any_work(tmp_path, monkeypatch):
    import inflect.evaluation.scoring

    def never(*args, **kwargs):
        raise AssertionError("work started")

    monkeypatch.setattr(inflect.evaluation.scoring, "score_files", never)
    gold = _pair(tmp_path)
    blocker = write(tmp_path / "blocker", "x")
    result = run("evaluate", "--pred", gold, "--gold", gold, "--out", blocker / "res" / "de")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot write {blocker}/res/de.parquet: {blocker} is a file, not a folder\n"
    )
    # a folder as the prefix would write hidden files named .parquet, .csv and .svg in it
    for prefix in (str(tmp_path), f"{tmp_path}/results/"):
        result = run("evaluate", "--pred", gold, "--gold", gold, "--out", prefix)
        assert result.exit_code == 2
        assert "names a folder; --out takes a PREFIX of file names" in " ".join(result.stderr.split())
    assert not list(tmp_path.glob(".*")) and not (tmp_path / "results").exists()


def test_report_and_explain_check_their_output_first(ckpt, tmp_path):  # noqa: F811
    gold = _pair(tmp_path)
    blocker = write(tmp_path / "blocker", "x")
    result = run(
        "report", "ambiguity", "--model", ckpt, "--gold", gold, "--out", blocker / "amb.md"
    )
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"Error: cannot write {blocker}/amb.md: {blocker} is a file, not a folder\n"
    )
    result = run("explain", "--model", ckpt, "kala", "V;PL", "--png", blocker / "x" / "k.png")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot write {blocker}/x/k.png: {blocker} is a file, not a folder\n"
    )


def _read_only(monkeypatch, folder):
    """Every temporary file under ``folder`` fails as on a read-only place (we may run as root,
    for whom permissions do not apply)."""
    real = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and os.path.abspath(dir).startswith(str(folder)):
            raise PermissionError(errno.EACCES, "Permission denied", str(dir))
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


def test_a_read_only_output_folder_is_a_clear_error(tmp_path, monkeypatch):
    gold = _pair(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    _read_only(monkeypatch, locked)
    result = run("evaluate", "--pred", gold, "--gold", gold, "--out", locked / "new" / "de")
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot write {locked}/new/de.parquet: Permission denied\n"
    assert list(locked.iterdir()) == []


def test_a_full_disk_names_the_users_file_and_leaves_nothing_behind(tmp_path, monkeypatch):
    gold = _pair(tmp_path)

    def full(self, path, *args, **kwargs):
        with open(path, "w") as handle:  # a partial temporary file, as a real full disk leaves
            handle.write("language")
        raise OSError(errno.ENOSPC, "No space left on device", path)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    out = tmp_path / "new" / "sub" / "de"
    result = run("evaluate", "--pred", gold, "--gold", gold, "--out", out)
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot write {out}.csv: No space left on device\n"
    assert list(tmp_path.iterdir()) == [gold]  # not the .parquet written first, nor the folders


def _toy_manifest(tmp_path):
    import hashlib

    upstream = tmp_path / "upstream"
    upstream.mkdir()
    content = b"Haus\tH\xc3\xa4user\tN;NOM;PL\n"
    (upstream / "toy-dev").write_bytes(content)
    path = tmp_path / "toy.toml"
    path.write_text(
        'name = "toy"\nlicence = "CC0"\n'
        f'url_template = "{upstream.as_uri()}/{{upstream}}"\n'
        '[[files]]\nlanguage = "toy"\nsplit = "dev"\npath = "toy/toy-dev"\n'
        f'upstream = "toy-dev"\nsha256 = "{hashlib.sha256(content).hexdigest()}"\n'
        f"size = {len(content)}\n",
        encoding="utf-8",
    )
    return path


def test_fetch_into_a_bad_place(tmp_path, monkeypatch):
    manifest = _toy_manifest(tmp_path)
    blocker = write(tmp_path / "blocker", "x")
    result = run("data", "fetch", manifest, "--data-dir", blocker / "data")
    assert result.exit_code == 1
    assert result.stderr.endswith(
        f"Error: cannot write {blocker}/data: {blocker} is a file, not a folder\n"
    )
    # a full disk while writing: the file named, no folder left behind
    import inflect.corpora.manifests

    class Full:
        def __init__(self, path):
            self.file = open(path, "wb")  # noqa: SIM115 (closed in __exit__)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, block):
            raise OSError(errno.ENOSPC, "No space left on device")

    # the download's file, opened by name in inflect.corpora.manifests
    def opened(path, mode="r", *args, **kwargs):
        return Full(path) if mode == "wb" else open(path, mode, *args, **kwargs)

    monkeypatch.setattr(inflect.corpora.manifests, "open", opened, raising=False)
    target = tmp_path / "data"
    with pytest.raises(OutputError) as info:
        fetch(load_manifest(manifest), data_dir=target)
    assert str(info.value) == f"cannot write {target}/toy/toy-dev: No space left on device"
    assert not target.exists()
    monkeypatch.undo()
    # read-only: refused before the download
    _read_only(monkeypatch, tmp_path / "ro")
    (tmp_path / "ro").mkdir()
    with pytest.raises(OutputError) as info:
        fetch(load_manifest(manifest), data_dir=tmp_path / "ro" / "data")
    assert str(info.value) == f"cannot write {tmp_path}/ro/data: Permission denied"
    assert list((tmp_path / "ro").iterdir()) == []


# --- 15.11: standard input ---------------------------------------------------------------------


def test_predict_reads_a_pipe_without_lemma(ckpt, tmp_path):  # noqa: F811
    result = run("predict", "--model", ckpt, "--format", "2018", input="kala\tV;PL\nmudi\tV\n")
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[::2] for line in result.stdout.splitlines()] == [
        ["kala", "V;PL"],
        ["mudi", "V"],
    ]
    result = run("predict", "--model", ckpt, "kala")  # TAGS missing
    assert result.exit_code == 2
    assert (
        "give LEMMA and TAGS (e.g. Haus 'N;DAT;PL'), or --input FILE ('-' or a pipe: "
        "standard input)" in result.stderr
    )


# --- 15.12: TSV with a header in a pipe --------------------------------------------------------


def test_prediction_tsv_layout():
    pred = Prediction(
        "Haus",
        "N;DAT;PL",
        "german",
        forms=(Form("Häusern", 0.75), Form("Hausen", 0.25)),
        certificate=Certificate.FULL_SUPPORT,
        more_than=None,
        beam_certificate=Certificate.MODE_ONLY,
        method="support",
    )
    assert PREDICTION_TSV_COLUMNS == (
        "lemma",
        "tags",
        "language",
        "certificate",
        "count",
        "rank",
        "form",
        "probability",
        "source",
        "asked",
    )
    assert prediction_tsv(pred) == (
        "Haus\tN;DAT;PL\tgerman\tfull_support\t2\t1\tHäusern\t0.75\tmodel\tN;DAT;PL\n"
        "Haus\tN;DAT;PL\tgerman\tfull_support\t2\t2\tHausen\t0.25\tmodel\tN;DAT;PL"
    )
    # tags as written (UniMorph 4), and the bundle they were read as
    read = dataclasses.replace(pred, tags="N;DAT(PL)", asked="N;DAT;PL")
    assert prediction_tsv(read).split("\n")[0].split("\t") == [
        "Haus", "N;DAT(PL)", "german", "full_support", "2", "1", "Häusern", "0.75", "model",
        "N;DAT;PL"]
    capped = Prediction(
        "x",
        "V",
        "german",
        forms=(Form("a", 0.5),),
        certificate=Certificate.MODE_ONLY,
        more_than=1,
        beam_certificate=Certificate.NONE,
        method="beam",
    )
    assert prediction_tsv(capped) == "x\tV\tgerman\tmode_only\t>1\t1\ta\t0.5\tmodel\tV"
    none = Prediction(
        "x",
        "V",
        "german",
        forms=(),
        certificate=Certificate.NONE,
        more_than=None,
        beam_certificate=Certificate.NONE,
        method="beam",
    )
    assert prediction_tsv(none) == "x\tV\tgerman\tnone\t0\t\t\t\t\tV"


def test_predict_in_a_pipe_prints_the_header_first(ckpt):  # noqa: F811
    result = run("predict", "--model", ckpt, "kala", "V;PL")
    assert result.exit_code == 0, result.output
    header, first, *_ = result.stdout.splitlines()
    assert header == "\t".join(PREDICTION_TSV_COLUMNS)
    assert first.split("\t")[:3] == ["kala", "V;PL", "german"] and first.split("\t")[5] == "1"


def test_data_commands_print_tsv_in_a_pipe(tmp_path):
    folder = tmp_path / "conll2018-task1"
    folder.mkdir()
    write(folder / "german-train-low", "Haus\tHäuser\tN;NOM;PL\nHund\tHunde\tN;NOM;PL\n")
    write(folder / "german-dev", "Maus\tMäuse\tN;NOM;PL\n")
    write(folder / "german-covered-test", "Laus\tN;NOM;PL\n")
    result = run("data", "stats", "german", "--setting", "low", "--data-dir", tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "language\tsplit\tpairs\tlemmas\tcharacters\tsymbols\tfeatures\tbundles\twith_spaces\t"
        "longest_lemma\tlongest_form\tmulti_order_bundles\tduplicate_feature_bundles\t"
        "padded_feature_bundles\tblank_lines",
        # Haus Häuser Hund Hunde: H a u s ä e r n d = 9 code points; symbols: the same 9
        "german\ttrain-low\t2\t2\t9\t9\t3\t1\t0\tHaus\tHäuser\t0\t0\t0\t0",
        "german\tdev\t1\t1\t6\t6\t3\t1\t0\tMaus\tMäuse\t0\t0\t0\t0",  # M a u s ä e
        "german\tcovered-test\t1\t1\t4\t4\t3\t1\t0\tLaus\t\t0\t0\t0\t0",  # no form
    ]
    result = run("data", "list", "--data-dir", tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "dataset\tdescription\tfiles\tfiles_here\tsize_bytes\tlicence"
    assert [line.split("\t")[0] for line in lines[1:]] == ["conll2018-task1", "multi30k"]
    assert lines[1].split("\t")[3] == "3"  # the three files made above
    result = run("data", "list", "conll2018-task1", "--data-dir", tmp_path)
    header, *rows = result.stdout.splitlines()
    assert header == (
        "dataset\tlanguage\ttrain-high\ttrain-medium\ttrain-low\tdev\tcovered-test\t"
        "size_bytes\tfiles_here\tfiles"
    )
    german = next(r.split("\t") for r in rows if r.split("\t")[1] == "german")
    assert german[:7] == ["conll2018-task1", "german", "10000", "1000", "100", "1000", "1000"]
    assert german[8:] == ["3", "5"]
    for args in (
        ("data", "stats", "german", "--setting", "low", "--data-dir", tmp_path),
        ("data", "list", "--data-dir", tmp_path),
    ):
        assert "┃" in run(*args, "--format", "table").stdout  # a table when asked


def test_explain_and_report_print_tsv_in_a_pipe(ckpt, tmp_path):  # noqa: F811
    from inflect.inference.explain import explain
    from inflect.inference.predictor import Predictor

    result = run("explain", "--model", ckpt, "kala", "V;PL")
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header == "form\tprobability\tstep\toutput\tposition\tsource\tweight"
    found = explain(Predictor.from_checkpoints([ckpt]), "kala", "V;PL", "german", 4)
    cells = [r.split("\t") for r in rows]
    # every cell of every string drawn; each decoding step's weights sum to 1
    assert len(cells) == sum(len(p.target) * len(found.source) for p in found.panels)
    best = [c for c in cells if c[0] == found.panels[0].form]
    assert [c[5] for c in best[: len(found.source)]] == list(found.source)
    for step in {c[2] for c in best}:
        assert sum(float(c[6]) for c in best if c[2] == step) == pytest.approx(1.0, abs=1e-5)
    gold = write(tmp_path / "german-dev", "kala\tkalaen\tV;PL\n")
    result = run("report", "ambiguity", "--model", ckpt, "--gold", gold)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "tags\tlemma\tlanguage\tgold\tgold_in_support\tcertificate\tcount\trank\tform\tprobability"
    )


# --- 15.15: the tag bundle as written ----------------------------------------------------------


def test_data_check_shows_a_repeated_feature_as_written(tmp_path):
    path = write(
        tmp_path / "x-dev", "gehen\tgingen\tV;FIN;IND;PST;PFV;FIN;3;PL\nalt\talten\tADJ;ABL; PL\n"
    )
    result = run("data", "check", path)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:2] == [
        f"warning: {path}:1: tag bundle repeats a feature (counted: a bundle is a multiset) "
        "('V;FIN;IND;PST;PFV;FIN;3;PL')",
        f"warning: {path}:2: spaces around a feature of the tag bundle (removed) ('ADJ;ABL; PL')",
    ]


@pytest.mark.parametrize("width", [20, 30, 45, 50, 80])
def test_a_narrow_terminal_never_cuts_a_form_or_a_number(width):
    """The bars go first, then plain lines; every form and every probability
    (4 decimals, or 2 significant digits below 1e-4, as the table prints them) is shown whole
    on one line, at every width."""
    forms = (("Hausen", 0.6843), ("Häusern", 0.1041), ("Hausern", 0.0990), ("Hüuser", 3.2e-5))
    pred = Prediction(
        "Haus",
        "N;DAT;PL",
        "german",
        forms=(Form("Häuser", 0.0, "lexicon.tsv:3"), *(Form(f, p) for f, p in forms)),
        certificate=Certificate.MODE_ONLY,
        more_than=None,
        beam_certificate=Certificate.MODE_ONLY,
        method="beam",
    )
    console = Console(width=width, record=True, color_system=None)
    console.print(prediction_table(pred))
    lines = console.export_text().splitlines()
    assert all(len(line.rstrip()) <= width for line in lines)
    assert "…" not in "\n".join(lines)
    expected = {"Hausen": "0.6843", "Häusern": "0.1041", "Hausern": "0.0990", "Hüuser": "3.2e-05"}
    for form, number in expected.items():  # the form and its number together on one line
        assert any(form in line.split() and number in line.split() for line in lines), form
    assert any("Häuser" in line.split() and "attested" in line.split() for line in lines)
    assert Certificate.MODE_ONLY.description in " ".join(" ".join(lines).split())


@pytest.mark.parametrize("width", [20, 40, 120])
def test_evaluate_at_any_width_shows_every_number(width):
    """At 20 columns `evaluate` once dropped every number; each value is now shown
    whole (as the table formats it: accuracy 2 decimals, shares in percent 1 decimal)."""
    from inflect.render.tables import evaluation_table

    frame = pd.DataFrame({
        "language": ["german", "macro-average"], "n": [1000, 1000],
        "accuracy": [88.6, 88.6], "levenshtein": [0.214, 0.214], "missing": [0, 0],
        "rejected": [2, 2], "single_string": [0.418, 0.418], "full_support": [0.717, 0.717],
    })
    console = Console(width=width, record=True, color_system=None)
    console.print(evaluation_table(frame))
    text = console.export_text()
    assert "…" not in text and all(len(line.rstrip()) <= width for line in text.splitlines())
    for number in ("1,000", "88.60", "0.21", "41.8", "71.7"):
        assert number in text.split(), number
