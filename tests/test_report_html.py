"""Tests of the HTML and Markdown ambiguity reports and the SVG pictures (inflect.render.report_html,
inflect.render.report, inflect.corpora.baseline).

The reports are built from hand-made records and attention matrices (no model), so every figure
the page shows is known here: bar widths are the probabilities given, the tail is the forms below
0.1 % written below, the entropy of two forms of probability 1/2 is 1 bit, slugs are GitHub's
rule applied by hand.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import lxml.html
import numpy as np
import pandas as pd
import pytest

from inflect.corpora.baseline import find_baseline, read_baseline
from inflect.decoding.search import Certificate
from inflect.evaluation.ambiguity import ambiguity_report
from inflect.evaluation.scoring import MACRO
from inflect.inference.explain import EOS_LABEL, AttentionPanel, Explanation
from inflect.inference.outcomes import Form, Prediction
from inflect.render.report import ambiguity_markdown, markdown_slug
from inflect.render.report_html import accuracy_svg, ambiguity_page, json_for_script
from inflect.text.records import Example, TagBundle

#: A lemma and a form that would run script if they reached the page as markup.
HOSTILE = "<img src=x onerror=alert(1)></script>"
HOSTILE_FORM = "</script><script>alert(2)</script>"
SVG = "{http://www.w3.org/2000/svg}"


def record(lemma, tags, forms, cert=Certificate.FULL_SUPPORT, language="german"):
    return Prediction(
        lemma,
        tags,
        language,
        forms=tuple(Form(f, p) for f, p in forms),
        certificate=cert,
        more_than=None,
        beam_certificate=cert,
        method="beam",
    )


def _panel(form, p, source_len):
    """A panel whose row i attends to source symbol min(i, S - 1) alone, except row 1: split
    0.99999 / 0.00001 between symbols 0 and 1 (a tiny weight that must not look like a zero)."""
    rows = len(form) + 1
    att = np.zeros((rows, source_len), dtype=np.float32)
    for i in range(rows):
        att[i, min(i, source_len - 1)] = 1.0
    att[1, :2] = [0.99999, 0.00001]
    return AttentionPanel(form, p, [*form, EOS_LABEL], att)


def _explained(rec, direction="ltr"):
    panels = tuple(_panel(f.form, f.probability, len(rec.lemma)) for f in rec.forms[:2])
    return Explanation(
        rec, list(rec.lemma), panels[0].target, panels[0].attention, panels, direction
    )


def small_report(explained=True):
    """Five inputs: four ambiguous (German with a folded tail, a hostile lemma, Arabic, a
    mode-only certificate whose gold form is in the tail), one not."""
    records = [
        record(
            "Haus",
            "N;DAT;PL",
            [("Häusern", 0.75), ("Hausen", 0.2494), ("Häuser", 0.0005), ("Hause", 0.0001)],
        ),
        record(HOSTILE, "N;DAT;PL", [(HOSTILE_FORM, 0.5), ("x&y", 0.5)]),
        record("Maus", "N;NOM;SG", [("Maus", 1.0)]),
        record("كتاب", "N;PL", [("كتب", 0.7), ("كتابات", 0.3)], language="arabic"),
        record(
            "See",
            "V;PST",
            [("sah", 0.5), ("seete", 0.4999), ("sehte", 0.0001)],
            Certificate.MODE_ONLY,
        ),
    ]
    gold = [
        Example("Haus", TagBundle.parse("N;DAT;PL"), "Häusern", "german"),
        Example(HOSTILE, TagBundle.parse("N;DAT;PL"), "nope", "german"),
        Example("كتاب", TagBundle.parse("N;PL"), "كتب", "arabic"),
        Example("See", TagBundle.parse("V;PST"), "sehte", "german"),
    ]
    explanations = None
    if explained:
        explanations = [_explained(r, "rtl" if r.language == "arabic" else "ltr") for r in records]
    return ambiguity_report(records, gold, explanations)


ABOUT = {"models": "runs/de <b>", "language": "german", "split": "dev", "beam": "5"}


@pytest.fixture(scope="module")
def page():
    return ambiguity_page(small_report(), "Ambiguity report: <german>", ABOUT)


@pytest.fixture(scope="module")
def doc(page):
    return lxml.html.fromstring(page)


def _item(doc, position):
    return doc.get_element_by_id(f"i{position}")


def test_header_has_about_lines_figures_and_chart(doc):
    assert doc.findtext(".//title") == "Ambiguity report: <german>"
    about = dict(
        zip(
            doc.xpath("//dl[@class='about']/dt/text()"),
            doc.xpath("//dl[@class='about']/dd/text()"),
            strict=True,
        )
    )
    assert about == ABOUT  # escaped on the way in, the same text on the way out
    figures = [li.text_content() for li in doc.xpath("//ul[@class='figures']/li")]
    assert figures[0] == "5inputs"
    assert figures[1].startswith("4ambiguous (80.0 %)")
    assert figures[2] == "4certified full support (80.0 %)"
    assert figures[3] == "1certified mode only (20.0 %)"
    assert figures[4] == "0not certified"
    # gold known for 4 ambiguous inputs; not in the support for the hostile one only
    assert figures[5].startswith("3 of 4") and "(75.0 %)" in figures[5]
    assert doc.xpath("//figure/svg") or doc.xpath("//figure/*[local-name()='svg']")


def test_table_of_contents_links_every_section_with_counts(doc):
    links = doc.xpath("//nav[@id='toc']//li")
    # largest bundle first, ties in order of first appearance
    assert [li.xpath(".//span[@class='tags']")[0].text for li in links] == [
        "N;DAT;PL",
        "N;PL",
        "V;PST",
    ]
    assert [li.xpath("./span[@class='dim']")[0].text for li in links] == [
        "2 of 2",
        "1 of 1",
        "1 of 1",
    ]
    for li in links:
        target = li.xpath("./a/@href")[0]
        section = doc.get_element_by_id(target[1:])
        assert section.tag == "section"
        assert section.xpath(".//h2/span")[0].text == li.xpath(".//span[@class='tags']")[0].text


def test_each_input_has_a_bar_per_form_and_the_tail_folded(doc):
    haus = _item(doc, 0)
    rows = haus.xpath(".//table[@class='forms']/tr")
    assert [r.xpath("./td")[0].text for r in rows] == ["Häusern", "Hausen"]
    assert [r.xpath(".//i/@style")[0] for r in rows] == ["width:75.0%", "width:24.9%"]
    assert [r.xpath("./td[@class='p']")[0].text for r in rows] == ["0.7500", "0.2494"]
    assert rows[0].get("class") == "gold" and rows[0].xpath(".//span[@class='goldmark']")
    tail = haus.xpath(".//details[@class='tail']")[0]
    assert tail.get("open") is None  # folded
    assert tail.findtext("summary") == "+ 2 forms below 0.1 % (together 0.0006)"
    assert tail.findtext("p") == "Häuser (0.0005), Hause (0.0001)"
    cert = haus.xpath(".//span[contains(@class, 'cert')]")[0]
    assert cert.get("class") == "cert full_support" and cert.text == "full support"
    see = _item(doc, 4)
    assert see.xpath(".//span[contains(@class, 'cert')]")[0].text == "mode only"
    summary = see.xpath(".//details/summary")[0].text
    assert summary == "+ 1 form below 0.1 % (together 0.0001), the gold form among them"
    assert see.xpath(".//details/p/b")[0].text == "sehte"
    assert not _item(doc, 4).xpath(".//p[@class='nogold']")
    with pytest.raises(KeyError):
        _item(doc, 2)  # Maus has one form: not in the report


def test_more_forms_than_bars_are_folded_with_their_largest_probability():
    forms = [(f"f{k}", 0.5 / 12) for k in range(12)] + [("g", 0.5)]
    forms.sort(key=lambda f: -f[1])
    report = ambiguity_report([record("L", "V", forms)])
    doc = lxml.html.fromstring(ambiguity_page(report))
    assert len(doc.xpath("//table[@class='forms']/tr")) == 10  # MAX_BARS
    summary = doc.xpath("//details/summary")[0].text
    assert summary == "+ 3 more forms, each 0.0417 or less (together 0.1250)"


def test_filtering_attributes_carry_forms_entropy_and_gold(doc):
    hostile = _item(doc, 1)
    assert hostile.get("data-n") == "2" and hostile.get("data-h") == "1.0000"  # two halves
    assert hostile.get("data-gold") == "out"
    assert hostile.xpath(".//p[@class='nogold']")[0].text_content() == (
        "gold: nope — not among the forms"
    )
    assert _item(doc, 0).get("data-gold") == "in"
    assert [o.text for o in doc.xpath("//form[@id='controls']//select[@name='bundle']/option")] == [
        "all",
        "N;DAT;PL (2)",
        "N;PL (1)",
        "V;PST (1)",
    ]
    assert doc.get_element_by_id("controls").get("hidden") is not None  # shown by the script


def test_hostile_text_stays_text(page, doc):
    assert not doc.xpath("//img")
    assert len(doc.xpath("//script")) == 2  # the attention data and the page's own script
    hostile = _item(doc, 1)
    assert hostile.xpath(".//span[@class='lemma']")[0].text == HOSTILE
    assert hostile.xpath(".//table[@class='forms']/tr/td")[0].text == HOSTILE_FORM
    assert "x&amp;y" in page and "<img" not in page
    data = doc.get_element_by_id("maps").text
    assert "<" not in data and ">" not in data and "&" not in data
    maps = json.loads(data)
    assert maps[int(hostile.get("data-k"))]["s"] == list(HOSTILE)
    assert maps[int(hostile.get("data-k"))]["p"][0]["f"] == HOSTILE_FORM


def test_attention_data_keep_exact_zeros_blank(doc):
    maps = json.loads(doc.get_element_by_id("maps").text)
    haus = maps[int(_item(doc, 0).get("data-k"))]
    assert haus["s"] == list("Haus") and haus["d"] == "ltr"
    assert [p["f"] for p in haus["p"]] == ["Häusern", "Hausen"]
    first = haus["p"][0]
    assert first["t"] == [*"Häusern", EOS_LABEL] and first["q"] == "0.7500"
    expected = _panel("Häusern", 0.75, 4).attention
    digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    pairs = [first["w"][k : k + 2] for k in range(0, len(first["w"]), 2)]
    weights = np.array([64 * digits.index(a) + digits.index(b) for a, b in pairs])
    weights = weights.reshape(expected.shape)
    assert ((weights == 0) == (expected == 0)).all()  # blank exactly where the weight is 0
    assert weights[1, 1] == 1  # 0.00001: drawn, not blank
    assert weights[1, 0] == 1000 and weights[0, 0] == 1000


def test_right_to_left_languages_are_marked(doc):
    arabic = _item(doc, 3)
    assert arabic.get("dir") == "rtl"
    assert arabic.xpath(".//span[@class='tags']")[0].get("dir") == "ltr"
    assert _item(doc, 0).get("dir") is None
    maps = json.loads(doc.get_element_by_id("maps").text)
    assert maps[int(arabic.get("data-k"))]["d"] == "rtl"


def test_chart_bars_count_inputs_by_number_of_forms():
    page = ambiguity_page(small_report(explained=False))
    doc = lxml.html.fromstring(page)
    assert not json.loads(doc.get_element_by_id("maps").text)  # no explanations, no maps
    assert not doc.xpath("//button")
    svg = ET.fromstring(page[page.index("<svg") : page.index("</svg>") + 6])
    bars = {
        r.findtext(f"{SVG}title"): float(r.get("width"))
        for r in svg.iter(f"{SVG}rect")
        if r.find(f"{SVG}title") is not None
    }
    assert set(bars) == {
        "N;DAT;PL: 1 of 2 inputs with 2 forms",
        "N;DAT;PL: 1 of 2 inputs with 4–5 forms",
        "N;PL: 1 of 1 inputs with 2 forms",
        "V;PST: 1 of 1 inputs with 3 forms",
        "N;NOM;SG: 1 of 1 inputs with 1 form",
    }
    assert len(set(bars.values())) == 1  # one input, one width
    # bundles with ambiguous inputs first, the unambiguous bundle last
    labels = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") == "mono"]
    assert labels == ["N;DAT;PL", "N;PL", "V;PST", "N;NOM;SG"]


def test_a_page_without_ambiguity_still_renders():
    report = ambiguity_report([record("Maus", "N;NOM;SG", [("Maus", 1.0)])])
    doc = lxml.html.fromstring(ambiguity_page(report))
    assert not doc.xpath("//li[@class='inp']") and not doc.xpath("//form")
    assert ambiguity_markdown(report).count("## ") == 0


def test_markdown_carries_the_same_content():
    md = ambiguity_markdown(small_report(), "Ambiguity report", ABOUT)
    assert "- models: runs/de &lt;b>" in md and "- beam: 5" in md
    assert "- certified full support: 4 of 5 inputs (80.0 %); mode only: 1; not certified: 0" in md
    assert "- gold form in the support: 3 of 4 ambiguous inputs with gold (75.0 %)" in md
    # the chart's figures: classes none, 1, 2, 3, 4–5, 6–10, more than 10
    assert "| N;DAT;PL | 2 | 2 |  |  | 1 |  | 1 |  |  |" in md
    assert "| N;NOM;SG | 1 | 0 |  | 1 |  |  |  |  |  |" in md
    assert "- [N;DAT;PL](#ndatpl-2-of-2): 2 ambiguous of 2" in md
    assert "\n## N;DAT;PL (2 of 2)\n" in md
    assert (
        "| Haus | **Häusern** (0.7500), Hausen (0.2494); + 2 forms below 0.1 % (together "
        "0.0006): Häuser (0.0005), Hause (0.0001) | Häusern | yes | 4 |"
    ) in md
    assert "| 1.00 | full support |" in md  # the hostile input: two halves, 1 bit
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)>&lt;/script>" in md
    assert "the gold form among them: **sehte** (0.0001)" in md


def test_terminal_report_shows_markup_like_text_verbatim():
    from rich.console import Console

    from inflect.render.report import ambiguity_rich

    lemma = "[bold]x[/] [/red]"
    report = ambiguity_report([record(lemma, "V;[b]", [("a[/]", 0.5), ("b", 0.5)])])
    console = Console(width=200, record=True, color_system=None)
    console.print(ambiguity_rich(report))
    text = console.export_text()
    assert lemma in text and "V;[b]  (1 of 1)" in text and "a[/] (0.5000)" in text


def test_markdown_slugs_follow_githubs_rule():
    seen: dict[str, int] = {}
    assert markdown_slug("N;DAT;PL (2 of 2)", seen) == "ndatpl-2-of-2"
    assert markdown_slug("V;IND;PST;1;SG (3 of 5)", seen) == "vindpst1sg-3-of-5"
    assert markdown_slug("N;DAT;PL (2 of 2)", seen) == "ndatpl-2-of-2-1"


@pytest.mark.parametrize(
    "value",
    [
        "</script>",
        "<!--",
        "a&b",
        "\u2028\u2029",
        {"k": ["</SCRIPT>", 1, 0.5]},
        HOSTILE,
    ],
)
def test_json_for_script_round_trips_and_cannot_close_the_element(value):
    text = json_for_script(value)
    assert not any(c in text for c in "<>&\u2028\u2029")
    assert json.loads(text) == value


def test_a_report_of_1000_inputs_stays_under_5_mb():
    """Worst case of `inflect report ambiguity`'s defaults: 1,000 ambiguous inputs of 20 forms
    each (the widest beam of the predictor's support="auto"), 20-symbol lemmas and forms, 2
    dense attention maps per input (``--maps`` default; no exact zeros)."""
    rng = np.random.default_rng(0)
    records, explanations = [], []
    for i in range(1000):
        p = np.sort(rng.dirichlet(np.ones(20) * 0.3))[::-1]
        forms = [(f"Formenwörterbuchs{k:03d}", float(v)) for k, v in enumerate(p)]
        rec = record(f"Lemmawörterbuch{i:05d}", f"V;IND;PRS;{i % 3 + 1};SG", forms)
        panels = tuple(
            AttentionPanel(f, q, [*f, EOS_LABEL], rng.dirichlet(np.ones(20), size=len(f) + 1))
            for f, q in forms[:2]
        )
        records.append(rec)
        explanations.append(
            Explanation(rec, list(rec.lemma), panels[0].target, panels[0].attention, panels)
        )
    report = ambiguity_report(records, None, explanations)
    size = len(ambiguity_page(report).encode("utf-8"))
    assert report.ambiguous == 1000
    assert size < 5_000_000, f"{size:,} bytes"


# --- the evaluation picture and the baseline ---------------------------------------------------


def _baseline_csv(tmp_path, rows):
    path = tmp_path / "baseline.csv"
    path.write_text(
        "language,setting,accuracy,levenshtein\n" + "".join(f"{r}\n" for r in rows),
        encoding="utf-8",
    )
    return path


def _bars(svg_text):
    svg = ET.fromstring(svg_text.encode("utf-8"))
    model = {
        r.findtext(f"{SVG}title").split(":")[0]: r
        for r in svg.iter(f"{SVG}rect")
        if r.get("class") == "model"
    }
    ticks = [
        (r.findtext(f"{SVG}title").split(":")[0], r.get("data-setting"), r)
        for r in svg.iter(f"{SVG}rect")
        if r.get("class") == "baseline"
    ]
    return model, ticks


def test_accuracy_picture_draws_bars_and_baseline_ticks(tmp_path):
    baseline = read_baseline(
        _baseline_csv(
            tmp_path,
            [
                "german,high,83.1,0.3",
                "german,medium,74.2,0.5",
                "finnish,high,79.3,0.4",
                "finnish,medium,43.5,1.4",
            ],
        )
    )
    frame = pd.DataFrame(
        {
            "language": ["german", "finnish", MACRO],
            "accuracy": [90.0, 50.0, 70.0],
            "n": [10, 10, 20],
        }
    )
    model, ticks = _bars(accuracy_svg(frame, baseline))
    scale = 4.0  # 400 px for 100 %
    assert {k: float(r.get("width")) / scale for k, r in model.items()} == pytest.approx(
        {"german": 90.0, "finnish": 50.0, MACRO: 70.0}
    )
    origin = float(model["german"].get("x"))
    found = {(lang, s): (float(r.get("x")) + 1.5 - origin) / scale for lang, s, r in ticks}
    assert found == pytest.approx(
        {
            ("german", "high"): 83.1,
            ("german", "medium"): 74.2,
            ("finnish", "high"): 79.3,
            ("finnish", "medium"): 43.5,
            # the baseline's own macro-average over the same two languages
            (MACRO, "high"): (83.1 + 79.3) / 2,
            (MACRO, "medium"): (74.2 + 43.5) / 2,
        }
    )
    _, high = _bars(accuracy_svg(frame, baseline, setting="high"))
    assert {s for _, s, _ in high} == {"high"}


def test_accuracy_picture_without_a_known_baseline(tmp_path):
    baseline = read_baseline(_baseline_csv(tmp_path, ["german,high,83.1,0.3"]))
    frame = pd.DataFrame(
        {"language": ["german", "klingon", MACRO], "accuracy": [90.0, float("nan"), 90.0]}
    )
    model, ticks = _bars(accuracy_svg(frame, baseline))
    assert [lang for lang, _, _ in ticks] == ["german"]  # no tick for the unknown, no macro tick
    assert float(model["klingon"].get("width")) == 0.0
    assert not _bars(accuracy_svg(frame))[1]
    text = accuracy_svg(pd.DataFrame({"language": ["<x>"], "accuracy": [1.0]}))
    assert "<x>" not in text and "&lt;x&gt;" in text


def test_read_baseline_names_the_bad_line(tmp_path):
    path = _baseline_csv(tmp_path, ["german,high,83.1,0.3", "finnish,high,n/a,0.4"])
    with pytest.raises(ValueError, match=r"baseline.csv:3: accuracy 'n/a' is not a number"):
        read_baseline(path)
    bad = tmp_path / "cols.csv"
    bad.write_text("language,accuracy\ngerman,83.1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="missing column"):
        read_baseline(bad)


@pytest.mark.shared_data
def test_the_official_baseline_file_is_found_beside_the_data(conll2018):
    path = find_baseline(conll2018)
    if path is None:
        pytest.skip("no conll2018-task1-baseline-dev.csv beside the data folder")
    table = read_baseline(path)
    german = table[table["language"] == "german"].set_index("setting")["accuracy"]
    # the figures of the data folder's README (official baseline, dev)
    assert german["high"] == 83.1 and german["medium"] == 74.2
    assert not math.isnan(table["levenshtein"].sum())
