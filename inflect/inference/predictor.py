"""Prediction: lemma + UniMorph tag bundle + language -> every form of nonzero probability.

The path of one input (a *query*, an :class:`inflect.text.records.Example` whose form is ignored):

1. the language: any name or code (:func:`inflect.text.languages.resolve`), checked against the
   languages the model was trained on; left empty, the model's only language;
2. the lemma: text -> model symbols by the language's codec (:class:`inflect.text.codec.CharCodec`:
   the data's normalisation, then the spec's symbols); a symbol unseen in training becomes the
   unknown symbol, with one warning (kept in the record);
3. the tag bundle: a multiset of UniMorph features, each of which the model must know;
4. symbols -> ids, once per chunk of inputs (:mod:`inflect.nn.batching`), and one encoder pass per
   chunk (:func:`inflect.decoding.encode`) that every search of the chunk shares;
5. search: :func:`inflect.decoding.beam_search` (beam k = 5 by default) with its certificate. A
   full-support beam already *is* the support (Peters, Niculae & Martins 2019, "Sparse
   Sequence-to-Sequence Models", ACL, §5), so it needs no second search. Where the certificate is
   not full support and the output mapping is sparse (α > 1), those inputs are searched again,
   together, with wider beams (4k, 16k, ... up to ``max_beam``, 20 by default) until the beam
   holds the whole support: batched beam search is far cheaper than a best-first enumeration,
   and a beam wider than the support prunes nothing. On request (``support="always"``),
   :func:`inflect.decoding.enumerate_support` lists the strings of nonzero probability best-first
   instead (exact order up to the cap, "more than N" beyond it);
6. output ids -> symbols (:func:`inflect.nn.batching.output_symbols`: unknown symbols replaced by the
   source symbol of highest attention at their step) -> text by the same codec.
7. attested forms (:class:`Predictor` with ``lexicons``, :mod:`inflect.lexicon`): the forms a
   lexicon holds for the input lead the record, marked with their source; the model's forms
   follow.

Several checkpoints form an :class:`inflect.decoding.Ensemble` (probabilities averaged at each step;
the members must share the target vocabulary). With no checkpoint, the shipped default model of
the language is used (:mod:`inflect.inference.registry`).

Steps 4-6 are :class:`Searcher`, which translation (:mod:`inflect.inference.translator`) shares: only the
inputs (:meth:`Searcher.prepare`) and the records differ. Results are :class:`Prediction` records,
one per input, in input order. :meth:`Searcher.stream` processes its inputs in chunks and yields
each chunk's records before it reads further than the chunk, so a malformed line later in a file
raises only after every record before it was yielded.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import torch

from inflect import defaults
from inflect.decoding.beam import beam_search
from inflect.decoding.ensemble import Ensemble, MemberBatches
from inflect.decoding.forced import teacher_forced
from inflect.decoding.protocol import (
    Certificate,
    Encoded,
    Hypothesis,
    SearchResult,
    SupportResult,
    encode,
)
from inflect.decoding.support import enumerate_support
from inflect.inference.streaming import IDLE, with_idle_marks
from inflect.lexicon import Lexicon, Lexicons
from inflect.nn.batching import Vocabularies, make_batch, output_symbols
from inflect.nn.checkpoint import LoadedModel, checkpoint_members, load_checkpoint
from inflect.nn.config import COPY_FEATURE
from inflect.nn.lengths import output_limit
from inflect.nn.vocab import UNK_ID, UnknownSymbolWarning
from inflect.sparse import get_mapping
from inflect.text.codec import CharCodec, Codec
from inflect.text.languages import UnknownLanguageError, resolve
from inflect.text.records import (
    DataFormatError,
    Example,
    Format,
    TagBundle,
    control_problem,
    iter_examples,
    quoted,
)

__all__ = [
    "MAX_INPUT_LEN",
    "MODEL_SOURCE",
    "ErrorRecord",
    "Form",
    "InputError",
    "Outcome",
    "Prediction",
    "Predictor",
    "Prepared",
    "Record",
    "Searched",
    "Searcher",
    "SupportMode",
    "load_predictor",
    "make_query",
    "read_queries",
]

#: The longest lemma, in model symbols, that the predictor accepts. The network itself has no
#: length limit; the cap bounds the search (each input's outputs are limited by
#: :func:`inflect.nn.lengths.output_limit`) and the memory of one batch.
MAX_INPUT_LEN = 100

#: ``"auto"``: where the beam is not certified full support and the output mapping is sparse,
#: widen the beam (x4 at a time, up to ``max_beam`` and ``max_forms``) until it is; ``"always"``:
#: enumerate the support best-first (:func:`inflect.decoding.enumerate_support`) for every input;
#: ``"never"``: the beam's n-best list only.
SupportMode = Literal["auto", "always", "never"]


def _with_hint(feature: str, known: Iterable[str]) -> str:
    """``'nom'`` → ``"'nom' (did you mean 'NOM'?)"``: the known feature equal up to case, else the
    closest by :func:`difflib.get_close_matches` (cutoff 0.75); the bare quoted name if none."""
    import difflib

    known = sorted(known)
    match = next((k for k in known if k.casefold() == feature.casefold()), None)
    if match is None:
        close = difflib.get_close_matches(feature, known, n=1, cutoff=0.75)
        match = close[0] if close else None
    name = quoted(feature, 40)
    return f"{name} (did you mean {match!r}?)" if match else name


class InputError(ValueError):
    """A query the model cannot take: empty lemma, unknown feature, too long, unknown language.

    The message reads ``FILE:LINE: what (value)`` for an input read from a file, ``what (value)``
    otherwise; the parts are attributes.

    Attributes:
        what: what is wrong, in words.
        value: the offending text, or None.
        source: the file the input came from, or None.
        line: its 1-based line number, or None.
    """

    def __init__(
        self,
        what: str,
        value: str | None = None,
        source: str | None = None,
        line: int | None = None,
    ) -> None:
        self.what, self.value, self.source, self.line = what, value, source, line
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        shown = f" ({quoted(value)})" if value is not None else ""
        super().__init__(f"{where}{what}{shown}")


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


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What the search found for one input (the part every record shares).

    Attributes:
        forms: the answer. First the attested forms, when a lexicon holds the input
            (:attr:`Form.source` set, in the lexicon's order; see :class:`Predictor`); then the
            model's output strings as text, most probable first, each with its probability (the
            product of the step probabilities; token sequences that spell the same text are
            merged, their probabilities added). :attr:`model_forms` and :attr:`attested` give
            the two parts; ``certificate``, ``more_than`` and :attr:`mass` are the model's.
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
            "forms": [
                {
                    "form": f.form,
                    "probability": f.probability,
                    "source": f.source or MODEL_SOURCE,
                    "attested": f.source is not None,
                }
                for f in self.forms
            ],
            "certificate": self.certificate.value,
            "certificate_words": self.certificate_words,
            "complete": self.complete,
            "more_than": self.more_than,
            "beam_certificate": self.beam_certificate.value,
            "method": self.method,
            "length_limit": self.length_limit,
            "warnings": list(self.warnings),
        }


def _without_empty(
    forms: list[Form], cert: Certificate, warnings: list[str]
) -> tuple[list[Form], Certificate]:
    """``forms`` without the empty string, which is never a form, and the certificate that
    still holds: the list is no longer the whole support (full support becomes mode only), and
    where the empty string was the most probable output the first form left is not the mode
    (the certificate becomes none). A note for the record is appended to ``warnings``."""
    at = next((i for i, f in enumerate(forms) if not f.form), None)
    if at is None:
        return forms, cert
    warnings.append(
        f"the model gave the empty string probability {forms[at].probability:.4g}; it is not a "
        "form and is left out of the list"
    )
    if at == 0:
        cert = Certificate.NONE
    elif cert is Certificate.FULL_SUPPORT:
        cert = Certificate.MODE_ONLY
    return forms[:at] + forms[at + 1 :], cert


@dataclass(frozen=True)
class Prediction(Record):
    """The result for one inflection input: ``Prediction(lemma, tags, language, source,
    forms=..., certificate=..., ...)``.

    Attributes:
        lemma: the lemma as given.
        tags: the tag bundle as written.
        language: shared-task name of the language.
        source: the input's file, or None.
        model: the name of the shipped model that answered (``inflect models``; e.g.
            ``"finnish-high"``), or None for checkpoints given by path.
        forms, certificate, more_than, beam_certificate, method: see :class:`Outcome`;
            warnings, line: see :class:`Record`.
    """

    lemma: str
    tags: str
    language: str
    source: str | None = None
    model: str | None = None

    @property
    def inputs(self) -> tuple[str, str, str]:
        """``(lemma, tags, language)``: the input as rendered (TSV columns, titles)."""
        return self.lemma, self.tags, self.language

    @property
    def where(self) -> str | None:
        """``FILE:LINE`` of the input, or None."""
        return None if self.source is None else f"{self.source}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (one JSON Lines record)."""
        return {
            "lemma": self.lemma,
            "tags": self.tags,
            "language": self.language,
            **self._outcome_dict(),
            "source": self.source,
            "line": self.line,
            "model": self.model,
        }


