"""Reading a PDF whose cross-reference sections point at the wrong place, as PDF readers do.

A startxref or a trailer's /Prev names where the previous cross-reference section starts. Some
writers get it wrong: a startxref past the end of the file, a /Prev of 0, a /Prev a few hundred
bytes off (three files of the EU's reference validator's tests, which DSS reads through PDFBox's
recovery). pyHanko then refuses the whole file. `open_recovered` reads it the way PDFBox and
qpdf recover: where a pointer does not land on a cross-reference section (an ``xref`` table or
an ``/XRef`` stream), the section that precedes the one that named it in the file is read
instead (for the last startxref: the file's last section). Nothing else changes: every
signature is then checked over the file's own bytes, as for any file.

Only files pyHanko refuses are read this way (esign.engine.pdf_signatures.open_pdf). Every file
is read with `Reader`, pyHanko's reader taking a null /Encrypt for none.

Pure Python (no Django).
"""

from __future__ import annotations

import io
import re
import threading
from typing import Any

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils import reader as pyhanko_reader
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.pdf_utils.xref import XRefBuilder

# A classic table's keyword at a line's start, or a cross-reference stream's object header.
_TABLE = re.compile(rb"(?:(?<=[\r\n])|\A)xref\s")
_XREF_TYPE = re.compile(rb"/Type\s*/XRef\b")
_OBJECT_START = re.compile(rb"\d{1,10}\s+\d{1,5}\s+obj\b")
_WINDOW = 2048  # a cross-reference stream's dictionary: a few keys
_MAX_STREAMS = 1000
# An object's header at a line's start (or the file's): its number, generation and "obj".
_HEADER = re.compile(rb"(\A|[\r\n])(\d{1,10})\s+(\d{1,5})\s+obj\b")
_lock = threading.Lock()  # pyHanko's reader names its xref builder as a module global


class Reader(PdfFileReader):
    """pyHanko's reader, where a null value is an absent entry (PDF 2.0 § 7.3.9) for /Encrypt
    too: pyHanko refuses a trailer's ``/Encrypt null`` ("must be a dictionary")."""

    @property
    def encrypt_dict(self) -> generic.DictionaryObject | None:
        try:
            value = self.trailer.raw_get("/Encrypt")
        except KeyError:
            return None
        if isinstance(value, generic.IndirectObject):
            value = self.get_object(value.reference, never_decrypt=True)
        if isinstance(value, generic.NullObject):
            return None
        return super().encrypt_dict


def open_recovered(pdf: bytes) -> PdfFileReader:
    """A reader of ``pdf`` whose misplaced cross-reference pointers are corrected. Raises what
    pyHanko raises when the file cannot be read even so."""
    sections = sorted({m.start() for m in _TABLE.finditer(pdf)} | set(_xref_streams(pdf)))
    headers: dict[tuple[int, int], list[int]] = {}
    for match in _HEADER.finditer(pdf):
        headers.setdefault((int(match[2]), int(match[3])), []).append(match.start(2))

    class Recovering(XRefBuilder):
        def read_xrefs(self) -> Any:
            # past every section: a wrong startxref falls back to the file's last section
            if not _at_section(pdf, sections, self.last_startxref):
                self.last_startxref = sections[-1] if sections else self.last_startxref
            return super().read_xrefs()

        def _read_xref_table(self, declared_startxref: int) -> Any:
            start = self.stream.tell()
            previous = super()._read_xref_table(declared_startxref)
            _relocate(pdf, headers, self.sections[-1].xref_data.standard_xrefs, start)
            return _corrected(pdf, sections, previous, start)

        def _read_xref_stream(self, declared_startxref: int) -> Any:
            start = self.stream.tell()
            return _corrected(pdf, sections, super()._read_xref_stream(declared_startxref), start)

    with _lock:
        original = pyhanko_reader.XRefBuilder
        pyhanko_reader.XRefBuilder = Recovering  # type: ignore[misc]
        try:
            return Reader(io.BytesIO(pdf), strict=False)
        finally:
            pyhanko_reader.XRefBuilder = original  # type: ignore[misc]


def _corrected(pdf: bytes, sections: list[int], pointer: int | None, reading: int) -> int | None:
    """``pointer`` when it lands on a cross-reference section; otherwise the last section that
    starts before the one being read (the one at or before ``reading``), None when none does."""
    if pointer is None:
        return None
    if _at_section(pdf, sections, pointer):
        return pointer
    current = max((position for position in sections if position <= reading), default=-1)
    earlier = [position for position in sections if position < current]
    return earlier[-1] if earlier else None


def _relocate(
    pdf: bytes,
    headers: dict[tuple[int, int], list[int]],
    entries: dict[int, tuple[int, int]],
    section: int,
) -> None:
    """Point each entry of a cross-reference table whose offset does not land on its object's
    header at the last header of that object before the table (where its revision wrote it)."""
    for number, (generation, offset) in list(entries.items()):
        expected = b"%d %d obj" % (number, generation)
        if pdf.startswith(expected, offset) or _at_header(pdf, offset, number, generation):
            continue
        found = [p for p in headers.get((number, generation), ()) if p < section]
        if found:
            entries[number] = (generation, found[-1])


def _at_header(pdf: bytes, offset: int, number: int, generation: int) -> bool:
    match = _HEADER.match(pdf, max(0, offset - 1))
    return bool(match and int(match[2]) == number and int(match[3]) == generation)


def _xref_streams(pdf: bytes) -> list[int]:
    """Where each cross-reference stream object starts: the last object header within a few KB
    before each ``/Type /XRef``."""
    starts = []
    # no more than a file may have revisions (esign.engine.verify_limits), the last ones
    for match in list(_XREF_TYPE.finditer(pdf))[-_MAX_STREAMS:]:
        window_start = max(0, match.start() - _WINDOW)
        headers = list(_OBJECT_START.finditer(pdf, window_start, match.start()))
        if headers:
            starts.append(headers[-1].start())
    return starts


def _at_section(pdf: bytes, sections: list[int], pointer: int) -> bool:
    """Whether ``pointer`` lands on a section (whitespace before it allowed, as pyHanko does)."""
    if not 0 <= pointer < len(pdf):
        return False
    landing = pointer + len(pdf[pointer : pointer + 64]) - len(pdf[pointer : pointer + 64].lstrip())
    return landing in sections
