"""Advanced signers (issue 51, item 1): each one's own PAdES signature on every document, with a
one-hour certificate from the signer CA, in routing order, then the seal (and with a TSA its
archive timestamp) over them all, each an incremental update that leaves what was signed as it
was. Checked with pyHanko's validator and poppler's pdfsig."""

from __future__ import annotations

import hashlib
import io
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESPassed
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from esign.engine.signer_certificates import CERTIFICATE_LIFETIME
from esign.models import AuditEvent, Packet
from esign.packets.documents import document_pdf
from esign.sealing.config import signer_trust_roots, trust_roots
from esign.sealing.seal import packet_seal
from esign.sealing.signer_ca import DEVELOPMENT_SIGNER_CA_NAME
from esign.signature_models import SignerCertificate, SignerLevel
from tests.esign.sealpki import asn1, shared_pki, with_the_hsm_seal
from tests.esign.signerpki import (
    lta_validations,
    pdfsig_trusted,
    pdfsig_verdicts,
    signature_statuses,
    softhsm_signer_ca,
)

pytestmark = pytest.mark.django_db

FIELDS = ["Signature1_client", "Signature2_provider", "DocumentSeal"]


def zip_files(api_client: Client, created: dict[str, Any]) -> dict[str, bytes]:
    url = created["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")
    response = api_client.get(url)
    assert response.status_code == 200, response.content
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    return {name: archive.read(name) for name in archive.namelist()}


def advanced(packet: Packet, *aliases: str) -> None:
    for signer in packet.signers.filter(alias_id__in=aliases):
        SignerLevel.objects.create(signer=signer, level="advanced")


def revisions_unchanged(pdf: bytes) -> None:
    """Each signature's signed revision is a prefix of the file: nothing after it rewrote it."""
    reader = PdfFileReader(io.BytesIO(pdf))
    for signature in reader.embedded_signatures:
        start, length, offset, end_length = signature.sig_object["/ByteRange"]
        assert start == 0
        signed_end = offset + end_length
        assert signed_end <= len(pdf)
        prefix = pdf[:signed_end]
        assert prefix.rstrip().endswith(b"%%EOF"), signature.field_name


def test_each_advanced_signer_signs_every_document_before_the_seal(
    complete: Any, api_client: Client, tmp_path: Path
) -> None:
    created, packet = complete()
    advanced(packet, "client", "provider")
    stamped = document_pdf(packet.documents.get())

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"

    sealed = zip_files(api_client, created)["agreement.pdf"]
    assert sealed.startswith(stamped)  # every signature appended, nothing rewritten
    revisions_unchanged(sealed)
    statuses = signature_statuses(sealed, [*trust_roots(), *signer_trust_roots()])
    assert list(statuses) == FIELDS  # in routing order, the seal last
    for name, status in statuses.items():
        assert (status.intact, status.valid, status.trusted) == (True, True, True), name
        # What came after each signature is only what PAdES allows: more signatures.
        assert status.modification_level <= ModificationLevel.FORM_FILLING, name
        assert status.docmdp_ok, name
    client_cert = statuses["Signature1_client"].signing_cert
    assert client_cert.subject.native == {
        "common_name": "Ada Lovelace",
        "email_address": "ada@example.com",
    }
    assert client_cert.issuer.native["common_name"] == DEVELOPMENT_SIGNER_CA_NAME
    validity = client_cert.not_valid_after - client_cert.not_valid_before
    assert timedelta(minutes=60) <= validity <= timedelta(minutes=66)
    provider_cert = statuses["Signature2_provider"].signing_cert
    assert provider_cert.subject.native["email_address"] == "charles@example.com"
    assert provider_cert.serial_number != client_cert.serial_number
    assert pdfsig_verdicts(sealed, tmp_path) == ["Signature is Valid."] * 3
    trusted = pdfsig_trusted(sealed, [*trust_roots(), *signer_trust_roots()], tmp_path)
    assert trusted == [("Signature is Valid.", "Certificate is Trusted.")] * 3

    # Recorded: each signature's certificate, and a line in each signer's audit trail.
    rows = SignerCertificate.objects.filter(document__packet=packet).order_by("signed_at")
    assert [(r.signer.alias_id, r.level, r.serial) for r in rows] == [
        ("client", "advanced", format(client_cert.serial_number, "x")),
        ("provider", "advanced", format(provider_cert.serial_number, "x")),
    ]
    event = AuditEvent.objects.get(
        packet=packet, action="signerCertified", signer__alias_id="client"
    )
    assert event.detail["certificate"]["subject"] == client_cert.subject.human_friendly
    assert event.detail["level"] == "advanced"


