"""The HTML paradigm page (inflect.render.paradigm_html): its structure parsed with lxml, and the page in
headless Chromium (file:// URL, the DOM it ends with, its console, a screenshot), as the ambiguity
report is tested (tests/test_report_browser.py).

The page is built from a hand-made paradigm (no model): a Finnish-like case x number grid whose
forms, probabilities, certificates, attested mark and empty cells are written below, so every
bar width, folded tail and mark the page must show is known here.
"""

from __future__ import annotations

import os
import shutil

import lxml.html
import numpy as np
import pytest
from test_report_browser import _browser, _chromium
from test_report_html import HOSTILE

from inflect.decoding.protocol import Certificate
from inflect.inference.paradigm import Block, Cell, CellForm, Paradigm
from inflect.render.paradigm_html import paradigm_page


def _cell(tags, row, column, forms, cert):
    return Cell(
        tags=tags,
        features=tuple(tags.split(";")),
        block=(),
        row=row,
        column=column,
        forms=tuple(CellForm(*f) for f in forms),
        certificate=cert,
    )


def small_paradigm(lemma="talo"):
    cells = (
        _cell("N;NOM;SG", "NOM", "SG", [("talo", 1.0)], Certificate.FULL_SUPPORT),
        _cell(
            "N;NOM;PL",
            "NOM",
            "PL",
            [("talot", 0.85), ("taloja", 0.10), ("talo", 0.04), ("talote", 0.01)],
            Certificate.MODE_ONLY,
        ),
        _cell(  # attested, and the model's first form too (a record lists it twice)
            "N;GEN;SG",
            "GEN",
            "SG",
            [("talon", 0.95, "shared-task data"), ("talon", 0.95), ("talo", 0.05)],
            Certificate.FULL_SUPPORT,
        ),
        _cell("N;COM;PL", "COM", "PL", [("taloineen", 0.6), ("taloine", 0.4)], Certificate.NONE),
    )
    block = Block(
        (),
        ("NOM", "GEN", "COM"),
        ("SG", "PL"),
        {("NOM", "SG"): 0, ("NOM", "PL"): 1, ("GEN", "SG"): 2, ("COM", "PL"): 3},
    )
    return Paradigm(
        lemma=lemma,
        language="finnish",
        part_of_speech="N",
        cells=cells,
        blocks=(block,),
        row_dimension="case",
        column_dimension="number",
        block_dimensions=(),
        cells_from="conll2018-task1 train-high",
    )


#: The bars in reading order: the model's forms of at least 5 % (always its first), row by row;
#: an attested form has none (the GEN SG cell: talon is the answer, talo the model's other form).
BARS = ["100.0%", "85.0%", "10.0%", "5.0%", "60.0%", "40.0%"]


def _check(doc):
    [section] = doc.xpath("//section[@class='paradigm']")
    assert section.get("data-cells") == "4"
    assert [th.text for th in section.xpath(".//thead/th|.//thead/tr/th")] == ["case", "SG", "PL"]
    assert [th.text for th in section.xpath(".//th[@class='row']")] == ["NOM", "GEN", "COM"]
    cells = section.xpath(".//td[contains(@class, 'cell')]")
    assert [c.get("data-tags") for c in cells] == ["N;NOM;SG", "N;NOM;PL", "N;GEN;SG", "N;COM;PL"]
    assert len(section.xpath(".//td[@class='empty']")) == 2  # GEN PL, COM SG: not attested
    bars = section.xpath(".//td[contains(@class, 'cell')]//i/@style")
    assert bars == [f"width:{w}" for w in BARS]
    uncertain = [c.get("data-tags") for c in cells if "uncertain" in c.get("class").split()]
    assert uncertain == ["N;NOM;PL", "N;COM;PL"]  # 0.85 < 0.9; not certified
    tails = section.xpath(".//details[@class='tail']")
    assert len(tails) == 1 and tails[0].get("open") is None  # folded
    assert "+ 2 forms below 5 %" in tails[0].xpath("./summary")[0].text
    attested = section.xpath(".//span[@class='attested']")
    assert len(attested) == 1  # the answer's mark; the model's talon is not listed again
    assert attested[0].get("title") == "shared-task data"
    [genitive] = [c for c in cells if c.get("data-tags") == "N;GEN;SG"]
    assert genitive.xpath(".//span[@class='first']")[0].text == "talon"
    assert genitive.xpath(".//span[@class='mp']")[0].text == "model: 0.9500"  # both facts, no bar
    assert genitive.xpath(".//span[@class='model-head']")[0].text == "the model's other forms"
    assert [li.xpath("./span")[0].text for li in genitive.xpath(".//li")] == ["talo"]
    assert "uncertain" not in genitive.get("class")
    badges = [c.xpath(".//span[contains(@class, 'cert')]")[0].text for c in cells]
    assert badges == ["full support", "mode only", "full support", "not certified"]


def test_the_page_has_the_grid_bars_and_marks_without_a_script():
    text = paradigm_page([small_paradigm()])
    assert "<script" not in text and "http" not in text.replace("http://www.w3.org", "")
    _check(lxml.html.fromstring(text))


def test_user_text_is_escaped():
    text = paradigm_page([small_paradigm(HOSTILE)])
    doc = lxml.html.fromstring(text)
    assert not doc.xpath("//img")
    assert doc.xpath("//h2/span")[0].text == HOSTILE


browser = pytest.mark.skipif(_browser() is None, reason="no headless Chromium on PATH")


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("paradigm") / "talo.html"
    path.write_text(paradigm_page([small_paradigm(HOSTILE)]), encoding="utf-8")
    return path


@pytest.mark.slow
@browser
def test_chromium_renders_the_page_without_console_messages(tmp_path, page_file):
    out, console = _chromium(tmp_path, page_file.as_uri(), "--dump-dom")
    assert console == []
    doc = lxml.html.fromstring(out)
    _check(doc)
    assert not doc.xpath("//img")  # the hostile lemma stayed text


@pytest.mark.slow
@browser
def test_screenshot_shows_the_bars_and_the_uncertain_cells(tmp_path, page_file):
    plt = pytest.importorskip("matplotlib.pyplot")
    shot = tmp_path / "paradigm.png"
    _, console = _chromium(
        tmp_path, page_file.as_uri(), f"--screenshot={shot}", "--window-size=1000,900",
        "--hide-scrollbars",
    )  # fmt: skip
    assert console == []
    pixels = (plt.imread(shot)[..., :3] * 255).round().astype(int)
    assert pixels.shape[:2] == (900, 1000)

    def share(colour):
        return float((np.abs(pixels - np.array(colour)).sum(axis=-1) <= 6).mean())

    assert share((0x4C, 0x78, 0xC8)) > 0  # a probability bar
    assert share((0xFF, 0xF4, 0xD6)) > 0.005  # the tint of the two uncertain cells
    if os.environ.get("INFLECT_KEEP_SCREENSHOT"):
        shutil.copy(shot, os.environ["INFLECT_KEEP_SCREENSHOT"])
