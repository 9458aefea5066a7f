"""Translation with a checkpoint that carries its own codec: sentence -> every output of nonzero
probability, with a certificate.

The same search as inflection (:class:`inflect.inference.searcher.Searcher`: one encoder pass per
chunk, beam search, certificates, widening of the beam towards the full support, ensembles) on a
model trained on sentence pairs (no tag bundle, no language symbol). The raw source sentence is
split into the model's symbols by the checkpoint's codec (:mod:`inflect.text.codec`, e.g.
SentencePiece pieces), and every output string is detokenised by the same codec. Results are
:class:`Translation` records: the ``source`` sentence, the language ``pair`` (e.g. ``"de-en"``) and
the translations with their probabilities.

Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models", ACL, section 5.2
(German→English on Multi30k) is the setting this serves.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from inflect import defaults
from inflect.inference.outcomes import Outcome, Record
from inflect.inference.queries import InputError, Prepared
from inflect.inference.searcher import Searcher
from inflect.nn.checkpoint import LoadedModel
from inflect.text.encodings import decode_line, refuse_wide
from inflect.text.records import control_problem

__all__ = ["SentenceQuery", "Translation", "Translator", "read_sentences"]


@dataclass(frozen=True)
class SentenceQuery:
    """One source sentence to translate.

    Attributes:
        text: the raw sentence.
        source: the file it came from (``"<stdin>"`` for standard input), or None.
        line: its 1-based line number in ``source``, or None.
    """

    text: str
    source: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class Translation(Record):
    """The result for one source sentence: ``Translation(source, pair, file, forms=...,
    certificate=..., ...)``.

    Attributes:
        source: the source sentence as given.
        pair: the language pair, e.g. ``"de-en"`` (``"translation"`` where the checkpoint does
            not say).
        file: the file the sentence came from, or None.
        forms: the translations, most probable first, with their probabilities; certificate,
            more_than, beam_certificate, method: see :class:`inflect.inference.outcomes.Outcome`;
            warnings, line: see :class:`inflect.inference.outcomes.Record`.
    """

    source: str
    pair: str
    file: str | None = None

    @property
    def inputs(self) -> tuple[str, str, str]:
        """``(source, "", pair)``: the input as rendered (the TSV columns of a prediction, the
        tag bundle empty)."""
        return self.source, "", self.pair

    @property
    def where(self) -> str | None:
        """``FILE:LINE`` of the sentence, or None."""
        return None if self.file is None else f"{self.file}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (one JSON Lines record)."""
        return {
            "source": self.source,
            "pair": self.pair,
            **self._outcome_dict(),
            "file": self.file,
            "line": self.line,
        }


def read_sentences(path: str | os.PathLike[str]) -> Iterator[SentenceQuery]:
    """Read sentences lazily, one a line, from a file or standard input (``"-"``).

    Args:
        path: the file (UTF-8), or ``"-"``.

    Yields:
        A :class:`SentenceQuery` per line (the line's end removed), with ``source`` and ``line``.

    Raises:
        InputError: a line that is not UTF-8 (``FILE:LINE``, with the encoding it reads in), or a
            file in UTF-16 (``FILE``). Empty lines are yielded and rejected by
            :meth:`Translator.prepare` with their line number; a UTF-8 byte order mark is
            removed.
        OSError: the file cannot be read.
    """
    from inflect.io.stdio import open_input

    with open_input(path) as (name, handle):
        for number, raw in enumerate(handle, start=1):
            text, why = decode_line(raw, number)  # the first line's byte order mark removed
            if text is None:
                raise InputError(why or "", None, name,
                                 None if number == 1 and refuse_wide(raw) else number)
            yield SentenceQuery(text.rstrip("\r\n"), name, number)


