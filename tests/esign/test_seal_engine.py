"""The seal engine without Django: PAdES seals with a software key and a SoftHSM2 key, timestamps
from a local TSA (B-LTA), the TSA list, and verify_pdf's reading of intact, changed and foreign
files."""

from __future__ import annotations

import asyncio
import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESPassed
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.ades import ades_lta_validation
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext
from reportlab.pdfgen.canvas import Canvas

from esign.engine.errors import TimestampUnavailable
from esign.engine.seal import SEAL_FIELD, seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_keys import (
    DEVELOPMENT_SEAL_NAME,
    certificates_from_pem,
    create_development_pki,
)
from esign.engine.seal_verify import PdfNotVerifiable, verify_pdf
from esign.engine.timestamps import TsaConfig
from tests.esign.sealpki import (
    asn1,
    offline_lta_spec,
    shared_pki,
    softhsm_available,
    softhsm_key,
)

NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
DEAD_TSA = "http://127.0.0.1:9/tsa"  # the discard port: nothing listens there


def three_pages() -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792), invariant=1)
    for number in range(1, 4):
        canvas.drawString(72, 720, f"Agreement, page {number}")
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


@pytest.fixture(scope="module")
def development() -> tuple[SoftwareKey, list]:
    pki = create_development_pki(now=datetime.now(UTC))
    return SoftwareKey(pki.key_pem, pki.cert_pem, pki.ca_pem), certificates_from_pem(pki.ca_pem)


def validate(pdf: bytes, roots: list) -> object:
    signature = PdfFileReader(io.BytesIO(pdf)).embedded_regular_signatures[0]
    return validate_pdf_signature(signature, ValidationContext(trust_roots=roots))


def lta_validation(pdf: bytes, roots: list) -> object:
    """pyHanko's AdES long-term validation, requiring revocation data and fetching nothing: it
    passes only on what the file carries."""
    signature = PdfFileReader(io.BytesIO(pdf)).embedded_regular_signatures[0]
    spec = offline_lta_spec(roots)
    return asyncio.run(ades_lta_validation(signature, spec))


def contents_span(pdf: bytes) -> tuple[int, int]:
    """Where the hex digits of the (last) seal's /Contents are."""
    start = [m.end() for m in re.finditer(rb"/Contents <", pdf)][0]
    return start, pdf.index(b">", start)


# --- sealing --------------------------------------------------------------------------------------


def test_a_development_seal_is_pades_b_b_intact_and_trusted_by_its_own_ca(development) -> None:
    key, roots = development
    pdf = three_pages()

    sealed = seal_pdf(pdf, credentials=load_credentials(key), signing_time=NOW, reason="Sealed")

    assert sealed.startswith(pdf)  # an incremental update: the signed bytes are the original's
    status = validate(sealed, roots)
    assert (status.intact, status.valid, status.trusted) == (True, True, True)
    assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    assert status.signer_reported_dt == NOW
    assert status.timestamp_validity is None
    signature = PdfFileReader(io.BytesIO(sealed)).embedded_regular_signatures[0]
    assert signature.field_name == SEAL_FIELD
    assert signature.sig_object["/SubFilter"] == "/ETSI.CAdES.detached"
    assert signature.sig_object["/Reason"] == "Sealed"
    assert DEVELOPMENT_SEAL_NAME in signature.signer_cert.subject.human_friendly
    assert "DEVELOPMENT" in signature.signer_cert.issuer.human_friendly


def test_the_development_pki_is_labelled_and_its_root_is_self_signed() -> None:
    pki = create_development_pki(now=NOW)
    certificate = certificates_from_pem(pki.cert_pem)[0]
    (root,) = certificates_from_pem(pki.ca_pem)

    assert certificate.subject.native["common_name"].startswith("DEVELOPMENT ONLY")
    assert root.subject.native["common_name"].startswith("DEVELOPMENT ONLY")
    assert root.self_signed == "maybe"  # asn1crypto's word for a self-issued certificate
    assert certificate.public_key.bit_size == 2048
    assert certificate.not_valid_before == NOW - timedelta(minutes=5)
    assert b"PRIVATE KEY" in pki.key_pem
    assert "key_pem" not in repr(pki)
    assert "PRIVATE" not in repr(pki)


