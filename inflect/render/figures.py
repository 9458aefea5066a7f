"""Figures: the SVG pictures of the reports (forms per input by tag bundle; per-language accuracy
beside the official baseline) and the attention maps of ``inflect explain --png`` (matplotlib,
optional: ``pip install 'sparse-inflect[plot]'``). User text is escaped in SVG and never read as
mathtext by matplotlib. Rendering only: the figures come from :mod:`inflect.evaluation` and
:mod:`inflect.inference.explain`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from inflect.render.ambiguity_parts import SIZE_CLASSES, size_class
from inflect.render.common import attention_panels, html_text, probability_text

if TYPE_CHECKING:  # annotations only
    import pandas as pd

    from inflect.evaluation.ambiguity import AmbiguityReport
    from inflect.inference.explain import Explanation


#: Fill of each class (a sequential blue scale; one form grey).
SIZE_COLOURS: tuple[str, ...] = (
    "#f0b4b4",
    "#dde1e6",
    "#9ecae1",
    "#6baed6",
    "#4292c6",
    "#2171b5",
    "#08306b",
)


#: Most tag bundles drawn in the chart; the rest are summed in one row.
CHART_BUNDLES = 40


def forms_chart_svg(report: AmbiguityReport, anchors: Mapping[str, str] | None = None) -> str:
    """A horizontal stacked bar per tag bundle: its inputs by number of forms of nonzero
    probability (classes :data:`SIZE_CLASSES`), the bundles with most ambiguous inputs first (at
    most :data:`CHART_BUNDLES` rows, then one row summing the others).

    Args:
        report: the :class:`inflect.evaluation.ambiguity.AmbiguityReport` (its ``bundles``).
        anchors: tag bundle -> fragment id of its section, to link the bundle's label.

    Returns:
        An ``<svg>`` element (text), width 760 px, 18 px per row; every segment has a ``<title>``
        ("N;DAT;PL: 12 of 40 inputs with 2 forms").
    """
    anchors = anchors or {}
    rows: list[tuple[str, list[int], bool]] = []
    for bundle in report.bundles[:CHART_BUNDLES]:
        counts = [0] * len(SIZE_CLASSES)
        for size, n in bundle.sizes.items():
            counts[size_class(size)] += n
        rows.append((bundle.tags, counts, True))
    rest = report.bundles[CHART_BUNDLES:]
    if rest:
        counts = [0] * len(SIZE_CLASSES)
        for bundle in rest:
            for size, n in bundle.sizes.items():
                counts[size_class(size)] += n
        rows.append((f"{len(rest)} other bundles", counts, False))
    used = [i for i in range(len(SIZE_CLASSES)) if any(r[1][i] for r in rows)]
    label_w = min(260, 12 + 7 * max((len(r[0]) for r in rows), default=4))
    bar_w, row_h, top = 760 - label_w - 70, 18, 34
    widest = max((sum(r[1]) for r in rows), default=1) or 1
    height = top + row_h * len(rows) + 8
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="760" height="{height}" '
        f'viewBox="0 0 760 {height}" role="img" aria-labelledby="chart-title">',
        '<title id="chart-title">Forms of nonzero probability per input, by tag bundle</title>',
    ]
    x = label_w
    for i in used:
        label = SIZE_CLASSES[i][0]
        words = label if i else "no form"
        out.append(
            f'<rect x="{x}" y="6" width="12" height="12" fill="{SIZE_COLOURS[i]}"/>'
            f'<text x="{x + 16}" y="16">{html_text(words)}</text>'
        )
        x += 30 + 7 * len(words)
    out.append(f'<text x="{label_w - 8}" y="16" text-anchor="end">forms:</text>')
    for r, (tags, counts, linked) in enumerate(rows):
        y = top + r * row_h
        label = (
            f'<text x="{label_w - 8}" y="{y + 12}" text-anchor="end" class="mono">{html_text(tags)}</text>'
        )
        if linked and tags in anchors:
            label = f'<a href="#{html_text(anchors[tags])}">{label}</a>'
        out.append(label)
        x0, total = float(label_w), sum(counts)
        for i in used:
            if not counts[i]:
                continue
            w = bar_w * counts[i] / widest
            what = "no form" if i == 0 else ("1 form" if i == 1 else f"{SIZE_CLASSES[i][0]} forms")
            out.append(
                f'<rect x="{x0:.1f}" y="{y + 2}" width="{w:.1f}" height="{row_h - 4}" '
                f'fill="{SIZE_COLOURS[i]}"><title>{html_text(tags)}: {counts[i]:,} of '
                f"{total:,} inputs with {what}</title></rect>"
            )
            x0 += w
        ambiguous = sum(counts[i] for i in range(len(SIZE_CLASSES)) if i > 1)
        out.append(f'<text x="{x0 + 6:.1f}" y="{y + 12}">{ambiguous:,}/{total:,}</text>')
    out.append("</svg>")
    return "".join(out)


# --- the evaluation picture --------------------------------------------------------------------


#: Marker of each baseline setting in :func:`accuracy_svg`.
_BASELINE_MARKS = {"high": "#cf222e", "medium": "#bf8700", "low": "#8250df"}

#: The layout of :func:`accuracy_svg` in px: the language labels' width, the 100 % bar's length,
#: a row's height, the first row's top.
_LABEL_W, _SCALE, _ROW_H, _TOP = 150, 400.0, 20, 58


def accuracy_svg(
    frame: pd.DataFrame,
    baseline: pd.DataFrame | None = None,
    setting: str | None = None,
    title: str = "Exact-match accuracy per language",
) -> str:
    """Per-language accuracy as horizontal bars beside the official baseline (a tick per
    setting where the baseline knows the language).

    Args:
        frame: the evaluation frame (columns ``language`` and ``accuracy`` in percent, as
            :func:`inflect.evaluation.scoring.score_predictions` and ``evaluate_predictor`` give it; a
            :data:`inflect.evaluation.scoring.MACRO` row is drawn last, in bold).
        baseline: the official baseline (columns ``language``, ``setting``, ``accuracy`` in
            percent: :func:`inflect.corpora.baseline.read_baseline`), or None.
        setting: draw only this setting's baseline (``"high"``, ...); None for every setting.
        title: the picture's title (escaped).

    Returns:
        An SVG document (text), 840 px wide, 20 px per language; a language's bar is
        ``accuracy / 100`` of the 400 px scale, a baseline tick sits at its accuracy; the
        macro-average row gets the baseline's mean over the same languages where it knows them
        all.

    Raises:
        KeyError: ``frame`` or ``baseline`` lacks a column named above.
    """
    from inflect.evaluation.scoring import MACRO

    rows = [
        (str(r.language), float(r.accuracy))
        for r in frame[["language", "accuracy"]].itertuples(index=False)
    ]
    marks = _baseline_marks(baseline, setting, [x for x, _ in rows if x != MACRO], MACRO)
    settings = [s for s in _BASELINE_MARKS if any(s in m for m in marks.values())]
    settings += sorted({s for m in marks.values() for s in m} - set(settings))
    height = _TOP + _ROW_H * len(rows) + 10
    out = _accuracy_frame(title, settings, height)
    for r, (language, accuracy) in enumerate(rows):
        out += _accuracy_row(
            language, accuracy, _TOP + r * _ROW_H, marks.get(language, {}), settings,
            language == MACRO,
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _baseline_marks(
    baseline: pd.DataFrame | None, setting: str | None, languages: list[str], macro: str
) -> dict[str, dict[str, float]]:
    """language -> setting -> the baseline's accuracy (percent) of each setting (only
    ``setting``'s unless None); the ``macro`` row gets each setting's mean over ``languages``
    where the baseline knows them all."""
    marks: dict[str, dict[str, float]] = {}
    if baseline is not None:
        chosen = baseline if setting is None else baseline[baseline["setting"] == setting]
        for row in chosen[["language", "setting", "accuracy"]].itertuples(index=False):
            marks.setdefault(str(row.language), {})[str(row.setting)] = float(row.accuracy)
    for s in {s for m in marks.values() for s in m}:  # the baseline's macro-average over them
        known = [marks[x][s] for x in languages if s in marks.get(x, {})]
        if languages and len(known) == len(languages):
            marks.setdefault(macro, {})[s] = math.fsum(known) / len(known)
    return marks


def _accuracy_frame(title: str, settings: list[str], height: int) -> list[str]:
    """The picture's first lines: the SVG element, the title, the legend (the model's bar, a
    tick per baseline setting) and the grid lines at 0, 25, 50, 75 and 100 %."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="840" height="{height}" '
        f'viewBox="0 0 840 {height}" font-family="sans-serif" font-size="12">',
        f"<title>{html_text(title)}</title>",
        f'<text x="0" y="16" font-size="15" font-weight="bold">{html_text(title)}</text>',
    ]
    x = _LABEL_W
    out.append(
        f'<rect x="{x}" y="26" width="14" height="10" fill="#4c78c8"/>'
        f'<text x="{x + 18}" y="35">model</text>'
    )
    x += 70
    for s in settings:
        colour = _BASELINE_MARKS.get(s, "#57606a")
        out.append(
            f'<rect x="{x}" y="24" width="3" height="14" fill="{colour}"/>'
            f'<text x="{x + 7}" y="35">official baseline, {html_text(s)}</text>'
        )
        x += 150
    for pct in (0, 25, 50, 75, 100):
        gx = _LABEL_W + _SCALE * pct / 100
        out.append(
            f'<line x1="{gx}" y1="{_TOP - 8}" x2="{gx}" y2="{height - 8}" '
            f'stroke="#d1d9e0"/><text x="{gx}" y="{_TOP - 12}" text-anchor="middle" '
            f'fill="#59636e">{pct}</text>'
        )
    return out


