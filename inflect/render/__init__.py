"""Rendering results, one module per form of output: rich tables for a terminal (:mod:`.tables`);
TSV and the shared task's lines for a pipe (:mod:`.tsv`); JSON Lines (:mod:`.jsonl`: predictions,
translations and paradigm cells); Markdown (:mod:`.markdown`);
the ambiguity report's HTML page with its inlined assets (:mod:`.report_html`, ``assets/``); SVG
pictures and attention maps (:mod:`.figures`); paradigms as a table and TSV
(:mod:`.paradigm`) and as an HTML page (:mod:`.paradigm_html`). :mod:`.common` and
:mod:`.ambiguity_parts` hold what several of them share. User text is rendered verbatim.
"""