def test_a_simple_signer_adds_no_signature_and_the_seal_is_as_before(
    complete: Any, api_client: Client
) -> None:
    created, packet = complete()
    advanced(packet, "provider")

    packet_seal(packet_id=packet.pk)

    sealed = zip_files(api_client, created)["agreement.pdf"]
    statuses = signature_statuses(sealed, [*trust_roots(), *signer_trust_roots()])
    assert list(statuses) == ["Signature2_provider", "DocumentSeal"]
    assert all(s.bottom_line for s in statuses.values())


def test_the_certificate_is_valid_for_an_hour_around_the_signature_by_the_clock_moved(
    complete: Any, api_client: Client
) -> None:
    created, packet = complete()
    advanced(packet, "client")
    later = (timezone.now() + timedelta(days=3)).replace(microsecond=0)

    with mock.patch("esign.sealing.signer_signatures.timezone.now", return_value=later):
        packet_seal(packet_id=packet.pk)

    sealed = zip_files(api_client, created)["agreement.pdf"]
    reader = PdfFileReader(io.BytesIO(sealed))
    signature = reader.embedded_regular_signatures[0]
    assert signature.field_name == "Signature1_client"
    assert signature.self_reported_timestamp == later
    roots = signer_trust_roots()
    cert = signature.signer_cert
    assert cert.not_valid_before <= later < cert.not_valid_after
    assert cert.not_valid_after - later == CERTIFICATE_LIFETIME
    at_signing = validate_pdf_signature(
        signature, ValidationContext(trust_roots=roots, moment=later)
    )
    assert at_signing.bottom_line
    # Two hours on, with no timestamp to prove the signature older, it no longer validates.
    expired = validate_pdf_signature(
        signature, ValidationContext(trust_roots=roots, moment=later + timedelta(hours=2))
    )
    assert not expired.trusted


@with_the_hsm_seal
def test_with_the_signer_ca_in_the_hsm_and_a_tsa_every_signature_is_long_term(
    complete: Any, api_client: Client, settings: Any, tmp_path: Path
) -> None:
    key, chain_pem = softhsm_signer_ca()
    settings.SIGNER_CA_PKCS11_MODULE = key.module
    settings.SIGNER_CA_PKCS11_TOKEN_LABEL = key.token_label
    settings.SIGNER_CA_PKCS11_KEY_LABEL = key.key_label
    settings.SIGNER_CA_PKCS11_PIN = key.pin
    chain_file = tmp_path / "signer-chain.pem"
    chain_file.write_bytes(chain_pem)
    settings.SIGNER_CA_CHAIN_FILE = str(chain_file)
    pki = shared_pki()
    settings.SEAL_TSA_URLS = [pki.tsa_url]
    created, packet = complete()
    advanced(packet, "client", "provider")
    stamped = document_pdf(packet.documents.get())

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-LTA)"

    sealed = zip_files(api_client, created)["agreement.pdf"]
    assert sealed.startswith(stamped)
    revisions_unchanged(sealed)
    root = asn1(pki.certificate)
    statuses = signature_statuses(sealed, [root])
    assert list(statuses) == FIELDS
    for name, status in statuses.items():
        assert status.bottom_line, name
        assert status.timestamp_validity is not None, name
        assert status.timestamp_validity.trusted, name
        assert status.modification_level <= ModificationLevel.FORM_FILLING, name
    issuer = statuses["Signature1_client"].signing_cert.issuer.native["common_name"]
    assert issuer == "Seal tests signer CA"
    # Long-term: pyHanko's AdES-LTA validation of each, from what the file carries alone.
    reader = PdfFileReader(io.BytesIO(sealed))
    assert reader.embedded_signatures[-1].sig_object["/Type"] == "/DocTimeStamp"
    assert lta_validations(sealed, [root]) == dict.fromkeys(FIELDS, AdESPassed.OK)
    verdicts = pdfsig_verdicts(sealed, tmp_path)
    assert verdicts[:3] == ["Signature is Valid."] * 3
    assert len(verdicts) == 4  # and the document timestamp, which pdfsig does not check
    trusted = pdfsig_trusted(sealed, [root], tmp_path)
    assert trusted[:3] == [("Signature is Valid.", "Certificate is Trusted.")] * 3
    packet.refresh_from_db()
    assert hashlib.sha256(sealed).hexdigest() == packet.documents.get().sealed_sha256
