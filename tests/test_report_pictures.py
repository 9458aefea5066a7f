"""Tests of the attention PNG (inflect.render.figures.attention_figure / attention_png), of explanations
with one panel per form (inflect.inference.explain), and of the commands that write pictures:
`inflect explain --png --max-forms`, `inflect evaluate --out` (PREFIX.svg) and
`inflect report ambiguity --out FILE.html` (attention maps), on the shipped German model.

Hand-made matrices give the expected cell texts; the model's own forms come from
`Predictor.predict`, a path independent of the explanation's.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import lxml.html
import numpy as np
import pytest
from click.testing import CliRunner
from test_report_html import SVG, record

from inflect.cli import main
from inflect.decoding.protocol import Certificate
from inflect.inference.explain import EOS_LABEL, AttentionPanel, Explanation, explain

pytestmark = pytest.mark.usefixtures("one_thread")  # conftest.py
plt = pytest.importorskip("matplotlib.pyplot")


def _explanation(direction="ltr"):
    rec = record("ab", "V", [("ba", 0.5), ("bb", 0.3), ("a", 0.2)])
    first = np.array([[0.0, 1.0], [0.25, 0.75], [0.001, 0.999]])
    second = np.array([[0.5, 0.5], [0.0, 1.0], [1.0, 0.0]])
    third = np.array([[1.0, 0.0], [0.0, 1.0]])
    panels = (
        AttentionPanel("ba", 0.5, ["b", "a", EOS_LABEL], first),
        AttentionPanel("bb", 0.3, ["b", "b", EOS_LABEL], second),
        AttentionPanel("a", 0.2, ["a", EOS_LABEL], third),
    )
    return Explanation(rec, ["a", "b"], panels[0].target, first, panels, direction)


def _image_axes(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.images and ax.get_title()]


def test_png_has_a_panel_per_form_titled_with_its_probability():
    from inflect.render.figures import attention_figure

    fig = attention_figure(_explanation(), max_forms=2)
    try:
        axes = _image_axes(fig)
        assert [ax.get_title() for ax in axes] == ["ba\np = 0.5000", "bb\np = 0.3000"]
        # weights written in the nonzero cells only, at their positions
        texts = {(t.get_position(), t.get_text()) for t in axes[0].texts}
        assert texts == {
            ((1, 0), "1.00"),
            ((0, 1), ".25"),
            ((1, 1), ".75"),
            ((0, 2), "<.01"),
            ((1, 2), "1.00"),
        }
        assert len(axes[1].texts) == 4
        # exact zeros are masked (drawn blank)
        mask = np.ma.getmaskarray(axes[0].images[0].get_array())
        assert (mask == (_explanation().panels[0].attention == 0)).all()
        assert [t.get_text() for t in axes[0].get_yticklabels()] == ["b", "a", EOS_LABEL]
        assert not axes[0].xaxis_inverted()
        # one colour scale for every panel
        colorbars = [ax for ax in fig.axes if ax.get_ylabel().startswith("attention weight")]
        assert len(colorbars) == 1
        assert fig.get_suptitle().endswith("2 of 3 form(s)")
    finally:
        plt.close(fig)


def test_png_source_axis_reads_right_to_left_for_rtl_languages():
    from inflect.render.figures import attention_figure

    fig = attention_figure(_explanation("rtl"))
    try:
        axes = _image_axes(fig)
        assert len(axes) == 3 and all(ax.xaxis_inverted() for ax in axes)
        assert "right to left" in axes[0].get_xlabel()
    finally:
        plt.close(fig)


def test_png_of_an_explanation_without_panels_shows_the_best_string(tmp_path):
    from inflect.render.figures import attention_figure, attention_png

    rec = record("ab", "V", [("ba", 1.0)], Certificate.FULL_SUPPORT)
    found = Explanation(rec, ["a", "b"], ["b", "a", EOS_LABEL], np.eye(3, 2))
    fig = attention_figure(found)
    try:
        assert [ax.get_title() for ax in _image_axes(fig)] == ["ba\np = 1.0000"]
    finally:
        plt.close(fig)
    (tmp_path / "a.png").write_bytes(attention_png(found))
    assert plt.imread(tmp_path / "a.png").shape[2] in (3, 4)


# --- the shipped German model ------------------------------------------------------------------


@pytest.fixture(scope="module")
def german():
    from inflect.inference.predictor import load_predictor

    return load_predictor(None, "german")


@pytest.mark.slow
def test_explain_gives_a_panel_per_form_of_the_support(german):
    record_ = german.predict("Agon", "N;GEN;SG", "german")
    found = explain(german, "Agon", "N;GEN;SG", "german", max_forms=3)
    expected = [f for f in record_.forms if f.probability > 0][:3]
    assert [p.form for p in found.panels] == [f.form for f in expected]
    assert [p.probability for p in found.panels] == pytest.approx(
        [f.probability for f in expected], rel=1e-6
    )
    for panel in found.panels:
        assert "".join(panel.target[:-1]) == panel.form and panel.target[-1] == EOS_LABEL
        assert panel.attention.shape == (len(panel.form) + 1, len("Agon"))
        np.testing.assert_allclose(panel.attention.sum(axis=1), 1.0, atol=1e-5)
    assert found.direction == "ltr" and found.target == found.panels[0].target
    with pytest.raises(ValueError, match="max_forms"):
        explain(german, "Agon", "N;GEN;SG", "german", max_forms=0)


@pytest.mark.slow
def test_cli_explain_png_max_forms(tmp_path):
    png = tmp_path / "agon.png"
    out = CliRunner().invoke(
        main,
        ["explain", "--lang", "german", "Agon", "N;GEN;SG", "--png", str(png), "--max-forms", "2"],
    )
    assert out.exit_code == 0, out.output
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_evaluate_out_writes_the_accuracy_picture(tmp_path):
    gold = tmp_path / "german-dev"
    gold.write_text("Haus\tHäuser\tN;NOM;PL\nMaus\tMäuse\tN;NOM;PL\n", encoding="utf-8")
    pred = tmp_path / "german.pred"
    pred.write_text("Haus\tHäuser\tN;NOM;PL\nMaus\tMause\tN;NOM;PL\n", encoding="utf-8")
    baseline = tmp_path / "baseline.csv"
    baseline.write_text(
        "language,setting,accuracy,levenshtein\ngerman,high,83.1,0.3\n", encoding="utf-8"
    )
    prefix = tmp_path / "scores"
    out = CliRunner().invoke(
        main,
        [
            "evaluate",
            "--pred",
            str(pred),
            "--gold",
            str(gold),
            "--out",
            str(prefix),
            "--baseline",
            str(baseline),
        ],
    )
    assert out.exit_code == 0, out.output
    svg = ET.parse(f"{prefix}.svg").getroot()
    bars = {
        r.findtext(f"{SVG}title"): float(r.get("width"))
        for r in svg.iter(f"{SVG}rect")
        if r.get("class") == "model"
    }
    assert bars == {"german: 50.00 %": 200.0, "macro-average: 50.00 %": 200.0}  # 1 of 2 right
    ticks = [
        r.findtext(f"{SVG}title") for r in svg.iter(f"{SVG}rect") if r.get("class") == "baseline"
    ]
    assert ticks == [
        "german: official baseline (high) 83.1 %",
        "macro-average: official baseline (high) 83.1 %",
    ]
    assert "scores.svg" in out.output


@pytest.mark.slow
def test_cli_report_ambiguity_html_carries_attention_maps(tmp_path, german):
    gold = tmp_path / "german-gold"
    gold.write_text("Agon\tAgons\tN;GEN;SG\nMaus\tMäuse\tN;NOM;PL\n", encoding="utf-8")
    html = tmp_path / "amb.html"
    out = CliRunner().invoke(
        main,
        [
            "report",
            "ambiguity",
            "--lang",
            "german",
            "--gold",
            str(gold),
            "--out",
            str(html),
            "--maps",
            "2",
        ],
    )
    assert out.exit_code == 0, out.output
    doc = lxml.html.fromstring(html.read_text(encoding="utf-8"))
    expected = german.predict("Agon", "N;GEN;SG", "german")
    assert len(expected.forms) > 1  # ambiguous under the shipped model
    item = doc.get_element_by_id("i0")
    assert item.xpath(".//span[@class='lemma']")[0].text == "Agon"
    maps = json.loads(doc.get_element_by_id("maps").text)
    entry = maps[int(item.get("data-k"))]
    assert entry["s"] == list("Agon") and entry["d"] == "ltr"
    assert [p["f"] for p in entry["p"]] == [f.form for f in expected.forms[:2]]
    assert [p["q"] for p in entry["p"]] == [f"{f.probability:.4f}" for f in expected.forms[:2]]
    about = dict(
        zip(
            doc.xpath("//dl[@class='about']/dt/text()"),
            doc.xpath("//dl[@class='about']/dd/text()"),
            strict=True,
        )
    )
    assert about["beam"] == "5" and about["language"] == "german"
    from inflect.inference.registry import default_model

    assert about["models"].count("member-") == len(default_model("german").members)
