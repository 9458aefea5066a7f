"""Symbol vocabularies: symbols <-> integer ids, with the reserved symbols in one place.

A :class:`Vocab` maps the symbols of a sequence (characters of a lemma or form, subwords of a
sentence, UniMorph features of a tag bundle, language names) to contiguous integer ids. The reserved
symbols (padding, beginning and end of sequence, unknown) always take the first ids, in the order of
:data:`SPECIALS`, so that ``PAD_ID == 0``, ``BOS_ID == 1``, ``EOS_ID == 2`` and ``UNK_ID == 3`` in
every vocabulary that reserves them.

Vocabularies are serialised as JSON-able dicts (:meth:`Vocab.to_dict` / :meth:`Vocab.from_dict`)
inside checkpoints, next to the weights, never in a separate file.

At prediction time, a symbol unseen in training maps to the unknown symbol with a warning
(:meth:`Vocab.encode`), and an unknown symbol in the output is replaced by the source symbol that
received the highest attention weight at that step (:func:`replace_unknowns`; Luong et al. 2015,
"Addressing the Rare Word Problem in Neural Machine Translation", ACL, section 3); an unseen source
symbol is also written at the first output step that attends it most, for models that never
write the unknown symbol.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

PAD = "<pad>"
BOS = "<s>"
EOS = "</s>"
UNK = "<unk>"
#: The reserved symbols, in id order.
SPECIALS: tuple[str, ...] = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = range(len(SPECIALS))


class UnknownSymbolWarning(UserWarning):
    """A symbol unseen in training was mapped to the unknown symbol."""


class Vocab:
    """An ordered, immutable mapping between symbols and ids.

    Args:
        symbols: the ordinary symbols, in id order after the reserved ones; duplicates are an
            error, and so is a symbol that equals a reserved one.
        specials: the reserved symbols that take the first ids: :data:`SPECIALS` for source and
            target sequences, ``(PAD,)`` for sets of features (tag bundles), ``()`` for a closed
            set such as languages.
        name: what the vocabulary holds ("source", "target", "feature", "language"), used in
            warnings and errors.

    Raises:
        ValueError: on a duplicate symbol, an ordinary symbol equal to a reserved one, or a
            ``specials`` tuple that is not a prefix of :data:`SPECIALS`.
    """

    def __init__(
        self, symbols: Iterable[str], specials: Sequence[str] = SPECIALS, name: str = "symbol"
    ) -> None:
        specials = tuple(specials)
        if specials != SPECIALS[: len(specials)]:
            raise ValueError(f"specials must be a prefix of {SPECIALS}, got {specials}")
        self.name = name
        self.specials = specials
        self._itos: list[str] = list(specials)
        self._stoi: dict[str, int] = {s: i for i, s in enumerate(specials)}
        for sym in symbols:
            if not isinstance(sym, str):
                raise ValueError(f"{name} vocabulary: symbol {sym!r} is not a string")
            if sym in self._stoi:
                what = "reserved symbol" if sym in SPECIALS else "duplicate symbol"
                raise ValueError(f"{name} vocabulary: {what} {sym!r}")
            self._stoi[sym] = len(self._itos)
            self._itos.append(sym)

    @classmethod
    def build(
        cls,
        sequences: Iterable[Iterable[str]],
        specials: Sequence[str] = SPECIALS,
        name: str = "symbol",
    ) -> Vocab:
        """Build a vocabulary from every symbol seen in ``sequences``, sorted for determinism."""
        seen: set[str] = set()
        for seq in sequences:
            seen.update(seq)
        return cls(sorted(seen - set(SPECIALS)), specials=specials, name=name)

    def __len__(self) -> int:
        return len(self._itos)

    def __contains__(self, symbol: object) -> bool:
        return symbol in self._stoi

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.name, tuple(self._itos)))

    def __repr__(self) -> str:
        return f"Vocab(name={self.name!r}, size={len(self)})"

    @property
    def symbols(self) -> list[str]:
        """All symbols in id order, the reserved ones first."""
        return list(self._itos)

    @property
    def has_unk(self) -> bool:
        return UNK in self.specials

    def index(self, symbol: str) -> int:
        """The id of ``symbol``.

        Raises:
            KeyError: if ``symbol`` is not in the vocabulary.
        """
        try:
            return self._stoi[symbol]
        except KeyError:
            raise KeyError(f"{self.name} vocabulary has no symbol {symbol!r}") from None

    def symbol(self, idx: int) -> str:
        """The symbol of id ``idx``.

        Raises:
            IndexError: if ``idx`` is outside ``[0, len(self))``.
        """
        if not 0 <= idx < len(self._itos):
            raise IndexError(f"{self.name} vocabulary has no id {idx} (size {len(self)})")
        return self._itos[idx]

    def encode(self, symbols: Iterable[str], *, warn: bool = True) -> list[int]:
        """Map symbols to ids; unseen symbols become :data:`UNK_ID`.

        Args:
            symbols: the symbols of one sequence.
            warn: emit an :class:`UnknownSymbolWarning` naming each unseen symbol.

        Raises:
            KeyError: on an unseen symbol when the vocabulary reserves no unknown symbol.
        """
        ids = []
        for sym in symbols:
            idx = self._stoi.get(sym)
            if idx is None or (idx < len(self.specials) and sym != UNK and sym in SPECIALS):
                if not self.has_unk:
                    raise KeyError(
                        f"{self.name} vocabulary has no symbol {sym!r} and no unknown symbol; "
                        f"known: {', '.join(self._itos[len(self.specials) :][:20])}"
                    )
                if warn:
                    warnings.warn(
                        f"{self.name} symbol {sym!r} (U+{ord(sym[0]):04X}) was not seen in "
                        f"training; it is mapped to {UNK}",
                        UnknownSymbolWarning,
                        stacklevel=2,
                    )
                idx = UNK_ID
            ids.append(idx)
        return ids

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Map ids to symbols (reserved symbols included).

        Raises:
            IndexError: an id outside ``[0, len(self))``.
        """
        itos, size = self._itos, len(self._itos)
        out = []
        for i in ids:
            i = int(i)
            if not 0 <= i < size:
                raise IndexError(f"{self.name} vocabulary has no id {i} (size {size})")
            out.append(itos[i])
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able description: ``{"name", "specials", "symbols"}`` (ordinary symbols only)."""
        return {
            "name": self.name,
            "specials": list(self.specials),
            "symbols": self._itos[len(self.specials) :],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Vocab:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: if a key is missing or the content is invalid.
        """
        try:
            return cls(d["symbols"], specials=tuple(d["specials"]), name=d["name"])
        except KeyError as exc:
            raise ValueError(f"vocabulary dict lacks the key {exc.args[0]!r}") from None


