"""Each language's output alphabet: the symbols a search may write for an input of that language.

A multilingual model has one output layer over the characters of every language it was trained
on (776 for the 103 languages of the medium setting). Asked for a Russian lemma in capitals it has
never seen (``ЖЭК``), it writes what scores highest among all of them: Latin letters, a hyphen of
another language (``-Эu``). The record here keeps, per language, the symbols of that language's
training pairs (lemmas and forms); a search then gives every other symbol the score −∞ before
the output mapping (probability exactly 0 under α-entmax, Peters et al. 2019, eq. 2), so the
model's choice is renormalised over the language's own symbols, and a lemma's unseen character
reaches the output the only way left: as the unknown symbol, replaced by the source symbol it
attends to (:func:`inflect.nn.vocab.replace_unknowns`). The reserved symbols (end of sequence,
unknown) are always allowed; padding and the beginning of sequence never are.

Some symbols of a language's alphabet are only ever *copied*: no training form writes them
unless its lemma has them (in English: the digits of ``86 -> 86ed`` and ``911``, capitals, ``@``,
``j``, ``q``, ``x``; in German ``b``, ``k``, ``p``). Left free, a model gives them a little
probability anywhere (``get V;PST``: ``g8t``, ``gLt``). The record therefore also keeps, per
language, the symbols its forms *write* (those that some form has and its lemma has not); a
symbol that is neither written nor in the input's lemma gets −∞ too
(:meth:`OutputAlphabets.lemma_masks`). A checkpoint written before this record was kept takes it
from the shared task's data, shipped in ``inflect/alphabets/`` (:func:`shipped_written`; written
by ``recipes/alphabets/make_written.py``).

The trainer records it (:attr:`inflect.nn.model.Seq2Seq.output_alphabets`) for every model with a
language vocabulary; a checkpoint without the record searches over the whole output layer.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import torch

from inflect.nn.vocab import EOS_ID, UNK_ID, Vocab

#: The key of :meth:`OutputAlphabets.to_dict` holding the written symbols (no language's name).
WRITTEN_KEY = "*written*"
#: The shipped record of the symbols each language's forms write (:func:`shipped_written`).
SHIPPED_WRITTEN = Path(__file__).resolve().parent.parent / "alphabets" / "conll2018-task1.json"
#: Its ``format``.
WRITTEN_FORMAT = "sparse-inflect-written/1"


@functools.cache
def shipped_written() -> dict[str, frozenset[str]]:
    """Language -> the model symbols that the forms of the shared task's training data
    (CoNLL–SIGMORPHON 2018 task 1, every setting) write beyond their lemma; empty where the
    file is missing or of another format (then nothing is restricted)."""
    try:
        data = json.loads(SHIPPED_WRITTEN.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != WRITTEN_FORMAT:
        return {}
    return {lang: frozenset(symbols) for lang, symbols in data.get("languages", {}).items()}


def written_symbols(pairs: Iterable[tuple[Iterable[str], Iterable[str]]]) -> set[str]:
    """The symbols of targets that their source lacks, over ``(source, target)`` symbol
    sequences: what a model must be able to write without copying it."""
    out: set[str] = set()
    for source, target in pairs:
        out.update(set(target) - set(source))
    return out


class OutputAlphabets:
    """Language name -> the ordinary symbols that language's training pairs use, and those its
    forms write (the others are only copied from a lemma).

    Args:
        table: language -> symbols (any iterable of strings; stored sorted, without repeats).
        written: language -> the symbols its forms write beyond their lemma (a subset of its
            alphabet's); None, or a language left out: every symbol of the alphabet is written.

    Raises:
        ValueError: a symbol that is not a string.
    """

    def __init__(
        self,
        table: Mapping[str, Iterable[str]],
        written: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self.table: dict[str, list[str]] = {}
        for language, symbols in table.items():
            symbols = sorted(set(symbols))
            bad = [s for s in symbols if not isinstance(s, str)]
            if bad:
                raise ValueError(f"output alphabet of {language!r}: {bad[0]!r} is not a string")
            self.table[str(language)] = symbols
        self.written: dict[str, list[str]] = {
            str(lang): sorted(set(symbols)) for lang, symbols in (written or {}).items()
        }

    @classmethod
    def from_items(cls, items: Iterable[Any]) -> OutputAlphabets:
        """The record of training items (:class:`inflect.training.items.Item`: the symbols of
        each language's sources and targets, and the target symbols their source lacks; items
        without a language are left out)."""
        table: dict[str, set[str]] = {}
        written: dict[str, set[str]] = {}
        for it in items:
            if it.language is not None:
                table.setdefault(it.language, set()).update(it.source, it.target)
                written.setdefault(it.language, set()).update(
                    written_symbols([(it.source, it.target)]))
        return cls(table, written)

    def copy_only(self, target_vocab: Vocab, language_vocab: Vocab) -> torch.Tensor | None:
        """bool (L, V): row l is True at the target ids of language l's alphabet that its forms
        never write beyond their lemma (see :attr:`written`); None where no language has a
        record of written symbols."""
        if not self.written:
            return None
        out = torch.zeros(len(language_vocab), len(target_vocab), dtype=torch.bool)
        for lang_id, language in enumerate(language_vocab.symbols):
            written = self.written.get(language)
            if written is None:
                continue
            only = set(self.table.get(language, ())) - set(written)
            ids = [target_vocab.index(s) for s in sorted(only) if s in target_vocab]
            if ids:
                out[lang_id, torch.tensor(ids, dtype=torch.long)] = True
        return out

    @staticmethod
    def lemma_masks(
        masks: torch.Tensor,
        copy_only: torch.Tensor,
        source: torch.Tensor,
        source_to_target: torch.Tensor,
    ) -> torch.Tensor:
        """The output masks of a batch, less each row's copy-only symbols that its lemma lacks.

        Args:
            masks: bool (B, V): the rows of :meth:`mask` of the batch's languages.
            copy_only: bool (B, V): the rows of :meth:`copy_only` of the batch's languages.
            source: int64 (B, S) source ids (padding included).
            source_to_target: int64 (source vocabulary size,): each source symbol's target id.

        Returns:
            bool (B, V).
        """
        in_lemma = torch.zeros_like(masks)
        in_lemma.scatter_(1, source_to_target.to(source.device)[source], True)
        return masks & ~(copy_only & ~in_lemma)

    def mask(self, target_vocab: Vocab, language_vocab: Vocab) -> torch.Tensor:
        """bool (L, V): row l is True at the target ids language l may write (end of sequence,
        the unknown symbol and its alphabet's symbols in ``target_vocab``; never padding or the
        beginning of sequence); a language without a record may write every symbol."""
        out = torch.ones(len(language_vocab), len(target_vocab), dtype=torch.bool)
        for lang_id, language in enumerate(language_vocab.symbols):
            symbols = self.table.get(language)
            if symbols is None:
                continue
            row = torch.zeros(len(target_vocab), dtype=torch.bool)
            row[[EOS_ID, UNK_ID]] = True
            ids = [target_vocab.index(s) for s in symbols if s in target_vocab]
            row[torch.tensor(ids, dtype=torch.long)] = True
            out[lang_id] = row
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: language -> sorted symbols, and under :data:`WRITTEN_KEY` language -> the
        sorted written symbols (where known)."""
        out: dict[str, Any] = {lang: list(symbols) for lang, symbols in self.table.items()}
        if self.written:
            out[WRITTEN_KEY] = {lang: list(s) for lang, s in self.written.items()}
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OutputAlphabets:
        """Inverse of :meth:`to_dict`; a record without written symbols (a checkpoint made
        before they were kept) takes them from :func:`shipped_written` for the languages it has.
        That record is of the shared task's files: a checkpoint trained, before the written
        symbols were kept, on other files under a shared-task language's name may then write
        only the symbols the shared task's forms write (train it again to record its own).

        Raises:
            ValueError: a malformed record.
        """
        if not isinstance(d, Mapping) or any(isinstance(v, str) for v in d.values()):
            raise ValueError("output alphabets must map each language to a list of symbols")
        table = {k: v for k, v in d.items() if k != WRITTEN_KEY}
        written = d.get(WRITTEN_KEY)
        if written is None:
            shipped = shipped_written()
            written = {lang: shipped[lang] for lang in table if lang in shipped}
        elif not isinstance(written, Mapping):
            raise ValueError(f"output alphabets: {WRITTEN_KEY!r} must map languages to symbols")
        return cls(table, written)
