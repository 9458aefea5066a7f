"""Codecs: raw text <-> the model's symbols, stored inside the checkpoint.

A :class:`Codec` is the model-side tokenizer: :meth:`Codec.encode` turns raw text into the symbol
sequence the model reads or writes, :meth:`Codec.decode` turns symbols back into raw text (the
detokeniser). Its whole state is a JSON-able dict (:meth:`Codec.to_dict`), which
:func:`inflect.training.trainer.train` writes into the checkpoint's metadata, so a checkpoint needs no side
files to translate; :func:`codec_from_dict` rebuilds it. The codec is the one text <-> symbols
path: inflection uses the :class:`CharCodec` of each input's language (training items and
queries alike), translation the checkpoint's stored codec.

Two codecs:

* :class:`CharCodec` — characters (or the spec's grapheme clusters) of one language, through
  :class:`inflect.text.languages.LanguageSpec` (``normalize_input``, ``to_symbols``, ``from_symbols``);
  inflection's symbols.
* :class:`SentencePieceCodec` — subword pieces of a SentencePiece model (Kudo & Richardson 2018,
  "SentencePiece: A simple and language independent subword tokenizer and detokenizer for Neural
  Text Processing", EMNLP demo), BPE (Sennrich et al. 2016) or unigram (Kudo 2018). The model
  proto (bytes) is kept base64-encoded in the dict. Needs the optional ``sentencepiece`` package
  (``pip install 'sparse-inflect[translation]'``).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "CharCodec",
    "Codec",
    "SentencePieceCodec",
    "codec_from_dict",
    "train_sentencepiece",
]


@runtime_checkable
class Codec(Protocol):
    """Raw text <-> model symbols (see the module docstring)."""

    kind: str

    def encode(self, text: str) -> list[str]:
        """The model symbols of ``text``."""
        ...

    def decode(self, symbols: Sequence[str]) -> str:
        """The raw text of ``symbols`` (the inverse of :meth:`encode` on the training data)."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict with a ``"kind"`` key, read back by :func:`codec_from_dict`."""
        ...


class CharCodec:
    """Characters of one language through its :class:`~inflect.text.languages.LanguageSpec`.

    Args:
        spec: the language spec.
    """

    kind = "char"

    def __init__(self, spec: Any) -> None:
        self.spec = spec

    def encode(self, text: str) -> list[str]:
        """``spec.to_symbols(spec.normalize_input(text))``."""
        return list(self.spec.to_symbols(self.spec.normalize_input(text)))

    def decode(self, symbols: Sequence[str]) -> str:
        """``spec.from_symbols(symbols)``."""
        return self.spec.from_symbols(list(symbols))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "language": self.spec.to_dict()}


