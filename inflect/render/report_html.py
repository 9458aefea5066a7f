"""The ambiguity report as one self-contained HTML page.

The page inlines its CSS, JavaScript and SVG (``inflect/render/assets/``, the chart
:func:`inflect.render.figures.forms_chart_svg`), fetches nothing and works from a ``file://``
URL; without JavaScript it is a static, complete report, with it the inputs can be sorted and
filtered and each input's attention map drawn on demand. Every piece of user text (lemmas, forms,
tag bundles, model paths) is escaped; the attention data travel as JSON in a ``<script
type="application/json">`` block with ``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e``,
``\\u0026``, so a lemma such as ``</script>`` cannot end the block. Rendering only: the figures come
from :mod:`inflect.evaluation.ambiguity` and :mod:`inflect.inference.explain`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inflect.render.ambiguity_parts import split_tail, summary_lines, tail_summary
from inflect.render.common import CERTIFICATE_BADGES, html_text, probability_text
from inflect.render.figures import forms_chart_svg

if TYPE_CHECKING:  # annotations only
    from inflect.evaluation.ambiguity import AmbiguityReport, AmbiguousInput


_ASSETS = Path(__file__).resolve().parent / "assets"


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
            "q": probability_text(panel.probability),
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
    cert = item.certificate if item.certificate in CERTIFICATE_BADGES else "none"
    more = f"more than {item.more_than}" if item.more_than is not None else f"{len(item.forms)}"
    out = [
        f'<li class="inp" id="i{item.position}"{direction} data-g="{group}" '
        f'data-n="{len(item.forms)}" data-h="{item.entropy:.4f}" data-b="{item.forms[0][1]:.4g}" '
        f'data-gold="{gold}"{key}><div class="head">',
        f'<span class="lemma">{html_text(item.lemma)}</span>',
        f'<span class="tags"{ltr}>{html_text(item.tags)}</span>',
        f'<span class="cert {cert}"{ltr}>{CERTIFICATE_BADGES[cert]}</span>',
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
            mark += f'<span class="attmark" title="{html_text(source)}">attested</span>'

        out.append(
            f"<tr{' class=gold' if is_gold else ''}><td>{html_text(form)}{mark}</td>"
            f'<td class="b"><i style="width:{100 * p:.1f}%"></i></td>'
            f'<td class="p">{probability_text(p)}</td></tr>'
        )
    out.append("</table>")
    if tail:
        shown = ", ".join(
            (f"<b>{html_text(form)}</b>" if form == item.gold else html_text(form)) + f" ({probability_text(p)})"
            for form, p in tail
        )
        out.append(
            f'<details class="tail"><summary>{html_text(tail_summary(tail, item.gold))}</summary>'
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
                f'<p class="attested">attested: {html_text(form)} ({html_text(source)}) — not among the '
                "model's forms</p>"
            )
    if item.gold_in_support is False:
        note = "" if item.complete else " (the list is not certified complete)"
        out.append(f'<p class="nogold">gold: {html_text(item.gold)} — not among the forms{note}</p>')
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
    and :func:`inflect.render.figures.forms_chart_svg`; then a table of contents by tag bundle;
    then one section per tag bundle, each input with a bar per form (the gold form marked), its
    certificate, the forms below :data:`inflect.render.ambiguity_parts.TAIL_BELOW` folded in a
    ``<details>`` element, and (where the report carries explanations) an attention button.
    Right-to-left languages are marked ``dir="rtl"``.

    Args:
        report: the :class:`inflect.evaluation.ambiguity.AmbiguityReport`.
        title: the page title (escaped).
        about: label -> value lines shown at the top (escaped), in order.

    Returns:
        The page as text (UTF-8 when written).
    """
    anchors = {g.tags: f"g{k}" for k, g in enumerate(report.groups, 1)}
    css = (_ASSETS / "report.css").read_text(encoding="utf-8")
    js = (_ASSETS / "report.js").read_text(encoding="utf-8")
    maps: list[dict[str, Any]] = []
    sections = _sections(report, maps)  # fills maps: the attention maps of its inputs
    out = [
        *_page_header(report, title, about, anchors, css),
        *_contents(report, anchors),
        *_controls(report),
        "<noscript><p class=dim>Sorting, filtering and attention maps need JavaScript; "
        "everything else is on this page.</p></noscript><main>",
        *sections,
        '<section id="flat" hidden><h2>All ambiguous inputs</h2>'
        '<ol class="inputs" id="lflat"></ol></section></main>',
        '<footer class="dim"><p>'
        + "<br>".join(html_text(line) for line in summary_lines(report))
        + "</p></footer>",
        f'<script type="application/json" id="maps">{json_for_script(maps)}</script>',
        f"<script>{js}</script></body></html>",
    ]
    return "\n".join(out) + "\n"


