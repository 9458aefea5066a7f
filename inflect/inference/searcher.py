"""The search shared by inflection and translation: prepared inputs -> records with certificates.

A :class:`Searcher` holds one model or an :class:`inflect.decoding.Ensemble` (probabilities
averaged at each step; the members must share the target vocabulary) and does, for a chunk of
prepared inputs (:class:`inflect.inference.queries.Prepared`):

1. symbols -> ids, once per chunk (:mod:`inflect.nn.batching`), and one encoder pass per chunk
   (:func:`inflect.decoding.encode`) that every search of the chunk shares;
2. search: :func:`inflect.decoding.beam_search` (beam k = 5 by default) with its
   certificate. A full-support beam already *is* the support (Peters, Niculae & Martins 2019,
   "Sparse Sequence-to-Sequence Models", ACL, §5), so it needs no second search. Where the
   certificate is not full support and the output mapping is sparse (α > 1), those inputs are
   searched again, together, with wider beams (4k, 16k, ... up to ``max_beam``, 20 by default)
   until the beam holds the whole support: batched beam search is far cheaper than a best-first
   enumeration, and a beam wider than the support prunes nothing. On request
   (``support="always"``), :func:`inflect.decoding.enumerate_support` lists the strings of
   nonzero probability best-first instead (exact order up to the cap, "more than N" beyond it);
3. output ids -> symbols (:func:`inflect.nn.batching.output_symbols`: unknown symbols replaced by
   the source symbol of highest attention at their step, each unseen source symbol copied at the
   first step that attends it most) -> text by the input's codec, and the
   :class:`inflect.inference.outcomes.Outcome` of each input.

Subclasses say how a query becomes a prepared input (:meth:`Searcher.prepare`) and what record it
gives (:meth:`Searcher.record`): :class:`inflect.inference.predictor.Predictor` for inflection,
:class:`inflect.inference.translator.Translator` for translation. :meth:`Searcher.stream`
processes its inputs in chunks and yields each chunk's records before it reads further than the
chunk, so a malformed line later in a file raises only after every record before it was yielded.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
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
from inflect.inference.outcomes import ErrorRecord, Form, Outcome
from inflect.inference.queries import InputError, Prepared
from inflect.inference.streaming import IDLE, with_idle_marks
from inflect.nn.batching import Vocabularies, make_batch, output_symbols, unseen_positions
from inflect.nn.checkpoint import LoadedModel, checkpoint_members, load_checkpoint
from inflect.nn.lengths import output_limit
from inflect.nn.vocab import UNK_ID, UnknownSymbolWarning
from inflect.sparse import get_mapping
from inflect.text.languages import UnknownLanguageError
from inflect.text.records import DataFormatError

__all__ = ["Searched", "Searcher", "SupportMode"]

#: ``"auto"``: where the beam is not certified full support and the output mapping is sparse,
#: widen the beam (x4 at a time, up to ``max_beam`` and ``max_forms``) until it is; ``"always"``:
#: enumerate the support best-first (:func:`inflect.decoding.enumerate_support`) for every
#: input; ``"never"``: the beam's n-best list only.
SupportMode = Literal["auto", "always", "never"]


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


class Searcher:
    """One model or an ensemble, ready to search prepared inputs with certificates.

    The part of prediction that inflection (:class:`~inflect.inference.predictor.Predictor`) and
    translation (:class:`~inflect.inference.translator.Translator`) share: batching, one encoder
    pass per chunk, beam search widened where not certified, support enumeration, output text,
    chunked streaming. Subclasses say how a query becomes a
    :class:`~inflect.inference.queries.Prepared` input (:meth:`prepare`) and what record it gives
    (:meth:`record`).

    Args:
        models: one or more :class:`~inflect.nn.checkpoint.LoadedModel`; several form an
            :class:`~inflect.decoding.Ensemble` and must share the target vocabulary.
        beam_size: beam size k (≥ 1).
        max_forms: largest number of outputs listed per input (1 to
            :data:`inflect.defaults.MAX_FORMS_LIMIT`, the limit of every interface); support
            enumeration stops there and the record says "more than N".
        support: when to enumerate the support (see :data:`SupportMode`).
        max_input_len: the longest source accepted, in model symbols.
        chunk_size: inputs searched together by :meth:`stream`.
        max_beam: the widest beam ``support="auto"`` widens to (and at most ``max_forms``).
        strict: stop at the first input that cannot be answered (:meth:`stream` raises), and
            refuse an unknown UniMorph feature; False (the default): such an input becomes an
            :class:`~inflect.inference.outcomes.ErrorRecord` in the stream and the stream goes on,
            and an unknown feature is read as the unknown feature (warned once per feature, noted in
            the record).

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
        max_input_len: int = defaults.MAX_INPUT_LEN,
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
        if max_forms > defaults.MAX_FORMS_LIMIT:  # the one limit of every interface
            raise ValueError(f"max_forms must be at most {defaults.MAX_FORMS_LIMIT}, got {max_forms}")
        if support not in ("auto", "always", "never"):
            raise ValueError(f"support must be auto, always or never, got {support!r}")
        self.beam_size, self.max_forms, self.support = beam_size, max_forms, support
        self.max_input_len, self.chunk_size, self.max_beam = max_input_len, chunk_size, max_beam
        # in eval mode already: a loaded checkpoint is (load_checkpoint), and a search's first
        # step switches its model to it (Seq2Seq.start)
        self.members = tuple(m.network for m in self.loaded)
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
        """Prepared inputs as ids (:func:`inflect.nn.batching.make_batch`), on each member's
        device, one batch per member (a :class:`~inflect.decoding.MemberBatches` for an
        ensemble; members with equal vocabularies on one device share one).

        The tag features were checked by :meth:`prepare`: where no input has a feature unseen
        in training (:attr:`~inflect.inference.queries.Prepared.unknown_features`), they are
        mapped to ids without a second membership test; else each member's vocabulary leaves
        out the features it lacks."""
        sources = [p.symbols for p in items]
        features = [p.features for p in items]
        languages = [p.language for p in items]
        known = all(p.unknown_features == () for p in items)
        made: dict[tuple[Vocabularies, torch.device], Any] = {}
        for m in self.members:
            key = (Vocabularies.of(m), m.device)
            if key not in made:  # warn=False: prepare() warned once per input
                made[key] = make_batch(
                    key[0], sources, features, languages, device=m.device, warn=False,
                    known_features=known,
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

        The chunk is encoded once (:func:`inflect.decoding.encode`); every search below runs
        on that encoded state. Beam search with k = :attr:`beam_size`; then, for
        ``support="auto"``, the inputs whose beam is not certified full support are searched
        again together with a beam 4 times as wide (n-best = width), until every one is
        certified or the width reached min(:attr:`max_beam`, :attr:`max_forms`); a wider result
        replaces the earlier one unless its certificate is weaker. For ``support="always"``,
        :func:`enumerate_support` (cap :attr:`max_forms`) gives the list.

        Args:
            items: the prepared inputs.
            support_sizes: also run the model along each input's best string (teacher forcing,
                :func:`inflect.decoding.teacher_forced`) for its per-step output support
                sizes.
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
        vocab, source = self.members[0].target_vocab, self.members[0].source_vocab
        copies = any(unseen_positions(item.symbols, source))  # unseen symbols to copy
        source = source if copies else None  # else nothing to look up again per string
        merged: dict[str, float] = {}
        for h in hyps:
            attention = h.attention if copies or UNK_ID in h.tokens else None
            symbols = output_symbols(vocab, h.tokens, attention, item.symbols, source)
            text = item.codec.decode(symbols)
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
        (:func:`inflect.inference.streaming.with_idle_marks`) and the queries collected so far
        are also searched whenever no new one has come for ``idle`` seconds, so that slow input
        (a terminal, a pipe that stays open) is answered line by line; batch composition does
        not change the records. An input that cannot be answered — a query that is a
        :class:`~inflect.text.records.DataFormatError` (a line
        :func:`~inflect.inference.queries.read_queries` could not read, ``errors="yield"``), or
        one :meth:`prepare` refuses — gives an :class:`~inflect.inference.outcomes.ErrorRecord`
        in its place (after the records before it) and the stream goes on; with :attr:`strict`,
        the records before it are yielded, then its error is raised, so no finished work is
        lost.

        Raises:
            InputError: (strict) a query the model cannot take (with file and line where known).
            DataFormatError: (strict) a malformed input line.
            UnknownLanguageError: (strict) an unknown language name.
        """
        for searched in self.stream_detailed(queries, idle=idle):
            yield searched.prediction

    def stream_detailed(
        self,
        queries: Iterable[Any],
        *,
        idle: float | None = None,
        support_sizes: bool = False,
        whole_chunks: bool = False,
        strict: bool | None = None,
    ) -> Iterator[Searched]:
        """As :meth:`stream`, yielding each record with its search result (:class:`Searched`;
        an :class:`~inflect.inference.outcomes.ErrorRecord` comes with ``beam`` and ``prepared``
        None). The one chunked loop of prediction, translation and evaluation
        (:func:`inflect.evaluation.runner.evaluate_predictor`).

        Args:
            queries: the inputs, read one at a time.
            idle: as :meth:`stream`.
            support_sizes: as :meth:`run_detailed`.
            whole_chunks: an input that cannot be answered does not cut its chunk short: its
                error record waits in its place and comes after the chunk is searched (every
                chunk but the last holds :attr:`chunk_size` inputs; records come later). False
                (as :meth:`stream`): the inputs before it are searched and its record is
                yielded at once.
            strict: None: :attr:`strict`; True or False overrides it for this stream.

        Raises:
            As :meth:`stream`.
        """
        strict = self.strict if strict is None else strict
        pending: list[Prepared] = []
        waiting: list[tuple[int, Searched]] = []  # error records, after so many of pending
        iterator = iter(queries) if idle is None else with_idle_marks(queries, idle)
        while True:
            error: Exception | None = None
            query: Any = None
            try:
                query = next(iterator)
                if query is IDLE:  # the input paused: answer what has come
                    yield from self._answer(pending, waiting, support_sizes)
                    continue
                if isinstance(query, DataFormatError):
                    error, query = query, None
                else:
                    pending.append(self.prepare(query))
            except StopIteration:
                break
            except (InputError, DataFormatError, UnknownLanguageError) as exc:
                if isinstance(exc, DataFormatError) and exc.line is None:
                    # the whole input is unreadable (a file in UTF-16): no line of it is an input
                    yield from self._answer(pending, waiting, support_sizes)
                    raise
                error = exc
            except Exception as exc:
                yield from self._answer(pending, waiting, support_sizes)
                raise exc
            if error is not None:
                if strict or not whole_chunks:
                    yield from self._answer(pending, waiting, support_sizes)
                if strict:
                    raise error
                failed = Searched(ErrorRecord.of(error, query), None, None)  # type: ignore[arg-type]
                waiting.append((len(pending), failed))
                if not whole_chunks:
                    yield from self._answer(pending, waiting, support_sizes)
                continue
            if len(pending) >= self.chunk_size:
                yield from self._answer(pending, waiting, support_sizes)
        yield from self._answer(pending, waiting, support_sizes)

    def _answer(
        self, pending: list[Prepared], waiting: list[tuple[int, Searched]], support_sizes: bool
    ) -> Iterator[Searched]:
        """Search ``pending`` together (:meth:`run_detailed`; nothing to search: no call) and
        yield its records in order, each error record of ``waiting`` in its place (after as
        many inputs of ``pending`` as it names); both lists are emptied first."""
        items, errors = list(pending), list(waiting)
        pending.clear()
        waiting.clear()
        done = self.run_detailed(items, support_sizes=support_sizes) if items else []
        at = 0
        for before, record in errors:
            yield from done[at:before]
            yield record
            at = before
        yield from done[at:]
