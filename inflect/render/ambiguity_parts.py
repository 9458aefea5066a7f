"""The parts of an ambiguity report (:class:`inflect.evaluation.ambiguity.AmbiguityReport`) that
its terminal, Markdown and HTML renderings share: the summary lines, an input's forms with their
probabilities as shown, the folded tail of improbable forms, and the classes of the number of forms
per input. Rendering only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from inflect.render.common import percent_text, probability_text

if TYPE_CHECKING:  # annotations only
    from inflect.evaluation.ambiguity import AmbiguityReport


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


def size_class(size: int) -> int:
    """The index in :data:`SIZE_CLASSES` of the class holding ``size`` forms."""
    return next(i for i, (_, low, high) in enumerate(SIZE_CLASSES) if low <= size <= high)


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
    count, largest = len(tail), max(p for _, p in tail)
    total = probability_text(math.fsum(p for _, p in tail))
    plural = "s" if count != 1 else ""
    if largest < TAIL_BELOW:
        words = f"+ {count:,} form{plural} below {100 * TAIL_BELOW:g} % (together {total})"
    else:
        words = f"+ {count:,} more form{plural}, each {probability_text(largest)} or less "
        words += f"(together {total})"
    return words + (", the gold form among them" if any(f == gold for f, _ in tail) else "")


def forms_text(
    forms: Sequence[tuple[str, float]], gold: str | None
) -> list[tuple[str, str, bool]]:
    """``(form, probability as shown, is the gold form)`` of each of ``forms``, in order."""
    return [(form, probability_text(p), form == gold) for form, p in forms]


def summary_lines(report: AmbiguityReport) -> list[str]:
    """The report's summary as lines of text: inputs (and rejected ones), ambiguous inputs and
    their share, tag bundles with ambiguous inputs, certificates, the gold form in the support,
    lists not certified complete."""
    lines = [
        f"inputs: {report.inputs:,}"
        + (
            f" (and {report.rejected:,} rejected: the model cannot take them)"
            if report.rejected
            else ""
        ),
        f"ambiguous (more than one nonzero-probability form): {report.ambiguous:,} "
        f"({percent_text(report.ambiguous_share)} %)",
        f"tag bundles with ambiguous inputs: {len(report.groups):,}",
    ]
    if report.inputs:
        none = report.inputs - report.full_support - report.mode_only
        lines.append(
            f"certified full support: {report.full_support:,} of {report.inputs:,} "
            f"inputs ({percent_text(report.full_support / report.inputs)} %); mode only: "
            f"{report.mode_only:,}; not certified: {none:,}"
        )
    if report.with_gold:
        lines.append(
            f"gold form in the support: {report.gold_in_support:,} of "
            f"{report.with_gold:,} ambiguous inputs with gold "
            f"({percent_text(report.gold_in_support / report.with_gold)} %)"
        )
    if report.incomplete:
        lines.append(f"not certified full support (list may be incomplete): {report.incomplete:,}")
    return lines
