"""Hostile PDFs a signer attaches (issue 46, item 7): the report's 1.2 MB file whose page tree
names one page 200,000 times took the web process from 216 MB to 645 MB (qpdf copied the page
200,000 times on opening it). An attached PDF is now checked in an upload-check worker within
its limits (pages as the tree names them, objects, streams decoded) before anything parses it:
refused in the signer's words with nothing stored, the web process never opening it and
staying within 200 MB, its workers included. An ordinary PDF is still attached."""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable
from typing import Any

import pikepdf
import pytest
from django.test import Client

from esign.engine.attachment_files import (
    PDF_TOO_COMPLEX,
    PDF_TOO_MANY_PAGES,
    UNREADABLE,
    PdfLimits,
    check_attachment,
)
from esign.engine.upload_pool import UploadBusy, UploadPool
from esign.models import AuditEvent, Signer, SignerAttachment
from tests.esign.conftest import contract_pdf
from tests.esign.test_attachments import PROOF, upload
from tests.esign.test_attachments import attach_packet as attach_packet  # a fixture
from tests.esign.upload_bombs import pdf_of, repeated_page_pdf, zlib_of_repeated
from tests.memory import web_process_growth

MB = 1_048_576
GROWTH_BOUND = 200 * MB
TOO_MANY_PAGES = "This PDF has too many pages: at most 1000."
TOO_COMPLEX = "This PDF is too complex to be attached; attach a simpler copy of it."


@pytest.fixture
def signer(attach_packet: Callable[..., Any]) -> tuple[str, str]:
    """The signer's eid and token, for a packet whose signer attaches any file to ``proof``."""
    _, signer_eid, token = attach_packet(PROOF)
    return signer_eid, token


