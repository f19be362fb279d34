"""Office documents taken wherever a PDF is (a template's upload, a packet's file): converted to
PDF by this process's converter pool (core.engine.office), with its settings read from Django's:
OFFICE_CONVERT_WORKERS conversions at once per server process, each killed past
OFFICE_CONVERT_TIMEOUT seconds within MEMORY_LIMIT_BYTES of address space. A request waits for a
converter as long as one conversion may take, then is refused as busy (503).

A refused document is a ValidationFailed on the caller's property (``file``,
``files.0.file``) whose message names the document, as every refused upload is."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from dataclasses import dataclass

from django.conf import settings

from core.engine.office import OfficeConverter
from core.engine.office_sniff import OfficeRefused, is_office_document
from core.engine.problems import EngineError
from core.errors import ValidationFailed, raise_for_engine_error

logger = logging.getLogger(__name__)

MEMORY_LIMIT_BYTES = 1024 * 1_048_576  # LibreOffice converts a 50-page report in under 300 MB


@dataclass(frozen=True)
class PdfUpload:
    """An upload as the PDF it is or became, and the Office document it became it from."""

    pdf: bytes
    source: bytes | None = None  # None: the upload was the PDF
    source_name: str = ""  # the name the document was uploaded under
    source_extension: str = ""  # "docx", as its content says

    @property
    def converted(self) -> bool:
        return self.source is not None


_lock = threading.Lock()
_converter: tuple[tuple[int, int], OfficeConverter] | None = None


def office_converter() -> OfficeConverter:
    """This process's converters: made on first use, and again after a fork (a semaphore and
    profile folders belong to one process) or a change of OFFICE_CONVERT_WORKERS."""
    global _converter
    key = (os.getpid(), settings.OFFICE_CONVERT_WORKERS)
    with _lock:
        if _converter is None or _converter[0] != key:
            previous = _converter
            _converter = (
                key,
                OfficeConverter(
                    workers=settings.OFFICE_CONVERT_WORKERS,
                    queue_timeout=settings.OFFICE_CONVERT_TIMEOUT,
                ),
            )
            if previous is not None and previous[0][0] == os.getpid():
                previous[1].close()
            # Its profiles live in a temporary folder of this process's: gone when it ends (not
            # when a child forked from it ends).
            atexit.register(_close_if_ours, os.getpid(), _converter[1])
        return _converter[1]


def _close_if_ours(pid: int, converter: OfficeConverter) -> None:
    if os.getpid() == pid:
        converter.close()


def pdf_of_upload(data: bytes, filename: str, *, max_pages: int, path: str = "file") -> PdfUpload:
    """``data`` as a PDF: itself unless it is an Office document (read from its bytes, whatever
    its name), then converted. A document refused is a ValidationFailed on ``path`` naming it;
    anything that is neither stays ``data``, for the caller's own "not a PDF"."""
    if not is_office_document(data):
        return PdfUpload(pdf=data)
    name = filename or "The document"
    try:
        converted = office_converter().convert(
            data,
            name,
            timeout=settings.OFFICE_CONVERT_TIMEOUT,
            memory_limit=MEMORY_LIMIT_BYTES,
            max_pages=max_pages,
            font_dirs=(settings.FONT_CACHE_DIR,),
        )
    except OfficeRefused as refused:
        detail = f": {refused.log_detail}" if refused.log_detail else ""
        logger.info("office document refused (%s)%s", refused.reason, detail)
        raise ValidationFailed.single(path, str(refused)) from None
    except EngineError as error:
        raise_for_engine_error(error)
    return PdfUpload(
        pdf=converted.pdf,
        source=data,
        source_name=filename,
        source_extension=converted.kind.extension,
    )
