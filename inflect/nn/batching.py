"""Examples at the symbol level <-> id tensors: the one path for training and prediction.

Strings become ids once per dataset (:class:`EncodedItems`); a batch is then only a gather and a
padding of those ids (:meth:`EncodedItems.batch`). :func:`make_batch` does both for a one-off list
(a query, a test). The model receives :class:`Batch` tensors and never sees strings; the ids it
outputs become symbols again with :func:`output_symbols`.

Conventions: source and target ids come from the model's symbol vocabularies
(:mod:`inflect.nn.vocab`: PAD 0, BOS 1, EOS 2, UNK 3); a tag bundle is a *multiset* of UniMorph
features (a repeated feature counts; a model with ``config.tag_bundles == "set"``, every checkpoint
written before that field, drops the repeats), its ids sorted ascending and padded with 0; the
language is one id per example.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor
from torch.nn.utils.rnn import pad_sequence

from inflect.nn.vocab import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    UNK,
    UnknownSymbolWarning,
    Vocab,
    replace_unknowns,
)

__all__ = [
    "IGNORE_INDEX",
    "Batch",
    "EncodedItems",
    "Vocabularies",
    "make_batch",
    "model_features",
    "output_symbols",
    "unseen_positions",
]

#: Label index ignored by the loss (as in :class:`torch.nn.CrossEntropyLoss`).
IGNORE_INDEX = -100


def model_features(features: Iterable[str], parts: bool) -> tuple[str, ...]:
    """The feature symbols a model reads for a tag bundle's features (repeats kept): each
    layered feature one symbol, or one per part (:func:`inflect.text.layers.feature_symbols`)."""
    from inflect.text.layers import feature_symbols

    return tuple(s for f in features for s in feature_symbols(f, parts))


@dataclass
class Batch:
    """An encoded batch of B examples, padded to the longest source S and target T.

    Attributes:
        source: int64 (B, S) source-symbol ids, :data:`~inflect.nn.vocab.PAD_ID` after each end.
        source_mask: bool (B, S), True at real (non-padding) positions.
        source_lengths: int64 (B,) number of real source positions (>= 1).
        features: int64 (B, F) tag-feature ids sorted ascending (repeats kept for a multiset
            model), padded with 0; or None.
        languages: int64 (B,) language ids; or None.
        target_in: int64 (B, T) decoder inputs (BOS, y_1, ..., y_{n}), padded; or None.
        target_out: int64 (B, T) gold outputs (y_1, ..., y_n, EOS), padded with -100; or None.
        source_symbols: the B source symbol sequences as given (for unknown-word replacement).
    """

    source: Tensor
    source_mask: Tensor
    source_lengths: Tensor
    features: Tensor | None = None
    languages: Tensor | None = None
    target_in: Tensor | None = None
    target_out: Tensor | None = None
    source_symbols: list[list[str]] = field(default_factory=list)

    def __len__(self) -> int:
        return self.source.shape[0]

    def to(self, device: torch.device | str) -> Batch:
        """The same batch with every tensor on ``device``: the batch itself where every tensor
        is there already (as :meth:`torch.Tensor.to`), so that a batch made on its model's
        device is not moved again."""
        target = torch.device(device)
        if all(v.device == target for v in vars(self).values() if isinstance(v, Tensor)):
            return self
        moved = {
            f.name: (v.to(device) if isinstance(v, Tensor) else v)
            for f in dataclasses.fields(self)
            for v in [getattr(self, f.name)]
        }
        return Batch(**moved)

    def index_select(self, index: Sequence[int]) -> Batch:
        """The sub-batch of rows ``index`` (padding is kept)."""
        idx = torch.as_tensor(list(index), dtype=torch.long, device=self.source.device)
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Tensor):
                out[f.name] = v.index_select(0, idx)
            elif f.name == "source_symbols" and v:
                out[f.name] = [v[i] for i in index]
            else:
                out[f.name] = v
        return Batch(**out)


@dataclass(frozen=True)
class Vocabularies:
    """The vocabularies a model was built with (see :class:`inflect.nn.model.Seq2Seq`).

    Attributes:
        source, target: symbol vocabularies (may be the same object).
        feature: UniMorph features of tag bundles, or None (a model without tags).
        language: language names, or None (no language symbol).
        multiset: True when a repeated feature of a bundle counts (``config.tag_bundles ==
            "multiset"``), False when repeats are dropped (a set: older checkpoints).
        parts: True when a layered feature is read as its parts (``config.layered_features ==
            "parts"``, :func:`inflect.text.layers.feature_symbols`), False: as one symbol.
    """

    source: Vocab
    target: Vocab
    feature: Vocab | None = None
    language: Vocab | None = None
    multiset: bool = False
    parts: bool = False

    @classmethod
    def of(cls, model: Any) -> Vocabularies:
        """The vocabularies of a :class:`~inflect.nn.model.Seq2Seq` (and how it reads bundles)."""
        return cls(
            model.source_vocab,
            model.target_vocab,
            model.feature_vocab,
            model.language_vocab,
            getattr(model.config, "tag_bundles", "set") == "multiset",
            getattr(model.config, "layered_features", "opaque") == "parts",
        )


class EncodedItems:
    """N examples as ids, built once; :meth:`batch` pads any subset of them.

    Args:
        vocabs: the model's vocabularies.
        sources: N source symbol sequences, each non-empty.
        features: N iterables of UniMorph features; required when ``vocabs.feature`` exists,
            ignored otherwise. Features unseen in training are left out (with a warning when
            ``warn``).
        languages: N language names (or None each); ignored without ``vocabs.language``;
            optional when the model knows a single language.
        targets: N target symbol sequences (training / teacher forcing), or None.
        warn: warn about symbols and features unseen in training.
        known_features: every feature is in ``vocabs.feature`` (the caller checked, e.g. the
            predictor's ``prepare``): they are mapped to ids without a membership test.

    Raises:
        ValueError: on an empty source, mismatched lengths, missing features, or an unknown
            language (the message lists the known ones).
    """

    def __init__(
        self,
        vocabs: Vocabularies,
        sources: Sequence[Sequence[str]],
        features: Sequence[Iterable[str]] | None = None,
        languages: Sequence[str | None] | None = None,
        targets: Sequence[Sequence[str]] | None = None,
        *,
        warn: bool = True,
        known_features: bool = False,
    ) -> None:
        n = len(sources)
        for name, seqs in (("features", features), ("languages", languages), ("targets", targets)):
            if seqs is not None and len(seqs) != n:
                raise ValueError(f"{name} has {len(seqs)} items, sources has {n}")
        self.source_symbols = [list(s) for s in sources]
        self.source: list[Tensor] = []
        for i, s in enumerate(sources):
            if len(s) == 0:
                raise ValueError(f"source {i} is empty")
            self.source.append(torch.tensor(vocabs.source.encode(s, warn=warn), dtype=torch.long))
        if vocabs.parts and features is not None:
            features = [model_features(f, True) for f in features]
        self.features = self._features(
            vocabs.feature, features, n, warn, vocabs.multiset, known_features
        )
        self.languages = self._languages(vocabs.language, languages, n)
        self.targets: list[Tensor] | None = None
        if targets is not None:
            self.targets = [
                torch.tensor(vocabs.target.encode(t, warn=warn), dtype=torch.long) for t in targets
            ]

    def __len__(self) -> int:
        return len(self.source)

    @staticmethod
    def _features(
        vocab: Vocab | None,
        features: Sequence[Iterable[str]] | None,
        n: int,
        warn: bool,
        multiset: bool = False,
        known: bool = False,
    ) -> list[Tensor] | None:
        if vocab is None:
            return None
        if features is None:
            raise ValueError("this model needs the tag-bundle features of every example")
        rows = []
        for feats in features:
            if known:
                ids = [vocab.index(f) for f in feats]
            else:
                ids = []
                for f in feats:
                    if f in vocab:
                        ids.append(vocab.index(f))
                    elif warn:
                        warnings.warn(
                            f"UniMorph feature {f!r} was not seen in training; it is left out",
                            UnknownSymbolWarning,
                            stacklevel=4,
                        )
            if not multiset:
                ids = list(set(ids))
            rows.append(torch.tensor(sorted(ids), dtype=torch.long))  # a canonical order
        return rows

    @staticmethod
    def _languages(vocab: Vocab | None, languages: Sequence[str | None] | None, n: int):
        if vocab is None:
            return None
        if languages is None or any(lang is None for lang in languages):
            if len(vocab) != 1:
                raise ValueError(
                    "this multilingual model needs the language of every example; known: "
                    + ", ".join(vocab.symbols)
                )
            languages = [vocab.symbols[0]] * n
        ids = []
        for lang in languages:
            if lang not in vocab:
                raise ValueError(
                    f"the model was not trained on language {lang!r}; known: "
                    + ", ".join(vocab.symbols)
                )
            ids.append(vocab.index(lang))
        return torch.tensor(ids, dtype=torch.long)

    def batch(self, rows: Sequence[int] | None = None, device: torch.device | str = "cpu") -> Batch:
        """The padded :class:`Batch` of examples ``rows`` (default: all), on ``device``.

        Raises:
            ValueError: if ``rows`` is empty.
        """
        rows = range(len(self)) if rows is None else rows
        if len(rows) == 0:
            raise ValueError("cannot make an empty batch")
        src = [self.source[i] for i in rows]
        source = pad_sequence(src, batch_first=True, padding_value=PAD_ID)
        batch = Batch(
            source=source,
            source_mask=source != PAD_ID,
            source_lengths=torch.tensor([len(s) for s in src], dtype=torch.long),
            source_symbols=[self.source_symbols[i] for i in rows],
        )
        if self.features is not None:
            feats = [self.features[i] for i in rows]
            if max(len(f) for f in feats) == 0:
                batch.features = torch.zeros((len(feats), 1), dtype=torch.long)
            else:
                batch.features = pad_sequence(feats, batch_first=True, padding_value=PAD_ID)
        if self.languages is not None:
            batch.languages = self.languages[list(rows)]
        if self.targets is not None:
            tgt = [self.targets[i] for i in rows]
            bos = torch.tensor([BOS_ID], dtype=torch.long)
            eos = torch.tensor([EOS_ID], dtype=torch.long)
            batch.target_in = pad_sequence(
                [torch.cat([bos, t]) for t in tgt], batch_first=True, padding_value=PAD_ID
            )
            batch.target_out = pad_sequence(
                [torch.cat([t, eos]) for t in tgt], batch_first=True, padding_value=IGNORE_INDEX
            )
        return batch.to(device)


def make_batch(
    vocabs: Vocabularies,
    sources: Sequence[Sequence[str]],
    features: Sequence[Iterable[str]] | None = None,
    languages: Sequence[str | None] | None = None,
    targets: Sequence[Sequence[str]] | None = None,
    *,
    device: torch.device | str = "cpu",
    warn: bool = True,
    known_features: bool = False,
) -> Batch:
    """Encode B examples into one padded :class:`Batch` (see :class:`EncodedItems`).

    Raises:
        ValueError: on no example, an empty source, mismatched lengths, missing features, or
            an unknown language.
    """
    if len(sources) == 0:
        raise ValueError("cannot make an empty batch")
    items = EncodedItems(
        vocabs, sources, features, languages, targets, warn=warn, known_features=known_features
    )
    return items.batch(device=device)


def output_symbols(
    vocab: Vocab,
    tokens: Sequence[int],
    attention: Tensor | None = None,
    source_symbols: Sequence[str] | None = None,
    source_vocab: Vocab | None = None,
) -> list[str]:
    """Output ids -> target symbols, with unknown-word replacement.

    Args:
        vocab: the model's target vocabulary.
        tokens: T output ids without BOS/EOS.
        attention: float (T', S) attention rows of those steps (T' >= T), or None.
        source_symbols: the input's source symbols.
        source_vocab: the model's source vocabulary: its unseen source symbols are copied too
            (see :func:`inflect.nn.vocab.replace_unknowns`); None: only UNK outputs are replaced.

    Returns:
        T symbols; every UNK replaced by the source symbol of highest attention at its step,
        and each unseen source symbol written at the first step that attends it most
        (:func:`inflect.nn.vocab.replace_unknowns`; only where an attention row and the source
        symbols are given).
    """
    symbols = vocab.decode(tokens)
    unseen = unseen_positions(source_symbols, source_vocab)
    if attention is not None and source_symbols and (UNK in symbols or any(unseen)):
        symbols = replace_unknowns(symbols, attention.tolist(), source_symbols, unseen)
    return symbols


def unseen_positions(
    source_symbols: Sequence[str] | None, source_vocab: Vocab | None
) -> list[bool]:
    """True at each source symbol ``source_vocab`` lacks (read as the unknown symbol); all
    False without a vocabulary."""
    if not source_symbols or source_vocab is None:
        return [False] * len(source_symbols or ())
    return [sym not in source_vocab for sym in source_symbols]