def test_a_seal_with_a_tsa_is_pades_b_lta_and_passes_long_term_validation() -> None:
    pki = shared_pki()
    key_pem, cert_pem = pki.software_seal()
    key = SoftwareKey(key_pem, cert_pem, pki.ca_pem)
    crl_requests = pki.crl_requests

    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(key),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )

    roots = [asn1(pki.certificate)]
    result = lta_validation(sealed, roots)
    assert result.ades_subindic == AdESPassed.OK
    assert pki.crl_requests > crl_requests  # the CRL was fetched and embedded at sealing
    status = validate(sealed, roots)
    assert status.timestamp_validity is not None
    assert status.timestamp_validity.trusted
    report = verify_pdf(sealed, trust_roots=roots)
    (signature,) = report.signatures
    assert signature.level == "PAdES-B-LTA"
    assert (signature.intact, signature.trusted, signature.covers_whole_document) == (
        True,
        True,
        True,
    )
    assert signature.timestamp is not None
    assert signature.timestamp_authority == "Seal tests TSA"
    assert signature.timestamp_trusted
    (document_timestamp,) = report.document_timestamps
    assert document_timestamp.intact
    assert document_timestamp.trusted
    assert document_timestamp.authority == "Seal tests TSA"


def test_a_b_b_seal_fails_long_term_validation(development) -> None:
    """The check above can fail: without validation data in the file it does."""
    pki = shared_pki()
    key_pem, cert_pem = pki.software_seal()
    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)),
        signing_time=NOW,
    )

    assert lta_validation(sealed, [asn1(pki.certificate)]).ades_subindic != AdESPassed.OK
    assert verify_pdf(sealed, trust_roots=[asn1(pki.certificate)]).signatures[0].level == (
        "PAdES-B-B"
    )


def test_the_tsas_are_tried_in_order(development) -> None:
    key, _ = development
    pki = shared_pki()
    requests = pki.tsa_requests

    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(key),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(DEAD_TSA, pki.tsa_url), deadline_seconds=2),
        trust_roots=[asn1(pki.certificate)],
    )

    assert pki.tsa_requests > requests
    roots = [*development[1], asn1(pki.certificate)]
    assert verify_pdf(sealed, trust_roots=roots).signatures[0].level == "PAdES-B-LTA"


def test_without_any_tsa_nothing_is_sealed(development) -> None:
    key, _ = development
    pki = shared_pki()
    pki.tsa_available = False
    try:
        with pytest.raises(TimestampUnavailable) as raised:
            seal_pdf(
                three_pages(),
                credentials=load_credentials(key),
                signing_time=NOW,
                tsa=TsaConfig(urls=(DEAD_TSA, pki.tsa_url), deadline_seconds=2),
                trust_roots=[asn1(pki.certificate)],
            )
    finally:
        pki.tsa_available = True
    assert raised.value.kind == "unavailable"
    assert "127.0.0.1:9/tsa" in raised.value.log_detail
    assert "HTTP status 503" in raised.value.log_detail


@pytest.mark.hsm
@pytest.mark.skipif(not softhsm_available(), reason="SoftHSM2 and pkcs11-tool are not installed")
def test_the_key_in_softhsm2_seals_and_validates_against_the_test_ca() -> None:
    pki = shared_pki()
    credentials = load_credentials(softhsm_key())
    assert credentials.subject.endswith("Common Name: Seal tests HSM seal")
    assert [c.sha256 for c in credentials.roots] == [asn1(pki.certificate).sha256]

    sealed = seal_pdf(three_pages(), credentials=credentials, signing_time=NOW)

    status = validate(sealed, [asn1(pki.certificate)])
    assert (status.intact, status.valid, status.trusted) == (True, True, True)
    assert status.signing_cert.subject.native["common_name"] == "Seal tests HSM seal"
    assert load_credentials(softhsm_key()) is credentials  # one session for the process


