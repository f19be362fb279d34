"""Paths of the shared real-world fixtures (never modified; read from ../shared/fixtures)."""

import os
from pathlib import Path

# ../shared/fixtures beside the project root, as every checkout and CI run has it.
FIXTURES = Path(
    os.environ.get("SHARED_FIXTURES_DIR")
    or Path(__file__).resolve().parents[2] / "shared" / "fixtures"
)
PDFS = FIXTURES / "pdfs"
HTML = FIXTURES / "html"
MARKDOWN = FIXTURES / "markdown"

FILLABLE_PDFS = [
    "irs-fw9-2018.pdf",
    "irs-fw4-2022.pdf",
    "ca-cra-b300-cannabis-duty.pdf",
    "pdflib-fancy-fields.pdf",
    "libreoffice-form.pdf",
    "qpdf-field-types.pdf",
]
PLAIN_PDFS = ["tpl-qpdf-boxes-crop-offset-rotate.pdf", "tpl-weasyprint-invoice-a4.pdf"]

# Real-world PDFs kept with the tests (tests/data/pdfs/SOURCES.md): forms with signature fields.
LOCAL_PDFS = Path(__file__).resolve().parent / "data" / "pdfs"
SIGNATURE_FORMS = {
    # file: (full name, page, [x0, y0, x1, y1]) of its one /Sig field
    "pdflib-sample-form-sig.pdf": ("EMPLOYEE SIGNATURE", 0, (338.593, 83.52, 579.037, 102.24)),
    "pdflib-with-signature.pdf": ("Signature1", 0, (149.236, 533.79, 486.697, 653.237)),
}
