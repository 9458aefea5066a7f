"""Rendering results: terminal tables, TSV and Markdown (:mod:`.report`), the HTML reports with
their inlined assets (:mod:`.report_html`, :mod:`.paradigm_html`, ``assets/``), and paradigm tables
(:mod:`.paradigm`). User text is rendered verbatim.
"""