def _page_header(
    report: AmbiguityReport,
    title: str,
    about: Mapping[str, str] | None,
    anchors: Mapping[str, str],
    css: str,
) -> list[str]:
    """The page's lines up to the end of its ``<header>``: the document head with the inlined
    ``css``, the title, the ``about`` lines, the summary figures, what each certificate means,
    and the chart of forms per input (its bundle labels linked by ``anchors``)."""
    from inflect.inference.outcomes import Certificate

    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="sparse-inflect">',
        f"<title>{html_text(title)}</title><style>{css}</style></head><body>",
        f"<header><h1>{html_text(title)}</h1>",
    ]
    if about:
        out.append('<dl class="about">')
        out += [f"<dt>{html_text(k)}</dt><dd>{html_text(v)}</dd>" for k, v in about.items()]
        out.append("</dl>")
    out.append('<ul class="figures">')
    out += [f"<li><b>{html_text(n)}</b>{html_text(words)}</li>" for n, words in _figures(report)]
    out.append("</ul>")
    out.append(
        '<p class="dim">'
        + "; ".join(
            f'<span class="cert {c.value}">{CERTIFICATE_BADGES[c.value]}</span> {c.description}'
            for c in Certificate
        )
        + ". The certificates are about the model's search, not the language: a form no source "
        "attests is the model's guess, however certain.</p>"
    )
    out.append(
        f"<figure>{forms_chart_svg(report, anchors)}<figcaption>Inputs of each tag bundle "
        "by the number of forms of nonzero probability (a lower bound where the list is "
        "not certified full support); the figure at the end of a bar: ambiguous inputs / "
        "inputs.</figcaption></figure></header>"
    )
    return out


def _contents(report: AmbiguityReport, anchors: Mapping[str, str]) -> list[str]:
    """The table of contents: a link to each tag bundle's section, with its counts."""
    out = ['<nav id="toc"><h2>Tag bundles with ambiguous inputs</h2><ol>']
    out += [
        f'<li><a href="#{anchors[g.tags]}"><span class="tags">{html_text(g.tags)}</span></a> '
        f'<span class="dim">{len(g.inputs):,} of {g.total:,}</span></li>'
        for g in report.groups
    ]
    out.append("</ol></nav>")
    return out


def _controls(report: AmbiguityReport) -> list[str]:
    """The form that filters and sorts the inputs (hidden until the script shows it; none for a
    report without ambiguous inputs)."""
    if not report.groups:
        return []
    options = "".join(
        f'<option value="{k}">{html_text(g.tags)} ({len(g.inputs):,})</option>'
        for k, g in enumerate(report.groups, 1)
    )
    return [
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
    ]


def _sections(report: AmbiguityReport, maps: list[dict[str, Any]]) -> list[str]:
    """One ``<section>`` per tag bundle with its inputs (:func:`_input_html`); each input's
    attention maps are appended to ``maps``."""
    out = []
    for k, group in enumerate(report.groups, 1):
        out.append(
            f'<section class="group" id="g{k}"><h2><span class="tags">{html_text(group.tags)}'
            f"</span> <small>{len(group.inputs):,} ambiguous of {group.total:,} "
            f"input{'s' if group.total != 1 else ''}"
            f'</small></h2><ol class="inputs" id="l{k}">'
        )
        out += [_input_html(item, k, maps) for item in group.inputs]
        out.append("</ol></section>")
    return out


def ambiguity_html(
    report: AmbiguityReport,
    title: str = "Ambiguity report",
    about: dict[str, str] | None = None,
) -> str:
    """The ambiguity report as one self-contained HTML page (the name ``inflect report
    ambiguity`` uses): :func:`ambiguity_page`."""
    return ambiguity_page(report, title, about)
