"""`inflect serve` against a real server on a free port (README "Serve"): every endpoint, each
bad request, 32 concurrent clients (each answer matches the same input asked alone), the
bounded queue's 503 and SIGTERM during requests.

The expected answers come from elsewhere: the record of `inflect predict --format jsonl` run as
its own process, and the paradigm of :class:`inflect.inference.paradigm.Paradigms` made in this
process as `inflect paradigm` makes it.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

REPO = Path(__file__).resolve().parent.parent
RUNNING = re.compile(r"Uvicorn running on http://([\d.]+):(\d+)")
#: The module server's --read-timeout (seconds), short so the slow-client test is quick.
READ_TIMEOUT = 3
NOUNS = ["Haus", "Baum", "Frau", "Kind", "Tag", "Wort", "Stadt", "Land", "Hund", "Katze",
         "Buch", "Tisch", "Schule", "Mann", "Jahr", "Nacht"]


class Server:
    """``python -m inflect serve --port 0 ARGS`` (one torch thread): its address, its log (read
    by a thread, so that the access log never blocks it) and its process."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "INFLECT_THREADS": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "inflect", "serve", "--port", "0", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
        )
        self.log: list[str] = []
        found = threading.Event()

        def read() -> None:
            for line in self.proc.stderr:
                self.log.append(line)
                match = RUNNING.search(line)
                if match:
                    self.url = f"http://{match.group(1)}:{match.group(2)}"
                    found.set()

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 180  # torch and a model load slowly on a busy machine
        while not found.wait(0.2):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError("the server did not start:\n" + "".join(self.log))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)


def call(url: str, path: str, params: dict | list | None = None, body: bytes | None = None,
         headers: dict | None = None, method: str | None = None) -> tuple[int, dict, object]:
    """One request: (status, headers, the JSON answer or, for HTML, the text)."""
    query = "?" + urllib.parse.urlencode(params, doseq=True) if params else ""
    request = urllib.request.Request(url + path + query, data=body, headers=headers or {},
                                     method=method)
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            status, head, raw = answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        status, head, raw = exc.code, dict(exc.headers), exc.read()
    text = raw.decode("utf-8")
    assert "Traceback" not in text
    is_json = head.get("content-type", "").startswith("application/json")
    return status, head, json.loads(text) if is_json else text


def post(url: str, payload: object, path: str = "/v1/inflect") -> tuple[int, dict, object]:
    return call(url, path, body=json.dumps(payload).encode(),
                headers={"Content-Type": "application/json"})


