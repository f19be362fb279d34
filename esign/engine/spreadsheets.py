"""The lines of an uploaded XLSX file's first sheet (a bulk send's rows), read within limits.

An XLSX file is a zip of XML parts, and both layers can be bombs: a shared string of 600 MB
zipped into 600 KB (the web process went from 315 MB to 1.5 GB for 31 s), XML entities that
expand a billionfold, an entity naming a file or a URL. So before openpyxl sees the file, its
zip directory is read and the file refused when its parts are too many, too large together once
unzipped, or compressed more than a spreadsheet can be (zipfile never inflates a part past the
size its directory declares: a lying size fails the part's CRC). An XML part that declares a
document type (the only place entities live) is refused, and openpyxl parses with defusedxml
(installed: ``openpyxl.xml.DEFUSEDXML``), which refuses entities wherever they are. The sheet's
declared dimension and the cells actually read are bounded too: a sheet claiming A1:XFD1048576
is refused unread, one whose rows skip to row 1,000,000 is refused once the cells it yields pass
the bound.

This runs in an upload-check worker (esign.engine.upload_pool), never in the web process: what
the limits miss costs a worker its memory or time, never the server.

Pure Python (no Django).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from typing import Any, NoReturn

from core.engine.problems import EngineError

# Why a spreadsheet is refused.
UNREADABLE = "unreadable"
TOO_LARGE_UNZIPPED = "too_large_unzipped"
OVER_COMPRESSED = "over_compressed"
TOO_MANY_PARTS = "too_many_parts"
ENTITIES = "entities"
TOO_MANY_CELLS = "too_many_cells"

# A part smaller than this is never refused for its compression: a small part's ratio says
# nothing (a few KB of repeated XML compress well), and together they are bounded by the total.
_RATIO_FLOOR_BYTES = 1_048_576
# How much of an XML part's start is searched for a document type: its prolog (the XML
# declaration, comments), where a DOCTYPE must be. One hidden behind longer comments is still
# refused by defusedxml when the part is parsed.
_PROLOG_BYTES = 64 * 1024
_XML_SUFFIXES = (".xml", ".rels", ".vml")


@dataclass(frozen=True)
class SpreadsheetLimits:
    """What one upload may hold. The defaults are far above a real bulk send's file: 5,000 rows
    of 40 columns is 7 MB of sheet XML, compressed 15 times."""

    max_unzipped_bytes: int = 50 * 1_048_576  # every part together, as the zip declares them
    max_compression_ratio: int = 100  # one part's size over its compressed size
    max_parts: int = 1_000  # files in the zip (a workbook has a dozen or so)
    max_cells: int = 250_000  # the first sheet's cells: declared, and read


class SpreadsheetRefused(EngineError):
    """The file is refused; ``reason`` is one of the reasons above, ``limit`` the bound passed
    (for the message). Comes back from the worker as it was raised."""

    code = "spreadsheet_refused"
    kind = "invalid"
    path = "file"

    def __init__(self, reason: str, limit: int = 0) -> None:
        self.reason = reason
        self.limit = limit
        super().__init__(f"the spreadsheet is refused ({reason})")

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.reason, self.limit))


def _refuse(reason: str, limit: int = 0) -> NoReturn:
    raise SpreadsheetRefused(reason, limit)


def check_zip(archive: zipfile.ZipFile, limits: SpreadsheetLimits) -> None:
    """Refuse the zip by its directory (sizes and counts as it declares them), then any XML
    part whose prolog declares a document type. Nothing is inflated but those prologs."""
    parts = archive.infolist()
    if len(parts) > limits.max_parts:
        _refuse(TOO_MANY_PARTS, limits.max_parts)
    if sum(part.file_size for part in parts) > limits.max_unzipped_bytes:
        _refuse(TOO_LARGE_UNZIPPED, limits.max_unzipped_bytes)
    for part in parts:
        if (
            part.file_size > _RATIO_FLOOR_BYTES
            and part.file_size > limits.max_compression_ratio * max(1, part.compress_size)
        ):
            _refuse(OVER_COMPRESSED, limits.max_compression_ratio)
    for part in parts:
        if part.filename.lower().endswith(_XML_SUFFIXES):
            with archive.open(part) as source:
                prolog = source.read(_PROLOG_BYTES)
            if b"<!DOCTYPE" in prolog or b"<!ENTITY" in prolog:
                _refuse(ENTITIES)


def xlsx_lines(data: bytes, limits: SpreadsheetLimits) -> list[tuple[Any, ...]]:
    """The first sheet's lines (tuples of cell values): the first one whatever it holds (it
    names the columns), then those with a value; blank lines are left out, the caller skips
    them anyway. Raises SpreadsheetRefused."""
    from defusedxml import DefusedXmlException
    from openpyxl import load_workbook

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        _refuse(UNREADABLE)
    try:
        with archive:
            check_zip(archive, limits)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError):
        _refuse(UNREADABLE)  # a damaged, encrypted or oddly compressed part
    try:
        # Streaming (read_only): the sheet is read line by line, never held whole.
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            return _lines(book, limits)
        finally:
            book.close()
    except (SpreadsheetRefused, MemoryError):
        raise  # MemoryError: the worker's limit, said as such by the pool
    except Exception as error:  # openpyxl fails on broken parts in many ways
        _refuse(ENTITIES if _caused_by(error, DefusedXmlException) else UNREADABLE)


def _caused_by(error: BaseException | None, kind: type[BaseException]) -> bool:
    """Whether ``error`` or one it was raised from is a ``kind`` (openpyxl wraps the parser's
    errors in its own ValueError)."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, kind):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def _lines(book: Any, limits: SpreadsheetLimits) -> list[tuple[Any, ...]]:
    if not book.worksheets:
        _refuse(UNREADABLE)
    sheet = book.worksheets[0]
    # The dimension the sheet declares (None when it declares none): openpyxl pads every line
    # to its width and fills the gaps between rows up to its height.
    if sheet.max_row and sheet.max_column:
        declared = (sheet.max_row - sheet.min_row + 1) * (sheet.max_column - sheet.min_column + 1)
        if declared > limits.max_cells:
            _refuse(TOO_MANY_CELLS, limits.max_cells)
    lines: list[tuple[Any, ...]] = []
    cells = 0
    for line in sheet.iter_rows(values_only=True):
        cells += max(1, len(line))  # an empty line of a gap costs a step all the same
        if cells > limits.max_cells:
            _refuse(TOO_MANY_CELLS, limits.max_cells)
        if not lines or any(cell not in (None, "") for cell in line):
            lines.append(tuple(line))
    return lines
