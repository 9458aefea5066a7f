"""Answers: the forms found for one input, what is certain about them, and the records made of
them.

A :class:`Form` is one form with its probability (and, for an attested form, where it is
written). An :class:`Outcome` is what the search found for one input: the forms, most probable
first, and the :class:`~inflect.decoding.Certificate` that says what is certain about the
list (the whole support, the mode only, or neither; :attr:`Outcome.certificate_words` says it in
words, with the "more than N" and length-limit notes). A :class:`Record` adds the input's
warnings and line; :class:`Prediction` is the record of an inflection input
(:class:`inflect.inference.translator.Translation` that of a sentence), :class:`ErrorRecord` the
record of an input that got no answer. Every record gives a JSON-able dict (``to_dict``: one JSON
Lines record).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from inflect.decoding.protocol import Certificate

__all__ = ["MODEL_SOURCE", "ErrorRecord", "Form", "Outcome", "Prediction", "Record"]

#: How TSV and JSON Lines name the source of a form of the model's distribution.
MODEL_SOURCE = "model"


class Form(NamedTuple):
    """One form of an answer.

    Attributes:
        form: the form as text.
        probability: its probability under the model (or the ensemble's average). For an
            attested form, the model's probability of the same text where the model lists it,
            else 0.0 (the model's own row follows in the answer either way).
        source: None for a form of the model's distribution; for an attested form, where it is
            written (``FILE:LINE``, or ``shared-task data (english-train-high:8920)``: see
            :class:`inflect.lexicon.Attestation`).
    """

    form: str
    probability: float
    source: str | None = None

    @property
    def attested(self) -> bool:
        """True for a form of a lexicon (not of the model's distribution)."""
        return self.source is not None

    def to_dict(self) -> dict[str, Any]:
        """The form as every JSON record writes it (a prediction's forms, a paradigm cell's):
        ``form``, ``probability``, ``source`` (:data:`MODEL_SOURCE` for the model's, else where
        it is attested) and ``attested`` (bool)."""
        return {"form": self.form, "probability": self.probability,
                "source": self.source or MODEL_SOURCE, "attested": self.attested}


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What the search found for one input (the part every record shares).

    Attributes:
        forms: the answer. First the attested forms, when a lexicon holds the input
            (:attr:`Form.source` set, in the lexicon's order; see
            :class:`~inflect.inference.predictor.Predictor`); then the model's output strings as
            text, most probable first, each with its probability (the product of the step
            probabilities; token sequences that spell the same text are merged, their probabilities
            added). :attr:`model_forms` and :attr:`attested` give the two parts; ``certificate``,
            ``more_than`` and :attr:`mass` are the model's.
        certificate: what is certain about ``forms``: :attr:`Certificate.FULL_SUPPORT` — it is
            every output of nonzero probability (so the probabilities sum to 1 up to float
            error); :attr:`Certificate.MODE_ONLY` — its first entry is the most probable output,
            the list may be incomplete; :attr:`Certificate.NONE` — neither is certain.
        more_than: N when more than N outputs have nonzero probability and only the N most
            probable are listed (the cap), else None.
        beam_certificate: the certificate of the first beam search alone (beam k).
        method: ``"beam"`` (the list is the beam's n-best list) or ``"support"`` (it comes from
            support enumeration).
        length_limit: N when the search stopped at the input's output length limit of N symbols
            (a continuation of nonzero probability was cut there: a longer form may exist),
            else None. The limit is the input's own (:func:`inflect.nn.lengths.output_limit`).
    """

    forms: tuple[Form, ...]
    certificate: Certificate
    more_than: int | None
    beam_certificate: Certificate
    method: str
    length_limit: int | None = None

    @property
    def complete(self) -> bool:
        """True when ``forms`` is the whole support."""
        return self.certificate is Certificate.FULL_SUPPORT

    @property
    def best(self) -> Form | None:
        """The first form of the answer: the first attested form, else the most probable output
        found; None when there is neither."""
        return self.forms[0] if self.forms else None

    @property
    def attested(self) -> tuple[Form, ...]:
        """The attested forms of the answer (empty when no lexicon holds the input)."""
        return tuple(f for f in self.forms if f.source is not None)

    @property
    def model_forms(self) -> tuple[Form, ...]:
        """The model's distribution: the forms that are not attested, most probable first."""
        return tuple(f for f in self.forms if f.source is None)

    @property
    def model_best(self) -> Form | None:
        """The most probable output of the model, or None when the search finished none."""
        return next((f for f in self.forms if f.source is None), None)

    @property
    def certificate_words(self) -> str:
        """The certificate in words, with the "more than N" note and, where the search stopped
        at the input's output length limit, that note."""
        words = self.certificate.description
        if self.more_than is not None:
            words += f"; more than {self.more_than} forms have nonzero probability, the "
            words += f"{self.more_than} most probable are listed"
        if self.length_limit is not None:
            words += f"; the search stopped at the length limit of {self.length_limit} symbols"
            words += " (a longer form of nonzero probability was cut)"
        return words

    @property
    def mass(self) -> float:
        """The sum of the probabilities the model's distribution lists."""
        return math.fsum(f.probability for f in self.forms if f.source is None)

    def outcome(self) -> dict[str, Any]:
        """The :class:`Outcome` fields by name (to make a record of an outcome)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(Outcome)}


@dataclass(frozen=True, kw_only=True)
class Record(Outcome):
    """An :class:`Outcome` with what every record adds (:class:`Prediction`,
    :class:`~inflect.inference.translator.Translation`).

    Attributes:
        warnings: e.g. symbols unseen in training.
        line: the input's line in its file, or None.
    """

    warnings: tuple[str, ...] = ()
    line: int | None = None

    def _outcome_dict(self) -> dict[str, Any]:
        return {
            "forms": [f.to_dict() for f in self.forms],
            "certificate": self.certificate.value,
            "certificate_words": self.certificate_words,
            "complete": self.complete,
            "more_than": self.more_than,
            "beam_certificate": self.beam_certificate.value,
            "method": self.method,
            "length_limit": self.length_limit,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class Prediction(Record):
    """The result for one inflection input: ``Prediction(lemma, tags, language, source,
    forms=..., certificate=..., ...)``.

    Attributes:
        lemma: the lemma as given.
        tags: the tags as written (any dialect: ``N;DAT;PL``, ``N;DAT(PL)``,
            ``NOUN|Case=Dat|Number=Plur``).
        language: shared-task name of the language.
        source: the input's file, or None.
        model: the name of the shipped model that answered (``inflect models``; e.g.
            ``"finnish-high"``), or None for checkpoints given by path.
        asked: the tag bundle the model and the lexicons were asked (the language's 2018
            bundle the tags were read as, :mod:`inflect.text.dialects`); None: ``tags``.
        conflict: True where the sources of the attested forms disagree (two lexicons that
            hold the input share no form: lemminflect's ``said``, the shared-task data's
            ``sayed``; :class:`inflect.lexicon.Consultation`); both are listed, the earlier
            lexicon's first.
        forms, certificate, more_than, beam_certificate, method: see :class:`Outcome`;
            warnings, line: see :class:`Record`.
    """

    lemma: str
    tags: str
    language: str
    source: str | None = None
    model: str | None = None
    asked: str | None = None
    conflict: bool = False

    @property
    def inputs(self) -> tuple[str, str, str]:
        """``(lemma, tags, language)``: the input as rendered (TSV columns, titles)."""
        return self.lemma, self.tags, self.language

    @property
    def asked_tags(self) -> str:
        """The tag bundle asked (``tags`` where they were read as written)."""
        return self.asked or self.tags

    @property
    def where(self) -> str | None:
        """``FILE:LINE`` of the input, or None."""
        return None if self.source is None else f"{self.source}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (one JSON Lines record)."""
        return {
            "lemma": self.lemma,
            "tags": self.tags,
            "asked": self.asked_tags,
            "language": self.language,
            **self._outcome_dict(),
            "conflict": self.conflict,
            "source": self.source,
            "line": self.line,
            "model": self.model,
        }


@dataclass(frozen=True)
class ErrorRecord:
    """An input that got no answer: a line that could not be read, or an input the model cannot
    take (empty lemma, too long, a language it does not know). It takes the input's place in the
    output stream (:meth:`inflect.inference.searcher.Searcher.stream`), and the stream goes on.

    Attributes:
        message: what is wrong, ``FILE:LINE: what (value)`` where the input came from a file.
        source: the input's file, or None.
        line: its 1-based line number, or None.
        lemma, tags, language: the input's fields where it was read, else None.
    """

    message: str
    source: str | None = None
    line: int | None = None
    lemma: str | None = None
    tags: str | None = None
    language: str | None = None
    warnings: tuple[str, ...] = ()

    @classmethod
    def of(cls, error: Exception, query: Any = None) -> ErrorRecord:
        """The record of ``error`` (an :class:`~inflect.inference.queries.InputError`, a
        :class:`~inflect.text.records.DataFormatError`, an unknown language) for ``query`` (the
        input, where it was read)."""
        source = getattr(error, "source", None) or getattr(query, "source", None)
        line = getattr(error, "line", None) or getattr(query, "line", None)
        message = str(error)
        if source is not None and not message.startswith(f"{source}:"):
            message = f"{source}:{line}: {message}" if line is not None else f"{source}: {message}"
        tags = getattr(query, "tags", None)
        return cls(
            message,
            source,
            line,
            getattr(query, "lemma", None),
            getattr(tags, "text", tags),
            getattr(query, "language", None) or None,
        )

    @property
    def where(self) -> str | None:
        """``FILE:LINE`` of the input, or None."""
        return None if self.source is None else f"{self.source}:{self.line}"

    @property
    def inputs(self) -> tuple[str, str, str]:
        """``(lemma, tags, language)`` as far as they are known (``""`` otherwise)."""
        return self.lemma or "", self.tags or "", self.language or ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (one JSON Lines record): ``error`` and where it was."""
        return {
            "error": self.message,
            "lemma": self.lemma,
            "tags": self.tags,
            "language": self.language,
            "source": self.source,
            "line": self.line,
        }

