"""Is a PDF structurally sound? qpdf's check, and four independent readers' page counts.

Viewers that repair files (poppler, pdfium) show a broken PDF anyway; stricter readers
(pdfminer) and later incremental signatures do not. So a produced PDF must pass ``qpdf
--check`` with no more warnings than its input had, and pdfminer, pypdf, pdfium and poppler
must all see the same number of pages.
"""

from __future__ import annotations

import functools
import hashlib
import io
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pypdfium2
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pypdf import PdfReader


@dataclass(frozen=True)
class QpdfCheck:
    returncode: int  # 0 clean, 3 warnings, 2 errors
    warnings: tuple[str, ...]
    output: str


def qpdf_check(pdf: bytes) -> QpdfCheck:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "checked.pdf"
        path.write_bytes(pdf)
        done = subprocess.run(
            ["qpdf", "--check", "--password=", str(path)], capture_output=True, text=True
        )
    output = done.stdout + done.stderr
    warnings = tuple(
        line for line in output.splitlines() if line.startswith(("WARNING", "qpdf: ", "ERROR"))
    )
    warnings = tuple(w for w in warnings if "operation succeeded with warnings" not in w)
    return QpdfCheck(done.returncode, warnings, output)


@functools.lru_cache(maxsize=64)
def _template_check(digest: str, pdf: bytes) -> QpdfCheck:  # cached: templates repeat a lot
    return qpdf_check(pdf)


def page_counts(pdf: bytes) -> dict[str, int]:
    """The page count as four independent readers see it."""
    counts: dict[str, int] = {}
    try:
        document = PDFDocument(PDFParser(io.BytesIO(pdf)))
        counts["pdfminer"] = sum(1 for _ in PDFPage.create_pages(document))
    except Exception:  # noqa: BLE001 - any failure to read is a count of none
        counts["pdfminer"] = -1
    counts["pypdf"] = len(PdfReader(io.BytesIO(pdf)).pages)
    document = pypdfium2.PdfDocument(pdf)
    try:
        counts["pdfium"] = len(document)
    finally:
        document.close()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "counted.pdf"
        path.write_bytes(pdf)
        info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True).stdout
    pages = [line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")]
    counts["poppler"] = int(pages[0]) if pages else -1
    return counts


def assert_sound(pdf: bytes, *, template: bytes | None = None) -> None:
    """``pdf`` passes qpdf's check (no more warnings than ``template``) and every reader agrees
    on its page count."""
    check = qpdf_check(pdf)
    allowed = 0
    if template is not None:
        allowed = len(_template_check(hashlib.sha256(template).hexdigest(), template).warnings)
    assert check.returncode in (0, 3), check.output
    assert len(check.warnings) <= allowed, check.output
    counts = page_counts(pdf)
    assert len(set(counts.values())) == 1, counts
    assert min(counts.values()) > 0, counts