@dataclass(frozen=True)
class ErrorRecord:
    """An input that got no answer: a line that could not be read, or an input the model cannot
    take (empty lemma, too long, a language it does not know). It takes the input's place in the
    output stream (:meth:`Searcher.stream`), and the stream goes on.

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
        """The record of ``error`` (a :class:`InputError`, a
        :class:`~inflect.text.records.DataFormatError`, an unknown language) for ``query`` (the input,
        where it was read)."""
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


@dataclass
class Prepared:
    """A validated input as the model's symbols, ready to be searched.

    Attributes:
        query: the input as given (an :class:`~inflect.text.records.Example` for inflection, a
            :class:`~inflect.inference.translator.SentenceQuery` for translation).
        symbols: its source symbols (made by ``codec``).
        codec: the :class:`~inflect.text.codec.Codec` that made ``symbols``; it also turns output
            symbols back into text.
        features: the UniMorph features the model will see, sorted, repeats kept (the bundle's
            multiset; a model reading bundles as sets drops the repeats); empty without tags.
        language: the language name the model knows the input by, or None (no language symbol).
        direction: the writing direction of the source (``"ltr"`` or ``"rtl"``), for display.
        warnings: e.g. symbols unseen in training.
    """

    query: Any
    symbols: list[str]
    codec: Codec
    features: tuple[str, ...] = ()
    language: str | None = None
    direction: str = "ltr"
    warnings: list[str] = field(default_factory=list)


class Searched(NamedTuple):
    """A record with the search result it was made from (for evaluation and explanation).

    Attributes:
        prediction: the record (:class:`Prediction`, or a translation record).
        beam: the beam search result that gave the record's list (the widest one accepted
            under ``support="auto"``); ``beam.best`` is the most probable token string found,
            with its attention matrix.
        prepared: the validated input (its model symbols, codec, features).
        support_sizes: the output support size at each step of ``beam.best`` (teacher forcing
            on the same encoder pass), where asked for and a string finished; else None.
    """

    prediction: Any
    beam: SearchResult
    prepared: Prepared
    support_sizes: list[int] | None = None


def make_query(lemma: str, tags: str | TagBundle, language: str | None = None) -> Example:
    """One input as an :class:`~inflect.text.records.Example` without a form.

    Args:
        lemma: the lemma as typed.
        tags: a tag bundle (``"N;DAT;PL"``) or a parsed :class:`~inflect.text.records.TagBundle`.
        language: any name or code of the language; None or ``""``: the model's only language.

    Raises:
        InputError: the tag bundle is malformed (empty, an empty feature, ...), or the lemma or
            the tag bundle holds bytes that are not UTF-8 (command-line arguments decoded with
            ``surrogateescape``) or a control character (:func:`inflect.text.records.control_problem`).
    """
    for what, text in (("lemma", lemma), ("tag bundle", tags)):
        if isinstance(text, str) and not text.isprintable() and _not_utf8(text):
            raise InputError(
                f"the {what} holds bytes that are not UTF-8 (is the terminal's encoding UTF-8?)",
                text,
            )
        text = text if isinstance(text, str) else text.text
        problem = control_problem(text, what)
        if problem is not None:
            raise InputError(problem, text)
    if not isinstance(tags, TagBundle):
        try:
            tags = TagBundle.parse(tags)
        except ValueError as exc:
            raise InputError(str(exc), tags) from None
    return Example(lemma=strip_lemma(lemma), tags=tags, form=None, language=language or "")


def strip_lemma(lemma: str) -> str:
    """The lemma of a query without surrounding whitespace (``" Haus "`` -> ``"Haus"``): a
    space typed around a lemma is no part of it (spaces inside, ``wandert aus``, are kept).

    Raises:
        InputError: nothing is left (the lemma is empty or only whitespace).
    """
    stripped = lemma.strip()
    if not stripped:
        raise InputError("empty lemma", lemma)
    return stripped


def _stripped(examples: Iterator[Example | DataFormatError]) -> Iterator[Example | DataFormatError]:
    """The queries of an input file with their lemmas stripped (:func:`strip_lemma`); the tag
    bundle's surrounding whitespace is already removed by its parser."""
    for example in examples:
        if isinstance(example, Example) and example.lemma != example.lemma.strip():
            example = dataclasses.replace(example, lemma=example.lemma.strip())
        yield example


