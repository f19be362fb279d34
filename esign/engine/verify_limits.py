"""What one verification may parse, checked on the raw bytes before any parse.

pyHanko's parse of a hostile file can be unbounded: it reads a hex string digit by digit into
Python objects (12 MB of digits took 1 to 2 GB). ``check_pdf_limits`` refuses such files
(``PdfOverLimit``) by scanning the bytes, and the object streams inflated within a bound: each
signature's contents, all of them together, hexadecimal or literal ``( ... )`` strings. Whatever
passes still runs within the worker's memory and time limits (esign.engine.verify_pool).

Pure Python (no Django).
"""

from __future__ import annotations

import operator
import re
import zlib
from dataclasses import dataclass
from itertools import accumulate
from typing import NoReturn

from core.engine.problems import EngineError, Problem


class PdfTooComplex(EngineError):
    """The file is beyond what one verification may spend (a 422 on ``file``, not a 400: the
    file may be a fine PDF)."""

    code = "pdf_too_complex"
    kind = "unprocessable"
    path = "file"

    def __init__(self, message: str) -> None:
        self.message = message
        self.problems = [Problem(self.path, message)]
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.message,))


class PdfOverLimit(PdfTooComplex):
    """The raw bytes are over a structural limit (`check_pdf_limits`); nothing was parsed."""

    code = "pdf_over_limit"


@dataclass(frozen=True)
class VerifyLimits:
    """What one verification may parse. The defaults are far above real signed files: a
    PAdES-B-LTA signature's CMS object (certificates, timestamp, revocation data) is some tens of
    KB, a document a few revisions per signer, its object streams (compressed objects: no page
    content) smaller than the file."""

    max_signature_contents_bytes: int = 1_048_576  # DER bytes: half the hex digits
    max_revisions: int = 100  # incremental updates (startxref keywords)
    # indirect objects (headers, object streams' /N); a cross-reference stream's entries
    max_objects: int = 200_000
    max_signatures: int = 200  # signatures and document timestamps (/ByteRange arrays)
    # Every signature's contents together (every long string, hexadecimal or literal).
    max_total_signature_contents_bytes: int = 8 * 1_048_576
    max_object_streams: int = 5_000  # compressed object streams (/Type /ObjStm)
    max_object_stream_bytes: int = 64 * 1_048_576  # all of them, inflated


_BYTE_RANGE = re.compile(rb"/ByteRange\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})")
_OBJECT_HEADER = re.compile(rb"\d\s+obj\b")
_XREF_SIZE = re.compile(rb"/Size\s+(\d{1,12})")
_XREF_INDEX = re.compile(rb"/Index\s*\[([\d\s]*)\]")
_STREAM_OBJECTS = re.compile(rb"/N\s+(\d{1,12})")
_XREF_STREAM = re.compile(rb"/Type\s*/XRef\b")
# A hexadecimal string long enough to be a signature's contents: what counts towards the total.
# Whitespace may sit between the digits; pyHanko reads it all the same.
_LONG_HEX = re.compile(rb"<[0-9A-Fa-f\s]{1024,}")
_LITERAL_CONTENTS = re.compile(rb"/Contents\s*\(")
# In a literal string, an escape: a backslash and the byte after it, never the string's end.
_ESCAPE = re.compile(rb"\\.", re.S)
_DEPTH_CHANGE = [0] * 256
_DEPTH_CHANGE[ord("(")] = 1
_DEPTH_CHANGE[ord(")")] = -1
_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm\b")
_STREAM_KEYWORD = re.compile(rb"(?<!end)stream(?:\r\n|\n|\r)")
_FILTER = re.compile(rb"/Filter\b")
_FLATE_ONLY = re.compile(rb"/Filter\s*(?:\[\s*/FlateDecode\s*\]|/FlateDecode\b)")
_INFLATE_CHUNK = 64 * 1024
_DICTIONARY_WINDOW = 4096


@dataclass
class _Tally:
    """What the scans found so far, across the file and its object streams."""

    signatures: int = 0
    contents: int = 0  # bytes of signature contents (long strings)
    inflated: int = 0  # bytes of object streams, inflated


