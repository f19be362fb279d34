"""Whom verification trusts for what (issue 33): a timestamp's time only from a trusted TSA
(defect 3), signers and TSAs from separate roots, each certificate used for its role (defect 4).
Each verdict is also what pyHanko's own validator says."""

from __future__ import annotations

import asyncio
import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from django.test import Client
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import fields, signers
from pyhanko.sign.signers.pdf_cms import PdfCMSSignedAttributes
from pyhanko.sign.timestamps import TimeStamper
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_verify import verify_pdf
from esign.engine.timestamps import TsaConfig
from tests.esign.ltvpki import ShortLivedPki, self_made_tsa
from tests.esign.sealpki import asn1, key_usage
from tests.esign.test_seal_engine import three_pages


def pyhanko_status(pdf: bytes, roots: list) -> Any:
    """pyHanko's own validation of the first signature, roots for signer and TSA alike."""
    signature = PdfFileReader(io.BytesIO(pdf)).embedded_regular_signatures[0]
    return validate_pdf_signature(
        signature, ValidationContext(trust_roots=roots, allow_fetching=False)
    )


CLAIMED = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)
YEAR_2020 = datetime(2020, 1, 1, 12, 0, tzinfo=UTC)


def signed(key: SoftwareKey, timestamper: TimeStamper | None = None) -> bytes:
    """``three_pages()`` signed PAdES by ``key`` (B-B, or B-T with ``timestamper``), claiming
    the signing time CLAIMED."""
    writer = IncrementalPdfFileWriter(io.BytesIO(three_pages()))
    meta = signers.PdfSignatureMetadata(
        field_name="Signature1", md_algorithm="sha256", subfilter=fields.SigSeedSubFilter.PADES
    )
    signer = signers.PdfSigner(meta, load_credentials(key).signer, timestamper=timestamper)
    out = io.BytesIO()

    async def sign() -> None:
        session = signer.init_signing_session(writer)
        session.system_time = CLAIMED
        validation = await session.perform_presign_validation(writer)
        document = session.prepare_tbs_document(validation_info=validation, bytes_reserved=40000)
        prepared, output = document.digest_tbs_document()
        signed_document = await document.perform_signature(
            document_digest=prepared.document_digest,
            pdf_cms_signed_attrs=PdfCMSSignedAttributes(signing_time=CLAIMED),
        )
        await signed_document.post_signature_processing(output)
        output.seek(0)
        out.write(output.read())

    asyncio.run(sign())
    return out.getvalue()


@pytest.fixture(scope="module")
def pki() -> ShortLivedPki:
    return ShortLivedPki(revocation_seconds=86400, separate_tsa=True)


def ours_and_the_tsa_roots(pki: ShortLivedPki) -> tuple[bytes, bytes]:
    """A B-LTA seal of our key (its TSA's root trusted when sealing), and a document signed by a
    certificate of the TSA's root."""
    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(key_of(pki, "Our seal")),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
        trust_roots=[asn1(pki.tsa_root)],
    )
    return sealed, signed(key_of(pki, "Issued by the TSA root", of_tsa_root=True))


def key_of(pki: ShortLivedPki, name: str, *, of_tsa_root: bool = False) -> SoftwareKey:
    key_pem, cert_pem = pki.key_and_certificate(name, of_tsa_root=of_tsa_root)
    root = pki.tsa_root if of_tsa_root else pki.certificate
    return SoftwareKey(key_pem, cert_pem, root.public_bytes(serialization.Encoding.PEM))


@pytest.fixture(scope="module")
def self_stamped(pki: ShortLivedPki) -> bytes:
    """A trusted signer's signature with a signature timestamp of 2020 from a self-made TSA."""
    return signed(key_of(pki, "Trusted signer"), self_made_tsa(YEAR_2020))


def test_an_untrusted_tsa_time_is_claimed_not_proven(
    pki: ShortLivedPki, self_stamped: bytes
) -> None:
    """Before: valid, PAdES-B-T, the TSA's 2020 taken as the signing time."""
    roots = [asn1(pki.certificate), asn1(pki.tsa_root)]

    report = verify_pdf(self_stamped, trust_roots=roots, now=datetime.now(UTC))

    (signature,) = report.signatures
    assert report.verdict == "untrusted"
    # (and its B-B signature carries no revocation data: issue 33, defect 8)
    assert [f.code for f in signature.findings] == [
        "timestamp_not_trusted",
        "revocation_not_checked",
    ]
    assert (signature.trusted, signature.timestamp_trusted) == (True, False)
    assert signature.timestamp == YEAR_2020
    assert signature.level == "PAdES-B-B"
    assert "2020-01-01 12:00:00 UTC) is claimed, not proven" in signature.findings[0].message
    said = pyhanko_status(self_stamped, roots)
    assert (said.trusted, said.timestamp_validity.trusted) == (True, False)  # as here


