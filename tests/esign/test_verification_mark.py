"""The verification mark (createEtchPacket's verificationStamp, esign.sealing.marks): a QR code
and a short link to /verify on every page of the sealed documents, drawn before the seal and
covered by it; the link opens /verify on that document."""

from __future__ import annotations

import io
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import cv2
import numpy
import pikepdf
import pytest
from django.test import Client
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESPassed
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

from core.resources import font_library
from esign.engine.verification_mark import carries_signatures, verification_mark
from esign.models import Packet
from esign.sealing.config import trust_roots
from esign.sealing.marks import MARK_DIGITS, mark_url, marked_pdf
from esign.sealing.seal import packet_seal
from tests.esign.conftest import contract_pdf
from tests.esign.lifetimes_pki import LifetimesPki
from tests.esign.test_merge_pdfs import with_an_annex
from tests.esign.test_seal_engine import lta_validation
from tests.esign.test_seal_packets import validate, zip_url
from tests.pdfcheck import headed_page, poppler_words, render
from tests.pdfsound import assert_sound

pytestmark = pytest.mark.django_db

URL = "https://sign.example.com/verify?d=0123456789abcdef01234567"


def qr_codes(pdf: bytes) -> list[str]:
    """The text of the QR code read from each page, as pixels at 300 dpi ("" when none).

    Two of OpenCV's readers, as a phone's camera app tries again: the classic one alone misreads
    about one code in a hundred at 300 dpi (a module of 5 px sampled off the grid; the link is
    random, so CI failed on one run in some dozens). The code is sound: it reads at 200, 400 and
    600 dpi and with the ArUco-based reader. With both readers, 500 random links in 500 read."""
    out = []
    for page in range(len(pikepdf.open(io.BytesIO(pdf)).pages)):
        pixels = numpy.array(render(pdf, page, dpi=300).convert("L"))
        readers = (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco())
        out.append(next((t for r in readers if (t := r.detectAndDecode(pixels)[0])), ""))
    return out


def page_words(pdf: bytes) -> dict[int, str]:
    by_page: dict[int, list[str]] = {}
    for word in poppler_words(pdf):
        by_page.setdefault(word.page, []).append(word.text)
    return {page: " ".join(texts) for page, texts in by_page.items()}


def sealed_document(api_client: Client, created: dict[str, Any]) -> bytes:
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    return archive.read("agreement.pdf")


def sealed_marked(
    complete, api_client: Client, **variables: Any
) -> tuple[dict[str, Any], Packet, bytes]:
    """The two-signer packet, signed, asked for the mark (as createEtchPacket stores it) and
    sealed: its sealed document."""
    created, packet = complete(**variables)
    Packet.objects.filter(pk=packet.pk).update(verification_stamp=True)
    packet_seal(packet_id=packet.pk)
    return created, Packet.objects.get(pk=packet.pk), sealed_document(api_client, created)


def pdfsig_says(pdf: bytes, tmp_path: Path) -> str:
    path = tmp_path / "sealed.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdfsig", str(path)], capture_output=True, text=True, check=False).stdout


# --- the engine ---------------------------------------------------------------------------------


def test_the_mark_is_a_readable_qr_code_and_words_on_every_page_however_turned() -> None:
    source = pikepdf.open(io.BytesIO(contract_pdf(3)))
    source.pages[1].obj.Rotate = 90  # shown landscape: the mark sits in its bottom right
    source.pages[2].obj.MediaBox = pikepdf.Array([-20, -30, 632, 792])  # not at the origin
    buffer = io.BytesIO()
    source.save(buffer)
    words = "Verify this document: sign.example.com/verify?d=0123456789abcdef01234567"

    marked = verification_mark(buffer.getvalue(), url=URL, words=words, fonts=font_library())

    assert qr_codes(marked) == [URL, URL, URL]
    text = page_words(marked)
    for page in (1, 2, 3):
        assert "sign.example.com/verify?d=0123456789abcdef01234567" in text[page]
        assert f"Services agreement, page {page}" in text[page]  # the page's own words stay
    # On the turned page the words read upright in the bottom right corner of the page as shown,
    # 792 wide and 612 high (poppler's boxes are in that frame).
    (turned,) = [w for w in poppler_words(marked) if w.page == 2 and w.text == "Verify"]
    assert (turned.x_min > 792 / 2, turned.y_min > 612 - 40) == (True, True)
    assert turned.x_max - turned.x_min > turned.y_max - turned.y_min  # along the line, not up


def qr_corner(pdf: bytes, page: int = 0) -> str:
    """Which corner of the page as shown the QR code is read in ("bottom right"...)."""
    pixels = numpy.array(render(pdf, page, dpi=300).convert("L"))
    # Both of OpenCV's readers, as qr_codes: the classic one alone misses about one code in a
    # hundred (CI lost the initials' mark test to it once).
    for reader in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
        found, corners = reader.detect(pixels)
        if found:
            break
    assert found
    x, y = corners[0].mean(axis=0)
    height, width = pixels.shape
    return f"{'bottom' if y > height / 2 else 'top'} {'right' if x > width / 2 else 'left'}"


def page_with(*drawn: tuple[float, float, str]) -> bytes:
    """A letter page with the agreement's line and these words drawn (x, y, text)."""
    return headed_page("Services agreement, page 1", list(drawn), 9)


