"""What one verification may parse, checked on the raw bytes before any parse.

pyHanko's parse of a hostile file can be unbounded: it reads a hex string digit by digit into
Python objects (12 MB of digits took 1 to 2 GB). ``check_pdf_limits`` refuses such files
(``PdfOverLimit``) by scanning the bytes; what hides in compressed object streams is left to the
worker's memory and time limits (esign.engine.verify_pool).

Pure Python (no Django).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    KB, a document a few revisions per signer."""

    max_signature_contents_bytes: int = 1_048_576  # DER bytes: half the hex digits
    max_revisions: int = 100  # incremental updates (startxref keywords)
    max_objects: int = 200_000  # indirect objects (object headers, the trailers' /Size)
    max_signatures: int = 200  # signatures and document timestamps (/ByteRange arrays)


_BYTE_RANGE = re.compile(rb"/ByteRange\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})")
_OBJECT_HEADER = re.compile(rb"\d\s+obj\b")
_TRAILER_SIZE = re.compile(rb"/Size\s+(\d{1,12})")


def check_pdf_limits(pdf: bytes, limits: VerifyLimits) -> None:
    """Refuse ``pdf`` (PdfOverLimit on ``file``) when its raw bytes are over ``limits``.

    Scans only, with regular expressions over the bytes (a 25 MB file in well under a second
    and no copy of it): no PDF parse. A signature's /Contents is the gap between the two ranges
    of its /ByteRange; a /ByteRange that lies is caught by the longest hexadecimal string,
    which pyHanko would parse just the same.
    """
    limit = limits.max_signature_contents_bytes
    signatures = 0
    for match in _BYTE_RANGE.finditer(pdf):
        signatures += 1
        first_start, first_length, second_start, _ = (int(g) for g in match.groups())
        gap = second_start - (first_start + first_length)
        contents = max(0, gap - 2) // 2  # hex digits between < and >, two to a byte
        if contents > limit:
            _refuse(f"A signature's contents are {_size(contents)}; the limit is {_size(limit)}.")
    if signatures > limits.max_signatures:
        _refuse(f"The file has {signatures} signatures; the limit is {limits.max_signatures}.")
    # Whitespace may sit between the digits; pyHanko reads it all the same.
    if re.search(rb"<[0-9A-Fa-f\s]{%d}" % (2 * limit + 1), pdf):
        _refuse(
            f"The file holds a string longer than a signature's contents may be ({_size(limit)})."
        )
    revisions = pdf.count(b"startxref")
    if revisions > limits.max_revisions:
        _refuse(f"The file has {revisions} revisions; the limit is {limits.max_revisions}.")
    objects = sum(1 for _ in _OBJECT_HEADER.finditer(pdf))
    declared = max((int(m.group(1)) for m in _TRAILER_SIZE.finditer(pdf)), default=0)
    if max(objects, declared) > limits.max_objects:
        _refuse(
            f"The file has {max(objects, declared)} objects; the limit is {limits.max_objects}."
        )


def _refuse(message: str) -> None:
    raise PdfOverLimit(message)


def _size(count: int) -> str:
    if count >= 1_048_576:
        return f"{count / 1_048_576:.1f}".removesuffix(".0") + " MB"
    return f"{count:,} bytes"
