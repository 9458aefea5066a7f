"""Paradigms as one self-contained HTML page (``inflect paradigm --format html --out FILE``).

The page inlines its CSS (the ambiguity report's, ``inflect/render/assets/report.css``, plus
:data:`PARADIGM_CSS`), has no script and fetches nothing: it reads the same from a ``file://``
URL, offline, in any browser. Each paradigm is a section: its blocks as tables (rows by columns
by UniMorph dimension, as :mod:`inflect.inference.paradigm` lays them out), each cell with its
answer first: an attested form (a lexicon's) where there is one, marked so with its sources and
what the model gives it in words, no bar (a bar would make a written form look less likely than
the model's guess); else the model's most probable form. The model's distribution follows (under
"the model" where an attested form leads), a bar per form drawn to its probability, each form
once (:func:`inflect.render.common.model_shown`), the forms below the fold threshold in a ``<details>`` element; the
certificate as a badge, and the uncertain cells (:attr:`inflect.inference.paradigm.Cell.uncertain`)
tinted and labelled. Every piece of user text is escaped. Rendering only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from inflect import defaults
from inflect.render.common import (
    CERTIFICATE_BADGES,
    CONFLICT,
    attested_words,
    guesses_note,
    html_text,
    model_shown,
    probability_text,
)

if TYPE_CHECKING:  # annotations only
    from inflect.inference.paradigm import Cell, CellForm, Paradigm

__all__ = [
    "PARADIGM_CSS",
    "attested_mark",
    "forms_html",
    "legend_html",
    "paradigm_page",
    "paradigm_section",
    "stylesheet",
]

_ASSETS = Path(__file__).resolve().parent / "assets"

#: The page's own rules, after the ambiguity report's stylesheet.
PARADIGM_CSS = """
table.paradigm { border-collapse: collapse; margin: .4rem 0 1rem; }
table.paradigm th, table.paradigm td { border: 1px solid var(--line); padding: .3rem .5rem;
  vertical-align: top; text-align: start; }