def check_pdf_limits(pdf: bytes, limits: VerifyLimits) -> None:
    """Refuse ``pdf`` (PdfOverLimit on ``file``) when its raw bytes are over ``limits``.

    Scans only, with regular expressions over the bytes (a 25 MB file in well under a second
    and no copy of it): no PDF parse. What compressed object streams hold is invisible in the
    raw bytes, so each is inflated (at most ``max_object_stream_bytes`` for all of them, one at
    a time) and scanned the same way: signatures, their contents, long strings.
    """
    tally = _Tally()
    _check_strings(pdf, limits, tally)
    revisions = pdf.count(b"startxref")
    if revisions > limits.max_revisions:
        _refuse(f"The file has {revisions} revisions; the limit is {limits.max_revisions}.")
    # Objects actually present: their headers, and those object streams say they hold. A
    # trailer's /Size is not counted: it is a number, not objects (and "/Size" also names an
    # embedded file's length: a 482 KB file "had 278,728 objects").
    objects = sum(1 for _ in _OBJECT_HEADER.finditer(pdf)) + sum(
        _declared(pdf, header.start(), _STREAM_OBJECTS) for header in _OBJECT_STREAM.finditer(pdf)
    )
    if objects > limits.max_objects:
        _refuse(f"The file has {objects} objects; the limit is {limits.max_objects}.")
    # pyHanko reads a cross-reference stream entry by entry, as many as its /Index (or /Size)
    # declares, whatever its data holds: that count is bounded as objects are.
    for header in _XREF_STREAM.finditer(pdf):
        entries = _xref_stream_entries(pdf, header.start())
        if entries > limits.max_objects:
            _refuse(
                f"A cross-reference stream declares {entries} entries; the limit is"
                f" {limits.max_objects}."
            )
    for streams, header in enumerate(_OBJECT_STREAM.finditer(pdf), start=1):
        if streams > limits.max_object_streams:
            _refuse(
                f"The file has more than {limits.max_object_streams:,} object streams;"
                " that is the limit."
            )
        inflated = _inflate_object_stream(pdf, header.start(), limits, tally)
        if inflated:
            _check_strings(inflated, limits, tally)


def _dictionary_around(pdf: bytes, header: int) -> bytes:
    """The dictionary of the stream object whose /Type is at ``header``: from its ``obj``
    keyword to its ``stream`` keyword, within a few KB (a stream's dictionary is a few keys)."""
    window_start = max(0, header - _DICTIONARY_WINDOW)
    start = max(window_start, pdf.rfind(b"obj", window_start, header))
    stream = _STREAM_KEYWORD.search(pdf, header, header + _DICTIONARY_WINDOW)
    return pdf[start : stream.start() if stream else header + _DICTIONARY_WINDOW]


def _declared(pdf: bytes, header: int, key: re.Pattern[bytes]) -> int:
    match = key.search(_dictionary_around(pdf, header))
    return int(match.group(1)) if match else 0


def _xref_stream_entries(pdf: bytes, header: int) -> int:
    """The entries a cross-reference stream declares: the counts of its /Index pairs, or its
    /Size without one."""
    dictionary = _dictionary_around(pdf, header)
    index = _XREF_INDEX.search(dictionary)
    if index is None:
        if b"/Index" in dictionary:  # an /Index array longer than a dictionary may be
            _refuse("The file has a cross-reference stream this verifier cannot read.")
        size = _XREF_SIZE.search(dictionary)
        return int(size.group(1)) if size else 0
    numbers = [int(n) for n in index.group(1).split()]
    return sum(numbers[1::2])