class Translator(Searcher):
    """A translation model (or ensemble) with its codec, ready to translate with certificates.

    Args:
        models: loaded checkpoints of models trained on sentence pairs (no tag bundle, no
            language symbol), each with its codec (:class:`~inflect.nn.checkpoint.LoadedModel`).
        pair: the label of the language pair in the records (default: the checkpoint's
            ``source_language-target_language``, else ``"translation"``).
        max_input_len: the longest source accepted, in codec symbols
            (:data:`inflect.defaults.MAX_SENTENCE_LEN`).
        **options: as :class:`~inflect.inference.searcher.Searcher` (``beam_size``, ``max_forms``,
            ``support``, ``chunk_size``, ``max_beam``).

    Raises:
        ValueError: a model without codec or one with tag features (an inflection model: the
            message says to use ``inflect predict``), members whose codecs differ, or as
            :class:`~inflect.inference.searcher.Searcher`.
    """

    def __init__(
        self,
        models: Sequence[LoadedModel],
        *,
        pair: str | None = None,
        max_input_len: int = defaults.MAX_SENTENCE_LEN,
        **options: Any,
    ) -> None:
        super().__init__(models, max_input_len=max_input_len, **options)
        codecs = [m.codec for m in self.loaded]
        if any(c is None for c in codecs):
            raise ValueError(
                "a translation model needs a codec stored in its checkpoint (train it with "
                "TrainingData.codec, e.g. the translation recipe); an inflection model (lemma "
                "and tag bundle) is used with inflect predict"
            )
        if any(m.feature_vocab is not None for m in self.members):
            raise ValueError("this model reads tag bundles: use inflect predict, not translate")
        dicts = [c.to_dict() for c in codecs]  # type: ignore[union-attr]
        if any(d != dicts[0] for d in dicts[1:]):
            raise ValueError("ensemble members were trained with different codecs")
        self.codec = codecs[0]
        if pair is None:
            data = self.loaded[0].metadata.get("training", {}).get("data", {}) or {}
            src, tgt = data.get("source_language"), data.get("target_language")
            pair = f"{src}-{tgt}" if src and tgt else "translation"
        self.pair = pair

    @classmethod
    def from_checkpoints(
        cls,
        paths: Sequence[str | os.PathLike[str]],
        device: str | torch.device = "cpu",
        **options: Any,
    ) -> Translator:
        """Load one checkpoint, or several as an ensemble (options as :class:`Translator`).

        Raises:
            FileNotFoundError: a path that is not there.
            CheckpointError: a file is not a sparse-inflect checkpoint, or its codec cannot be
                rebuilt.
            ValueError: as :class:`Translator`.
        """
        paths = list(paths)
        if not paths:
            raise ValueError("no checkpoint given")
        return cls(cls.load(paths, device), **options)

    def prepare(self, query: SentenceQuery | str) -> Prepared:
        """Validate one sentence and split it into the codec's symbols.

        Args:
            query: a :class:`SentenceQuery` or a plain string.

        Raises:
            InputError: an empty sentence, one with a control character (a TAB, ...), or one
                longer than :attr:`max_input_len` symbols (with file and line where known).
        """
        if isinstance(query, str):
            query = SentenceQuery(query)
        if not query.text.strip():
            raise InputError("empty sentence", query.text, query.source, query.line)
        problem = control_problem(query.text, "sentence")
        if problem is not None:
            raise InputError(problem, query.text, query.source, query.line)
        symbols = self.codec.encode(query.text)
        if len(symbols) > self.max_input_len:
            shown = query.text if len(query.text) <= 60 else query.text[:57] + "..."
            raise InputError(
                f"sentence of {len(symbols)} symbols is longer than the limit of "
                f"{self.max_input_len} symbols",
                shown,
                query.source,
                query.line,
            )
        notes = self._unseen(symbols, "the sentence")
        return Prepared(query, symbols, self.codec, warnings=notes)

    def record(self, item: Prepared, outcome: Outcome) -> Translation:
        """The :class:`Translation` of one searched sentence."""
        q = item.query
        return Translation(
            q.text,
            self.pair,
            q.source,
            warnings=tuple(item.warnings),
            line=q.line,
            **outcome.outcome(),
        )

    def translate(self, sentence: str) -> Translation:
        """Translate one sentence (see :meth:`~inflect.inference.searcher.Searcher.stream`).

        Raises:
            InputError: as :meth:`prepare`.
        """
        return self.run([self.prepare(sentence)])[0]
