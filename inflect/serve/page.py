"""The lookup page (``GET /``): a language, a lemma and a tag bundle or a part of speech; the
answer first (the attested forms, each with its sources and what the model gives it, no bar),
then the model's distribution under its own heading (a bar a form, each form once, the
certificate); the paradigm grid.

The page is one HTML document with its CSS inlined, no script, nothing fetched: it reads the same
offline, without JavaScript, on a phone-width window (the grid scrolls sideways inside its own
box). The form is sent by GET, so every lookup is a link (``/?lang=german&lemma=Haus&pos=N``)
that reproduces it. Its parts are :mod:`inflect.render`'s: the paradigm page's stylesheet, legend
and sections (:func:`inflect.render.paradigm_html.paradigm_section`), and a prediction's forms
as a paradigm cell's (:func:`~inflect.render.common.model_shown`,
:func:`~inflect.render.paradigm_html.forms_html`,
:func:`~inflect.render.common.attested_words`); only the form and the frame are this
module's. Every piece of user text is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from inflect import defaults
from inflect.render.common import (
    CERTIFICATE_BADGES,
    CONFLICT,
    attested_words,
    html_text,
    model_shown,
)
from inflect.render.paradigm_html import (
    attested_mark,
    forms_html,
    legend_html,
    paradigm_section,
    stylesheet,
)

if TYPE_CHECKING:  # annotations only
    from inflect.inference.outcomes import Prediction
    from inflect.inference.paradigm import Paradigm

__all__ = ["LOOKUP_CSS", "Lookup", "lookup_page"]

#: The page's own rules (the form and the frame), after the paradigm page's stylesheet.
LOOKUP_CSS = """
form#lookup { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end;
  padding: .6rem 0 .8rem; border-bottom: 1px solid var(--line); }
form#lookup label { display: flex; flex-direction: column; font-size: .85rem; color: var(--dim);
  max-width: 100%; }
form#lookup input, form#lookup select, form#lookup button { font: inherit; font-size: 1rem;
  padding: .3rem .45rem; min-width: 0; }
