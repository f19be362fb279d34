"""What an uploaded Office document is, read from its bytes, and whether it may be converted.

The name a client gives a file says nothing: a ``.pdf`` may be a Word document and a ``.docx`` a
ZIP of anything. The type is read from the content (an OOXML package's content types, an ODF
package's ``mimetype`` entry, the RTF signature), and a package is refused before LibreOffice
sees it when it is encrypted, carries macros, or would unpack to more than a document can need
(a zip bomb: too many entries, too many bytes, or bytes out of all proportion to the upload).
Each refusal is an `OfficeRefused` with a stable ``reason`` and a message naming the document.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from core.engine.problems import EngineError

# A package of more entries, or unpacking to more bytes, is refused: a contract with its images
# is a few hundred entries and tens of MB.
MAX_ENTRIES = 5_000
MAX_UNPACKED_BYTES = 256 * 1_048_576
# An entry that unpacks to more than this many times its packed size (once past 1 MB) is a bomb:
# document XML packs 5 to 30 times, pictures about once.
MAX_RATIO = 100
_RATIO_FLOOR = 1_048_576

_CHUNK = 1 << 16
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# An encrypted OOXML package is an OLE file holding this stream (its name in UTF-16).
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")


class OfficeRefused(EngineError):
    """The document cannot be converted. ``reason`` is stable; the message, for people, names
    the document."""

    code = "office_refused"
    kind = "invalid"
    path = "file"

    def __init__(self, reason: str, message: str, log_detail: str | None = None) -> None:
        self.reason = reason
        self.log_detail = log_detail
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.reason, str(self), self.log_detail))


@dataclass(frozen=True)
class OfficeKind:
    """A document type LibreOffice converts: its usual extension, LibreOffice's import filter
    (named, so its content detection cannot pick another) and the application that lays it out."""

    name: str  # "DOCX"
    extension: str  # "docx"
    import_filter: str
    application: str  # "writer", "calc" or "impress": names the PDF export filter


DOCX = OfficeKind("DOCX", "docx", "MS Word 2007 XML", "writer")
XLSX = OfficeKind("XLSX", "xlsx", "Calc MS Excel 2007 XML", "calc")
PPTX = OfficeKind("PPTX", "pptx", "Impress MS PowerPoint 2007 XML", "impress")
ODT = OfficeKind("ODT", "odt", "writer8", "writer")
ODS = OfficeKind("ODS", "ods", "calc8", "calc")
ODP = OfficeKind("ODP", "odp", "impress8", "impress")
RTF = OfficeKind("RTF", "rtf", "Rich Text Format", "writer")
# The extensions a converted document's name loses to ".pdf" ("lease.docx" becomes "lease.pdf").
EXTENSIONS = ("docx", "dotx", "docm", "xlsx", "xlsm", "pptx", "pptm", "odt", "ods", "odp", "rtf")


def pdf_name(filename: str) -> str:
    """``filename`` as the PDF a document of that name becomes."""
    stem, dot, extension = filename.rpartition(".")
    if dot and stem and extension.lower() in EXTENSIONS:
        return f"{stem}.pdf"
    return filename if filename.lower().endswith(".pdf") else f"{filename}.pdf"


# An OOXML package's main part, by its content type; the macro-enabled ones are named too, to be
# refused for their macros rather than as unknown.
_OOXML_MAIN = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml": DOCX,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml": DOCX,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": XLSX,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml": PPTX,
}
_OOXML_MACRO_MAIN = (
    "application/vnd.ms-word.document.macroEnabled.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml",
    "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
)
_ODF_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": ODT,
    "application/vnd.oasis.opendocument.spreadsheet": ODS,
    "application/vnd.oasis.opendocument.presentation": ODP,
}
# The parts of a package that hold macros: a VBA project (OOXML), a Basic module or a script
# (ODF). An empty Basic library (its index files only), which old OpenOffice saved in every
# document, holds none.
_MACRO_ENTRY = re.compile(
    r"(?i)(^|/)vbaProject\.bin$|^Basic/[^/]+/(?!(script|dialog)-lb\.xml$)[^/]+$|^Scripts/.*[^/]$"
)
# A DOCX's explicit page breaks: manual ones, and paragraphs that start a page.
_PAGE_BREAK = re.compile(rb'w:type="page"|<w:pageBreakBefore(?:/| w:val="(?:1|true|on)")')


def is_office_document(data: bytes) -> bool:
    """Whether ``data`` looks like a document this module converts (or refuses in its own
    words): an OLE, ZIP or RTF file. A PDF is not one."""
    head = data[:8]
    return head.startswith((b"PK\x03\x04", b"{\\rtf", _OLE))


def sniff(data: bytes, filename: str, *, max_pages: int | None = None) -> OfficeKind:
    """The type of ``data``, once it is known to be safe to hand to LibreOffice. Raises
    OfficeRefused (naming ``filename``) for an encrypted, macro-carrying, unknown, damaged or
    oversized document, and for a DOCX with more explicit page breaks than ``max_pages``."""
    name = filename or "The document"
    if data.startswith(b"{\\rtf"):
        return RTF
    if data.startswith(_OLE):
        if _ENCRYPTED_PACKAGE in data:
            raise OfficeRefused("encrypted", f"{name} is password-protected: {_UNPROTECT}")
        raise OfficeRefused(
            "unsupported",
            f"{name} is in an old binary Office format (.doc, .xls or .ppt); save it as .docx, "
            ".xlsx or .pptx and upload it again.",
        )
    if not data.startswith(b"PK\x03\x04"):
        raise OfficeRefused("unsupported", f"{name} is not a PDF, DOCX, ODT or RTF document.")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            entries = package.infolist()
            _check_sizes(entries, name)
            kind = _package_kind(package, name)
            if any(_MACRO_ENTRY.search(entry.filename) for entry in entries):
                raise OfficeRefused("macros", f"{name} contains macros: {_NO_MACROS}")
            _check_unpacked(data, entries, name)
            if kind is DOCX and max_pages is not None:
                _check_page_breaks(package, name, max_pages)
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        KeyError,
        NotImplementedError,
        zlib.error,
        struct.error,
    ) as e:
        raise OfficeRefused(
            "damaged", f"{name} is damaged and cannot be read.", log_detail=type(e).__name__
        ) from None
    except RuntimeError as error:  # zipfile: an entry encrypted the ZIP way
        if "encrypted" not in str(error):
            raise
        raise OfficeRefused("encrypted", f"{name} is password-protected: {_UNPROTECT}") from None
    return kind


_UNPROTECT = "remove its password and upload it again."
_NO_MACROS = "save it as a document without macros (.docx, .odt) and upload it again."


def _check_sizes(entries: list[zipfile.ZipInfo], name: str) -> None:
    """The package's own account of itself, before anything is unpacked."""
    if len(entries) > MAX_ENTRIES:
        raise OfficeRefused("too_large", f"{name} holds more than {MAX_ENTRIES} parts.")
    declared = sum(entry.file_size for entry in entries)
    if declared > MAX_UNPACKED_BYTES:
        raise OfficeRefused("too_large", f"{name} unpacks to more than {_mb(MAX_UNPACKED_BYTES)}.")
    for entry in entries:
        if entry.flag_bits & 0x1:
            raise OfficeRefused("encrypted", f"{name} is password-protected: {_UNPROTECT}")
        if _bomb(entry.file_size, entry.compress_size):
            raise OfficeRefused("zip_bomb", _bomb_message(name))