def _not_utf8(text: str) -> bool:
    """True for text holding lone surrogates: bytes that were not UTF-8 (``surrogateescape``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def read_queries(
    path: str | os.PathLike[str],
    language: str | None = None,
    fmt: Format = "auto",
    on_blank: Callable[[str, int], None] | None = None,
    errors: Literal["raise", "yield"] = "raise",
) -> Iterator[Example | DataFormatError]:
    """Read inputs lazily from a file, or from standard input when ``path`` is ``"-"``.

    One input a line: ``lemma<TAB>tags`` (covered format) or ``lemma<TAB>form<TAB>tags`` (2018
    format, the form is ignored); ``fmt="2023"`` reads ``lemma<TAB>tags<TAB>form``. Parsing is
    :func:`inflect.text.records.iter_examples`: blank lines are skipped, everything else malformed raises.

    Args:
        path: the file, or ``"-"`` for standard input (read as bytes, decoded as UTF-8).
        language: stored in every query (None: the model's only language).
        fmt: ``"auto"``, ``"covered"``, ``"2018"`` or ``"2023"``.
        on_blank: called with (source, line number) for each blank line skipped.
        errors: ``"raise"`` (stop at the first malformed line) or ``"yield"`` (yield its
            :class:`~inflect.text.records.DataFormatError` in its place and read on; a
            :class:`Searcher` turns it into an :class:`ErrorRecord`).

    Yields:
        One :class:`~inflect.text.records.Example` per input line, with ``source`` and ``line`` set (or,
        with ``errors="yield"``, a :class:`~inflect.text.records.DataFormatError` per malformed line).

    Raises:
        DataFormatError: with ``errors="raise"``, at the first malformed line, naming the file
            and the line.
        OSError: the file cannot be read.
    """
    source = "<stdin>" if str(path) == "-" else str(path)
    blank = None if on_blank is None else (lambda number: on_blank(source, number))
    if source == "<stdin>":
        yield from _stripped(
            iter_examples(
                sys.stdin.buffer,
                source=source,
                language=language or "",
                fmt=fmt,
                on_blank=blank,
                errors=errors,
            )
        )
        return
    with open(path, "rb") as handle:
        yield from _stripped(
            iter_examples(
                handle, source=source, language=language or "", fmt=fmt, on_blank=blank,
                errors=errors,
            )
        )


class Searcher:
    """One model or an ensemble, ready to search prepared inputs with certificates.

    The part of prediction that inflection (:class:`Predictor`) and translation
    (:class:`~inflect.inference.translator.Translator`) share: batching, one encoder pass per chunk, beam
    search widened where not certified, support enumeration, output text, chunked streaming.
    Subclasses say how a query becomes a :class:`Prepared` input (:meth:`prepare`) and what
    record it gives (:meth:`record`).

    Args:
        models: one or more :class:`~inflect.nn.checkpoint.LoadedModel`; several form an
            :class:`~inflect.decoding.Ensemble` and must share the target vocabulary.
        beam_size: beam size k (≥ 1).
        max_forms: largest number of outputs listed per input (≥ 1); support enumeration
            stops there and the record says "more than N".
        support: when to enumerate the support (see :data:`SupportMode`).
        max_input_len: the longest source accepted, in model symbols.
        chunk_size: inputs searched together by :meth:`stream`.
        max_beam: the widest beam ``support="auto"`` widens to (and at most ``max_forms``).
        strict: stop at the first input that cannot be answered (:meth:`stream` raises), and
            refuse an unknown UniMorph feature; False (the default): such an input becomes an
            :class:`ErrorRecord` in the stream and the stream goes on, and an unknown feature
            is read as the unknown feature (warned once per feature, noted in the record).

    Raises:
        ValueError: no model, a bad setting, or members with different target vocabularies
            (the message names what differs).
    """

    def __init__(
        self,
        models: Sequence[LoadedModel],
        *,
        beam_size: int = defaults.BEAM_SIZE,
        max_forms: int = defaults.MAX_FORMS,
        support: SupportMode = "auto",
        max_input_len: int = MAX_INPUT_LEN,
        chunk_size: int = defaults.CHUNK_SIZE,
        max_beam: int = defaults.WIDE_BEAM_SIZE,
        strict: bool = False,
    ) -> None:
        self.strict = bool(strict)
        self.loaded: tuple[LoadedModel, ...] = tuple(models)
        if not self.loaded:
            raise ValueError("a predictor needs at least one model")
        settings = {
            "beam_size": beam_size,
            "max_forms": max_forms,
            "max_input_len": max_input_len,
            "chunk_size": chunk_size,
            "max_beam": max_beam,
        }
        for name, value in settings.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if support not in ("auto", "always", "never"):
            raise ValueError(f"support must be auto, always or never, got {support!r}")
        self.beam_size, self.max_forms, self.support = beam_size, max_forms, support
        self.max_input_len, self.chunk_size, self.max_beam = max_input_len, chunk_size, max_beam
        self.members = tuple(m.network for m in self.loaded)
        for network in self.members:
            network.eval()
        self.decodable: Any = self.members[0] if len(self.members) == 1 else Ensemble(self.members)
        self.sparse_output = all(
            get_mapping(m.config.output_mapping).is_sparse for m in self.members
        )

    @staticmethod
    def load(
        paths: Sequence[str | os.PathLike[str]], device: str | torch.device = "cpu"
    ) -> list[LoadedModel]:
        """The checkpoints of ``paths`` (files, or folders of members:
        :func:`inflect.nn.checkpoint.checkpoint_members`), loaded.

        Raises:
            FileNotFoundError: a path that is not there; CheckpointError: a file that is not a
                model checkpoint.
        """
        return [load_checkpoint(p, device=device) for p in checkpoint_members(list(paths))]

    # ------------------------------------------------------------------ inputs
    def prepare(self, query: Any) -> Prepared:
        """Validate one query and turn it into model symbols (by the subclass)."""
        raise NotImplementedError

    def record(self, item: Prepared, outcome: Outcome) -> Any:
        """The record of one searched input (by the subclass)."""
        raise NotImplementedError

    def _unseen(self, symbols: Sequence[str], what: str) -> list[str]:
        """One note per distinct symbol unseen in training (by any member), each warned once
        as an :class:`~inflect.nn.vocab.UnknownSymbolWarning`."""
        notes = []
        for sym in dict.fromkeys(symbols):
            if any(sym not in m.source_vocab for m in self.members):
                note = (
                    f"symbol {sym!r} (U+{ord(sym[0]):04X}) of {what} was not seen in "
                    "training; the model reads it as the unknown symbol"
                )
                notes.append(note)
                warnings.warn(note, UnknownSymbolWarning, stacklevel=4)
        return notes

    def batch(self, items: Sequence[Prepared]) -> Any:
        """Prepared inputs as ids (:func:`inflect.nn.batching.make_batch`), one batch per member
        (a :class:`~inflect.decoding.MemberBatches` for an ensemble; members with equal
        vocabularies share one)."""
        sources = [p.symbols for p in items]
        features = [p.features for p in items]
        languages = [p.language for p in items]
        made: dict[tuple[Vocabularies, torch.device], Any] = {}
        for m in self.members:
            key = (Vocabularies.of(m), m.device)
            if key not in made:  # warn=False: prepare() warned once per input
                made[key] = make_batch(
                    key[0], sources, features, languages, device=m.device, warn=False
                )
        batches = tuple(made[(Vocabularies.of(m), m.device)] for m in self.members)
        return batches[0] if len(batches) == 1 else MemberBatches(batches)

    def max_output_len(self, items: Sequence[Prepared]) -> list[int]:
        """The output length limit of each input, its own (never its chunk's): the config's
        ``max_decode_len`` where set, else the largest of the members'
        :func:`inflect.nn.lengths.output_limit` for the input's language and source length (from
        the training data's output lengths recorded in the checkpoint; a checkpoint without
        the record: :func:`inflect.defaults.fallback_output_length`)."""
        configured = self.members[0].config.max_decode_len
        if configured:
            return [configured] * len(items)
        return [
            max(output_limit(m.output_lengths, p.language, len(p.symbols)) for m in self.members)
            for p in items
        ]

    # ------------------------------------------------------------------ search
    def run(self, items: Sequence[Prepared]) -> list[Any]:
        """Search a chunk of prepared inputs together; one record each, in order (see
        :meth:`run_detailed`)."""
        return [searched.prediction for searched in self.run_detailed(items)]

    def run_detailed(
        self, items: Sequence[Prepared], *, support_sizes: bool = False
    ) -> list[Searched]:
        """Search a chunk of prepared inputs together; a :class:`Searched` each, in order.

        The chunk is encoded once (:func:`inflect.decoding.encode`); every search below runs on
        that encoded state. Beam search with k = :attr:`beam_size`; then, for
        ``support="auto"``, the inputs whose beam is not certified full support are searched
        again together with a beam 4 times as wide (n-best = width), until every one is
        certified or the width reached min(:attr:`max_beam`, :attr:`max_forms`); a wider result
        replaces the earlier one unless its certificate is weaker. For ``support="always"``,
        :func:`enumerate_support` (cap :attr:`max_forms`) gives the list.

        Args:
            items: the prepared inputs.
            support_sizes: also run the model along each input's best string (teacher forcing,
                :func:`inflect.decoding.teacher_forced`) for its per-step output support sizes.
        """
        if not items:
            return []
        max_len = self.max_output_len(items)
        with torch.inference_mode(), self._threads():
            encoded = encode(self.decodable, self.batch(items))
            first = beam_search(self.decodable, encoded, self.beam_size, max_len)
            best = self._widen(encoded, first, max_len)
            supports: list[SupportResult | None] = [None] * len(items)
            if self.support == "always":
                supports = list(enumerate_support(self.decodable, encoded, self.max_forms, max_len))
            sizes: list[list[int] | None] = [None] * len(items)
            if support_sizes:
                forced = teacher_forced(
                    self.decodable, encoded, [b.best.tokens if b.best else [] for b in best]
                )
                sizes = [
                    f.support_sizes if b.best else None for f, b in zip(forced, best, strict=True)
                ]
        return [
            Searched(self.record(item, self._outcome(item, f, b, s)), b, item, n)
            for item, f, b, s, n in zip(items, first, best, supports, sizes, strict=True)
        ]

    @contextlib.contextmanager
    def _threads(self) -> Iterator[None]:
        """With an ensemble and torch set to several threads, the members run side by side,
        one thread each, and each operation on one thread (restored after the block): whole
        members are independent work, whereas the small operations of one step, split over
        threads, wait at every operation's end for threads a busy CPU has descheduled."""
        threads = torch.get_num_threads()
        if not isinstance(self.decodable, Ensemble) or threads < 2:
            yield
            return
        torch.set_num_threads(1)
        try:
            with self.decodable.in_parallel(threads):
                yield
        finally:
            torch.set_num_threads(threads)

    def _widen(
        self, encoded: Encoded, first: list[SearchResult], max_len: list[int]
    ) -> list[SearchResult]:
        """``support="auto"``: search the uncertified inputs again with wider beams."""
        best = list(first)
        width = self.beam_size
        todo = [i for i, r in enumerate(first) if r.certificate is not Certificate.FULL_SUPPORT]
        limit = min(self.max_forms, self.max_beam)
        while self.support == "auto" and self.sparse_output and todo and width < limit:
            width = min(limit, 4 * width)
            wide = beam_search(
                self.decodable,
                encoded.select(self.decodable, todo),
                width,
                [max_len[i] for i in todo],
            )
            for i, r in zip(todo, wide, strict=True):
                if r.certificate.rank >= best[i].certificate.rank:
                    best[i] = r
            todo = [i for i in todo if best[i].certificate is not Certificate.FULL_SUPPORT]
        return best

    def _forms(self, hyps: Sequence[Hypothesis], item: Prepared) -> list[Form]:
        """Output strings as text (by the input's codec), equal texts merged."""
        vocab = self.members[0].target_vocab
        merged: dict[str, float] = {}
        for h in hyps:
            attention = h.attention if UNK_ID in h.tokens else None
            text = item.codec.decode(output_symbols(vocab, h.tokens, attention, item.symbols))
            merged[text] = merged.get(text, 0.0) + h.prob
        return [Form(f, p) for f, p in sorted(merged.items(), key=lambda kv: -kv[1])]

    def _outcome(
        self,
        item: Prepared,
        first: SearchResult,
        beam: SearchResult,
        support: SupportResult | None,
    ) -> Outcome:
        forms = self._forms(beam.hypotheses, item)
        cert, method, more = beam.certificate, "beam", None
        cut = beam.max_len if beam.hit_max_len else None
        if beam.n_finished > len(beam.hypotheses) and len(beam.hypotheses) >= self.max_forms:
            more = len(beam.hypotheses)  # more finished strings of nonzero probability exist
        if support is not None:
            # the enumeration's strings and the beam's, each token string once (its value from
            # the enumeration): never a worse list than the beam the enumeration started from
            merged = {tuple(h.tokens): h for h in beam.hypotheses}
            merged.update((tuple(h.tokens), h) for h in support.hypotheses)
            hyps = sorted(merged.values(), key=lambda h: -h.log_prob)
            forms, method = self._forms(hyps, item), "support"
            found = support.hypotheses
            if support.complete or cert is Certificate.FULL_SUPPORT:
                cert = Certificate.FULL_SUPPORT  # either list is the whole support
            elif (
                cert is Certificate.MODE_ONLY
                or support.more_than_cap
                or (found and found[0].prob >= support.unexplored_max_prob)
            ):
                # one of the two firsts is the true mode, so it is the larger first
                cert = Certificate.MODE_ONLY
            if support.more_than_cap:
                more = support.cap
            cut = beam.max_len if support.hit_max_len else None if support.complete else cut
        if len(forms) > self.max_forms:
            forms = forms[: self.max_forms]
            more = self.max_forms
            if cert is Certificate.FULL_SUPPORT:
                cert = Certificate.MODE_ONLY
        forms, cert = _without_empty(forms, cert, item.warnings)
        return Outcome(
            forms=tuple(forms),
            certificate=cert,
            more_than=more,
            beam_certificate=first.certificate,
            method=method,
            length_limit=cut,
        )

    # ------------------------------------------------------------------ streams
    def stream(self, queries: Iterable[Any], *, idle: float | None = None) -> Iterator[Any]:
        """Search every query, yielding records in input order, chunk by chunk.

        A chunk is searched once it holds :attr:`chunk_size` queries (or the input ends); with
        ``idle`` (seconds), the queries are read on a thread of their own
        (:func:`inflect.inference.streaming.with_idle_marks`) and the queries collected so far are also
        searched whenever no new one has come for ``idle`` seconds, so that slow input (a
        terminal, a pipe that stays open) is answered line by line; batch composition does not
        change the records. An
        input that cannot be answered — a query that is a :class:`~inflect.text.records.DataFormatError`
        (a line :func:`read_queries` could not read, ``errors="yield"``), or one :meth:`prepare`
        refuses — gives an :class:`ErrorRecord` in its place (after the records before it) and
        the stream goes on; with :attr:`strict`, the records before it are yielded, then its
        error is raised, so no finished work is lost.

        Raises:
            InputError: (strict) a query the model cannot take (with file and line where known).
            DataFormatError: (strict) a malformed input line.
            UnknownLanguageError: (strict) an unknown language name.
        """
        for searched in self.stream_detailed(queries, idle=idle):
            yield searched.prediction

    def stream_detailed(
        self, queries: Iterable[Any], *, idle: float | None = None
    ) -> Iterator[Searched]:
        """As :meth:`stream`, yielding each record with its search result (:class:`Searched`;
        an :class:`ErrorRecord` comes with ``beam`` and ``prepared`` None).

        Raises:
            As :meth:`stream`.
        """
        pending: list[Prepared] = []
        iterator = iter(queries) if idle is None else with_idle_marks(queries, idle)
        while True:
            error: Exception | None = None
            query: Any = None
            try:
                query = next(iterator)
                if query is IDLE:  # the input paused: answer what has come
                    yield from self.run_detailed(pending)
                    pending = []
                    continue
                if isinstance(query, DataFormatError):
                    error, query = query, None
                else:
                    pending.append(self.prepare(query))
            except StopIteration:
                break
            except (InputError, DataFormatError, UnknownLanguageError) as exc:
                error = exc
            except Exception as exc:
                yield from self.run_detailed(pending)
                raise exc
            if error is not None:
                yield from self.run_detailed(pending)
                pending = []
                if self.strict:
                    raise error
                yield Searched(ErrorRecord.of(error, query), None, None)  # type: ignore[arg-type]
                continue
            if len(pending) >= self.chunk_size:
                yield from self.run_detailed(pending)
                pending = []
        yield from self.run_detailed(pending)