def _check_strings(data: bytes, limits: VerifyLimits, tally: _Tally) -> None:
    """The signatures in ``data`` (the file, or an object stream inflated) and every string
    that could be a signature's contents: each within the per-signature limit, all together
    within the total."""
    limit = limits.max_signature_contents_bytes
    for match in _BYTE_RANGE.finditer(data):
        tally.signatures += 1
        first_start, first_length, second_start, _ = (int(g) for g in match.groups())
        gap = second_start - (first_start + first_length)
        contents = max(0, gap - 2) // 2  # hex digits between < and >, two to a byte
        if contents > limit:
            _refuse(f"A signature's contents are {_size(contents)}; the limit is {_size(limit)}.")
    if tally.signatures > limits.max_signatures:
        _refuse(
            f"The file has {tally.signatures} signatures; the limit is {limits.max_signatures}."
        )
    for match in _LONG_HEX.finditer(data):
        digits = match.end() - match.start() - 1
        if digits > 2 * limit:
            _refuse(
                "The file holds a string longer than a signature's contents may be"
                f" ({_size(limit)})."
            )
        _count_contents(digits // 2, limits, tally)
    for match in _LITERAL_CONTENTS.finditer(data):
        length = _literal_length(data, match.end(), limit)
        if length is None:
            _refuse(
                f"A signature's contents are longer than {_size(limit)}; the limit is"
                f" {_size(limit)}."
            )
        _count_contents(length, limits, tally)


def _count_contents(size: int, limits: VerifyLimits, tally: _Tally) -> None:
    tally.contents += size
    total = limits.max_total_signature_contents_bytes
    if tally.contents > total:
        _refuse(
            f"The file's signatures hold more than {_size(total)} of contents; the limit is"
            f" {_size(total)}."
        )


def _literal_length(data: bytes, start: int, limit: int) -> int | None:
    """The length in bytes (escapes and all: at least the string's) of the literal string whose
    first byte after ``(`` is at ``start``; None when it is longer than ``limit``.

    In C loops, not a Python step per parenthesis (1 MB of ``()()...`` took a second that way):
    each escape is blanked to two neutral bytes, then the nesting depth is summed byte by byte
    (``accumulate``) up to where it comes back to 0."""
    window = _ESCAPE.sub(b"__", data[start : start + limit + 1])
    close = window.find(b")")
    if close < 0:
        return None
    if window.find(b"(", 0, close) < 0:
        return close  # the common case: no parenthesis inside
    depths = accumulate(map(_DEPTH_CHANGE.__getitem__, window), initial=1)
    try:
        return operator.indexOf(depths, 0) - 1  # depths[i] is the depth after byte i - 1
    except ValueError:
        return None


def _inflate_object_stream(
    pdf: bytes, header: int, limits: VerifyLimits, tally: _Tally
) -> bytes | None:
    """The contents of the object stream whose dictionary holds ``header`` (its /Type), inflated
    a chunk at a time within what is left of ``max_object_stream_bytes``. None when it is not
    compressed (its objects are in the raw bytes, scanned already). Refused when its data is
    not within a few KB of its /Type, or compressed otherwise than by /FlateDecode alone: no
    other filter is inflated here."""
    # An object stream's dictionary is a few keys: searched no further than that, or each of
    # thousands of /Type /ObjStm would search the whole file.
    stream = _STREAM_KEYWORD.search(pdf, header, header + _DICTIONARY_WINDOW)
    if stream is None:
        _refuse("The file has an object stream this verifier cannot find the data of.")
    window_start = max(0, header - _DICTIONARY_WINDOW)
    dictionary_start = max(window_start, pdf.rfind(b"obj", window_start, header))
    dictionary = pdf[dictionary_start : stream.start()]
    if not _FILTER.search(dictionary):
        return None
    # With /DecodeParms (a predictor: unheard of on object streams) what is inflated is scanned
    # as it is; it is bounded all the same, and the worker reads strings at once.
    if not _FLATE_ONLY.search(dictionary):
        _refuse("The file has an object stream compressed in a way the verifier does not read.")
    room = limits.max_object_stream_bytes - tally.inflated
    inflater = zlib.decompressobj()
    inflated = bytearray()
    view = memoryview(pdf)
    position = stream.end()
    pending: bytes | memoryview = b""
    try:
        while not inflater.eof:
            if not pending:
                if position >= len(pdf):
                    break
                pending = view[position : position + _INFLATE_CHUNK]
                position += len(pending)
            # max_length is at least 1 here: 0 would mean no bound.
            inflated += inflater.decompress(pending, room + 1 - len(inflated))
            pending = inflater.unconsumed_tail
            if len(inflated) > room:
                _refuse(
                    "The file's object streams hold more than"
                    f" {_size(limits.max_object_stream_bytes)} once inflated; that is the limit."
                )
    except zlib.error:
        pass  # damaged: what was inflated is scanned; pyHanko reads no more of it than that
    tally.inflated += len(inflated)
    return bytes(inflated)


def _refuse(message: str) -> NoReturn:
    raise PdfOverLimit(message)


def _size(count: int) -> str:
    if count >= 1_048_576:
        return f"{count / 1_048_576:.1f}".removesuffix(".0") + " MB"
    return f"{count:,} bytes"
