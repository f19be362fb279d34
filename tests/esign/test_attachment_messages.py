"""What a signer is told about a file they attach (issue 49, item 2): a text file named
``notes.pdf`` is told it is not the PDF its name says, then the types the field accepts, in the
signer's language; a real PNG sent to a field that takes PDFs only is not called misnamed; sizes
read in decimal units ("5 MB" for 5,000,000 bytes)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from esign.packets.attachment_fields import readable_size
from esign.signing.attachments import _misnamed
from tests.esign.test_attachments import PROOF, attach_packet, jpeg, upload  # noqa: F401

pytestmark = pytest.mark.django_db


def test_sizes_read_in_decimal_units() -> None:
    assert readable_size(5_000_000) == "5 MB"
    assert readable_size(2_500_000) == "2.5 MB"
    assert readable_size(10 * 1_048_576) == "10 MB"  # the default limit, as its writer meant it
    assert readable_size(17_000) == "17 KB"
    assert readable_size(300) == "300 bytes"


def message(response: Any) -> str:
    assert response.status_code == 400, response.content
    [problem] = response.json()["fields"]
    assert problem["property"] == "file"
    return problem["message"]


def test_a_text_file_named_pdf_is_told_what_it_is_not_and_what_is_accepted(
    attach_packet: Any,  # noqa: F811
) -> None:
    _, signer_eid, token = attach_packet(PROOF)
    said = message(upload(Client(), signer_eid, token, "proof", b"Just notes.\n", "notes.pdf"))
    assert said == (
        "“notes.pdf” is named like a PDF file but is not one. "
        "Attach a file of one of these types: PDF, PNG, JPEG."
    )


def test_a_real_file_of_a_refused_type_is_not_called_misnamed(
    attach_packet: Any,  # noqa: F811
) -> None:
    pdf_only = {**PROOF, "acceptedTypes": ["pdf"]}
    _, signer_eid, token = attach_packet(pdf_only)
    said = message(upload(Client(), signer_eid, token, "proof", jpeg(), "photo.jpg"))
    assert said == "Attach a file of one of these types: PDF."
    assert _misnamed("photo.JPEG", "jpeg") == ""
    assert _misnamed("scan.png", "") == "“scan.png” is named like a PNG file but is not one."
    assert _misnamed("notes.txt", "") == ""