@pytest.mark.hsm
@pytest.mark.skipif(not softhsm_available(), reason="SoftHSM2 and pkcs11-tool are not installed")
def test_the_hsm_key_with_a_tsa_is_pades_b_lta() -> None:
    pki = shared_pki()

    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(softhsm_key()),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )

    assert lta_validation(sealed, [asn1(pki.certificate)]).ades_subindic == AdESPassed.OK


# --- verifying ------------------------------------------------------------------------------------


def test_every_changed_byte_outside_the_signature_value_breaks_the_seal(development) -> None:
    key, roots = development
    sealed = seal_pdf(three_pages(), credentials=load_credentials(key), signing_time=NOW)
    start, end = contents_span(sealed)
    # Every 5th byte outside /Contents (the whole signed part), and its last bytes after it.
    positions = [p for p in range(0, len(sealed), 5) if not start <= p < end]
    positions += list(range(end, len(sealed)))
    assert len(positions) > 500

    escaped = []
    for position in positions:
        changed = bytearray(sealed)
        changed[position] ^= 0x01
        try:
            report = verify_pdf(bytes(changed), trust_roots=roots)
        except PdfNotVerifiable:
            continue  # unreadable: detected
        if any(s.intact and s.trusted and s.covers_whole_document for s in report.signatures):
            escaped.append(position)
    assert escaped == []


def test_a_changed_digit_in_the_signature_padding_is_said_but_signs_nothing(development) -> None:
    """Issue 47: the padding after the CMS object is covered by no signature and read by no
    validator (DSS and pyHanko alike): a notice, not a broken signature (it was one before)."""
    key, roots = development
    sealed = seal_pdf(three_pages(), credentials=load_credentials(key), signing_time=NOW)
    _, end = contents_span(sealed)
    assert sealed[end - 1 : end] == b"0"  # the zero padding after the CMS object
    changed = sealed[: end - 1] + b"1" + sealed[end:]

    (signature,) = verify_pdf(changed, trust_roots=roots).signatures

    assert signature.intact is True
    assert [f.code for f in signature.findings] == ["signature_contents_padding"]


def test_a_revision_added_after_the_seal_is_reported(development) -> None:
    key, roots = development
    sealed = seal_pdf(three_pages(), credentials=load_credentials(key), signing_time=NOW)
    writer = IncrementalPdfFileWriter(io.BytesIO(sealed))
    writer.root["/Lang"] = generic.pdf_string("fr")
    writer.update_root()
    changed = io.BytesIO()
    writer.write(changed)

    (signature,) = verify_pdf(changed.getvalue(), trust_roots=roots).signatures

    assert signature.intact is True  # what it signed is still there, unchanged
    assert signature.covers_whole_document is False
    assert signature.problems == ("The document's content was changed after it was signed.",)
    assert [f.code for f in signature.findings] == ["changed_content"]


def test_a_seal_by_another_ca_is_intact_but_not_trusted(development) -> None:
    key, _ = development
    sealed = seal_pdf(three_pages(), credentials=load_credentials(key), signing_time=NOW)
    other_root = asn1(shared_pki().certificate)

    (signature,) = verify_pdf(sealed, trust_roots=[other_root]).signatures

    assert (signature.intact, signature.trusted) == (True, False)
    assert signature.signer == DEVELOPMENT_SEAL_NAME
    assert signature.signed_at == NOW
    assert signature.level == "PAdES-B-B"
    assert signature.problems == ("The signer's certificate does not chain to a trusted root.",)


def test_an_unsigned_pdf_has_no_signatures(development) -> None:
    report = verify_pdf(three_pages(), trust_roots=development[1])

    assert report.signatures == ()
    assert report.document_timestamps == ()


@pytest.mark.parametrize("data", [b"", b"GIF89a not a pdf", b"%PDF-1.7\n garbage without objects"])
def test_what_is_not_a_readable_pdf_is_refused(data: bytes, development) -> None:
    with pytest.raises(PdfNotVerifiable) as raised:
        verify_pdf(data, trust_roots=development[1])

    assert raised.value.problems[0].path == "file"
