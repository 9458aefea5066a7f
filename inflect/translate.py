"""Translation with a checkpoint that carries its own codec: sentence -> every output of nonzero
probability, with a certificate.

The same search as inflection (:class:`inflect.predict.Predictor`: beam search, certificates,
widening of the beam towards the full support, ensembles) on a model trained on sentence pairs
(no tag bundle, no language symbol). The raw source sentence is split into the model's symbols by
the checkpoint's codec (:mod:`inflect.codec`, e.g. SentencePiece pieces), and every output string
is detokenised by the same codec. Results are :class:`inflect.predict.Prediction` records so that
:mod:`inflect.report` renders them as for ``inflect predict``: ``lemma`` holds the source
sentence, ``tags`` is empty, ``language`` names the pair (e.g. ``"de-en"``) and ``forms`` the
translations.

Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models", ACL, section 5.2
(German→English on Multi30k) is the setting this serves.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from inflect.checkpoint import load_model
from inflect.data import control_problem
from inflect.predict import DEFAULT_BEAM, InputError, Prediction, Predictor
from inflect.vocab import UnknownSymbolWarning

__all__ = ["MAX_SENTENCE_LEN", "SentenceQuery", "Translator", "read_sentences"]

#: The longest source sentence accepted, in codec symbols (subword pieces).
MAX_SENTENCE_LEN = 200


class _NoTags:
    """The empty tag bundle of a sentence (renders as ``""``)."""

    text = ""
    features: frozenset[str] = frozenset()


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

    @property
    def lemma(self) -> str:  # the field name the prediction records use for the input
        return self.text

    @property
    def tags(self) -> _NoTags:
        return _NoTags()


@dataclass
class _CodecSide:
    """What the predictor's record-making needs of a "language": a name and a detokeniser."""

    name: str
    codec: Any

    def from_symbols(self, symbols: Sequence[str]) -> str:
        return self.codec.decode(symbols)


@dataclass
class _PreparedSentence:
    """A validated sentence, in the shape :class:`Predictor` searches."""

    query: SentenceQuery
    spec: _CodecSide
    symbols: list[str]
    features: frozenset[str] = frozenset()
    warnings: list[str] = field(default_factory=list)


def read_sentences(path: str | os.PathLike[str]) -> Iterator[SentenceQuery]:
    """Read sentences lazily, one a line, from a file or standard input (``"-"``).

    Args:
        path: the file (UTF-8), or ``"-"``.

    Yields:
        A :class:`SentenceQuery` per line (the line's end removed), with ``source`` and ``line``.

    Raises:
        InputError: a line that is not UTF-8 (``FILE:LINE``). Empty lines are yielded and rejected
            by :meth:`Translator.prepare` with their line number.
        OSError: the file cannot be read.
    """
    name = "<stdin>" if str(path) == "-" else str(path)
    handle = sys.stdin.buffer if str(path) == "-" else open(path, "rb")  # noqa: SIM115
    try:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"not UTF-8 ({exc.reason})", None, name, number) from None
            yield SentenceQuery(text.rstrip("\r\n"), name, number)
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


class Translator(Predictor):
    """A translation model (or ensemble) with its codec, ready to translate with certificates.

    Args:
        models: loaded models trained on sentence pairs (no tag bundle, no language symbol),
            each with a ``codec`` (as :func:`inflect.checkpoint.load_model` gives them).
        pair: the label of the language pair in the records (default: the checkpoint's
            ``source_language-target_language``, else ``"translation"``).
        max_input_len: the longest source accepted, in codec symbols.
        **options: as :class:`~inflect.predict.Predictor` (``beam_size``, ``max_forms``,
            ``support``, ``chunk_size``, ``max_beam``, ``names``).

    Raises:
        ValueError: a model without codec or one with tag features, members whose codecs
            differ, or as :class:`~inflect.predict.Predictor`.
    """

    def __init__(
        self,
        models: Sequence[Any],
        *,
        pair: str | None = None,
        max_input_len: int = MAX_SENTENCE_LEN,
        **options: Any,
    ) -> None:
        options.setdefault("beam_size", DEFAULT_BEAM)
        super().__init__(models, max_input_len=max_input_len, **options)
        codecs = [getattr(m, "codec", None) for m in self.members]
        if any(c is None for c in codecs):
            raise ValueError(
                "a translation model needs a codec stored in its checkpoint (train it with "
                "TrainingData.codec, e.g. the translation recipe)"
            )
        if any(m.feature_vocab is not None for m in self.members):
            raise ValueError("this model reads tag bundles: use inflect predict, not translate")
        dicts = [c.to_dict() for c in codecs]
        if any(d != dicts[0] for d in dicts[1:]):
            raise ValueError("ensemble members were trained with different codecs")
        self.codec = codecs[0]
        if pair is None:
            data = (getattr(self.members[0], "checkpoint", {}) or {}).get("training", {})
            data = data.get("data", {}) or {}
            src, tgt = data.get("source_language"), data.get("target_language")
            pair = f"{src}-{tgt}" if src and tgt else "translation"
        self.side = _CodecSide(pair, self.codec)

    @classmethod
    def from_checkpoints(
        cls,
        paths: Sequence[str | os.PathLike[str]],
        device: str | torch.device = "cpu",
        **options: Any,
    ) -> Translator:
        """Load one checkpoint, or several as an ensemble (options as :class:`Translator`).

        Raises:
            CheckpointError: a file is missing, not a sparse-inflect checkpoint, or its codec
                cannot be rebuilt.
            ValueError: as :class:`Translator`.
        """
        paths = list(paths)
        if not paths:
            raise ValueError("no checkpoint given")
        models = [load_model(Path(p), device=device) for p in paths]
        return cls(models, names=[str(p) for p in paths], **options)

    def prepare(self, query: Any) -> _PreparedSentence:  # type: ignore[override]
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
        if control_problem(query.text, "sentence") is not None:
            raise InputError(control_problem(query.text, "sentence"), query.text, query.source,
                             query.line)
        symbols = self.codec.encode(query.text)
        if len(symbols) > self.max_input_len:
            shown = query.text if len(query.text) <= 60 else query.text[:57] + "..."
            raise InputError(
                f"sentence of {len(symbols)} symbols is longer than the limit of "
                f"{self.max_input_len} symbols",
                shown, query.source, query.line,
            )
        notes = []
        for sym in dict.fromkeys(symbols):
            if any(sym not in m.source_vocab for m in self.members):
                note = f"source symbol {sym!r} was not seen in training; read as unknown"
                notes.append(note)
                warnings.warn(note, UnknownSymbolWarning, stacklevel=3)
        return _PreparedSentence(query, self.side, symbols, frozenset(), notes)

    def translate(self, sentence: str) -> Prediction:
        """Translate one sentence (see :meth:`Predictor.stream`).

        Raises:
            InputError: as :meth:`prepare`.
        """
        return self.run([self.prepare(sentence)])[0]

    def translate_many(self, sentences: Iterable[str | SentenceQuery]) -> list[Prediction]:
        """Translate every sentence, in order (``list(self.stream(...))``)."""
        return list(self.stream(iter(sentences)))