def same(a: dict, b: dict) -> None:
    """Two records alike: every field equal, the probabilities to float32 rounding. Batch
    composition changes the rounding of float32 kernels (a few units of 6e-8 per operation,
    multiplied over a form's decoding steps: up to 7e-7 absolute, 2e-5 relative above 0.001
    measured on the inputs below), never a form, its place, its source or a certificate."""
    assert {k: v for k, v in a.items() if k != "forms"} == {
        k: v for k, v in b.items() if k != "forms"}
    assert [(f["form"], f["source"]) for f in a["forms"]] == [
        (f["form"], f["source"]) for f in b["forms"]]
    for f, g in zip(a["forms"], b["forms"], strict=True):
        assert f["probability"] == pytest.approx(g["probability"], rel=1e-4, abs=2e-6)


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory):
    path = tmp_path_factory.mktemp("lexicon") / "german.tsv"
    path.write_text("Haus\tHäusern\tN;DAT;PL\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(lexicon):
    running = Server("--lang", "german", "--max-inputs", "40", "--lexicon", str(lexicon),
                     "--read-timeout", str(READ_TIMEOUT))
    yield running.url
    running.stop()


# ------------------------------------------------------------------ the endpoints


@pytest.mark.slow
def test_get_inflect_answers_the_record_of_inflect_predict(server, lexicon):
    env = {**os.environ, "PYTHONPATH": str(REPO), "INFLECT_THREADS": "1"}
    env.pop("INFLECT_LEXICON", None)
    done = subprocess.run(
        [sys.executable, "-m", "inflect", "predict", "--lang", "german", "Haus", "N;DAT;PL",
         "--format", "jsonl", "--lexicon", str(lexicon)],
        capture_output=True, text=True, encoding="utf-8", env=env, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)
    status, head, got = call(server, "/v1/inflect",
                             {"lang": "german", "lemma": "Haus", "tags": "N;DAT;PL"})
    assert status == 200 and head["content-type"] == "application/json"
    assert got == expected  # one schema: the same record, field for field
    first = got["forms"][0]
    assert (first["form"], first["attested"]) == ("Häusern", True)
    assert first["source"].startswith(f"{lexicon}:1")  # the user's file first
    assert got["model"] == "german-high"


def test_lexicon_choices(server, lexicon):
    params = {"lang": "de", "lemma": "Haus", "tags": "N;DAT;PL"}
    _, _, alone = call(server, "/v1/inflect", {**params, "no_lexicon": "true"})
    assert all(not f["attested"] for f in alone["forms"])
    _, _, mine = call(server, "/v1/inflect", {**params, "lexicon": "german.tsv"})
    assert mine["forms"][0]["source"] == f"{lexicon}:1"
    assert mine["forms"][1:] == alone["forms"]  # then the model's whole distribution
    status, _, error = call(server, "/v1/inflect", {**params, "lexicon": "mine.tsv"})
    assert status == 422 and error["field"] == "lexicon" and error["value"] == "mine.tsv"
    assert "german.tsv, " in error["error"] and error["error"].endswith(", shipped")
    status, _, error = call(server, "/v1/inflect",
                            {**params, "lexicon": "shipped", "no_lexicon": "true"})
    assert status == 422 and error["field"] == "no_lexicon"


def test_post_inflect_answers_each_input_in_order_one_language_each(server):
    payload = {"lang": "german", "no_lexicon": True, "inputs": [
        {"lemma": "Baum", "tags": "N;DAT;PL"},
        {"lemma": "get", "tags": "V;PST", "lang": "english"},
        {"lemma": "Kind", "tags": "N;GEN;SG"},
    ]}
    status, _, got = post(server, payload)
    assert status == 200 and [r["lemma"] for r in got["results"]] == ["Baum", "get", "Kind"]
    assert [r["language"] for r in got["results"]] == ["german", "english", "german"]
    for record, item in zip(got["results"], payload["inputs"], strict=True):
        _, _, alone = call(server, "/v1/inflect", {"lang": item.get("lang", "german"),
                                                   "lemma": item["lemma"], "tags": item["tags"],
                                                   "no_lexicon": "true"})
        same(record, alone)
    # with the shipped lexicon: english-train-high attests got
    _, _, with_lexicon = call(server, "/v1/inflect", {"lang": "en", "lemma": "get", "tags": "V;PST"})
    first = with_lexicon["forms"][0]
    assert first["form"] == "got" and first["attested"]
    assert "shared-task data (english-train-high:" in first["source"]


@pytest.mark.slow
def test_get_paradigm_answers_the_cells_of_inflect_paradigm(server, lexicon):
    from inflect import defaults
    from inflect.inference.paradigm import Paradigms
    from inflect.inference.predictor import load_predictor
    from inflect.lexicon import load_lexicons
    from inflect.render.jsonl import paradigm_jsonl

    # as `inflect paradigm --lang german Haus --pos N --lexicon german.tsv` makes it
    predictor = load_predictor([], "german", chunk_size=defaults.PARADIGM_CHUNK_SIZE,
                               lexicons=load_lexicons([lexicon]))
    made = Paradigms(predictor).paradigm("Haus", "german", "N")
    expected = [json.loads(line) for line in paradigm_jsonl(made).split("\n")]
    status, _, got = call(server, "/v1/paradigm", {"lang": "german", "lemma": "Haus", "pos": "N"})
    assert status == 200
    assert (got["lemma"], got["language"], got["pos"], got["model"]) == (
        "Haus", "german", "N", "german-high")
    assert len(got["cells"]) == len(expected) == 8
    dative = next(c for c in got["cells"] if c["tags"] == "N;DAT;PL")
    assert dative["forms"][0]["source"].startswith(f"{lexicon}:1")  # the user's file first
    for cell, want in zip(got["cells"], expected, strict=True):
        assert {k: v for k, v in cell.items() if k != "forms"} == {
            k: v for k, v in want.items() if k != "forms"}
        assert [(f["form"], f["source"]) for f in cell["forms"]] == [
            (f["form"], f["source"]) for f in want["forms"]]
        for f, g in zip(cell["forms"], want["forms"], strict=True):
            assert f["probability"] == pytest.approx(g["probability"], rel=1e-5, abs=1e-7)


def test_models_health_schema_and_page(server):
    status, _, models = call(server, "/v1/models")
    assert status == 200 and models["lexicons"][0] == "german.tsv"
    assert models["lexicons"][-2:] == ["unimorph", "shipped"]  # as inflect predict asks them
    german = next(m for m in models["models"] if m["language"] == "german")
    assert german["model"] == "german-high" and german["loaded"] is True
    assert len(models["models"]) == 103 and "german-high" in models["loaded"]
    status, _, health = call(server, "/healthz")
    assert status == 200 and health["status"] == "ok"
    call(server, "/v1/inflect?lang=german&lemma=Maus&tags=N;GEN;PL")  # one search: one batch
    status, _, after = call(server, "/healthz")
    assert status == 200 and after["batches"] == health["batches"] + 1
    status, _, schema = call(server, "/openapi.json")
    assert status == 200
    assert {"/v1/inflect", "/v1/paradigm", "/v1/models", "/healthz"} <= set(schema["paths"])
    assert {"get", "post"} == set(schema["paths"]["/v1/inflect"])
    status, head, page = call(server, "/", {"lang": "german", "lemma": "Haus", "pos": "N"})
    assert status == 200 and head["content-type"].startswith("text/html")
    assert 'data-tags="N;DAT;PL"' in page
    status, _, missing = call(server, "/v2/inflect")
    assert status == 404 and missing == {"error": "Not Found", "field": None,
                                         "value": "/v2/inflect"}


# ------------------------------------------------------------------ bad requests

BAD_GETS = [
    ({"lang": "klingon", "lemma": "Haus", "tags": "N;DAT;PL"}, "lang", "klingon",
     "unknown language"),
    ({"lang": "german", "lemma": "Haus", "tags": "N;;PL"}, "tags", "N;;PL", "empty"),
    ({"lang": "german", "lemma": "  ", "tags": "N;DAT;PL"}, "lemma", "  ", "empty lemma"),
    ({"lang": "german", "lemma": "a" * 150, "tags": "N;DAT;PL"}, "lemma", "a" * 150,
     "longer than the model's limit of 100 symbols"),
    ({"lang": "german", "lemma": "a" * 1001, "tags": "N;DAT;PL"}, "lemma", "a" * 1001,
     "at most 1000 characters"),
    ({"lang": "german", "lemma": "Haus"}, "tags", None, "required"),
    ({"lang": "german", "lemma": "Haus", "tags": "N;DAT;PL", "beam": "0"}, "beam", "0",
     "greater than or equal to 1"),
    ({"lang": "german", "lemma": "Haus", "tags": "N;DAT;PL", "support": "some"}, "support",
     "some", "unknown value 'some'; choose one of 'auto', 'always' or 'never'"),
    ({"lang": "german", "lemma": "Haus", "tags": "N;DAT;PL", "tag_format": "conllu"},
     "tag_format", "conllu",
     "unknown value 'conllu'; choose one of 'auto', 'unimorph', 'unimorph4' or 'ud'"),
]


@pytest.mark.parametrize(("params", "field", "value", "words"), BAD_GETS,
                         ids=[b[1] + "-" + b[3].split()[0] for b in BAD_GETS])
def test_a_bad_get_is_a_422_naming_the_field_and_the_value(server, params, field, value, words):
    status, head, error = call(server, "/v1/inflect", params)
    assert status == 422 and head["content-type"] == "application/json"
    assert error["field"] == field and error["value"] == value
    assert words in error["error"]


def test_bad_posts(server):
    one = {"lemma": "Haus", "tags": "N;DAT;PL"}
    status, _, error = post(server, {"lang": "german", "inputs": [one] * 41})
    assert (status, error["field"], error["value"]) == (413, "inputs", 41)
    status, _, error = post(server, {"inputs": [one]})
    assert (status, error["field"], error["value"]) == (422, "lang", None)
    status, _, error = post(server, {"lang": "german", "inputs": [one, {**one, "lemma": ""}]})
    assert (status, error["field"], error["value"]) == (422, "inputs[1].lemma", "")
    status, _, error = post(server, {"lang": "german", "inputs": [one, {**one, "tags": "N;;"}]})
    assert (status, error["field"], error["value"]) == (422, "inputs[1].tags", "N;;")
    status, _, error = post(server, {"lang": "german", "inputs": [{**one, "lang": "klingon"}]})
    assert (status, error["field"], error["value"]) == (422, "inputs[0].lang", "klingon")
    status, _, error = post(server, {"lang": "german", "inputs": [{**one, "lemmas": "x"}]})
    assert (status, error["field"]) == (422, "inputs[0].lemmas")
    status, _, error = post(server, {"lang": "german", "inputs": []})
    assert (status, error["field"]) == (422, "inputs")
    status, _, error = call(server, "/v1/inflect", body=b'{"lang": "german", "inputs": [',
                            headers={"Content-Type": "application/json"})
    assert (status, error["field"]) == (422, "body") and "not valid JSON" in error["error"]
    status, _, error = call(server, "/v1/inflect", body=b"lang=german",
                            headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert (status, error["field"]) == (422, "body") and "application/json" in error["error"]


def test_a_body_too_large_is_a_413_with_or_without_its_length(server):
    big = json.dumps({"lang": "german", "inputs": [{"lemma": "x" * 900, "tags": "N"}] * 1200})
    assert len(big) > 1_000_000
    status, _, error = call(server, "/v1/inflect", body=big.encode(),
                            headers={"Content-Type": "application/json"})
    assert (status, error["field"], error["value"]) == (413, "body", len(big))
    host, port = urllib.parse.urlsplit(server).netloc.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=120)
    chunks = (big[i : i + 65536].encode() for i in range(0, len(big), 65536))
    connection.request("POST", "/v1/inflect", body=chunks, encode_chunked=True,
                       headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    assert answer.status == 413 and json.loads(answer.read())["field"] == "body"
    connection.close()


def test_bad_paradigm_requests(server):
    status, _, error = call(server, "/v1/paradigm", {"lang": "german", "lemma": "Haus"})
    assert (status, error["field"]) == (422, "pos")
    assert "choose one with pos" in error["error"] and "N (8 cells)" in error["error"]
    status, _, error = call(server, "/v1/paradigm", {"lang": "german", "lemma": "Haus",
                                                     "pos": "ADV"})
    assert (status, error["field"], error["value"]) == (422, "pos", "ADV")
    status, _, error = call(server, "/v1/paradigm", {"lang": "german", "lemma": "a" * 150,
                                                     "pos": "N"})
    assert (status, error["field"]) == (422, "lemma") and "longer than" in error["error"]


# ------------------------------------------------------------------ the tags' dialect
#: German *Haus*, plural dative, in UD (the known form: *Häusern*; its 2018 bundle N;DAT;PL).
UD_DATIVE = "NOUN|Case=Dat|Number=Plur"


def _not_mine(server) -> list[str]:
    """The lexicons the service offers other than the test's german.tsv (which holds Haus
    N;DAT;PL itself): the answer is then the field dictionaries' and the shipped data's."""
    return [n for n in call(server, "/v1/models")[2]["lexicons"] if n != "german.tsv"]


def test_tag_format_forces_the_dialect_on_get_and_post(server):
    lexicons = _not_mine(server)
    params = {"lang": "german", "lemma": "Haus", "tags": UD_DATIVE, "lexicon": lexicons}
    status, _, ud = call(server, "/v1/inflect", {**params, "tag_format": "ud"})
    assert status == 200, ud
    assert (ud["tags"], ud["asked"]) == (UD_DATIVE, "N;DAT;PL")
    assert (ud["forms"][0]["form"], ud["forms"][0]["attested"]) == ("Häusern", True)
    # auto detects UD by its '=': the same record as forced (and as no tag_format at all)
    status, _, auto = call(server, "/v1/inflect", {**params, "tag_format": "auto"})
    assert status == 200 and auto == call(server, "/v1/inflect", params)[2]
    same(auto, ud)
    # forced unimorph: the text is one unknown feature, asked as written (the reader reads the
    # 2018 dialect as written), no lexicon holds it and the record says so
    status, _, plain = call(server, "/v1/inflect", {**params, "tag_format": "unimorph"})
    assert status == 200 and plain["asked"] == UD_DATIVE
    assert not any(f["attested"] for f in plain["forms"])
    assert any("not seen in training" in w for w in plain["warnings"])
    # forced ud on a 2018 bundle: N;DAT;PL has no UPOS, a 422 naming the tags
    status, _, error = call(server, "/v1/inflect", {**params, "tags": "N;DAT;PL",
                                                    "tag_format": "ud"})
    assert (status, error["field"], error["value"]) == (422, "tags", "N;DAT;PL")
    assert "UPOS" in error["error"]
    # POST: the body's tag_format holds for every input, each read as the GET reads it
    inputs = [{"lemma": "Haus", "tags": UD_DATIVE}, {"lemma": "Haus", "tags": "N;DAT;PL"}]
    status, _, got = post(server, {"lang": "german", "lexicon": lexicons, "tag_format": "ud",
                                   "inputs": inputs[:1]})
    assert status == 200
    same(got["results"][0], ud)
    status, _, got = post(server, {"lang": "german", "lexicon": lexicons,
                                   "tag_format": "unimorph", "inputs": inputs[:1]})
    assert status == 200 and got["results"][0]["asked"] == UD_DATIVE
    status, _, got = post(server, {"lang": "german", "lexicon": lexicons, "inputs": inputs})
    assert status == 200 and [r["asked"] for r in got["results"]] == ["N;DAT;PL"] * 2
    status, _, error = post(server, {"lang": "german", "tag_format": "ud", "inputs": inputs})
    assert (status, error["field"], error["value"]) == (422, "inputs[1].tags", "N;DAT;PL")


def test_an_unknown_tag_format_is_a_422_naming_it_and_the_choices(server):
    body = {"lang": "german", "inputs": [{"lemma": "Haus", "tags": UD_DATIVE}]}
    for value in ("UD", "conllu", 3):
        status, _, error = post(server, {**body, "tag_format": value})
        assert (status, error["field"], error["value"]) == (422, "tag_format", value)
        assert error["error"] == (f"tag_format: unknown value {value!r}; choose one of 'auto', "
                                  "'unimorph', 'unimorph4' or 'ud'")
    status, _, error = call(server, "/v1/inflect", {"lang": "german", "lemma": "Haus",
                                                    "tags": UD_DATIVE, "tag_format": "UD"})
    assert (status, error["field"], error["value"]) == (422, "tag_format", "UD")
    assert "'UD'" in error["error"] and "'unimorph4'" in error["error"]
    # the paradigm reads no tags: tag_format is no parameter of it
    status, _, error = call(server, "/v1/paradigm", {"lang": "german", "lemma": "Haus",
                                                     "pos": "N", "tag_format": "ud"})
    assert (status, error["field"]) == (422, "tag_format")


@pytest.mark.slow
def test_tag_format_auto_answers_as_inflect_predict(server):
    """The service's auto reading of UD and UniMorph 4 tags is the command line's: the record of
    ``inflect predict --format jsonl`` (in this process), with the same lexicons."""
    from click.testing import CliRunner

    from inflect.cli import main

    lexicons = _not_mine(server)
    for tags in (UD_DATIVE, "N;DAT(PL)"):
        done = CliRunner().invoke(main, ["predict", "--lang", "german", "Haus", tags, "--format",
                                         "jsonl"], env={"INFLECT_LEXICON": None})
        assert done.exit_code == 0, done.output
        expected = json.loads(done.stdout)
        _, _, got = call(server, "/v1/inflect", {"lang": "german", "lemma": "Haus", "tags": tags,
                                                 "tag_format": "auto", "lexicon": lexicons})
        assert expected["asked"] == "N;DAT;PL" and expected["forms"][0]["form"] == "Häusern"
        same(got, expected)


def test_the_page_links_the_paradigm_of_ud_tags(server):
    """The lookup page reads UD tags as the API does, and links the paradigm of the bundle
    asked (N), not of the text as written."""
    status, _, page = call(server, "/", {"lang": "german", "lemma": "Haus", "tags": UD_DATIVE})
    assert status == 200 and 'class="tags">NOUN|Case=Dat|Number=Plur<' in page
    link = re.search(r'<a href="([^"]*)" id="paradigm-link"', page)
    assert link is not None and link.group(1) == "?lang=german&amp;lemma=Haus&amp;pos=N"


# ------------------------------------------------------------------ HTTP as clients expect


def _get_paths(server) -> list[str]:
    """Every GET route of the schema (and the page), with parameters where it needs them."""
    schema = call(server, "/openapi.json")[2]
    params = {"/v1/inflect": "?lang=german&lemma=Haus&tags=N;DAT;PL",
              "/v1/paradigm": "?lang=german&lemma=Haus&pos=N"}
    paths = [p for p, methods in schema["paths"].items() if "get" in methods]
    assert {"/v1/inflect", "/v1/paradigm", "/v1/models", "/healthz", "/livez"} <= set(paths)
    return [p + params.get(p, "") for p in [*paths, "/openapi.json", "/"]]


def test_head_answers_every_get_route_as_get_without_the_body(server):
    for path in _get_paths(server):
        status, head, _ = call(server, path)
        connection = http.client.HTTPConnection(*urllib.parse.urlsplit(server).netloc.split(":"),
                                                timeout=120)
        connection.request("HEAD", path)
        answer = connection.getresponse()
        assert answer.read() == b"", path
        assert (answer.status, answer.getheader("content-type")) == (
            status, head["content-type"]), path
        if path.startswith(("/v1/models", "/livez", "/openapi.json", "/?")):  # the same bytes
            assert answer.getheader("content-length") == head["content-length"], path
        connection.close()


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("PUT", "/v1/inflect", "GET, HEAD, POST"),
    ("DELETE", "/healthz", "GET, HEAD"),
    ("POST", "/v1/models", "GET, HEAD"),
    ("PATCH", "/v1/paradigm", "GET, HEAD"),
])
def test_a_method_not_allowed_is_a_405_naming_those_allowed(server, method, path, allow):
    status, head, error = call(server, path, body=b"{}" if method != "DELETE" else None,
                               headers={"Content-Type": "application/json"}, method=method)
    assert status == 405 and head["allow"] == allow
    assert error["error"] == f"{method} is not allowed here; {path} takes {allow}"


