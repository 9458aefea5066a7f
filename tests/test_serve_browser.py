"""The lookup page of `inflect serve` in headless Chromium, driven as a person uses it: type a
lemma and a tag bundle, press Enter, see the forms; follow the paradigm link, see the grid. The
browser is steered over the DevTools protocol on a pipe (``--remote-debugging-pipe``: fd 3 in,
fd 4 out, one JSON message per NUL), with nothing but the standard library; what the page shows
is compared with what the JSON API answers for the same input. Skipped without Chromium, as the
report's browser tests are (tests/test_report_browser.py).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from test_report_browser import _browser
from test_serve import Server, call

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(_browser() is None, reason="no headless Chromium on PATH; .ci/run "
                       "installs Debian's chromium where apt-get is available"),
]


#: Makes the descriptors ``argv[1]`` and ``argv[2]`` fds 3 and 4, then runs ``argv[3:]``.
LAUNCHER = ("import os, sys; a, b = map(int, sys.argv[1:3]); os.dup2(a, 3); os.dup2(b, 4); "
            "os.close(a); os.close(b); os.execvp(sys.argv[3], sys.argv[3:])")


class DevTools:
    """Headless Chromium steered over ``--remote-debugging-pipe``: :meth:`send` a command to the
    page, :meth:`wait` for an event; every console message and uncaught exception is kept in
    :attr:`console`."""

    def __init__(self, profile) -> None:
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        # the browser's ends as two free descriptors above 4, made its fds 3 and 4 by a
        # launcher (dup2, then exec)
        ends = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
        for fd in (to_browser, from_browser):
            os.close(fd)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, *map(str, ends), _browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "--window-size=1000,900", "about:blank"],
            pass_fds=tuple(ends), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for fd in ends:
            os.close(fd)
        self._buffer, self._next, self._events = b"", 0, []
        self.console: list[str] = []
        self.session = None
        target = next(t for t in self.send("Target.getTargets")["targetInfos"]
                      if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=target["targetId"],
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def _message(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            assert time.monotonic() < deadline, "no answer from the browser"
            chunk = os.read(self._read, 1 << 16)
            assert chunk, "the browser closed the pipe"
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(raw)
        method = message.get("method", "")
        if method == "Runtime.consoleAPICalled":
            self.console.append(" ".join(str(a.get("value")) for a in message["params"]["args"]))
        elif method == "Runtime.exceptionThrown":
            self.console.append(message["params"]["exceptionDetails"]["text"])
        elif method == "Log.entryAdded":
            self.console.append(message["params"]["entry"]["text"])
        return message

    def send(self, method: str, timeout: float = 120, **params) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._message(timeout)
            if answer.get("id") == self._next:
                assert "error" not in answer, answer["error"]
                return answer["result"]
            self._events.append(answer)

    def wait(self, event: str, timeout: float = 120) -> dict:
        while True:
            for i, message in enumerate(self._events):
                if message.get("method") == event:
                    return self._events.pop(i)
            self._events.append(self._message(timeout))

    def evaluate(self, expression: str):
        return self.send("Runtime.evaluate", expression=expression,
                         returnByValue=True)["result"].get("value")

    def navigate(self, url: str) -> None:
        self._events.clear()
        self.send("Page.navigate", url=url)
        self.wait("Page.loadEventFired")

    def then_loaded(self, action: str) -> None:
        """Run ``action`` (JavaScript that leaves the page) and wait for the next page."""
        self._events.clear()
        self.evaluate(action)
        self.wait("Page.loadEventFired")

    def type(self, selector: str, text: str) -> None:
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", text=text)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)
        os.close(self._read)
        os.close(self._write)


@pytest.fixture(scope="module")
def server():
    running = Server("--lang", "german", "--no-lexicon")
    yield running.url
    running.stop()


@pytest.fixture
def browser(tmp_path):
    tools = DevTools(tmp_path / "profile")
    yield tools
    tools.close()


def test_type_a_word_see_its_forms_then_open_its_paradigm(server, browser):
    browser.navigate(server + "/")
    assert browser.evaluate("document.querySelector('select[name=lang]').value") == "german"
    browser.type("input[name=lemma]", "Haus")
    browser.type("input[name=tags]", "N;DAT;PL")
    browser._events.clear()
    for kind in ("keyDown", "keyUp"):  # Enter in the form: the browser sends it
        browser.send("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter",
                     windowsVirtualKeyCode=13, text="\r" if kind == "keyDown" else "")
    browser.wait("Page.loadEventFired")
    query = browser.evaluate("location.search")
    assert query == "?lang=german&lemma=Haus&tags=N%3BDAT%3BPL&pos="
    _, _, record = call(server, "/v1/inflect", {"lang": "german", "lemma": "Haus",
                                                "tags": "N;DAT;PL", "no_lexicon": "true"})
    shown = browser.evaluate(
        "[...document.querySelectorAll('#answer ol li')].map(li => [li.querySelector('span')"
        ".textContent, li.querySelector('i').style.width, li.querySelector('.p').textContent])")
    listed = [f for k, f in enumerate(record["forms"]) if k == 0 or f["probability"] >= 0.05]
    assert shown == [[f["form"], f"{100 * f['probability']:.1f}%", f"{f['probability']:.4f}"]
                     for f in listed]
    assert browser.evaluate("document.querySelector('#answer').dataset.certificate") == record[
        "certificate"]
    tail = browser.evaluate("document.querySelector('#answer details summary').textContent")
    assert tail.startswith(f"+ {len(record['forms']) - len(listed)} form")
    # the link to the lemma's paradigm, followed: the grid of every cell
    browser.then_loaded("document.querySelector('#paradigm-link').click()")
    assert browser.evaluate("location.search") == "?lang=german&lemma=Haus&pos=N"
    _, _, paradigm = call(server, "/v1/paradigm", {"lang": "german", "lemma": "Haus", "pos": "N"})
    cells = browser.evaluate(
        "[...document.querySelectorAll('section.paradigm td.cell')].map(td => [td.dataset.tags,"
        " td.querySelector('.first').textContent])")
    assert sorted(cells) == sorted([c["tags"], c["forms"][0]["form"]] for c in paradigm["cells"])
    headers = browser.evaluate(
        "[...document.querySelectorAll('section.paradigm thead th')].map(th => th.textContent)")
    assert headers[1:] == ["SG", "PL"]
    assert browser.console == []  # nothing logged: no error, no failed fetch


def test_a_bad_lookup_shows_its_error_on_a_phone_width_page(server, browser):
    browser.send("Emulation.setDeviceMetricsOverride", width=390, height=800,
                 deviceScaleFactor=1, mobile=True)
    browser.navigate(server + "/?lang=german&lemma=Haus&tags=N%3B%3BPL")
    error = browser.evaluate("document.querySelector('p.error').textContent")
    assert "empty UniMorph feature" in error
    assert browser.console == ["Failed to load resource: the server responded with a status of "
                               "422 (Unprocessable Entity)"]  # the page came with its status
    browser.console.clear()
    # nothing wider than the window but the grid's own scrolling box
    browser.navigate(server + "/?lang=german&lemma=Haus&pos=N")
    widths = browser.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1]
    assert browser.console == []


@pytest.fixture(scope="module")
def english():
    running = Server("--lang", "english")  # the default lexicons: got is attested
    yield running.url
    running.stop()


def test_an_attested_form_is_the_answer_and_the_model_s_forms_follow_each_once(english, browser,
                                                                                tmp_path):
    """Before: for get V;PST the page showed the attested got with the model's small bar
    (0.08) under the model's wrong getted (0.45), and got twice. Now: got first, with its
    sources and no bar; then the model's distribution, each form once; in the paradigm grid the
    V;PST cell's answer is got, not tinted uncertain. What the page shows is computed here from
    the JSON record of the same input."""
    browser.send("Emulation.setDeviceMetricsOverride", width=820, height=940,
                 deviceScaleFactor=1, mobile=False)
    browser.send("Emulation.setScrollbarsHidden", hidden=True)
    browser.navigate(english + "/?lang=english&lemma=get&tags=V%3BPST&pos=V")
    _, _, record = call(english, "/v1/inflect", {"lang": "english", "lemma": "get",
                                                 "tags": "V;PST"})
    attested = [f for f in record["forms"] if f["attested"]]
    assert [f["form"] for f in attested] == ["got"]
    answers = browser.evaluate(
        "[...document.querySelectorAll('#answer ol.answers li')].map(li => ["
        "li.querySelector('.form').textContent, li.querySelector('.src').textContent, "
        "li.querySelector('.mp').textContent, li.querySelectorAll('i').length])")
    got_p = next(f["probability"] for f in record["forms"]
                 if f["form"] == "got" and not f["attested"])
    assert answers == [["got", attested[0]["source"], f"model: {got_p:.4f}", 0]]  # no bar
    model = [f for f in record["forms"] if not f["attested"] and f["form"] != "got"]
    listed = [f for k, f in enumerate(model) if k == 0 or f["probability"] >= 0.05]
    shown = browser.evaluate(
        "[...document.querySelectorAll('#answer .model ol li')].map(li => ["
        "li.querySelector('span').textContent, li.querySelector('i').style.width])")
    assert shown == [[f["form"], f"{100 * f['probability']:.1f}%"] for f in listed]
    headings = browser.evaluate(
        "[...document.querySelectorAll('#answer h3')].map(h => h.textContent)")
    assert headings == ["attested", "the model's distribution (english-high)"]
    # the paradigm's V;PST cell: got is the answer, once, and the cell is not uncertain
    cell = browser.evaluate(
        "(() => { const td = document.querySelector('td.cell[data-tags=\"V;PST\"]'); return ["
        "td.querySelector('.first').textContent, td.className, [...td.querySelectorAll('li "
        "span:first-child')].map(s => s.textContent)]; })()")
    assert cell[0] == "got" and "uncertain" not in cell[1] and "got" not in cell[2]
    picture = browser.send("Page.captureScreenshot", format="png")["data"]
    shot = tmp_path / "serve-lookup.png"
    shot.write_bytes(base64.b64decode(picture))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert browser.console == []
    if os.environ.get("INFLECT_KEEP_SCREENSHOT"):  # docs/serve-lookup.png is made so
        shutil.copy(shot, os.environ["INFLECT_KEEP_SCREENSHOT"])
