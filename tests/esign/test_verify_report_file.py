"""A validation report to keep (issue 33, item 11): the API answers, and the page offers as a
JSON file, each signature's and document timestamp's ETSI EN 319 102-1 indication."""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import io
import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client
from pypdf import PdfReader

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.timestamps import TsaConfig
from tests.esign import verify_files as files
from tests.esign.ltvpki import ShortLivedPki
from tests.esign.test_seal_engine import three_pages


@pytest.fixture(scope="module")
def lta(pki: ShortLivedPki) -> bytes:
    key_pem, cert_pem = pki.key_and_certificate("Report seal")
    return seal_pdf(
        three_pages(),
        credentials=load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )


def offered_file(page: str, link_id: str, name: str, mime: str) -> bytes:
    """The file that the page offers as the download link ``#link_id`` named ``name``."""
    link = re.search(
        rf'<a id="{link_id}" download="{re.escape(name)}" href="data:{mime};base64,([^"]+)"', page
    )
    assert link is not None
    return base64.b64decode(html_lib.unescape(link.group(1)))


def _upload(pdf: bytes) -> io.BytesIO:
    upload = io.BytesIO(pdf)
    upload.name = "file.pdf"
    return upload


def indications(body: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(s["indication"], s["subIndication"]) for s in body["signatures"]] + [
        (t["indication"], t["subIndication"]) for t in body["documentTimestamps"]
    ]


@pytest.mark.django_db
def test_the_report_says_the_etsi_indication_of_each_signature_and_timestamp(
    lta: bytes, api_client: Client, trusted: Any
) -> None:

    valid = api_client.post("/api/v1/verify", {"file": _upload(lta)}).json()
    changed = api_client.post(
        "/api/v1/verify", {"file": _upload(files.changed_byte_in_dss(lta))}
    ).json()
    trusted.SEAL_TRUST_ROOTS_FILE = ""
    foreign = api_client.post("/api/v1/verify", {"file": _upload(lta)}).json()

    assert indications(valid) == [("TOTAL-PASSED", None), ("TOTAL-PASSED", None)]
    assert indications(changed) == [("TOTAL-PASSED", None), ("TOTAL-FAILED", "HASH_FAILURE")]
    assert indications(foreign) == [
        ("INDETERMINATE", "NO_CERTIFICATE_CHAIN_FOUND"),  # (its timestamp's neither)
        ("INDETERMINATE", "NO_CERTIFICATE_CHAIN_FOUND"),
    ]


@pytest.mark.django_db
def test_the_page_offers_the_report_as_a_json_file(lta: bytes, trusted: Any) -> None:

    page = Client().post("/verify", {"file": _upload(lta)}).content.decode()

    report = json.loads(
        offered_file(page, "validation-report", "validation-report.json", "application/json")
    )
    assert report["verdict"] == "valid"
    assert indications(report) == [("TOTAL-PASSED", None), ("TOTAL-PASSED", None)]


def pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


@pytest.mark.django_db
def test_the_api_answers_the_report_as_a_printable_pdf_when_asked(
    lta: bytes, api_client: Client, trusted: Any
) -> None:
    sha = hashlib.sha256(lta).hexdigest()

    by_query = api_client.post("/api/v1/verify?format=pdf", {"file": _upload(lta)})
    by_accept = api_client.post(
        "/api/v1/verify", {"file": _upload(lta)}, HTTP_ACCEPT="application/pdf"
    )
    default = api_client.post("/api/v1/verify", {"file": _upload(lta)})
    changed = api_client.post(
        "/api/v1/verify?format=pdf", {"file": _upload(files.changed_byte_in_dss(lta))}
    )

    assert by_query.status_code == 200
    assert by_query["Content-Type"] == "application/pdf"
    assert "validation-report.pdf" in by_query["Content-Disposition"]
    text = pdf_text(by_query.content)
    assert "Report seal" in text  # the signer
    assert sha in text.replace("\n", "")
    assert "TOTAL-PASSED" in text
    assert "Verified at" in text
    assert by_accept["Content-Type"] == "application/pdf"
    assert "Report seal" in pdf_text(by_accept.content)
    assert default["Content-Type"].startswith("application/json")  # the default is unchanged
    assert default.json()["sha256"] == sha
    changed_text = pdf_text(changed.content)
    assert "TOTAL-FAILED" in changed_text
    assert "HASH_FAILURE" in changed_text


@pytest.mark.django_db
def test_the_page_offers_the_report_as_a_printable_pdf(lta: bytes, trusted: Any) -> None:

    page = Client().post("/verify", {"file": _upload(lta)}).content.decode()

    text = pdf_text(
        offered_file(page, "validation-report-pdf", "validation-report.pdf", "application/pdf")
    )
    assert "Report seal" in text
    assert "TOTAL-PASSED" in text
    assert hashlib.sha256(lta).hexdigest() in text.replace("\n", "")
    assert "file.pdf" in text
