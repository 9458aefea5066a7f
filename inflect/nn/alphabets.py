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

The trainer records it (:attr:`inflect.nn.model.Seq2Seq.output_alphabets`) for every model with a
language vocabulary; a checkpoint without the record searches over the whole output layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch

from inflect.nn.vocab import EOS_ID, UNK_ID, Vocab


class OutputAlphabets:
    """Language name -> the ordinary symbols that language's training pairs use.

    Args:
        table: language -> symbols (any iterable of strings; stored sorted, without repeats).

    Raises:
        ValueError: a symbol that is not a string.
    """

    def __init__(self, table: Mapping[str, Iterable[str]]) -> None:
        self.table: dict[str, list[str]] = {}
        for language, symbols in table.items():
            symbols = sorted(set(symbols))
            bad = [s for s in symbols if not isinstance(s, str)]
            if bad:
                raise ValueError(f"output alphabet of {language!r}: {bad[0]!r} is not a string")
            self.table[str(language)] = symbols

    @classmethod
    def from_items(cls, items: Iterable[Any]) -> OutputAlphabets:
        """The record of training items (:class:`inflect.training.items.Item`: the symbols of
        each language's sources and targets; items without a language are left out)."""
        table: dict[str, set[str]] = {}
        for it in items:
            if it.language is not None:
                table.setdefault(it.language, set()).update(it.source, it.target)
        return cls(table)

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

    def to_dict(self) -> dict[str, list[str]]:
        """JSON-able: language -> sorted symbols."""
        return {lang: list(symbols) for lang, symbols in self.table.items()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OutputAlphabets:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: a malformed record.
        """
        if not isinstance(d, Mapping) or any(isinstance(v, str) for v in d.values()):
            raise ValueError("output alphabets must map each language to a list of symbols")
        return cls(d)