class SentencePieceCodec:
    """Subword pieces of a SentencePiece model held in memory (no file).

    Args:
        model_proto: the serialised SentencePiece model (``ModelProto`` bytes).

    Raises:
        ImportError: ``sentencepiece`` is not installed (the message says how to install it).
        ValueError: the bytes are not a SentencePiece model.
    """

    kind = "sentencepiece"

    def __init__(self, model_proto: bytes) -> None:
        spm = _import_sentencepiece()
        self.model_proto = bytes(model_proto)
        self._sp = spm.SentencePieceProcessor()
        try:
            self._sp.LoadFromSerializedProto(self.model_proto)
        except Exception as exc:  # sentencepiece raises RuntimeError/OSError
            raise ValueError(f"not a SentencePiece model ({exc})") from None

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the model proto (identifies the subword vocabulary)."""
        return hashlib.sha256(self.model_proto).hexdigest()

    @property
    def size(self) -> int:
        """Number of pieces of the SentencePiece model (its own specials included)."""
        return int(self._sp.GetPieceSize())

    def encode(self, text: str) -> list[str]:
        """The pieces of ``text`` (``SentencePieceProcessor.EncodeAsPieces``)."""
        return list(self._sp.EncodeAsPieces(text))

    def decode(self, symbols: Sequence[str]) -> str:
        """Detokenise: ``DecodePieces`` (pieces joined, ``▁`` -> space, leading space dropped).

        Symbols that are not pieces of the model (e.g. the model's ``<unk>``) are kept verbatim.
        """
        return str(self._sp.DecodePieces(list(symbols)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model_proto_base64": base64.b64encode(self.model_proto).decode("ascii"),
            "sha256": self.sha256,
        }


def _import_sentencepiece() -> Any:
    try:
        import sentencepiece as spm
    except ImportError:
        raise ImportError(
            "the subword codec needs sentencepiece: pip install 'sparse-inflect[translation]'"
        ) from None
    return spm


def codec_from_dict(d: dict[str, Any]) -> Codec:
    """Rebuild a codec from :meth:`Codec.to_dict`'s dict.

    Raises:
        ValueError: an unknown kind, a missing key, or a corrupt SentencePiece model (the
            SHA-256 stored beside it does not match).
    """
    kind = d.get("kind")
    if kind == CharCodec.kind:
        from inflect.text.languages import LanguageSpec

        return CharCodec(LanguageSpec.from_dict(d["language"]))
    if kind == SentencePieceCodec.kind:
        try:
            proto = base64.b64decode(d["model_proto_base64"], validate=True)
        except KeyError:
            raise ValueError("sentencepiece codec dict lacks 'model_proto_base64'") from None
        digest = hashlib.sha256(proto).hexdigest()
        if d.get("sha256") not in (None, digest):
            raise ValueError(
                f"sentencepiece model corrupt: SHA-256 {digest}, expected {d.get('sha256')}"
            )
        return SentencePieceCodec(proto)
    raise ValueError(f"unknown codec kind {kind!r}; known: char, sentencepiece")


def train_sentencepiece(
    sentences: Iterable[str],
    vocab_size: int,
    model_type: str = "bpe",
    *,
    character_coverage: float = 1.0,
    seed: int = 1,
) -> SentencePieceCodec:
    """Train a SentencePiece model in memory on ``sentences`` (one per item).

    The text is not normalised (``normalization_rule_name="identity"``), so decoding gives back
    the input exactly for text with single spaces and no leading/trailing space; characters are
    all kept (``character_coverage=1``) and unseen ones fall back to UTF-8 byte pieces
    (``byte_fallback``), so nothing becomes ``<unk>``.

    Args:
        sentences: training sentences (e.g. both sides of the training split, for a joint
            vocabulary).
        vocab_size: number of pieces.
        model_type: ``"bpe"`` or ``"unigram"``.
        character_coverage: share of characters covered by pieces.
        seed: seed of SentencePiece's random generator
            (``sentencepiece.set_random_generator_seed``), which unigram training uses when it
            samples; BPE training is deterministic whatever the seed.

    Raises:
        ImportError: sentencepiece is not installed.
        ValueError: a bad model type, no sentence, or a vocabulary size the data cannot fill.
    """
    import io

    spm = _import_sentencepiece()
    if model_type not in ("bpe", "unigram"):
        raise ValueError(f"model_type must be bpe or unigram, got {model_type!r}")
    data = [s for s in sentences if s.strip()]
    if not data:
        raise ValueError("no sentence to train the subword model on")
    spm.set_random_generator_seed(seed)
    out = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(data),
            model_writer=out,
            vocab_size=vocab_size,
            model_type=model_type,
            character_coverage=character_coverage,
            normalization_rule_name="identity",
            remove_extra_whitespaces=False,
            byte_fallback=True,
            unk_id=0,
            bos_id=-1,
            eos_id=-1,
            pad_id=-1,
            num_threads=1,
            minloglevel=2,
            input_sentence_size=0,
            shuffle_input_sentence=False,
        )
    except RuntimeError as exc:
        raise ValueError(f"sentencepiece training failed ({exc})") from None
    return SentencePieceCodec(out.getvalue())