def test_text_that_is_not_utf8_or_has_a_lone_surrogate_or_nan_is_refused_naming_the_field(server):
    status, _, error = call(server, "/v1/inflect?lang=german&lemma=H%E4user&tags=N;NOM;PL")
    assert (status, error["field"], error["value"]) == (400, "lemma", "H\\xe4user")
    assert "not UTF-8 (0xE4)" in error["error"] and "H%C3%A4user" in error["error"]
    status, _, error = call(server, "/v1/paradigm?lang=german&lemma=Haus&pos=%FF")
    assert (status, error["field"]) == (400, "pos")
    status, _, error = call(server, "/?lang=german&lemma=%C3")  # the page too
    assert (status, error["field"]) == (400, "lemma")
    body = r'{"lang": "german", "inputs": [{"lemma": "H\u00e4us", "tags": "N;NOM;PL"}]}'
    latin1 = body.replace("\\u00e4", "\u00e4").encode("latin-1")  # the byte 0xE4 itself
    assert b"H\xe4us" in latin1
    status, _, error = call(server, "/v1/inflect", body=latin1,
                            headers={"Content-Type": "application/json"})
    assert (status, error["field"], error["value"]) == (400, "inputs[0].lemma", "H\\xe4us")
    assert f"0xE4 at offset {latin1.index(0xE4)} of the body" in error["error"]
    lone = body.replace("\\u00e4", "\\ud800").encode()  # JSON's escape of a lone surrogate
    status, _, error = call(server, "/v1/inflect", body=lone,
                            headers={"Content-Type": "application/json"})
    assert (status, error["field"], error["value"]) == (422, "inputs[0].lemma", "H\\ud800us")
    assert "lone surrogate U+D800" in error["error"]
    for constant, field in (("NaN", "beam"), ("Infinity", "max_forms"), ("-Infinity", "beam")):
        text = f'{{"lang": "german", "{field}": {constant}, "inputs": [{{"lemma": "Haus", ' \
               '"tags": "N;NOM;PL"}]}'
        status, _, error = call(server, "/v1/inflect", body=text.encode(),
                                headers={"Content-Type": "application/json"})
        assert (status, error["field"], error["value"]) == (422, field, constant)
    # a surrogate pair is a character, not an error
    pair = body.replace("\\u00e4", "\\ud83d\\ude00").encode()
    status, _, got = call(server, "/v1/inflect", body=pair,
                          headers={"Content-Type": "application/json"})
    assert status == 200 and got["results"][0]["lemma"] == "H\U0001F600us"


