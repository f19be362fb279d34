"""Real-world Office documents written by others (../shared/fixtures/office, SOURCES.tsv) become
PDFs through core.engine.office: the text they hold is in the PDF, their page count is what
LibreOffice run by hand gives, and every font is embedded (Carlito for Calibri)."""

from __future__ import annotations

import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.engine.office import Converted, OfficeConverter
from core.engine.pdf import open_pdf
from tests.office.documents import (
    OFFICE,
    RTF_PHRASES,
    convertible,
    lease_docx,
    needs_fixtures,
    pdf_fonts,
    pdf_text,
    soffice_by_hand,
    source_words,
)

pytestmark = [pytest.mark.slow, needs_fixtures]

TIMEOUT = 20.0  # the bound on one document; past it the converter refuses the file
MEMORY = 1 << 30


@pytest.fixture(scope="module")
def converted() -> dict[str, Converted]:
    """Every convertible fixture converted once, two at a time as the service's pool runs them
    (bench/office_convert.py gives the seconds each takes). Each within TIMEOUT: the converter
    refuses a document past it."""
    converter = OfficeConverter(workers=2)

    def one(name: str) -> Converted:
        data = (OFFICE / name).read_bytes()
        return converter.convert(data, name, timeout=TIMEOUT, memory_limit=MEMORY, max_pages=500)

    names = convertible()
    try:
        with ThreadPoolExecutor(2) as pool:
            results = dict(zip(names, pool.map(one, names), strict=True))
    finally:
        converter.close()
    return results


@pytest.fixture(scope="module")
def by_hand() -> dict[str, int]:
    """Page counts of the same files converted by LibreOffice run by hand: one plain soffice
    --convert-to pdf, no limits, no filter options, a profile of its own."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        paths = [str(OFFICE / name) for name in convertible()]
        soffice_by_hand(folder, str(out), paths, timeout=600)
        pages = {}
        for name in convertible():
            with open_pdf((out / (Path(name).stem + ".pdf")).read_bytes()) as pdf:
                pages[name] = len(pdf.pages)
    return pages


def test_there_are_at_least_20_word_and_opendocument_files() -> None:
    documents = [name for name in convertible() if name.endswith((".docx", ".odt"))]
    assert len(documents) >= 20


@pytest.mark.parametrize("name", convertible())
def test_the_text_of_the_document_is_in_the_pdf(converted, name: str) -> None:
    result = converted[name]
    assert result.pdf.startswith(b"%PDF-")
    if name in RTF_PHRASES:
        text = " ".join(pdf_text(result.pdf).split())
        for phrase in RTF_PHRASES[name]:
            assert phrase in text
        return
    # Each word of the XML somewhere in the text, spaces aside: the XML splits a word where its
    # style changes, and joins words its layout spaces ("Big" "Company" shows as BigCompany).
    text = "".join(pdf_text(result.pdf).casefold().split())
    missing = sorted(word for word in source_words(name) if word not in text)
    assert not missing


@pytest.mark.parametrize("name", convertible())
def test_the_page_count_is_libreoffices_by_hand(converted, by_hand, name: str) -> None:
    result = converted[name]
    with open_pdf(result.pdf) as pdf:
        assert len(pdf.pages) == result.pages
    assert abs(result.pages - by_hand[name]) <= 1


@pytest.mark.parametrize("name", convertible())
def test_every_font_is_embedded(converted, name: str) -> None:
    result = converted[name]
    assert all(embedded for _font, embedded in pdf_fonts(result.pdf))


def test_calibri_is_set_in_carlito_and_embedded() -> None:
    converter = OfficeConverter(workers=1)
    try:
        result = converter.convert(
            lease_docx(), "lease.docx", timeout=TIMEOUT, memory_limit=MEMORY, max_pages=500
        )
    finally:
        converter.close()
    assert ("Carlito", True) in pdf_fonts(result.pdf)
    text = " ".join(pdf_text(result.pdf).split())
    assert "Residential Lease Agreement" in text
    assert re.search(r"Tenant signature: _+", text)
    assert result.kind.name == "DOCX"
    assert result.pages == 1