def _known_features(network: Any) -> set[str]:
    if network.feature_vocab is None:
        return set()
    specials = set(network.feature_vocab.specials)
    return {f for f in network.feature_vocab.symbols if f not in specials and f != COPY_FEATURE}


def _known_languages(loaded: LoadedModel) -> set[str]:
    vocab = loaded.network.language_vocab
    return set(vocab.symbols) if vocab is not None else set(loaded.languages)


class Predictor(Searcher):
    """An inflection model (or an ensemble) ready to predict forms with certificates.

    Attested forms first: with ``lexicons``, each input is looked up (language, lemma in the
    language's data normalisation, tag bundle order-free) before its record is made; the forms
    the first lexicon holding it gives lead the record's ``forms``, marked with their
    :attr:`Form.source`, and the model's whole distribution follows with its certificate (the
    model is searched either way: the lexicon is consulted beside the search, not inside it).

    Args:
        models: one or more :class:`~inflect.nn.checkpoint.LoadedModel` of inflection models.
        lexicons: the lexicons to consult, the one that takes precedence first (e.g.
            ``[FileLexicon(["mine.tsv"]), ShippedLexicon()]``, or one
            :class:`inflect.lexicon.Lexicons`; see :func:`inflect.lexicon.load_lexicons`);
            None or empty: the model alone.
        **options: as :class:`Searcher` (``beam_size``, ``max_forms``, ``support``,
            ``max_input_len``, ``chunk_size``, ``max_beam``).

    Raises:
        ValueError: a translation model (the message says to use ``inflect translate``), or as
            :class:`Searcher`.
    """

    def __init__(
        self,
        models: Sequence[LoadedModel],
        *,
        lexicons: Lexicons | Sequence[Lexicon] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(models, **options)
        if lexicons is None:
            lexicons = ()
        self.lexicons: Lexicons = lexicons if isinstance(lexicons, Lexicons) else Lexicons(lexicons)
        for loaded in self.loaded:
            if loaded.is_translation:
                raise ValueError(
                    f"{loaded.path}: a translation model (sentence pairs, with a subword codec), "
                    f"not an inflection model; translate with `inflect translate --model "
                    f"{loaded.path}`, or give `inflect predict` a model trained by `inflect train`"
                )
        self.features: frozenset[str] = frozenset.intersection(
            *(frozenset(_known_features(m)) for m in self.members)
        )
        langs = [_known_languages(m) for m in self.loaded]
        nonempty = [s for s in langs if s]
        self.languages: tuple[str, ...] = tuple(
            sorted(set.intersection(*nonempty)) if nonempty else ()
        )
        self._codecs: dict[str, CharCodec] = {}
        self._warned_features: set[str] = set()
        #: the registry name of the shipped model (:meth:`from_default`), named in every
        #: record (:attr:`Prediction.model`); None for checkpoints given by path.
        self.model_name: str | None = None

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_checkpoints(
        cls,
        paths: Sequence[str | os.PathLike[str]],
        device: str | torch.device = "cpu",
        **options: Any,
    ) -> Predictor:
        """Load one checkpoint, or several as an ensemble (folders of members are expanded by
        :func:`inflect.nn.checkpoint.checkpoint_members`; options as :class:`Searcher`).

        Raises:
            FileNotFoundError: a path that is not there.
            CheckpointError: a file is not a sparse-inflect model checkpoint.
            ValueError: the members' target vocabularies differ, or a translation model.
        """
        paths = list(paths)
        if not paths:
            raise ValueError("no checkpoint given")
        models = cls.load(paths, device)
        try:
            return cls(models, **options)
        except ValueError as exc:
            if "ensemble members" in str(exc):
                names = ", ".join(str(m.path) for m in models)
                raise ValueError(f"{exc} (checkpoints: {names})") from None
            raise

    @classmethod
    def from_default(
        cls,
        language: str,
        models_dir: str | os.PathLike[str] | None = None,
        device: str | torch.device = "cpu",
        setting: str | None = None,
        **options: Any,
    ) -> Predictor:
        """Load the shipped default model of ``language`` (see :mod:`inflect.inference.registry`), or its
        model of ``setting``.

        Raises:
            UnknownLanguageError: no language has this name (closest names listed).
            NoDefaultModelError: nothing shipped for the language (those shipped listed), or
                nothing of ``setting`` (the settings shipped listed).
            RegistryError, CheckpointError: a broken installation.
        """
        from inflect.inference.registry import default_model

        entry = default_model(language, models_dir, setting)
        predictor = cls.from_checkpoints(entry.members, device=device, **options)
        predictor.model_name = entry.name
        return predictor

    # ------------------------------------------------------------------ inputs
    def codec(self, name: str | None) -> CharCodec:
        """The codec (text <-> symbols) of a language the model was trained on: a
        :class:`~inflect.text.codec.CharCodec` of its :class:`~inflect.text.languages.LanguageSpec` (the
        one stored in the checkpoint where there is one).

        Args:
            name: any name or code; None or ``""`` for the model's only language.

        Raises:
            UnknownLanguageError: no language has this name (the closest are listed).
            InputError: the model was not trained on it, or it is needed and not given.
        """
        key = name or ""
        codec = self._codecs.get(key)
        if codec is not None:
            return codec
        if not key:
            if len(self.languages) != 1:
                raise InputError(
                    "give the language (--lang): "
                    + (
                        f"the model knows {', '.join(self.languages)}"
                        if self.languages
                        else "the model does not record its language"
                    )
                )
            key_name = self.languages[0]
        else:
            key_name = resolve(key).name
            if self.languages and key_name not in self.languages:
                raise InputError(
                    f"the model was not trained on {key_name}; it knows {', '.join(self.languages)}"
                )
        spec = self.loaded[0].languages.get(key_name) or resolve(key_name)
        codec = self._codecs[key] = CharCodec(spec)
        return codec

    def prepare(self, query: Example) -> Prepared:
        """Validate one query and turn it into model symbols.

        A UniMorph feature the model has not seen is read as the unknown feature (a note in
        the record, one warning per feature; :meth:`_unknown_features`), or refused where
        :attr:`strict`.

        Raises:
            InputError: empty lemma, (strict) unknown UniMorph feature (the message lists the
                known ones), a lemma longer than :attr:`max_input_len`, a language the model
                does not know.
            UnknownLanguageError: no language has the query's language name.
        """
        src, line = query.source, query.line
        try:
            codec = self.codec(query.language)
        except InputError as exc:
            raise InputError(exc.what, exc.value, src, line) from None
        symbols = codec.encode(query.lemma)
        if not "".join(symbols).strip():
            raise InputError("empty lemma", query.lemma, src, line)
        unknown = sorted(f for f in query.tags.features if f not in self.features)
        notes: list[str] = []
        if unknown and self.strict:
            known = ", ".join(sorted(self.features)) or "none"
            plural = "s" if len(unknown) > 1 else ""
            named = ", ".join(_with_hint(f, self.features) for f in unknown)
            raise InputError(
                f"unknown UniMorph feature{plural} {named} in tag bundle "
                f"{quoted(query.tags.text)}; the model knows {len(self.features)} features: {known}",
                None,
                src,
                line,
            )
        notes.extend(self._unknown_features(unknown))
        if len(symbols) > self.max_input_len:
            raise InputError(
                f"lemma of {len(symbols)} symbols is longer than the model's limit of "
                f"{self.max_input_len} symbols",
                query.lemma,
                src,
                line,
            )
        notes = [*self._unseen(symbols, f"lemma {query.lemma!r}"), *notes]
        spec = codec.spec
        return Prepared(
            query, symbols, codec, query.tags.multiset, spec.name, spec.direction, notes
        )

    def _unknown_features(self, unknown: Sequence[str]) -> list[str]:
        """One note per UniMorph feature unseen in training: the model reads it as the unknown
        feature, the padding id, whose embedding is zero (it adds nothing to the condition
        vector), as an unseen lemma symbol is read as the unknown symbol. Each feature is warned
        once per predictor (:class:`~inflect.nn.vocab.UnknownSymbolWarning`)."""
        notes = []
        for feature in unknown:
            note = (
                f"UniMorph feature {_with_hint(feature, self.features)} was not seen in training; "
                "the model reads it as the unknown feature (the answer may miss what it marks)"
            )
            notes.append(note)
            if feature not in self._warned_features:
                self._warned_features.add(feature)
                warnings.warn(note, UnknownSymbolWarning, stacklevel=4)
        return notes

    def attested(self, item: Prepared, model_forms: Sequence[Form] = ()) -> tuple[Form, ...]:
        """The attested forms of a prepared input by :attr:`lexicons` (empty without one), each
        with its source and the probability ``model_forms`` give the same text (0.0 if none).

        Raises:
            DataFormatError, LexiconError: a lexicon read at its first use fails.
        """
        if not self.lexicons:
            return ()
        q = item.query
        found = self.lexicons.lookup(
            item.language or "", item.codec.spec.normalize_input(q.lemma), q.tags
        )
        model = {f.form: f.probability for f in model_forms}
        return tuple(Form(a.form, model.get(a.form, 0.0), a.source) for a in found)

    def record(self, item: Prepared, outcome: Outcome) -> Prediction:
        """The :class:`Prediction` of one searched input: the attested forms (:meth:`attested`)
        first, then the model's."""
        q = item.query
        fields = outcome.outcome()
        fields["forms"] = self.attested(item, outcome.forms) + tuple(outcome.forms)
        return Prediction(
            q.lemma,
            q.tags.text,
            item.language or "",
            q.source,
            self.model_name,
            warnings=tuple(item.warnings),
            line=q.line,
            **fields,
        )

    def predict(self, lemma: str, tags: str | TagBundle, language: str | None = None) -> Prediction:
        """Predict for one lemma and tag bundle (see :meth:`Searcher.stream`).

        Raises:
            InputError, UnknownLanguageError: as :meth:`prepare`.
        """
        return self.run([self.prepare(make_query(lemma, tags, language))])[0]

    def predict_many(self, queries: Iterable[Example]) -> list[Prediction]:
        """``list(self.stream(queries))``."""
        return list(self.stream(queries))


def load_predictor(
    models: Sequence[str | os.PathLike[str]] | None = None,
    language: str | None = None,
    *,
    models_dir: str | os.PathLike[str] | None = None,
    device: str | torch.device = "cpu",
    setting: str | None = None,
    **options: Any,
) -> Predictor:
    """The predictor of the given checkpoints (or folders of members), else of ``language``'s
    shipped default model (or its shipped model of ``setting``).

    When both are given, the checkpoints must know the language.

    Raises:
        ValueError: neither checkpoints nor a language.
        UnknownLanguageError, NoDefaultModelError, RegistryError, CheckpointError, InputError.
    """
    if models:
        predictor = Predictor.from_checkpoints([Path(m) for m in models], device, **options)
    elif language:
        predictor = Predictor.from_default(language, models_dir, device, setting, **options)
    else:
        raise ValueError("give a language (--lang) or a checkpoint (--model)")
    if language:
        predictor.codec(language)  # fail now, not at the first input
    return predictor