def test_an_unknown_get_parameter_is_refused_as_a_post_field_is(server):
    status, _, error = call(server, "/v1/inflect", {"lang": "german", "lemma": "Haus",
                                                    "tags": "N;DAT;PL", "bea": "3"})
    assert (status, error["field"], error["value"]) == (422, "bea", "3")
    assert "did you mean 'beam'?" in error["error"]
    status, _, error = call(server, "/v1/paradigm", {"lang": "german", "lemmas": "Haus",
                                                     "pos": "N"})
    assert (status, error["field"]) == (422, "lemmas") and "did you mean 'lemma'?" in error["error"]
    status, _, error = call(server, "/healthz", {"verbose": "1"})
    assert (status, error["field"]) == (422, "verbose")
    status, _, _ = call(server, "/v1/inflect", {"lang": "german", "lemma": "Haus",
                                                "tags": "N;DAT;PL", "lexicon": ["shipped"]})
    assert status == 200  # a repeated parameter of the route is no stranger
    status, _, _ = call(server, "/", {"lang": "german", "utm_source": "mail"})
    assert status == 200  # the page's links may carry what a mail client adds


def test_max_forms_has_one_limit_on_every_interface(server):
    from click.testing import CliRunner

    from inflect import defaults
    from inflect.cli import main

    limit = defaults.MAX_FORMS_LIMIT
    params = {"lang": "german", "lemma": "Haus", "tags": "N;DAT;PL", "no_lexicon": "true"}
    assert call(server, "/v1/inflect", {**params, "max_forms": str(limit)})[0] == 200
    status, _, error = call(server, "/v1/inflect", {**params, "max_forms": str(limit + 1)})
    assert (status, error["field"]) == (422, "max_forms") and f"{limit}" in error["error"]
    status, _, error = post(server, {"lang": "german", "max_forms": limit + 1,
                                     "inputs": [{"lemma": "Haus", "tags": "N;DAT;PL"}]})
    assert (status, error["field"]) == (422, "max_forms")
    for command in ("predict", "paradigm", "translate"):
        done = CliRunner().invoke(main, [command, "--max-forms", str(limit + 1), "x"])
        assert done.exit_code == 2 and f"1<=x<={limit}" in done.output, command
    from inflect.inference.searcher import Searcher

    with pytest.raises(ValueError, match=f"at most {limit}"):
        Searcher.__init__(object.__new__(Searcher), [object()], max_forms=limit + 1)


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


