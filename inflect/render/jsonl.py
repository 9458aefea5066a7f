"""JSON Lines: one JSON object a line, what ``--format jsonl`` prints (``inflect predict``,
``inflect translate``, ``inflect paradigm``) and what a service answers with. Rendering only: each
record is the dict its type gives (:meth:`inflect.inference.predictor.Prediction.to_dict`) or the
one built here from a paradigm's cell; user text is written verbatim (``ensure_ascii=False``),
floats by Python's shortest round-trip ``repr``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only
    from inflect.inference.outcomes import Record
    from inflect.inference.paradigm import Cell, Paradigm

__all__ = ["cell_dict", "paradigm_jsonl", "prediction_jsonl"]


def prediction_jsonl(pred: Record) -> str:
    """One prediction (or translation, or error record) as one JSON Lines record (no newline):
    its ``to_dict()``."""
    return json.dumps(pred.to_dict(), ensure_ascii=False)


def cell_dict(paradigm: Paradigm, cell: Cell) -> dict[str, Any]:
    """One cell as a JSON-able dict (one JSON Lines record of :func:`paradigm_jsonl`): ``lemma``,
    ``language``, ``pos``, ``tags``, ``features`` (dimension order), ``block`` (list), ``row``,
    ``column``, ``certificate``, ``certificate_words``, ``complete``, ``uncertain``,
    ``more_than``, ``forms`` (:meth:`inflect.inference.outcomes.Form.to_dict`, as a prediction's:
    ``form``, ``probability``, ``source``: ``model`` or where it is attested, ``attested``),
    ``conflict`` (the sources of its attested forms disagree), ``warnings``, ``cells_from`` and
    ``input`` (``FILE:LINE`` of an ``--input`` line, or null)."""
    return {
        "lemma": paradigm.lemma,
        "language": paradigm.language,
        "pos": paradigm.part_of_speech,
        "tags": cell.tags,
        "features": list(cell.features),
        "block": list(cell.block),
        "row": cell.row,
        "column": cell.column,
        "certificate": cell.certificate.value,
        "certificate_words": cell.certificate.description,
        "complete": cell.complete,
        "uncertain": cell.uncertain,
        "more_than": cell.more_than,
        "forms": [f.to_dict() for f in cell.forms],  # one shape with predict's records
        "conflict": cell.conflict,
        "warnings": list(cell.warnings),
        "cells_from": paradigm.cells_from,
        "input": paradigm.where,
    }


def paradigm_jsonl(paradigm: Paradigm) -> str:
    """A paradigm as JSON Lines (no final newline): one :func:`cell_dict` a line, in reading
    order."""
    return "\n".join(json.dumps(cell_dict(paradigm, c), ensure_ascii=False) for c in paradigm.cells)