def replace_unknowns(
    target_symbols: Sequence[str],
    attention: Any | None,
    source_symbols: Sequence[str],
    unseen: Sequence[bool] | None = None,
) -> list[str]:
    """Replace each :data:`UNK` in an output by the source symbol with the highest attention,
    and copy each unseen source symbol once.

    The usual unknown-word replacement (Luong et al. 2015, ACL, section 3; Jean et al. 2015):
    at an output step that produced the unknown symbol, copy the source symbol the attention
    weighted most at that step. Padding positions have zero attention, so they are never chosen.

    With ``unseen`` (the source positions read as the unknown symbol), a model that never
    learned to write the unknown symbol (one trained without the copy bias or copy examples)
    still copies what it cannot read: the first output step whose attention puts at least
    half its weight on an unseen position writes that position's symbol instead of its own:
    once per position (later steps attending it, a suffix after a final unseen letter, are left
    as they are), and not for a position that an unknown symbol of the output copies (a prefix
    written while attending the lemma's first letter, as Irish ``leis na h<unk>...``, stays). A
    character-level model writes most of a lemma's letters at the step that attends them, so
    this is where it copies the letters it knows.

    Args:
        target_symbols: the T output symbols (without BOS/EOS).
        attention: float array-like of shape (T', S) with T' >= T (row t = weights at step t;
            an extra row for the EOS step is allowed), or None (then UNKs are left in place).
        source_symbols: the S' <= S source symbols (without padding).
        unseen: S' booleans, True where the source symbol is not in the model's vocabulary;
            None: only UNK outputs are replaced.

    Returns:
        The T symbols with every UNK replaced, and each unseen source symbol copied (with
        ``unseen``), where an attention row is available.
    """
    out = list(target_symbols)
    if attention is None or not source_symbols:
        return out
    steps = []  # per step: (the most attended source position, its weight)
    for t in range(min(len(out), len(attention))):
        row = [float(x) for x in list(attention[t])[: len(source_symbols)]]
        best = max(range(len(row)), key=row.__getitem__)
        steps.append((best, row[best]))
    copied = {best for (best, _), sym in zip(steps, out, strict=False) if sym == UNK}
    for t, (best, weight) in enumerate(steps):
        if out[t] == UNK:
            out[t] = source_symbols[best]
        elif unseen and unseen[best] and best not in copied and weight >= 0.5:
            out[t] = source_symbols[best]
            copied.add(best)
    return out
