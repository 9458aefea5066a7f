"""Rendering as HTML and SVG: the ambiguity report as one self-contained page, and the pictures
(forms per input by tag bundle; per-language accuracy beside the official baseline).

The page inlines its CSS, JavaScript and SVG (``inflect/render/assets/``), fetches nothing and
works from a ``file://`` URL; without JavaScript it is a static, complete report, with it the
inputs can be sorted and filtered and each input's attention map drawn on demand. Every piece of
user text (lemmas, forms, tag bundles, model paths) is escaped; the attention data travel as JSON
in a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as ``\\u003c``,
``\\u003e``, ``\\u0026``, so a lemma such as ``</script>`` cannot end the block. Rendering only:
the figures come from :mod:`inflect.evaluation.ambiguity` and :mod:`inflect.inference.explain`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from inflect.evaluation.ambiguity import AmbiguityReport, AmbiguousInput

#: Forms below this probability are folded into the input's tail ("+ 12 forms below 0.1 %").
TAIL_BELOW = 1e-3
#: Most forms drawn with a bar per input; the others are folded into the tail too.
MAX_BARS = 10

#: Classes of the number of forms of nonzero probability in the chart: (label, low, high).
SIZE_CLASSES: tuple[tuple[str, int, float], ...] = (
    ("none", 0, 0),
    ("1", 1, 1),
    ("2", 2, 2),
    ("3", 3, 3),
    ("4–5", 4, 5),
    ("6–10", 6, 10),
    ("more than 10", 11, math.inf),
)
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

_ASSETS = Path(__file__).resolve().parent / "assets"

_CERTIFICATE_BADGE = {
    "full_support": "full support",
    "mode_only": "mode only",
    "none": "not certified",
}


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def json_for_script(value: Any) -> str:
    """``value`` as compact JSON that is safe inside an HTML ``<script>`` element.

    ``<``, ``>`` and ``&`` are written ``\\u003c``, ``\\u003e``, ``\\u0026`` (and U+2028/U+2029
    escaped), so no string in ``value`` can close the element or open a comment; ``JSON.parse``
    of the element's text gives ``value`` back.

    Raises:
        TypeError, ValueError: ``value`` is not JSON-serialisable (NaN included).
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, code in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, code)
    return text


def _size_class(size: int) -> int:
    return next(i for i, (_, low, high) in enumerate(SIZE_CLASSES) if low <= size <= high)


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
            counts[_size_class(size)] += n
        rows.append((bundle.tags, counts, True))
    rest = report.bundles[CHART_BUNDLES:]
    if rest:
        counts = [0] * len(SIZE_CLASSES)
        for bundle in rest:
            for size, n in bundle.sizes.items():
                counts[_size_class(size)] += n
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
            f'<text x="{x + 16}" y="16">{_e(words)}</text>'
        )
        x += 30 + 7 * len(words)
    out.append(f'<text x="{label_w - 8}" y="16" text-anchor="end">forms:</text>')
    for r, (tags, counts, linked) in enumerate(rows):
        y = top + r * row_h
        label = (
            f'<text x="{label_w - 8}" y="{y + 12}" text-anchor="end" class="mono">{_e(tags)}</text>'
        )
        if linked and tags in anchors:
            label = f'<a href="#{_e(anchors[tags])}">{label}</a>'
        out.append(label)
        x0, total = float(label_w), sum(counts)
        for i in used:
            if not counts[i]:
                continue
            w = bar_w * counts[i] / widest
            what = "no form" if i == 0 else ("1 form" if i == 1 else f"{SIZE_CLASSES[i][0]} forms")
            out.append(
                f'<rect x="{x0:.1f}" y="{y + 2}" width="{w:.1f}" height="{row_h - 4}" '
                f'fill="{SIZE_COLOURS[i]}"><title>{_e(tags)}: {counts[i]:,} of '
                f"{total:,} inputs with {what}</title></rect>"
            )
            x0 += w
        ambiguous = sum(counts[i] for i in range(len(SIZE_CLASSES)) if i > 1)
        out.append(f'<text x="{x0 + 6:.1f}" y="{y + 12}">{ambiguous:,}/{total:,}</text>')
    out.append("</svg>")
    return "".join(out)