def test_the_mark_keeps_clear_of_what_a_corner_already_shows() -> None:
    fonts = font_library()
    mark = {"url": URL, "words": "Verify: sign.example.com/verify?d=0123456789abcdef01234567"}

    plain = verification_mark(page_with(), fonts=fonts, **mark)
    footer = verification_mark(page_with((520, 30, "Initials: AL")), fonts=fonts, **mark)
    both = verification_mark(
        page_with((520, 30, "Initials: AL"), (30, 30, "Page 1 of 1")), fonts=fonts, **mark
    )

    assert [qr_corner(plain), qr_corner(footer), qr_corner(both)] == [
        "bottom right",
        "bottom left",
        "top right",
    ]
    for marked in (footer, both):  # beside, never over: what was there still reads
        text = page_words(marked)[1]
        assert "Initials: AL" in text
        assert "sign.example.com/verify?d=0123456789abcdef01234567" in text
        assert qr_codes(marked) == [URL]


def test_a_document_without_the_mark_has_no_qr_code() -> None:
    assert qr_codes(contract_pdf(1)) == [""]  # the decoder reads nothing on a page without one


# --- sealed packets -----------------------------------------------------------------------------


def test_a_marked_packet_is_sealed_with_the_mark_on_every_page_and_the_seal_validates(
    complete, api_client: Client, tmp_path: Path
) -> None:
    created, packet, sealed = sealed_marked(complete, api_client)
    document = packet.documents.get()
    link = mark_url(document)

    assert link.endswith(f"/verify?d={document.current_sha256[:MARK_DIGITS]}")
    assert qr_codes(sealed) == [link, link]
    for text in page_words(sealed).values():
        assert "Verify this document:" in text
        assert link.split("://", 1)[1] in text
    # Every signature in the file (the seal is the only one) validates and covers the whole file,
    # the mark included: it was drawn before the seal.
    signatures = PdfFileReader(io.BytesIO(sealed)).embedded_regular_signatures
    assert [s.field_name for s in signatures] == ["DocumentSeal"]
    for signature in signatures:
        status = validate_pdf_signature(signature, ValidationContext(trust_roots=trust_roots()))
        assert (status.intact, status.valid, status.trusted) == (True, True, True)
        assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    # poppler agrees: the signature is intact (its development key is trusted by nobody else).
    assert "Signature Validation: Signature is Valid." in pdfsig_says(sealed, tmp_path)


def test_the_link_opens_verify_on_that_document(complete, api_client: Client) -> None:
    _created, packet, _sealed = sealed_marked(complete, api_client)
    document = packet.documents.get()
    path = mark_url(document).split("://", 1)[1].split("/", 1)[1]

    page = Client().get(f"/{path}")

    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-found="yes"' in html
    assert "Sealed by this" in html
    assert "Services agreement" in html
    assert document.sealed_sha256 in html
    assert 'type="file"' in html  # and the upload that checks a PDF copy


@pytest.mark.parametrize("digits", ["0" * MARK_DIGITS, "not-a-hash", "abc"])
def test_a_link_no_sealed_document_has_says_so(digits: str) -> None:
    page = Client().get("/verify", {"d": digits})

    assert page.status_code == 200
    assert 'data-found="no"' in page.content.decode()


def test_a_sealed_document_without_the_mark_is_not_found_by_its_hash(
    complete, api_client: Client
) -> None:
    created, packet = complete()
    packet_seal(packet_id=packet.pk)
    document = packet.documents.get()

    assert qr_codes(sealed_document(api_client, created)) == ["", ""]
    page = Client().get("/verify", {"d": document.current_sha256[:MARK_DIGITS]})
    assert 'data-found="no"' in page.content.decode()


def test_a_document_that_holds_a_signature_is_left_unmarked(complete, api_client: Client) -> None:
    # Drawing into the pages would break a signature the document already holds.
    _created, packet, sealed = sealed_marked(complete, api_client)

    assert carries_signatures(sealed)
    assert marked_pdf(packet, packet.documents.get(), sealed) == sealed


def test_the_mark_keeps_a_b_lta_seal_valid_in_the_long_term(
    complete, api_client: Client, settings: Any, tmp_path: Path
) -> None:
    pki = LifetimesPki()
    try:
        pki.use_for_seals(settings, tmp_path / "seal")
        _created, packet, sealed = sealed_marked(complete, api_client)
    finally:
        pki.close()

    assert packet.seal_level == "PAdES-B-LTA"
    assert qr_codes(sealed)[0] == mark_url(packet.documents.get())
    assert lta_validation(sealed, [pki.root]).ades_subindic == AdESPassed.OK


def test_a_merged_pdf_carries_each_documents_own_mark(complete, api_client: Client) -> None:
    created, packet = complete(**with_an_annex(mergePDFs=True))
    Packet.objects.filter(pk=packet.pk).update(verification_stamp=True)
    packet_seal(packet_id=packet.pk)

    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    merged = archive.read("Services agreement.pdf")
    agreement, annex = (mark_url(d) for d in Packet.objects.get(pk=packet.pk).documents.all())

    assert agreement != annex
    assert qr_codes(merged) == [agreement] * 2 + [annex] * 3
    assert_sound(merged)
    status = validate(merged, trust_roots())
    assert (status.intact, status.valid, status.trusted) == (True, True, True)