@pytest.fixture
def no_pdf_parse_here(signer: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """qpdf cannot open a PDF in this (the web) process from here on (the packet is made): only
    a worker may."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a PDF was parsed in the web process")

    monkeypatch.setattr(pikepdf, "open", refuse)
    monkeypatch.setattr(pikepdf.Pdf, "open", refuse)


def attach(signer: tuple[str, str], data: bytes) -> Any:
    signer_eid, token = signer
    return upload(Client(), signer_eid, token, "proof", data, "proof.pdf")


def assert_refused(answer: Any, message: str) -> None:
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["name"] == "ValidationError"
    assert body["fields"] == [{"property": "file", "message": message}]
    assert not SignerAttachment.objects.exists()
    assert not AuditEvent.objects.filter(action="signerAttachmentAdded").exists()


# --- through the signing page --------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("no_pdf_parse_here")
def test_a_page_named_200000_times_is_refused_in_a_worker(signer: tuple[str, str]) -> None:
    bomb = repeated_page_pdf(200_000)
    assert len(bomb) < 1.3 * MB

    with web_process_growth(tree=True) as figures:
        answer = attach(signer, bomb)

    assert_refused(answer, TOO_MANY_PAGES)
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_the_refusal_is_in_the_signers_language(signer: tuple[str, str]) -> None:
    Signer.objects.filter(eid=signer[0]).update(language="es")

    answer = attach(signer, repeated_page_pdf(2000))

    assert_refused(answer, "Este PDF tiene demasiadas páginas: como máximo 1000.")


@pytest.mark.django_db
@pytest.mark.usefixtures("no_pdf_parse_here")
def test_an_ordinary_pdf_is_checked_in_a_worker_and_attached(signer: tuple[str, str]) -> None:
    answer = attach(signer, contract_pdf(3))

    assert answer.status_code == 200, answer.content
    assert SignerAttachment.objects.get().content_type == "application/pdf"


@pytest.mark.django_db
def test_what_passes_the_limits_costs_a_worker_never_the_server(
    signer: tuple[str, str], settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """With the decoded bytes' bound lifted, a content stream of 600 MB under ASCII85 and Flate
    (qpdf decodes it whole) runs the worker out of its memory: refused, the worker replaced."""
    settings.ESIGN_ATTACHMENT_MAX_PDF_DECODED_BYTES = 4096 * MB
    settings.UPLOAD_CHECK_WORKER_MEMORY_MB = 400
    encoded = base64.a85encode(zlib_of_repeated(b" ", 600), adobe=True)[2:]
    bomb = page_with_contents(encoded, b"[/ASCII85Decode /FlateDecode]")
    assert len(bomb) < MB

    with web_process_growth() as figures:
        answer = attach(signer, bomb)

    assert_refused(answer, TOO_COMPLEX)
    assert "upload refused (AttachmentJob): past the worker's 400 MB" in caplog.messages
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_every_worker_busy_is_a_503_and_stores_nothing(
    signer: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def busy(*args: Any, **kwargs: Any) -> None:
        raise UploadBusy(2.0)

    monkeypatch.setattr(UploadPool, "run", busy)

    answer = attach(signer, contract_pdf(1))

    assert answer.status_code == 503
    assert answer.json()["name"] == "ServiceBusyError"
    assert not SignerAttachment.objects.exists()


# --- the check itself (no worker) ----------------------------------------------------------------

ALL = ("pdf", "png", "jpeg")


def refusal(data: bytes, limits: PdfLimits | None = None) -> str:
    checked = check_attachment(data, ALL, limits)
    assert (checked.kind == "pdf") != bool(checked.refusal)
    return checked.refusal


def test_pages_are_counted_as_often_as_the_tree_names_them() -> None:
    assert refusal(repeated_page_pdf(1000)) == ""  # qpdf copies the page; within the bound
    assert refusal(repeated_page_pdf(1001)) == PDF_TOO_MANY_PAGES
    assert refusal(repeated_page_pdf(3), PdfLimits(max_pages=2)) == PDF_TOO_MANY_PAGES


def test_a_tree_of_trees_is_walked_to_its_pages() -> None:
    nested = pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 >>",
            b"<< /Type /Pages /Parent 2 0 R /Kids [5 0 R 6 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
            b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] >>",
            b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] >>",
        ]
    )
    assert refusal(nested, PdfLimits(max_pages=3)) == ""
    assert refusal(nested, PdfLimits(max_pages=2)) == PDF_TOO_MANY_PAGES


def test_a_tree_that_names_itself_ends() -> None:
    loop = pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>",
        ]
    )
    assert refusal(loop) == PDF_TOO_COMPLEX


def test_objects_past_the_limit_are_refused_unparsed() -> None:
    pages = [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * 8
    kids = b" ".join(b"%d 0 R" % n for n in range(3, 11))
    many = pdf_of(
        [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [" + kids + b"] >>", *pages]
    )
    assert refusal(many, PdfLimits(max_objects=20)) == ""
    assert refusal(many, PdfLimits(max_objects=9)) == PDF_TOO_COMPLEX


def page_with_contents(data: bytes, filters: bytes) -> bytes:
    """One page whose content stream is ``data`` as stored, under ``filters``."""
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            b"<< /Length %d /Filter %s >>\nstream\n" % (len(data), filters) + data + b"\nendstream",
        ]
    )


@pytest.mark.parametrize(
    ("encode", "filters"),
    [
        (lambda data: zlib.compress(data, 9), b"/FlateDecode"),  # inflated here, a chunk at a time
        (  # decoded by qpdf, within the worker's memory
            lambda data: base64.a85encode(zlib.compress(data, 9), adobe=True)[2:],
            b"[/ASCII85Decode /FlateDecode]",
        ),
    ],
)
def test_streams_are_bounded_decoded(encode: Callable[[bytes], bytes], filters: bytes) -> None:
    """16 MB of spaces in some KB."""
    bomb = page_with_contents(encode(b" " * (16 * MB)), filters)
    assert len(bomb) < 100_000
    assert refusal(bomb, PdfLimits(max_decoded_bytes=32 * MB)) == ""
    assert refusal(bomb, PdfLimits(max_decoded_bytes=8 * MB)) == PDF_TOO_COMPLEX


def test_an_image_is_counted_as_stored_never_decoded() -> None:
    jpeg_like = page_with_contents(b"\xff\xd8\xff" + b"\x00" * 1000, b"/DCTDecode")
    assert refusal(jpeg_like, PdfLimits(max_decoded_bytes=2000)) == ""
    assert refusal(jpeg_like, PdfLimits(max_decoded_bytes=500)) == PDF_TOO_COMPLEX


def test_no_page_or_no_catalog_is_unreadable() -> None:
    assert refusal(pdf_of([b"<< /Type /Catalog >>"])) == UNREADABLE
    assert refusal(pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages >>"])) == (
        UNREADABLE
    )