@pytest.mark.slow
def test_a_client_that_sends_its_headers_or_body_too_slowly_is_cut_off(server):
    host, port = urllib.parse.urlsplit(server).netloc.split(":")
    started = time.monotonic()
    silent = socket.create_connection((host, int(port)), timeout=120)  # sends nothing
    partial = socket.create_connection((host, int(port)), timeout=120)
    partial.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # the headers never end
    trickle = socket.create_connection((host, int(port)), timeout=120)
    trickle.sendall(b"POST /v1/inflect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                    b"\r\nContent-Length: 100\r\n\r\n{")  # 1 of 100 bytes, then nothing
    answers = [_read_all(sock) for sock in (silent, partial, trickle)]  # until they close
    waited = time.monotonic() - started
    for sock in (silent, partial, trickle):
        sock.close()
    assert waited >= READ_TIMEOUT
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 408 ")
    assert b'"field":"headers"' in answers[0].replace(b" ", b"")
    head, _, body = answers[2].partition(b"\r\n\r\n")
    assert json.loads(body)["field"] == "body" and b"connection: close" in head.lower()
    assert call(server, "/healthz")[0] == 200  # and the server goes on


# ------------------------------------------------------------------ many clients


@pytest.mark.slow
def test_32_concurrent_clients_get_each_their_own_answer(server):
    inputs = [{"lang": "german", "lemma": n, "tags": t, "no_lexicon": "true"}
              for n in NOUNS for t in ("N;DAT;PL", "N;GEN;SG")]
    for item in inputs[::4]:
        item["support"] = "always"  # another predictor: its own group in the same batches
    assert len(inputs) == 32
    _, _, before = call(server, "/healthz")
    start = threading.Barrier(32)

    def ask(params):
        start.wait(timeout=60)
        return call(server, "/v1/inflect", params)

    with ThreadPoolExecutor(32) as pool:
        together = list(pool.map(ask, inputs))
    _, _, after = call(server, "/healthz")
    alone = [call(server, "/v1/inflect", params) for params in inputs]
    for (status, _, got), (status_alone, _, expected), item in zip(together, alone, inputs,
                                                                   strict=True):
        assert status == status_alone == 200
        assert (got["lemma"], got["tags"]) == (item["lemma"], item["tags"])
        same(got, expected)
    always = [got for (_, _, got), item in zip(together, inputs, strict=True) if "support" in item]
    assert {r["method"] for r in always} == {"support"}
    # gathered: fewer batches than requests (each batch searched one or two predictors' inputs)
    assert after["batches"] - before["batches"] < 32


# ------------------------------------------------------------------ a full queue, SIGTERM


#: Suffixes that make 25 lemmas of each noun (1,000 inputs a bulk request with 40 nouns'
#: bundles): each a new lemma for the lexicons, as a bulk client's words are.
SUFFIXES = ["", "e", "en", "er", "chen", "lein", "ung", "heit", "keit", "schaft", "tum", "nis",
            "ling", "ei", "in", "ler", "ner", "werk", "zeug", "stück", "teil", "art", "bau",
            "feld", "haus"]


def _bulk(k: int) -> dict:
    """The k-th bulk request: 1,000 German inputs, new lemmas, the default lexicons."""
    nouns = NOUNS + [n + "x" for n in NOUNS] + [n + "y" for n in NOUNS[:8]]
    inputs = [{"lemma": f"{n}{s}{'abcde'[k]}", "tags": t} for n in nouns for s in SUFFIXES
              for t in ("N;DAT;PL",)]
    assert len(inputs) == 1000
    return {"lang": "german", "inputs": inputs}


@pytest.mark.slow
def test_one_word_beside_five_bulk_clients_is_answered_within_3_s():
    """Five clients post 1,000 German words each (the default lexicons: the field
    dictionary is looked up for each new lemma), and while they wait a one-word GET is answered
    within 3 s (or refused with Retry-After), before any bulk request is done. The work is
    searched in turns of about 0.5 s (the batch budget, measured), so the bound holds however
    busy the machine: a batch's measured cost grows with the load and its size shrinks."""
    running = Server("--lang", "german")
    url = running.url
    try:
        pool = ThreadPoolExecutor(5)
        bulk = [pool.submit(post, url, _bulk(k)) for k in range(5)]
        deadline = time.monotonic() + 120
        while True:  # until every bulk request is queued or refused (a busy machine: 503)
            state = call(url, "/healthz")[2]
            refused = [request.result() for request in bulk if request.done()]
            if state["waiting"] + 1000 * len(refused) >= 3500 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert state["waiting"] + 1000 * len(refused) >= 3500 and len(refused) < 5, state
        for status, head, _ in refused:  # over --max-wait's 30 s of expected work
            assert status == 503 and int(head["retry-after"]) >= 1
        started = time.monotonic()
        status, head, got = call(url, "/v1/inflect",
                                 {"lang": "german", "lemma": "Haus", "tags": "N;GEN;SG"})
        took = time.monotonic() - started
        assert status in (200, 503)
        if status == 503:
            assert int(head["retry-after"]) >= 1
        else:
            assert got["forms"][0]["form"] == "Hauses" and got["forms"][0]["attested"]
        assert took < 3.0, f"one word took {took:.1f} s beside five bulk clients"
        # it did not wait for them: no bulk request was answered before it (one refused after
        # the loop above looked, a 503, may be done)
        assert all(request.result()[0] == 503 for request in bulk if request.done())
        after = call(url, "/healthz")[2]
        assert after["waiting"] > 0 and after["queued_seconds"] > 0  # the bulk work goes on
        assert after["ready"] == (after["queued_seconds"] < 30)  # busy past --max-wait's 30 s
    finally:
        running.stop()  # the bulk requests are not waited for: their clients see a reset
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.slow
def test_a_full_queue_answers_503_and_sigterm_finishes_the_requests_in_flight():
    running = Server("--lang", "german", "--no-lexicon", "--max-queue", "400",
                     "--max-inputs", "400", "--max-wait", "1")
    url = running.url
    try:
        heavy = {"lang": "german", "support": "always", "inputs": [
            {"lemma": n + suffix, "tags": t} for n in NOUNS for suffix in ("", "e", "en", "chen")
            for t in ("N;DAT;PL", "N;GEN;SG", "N;NOM;PL", "N;ACC;SG", "N;DAT;SG")]}
        assert len(heavy["inputs"]) == 320
        with ThreadPoolExecutor(2) as pool:
            searching = pool.submit(post, url, heavy)  # taken whole: nothing waits

            def until(predicate):
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    state = call(url, "/healthz")
                    if predicate(state[2]):
                        return state
                    time.sleep(0.01)
                raise AssertionError(f"the server never reached the state: {state}")

            # its first piece is searched, the rest of its 320 inputs wait: more than 1 s of
            # work (support="always" costs over 3 ms an input), so /healthz says busy
            status, head, busy = until(lambda s: s["searching"] > 0 and s["waiting"] > 200)
            assert (status, busy["status"], busy["ready"]) == (503, "busy", False)
            assert int(head["retry-after"]) >= 1 and busy["queued_seconds"] > 1
            status, head, error = post(url, heavy)  # 320 more would pass --max-queue's 400
            assert status == 503 and int(head["retry-after"]) >= 1
            assert "inputs waiting, at most 400" in error["error"]
            some = {**heavy, "inputs": heavy["inputs"][:60]}  # would wait over --max-wait 1
            status, head, error = post(url, some)
            assert status == 503 and int(head["retry-after"]) >= 1
            assert "this request would wait about" in error["error"]
            status, _, one = call(url, "/v1/inflect",  # in turn: not behind the 320
                                  {"lang": "german", "lemma": "Haus", "tags": "N;DAT;PL"})
            assert status == 200 and one["lemma"] == "Haus" and one["forms"]
            assert not searching.done()  # answered while the 320 are still being searched
            running.proc.send_signal(signal.SIGTERM)
            status, _, got = searching.result(timeout=300)
            assert status == 200 and len(got["results"]) == 320
            assert [r["lemma"] for r in got["results"]] == [i["lemma"] for i in heavy["inputs"]]
        # uvicorn ends by raising the signal it caught again, once it has shut down
        assert running.proc.wait(timeout=120) in (0, -signal.SIGTERM)
        running.reader.join(timeout=30)
        log = "".join(running.log)
        assert "Application shutdown complete" in log and "Traceback" not in log
    finally:
        running.stop()


def test_siblings_reorders_only_on_get_and_post(server):
    """``siblings`` (inflect predict --siblings) keeps the model's forms, probabilities and
    certificate (only their order may change); 'on' with no_lexicon is a 422 naming the field."""
    params = {"lang": "german", "lemma": "Hund", "tags": "N;DAT;PL", "lexicon": ["shipped"]}
    status, _, plain = call(server, "/v1/inflect", params)
    assert status == 200, plain
    status, _, ranked = call(server, "/v1/inflect", {**params, "siblings": "on"})
    assert status == 200, ranked

    def model_forms(record):
        return sorted((f["form"], f["probability"]) for f in record["forms"] if not f["attested"])

    assert model_forms(ranked) == model_forms(plain)
    assert ranked["certificate"] == plain["certificate"]
    status, _, got = post(server, {"lang": "german", "lexicon": ["shipped"], "siblings": "on",
                                   "inputs": [{"lemma": "Hund", "tags": "N;DAT;PL"}]})
    assert status == 200 and got["results"][0]["forms"] == ranked["forms"]
    alone = {k: v for k, v in params.items() if k != "lexicon"}
    status, _, error = call(server, "/v1/inflect", {**alone, "no_lexicon": "true",
                                                    "siblings": "on"})
    assert (status, error["field"]) == (422, "no_lexicon")
    assert "siblings" in error["error"]
    # auto with no_lexicon: the model alone, no error; a value outside the choices: a 422
    assert call(server, "/v1/inflect", {**alone, "no_lexicon": "true"})[0] == 200
    status, _, error = call(server, "/v1/inflect", {**params, "siblings": "yes"})
    assert (status, error["field"]) == (422, "siblings")
    # the paradigm route takes it too
    status, _, grid = call(server, "/v1/paradigm", {"lang": "german", "lemma": "Hund",
                                                    "pos": "N", "siblings": "off"})
    assert status == 200 and grid["cells"]
    status, _, error = call(server, "/v1/paradigm", {"lang": "german", "lemma": "Hund",
                                                     "siblings": "yes"})
    assert (status, error["field"]) == (422, "siblings")