def _accuracy_row(
    language: str,
    accuracy: float,
    y: int,
    marks: dict[str, float],
    settings: list[str],
    bold: bool,
) -> list[str]:
    """One language's row at height ``y``: its label, its bar (none for NaN) and accuracy, a
    tick per baseline setting it has in ``marks`` (setting -> accuracy), and those figures."""
    weight = ' font-weight="bold"' if bold else ""
    label_w, scale, row_h = _LABEL_W, _SCALE, _ROW_H
    out = [
        f'<text x="{label_w - 8}" y="{y + 14}" text-anchor="end"{weight}>'
        f"{html_text(language)}</text>"
    ]
    width = 0.0 if accuracy != accuracy else scale * max(0.0, min(accuracy, 100.0)) / 100
    out.append(
        f'<rect class="model" x="{label_w}" y="{y + 4}" width="{width:.2f}" '
        f'height="{row_h - 8}" fill="#4c78c8"><title>{html_text(language)}: '
        f"{accuracy:.2f} %</title></rect>"
    )
    shown = "—" if accuracy != accuracy else f"{accuracy:.1f}"
    out.append(f'<text x="{label_w + scale + 8}" y="{y + 14}"{weight}>{shown}</text>')
    for s in settings:
        value = marks.get(s)
        if value is None:
            continue
        bx = label_w + scale * value / 100
        out.append(
            f'<rect class="baseline" data-setting="{html_text(s)}" x="{bx - 1.5:.2f}" '
            f'y="{y + 1}" width="3" height="{row_h - 2}" '
            f'fill="{_BASELINE_MARKS.get(s, "#57606a")}"><title>{html_text(language)}: '
            f"official baseline ({html_text(s)}) {value:.1f} %</title></rect>"
        )
    below = ", ".join(f"{s} {marks[s]:.1f}" for s in settings if s in marks)
    if below:
        out.append(
            f'<text x="{label_w + scale + 52}" y="{y + 14}" fill="#59636e">'
            f"baseline {html_text(below)}</text>"
        )
    return out


