"""Readers of PDF strings for pyHanko's parser that read a string at once, not byte by byte.

pyHanko reads a hexadecimal string ``< ... >`` one ``stream.read(1)`` and one generator step per
digit, and a literal string ``( ... )`` one byte at a time: about 1.4 microseconds a byte, so a
file whose signatures hold 24 MB of digits (in compressed object streams, invisible to the byte
scan of ``verify_limits``) took 34 s to parse, and a 20 MB literal /Contents 7 s before its text
decoding. These readers find the end of the string with one search per chunk and convert it with
``binascii`` / one regular expression: the same 24 MB in a fraction of a second.

They give what pyHanko's give for every string, or raise the same errors; the rare shapes they do
not handle themselves (a comment inside a hexadecimal string) are handed to pyHanko's own reader.
``install()`` puts them in place of pyHanko's in this process (the verify worker calls it).

Pure Python (no Django).
"""

from __future__ import annotations

import binascii
import os
import re
from typing import BinaryIO

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.misc import PdfReadError, PdfStreamError

_CHUNK = 64 * 1024
_MAX_CHUNK = 4 * 1_048_576
# In a literal string: an escape (a backslash and the byte after it: never the string's end), a
# backslash with nothing after it (the chunk ends there: read on), or a parenthesis (they nest).
LITERAL_TOKEN = re.compile(rb"\\.|\\\Z|[()]", re.S)

# pyHanko's whitespace (misc.PDF_WHITESPACE): NUL is, vertical tab is not.
_WHITESPACE = re.compile(rb"[ \n\r\t\f\x00]+")
_NOT_HEX = re.compile(rb"[^0-9A-Fa-f \n\r\t\f\x00]")
# pyHanko's escapes: up to three digits (octal; 8 and 9 fail as there), a line break (with the
# next CR or LF), or one byte.
_ESCAPE = re.compile(rb"\\(?:([0-9]{1,3})|([\r\n][\r\n]?)|(.))", re.S)
_SIMPLE_ESCAPES = {
    b"n": b"\n",
    b"r": b"\r",
    b"t": b"\t",
    b"b": b"\b",
    b"f": b"\f",
    **{bytes([c]): bytes([c]) for c in b"() /%<>[]#_&$\\"},
}

_originals = {
    "hex": generic.read_hex_string_from_stream,
    "literal": generic.read_string_from_stream,
}


def read_hex_string(stream: BinaryIO) -> generic.ByteStringObject | generic.TextStringObject:
    """Read ``< ... >`` at the stream's position (on the ``<``), as
    ``generic.read_hex_string_from_stream`` does."""
    start = stream.tell()
    stream.read(1)
    pieces: list[bytes] = []
    chunk = _CHUNK
    while True:
        data = stream.read(chunk)
        if not data:
            raise PdfStreamError("Stream ended prematurely")
        end = data.find(b">")
        piece = data if end < 0 else data[:end]
        bad = _NOT_HEX.search(piece)
        if bad is not None:
            if piece[bad.start()] == ord("%"):  # a comment: pyHanko skips it, with its own rules
                stream.seek(start)
                return _originals["hex"](stream)
            raise PdfStreamError(
                "Unexpected token in hex string: " + repr(piece[bad.start() : bad.start() + 1])
            )
        pieces.append(piece)
        if end >= 0:
            stream.seek(end + 1 - len(data), os.SEEK_CUR)
            break
        chunk = min(2 * chunk, _MAX_CHUNK)
    digits = _WHITESPACE.sub(b"", b"".join(pieces))
    if len(digits) % 2:
        digits += b"0"
    return generic.pdf_string(binascii.unhexlify(digits))


def read_literal_string(stream: BinaryIO) -> generic.ByteStringObject | generic.TextStringObject:
    """Read ``( ... )`` at the stream's position (on the ``(``), as
    ``generic.read_string_from_stream`` does."""
    stream.read(1)
    buffer = bytearray()
    depth = 1
    scanned = 0
    chunk = _CHUNK
    while True:
        data = stream.read(chunk)
        if not data:
            raise PdfStreamError("Stream has ended unexpectedly")
        buffer += data
        chunk = min(2 * chunk, _MAX_CHUNK)
        end = None
        for token in LITERAL_TOKEN.finditer(buffer, scanned):
            if token.group() == b"\\":  # the buffer ends inside an escape: read on
                scanned = token.start()
                break
            if token.group() == b"(":
                depth += 1
            elif token.group() == b")":
                depth -= 1
                if depth == 0:
                    end = token.start()
                    break
        else:
            scanned = len(buffer)
        if end is not None:
            break
    stream.seek(end + 1 - len(buffer), os.SEEK_CUR)
    raw = bytes(buffer[:end])
    if b"\\" in raw:
        raw = _ESCAPE.sub(_unescape, raw)
    return generic.pdf_string(raw)


def _unescape(escape: re.Match[bytes]) -> bytes:
    digits, line_break, other = escape.groups()
    if digits is not None:
        # As pyHanko: high-order overflow (above 255) and the digits 8 and 9 fail.
        return bytes((int(digits, base=8),))
    if line_break is not None:
        return b""
    if other in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[other]
    raise PdfReadError("Unexpected escaped string: " + repr(other))


def install() -> None:
    """Make pyHanko's parser (``generic.read_object``) use these readers in this process."""
    generic.read_hex_string_from_stream = read_hex_string
    generic.read_string_from_stream = read_literal_string