table.paradigm thead th { background: var(--tail); }
table.paradigm th.row { background: var(--tail); white-space: nowrap; }
td.cell { min-width: 11rem; }
td.cell.uncertain { background: #fff4d6; }
td.cell.empty { background: repeating-linear-gradient(45deg, #fff, #fff 4px, #f3f4f6 4px,
  #f3f4f6 8px); }
td.cell .first { font-weight: 600; font-size: 1.05rem; }
td.cell .tagline { display: block; color: var(--dim); font-size: .75rem; }
.cell ol { list-style: none; margin: .2rem 0 0; padding: 0; }
.cell li { display: grid; grid-template-columns: minmax(5rem, max-content) 5rem 3.6rem;
  gap: .4rem; align-items: center; font-size: .9rem; }
.cell li i { display: block; height: .6rem; min-width: 1px; background: var(--bar);
  border-radius: 2px; }
.cell li .p { text-align: right; color: var(--dim); font-variant-numeric: tabular-nums; }
.attested { font-size: .7rem; color: #fff; background: #0a7ea4; border-radius: 3px;
  padding: 0 .3em; margin-inline-start: .3em; }
.conflict { font-size: .7rem; color: #fff; background: #a4336b; border-radius: 3px;
  padding: 0 .3em; margin-inline-start: .3em; }
.unsure { font-size: .7rem; color: var(--warn); border: 1px solid var(--warn);
  border-radius: 3px; padding: 0 .3em; margin-inline-start: .3em; }
.cell .mp { color: var(--dim); font-size: .8rem; }
.cell p.also .attested + .mp { margin-inline-start: .4em; }
.cell .model { margin-top: .25rem; }
.cell .model-head { display: block; color: var(--dim); font-size: .75rem; }
p.also { margin: .1rem 0; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem 1.2rem;
  font-size: .85rem; color: var(--dim); }
ul.legend .swatch { display: inline-block; width: 1em; height: 1em; vertical-align: -.15em;
  border: 1px solid var(--line); }
"""

def _direction(language: str) -> str:
    from inflect.text.languages import UnknownLanguageError, resolve

    try:
        return resolve(language).direction
    except UnknownLanguageError:
        return "ltr"


def forms_html(
    head: Sequence[CellForm], tail: Sequence[CellForm], fold_below: float, rtl: bool = False
) -> str:
    """The model's forms as a list with a bar each (``<ol>``; each ``<li>``: the form, a bar
    ``<i style="width:P%">``, the probability) and the folded tail (``<details class="tail">``:
    the forms below ``fold_below``), as :func:`~inflect.render.common.model_shown` splits
    them; inside an element of
    class ``cell`` (a paradigm's cell, the lookup page's answer). Empty for no forms."""
    direction = ' dir="rtl"' if rtl else ""
    out = []
    if head:
        out.append("<ol>")
        for f in head:
            out.append(
                f"<li><span{direction}>{html_text(f.form)}</span>"
                f'<span class="b"><i style="width:{100 * f.probability:.1f}%"></i></span>'
                f'<span class="p">{probability_text(f.probability)}</span></li>'
            )
        out.append("</ol>")
    if tail:
        total = probability_text(sum(f.probability for f in tail))
        shown = ", ".join(f"{html_text(f.form)} ({probability_text(f.probability)})" for f in tail)
        plural = "s" if len(tail) != 1 else ""
        out.append(
            f'<details class="tail"><summary>+ {len(tail)} form{plural} below '
            f"{100 * fold_below:g} % (together {total})</summary>"
            f"<p{direction}>{shown}</p></details>"
        )
    return "".join(out)


def attested_mark(form: CellForm) -> str:
    """The ``attested`` badge, its sources as the title."""
    return f'<span class="attested" title="{html_text(form.source)}">attested</span>'


def _cell_html(cell: Cell, fold_below: float, rtl: bool) -> str:
    """One ``<td class="cell">``: the answer (an attested form, else the model's first), the
    badges, then the model's bars and folded tail."""
    classes = "cell uncertain" if cell.uncertain else "cell"
    cert = cell.certificate.value
    out = [
        f'<td class="{classes}" data-tags="{html_text(cell.tags)}" data-certificate="{cert}" '
        f'data-forms="{len(cell.forms)}">'
    ]
    direction = ' dir="rtl"' if rtl else ""
    attested = cell.attested
    if not cell.forms:
        out.append('<span class="first dim">no form finished</span>')
    else:
        best = cell.forms[0]
        mark = attested_mark(best) if best.attested else ""
        if cell.conflict:
            mark += f'<span class="conflict" title="{html_text(CONFLICT)}">conflict</span>'
        out.append(f'<span class="first"{direction}>{html_text(best.form)}</span>{mark}')
    out.append(f' <span class="cert {cert}">{CERTIFICATE_BADGES[cert]}</span>')
    if cell.uncertain:
        out.append('<span class="unsure">uncertain</span>')
    out.append(f'<span class="tagline">{html_text(cell.tags)}</span>')
    for k, f in enumerate(attested):  # each with what the model gives it, in words
        words = html_text(attested_words(f, cell.forms, cell.complete))
        also = f'<span{direction}>{html_text(f.form)}</span>{attested_mark(f)}' if k else ""
        out.append(f'<p class="also">{also}<span class="mp">{words}</span></p>')
    shown = forms_html(*model_shown(cell.forms, fold_below), fold_below, rtl)
    if attested and shown:
        shown = (f'<div class="model"><span class="model-head">the model\'s other forms</span>'
                 f"{shown}</div>")
    out.append(shown)
    if cell.more_than is not None:
        out.append(f'<p class="more">more than {cell.more_than} forms of nonzero probability</p>')
    out.append("</td>")
    return "".join(out)


def _paradigm_html(paradigm: Paradigm, index: int, fold_below: float) -> str:
    rtl = _direction(paradigm.language) == "rtl"
    uncertain = len(paradigm.uncertain)
    full = sum(c.complete for c in paradigm.cells)
    out = [
        f'<section class="paradigm" id="p{index}" data-cells="{len(paradigm.cells)}">',
        f"<h2><span{' dir=rtl' if rtl else ''}>{html_text(paradigm.lemma)}</span> "
        f"<small>{html_text(paradigm.part_of_speech)} · {html_text(paradigm.language)}</small></h2>",
        f'<p class="dim">{len(paradigm.cells)} cells (the tag bundles of '
        f"{html_text(paradigm.cells_from)}); {full} certified full support; "
        f"{uncertain} uncertain (none attested, the model's first below "
        f"{100 * defaults.PARADIGM_SURE:g} %)"
        + (f"; {html_text(paradigm.where)}" if paradigm.where else "")
        + "</p>",
    ]
    guesses = guesses_note(len(paradigm.attested), len(paradigm.cells))
    if guesses:
        out.append(f'<p class="more guesses">{html_text(guesses)}</p>')
    for note in paradigm.warnings:
        out.append(f'<p class="more">warning: {html_text(note)}</p>')
    for block in paradigm.blocks:
        label = " ".join(block.label)
        out.append('<table class="paradigm">')
        if label:
            out.append(f'<caption class="tags">{html_text(label)}</caption>')
        if block.is_grid:
            corner = html_text(paradigm.row_dimension or "")
            heads = "".join(f'<th scope="col">{html_text(c)}</th>' for c in block.columns)
            out.append(f"<thead><tr><th>{corner}</th>{heads}</tr></thead><tbody>")
            for row in block.rows:
                out.append(f'<tr><th scope="row" class="row">{html_text(row)}</th>')
                for column in block.columns:
                    i = block.cells.get((row, column))
                    if i is None:
                        out.append('<td class="empty" title="not attested in the data"></td>')
                    else:
                        out.append(_cell_html(paradigm.cells[i], fold_below, rtl))
                out.append("</tr>")
        else:
            out.append("<tbody>")
            for (row, column), i in block.cells.items():
                name = row or column or paradigm.cells[i].tags
                out.append(f'<tr><th scope="row" class="row">{html_text(name)}</th>')
                out.append(_cell_html(paradigm.cells[i], fold_below, rtl) + "</tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return "".join(out)


def paradigm_page(
    paradigms: Sequence[Paradigm],
    title: str | None = None,
    fold_below: float = defaults.PARADIGM_FOLD_BELOW,
) -> str:
    """The page of one or more paradigms.

    Args:
        paradigms: the :class:`~inflect.inference.paradigm.Paradigm` s, in order (one section each).
        title: the page's title; default ``"Paradigm of LEMMA (LANGUAGE POS)"`` for one,
            ``"N paradigms"`` for several.
        fold_below: a cell's forms below this probability are folded (always the first shown).

    Returns:
        The HTML document (text, UTF-8 when written). Bars are ``<i>`` elements with
        ``style="width:P%"`` (P = 100 x probability, one decimal).
    """
    if title is None:
        if len(paradigms) == 1:
            p = paradigms[0]
            title = f"Paradigm of {p.lemma} ({p.language} {p.part_of_speech})"
        else:
            title = f"{len(paradigms)} paradigms"
    body = "".join(_paradigm_html(p, i, fold_below) for i, p in enumerate(paradigms))
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html_text(title)}</title><style>{stylesheet()}</style></head><body>"
        f"<h1>{html_text(title)}</h1>{legend_html()}{body}"
        '<p class="dim">Made by sparse-inflect (inflect paradigm).</p></body></html>\n'
    )


def stylesheet() -> str:
    """The CSS of the paradigm page (the ambiguity report's ``assets/report.css``, then
    :data:`PARADIGM_CSS`), to inline in a ``<style>`` element."""
    return (_ASSETS / "report.css").read_text(encoding="utf-8") + PARADIGM_CSS


def paradigm_section(
    paradigm: Paradigm, index: int = 0, fold_below: float = defaults.PARADIGM_FOLD_BELOW
) -> str:
    """One paradigm as the page's ``<section class="paradigm" id="pINDEX">``: a heading, the
    cell counts, its warnings, and one table per block (see :func:`paradigm_page`)."""
    return _paradigm_html(paradigm, index, fold_below)


def legend_html() -> str:
    """The legend of the certificate badges, the cell tints and the attested mark
    (``<ul class="legend">``)."""
    return (
        '<ul class="legend">'
        '<li><span class="cert full_support">full support</span> search exact: every form the '
        "model gives any probability is listed</li>"
        '<li><span class="cert mode_only">mode only</span> search exact for the first form: '
        "the model's most probable</li>"
        '<li><span class="cert none">not certified</span> the model may give a form not listed '
        "more probability</li>"
        "<li>The certificates are about the model's search, not the language: a form no source "
        "attests is the model's guess, however certain.</li>"
        '<li><span class="swatch" style="background:#fff4d6"></span> uncertain: no form attested, '
        f"and the model's first below {100 * defaults.PARADIGM_SURE:g} %, or not certified</li>"
        '<li><span class="swatch empty-swatch" style="background:#f3f4f6"></span> a cell the data '
        "do not attest</li>"
        '<li><span class="attested">attested</span> the answer: a form written in a lexicon '
        "(hover: where), with what the model gives it; the model's own forms follow, a bar "
        'each; <span class="conflict">conflict</span> the sources disagree</li>'
        "</ul>"
    )