def _bomb(unpacked: int, packed: int) -> bool:
    return unpacked > _RATIO_FLOOR and unpacked > MAX_RATIO * max(packed, 1)


def _bomb_message(name: str) -> str:
    return (
        f"{name} unpacks to far more than its size (over {MAX_RATIO} times): it is refused as a "
        "compression bomb."
    )


def _mb(size: int) -> str:
    return f"{size // 1_048_576} MB"


def _package_kind(package: zipfile.ZipFile, name: str) -> OfficeKind:
    names = set(package.namelist())
    if "mimetype" in names:
        mimetype = _read_small(package, "mimetype").decode("ascii", "replace").strip()
        kind = _ODF_MIMETYPES.get(mimetype)
        if kind is None:
            raise OfficeRefused("unsupported", f"{name} is an OpenDocument of an unsupported kind.")
        manifest = (
            _read_small(package, "META-INF/manifest.xml")
            if ("META-INF/manifest.xml" in names)
            else b""
        )
        if b"encryption-data" in manifest:
            raise OfficeRefused("encrypted", f"{name} is password-protected: {_UNPROTECT}")
        return kind
    if "[Content_Types].xml" in names:
        types = _read_small(package, "[Content_Types].xml").decode("utf-8", "replace")
        for content_type in re.findall(r'ContentType="([^"]+)"', types):
            if content_type in _OOXML_MAIN:
                return _OOXML_MAIN[content_type]
            if content_type in _OOXML_MACRO_MAIN:
                raise OfficeRefused("macros", f"{name} contains macros: {_NO_MACROS}")
    raise OfficeRefused("unsupported", f"{name} is a ZIP file, not a DOCX, ODT or RTF document.")