@pytest.mark.django_db
@pytest.mark.usefixtures("trusted")  # the module's pki's root (tests/esign/conftest.py)
def test_the_api_and_page_show_an_untrusted_tsa_time_as_claimed(
    self_stamped: bytes, api_client: Client
) -> None:
    """Before: signers[0].signedAt 2020-01-01 "verified", and "Signed by Trusted signer,
    2020-01-01 ..." as the page's headline."""
    upload = io.BytesIO(self_stamped)
    upload.name = "signed.pdf"
    body = api_client.post("/api/v1/verify", {"file": upload}).json()

    assert body["verdict"] == "untrusted"
    assert [p["code"] for p in body["problems"]] == [
        "timestamp_not_trusted",
        "revocation_not_checked",
    ]
    assert body["signers"] == [
        {
            "name": "Trusted signer",
            "signedAt": "2026-05-06T07:08:09.000Z",
            "source": "signature",
            "verified": True,
            "timeProven": False,
        }
    ]
    assert body["signatures"][0]["timestampTrusted"] is False
    upload = io.BytesIO(self_stamped)
    upload.name = "signed.pdf"
    html = " ".join(Client().post("/verify", {"file": upload}).content.decode().split())
    assert (
        "<strong>Trusted signer</strong>, 2026-05-06 07:08:09 UTC (the time the signature "
        "claims: not proven by a trusted timestamp)" in html
    )
    assert "<strong>Trusted signer</strong>, 2020-01-01" not in html


# --- defect 4: separate roots for signers and TSAs, each certificate in its role -------------


def test_a_certificate_of_the_tsa_root_is_no_document_signer(pki: ShortLivedPki) -> None:
    """Before, one list of roots served both roles: any certificate of the TSA's CA verified
    as a valid document signature."""
    tsa_made = signed(key_of(pki, "Issued by the TSA root", of_tsa_root=True))
    signer_roots, tsa_roots = [asn1(pki.certificate)], [asn1(pki.tsa_root)]

    report = verify_pdf(tsa_made, trust_roots=signer_roots, tsa_roots=tsa_roots, now=CLAIMED)

    assert report.verdict == "untrusted"
    assert [f.code for f in report.signatures[0].findings] == ["not_trusted"]
    assert pyhanko_status(tsa_made, signer_roots).trusted is False


def test_a_tsa_certificate_is_no_document_signer_even_under_a_root_trusted_for_both(
    pki: ShortLivedPki,
) -> None:
    """With one list for both roles (SEAL_TRUST_ROOTS_FILE alone, as before), a TSA's own
    certificate (id-kp-timeStamping) signing a document is refused for its role."""
    timestamping = SoftwareKey(
        *pki.key_and_certificate("A TSA signing a document", time_stamping=True),
        pki.ca_pem,
    )
    tsa_signed = signed(timestamping)
    roots = [asn1(pki.certificate)]

    report = verify_pdf(tsa_signed, trust_roots=roots, now=CLAIMED)

    assert report.verdict == "untrusted"
    assert [f.code for f in report.signatures[0].findings] == ["certificate_not_for_signing"]


def test_a_certificate_without_a_signing_key_usage_is_not_trusted(pki: ShortLivedPki) -> None:
    encipherment = key_usage(key_encipherment=True)
    key = SoftwareKey(
        *pki.key_and_certificate("Encipherment only", key_usage=encipherment), pki.ca_pem
    )
    roots = [asn1(pki.certificate)]
    pdf = signed(key)

    report = verify_pdf(pdf, trust_roots=roots, now=CLAIMED)

    assert report.verdict == "untrusted"
    assert [f.code for f in report.signatures[0].findings] == ["not_trusted"]
    assert pyhanko_status(pdf, roots).trusted is False  # pyHanko's default usage check agrees


@pytest.mark.django_db
def test_the_service_trusts_tsa_roots_for_timestamps_only(
    pki: ShortLivedPki, api_client: Client, settings: Any, tmp_path: Path
) -> None:
    """SEAL_TSA_TRUST_ROOTS_FILE: our B-LTA seal, its TSA under a root of its own, is valid; a
    document signed by a certificate of that TSA root is not."""
    signer_roots, tsa_roots = tmp_path / "signers.pem", tmp_path / "tsas.pem"
    signer_roots.write_bytes(pki.ca_pem)
    tsa_roots.write_bytes(pki.tsa_root.public_bytes(serialization.Encoding.PEM))
    settings.SEAL_TRUST_ROOTS_FILE = str(signer_roots)
    settings.SEAL_TSA_TRUST_ROOTS_FILE = str(tsa_roots)
    sealed, tsa_made = ours_and_the_tsa_roots(pki)

    def verdict(pdf: bytes) -> str:
        upload = io.BytesIO(pdf)
        upload.name = "file.pdf"
        return str(api_client.post("/api/v1/verify", {"file": upload}).json()["verdict"])

    assert verdict(sealed) == "valid"
    assert verdict(tsa_made) == "untrusted"