# --- the ambiguity page ------------------------------------------------------------------------


def _probability(p: float) -> str:
    from inflect.render.report import _probability

    return _probability(p)


def split_tail(
    forms: Sequence[tuple[str, float]],
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The forms drawn with a bar and the folded tail: the bars are the forms of probability at
    least :data:`TAIL_BELOW` (at least the first, at most :data:`MAX_BARS`), most probable first;
    the tail is the rest."""
    head = [f for k, f in enumerate(forms[:MAX_BARS]) if k == 0 or f[1] >= TAIL_BELOW]
    return list(head), list(forms[len(head) :])


def tail_summary(tail: Sequence[tuple[str, float]], gold: str | None) -> str:
    """The folded tail's line: ``+ 12 forms below 0.1 % (together 0.0003)``, or, where forms
    above :data:`TAIL_BELOW` are folded (more than :data:`MAX_BARS`), ``+ 12 more forms, each
    0.0042 or less (together 0.0130)``; then ``, the gold form among them`` where it is."""
    import math

    count, largest = len(tail), max(p for _, p in tail)
    total = _probability(math.fsum(p for _, p in tail))
    plural = "s" if count != 1 else ""
    if largest < TAIL_BELOW:
        words = f"+ {count:,} form{plural} below {100 * TAIL_BELOW:g} % (together {total})"
    else:
        words = f"+ {count:,} more form{plural}, each {_probability(largest)} or less "
        words += f"(together {total})"
    return words + (", the gold form among them" if any(f == gold for f, _ in tail) else "")


#: Digits of the attention weights' encoding: each weight in thousandths (0 to 1000) as two
#: base-64 digits, ``WEIGHT_DIGITS[m // 64] + WEIGHT_DIGITS[m % 64]``.
WEIGHT_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def encode_weights(matrix: Any) -> str:
    """Attention weights as text for the page: row-major, each weight in thousandths as two
    :data:`WEIGHT_DIGITS`; an exact zero is 0 and any nonzero weight at least 1, so the blank
    cells of the drawn map are exactly the zeros.

    Args:
        matrix: array-like [T, S] of weights in [0, 1].

    Returns:
        A string of ``2 * T * S`` characters.
    """
    out = []
    for row in matrix.tolist():
        for w in row:
            m = 0 if w == 0.0 else min(1000, max(1, round(1000 * w)))
            out.append(WEIGHT_DIGITS[m >> 6] + WEIGHT_DIGITS[m & 63])
    return "".join(out)


def _attention_entry(item: AmbiguousInput) -> dict[str, Any] | None:
    """The JSON of an input's attention maps: source symbols ``s``, direction ``d``, and per
    string ``p``: its form ``f``, probability ``q`` (as shown), target symbols ``t`` and weights
    ``w`` (:func:`encode_weights`)."""
    found = item.explanation
    if found is None or not found.panels:
        return None
    panels = [
        {
            "f": panel.form,
            "q": _probability(panel.probability),
            "t": list(panel.target),
            "w": encode_weights(panel.attention),
        }
        for panel in found.panels
    ]
    return {"s": list(found.source), "d": found.direction, "p": panels}


def _input_html(item: AmbiguousInput, group: int, maps: list[dict[str, Any]]) -> str:
    head, tail = split_tail(item.forms)
    gold = {None: "none", True: "in", False: "out"}[item.gold_in_support]
    entry = _attention_entry(item)
    key = ""
    if entry is not None:
        key = f' data-k="{len(maps)}"'
        maps.append(entry)
    direction = f' dir="{item.direction}"' if item.direction in ("rtl", "auto") else ""
    ltr = ' dir="ltr"' if direction else ""  # English words and tags inside a right-to-left item
    cert = item.certificate if item.certificate in _CERTIFICATE_BADGE else "none"
    more = f"more than {item.more_than}" if item.more_than is not None else f"{len(item.forms)}"
    out = [
        f'<li class="inp" id="i{item.position}"{direction} data-g="{group}" '
        f'data-n="{len(item.forms)}" data-h="{item.entropy:.4f}" data-b="{item.forms[0][1]:.4g}" '
        f'data-gold="{gold}"{key}><div class="head">',
        f'<span class="lemma">{_e(item.lemma)}</span>',
        f'<span class="tags"{ltr}>{_e(item.tags)}</span>',
        f'<span class="cert {cert}"{ltr}>{_CERTIFICATE_BADGE[cert]}</span>',
        f'<span class="dim"{ltr}>{more} forms · {item.entropy:.2f} bits</span>',
    ]
    if entry is not None:
        out.append(
            '<button type="button" class="att" hidden aria-expanded="false">attention</button>'
        )
    out.append('</div><table class="forms">')
    for form, p in head:
        is_gold = form == item.gold
        mark = '<span class="goldmark">gold</span>' if is_gold else ""
        source = item.source_of(form)
        if source is not None:
            mark += f'<span class="attmark" title="{_e(source)}">attested</span>'

        out.append(
            f"<tr{' class=gold' if is_gold else ''}><td>{_e(form)}{mark}</td>"
            f'<td class="b"><i style="width:{100 * p:.1f}%"></i></td>'
            f'<td class="p">{_probability(p)}</td></tr>'
        )
    out.append("</table>")
    if tail:
        shown = ", ".join(
            (f"<b>{_e(form)}</b>" if form == item.gold else _e(form)) + f" ({_probability(p)})"
            for form, p in tail
        )
        out.append(
            f'<details class="tail"><summary>{_e(tail_summary(tail, item.gold))}</summary>'
            f"<p>{shown}</p></details>"
        )
    if item.more_than is not None:
        out.append(
            f'<p class="more">more than {item.more_than} forms have nonzero probability; '
            f"the {item.more_than} most probable are listed</p>"
        )
    listed = {form for form, _ in item.forms}
    for form, source in item.attested:
        if form not in listed:
            out.append(
                f'<p class="attested">attested: {_e(form)} ({_e(source)}) — not among the '
                "model's forms</p>"
            )
    if item.gold_in_support is False:
        note = "" if item.complete else " (the list is not certified complete)"
        out.append(f'<p class="nogold">gold: {_e(item.gold)} — not among the forms{note}</p>')
    out.append(f'<div class="map"{ltr}></div></li>')  # the map orders its own columns
    return "".join(out)


def _share_text(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f} %" if whole else "—"


def _figures(report: AmbiguityReport) -> list[tuple[str, str]]:
    """The summary figures: (number, words)."""
    none = report.inputs - report.full_support - report.mode_only
    figures = [
        (f"{report.inputs:,}", "inputs"),
        (
            f"{report.ambiguous:,}",
            f"ambiguous ({_share_text(report.ambiguous, report.inputs)}): "
            "more than one form of nonzero probability",
        ),
        (
            f"{report.full_support:,}",
            f"certified full support ({_share_text(report.full_support, report.inputs)})",
        ),
        (
            f"{report.mode_only:,}",
            f"certified mode only ({_share_text(report.mode_only, report.inputs)})",
        ),
        (f"{none:,}", "not certified"),
    ]
    if report.with_gold:
        figures.append(
            (
                f"{report.gold_in_support:,} of {report.with_gold:,}",
                "ambiguous inputs with gold have it in the support "
                f"({_share_text(report.gold_in_support, report.with_gold)})",
            )
        )
    return figures


def ambiguity_page(
    report: AmbiguityReport,
    title: str = "Ambiguity report",
    about: Mapping[str, str] | None = None,
) -> str:
    """The ambiguity report as one self-contained HTML page.

    Top: ``title``, the ``about`` lines (models, language, split, beam, ...), the summary figures
    and :func:`forms_chart_svg`; then a table of contents by tag bundle; then one section per tag
    bundle, each input with a bar per form (the gold form marked), its certificate, the forms
    below :data:`TAIL_BELOW` folded in a ``<details>`` element, and (where the report carries
    explanations) an attention button. Right-to-left languages are marked ``dir="rtl"``.

    Args:
        report: the :class:`inflect.evaluation.ambiguity.AmbiguityReport`.
        title: the page title (escaped).
        about: label -> value lines shown at the top (escaped), in order.

    Returns:
        The page as text (UTF-8 when written).
    """
    from inflect.decoding.protocol import Certificate
    from inflect.render.report import _summary_lines

    anchors = {g.tags: f"g{k}" for k, g in enumerate(report.groups, 1)}
    css = (_ASSETS / "report.css").read_text(encoding="utf-8")
    js = (_ASSETS / "report.js").read_text(encoding="utf-8")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="sparse-inflect">',
        f"<title>{_e(title)}</title><style>{css}</style></head><body>",
        f"<header><h1>{_e(title)}</h1>",
    ]
    if about:
        out.append('<dl class="about">')
        out += [f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in about.items()]
        out.append("</dl>")
    out.append('<ul class="figures">')
    out += [f"<li><b>{_e(n)}</b>{_e(words)}</li>" for n, words in _figures(report)]
    out.append("</ul>")
    out.append(
        '<p class="dim">'
        + "; ".join(
            f'<span class="cert {c.value}">{_CERTIFICATE_BADGE[c.value]}</span> {c.description}'
            for c in Certificate
        )
        + ".</p>"
    )
    out.append(
        f"<figure>{forms_chart_svg(report, anchors)}<figcaption>Inputs of each tag bundle "
        "by the number of forms of nonzero probability (a lower bound where the list is "
        "not certified full support); the figure at the end of a bar: ambiguous inputs / "
        "inputs.</figcaption></figure></header>"
    )
    out.append('<nav id="toc"><h2>Tag bundles with ambiguous inputs</h2><ol>')
    out += [
        f'<li><a href="#{anchors[g.tags]}"><span class="tags">{_e(g.tags)}</span></a> '
        f'<span class="dim">{len(g.inputs):,} of {g.total:,}</span></li>'
        for g in report.groups
    ]
    out.append("</ol></nav>")
    if report.groups:
        options = "".join(
            f'<option value="{k}">{_e(g.tags)} ({len(g.inputs):,})</option>'
            for k, g in enumerate(report.groups, 1)
        )
        out.append(
            '<form id="controls" hidden><label>tag bundle <select name="bundle">'
            f'<option value="">all</option>{options}</select></label>'
            '<label>gold <select name="gold"><option value="">any</option>'
            '<option value="in">in the support</option><option value="out">not in the support'
            '</option><option value="none">unknown</option></select></label>'
            '<label>at least <input type="number" name="least" min="2" value="2"> forms</label>'
            '<label>sort <select name="order"><option value="input">input order</option>'
            '<option value="forms-desc">most forms first</option>'
            '<option value="forms-asc">fewest forms first</option>'
            '<option value="entropy-desc">highest entropy first</option>'
            '<option value="entropy-asc">lowest entropy first</option>'
            '<option value="best-asc">least probable best form first</option></select></label>'
            '<label><input type="checkbox" name="grouped" checked> by tag bundle</label>'
            '<output id="shown"></output></form>'
        )
    out.append(
        "<noscript><p class=dim>Sorting, filtering and attention maps need JavaScript; "
        "everything else is on this page.</p></noscript><main>"
    )
    maps: list[dict[str, Any]] = []
    for k, group in enumerate(report.groups, 1):
        out.append(
            f'<section class="group" id="g{k}"><h2><span class="tags">{_e(group.tags)}'
            f"</span> <small>{len(group.inputs):,} ambiguous of {group.total:,} "
            f"input{'s' if group.total != 1 else ''}"
            f'</small></h2><ol class="inputs" id="l{k}">'
        )
        out += [_input_html(item, k, maps) for item in group.inputs]
        out.append("</ol></section>")
    out.append(
        '<section id="flat" hidden><h2>All ambiguous inputs</h2>'
        '<ol class="inputs" id="lflat"></ol></section></main>'
    )
    out.append(
        '<footer class="dim"><p>'
        + "<br>".join(_e(line) for line in _summary_lines(report))
        + "</p></footer>"
    )
    out.append(f'<script type="application/json" id="maps">{json_for_script(maps)}</script>')
    out.append(f"<script>{js}</script></body></html>")
    return "\n".join(out) + "\n"


# --- the evaluation picture --------------------------------------------------------------------

#: Marker of each baseline setting in :func:`accuracy_svg`.
_BASELINE_MARKS = {"high": "#cf222e", "medium": "#bf8700", "low": "#8250df"}


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

    marks: dict[str, dict[str, float]] = {}
    if baseline is not None:
        chosen = baseline if setting is None else baseline[baseline["setting"] == setting]
        for row in chosen[["language", "setting", "accuracy"]].itertuples(index=False):
            marks.setdefault(str(row.language), {})[str(row.setting)] = float(row.accuracy)
    rows = [
        (str(r.language), float(r.accuracy))
        for r in frame[["language", "accuracy"]].itertuples(index=False)
    ]
    languages = [language for language, _ in rows if language != MACRO]
    for s in {s for m in marks.values() for s in m}:  # the baseline's macro-average over them
        known = [marks[x][s] for x in languages if s in marks.get(x, {})]
        if languages and len(known) == len(languages):
            marks.setdefault(MACRO, {})[s] = math.fsum(known) / len(known)
    settings = [s for s in _BASELINE_MARKS if any(s in m for m in marks.values())]
    settings += sorted({s for m in marks.values() for s in m} - set(settings))
    label_w, scale, row_h, top = 150, 400.0, 20, 58
    height = top + row_h * len(rows) + 10
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="840" height="{height}" '
        f'viewBox="0 0 840 {height}" font-family="sans-serif" font-size="12">',
        f"<title>{_e(title)}</title>",
        f'<text x="0" y="16" font-size="15" font-weight="bold">{_e(title)}</text>',
    ]
    x = label_w
    out.append(
        f'<rect x="{x}" y="26" width="14" height="10" fill="#4c78c8"/>'
        f'<text x="{x + 18}" y="35">model</text>'
    )
    x += 70
    for s in settings:
        colour = _BASELINE_MARKS.get(s, "#57606a")
        out.append(
            f'<rect x="{x}" y="24" width="3" height="14" fill="{colour}"/>'
            f'<text x="{x + 7}" y="35">official baseline, {_e(s)}</text>'
        )
        x += 150
    for pct in (0, 25, 50, 75, 100):
        gx = label_w + scale * pct / 100
        out.append(
            f'<line x1="{gx}" y1="{top - 8}" x2="{gx}" y2="{height - 8}" '
            f'stroke="#d1d9e0"/><text x="{gx}" y="{top - 12}" text-anchor="middle" '
            f'fill="#59636e">{pct}</text>'
        )
    for r, (language, accuracy) in enumerate(rows):
        y = top + r * row_h
        bold = ' font-weight="bold"' if language == MACRO else ""
        out.append(
            f'<text x="{label_w - 8}" y="{y + 14}" text-anchor="end"{bold}>{_e(language)}</text>'
        )
        width = 0.0 if accuracy != accuracy else scale * max(0.0, min(accuracy, 100.0)) / 100
        out.append(
            f'<rect class="model" x="{label_w}" y="{y + 4}" width="{width:.2f}" '
            f'height="{row_h - 8}" fill="#4c78c8"><title>{_e(language)}: '
            f"{accuracy:.2f} %</title></rect>"
        )
        shown = "—" if accuracy != accuracy else f"{accuracy:.1f}"
        out.append(f'<text x="{label_w + scale + 8}" y="{y + 14}"{bold}>{shown}</text>')
        for s in settings:
            value = marks.get(language, {}).get(s)
            if value is None:
                continue
            bx = label_w + scale * value / 100
            out.append(
                f'<rect class="baseline" data-setting="{_e(s)}" x="{bx - 1.5:.2f}" '
                f'y="{y + 1}" width="3" height="{row_h - 2}" '
                f'fill="{_BASELINE_MARKS.get(s, "#57606a")}"><title>{_e(language)}: '
                f"official baseline ({_e(s)}) {value:.1f} %</title></rect>"
            )
        below = ", ".join(
            f"{s} {marks[language][s]:.1f}" for s in settings if s in marks.get(language, {})
        )
        if below:
            out.append(
                f'<text x="{label_w + scale + 52}" y="{y + 14}" fill="#59636e">'
                f"baseline {_e(below)}</text>"
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"
