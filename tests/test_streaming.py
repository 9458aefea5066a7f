"""Slow input is answered line by line: a line written to a pipe that stays open
gets its answer at once; input that comes quickly is still searched in whole chunks, and the
answers do not depend on how the lines were batched.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from inflect.inference.streaming import IDLE, with_idle_marks

REPO = Path(__file__).resolve().parent.parent
LINES = ["Haus\tN;DAT;PL", "Katze\tN;NOM;PL", "Wort\tN;GEN;SG", "gehen\tV;IND;PST;1;SG"]


def _slow(items, pause_after, pause):
    for i, item in enumerate(items):
        yield item
        if i == pause_after:
            time.sleep(pause)


def test_idle_marks_come_at_pauses_only():
    got = list(with_idle_marks(_slow("abc", 0, 0.6), idle=0.1))
    assert got == ["a", IDLE, "b", "c"]  # one mark per pause, none in a quick run
    assert list(with_idle_marks(iter([]), idle=0.1)) == []


def test_idle_marks_pass_the_reader_error_on_after_the_items_before_it():
    def broken():
        yield 1
        yield 2
        raise ValueError("line 3 unreadable")

    seen = []
    with pytest.raises(ValueError, match="line 3 unreadable"):
        for item in with_idle_marks(broken(), idle=5):
            seen.append(item)
    assert seen == [1, 2]


def test_idle_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        list(with_idle_marks([1], idle=0))


def _reader(stream) -> queue.Queue:
    """Lines of ``stream`` put into a queue by a thread (None at the end)."""
    lines: queue.Queue = queue.Queue()

    def read():
        for line in iter(stream.readline, ""):
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _same_rows(got, expected):
    """TSV lines alike: every column equal but the probability (column 8), equal up to float32
    rounding: batch composition changes the rounding of float32 kernels (about 1e-7), never a
    form, rank or certificate."""
    got = [line.rstrip("\n").split("\t") for line in got]
    expected = [line.rstrip("\n").split("\t") for line in expected]
    assert [r[:7] + r[8:] for r in got] == [r[:7] + r[8:] for r in expected]
    for r, e in zip(got[1:], expected[1:], strict=True):
        assert (r[7] == e[7] == "") or float(r[7]) == pytest.approx(float(e[7]), rel=1e-5,
                                                                    abs=1e-7)


def _same(a, b):
    """Two records alike: the same forms in the same order, the same certificate, and the
    probabilities equal up to float32 rounding."""
    assert [f.form for f in a.forms] == [f.form for f in b.forms]
    assert a.certificate == b.certificate and a.more_than == b.more_than
    for f, g in zip(a.forms, b.forms, strict=True):
        assert f.probability == pytest.approx(g.probability, rel=1e-5, abs=1e-7)


def _command(*args):
    env = {**os.environ, "PYTHONPATH": str(REPO), "INFLECT_THREADS": "1"}
    return [sys.executable, "-m", "inflect", "predict", "--lang", "german", *args], env


def test_a_line_on_an_open_pipe_is_answered_before_the_input_ends(tmp_path):
    command, env = _command()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    out = _reader(proc.stdout)
    streamed = []
    try:
        for lemma_tags in (LINES[0], LINES[1]):  # each line alone, stdin left open
            proc.stdin.write(lemma_tags + "\n")
            proc.stdin.flush()
            lemma = lemma_tags.split("\t")[0]
            deadline = time.monotonic() + 60  # the model loads slowly on a busy machine
            while True:
                line = out.get(timeout=max(0.1, deadline - time.monotonic()))
                assert line is not None, proc.stderr.read()
                streamed.append(line)
                if line.startswith(lemma + "\t"):
                    break
        assert proc.poll() is None  # still running: the answers came before the end of input
        proc.stdin.write("".join(x + "\n" for x in LINES[2:]))  # the rest in one go
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    while (line := out.get(timeout=10)) is not None:
        streamed.append(line)

    # the same lines read from a regular file (whole chunks): the same answers, line for line
    path = tmp_path / "in.tsv"
    path.write_text("".join(x + "\n" for x in LINES), encoding="utf-8")
    command, env = _command("--input", str(path))
    whole = subprocess.run(command, capture_output=True, text=True, encoding="utf-8", env=env,
                           timeout=120)
    assert whole.returncode == 0, whole.stderr
    _same_rows(streamed, whole.stdout.splitlines())
    answered = list(dict.fromkeys(r.split("\t")[0] for r in whole.stdout.splitlines()[1:]))
    assert answered == [x.split("\t")[0] for x in LINES]  # every line, in input order


def test_batch_composition_does_not_change_the_records():
    from inflect.inference.predictor import load_predictor
    from inflect.inference.queries import make_query

    predictor = load_predictor([], "german")
    queries = [make_query(*x.split("\t"), "german") for x in LINES]
    whole = list(predictor.stream(queries))
    paused = list(predictor.stream(_slow(queries, 0, 0.5), idle=0.05))  # chunks 1 + 3
    one_by_one = [next(predictor.stream([q])) for q in queries]
    for a, b, c in zip(whole, paused, one_by_one, strict=True):
        _same(a, b)
        _same(a, c)

    # the first record is given while the input is still waiting for the second query
    answered = threading.Event()
    waited = []

    def held():
        yield queries[0]
        waited.append(answered.wait(timeout=30))
        yield from queries[1:]

    stream = predictor.stream(held(), idle=0.05)
    first = next(stream)
    answered.set()
    rest = list(stream)
    assert first.lemma == "Haus" and len(rest) == 3
    assert waited == [True]  # the input had not gone on when the first record came
