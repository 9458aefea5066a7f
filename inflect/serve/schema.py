"""The JSON API's requests and answers as pydantic models: what FastAPI validates a request body
against and what the OpenAPI schema (``GET /openapi.json``) documents.

The answers are written by :mod:`inflect.render.jsonl` (one record per input, exactly the line
``inflect predict --format jsonl`` writes; a paradigm's cells as ``inflect paradigm --format
jsonl`` writes them); the answer models here describe those records for the schema.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from inflect import defaults
from inflect.text.dialects import TagFormat

__all__ = [
    "TAG_FORMAT_HELP",
    "CellRecord",
    "ErrorAnswer",
    "FormRecord",
    "Health",
    "InflectAnswer",
    "InflectInput",
    "InflectRequest",
    "Live",
    "ModelInfo",
    "ModelsAnswer",
    "ParadigmAnswer",
    "PredictionRecord",
]

_TEXT = defaults.SERVE_MAX_TEXT_CHARS
#: What ``siblings`` means, in the schema of ``GET`` and ``POST /v1/inflect``.
SIBLINGS_HELP = (
    "Re-rank the model's forms by the lemma's other forms in the lexicons (inflect predict "
    "--siblings): auto, where the shipped model's dev accuracy gained from it; on; off. The "
    "probabilities and the certificate stay the model's."
)
#: The choices of ``siblings`` (:data:`inflect.inference.siblings.SIBLINGS_CHOICES`).
Siblings = Literal["auto", "on", "off"]
#: What ``tag_format`` means, in the schema of ``GET`` and ``POST /v1/inflect``.
TAG_FORMAT_HELP = (
    "The dialect of the tags, as inflect predict --tag-format: unimorph, the 2018 data's "
    "bundles (N;DAT;PL); unimorph4, UniMorph 4's layered features (N;DAT(PL)); ud, Universal "
    "Dependencies' UPOS|Name=Value|... (NOUN|Case=Dat|Number=Plur); auto: each input's, a '=' "
    "or '|' meaning UD and a layer NAME(...) UniMorph 4."
)


class InflectInput(BaseModel):
    """One input: a lemma and its tags (and its language, where the request's ``lang`` is not
    it). The tags in any dialect, told apart by their look unless the request's ``tag_format``
    names one: UniMorph (``N;DAT;PL``), UniMorph 4 (``N;DAT(PL)``) or Universal Dependencies
    (``NOUN|Case=Dat|Number=Plur``)."""

    model_config = ConfigDict(extra="forbid")
    lemma: str = Field(min_length=1, max_length=_TEXT, examples=["Haus"])
    tags: str = Field(min_length=1, max_length=_TEXT,
                      examples=["N;DAT;PL", "N;DAT(PL)", "NOUN|Case=Dat|Number=Plur"])
    lang: str | None = Field(None, max_length=100, description="Overrides the request's lang.")


class InflectRequest(BaseModel):
    """``POST /v1/inflect``: inputs and ``inflect predict``'s options."""

    model_config = ConfigDict(extra="forbid")
    lang: str | None = Field(
        None, max_length=100, examples=["german"],
        description="Language of the inputs without their own: any name or code (german, de, "
        "deu).",
    )
    inputs: list[InflectInput] = Field(min_length=1, description="At most the service's "
                                       "--max-inputs (default 1000).")
    beam: int = Field(defaults.BEAM_SIZE, ge=1, le=defaults.MAX_BEAM_SIZE, description="Beam size k.")
    support: Literal["auto", "always", "never"] = Field(
        "auto", description="auto widens the beam where the support is not certified; always "
        "enumerates it best-first; never keeps the beam's n-best."
    )
    max_forms: int = Field(defaults.MAX_FORMS, ge=1, le=defaults.MAX_FORMS_LIMIT,
                           description="Forms listed per input at most.")
    lexicon: list[str] | None = Field(
        None, description="Names of the service's lexicons to consult, in order (GET "
        "/v1/models lists them); default: all of them, as inflect predict does."
    )
    no_lexicon: bool = Field(False, description="The model alone: no attested forms.")
    tag_format: TagFormat = Field("auto", description=TAG_FORMAT_HELP)
    siblings: Siblings = Field("auto", description=SIBLINGS_HELP)


class FormRecord(BaseModel):
    form: str
    probability: float
    source: str = Field(description="'model', or where the form is attested.")
    attested: bool


class PredictionRecord(BaseModel):
    """One input's answer: the record ``inflect predict --format jsonl`` writes."""

    lemma: str
    tags: str = Field(description="The tags as written (UniMorph, UniMorph 4 or UD).")
    asked: str = Field(description="The language's tag bundle the tags were read as.")
    language: str
    forms: list[FormRecord]
    certificate: Literal["full_support", "mode_only", "none"]
    certificate_words: str
    complete: bool
    more_than: int | None
    beam_certificate: Literal["full_support", "mode_only", "none"]
    method: Literal["beam", "support"]
    length_limit: int | None
    warnings: list[str]
    conflict: bool = Field(False, description="The sources of the attested forms disagree "
                           "(two lexicons that hold the input share no form).")
    source: str | None
    line: int | None
    model: str | None = Field(description="The shipped model that answered.")


class InflectAnswer(BaseModel):
    """``POST /v1/inflect``'s answer: one record per input, in order."""

    results: list[PredictionRecord]


class CellRecord(BaseModel):
    """One cell: the record ``inflect paradigm --format jsonl`` writes."""

    lemma: str
    language: str
    pos: str
    tags: str
    features: list[str]
    block: list[str]
    row: str
    column: str
    certificate: Literal["full_support", "mode_only", "none"]
    certificate_words: str
    complete: bool
    uncertain: bool
    more_than: int | None
    forms: list[FormRecord]  # one shape with a prediction's forms
    conflict: bool = Field(False, description="The sources of the attested forms disagree.")
    warnings: list[str]
    cells_from: str
    input: str | None


class ParadigmAnswer(BaseModel):
    """``GET /v1/paradigm``'s answer: the paradigm and its cells in reading order."""

    lemma: str
    language: str
    pos: str
    model: str | None
    cells_from: str
    warnings: list[str]
    cells: list[CellRecord]


class ModelInfo(BaseModel):
    language: str
    model: str
    setting: str
    dev_accuracy: float | None
    loaded: bool


class ModelsAnswer(BaseModel):
    """``GET /v1/models``: each language's model, what is loaded, the lexicons offered."""

    models: list[ModelInfo]
    loaded: list[str]
    max_models: int
    lexicons: list[str]


class Health(BaseModel):
    """``GET /healthz``: 200 while the service takes more work, 503 (with ``Retry-After``)
    while its queue is over a limit or it is stopping."""

    status: Literal["ok", "busy", "stopping"]
    ready: bool = Field(description="False: send elsewhere (a load balancer's readiness).")
    loaded: list[str]
    waiting: int = Field(description="Inputs queued for the search.")
    searching: int = Field(description="Inputs of the batch being searched.")
    batches: int = Field(description="Batches taken for the search since the start.")
    searched: int = Field(description="Inputs searched since the start.")
    queued_seconds: float = Field(description="Expected seconds of the work queued (measured "
                                  "costs: the search and the lexicon lookups).")
    max_queue: int = Field(description="Inputs waiting at most (--max-queue).")
    max_wait: float = Field(description="Seconds a request may expect to wait (--max-wait).")


class Live(BaseModel):
    """``GET /livez``: the process serves."""

    status: Literal["alive"]


class ErrorAnswer(BaseModel):
    """A refused request: what is wrong, the field at fault and the value given."""

    error: str
    field: str | None
    value: str | int | float | bool | None
