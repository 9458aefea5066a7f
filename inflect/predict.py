"""Prediction: lemma + UniMorph tag bundle + language -> every form of nonzero probability.

The path of one input (a *query*, an :class:`inflect.data.Example` whose form is ignored):

1. the language: any name or code (:func:`inflect.languages.resolve`), checked against the
   languages the model was trained on; left empty, the model's only language;
2. the lemma: brought to the data's normalisation (:meth:`LanguageSpec.normalize_input`) and split
   into the model's symbols (:meth:`LanguageSpec.to_symbols`); a symbol unseen in training becomes
   the unknown symbol, with a warning kept in the record;
3. the tag bundle: a set of UniMorph features, each of which the model must know;
4. search, batched over chunks of inputs: :func:`inflect.search.beam_search` (beam k = 5 by
   default) with its certificate. A full-support beam already *is* the support (Peters, Niculae
   & Martins 2019, "Sparse Sequence-to-Sequence Models", ACL, §5), so it needs no second search.
   Where the certificate is not full support and the output mapping is sparse (α > 1), the
   inputs are searched again, together, with wider beams (4k, 16k, ... up to ``max_beam``, 20
   by default) until the beam holds the whole support: batched beam search is far cheaper than a
   best-first enumeration, and a beam wider than the support prunes nothing. On request
   (``support="always"``), :func:`inflect.search.enumerate_support` lists the strings of nonzero
   probability best-first instead (exact order up to the cap, "more than N" beyond it);
5. the output ids become text: unknown symbols are replaced by the source symbol of highest
   attention at their step (:func:`inflect.vocab.replace_unknowns`), then
   :meth:`LanguageSpec.from_symbols`.

Several checkpoints form an :class:`inflect.search.Ensemble` (probabilities averaged at each step;
the members must share the target vocabulary). With no checkpoint, the shipped default model of
the language is used (:mod:`inflect.models`).

Results are :class:`Prediction` records, one per input, in input order. :meth:`Predictor.stream`
processes its inputs in chunks and yields each chunk's records before it reads further than the
chunk, so a malformed line later in a file raises only after every record before it was yielded.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import torch

from inflect.checkpoint import load_model
from inflect.data import Example, Format, TagBundle, control_problem, iter_examples
from inflect.languages import LanguageSpec, resolve
from inflect.model import COPY_FEATURE, Seq2Seq
from inflect.search import (
    Certificate,
    Ensemble,
    Hypothesis,
    MemberBatches,
    SearchResult,
    SupportResult,
    beam_search,
    enumerate_support,
)
from inflect.vocab import UNK_ID, UnknownSymbolWarning

__all__ = [
    "DEFAULT_BEAM",
    "DEFAULT_CHUNK",
    "DEFAULT_MAX_BEAM",
    "DEFAULT_MAX_FORMS",
    "MAX_INPUT_LEN",
    "Form",
    "InputError",
    "Prediction",
    "Predictor",
    "Searched",
    "SupportMode",
    "load_predictor",
    "make_query",
    "read_queries",
]

#: Default beam size k.
DEFAULT_BEAM = 5
#: Default cap on the forms listed per input (support enumeration stops there: "more than N").
DEFAULT_MAX_FORMS = 100
#: Default widest beam of ``support="auto"`` (beyond it, ``support="always"`` enumerates).
DEFAULT_MAX_BEAM = 20
#: Default number of inputs searched together.
DEFAULT_CHUNK = 64
#: The longest lemma, in model symbols, that the predictor accepts. The network itself has no
#: length limit; the cap bounds the search (outputs are limited to ``2 * source + 10`` symbols,
#: as in the trainer's dev decoding) and the memory of one batch.
MAX_INPUT_LEN = 100

#: ``"auto"``: where the beam is not certified full support and the output mapping is sparse,
#: widen the beam (x4 at a time, up to ``max_beam`` and ``max_forms``) until it is; ``"always"``: enumerate the
#: support best-first (:func:`inflect.search.enumerate_support`) for every input; ``"never"``:
#: the beam's n-best list only.
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
    return f"{feature!r} (did you mean {match!r}?)" if match else repr(feature)


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
        shown = f" ({value!r})" if value is not None else ""
        super().__init__(f"{where}{what}{shown}")


class Form(NamedTuple):
    """One output form and its probability under the model (or the ensemble's average)."""

    form: str
    probability: float


@dataclass(frozen=True)
class Prediction:
    """The result for one input.

    Attributes:
        lemma: the lemma as given.
        tags: the tag bundle as written.
        language: shared-task name of the language.
        forms: the forms, most probable first, each with its probability (the product of the
            step probabilities; token sequences that spell the same text are merged, their
            probabilities added).
        certificate: what is certain about ``forms``: :attr:`Certificate.FULL_SUPPORT` — it is
            every form of nonzero probability (so the probabilities sum to 1 up to float error);
            :attr:`Certificate.MODE_ONLY` — its first entry is the most probable form, the list
            may be incomplete; :attr:`Certificate.NONE` — neither is certain.
        complete: ``certificate is FULL_SUPPORT``.
        more_than: N when more than N forms have nonzero probability and only the N most
            probable are listed (the cap), else None.
        beam_certificate: the certificate of the beam search alone.
        method: ``"beam"`` (the list is the beam's n-best list) or ``"support"`` (it comes from
            support enumeration).
        warnings: e.g. symbols unseen in training.
        source: the input's file, or None.
        line: the input's line in ``source``, or None.
    """

    lemma: str
    tags: str
    language: str
    forms: tuple[Form, ...]
    certificate: Certificate
    more_than: int | None
    beam_certificate: Certificate
    method: str
    warnings: tuple[str, ...] = ()
    source: str | None = None
    line: int | None = None

    @property
    def complete(self) -> bool:
        """True when ``forms`` is the whole support."""
        return self.certificate is Certificate.FULL_SUPPORT

    @property
    def best(self) -> Form | None:
        """The most probable form found, or None when the search finished none."""
        return self.forms[0] if self.forms else None

    @property
    def mass(self) -> float:
        """The sum of the listed probabilities."""
        return math.fsum(f.probability for f in self.forms)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (one JSON Lines record)."""
        return {
            "lemma": self.lemma,
            "tags": self.tags,
            "language": self.language,
            "forms": [{"form": f.form, "probability": f.probability} for f in self.forms],
            "certificate": self.certificate.value,
            "certificate_words": self.certificate.description,
            "complete": self.complete,
            "more_than": self.more_than,
            "beam_certificate": self.beam_certificate.value,
            "method": self.method,
            "warnings": list(self.warnings),
            "source": self.source,
            "line": self.line,
        }


class Searched(NamedTuple):
    """A prediction with the search result it was made from (for evaluation and explanation).

    Attributes:
        prediction: the record.
        beam: the beam search result that gave the record's list (the widest one accepted
            under ``support="auto"``); ``beam.best`` is the most probable token string found,
            with its attention matrix.
        prepared: the validated query (its model symbols, language spec, features).
    """

    prediction: Prediction
    beam: SearchResult
    prepared: _Prepared


@dataclass
class _Prepared:
    """A validated query: its spec, its symbols and the features the model will see."""

    query: Example
    spec: LanguageSpec
    symbols: list[str]
    features: frozenset[str]
    warnings: list[str] = field(default_factory=list)


def make_query(lemma: str, tags: str | TagBundle, language: str | None = None) -> Example:
    """One input as an :class:`~inflect.data.Example` without a form.

    Args:
        lemma: the lemma as typed.
        tags: a tag bundle (``"N;DAT;PL"``) or a parsed :class:`~inflect.data.TagBundle`.
        language: any name or code of the language; None or ``""``: the model's only language.

    Raises:
        InputError: the tag bundle is malformed (empty, an empty feature, ...), or the lemma or
            the tag bundle holds bytes that are not UTF-8 (command-line arguments decoded with
            ``surrogateescape``) or a control character (:func:`inflect.data.control_problem`).
    """
    for what, text in (("lemma", lemma), ("tag bundle", tags)):
        if isinstance(text, str) and not text.isprintable() and _not_utf8(text):
            raise InputError(f"the {what} holds bytes that are not UTF-8 (is the terminal's "
                             "encoding UTF-8?)", text)
        problem = control_problem(text if isinstance(text, str) else text.text, what)
        if problem is not None:
            raise InputError(problem, text if isinstance(text, str) else text.text)
    if not isinstance(tags, TagBundle):
        try:
            tags = TagBundle.parse(tags)
        except ValueError as exc:
            raise InputError(str(exc), tags) from None
    return Example(lemma=lemma, tags=tags, form=None, language=language or "")


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
) -> Iterator[Example]:
    """Read inputs lazily from a file, or from standard input when ``path`` is ``"-"``.

    One input a line: ``lemma<TAB>tags`` (covered format) or ``lemma<TAB>form<TAB>tags`` (2018
    format, the form is ignored); ``fmt="2023"`` reads ``lemma<TAB>tags<TAB>form``. Parsing is
    :func:`inflect.data.iter_examples`: blank lines are skipped, everything else malformed raises.

    Args:
        path: the file, or ``"-"`` for standard input (read as bytes, decoded as UTF-8).
        language: stored in every query (None: the model's only language).
        fmt: ``"auto"``, ``"covered"``, ``"2018"`` or ``"2023"``.
        on_blank: called with (source, line number) for each blank line skipped.

    Yields:
        One :class:`~inflect.data.Example` per input line, with ``source`` and ``line`` set.

    Raises:
        DataFormatError: at the first malformed line, naming the file and the line.
        OSError: the file cannot be read.
    """
    source = "<stdin>" if str(path) == "-" else str(path)
    blank = None if on_blank is None else (lambda number: on_blank(source, number))
    if source == "<stdin>":
        yield from iter_examples(sys.stdin.buffer, source=source, language=language or "",
                                 fmt=fmt, on_blank=blank)
        return
    with open(path, "rb") as handle:
        yield from iter_examples(handle, source=source, language=language or "", fmt=fmt,
                                 on_blank=blank)


def _known_features(model: Seq2Seq) -> set[str]:
    if model.feature_vocab is None:
        return set()
    specials = set(model.feature_vocab.specials)
    return {f for f in model.feature_vocab.symbols if f not in specials and f != COPY_FEATURE}


def _known_languages(model: Seq2Seq) -> set[str]:
    if model.language_vocab is not None:
        return set(model.language_vocab.symbols)
    return set(getattr(model, "language_specs", {}) or {})


class Predictor:
    """A model (or an ensemble) ready to predict forms with certificates.

    Args:
        models: one or more loaded :class:`~inflect.model.Seq2Seq` models; several form an
            :class:`~inflect.search.Ensemble` and must share the target vocabulary.
        beam_size: beam size k (≥ 1).
        max_forms: largest number of forms listed per input (≥ 1); support enumeration stops
            there and the record says "more than N".
        support: when to enumerate the support (see :data:`SupportMode`).
        max_input_len: the longest lemma accepted, in model symbols.
        chunk_size: inputs searched together by :meth:`stream`.
        names: a label per member (file names), for messages.
        max_beam: the widest beam ``support="auto"`` widens to (and at most ``max_forms``).

    Raises:
        ValueError: no model, a bad setting, or members with different target vocabularies
            (the message names what differs).
    """

    def __init__(
        self,
        models: Sequence[Seq2Seq],
        *,
        beam_size: int = DEFAULT_BEAM,
        max_forms: int = DEFAULT_MAX_FORMS,
        support: SupportMode = "auto",
        max_input_len: int = MAX_INPUT_LEN,
        chunk_size: int = DEFAULT_CHUNK,
        names: Sequence[str] | None = None,
        max_beam: int = DEFAULT_MAX_BEAM,
    ) -> None:
        self.members: tuple[Seq2Seq, ...] = tuple(models)
        if not self.members:
            raise ValueError("a predictor needs at least one model")
        for name, value in (("beam_size", beam_size), ("max_forms", max_forms),
                            ("max_input_len", max_input_len), ("chunk_size", chunk_size),
                            ("max_beam", max_beam)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if support not in ("auto", "always", "never"):
            raise ValueError(f"support must be auto, always or never, got {support!r}")
        self.names = tuple(names) if names is not None else tuple(
            f"model {i + 1}" for i in range(len(self.members))
        )
        self.beam_size, self.max_forms, self.support = beam_size, max_forms, support
        self.max_input_len, self.chunk_size = max_input_len, chunk_size
        self.max_beam = max_beam
        for model in self.members:
            model.eval()
        self.decodable: Any = (
            self.members[0] if len(self.members) == 1 else Ensemble(self.members)
        )
        self.features: frozenset[str] = frozenset.intersection(
            *(frozenset(_known_features(m)) for m in self.members)
        )
        langs = [_known_languages(m) for m in self.members]
        nonempty = [s for s in langs if s]
        self.languages: tuple[str, ...] = tuple(
            sorted(set.intersection(*nonempty)) if nonempty else ()
        )
        self.sparse_output = all(m.config.output_alpha > 1.0 for m in self.members)
        self._specs: dict[str, LanguageSpec] = {}

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_checkpoints(
        cls, paths: Sequence[str | os.PathLike[str]], device: str | torch.device = "cpu",
        **options: Any,
    ) -> Predictor:
        """Load one checkpoint, or several as an ensemble (see :class:`Predictor` for options).

        Raises:
            CheckpointError: a file is missing or not a sparse-inflect checkpoint.
            ValueError: the members' target vocabularies differ.
        """
        paths = list(paths)
        if not paths:
            raise ValueError("no checkpoint given")
        models = [load_model(p, device=device) for p in paths]
        try:
            return cls(models, names=[str(p) for p in paths], **options)
        except ValueError as exc:
            if "ensemble members" in str(exc):
                raise ValueError(f"{exc} (checkpoints: {', '.join(map(str, paths))})") from None
            raise

    @classmethod
    def from_default(
        cls, language: str, models_dir: str | os.PathLike[str] | None = None,
        device: str | torch.device = "cpu", setting: str | None = None, **options: Any,
    ) -> Predictor:
        """Load the shipped default model of ``language`` (see :mod:`inflect.models`), or its
        model of ``setting``.

        Raises:
            UnknownLanguageError: no language has this name (closest names listed).
            NoDefaultModelError: nothing shipped for the language (those shipped listed), or
                nothing of ``setting`` (the settings shipped listed).
            RegistryError, CheckpointError: a broken installation.
        """
        from inflect.models import default_model

        entry = default_model(language, models_dir, setting)
        return cls.from_checkpoints(entry.members, device=device, **options)

    # ------------------------------------------------------------------ inputs
    def language_spec(self, name: str | None) -> LanguageSpec:
        """The spec of a language the model was trained on.

        Args:
            name: any name or code; None or ``""`` for the model's only language.

        Raises:
            UnknownLanguageError: no language has this name (the closest are listed).
            InputError: the model was not trained on it, or it is needed and not given.
        """
        key = name or ""
        spec = self._specs.get(key)
        if spec is not None:
            return spec
        if not key:
            if len(self.languages) != 1:
                raise InputError(
                    "give the language (--lang): "
                    + (f"the model knows {', '.join(self.languages)}" if self.languages
                       else "the model does not record its language")
                )
            key_name = self.languages[0]
        else:
            key_name = resolve(key).name
            if self.languages and key_name not in self.languages:
                raise InputError(
                    f"the model was not trained on {key_name}; it knows "
                    f"{', '.join(self.languages)}"
                )
        stored = getattr(self.members[0], "language_specs", {}) or {}
        spec = stored.get(key_name)
        if not isinstance(spec, LanguageSpec):
            spec = resolve(key_name)
        self._specs[key] = spec
        return spec

    def prepare(self, query: Example) -> _Prepared:
        """Validate one query and turn it into model symbols.

        Raises:
            InputError: empty lemma, unknown UniMorph feature (the message lists the known ones),
                a lemma longer than :attr:`max_input_len`, a language the model does not know.
            UnknownLanguageError: no language has the query's language name.
        """
        src, line = query.source, query.line
        try:
            spec = self.language_spec(query.language)
        except InputError as exc:
            raise InputError(exc.what, exc.value, src, line) from None
        lemma = spec.normalize_input(query.lemma)
        if not lemma.strip():
            raise InputError("empty lemma", query.lemma, src, line)
        unknown = sorted(f for f in query.tags.features if f not in self.features)
        if unknown:
            known = ", ".join(sorted(self.features)) or "none"
            plural = "s" if len(unknown) > 1 else ""
            named = ", ".join(_with_hint(f, self.features) for f in unknown)
            raise InputError(
                f"unknown UniMorph feature{plural} {named} in tag bundle "
                f"{query.tags.text!r}; the model knows {len(self.features)} features: {known}",
                None, src, line,
            )
        symbols = spec.to_symbols(lemma)
        if len(symbols) > self.max_input_len:
            raise InputError(
                f"lemma of {len(symbols)} symbols is longer than the model's limit of "
                f"{self.max_input_len} symbols",
                query.lemma if len(query.lemma) <= 60 else query.lemma[:57] + "...", src, line,
            )
        notes = []
        for sym in dict.fromkeys(symbols):
            if any(sym not in m.source_vocab for m in self.members):
                note = (f"symbol {sym!r} (U+{ord(sym[0]):04X}) of lemma {query.lemma!r} was not "
                        "seen in training; the model reads it as the unknown symbol")
                notes.append(note)
                warnings.warn(note, UnknownSymbolWarning, stacklevel=3)
        return _Prepared(query, spec, symbols, query.tags.features, notes)

    def batch(self, items: Sequence[_Prepared]) -> Any:
        """Encode prepared queries as one batch for :attr:`decodable` (its ``start``): the model's
        :class:`~inflect.model.Batch`, or a :class:`~inflect.search.MemberBatches` for an
        ensemble."""
        return self._batch(items)

    def _batch(self, items: Sequence[_Prepared]) -> Any:
        def encode(model: Seq2Seq) -> Any:
            return model.make_batch(
                [p.symbols for p in items],
                [p.features for p in items] if model.feature_vocab is not None else None,
                [p.spec.name for p in items] if model.language_vocab is not None else None,
                warn=False,
            )

        if len(self.members) == 1:
            return encode(self.members[0])
        return MemberBatches(tuple(encode(m) for m in self.members))

    def max_output_len(self, items: Sequence[_Prepared]) -> int:
        """Output length cap for a chunk: the config's ``max_decode_len``, else 2·S + 10."""
        configured = self.members[0].config.max_decode_len
        return configured or 2 * max(len(p.symbols) for p in items) + 10

    # ------------------------------------------------------------------ search
    def _forms(self, hyps: Sequence[Hypothesis], item: _Prepared) -> list[Form]:
        model = self.members[0]
        merged: dict[str, float] = {}
        for h in hyps:
            attention = h.attention if UNK_ID in h.tokens else None
            form = item.spec.from_symbols(model.tokens_to_symbols(h.tokens, attention, item.symbols))
            merged[form] = merged.get(form, 0.0) + h.prob
        return [Form(f, p) for f, p in sorted(merged.items(), key=lambda kv: -kv[1])]

    def _record(
        self, item: _Prepared, first: SearchResult, beam: SearchResult,
        support: SupportResult | None,
    ) -> Prediction:
        forms = self._forms(beam.hypotheses, item)
        cert, method, more = beam.certificate, "beam", None
        if beam.n_finished > len(beam.hypotheses) and len(beam.hypotheses) >= self.max_forms:
            more = len(beam.hypotheses)  # more finished strings of nonzero probability exist
        if support is not None:
            found = support.hypotheses
            if support.complete:
                forms, cert, method = self._forms(found, item), Certificate.FULL_SUPPORT, "support"
            elif support.more_than_cap:
                forms, cert, method = self._forms(found, item), Certificate.MODE_ONLY, "support"
                more = support.cap
            elif found and found[0].prob >= support.unexplored_max_prob:
                forms, cert, method = self._forms(found, item), Certificate.MODE_ONLY, "support"
        if len(forms) > self.max_forms:
            forms = forms[: self.max_forms]
            more = self.max_forms
            if cert is Certificate.FULL_SUPPORT:
                cert = Certificate.MODE_ONLY
        q = item.query
        return Prediction(
            lemma=q.lemma,
            tags=q.tags.text,
            language=item.spec.name,
            forms=tuple(forms),
            certificate=cert,
            more_than=more,
            beam_certificate=first.certificate,
            method=method,
            warnings=tuple(item.warnings),
            source=q.source,
            line=q.line,
        )

    def run(self, items: Sequence[_Prepared]) -> list[Prediction]:
        """Search a chunk of prepared queries together; one record each, in order.

        See :meth:`run_detailed`, which also returns the search results.
        """
        return [searched.prediction for searched in self.run_detailed(items)]

    def run_detailed(self, items: Sequence[_Prepared]) -> list[Searched]:
        """Search a chunk of prepared queries together; a :class:`Searched` each, in order.

        Beam search with k = :attr:`beam_size`; then, for ``support="auto"``, the inputs whose
        beam is not certified full support are searched again together with a beam 4 times as
        wide (n-best = width), until every one is certified or the width reached
        min(:attr:`max_beam`, :attr:`max_forms`); a wider result replaces the earlier one unless its
        certificate is weaker. For ``support="always"``, :func:`enumerate_support` (cap
        :attr:`max_forms`) gives the list.
        """
        if not items:
            return []
        max_len = self.max_output_len(items)
        rank = {Certificate.FULL_SUPPORT: 2, Certificate.MODE_ONLY: 1, Certificate.NONE: 0}
        with torch.inference_mode():
            first = beam_search(self.decodable, self._batch(items), self.beam_size, max_len)
            best = list(first)
            width = self.beam_size
            todo = [i for i, r in enumerate(first) if r.certificate is not Certificate.FULL_SUPPORT]
            limit = min(self.max_forms, self.max_beam)
            while self.support == "auto" and self.sparse_output and todo and width < limit:
                width = min(limit, 4 * width)
                wide = beam_search(self.decodable, self._batch([items[i] for i in todo]), width,
                                   max_len)
                for i, r in zip(todo, wide, strict=True):
                    if rank[r.certificate] >= rank[best[i].certificate]:
                        best[i] = r
                todo = [i for i in todo if best[i].certificate is not Certificate.FULL_SUPPORT]
            supports: dict[int, SupportResult] = {}
            if self.support == "always":
                found = enumerate_support(self.decodable, self._batch(items), self.max_forms,
                                          max_len)
                supports = dict(enumerate(found))
        return [Searched(self._record(item, first[i], best[i], supports.get(i)), best[i], item)
                for i, item in enumerate(items)]

    def stream(self, queries: Iterable[Example]) -> Iterator[Prediction]:
        """Predict for every query, yielding records in input order, chunk by chunk.

        A chunk is searched once it holds :attr:`chunk_size` queries (or the input ends). When
        reading a query or validating it fails, the records of the queries before it are yielded
        first, then the error is raised, so no finished work is lost.

        Raises:
            InputError: a query the model cannot take (with file and line where known).
            DataFormatError: a malformed input line (from :func:`read_queries`).
            UnknownLanguageError: an unknown language name.
        """
        for searched in self.stream_detailed(queries):
            yield searched.prediction

    def stream_detailed(self, queries: Iterable[Example]) -> Iterator[Searched]:
        """As :meth:`stream`, yielding each record with its search result (:class:`Searched`).

        Raises:
            As :meth:`stream`.
        """
        pending: list[_Prepared] = []
        iterator = iter(queries)
        while True:
            error: Exception | None = None
            try:
                pending.append(self.prepare(next(iterator)))
            except StopIteration:
                break
            except Exception as exc:
                error = exc
            if error is not None:
                yield from self.run_detailed(pending)
                raise error
            if len(pending) >= self.chunk_size:
                yield from self.run_detailed(pending)
                pending = []
        yield from self.run_detailed(pending)

    def predict(self, lemma: str, tags: str | TagBundle, language: str | None = None) -> Prediction:
        """Predict for one lemma and tag bundle (see :meth:`stream`).

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
    """The predictor of the given checkpoints, else of ``language``'s shipped default model (or
    its shipped model of ``setting``).

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
        predictor.language_spec(language)  # fail now, not at the first input
    return predictor
