"""What every renderer shares: how a number is written (a probability, a share in percent, a size
in bytes), a renderable that shows the widest layout the terminal holds, HTML escaping, the words
of a certificate's badge, the answer-first split of a record's forms (:func:`model_shown`,
:func:`attested_words`), and the attention panels of an explanation. Rendering only.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only
    from collections.abc import Sequence

    from inflect.inference.explain import AttentionPanel, Explanation
    from inflect.inference.outcomes import Form

#: A certificate's words on an HTML badge (:class:`inflect.decoding.Certificate` values).
CERTIFICATE_BADGES = {
    "full_support": "full support",
    "mode_only": "mode only",
    "none": "not certified",
}


def model_shown(
    forms: Sequence[Form], fold_below: float
) -> tuple[tuple[Form, ...], tuple[Form, ...]]:
    """The model's distribution as shown under the answer: its forms (those without a source)
    but the texts an attested form already shows (that form's row says what the model gives
    it: each form once), most probable first; the first always, then those of probability at
    least ``fold_below``; and the folded tail (the rest)."""
    said = {f.form for f in forms if f.attested}
    model = [f for f in forms if not f.attested and f.form not in said]
    head = tuple(f for k, f in enumerate(model) if k == 0 or f.probability >= fold_below)
    return head, tuple(model[len(head) :])


def attested_words(form: Form, forms: Sequence[Form], complete: bool) -> str:
    """What the model gives an attested ``form``, in words: ``"model: 0.0812"`` where its
    distribution (``forms``) lists the text, ``"model: 0"`` where it does not and the list is
    the whole support (``complete``: the model gives it no probability), else ``"model: not
    found"``."""
    if any(not f.attested and f.form == form.form for f in forms):
        return f"model: {probability_text(form.probability)}"
    return "model: 0" if complete else "model: not found"


def human_size(size: int) -> str:
    """Bytes as a short human-readable text (``1.5 MB``), decimal units."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def probability_text(p: float) -> str:
    """A probability for a table: 4 decimals, or 2 significant digits below 10^-4."""
    return f"{p:.4f}" if p >= 1e-4 or p == 0 else f"{p:.1e}"


def percent_text(value: float) -> str:
    """A share in [0, 1] as percent at 1 decimal (``0.125`` -> ``12.5``), a dash for NaN."""
    return "—" if value != value else f"{100.0 * value:.1f}"


def is_error(pred: Any) -> bool:
    """True for an :class:`inflect.inference.outcomes.ErrorRecord` (an input that got no answer)."""
    return hasattr(pred, "message") and not hasattr(pred, "forms")


class Fitted:
    """A renderable that shows the first of ``layouts`` whose natural width (nothing wrapped
    or cut) fits the console, else the last (which must fit any width)."""

    def __init__(self, *layouts: Any) -> None:
        self.layouts = layouts

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        for layout in self.layouts[:-1]:
            wide = options.update(width=1_000_000)  # Measurement.get clamps to the width
            if Measurement.get(console, wide, layout).maximum <= options.max_width:
                yield layout
                return
        yield self.layouts[-1]


def html_text(text: object) -> str:
    """``str(text)`` escaped for HTML or SVG text and attribute values (``&``, ``<``, ``>``,
    ``"`` and ``'``)."""
    return escape(str(text), quote=True)


def attention_panels(explanation: Explanation) -> list[AttentionPanel]:
    """The explanation's panels (one per string, most probable first), or the best string alone
    where it has none (its form and probability, the explanation's target and attention)."""
    from inflect.inference.explain import AttentionPanel

    best = explanation.prediction.best
    return list(explanation.panels) or [
        AttentionPanel(
            best.form if best else "",
            best.probability if best else float("nan"),
            explanation.target,
            explanation.attention,
        )
    ]