# --- attention maps (matplotlib) ---------------------------------------------------------------


def check_plotting() -> Any:
    """``matplotlib.pyplot`` with the file-only Agg backend.

    Raises:
        RuntimeError: matplotlib is not installed (``pip install 'sparse-inflect[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError(
            "--png needs matplotlib: pip install 'sparse-inflect[plot]' (or pip install matplotlib)"
        ) from None
    return plt


def _plain(text: str) -> str:
    """User text for a matplotlib label: ``$`` escaped, so that it is never read as mathtext."""
    return text.replace("$", r"\$")


def _weight_text(weight: float) -> str:
    """A nonzero attention weight written in its cell: two decimals, ``<.01`` below 0.005."""
    return "<.01" if weight < 0.005 else f"{weight:.2f}".lstrip("0")


def figure_texts(explanation: Explanation) -> list[str]:
    """Every text an attention figure draws besides its numbers and fixed labels."""
    pred = explanation.prediction
    texts = [pred.lemma, pred.tags, pred.language, *explanation.source]
    for panel in attention_panels(explanation):
        texts += [panel.form, *panel.target]
    return texts


@functools.cache
def _charmap(path: str) -> frozenset[int]:
    """The code points a font file has glyphs for (empty where it cannot be read)."""
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):
        return frozenset()


def figure_fonts(texts: Sequence[str]) -> tuple[list[str], list[str]]:
    """The font families a figure of ``texts`` is drawn with, and the characters no font has.

    The first family is matplotlib's default (DejaVu Sans); where it lacks characters of the
    texts (Ethiopic, Han, ...), the installed fonts that have them follow, as matplotlib's
    per-character fallback reads the list (never the Last Resort font, which draws every
    character as a box).

    Returns:
        ``(families, missing)``: the ``font.family`` list, and the characters (sorted) that no
        installed font has.
    """
    import unicodedata

    from matplotlib import font_manager, rcParams

    default = font_manager.findfont(font_manager.FontProperties(family=rcParams["font.family"]))
    families = [font_manager.FontProperties(fname=default).get_name()]
    missing = {c for text in texts for c in text if unicodedata.category(c)[0] not in "CZ"
               and ord(c) not in _charmap(default)}
    for entry in font_manager.fontManager.ttflist:
        if not missing:
            break
        if "last resort" in entry.name.casefold():
            continue
        found = {c for c in missing if ord(c) in _charmap(entry.fname)}
        if found:
            missing -= found
            if entry.name not in families:
                families.append(entry.name)
    return families, sorted(missing)


def font_note(texts: Sequence[str]) -> str | None:
    """What to install where a figure of ``texts`` (:func:`figure_texts`) would draw characters
    as boxes (no installed font has them), naming their scripts and a font family that covers
    each (Noto); None when every character has a font."""
    _, missing = figure_fonts(texts)
    if not missing:
        return None
    from fontTools import unicodedata as fontdata

    scripts = sorted({fontdata.script_name(fontdata.script(c), "") for c in missing} - {""})
    shown = "".join(missing[:12]) + ("…" if len(missing) > 12 else "")
    fonts = ", ".join(f"Noto Sans {name}" for name in scripts) or "a Noto font"
    return (f"no installed font has {len(missing)} character(s) of the picture ({shown}"
            f"{'; ' + ', '.join(scripts) if scripts else ''}): they are drawn as boxes. Install "
            f"a font that has them, e.g. {fonts} (Debian/Ubuntu: apt install fonts-noto; or "
            "from https://fonts.google.com/noto), then clear matplotlib's font cache "
            "(~/.cache/matplotlib) and run again")


def attention_figure(explanation: Explanation, max_forms: int | None = None) -> Any:
    """The attention of an explanation's strings as a matplotlib figure: one heat map panel per
    form (``explanation.panels``, at most ``max_forms``; the best string alone where there are
    no panels), each titled with its form and probability (and the number of token strings that
    spell it, where several: the map is the most probable one's); rows are target symbols then
    ``</s>``, columns source symbols (right to left for a right-to-left language); each nonzero
    weight is written in its cell, exact zeros are blank (white); one shared colour scale. A
    script the default font lacks is drawn with an installed font that has it
    (:func:`figure_fonts`; :func:`font_note` says what to install where none has).

    Raises:
        RuntimeError: matplotlib is not installed (``pip install 'sparse-inflect[plot]'``).
    """
    plt = check_plotting()
    families, _ = figure_fonts(figure_texts(explanation))
    with plt.rc_context({"font.family": families}):
        return _attention_figure(plt, explanation, max_forms)


def _attention_figure(plt: Any, explanation: Explanation, max_forms: int | None) -> Any:
    """:func:`attention_figure`'s drawing, in the fonts chosen."""
    import numpy as np

    panels = attention_panels(explanation)
    panels = panels[:max_forms] if max_forms else panels
    cols = len(explanation.source)
    rows = max(len(p.target) for p in panels)
    per_row = min(len(panels), 3)
    lines = -(-len(panels) // per_row)
    cell = 0.42
    fig, axes = plt.subplots(
        lines,
        per_row,
        squeeze=False,
        layout="constrained",
        figsize=(per_row * (1.2 + cell * cols) + 1.0, lines * (1.1 + cell * rows) + 0.5),
    )
    cmap = plt.get_cmap("Blues").with_extremes(bad="white")  # exact zeros: no attention
    image = None
    for ax, panel in zip(axes.flat, panels, strict=False):
        matrix = np.asarray(panel.attention, dtype=np.float64)
        image = ax.imshow(
            np.ma.masked_equal(matrix, 0.0), cmap=cmap, vmin=0.0, vmax=1.0, aspect="equal"
        )
        for (i, j), weight in np.ndenumerate(matrix):
            if weight != 0.0:
                ax.text(
                    j,
                    i,
                    _weight_text(weight),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if weight > 0.55 else "black",
                )
        ax.set_xticks(
            range(cols), labels=[_plain(s) if s != " " else "␣" for s in explanation.source]
        )
        ax.set_yticks(
            range(len(panel.target)), labels=[_plain(s) if s != " " else "␣" for s in panel.target]
        )
        ax.tick_params(length=0)
        if explanation.direction == "rtl":
            ax.invert_xaxis()  # the lemma reads right to left
        ax.set_xlabel(
            "source (lemma)" + (", right to left" if explanation.direction == "rtl" else "")
        )
        if ax in axes[:, 0]:  # once per line of panels: a neighbour's label would overlap
            ax.set_ylabel("output")
        spelt = f"\n{panel.strings} strings" if panel.strings > 1 else ""  # the first's map
        ax.set_title(f"{_plain(panel.form)}\np = {probability_text(panel.probability)}{spelt}",
                     fontsize=10)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    pred = explanation.prediction
    fig.suptitle(
        f"{_plain(pred.lemma)}  {_plain(pred.tags)}  ({pred.language}): attention, "
        f"{len(panels)} of {len(pred.forms)} form(s)"
    )
    fig.colorbar(image, ax=axes, label="attention weight (blank: exactly 0)", shrink=0.8)
    return fig


def attention_png(explanation: Explanation, max_forms: int | None = None) -> bytes:
    """:func:`attention_figure` as the bytes of a PNG file (120 dpi); the caller writes them
    (``inflect explain --png``: atomically, with :func:`inflect.io.outputs.write_outputs`).

    Raises:
        RuntimeError: matplotlib is not installed.
    """
    import io
    import warnings

    fig = attention_figure(explanation, max_forms)
    import matplotlib.pyplot as plt

    try:
        buffer = io.BytesIO()
        with warnings.catch_warnings():  # said once by font_note, not once per glyph
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            fig.savefig(buffer, format="png", dpi=120)
        return buffer.getvalue()
    finally:
        plt.close(fig)
