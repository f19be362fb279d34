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
