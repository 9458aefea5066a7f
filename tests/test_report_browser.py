"""The HTML ambiguity report in a real browser: headless Chromium opens the page from a file://
URL, runs its script, and the test reads back the DOM it ended with (``--dump-dom``), the
console messages it logged (``--enable-logging=stderr``) and a screenshot (``--screenshot``).

Skipped, with the reason, where no Chromium is on PATH (``.ci/run`` installs Debian's
``chromium`` where it can). The page is the five-input report of tests/test_report_html.py,
whose figures are known by construction.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import lxml.html
import numpy as np
import pytest
from test_report_html import HOSTILE, small_report

from inflect.render.report_html import ambiguity_page

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str | None:
    return next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        _browser() is None,
        reason=f"no headless Chromium on PATH ({', '.join(BROWSERS)}); .ci/run installs "
        "Debian's chromium where apt-get is available",
    ),
]

#: A console line of Chromium's log: ``[...:INFO:CONSOLE:12] "message", source: ... (12)``
#: (newer builds: ``CONSOLE(12)``).
CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]\s*(.*)")


def _chromium(tmp_path, url, *args):
    """Run headless Chromium on ``url``; its stdout and the console messages it logged."""
    command = [
        _browser(),
        "--headless",
        "--no-sandbox",  # CI containers run as root
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
        url,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, [m.group(1) for m in CONSOLE.finditer(done.stderr)]


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "ambiguity.html"
    path.write_text(ambiguity_page(small_report(), "Ambiguity report"), encoding="utf-8")
    return path


def _dom(tmp_path, report_file, suffix=""):
    out, console = _chromium(tmp_path, report_file.as_uri() + suffix, "--dump-dom")
    assert console == []  # no error, no warning, nothing logged at all
    doc = lxml.html.fromstring(out)
    assert doc.get("data-ready") == "1"  # the script ran to its end
    return doc


def test_the_console_check_sees_an_error(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><title>t</title><script>undefinedCall();</script>")
    _, console = _chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert any("undefinedCall" in m for m in console)


def test_the_page_renders_without_console_messages(tmp_path, report_file):
    doc = _dom(tmp_path, report_file)
    assert len(doc.xpath("//nav[@id='toc']//a")) == 3  # table of contents
    assert doc.get_element_by_id("controls").get("hidden") is None  # the script showed them
    assert doc.get_element_by_id("shown").text == "showing 4 of 4 inputs"
    bars = doc.xpath("//td[@class='b']/i/@style")
    assert bars == [
        "width:75.0%",
        "width:24.9%",
        "width:50.0%",
        "width:50.0%",
        "width:70.0%",
        "width:30.0%",
        "width:50.0%",
        "width:50.0%",
    ]
    tails = doc.xpath("//details[@class='tail']")
    assert len(tails) == 2 and all(t.get("open") is None for t in tails)  # folded
    # the hostile lemma is text, in the DOM the script left
    assert not doc.xpath("//img")
    assert doc.xpath("//li[@id='i1']//span[@class='lemma']")[0].text == HOSTILE
    assert len(doc.xpath("//li[@id='i1']//button")) == 1 and len(doc.xpath("//button")) == 4
    assert all(b.get("hidden") is None for b in doc.xpath("//button"))


def test_the_attention_map_is_drawn_on_demand_with_zeros_blank(tmp_path, report_file):
    doc = _dom(tmp_path, report_file, "#i0")
    assert doc.xpath("//li[@id='i0']//div[@class='map']")[0].get("dir") is None
    maps = doc.xpath("//li[@id='i0']//div[@class='map']/*[local-name()='svg']")
    assert len(maps) == 3  # Häusern, Hausen, the colour scale
    # each row of the hand-made matrices has one nonzero weight, row 1 two: blank elsewhere
    cells = [len(m.xpath("./*[local-name()='g']/*[local-name()='rect']")) for m in maps[:2]]
    assert cells == [len("Häusern") + 2, len("Hausen") + 2]
    labels = [t.text for t in maps[0].xpath("./*[local-name()='g']/*[local-name()='text']")]
    assert labels[:3] == ["100", "100", "<1"]  # row 0; row 1: 0.99999 and 0.00001
    assert not doc.xpath("//li[@id='i3']//div[@class='map']/*")  # others stay closed


def test_a_right_to_left_lemma_reads_right_to_left(tmp_path, report_file):
    doc = _dom(tmp_path, report_file, "#i3")
    svg = doc.xpath("//li[@id='i3']//div[@class='map']/*[local-name()='svg']")[0]
    top = [t for t in svg.xpath("./*[local-name()='text'][@class='mono']") if t.get("y") == "34"]
    assert [t.text for t in top] == list("كتاب")
    xs = [float(t.get("x")) for t in top]
    assert xs == sorted(xs, reverse=True)  # the first letter on the right
    # the map itself is laid out left to right (its columns are ordered by the script)
    assert doc.xpath("//li[@id='i3']//div[@class='map']")[0].get("dir") == "ltr"
    rows = [t.text for t in svg.xpath("./*[local-name()='text'][@text-anchor='end']")]
    assert rows == ["ك", "ت", "ب", "</s>"]


def test_a_query_selects_sorting_and_filters(tmp_path, report_file):
    doc = _dom(tmp_path, report_file, "?order=entropy-asc&grouped=0")
    flat = doc.get_element_by_id("lflat")
    heights = [float(li.get("data-h")) for li in flat.xpath("./li")]
    assert len(heights) == 4 and heights == sorted(heights)
    assert doc.get_element_by_id("flat").get("hidden") is None
    doc = _dom(tmp_path, report_file, "?gold=out")
    shown = [li.get("id") for li in doc.xpath("//li[@class='inp']") if li.get("hidden") is None]
    assert shown == ["i1"]  # the one gold form outside the support
    assert doc.get_element_by_id("shown").text == "showing 1 of 4 inputs"
    doc = _dom(tmp_path, report_file, "?bundle=1&least=3")
    shown = [li.get("id") for li in doc.xpath("//li[@class='inp']") if li.get("hidden") is None]
    assert shown == ["i0"]  # N;DAT;PL with at least 3 forms: Haus (4)


def test_screenshot_shows_the_bars(tmp_path, report_file):
    plt = pytest.importorskip("matplotlib.pyplot")
    shot = tmp_path / "report.png"
    _, console = _chromium(
        tmp_path,
        report_file.as_uri(),
        f"--screenshot={shot}",
        "--window-size=1280,1800",
        "--hide-scrollbars",
    )
    assert console == []
    pixels = (plt.imread(shot)[..., :3] * 255).round().astype(int)
    assert pixels.shape[:2] == (1800, 1280)

    def has(colour):
        return bool((np.abs(pixels - np.array(colour)).sum(axis=-1) <= 6).any())

    assert has((0x4C, 0x78, 0xC8))  # a probability bar
    assert has((0x2E, 0x85, 0x40))  # the gold form's bar
    if os.environ.get("INFLECT_KEEP_SCREENSHOT"):  # to look at it: a path to copy it to
        shutil.copy(shot, os.environ["INFLECT_KEEP_SCREENSHOT"])