form#lookup input[name=lemma] { width: 12rem; }
form#lookup input[name=tags] { width: 11rem; }
form#lookup input[name=pos] { width: 5rem; }
form#lookup button { padding: .3rem 1rem; }
.error { color: var(--bad); border-inline-start: 3px solid var(--bad); padding: .2rem .6rem; }
section.lookup .cell { max-width: 40rem; }
section.lookup .cell li { grid-template-columns: minmax(6rem, max-content) 12rem 4rem; }
p.source { color: #0a7ea4; margin: .2rem 0; overflow-wrap: anywhere; }
section.lookup .cell .cert { margin-inline-end: .4rem; }
section.lookup h3 { font-size: 1rem; margin: .8rem 0 .2rem; }
ol.answers { list-style: none; padding: 0; margin: .2rem 0; }
ol.answers li { margin: .15rem 0; }
ol.answers .form { font-size: 1.15rem; font-weight: 600; }
ol.answers .src { display: block; color: #0a7ea4; font-size: .85rem; overflow-wrap: anywhere; }
ol.answers .mp { color: var(--dim); font-size: .85rem; margin-inline-start: .5em; }
.scroll { overflow-x: auto; }
p.links { font-size: .85rem; overflow-wrap: anywhere; }
@media (max-width: 40rem) { body { padding: .6rem .8rem 3rem; }
  form#lookup input[name=lemma], form#lookup input[name=tags] { width: 9rem; } }
"""


@dataclass(frozen=True)
class Lookup:
    """What the page was asked, as typed (``""`` where not given)."""

    lang: str = ""
    lemma: str = ""
    tags: str = ""
    pos: str = ""

    def link(self, **changes: str) -> str:
        """The page's relative URL for this lookup (``?lang=german&lemma=Haus&tags=...``),
        with ``changes``; empty fields left out."""
        fields = {"lang": self.lang, "lemma": self.lemma, "tags": self.tags, "pos": self.pos}
        fields.update(changes)
        return "?" + urlencode({k: v for k, v in fields.items() if v})


def _form(lookup: Lookup, languages: Sequence[tuple[str, str]], pos_choices: Sequence[str]) -> str:
    options = "".join(
        f'<option value="{html_text(name)}"{" selected" if name == lookup.lang else ""}>'
        f"{html_text(display)}</option>"
        for name, display in languages
    )
    choices = "".join(f'<option value="{html_text(p)}">' for p in pos_choices)
    return (
        '<form id="lookup" method="get" action="">'
        f'<label>language<select name="lang">{options}</select></label>'
        f'<label>lemma<input name="lemma" value="{html_text(lookup.lemma)}" required '
        'autocapitalize="off" autocomplete="off" spellcheck="false"></label>'
        f'<label>tag bundle<input name="tags" class="tags" value="{html_text(lookup.tags)}" '
        'placeholder="N;DAT;PL" autocapitalize="off" spellcheck="false"></label>'
        f'<label>or part of speech<input name="pos" value="{html_text(lookup.pos)}" '
        f'list="pos-choices" placeholder="N" autocapitalize="off"></label>'
        f'<datalist id="pos-choices">{choices}</datalist>'
        '<button type="submit">look up</button></form>'
    )


def _attested_html(prediction: Prediction, direction: str) -> str:
    """The answer: each attested form once, its sources and what the model gives it (words, no
    bar: a written form is not a guess to be ranked by the model)."""
    out = ["<h3>attested</h3>", '<ol class="answers">']
    for f in prediction.attested:  # each once: the lexicons merge a form several write
        words = attested_words(f, prediction.forms, prediction.complete)
        out.append(
            f'<li><span class="form"{direction}>{html_text(f.form)}</span>{attested_mark(f)}'
            f'<span class="mp">{html_text(words)}</span>'
            f'<span class="src">{html_text(f.source)}</span></li>'
        )
    out.append("</ol>")
    return "".join(out)


def _prediction_html(prediction: Prediction, lookup: Lookup, rtl: bool, pos: str | None,
                     fold_below: float) -> str:
    cert = prediction.certificate.value
    direction = ' dir="rtl"' if rtl else ""
    out = [
        f'<section class="lookup" id="answer" data-certificate="{cert}" '
        f'data-forms="{len(prediction.forms)}">',
        f"<h2><span{direction}>{html_text(prediction.lemma)}</span> "
        f'<small><span class="tags">{html_text(prediction.tags)}</span> · '
        f"{html_text(prediction.language)}</small></h2>",
    ]
    if prediction.attested:
        out.append(_attested_html(prediction, direction))
    if prediction.conflict:
        out.append(f'<p class="more" id="conflict">{html_text(CONFLICT)}</p>')
    model = html_text(prediction.model or "given by path")
    out += [
        f'<h3>the model\'s distribution <small class="dim">({model})</small></h3>',
        f'<div class="cell answer model"><span class="cert {cert}">{CERTIFICATE_BADGES[cert]}'
        f'</span><span class="dim">{html_text(prediction.certificate_words)}</span>',
    ]
    head, tail = model_shown(prediction.forms, fold_below)
    if not prediction.model_forms:
        out.append('<p class="dim">no form finished</p>')
    elif not head:
        out.append('<p class="dim">the model gives only the attested forms above</p>')
    out.append(forms_html(head, tail, fold_below, rtl))
    out.append("</div>")
    if prediction.attested:
        out.append('<p class="dim">the attested forms are the answer; the model\'s, a guess '
                   "however certain, are listed once (an attested form's row above says what "
                   "the model gives it)</p>")
    for note in prediction.warnings:
        out.append(f'<p class="more">warning: {html_text(note)}</p>')
    if pos:
        link = html_text(lookup.link(tags="", pos=pos))
        out.append(f'<p><a href="{link}" id="paradigm-link">the paradigm of '
                   f"<span{direction}>{html_text(prediction.lemma)}</span> ({html_text(pos)})</a></p>")
    out.append("</section>")
    return "".join(out)


def lookup_page(
    lookup: Lookup,
    languages: Sequence[tuple[str, str]],
    *,
    prediction: Prediction | None = None,
    paradigm: Paradigm | None = None,
    error: str | None = None,
    pos_choices: Sequence[str] = (),
    paradigm_pos: str | None = None,
    rtl: bool = False,
    fold_below: float = defaults.PARADIGM_FOLD_BELOW,
) -> str:
    """The lookup page.

    Args:
        lookup: what was asked (shown in the form, and in the links).
        languages: the language picker's ``(value, shown name)`` pairs, in order.
        prediction: the answer to the lemma and tag bundle, if asked.
        paradigm: the lemma's paradigm, if asked.
        error: a refused lookup's message (shown instead of an answer).
        pos_choices: parts of speech offered for the language.
        paradigm_pos: the part of speech of the tag bundle (a link to its paradigm), or None.
        rtl: the language is written right to left.
        fold_below: forms below this probability are folded.

    Returns:
        The HTML document.
    """
    title = "sparse-inflect"
    if lookup.lemma:
        title = f"{lookup.lemma} {lookup.tags or lookup.pos} ({lookup.lang}) · sparse-inflect"
    parts = [_form(lookup, languages, pos_choices)]
    if error is not None:
        parts.append(f'<p class="error" role="alert">{html_text(error)}</p>')
    if prediction is not None:
        parts.append(_prediction_html(prediction, lookup, rtl, paradigm_pos, fold_below))
    if paradigm is not None:
        parts.append(f'<div class="scroll">{paradigm_section(paradigm, 0, fold_below)}</div>')
    if prediction is not None or paradigm is not None:
        parts.append(legend_html())
        api = "v1/paradigm" if prediction is None else "v1/inflect"
        query = lookup.link(tags="") if prediction is None else lookup.link(pos="")
        parts.append(
            f'<p class="links dim">this lookup: <a href="{html_text(lookup.link())}" '
            f'id="permalink">{html_text(lookup.link())}</a> · as JSON: '
            f'<a href="{html_text(api + query)}">{html_text(api + query)}</a></p>'
        )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'  # no favicon request
        f"<title>{html_text(title)}</title><style>{stylesheet()}{LOOKUP_CSS}</style></head>"
        f'<body><h1>sparse-inflect</h1>{"".join(parts)}'
        '<p class="dim">Every form of nonzero probability, its probability and a certificate '
        'of exact search (sparse-inflect, <a href="openapi.json">the JSON API</a>).</p>'
        "</body></html>\n"
    )
