"""Hostile uploads for the upload checks (esign.engine.spreadsheets, attachment_files), made in the
test, small on disk and cheap to make.

XLSX: a real workbook (openpyxl) with one XML part replaced: entities that expand a billionfold,
an external entity naming a file, a shared string of hundreds of megabytes. The big one is
deflated once per megabyte: a megabyte of one letter compressed after a full flush does not
refer to anything before it, so the same kilobyte of deflate stands for every megabyte, and the
zip is written by hand around it (zipfile cannot take data already deflated).

PDF: a page tree whose one /Kids array names the same page again and again (the security
report's 1.2 MB file names one page 200,000 times).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

from openpyxl import Workbook

# A PDF of its objects with a right xref table, written by hand: the same as the flat-PDF probes'.
from tests.templates_app.hostile_pdfs import raw_pdf as pdf_of

SHEET = "xl/worksheets/sheet1.xml"
SHARED_STRINGS = "xl/sharedStrings.xml"
CONTENT_TYPES = "[Content_Types].xml"
SHARED_STRINGS_TYPE = (
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
)
MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
MB = 1_048_576


def xlsx(rows: list[list[object]]) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def signer_rows() -> bytes:
    return xlsx([["name", "email"], ["Ada Lovelace", "ada@example.com"]])


def with_parts(data: bytes, parts: dict[str, bytes]) -> bytes:
    """The zip ``data`` with ``parts`` in place of (or beside) its own."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            target.writestr(name, parts.get(name, source.read(name)))
        for name, content in parts.items():
            if name not in source.namelist():
                target.writestr(name, content)
    return out.getvalue()


def sheet_xml(cells: str, *, dimension: str | None = "A1:B2", prolog: str = "") -> bytes:
    """A worksheet part: ``cells`` are its <row> elements."""
    dimension_xml = f'<dimension ref="{dimension}"/>' if dimension else ""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{prolog}<worksheet xmlns="{MAIN_NS}">'
        f"{dimension_xml}<sheetData>{cells}</sheetData></worksheet>"
    ).encode()


def inline_cell(reference: str, text: str) -> str:
    return f'<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>'


def shared_string_parts() -> dict[str, bytes]:
    """The parts that make the first cell (the first column's name) the workbook's shared
    string 0, with the part of shared strings listed (openpyxl writes its strings inline): add
    the shared strings part itself."""
    types = zipfile.ZipFile(io.BytesIO(signer_rows())).read(CONTENT_TYPES)
    override = f'<Override PartName="/{SHARED_STRINGS}" ContentType="{SHARED_STRINGS_TYPE}"/>'
    cells = f'<row r="1"><c r="A1" t="s"><v>0</v></c>{inline_cell("B1", "email")}</row>'
    return {
        CONTENT_TYPES: types.replace(b"</Types>", override.encode() + b"</Types>"),
        SHEET: sheet_xml(cells, dimension="A1:B1"),
    }


def billion_laughs_xlsx() -> bytes:
    """Ten levels of ten: one shared string that expands to a billion "lol"s."""
    entities = '<!ENTITY lol0 "lol">' + "".join(
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10)
    )
    shared = (
        f'<?xml version="1.0"?><!DOCTYPE sst [{entities}]>'
        f'<sst xmlns="{MAIN_NS}" count="1" uniqueCount="1"><si><t>&lol9;</t></si></sst>'
    ).encode()
    return with_parts(signer_rows(), {**shared_string_parts(), SHARED_STRINGS: shared})


def external_entity_xlsx(path: str = "/etc/hostname") -> bytes:
    """A cell whose text is an external entity naming a file of the server."""
    prolog = f'<!DOCTYPE worksheet [<!ENTITY secret SYSTEM "file://{path}">]>'
    cells = (
        f'<row r="1">{inline_cell("A1", "name")}{inline_cell("B1", "email")}</row>'
        f'<row r="2">{inline_cell("A2", "&secret;")}{inline_cell("B2", "a@example.com")}</row>'
    )
    return with_parts(signer_rows(), {SHEET: sheet_xml(cells, prolog=prolog)})


# --- a shared string of hundreds of megabytes ----------------------------------------------------


def _raw_deflate(data: bytes, flush: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(flush)


def _zip_by_hand(parts: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of (name, raw deflate, CRC-32, size) parts."""
    out = bytearray()
    directory = bytearray()
    for name, deflated, crc, size in parts:
        encoded = name.encode()
        offset = len(out)
        # Version 2.0, no flags, deflate, 1980-01-01 00:00.
        common = (8, 0, 0x21, crc, len(deflated), size, len(encoded), 0)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, *common) + encoded + deflated
        directory += (
            struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, *common, 0, 0, 0, 0, offset)
            + encoded
        )
    start = len(out)
    out += directory
    out += struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(parts), len(parts), len(directory), start, 0
    )
    return bytes(out)


def inflated_shared_string_xlsx(megabytes: int = 600) -> bytes:
    """A workbook whose one shared string (the first row's name) is ``megabytes`` of "A": about
    a kilobyte on disk per megabyte inflated."""
    head = f'<?xml version="1.0"?><sst xmlns="{MAIN_NS}" count="1" uniqueCount="1"><si><t>'
    tail = b"</t></si></sst>"
    megabyte = b"A" * MB
    one_megabyte = _raw_deflate(megabyte, zlib.Z_FULL_FLUSH)
    deflated = (
        _raw_deflate(head.encode(), zlib.Z_FULL_FLUSH)
        + one_megabyte * megabytes
        + _raw_deflate(tail, zlib.Z_FINISH)
    )
    crc = zlib.crc32(head.encode())
    for _ in range(megabytes):
        crc = zlib.crc32(megabyte, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + megabytes * MB + len(tail)

    source = zipfile.ZipFile(io.BytesIO(signer_rows()))
    replaced = shared_string_parts()
    parts = []
    for name in source.namelist():
        content = replaced.get(name) or source.read(name)
        parts.append(
            (name, _raw_deflate(content, zlib.Z_FINISH), zlib.crc32(content), len(content))
        )
    parts.append((SHARED_STRINGS, deflated, crc, size))
    return _zip_by_hand(parts)


def zlib_of_repeated(byte: bytes, megabytes: int) -> bytes:
    """A zlib stream (a PDF's /FlateDecode) of ``megabytes`` of ``byte``, deflated as above."""
    megabyte = byte * MB
    adler = 1
    for _ in range(megabytes):
        adler = zlib.adler32(megabyte, adler)
    return (
        b"\x78\xda"
        + _raw_deflate(megabyte, zlib.Z_FULL_FLUSH) * megabytes
        + _raw_deflate(b"", zlib.Z_FINISH)
        + struct.pack(">I", adler)
    )


# --- PDF -------------------------------------------------------------------------------------------


def repeated_page_pdf(times: int = 200_000) -> bytes:
    """A PDF whose page tree's one /Kids array names page 3 ``times`` times (6 bytes a name:
    1.2 MB for the report's 200,000)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + b"3 0 R " * times + b"] /Count %d >>" % times,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    ]
    return pdf_of(objects)