def _read_small(package: zipfile.ZipFile, entry: str, limit: int = 1_048_576) -> bytes:
    """An entry that describes the package: small, or the package is not one we convert."""
    with package.open(entry) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise OfficeRefused("damaged", f"The package's {entry} is too large to be genuine.")
    return data


def _check_unpacked(data: bytes, entries: list[zipfile.ZipInfo], name: str) -> None:
    """Unpack every entry (and throw the bytes away), reading its compressed bytes ourselves:
    zipfile stops at the size the directory declares, LibreOffice at the end of the data, so a
    forged size would hide a bomb from the one and not the other."""
    total = 0
    for entry in entries:
        unpacked = 0
        for size in _unpacked_chunks(data, entry):
            unpacked += size
            total += size
            if total > MAX_UNPACKED_BYTES:
                raise OfficeRefused(
                    "too_large", f"{name} unpacks to more than {_mb(MAX_UNPACKED_BYTES)}."
                )
            if _bomb(unpacked, entry.compress_size):
                raise OfficeRefused("zip_bomb", _bomb_message(name))
        if unpacked != entry.file_size:
            raise OfficeRefused(
                "damaged",
                f"{name} is damaged and cannot be read.",
                log_detail="an entry's size is not what the package declares",
            )


def _unpacked_chunks(data: bytes, entry: zipfile.ZipInfo) -> Iterator[int]:
    """The sizes of the pieces ``entry`` unpacks to, piece by piece (never all at once)."""
    header = entry.header_offset
    if data[header : header + 4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("no local header")
    name_length, extra_length = struct.unpack("<HH", data[header + 26 : header + 30])
    start = header + 30 + name_length + extra_length
    packed = data[start : start + entry.compress_size]
    if entry.compress_type == zipfile.ZIP_STORED:
        yield len(packed)
        return
    if entry.compress_type != zipfile.ZIP_DEFLATED:  # Office packages use these two only
        raise NotImplementedError("compression method")
    inflate = zlib.decompressobj(-zlib.MAX_WBITS)
    view = memoryview(packed)
    for offset in range(0, len(packed), _CHUNK):
        pending: bytes | memoryview = view[offset : offset + _CHUNK]
        while pending:
            # At most a chunk out per call: a bomb's bytes are counted, never held.
            out = inflate.decompress(pending, _CHUNK)
            yield len(out)
            pending = inflate.unconsumed_tail
            if inflate.eof:
                return
    while not inflate.eof and (out := inflate.decompress(b"", _CHUNK)):
        yield len(out)


def _check_page_breaks(package: zipfile.ZipFile, name: str, max_pages: int) -> None:
    """A DOCX that breaks to more pages than allowed is refused before any layout: counting its
    breaks costs a read, laying out ten thousand pages costs LibreOffice most of its time limit.
    Each break starts a page, so the document has at least one page more than its breaks (but
    for a break before its very first paragraph)."""
    breaks = 0
    tail = b""
    with package.open("word/document.xml") as stream:
        while chunk := stream.read(_CHUNK):
            window = tail + chunk
            # A match that ends in the carried tail was counted with the chunk before.
            breaks += sum(1 for m in _PAGE_BREAK.finditer(window) if m.end() > len(tail))
            tail = window[-48:]
            if breaks >= max_pages:
                raise OfficeRefused("too_many_pages", too_many_pages(name, max_pages))


def too_many_pages(name: str, max_pages: int) -> str:
    return f"{name} has more than {max_pages} pages; split it and upload the parts."
