"""Markdown: a DataFrame as a table (the recipes' result tables) and the ambiguity report as text
(the content of its HTML page). User text is escaped so that no renderer reads it as markup or
HTML (:func:`_md_text`). Rendering only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from inflect.render.ambiguity_parts import (
    SIZE_CLASSES,
    forms_text,
    size_class,
    split_tail,
    summary_lines,
    tail_summary,
)

if TYPE_CHECKING:  # annotations only
    import pandas as pd

    from inflect.evaluation.ambiguity import AmbiguityReport


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_text(text: str) -> str:
    """User text for Markdown: table-cell escapes, ``<``/``&`` as entities so that no renderer
    reads it as HTML, and backslashes before the emphasis, code and link characters."""
    text = _md_cell(text).replace("&", "&amp;").replace("<", "&lt;")
    for char in "`*_[]":
        text = text.replace(char, "\\" + char)
    return text


def _md_forms(forms: Sequence[tuple[str, float]], gold: str | None) -> str:
    """``form (p), ...`` with the gold form in bold."""
    return ", ".join(
        (f"**{_md_text(f)}**" if g else _md_text(f)) + f" ({p})"
        for f, p, g in forms_text(forms, gold)
    )


def markdown_slug(heading: str, seen: dict[str, int]) -> str:
    """The anchor a Markdown renderer gives a heading, as GitHub does: lower case, characters
    other than letters, digits, ``-``, ``_`` and spaces removed, spaces as ``-``; a repeated slug
    gets ``-1``, ``-2``, ... (``seen`` counts them)."""
    import re

    slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def frame_markdown(frame: pd.DataFrame, digits: int = 2) -> str:
    """A DataFrame as a Markdown table: floats at ``digits`` decimals, NaN as an em dash, ``|``
    escaped."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            return "—" if value != value else f"{value:.{digits}f}"
        return _md_cell(str(value))

    lines = [
        "| " + " | ".join(_md_cell(str(c)) for c in frame.columns) + " |",
        "|" + "|".join("---" if i < 2 else "---:" for i in range(len(frame.columns))) + "|",
    ]
    lines += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines) + "\n"


def ambiguity_markdown(
    report: AmbiguityReport,
    title: str = "Ambiguity report",
    about: dict[str, str] | None = None,
) -> str:
    """The ambiguity report as Markdown, the content of the HTML report as text: the ``about``
    lines and summary; the forms per input by tag bundle as a table (the HTML chart's figures);
    contents linking to each tag bundle; one table per tag bundle (lemma; forms with
    probabilities, the gold form in bold, the folded tail of the HTML report after its "+ N
    forms below 0.1 %" line; gold; gold in support; number of forms; entropy in bits; certificate).
    Attention maps are left to the HTML report and ``inflect explain``."""
    lines = [f"# {_md_text(title)}", ""]
    if about:
        lines += [f"- {_md_text(k)}: {_md_text(v)}" for k, v in about.items()]
        lines.append("")
    lines += [f"- {line}" for line in summary_lines(report)]
    if report.bundles:
        lines += [
            "",
            "Forms of nonzero probability per input, by tag bundle (inputs):",
            "",
            "| tag bundle | inputs | ambiguous | "
            + " | ".join(label for label, _, _ in SIZE_CLASSES)
            + " |",
            "|---|" + "---:|" * (2 + len(SIZE_CLASSES)),
        ]
        for bundle in report.bundles:
            counts = [0] * len(SIZE_CLASSES)
            for size, n in bundle.sizes.items():
                counts[size_class(size)] += n
            lines.append(
                f"| {_md_text(bundle.tags)} | {bundle.inputs:,} | {bundle.ambiguous:,} | "
                + " | ".join(f"{n:,}" if n else "" for n in counts)
                + " |"
            )
    seen: dict[str, int] = {}
    headings = [f"{group.tags} ({len(group.inputs)} of {group.total})" for group in report.groups]
    slugs = [markdown_slug(h, seen) for h in headings]
    if report.groups:
        lines += ["", "Contents:", ""]
        lines += [
            f"- [{_md_text(g.tags)}](#{slug}): {len(g.inputs):,} ambiguous of {g.total:,}"
            for g, slug in zip(report.groups, slugs, strict=True)
        ]
    for group, heading in zip(report.groups, headings, strict=True):
        lines += [
            "",
            f"## {_md_text(heading)}",
            "",
            "| lemma | forms (probability) | gold | gold in support | forms | "
            "entropy (bits) | certificate |",
            "|---|---|---|---|---:|---:|---|",
        ]
        for item in group.inputs:
            head, tail = split_tail(item.forms)
            forms = _md_forms(head, item.gold)
            if tail:
                forms += f"; {tail_summary(tail, item.gold)}: {_md_forms(tail, item.gold)}"
            if item.attested:
                forms += "; attested: " + ", ".join(
                    f"{_md_text(form)} ({_md_text(source)})" for form, source in item.attested
                )
            hit = {None: "—", True: "yes", False: "no"}[item.gold_in_support]
            count = (
                f"more than {item.more_than}"
                if item.more_than is not None
                else f"{len(item.forms)}"
            )
            lines.append(
                f"| {_md_text(item.lemma)} | {forms} | {_md_text(item.gold or '—')} "
                f"| {hit} | {count} | {item.entropy:.2f} | "
                f"{item.certificate.replace('_', ' ')} |"
            )
    return "\n".join(lines) + "\n"
