"""What a file that is not UTF-8 is written in, in words, with what to do: every reader of the
user's text files (data, predictions, lexicons, inputs of predict, paradigm and translate) reads
strict UTF-8 and names, where it can tell, the encoding the bytes are in.

- :func:`wide_encoding`: UTF-16 or UTF-32, told by the byte order mark or, without one, by the
  zero bytes of Latin letters (``H\\x00a\\x00u\\x00s\\x00``), from a file's first bytes; such a
  file is refused whole (every line of it would fail);
- :func:`not_utf8`: the message for one line that is not UTF-8, naming the byte, and where the
  line reads as Windows-1252 (which Latin-1 text also is), that reading (``'Häuser'``);
- :func:`decode_line`: a raw line decoded, or that message (the first line's UTF-8 byte order
  mark removed); :func:`decode_text` a whole file's bytes so (a table, a registry).

A UTF-8 byte order mark is accepted everywhere (and removed).
"""

from __future__ import annotations

import codecs

__all__ = ["CONVERT", "decode_line", "decode_text", "not_utf8", "refuse_wide", "wide_encoding"]

#: How to convert a file to UTF-8 (``{encoding}``: iconv's name of the encoding it is in).
CONVERT = ("save it as UTF-8 (an editor's 'Save as', or iconv -f {encoding} -t UTF-8 FILE > "
           "FILE.utf8)")

# UTF-32 first: its little-endian mark begins with UTF-16's
_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32 (little-endian, with a byte order mark)", "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32 (big-endian, with a byte order mark)", "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16 (little-endian, with a byte order mark)", "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16 (big-endian, with a byte order mark)", "UTF-16"),
)
#: Bytes of a file's start looked at for the zero bytes of UTF-16 without a mark.
_SAMPLE = 512


def wide_encoding(start: bytes) -> tuple[str, str] | None:
    """The UTF-16 or UTF-32 encoding ``start`` (a file's first bytes, at least its first line)
    is in, as (words, iconv's name), or None (UTF-8, or another 8-bit encoding).

    Told by the byte order mark (``FF FE``, ``FE FF``, ``FF FE 00 00``, ``00 00 FE FF``), or,
    without one, by zero bytes: text of Latin letters in UTF-16 has every other byte 0 (odd
    bytes for little-endian, even for big-endian), which text in UTF-8 never has.
    """
    for mark, words, name in _MARKS:
        if start.startswith(mark):
            return words, name
    sample = start[:_SAMPLE]
    if len(sample) < 2 or b"\x00" not in sample:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if odd >= len(sample[1::2]) // 2 and even == 0:
        return "UTF-16 (little-endian, without a byte order mark)", "UTF-16LE"
    if even >= len(sample[0::2]) // 2 and odd == 0:
        return "UTF-16 (big-endian, without a byte order mark)", "UTF-16BE"
    return None


def refuse_wide(start: bytes) -> str | None:
    """The message refusing a file whose first bytes ``start`` are UTF-16 or UTF-32
    (:func:`wide_encoding`), or None."""
    found = wide_encoding(start)
    if found is None:
        return None
    words, name = found
    return f"the file is {words}, not UTF-8: {CONVERT.format(encoding=name)}"


def not_utf8(raw: bytes, start: int) -> str:
    """The message for a line ``raw`` that is not UTF-8 from byte ``start`` (0-based): the
    byte, and where the line reads as Windows-1252 (a superset of Latin-1's letters), that
    reading and how to convert the file."""
    what = f"bytes that are not UTF-8 at byte {start + 1} of the line"
    try:
        reading = raw.decode("cp1252").rstrip("\r\n")
    except UnicodeDecodeError:
        return f"{what}: {CONVERT.format(encoding='ENCODING')}"
    shown = reading if len(reading) <= 60 else reading[:57] + "..."
    return (f"{what}; it reads as Latin-1 / Windows-1252 ({shown!r}): "
            f"{CONVERT.format(encoding='WINDOWS-1252')}")


def decode_line(raw: bytes, number: int) -> tuple[str | None, str | None]:
    """A raw line (its ``\\n`` kept, if any) decoded as strict UTF-8: ``(text, None)``, the first
    line's UTF-8 byte order mark removed; or ``(None, why)`` (:func:`refuse_wide` for a first
    line in UTF-16 or UTF-32, else :func:`not_utf8`)."""
    if number == 1:
        wide = refuse_wide(raw)
        if wide is not None:
            return None, wide
        raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, not_utf8(raw, exc.start)


def decode_text(data: bytes) -> tuple[str | None, str | None]:
    """A whole file's bytes decoded as strict UTF-8: ``(text, None)``, a UTF-8 byte order mark
    removed; or ``(None, why)``: :func:`refuse_wide`, else ``line N:`` and :func:`not_utf8` of
    the first line that is not UTF-8."""
    wide = refuse_wide(data[:_SAMPLE])
    if wide is not None:
        return None, wide
    try:
        return data.removeprefix(codecs.BOM_UTF8).decode("utf-8"), None
    except UnicodeDecodeError as exc:
        number = data.count(b"\n", 0, exc.start) + 1
        begin = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        line = data[begin:end if end >= 0 else len(data)]
        return None, f"line {number}: {not_utf8(line, exc.start - begin)}"
