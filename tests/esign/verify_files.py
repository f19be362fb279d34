"""The files of the verification audit (issue 22), made by the tests: a seal and its tampered,
third-party and stripped variants, and what pyHanko's own validator says of each.

Every file is made from scratch: the development key (``create_development_pki``), and the test
PKI (tests.esign.sealpki: a CA with a CRL that can revoke, and a TSA) for B-LTA seals and
certificates of another CA.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from asn1crypto import crl as asn1_crl
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature, validate_pdf_timestamp
from pyhanko.sign.validation.dss import DocumentSecurityStore, NoDSSFoundError
from pyhanko_certvalidator import ValidationContext

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.timestamps import TsaConfig
from tests.esign.sealpki import SealTestPki, asn1

NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def changed_byte_in_signed_range(sealed: bytes) -> bytes:
    """One digit of the first page's MediaBox changed: inside the seal's signed bytes."""
    position = sealed.index(b"/MediaBox [ 0 0 612 792 ]") + len(b"/MediaBox [ 0 0 61")
    return (
        sealed[:position]
        + (b"3" if sealed[position : position + 1] != b"3" else b"4")
        + (sealed[position + 1 :])
    )


def lta_seal(pdf: bytes, pki: SealTestPki) -> bytes:
    """A PAdES-B-LTA seal by a software key of the test CA, timestamped by its TSA."""
    key_pem, cert_pem = pki.software_seal()
    return seal_pdf(
        pdf,
        credentials=load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )


def changed_byte_in_dss(lta: bytes) -> bytes:
    """One byte changed in the document security store, which the document timestamp covers
    (the seal itself does not): a digit of the /Type /DSS dictionary's first stream length
    would make the file unreadable, so a byte inside an embedded certificate instead."""
    reader = PdfFileReader(io.BytesIO(lta))
    seal = reader.embedded_regular_signatures[0]
    timestamp = reader.embedded_timestamp_signatures[0]
    after_seal = seal.byte_range[2] + seal.byte_range[3]
    timestamp_contents = timestamp.byte_range[1]
    stream = lta.index(b"stream", after_seal)
    start = lta.index(b"\n", stream) + 1 + 40  # well inside the stream's data
    assert start < timestamp_contents
    return lta[:start] + bytes([lta[start] ^ 0x01]) + lta[start + 1 :]


def _new_seal_key(pki: SealTestPki, common_name: str) -> tuple[x509.Certificate, SoftwareKey]:
    """A new key in memory with its certificate from ``pki``'s CA."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certificate = pki.issue(key.public_key(), common_name)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    cert_pem = certificate.public_bytes(serialization.Encoding.PEM)
    return certificate, SoftwareKey(key_pem, cert_pem, pki.ca_pem)


def revoked_signer(pdf: bytes, pki: SealTestPki) -> tuple[bytes, asn1_x509.Certificate]:
    """Sealed by a certificate that the CA's CRL revokes, that CRL in the file's own DSS."""
    certificate, software = _new_seal_key(pki, "Seal tests revoked seal")
    pki.revoke(certificate)
    sealed = seal_pdf(pdf, credentials=load_credentials(software), signing_time=datetime.now(UTC))
    return _with_dss(sealed, certs=[asn1(certificate), asn1(pki.certificate)], crl=pki.crl), (
        asn1(certificate)
    )


def revoked_after_its_timestamp(pdf: bytes, pki: SealTestPki) -> bytes:
    """A B-LTA seal whose certificate was revoked after its timestamp (and before now), the CRL
    that says so added to the DSS afterwards: trusted at the time its timestamp proves."""
    certificate, software = _new_seal_key(pki, "Seal tests seal revoked later")
    sealed = seal_pdf(
        pdf,
        credentials=load_credentials(software),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )
    time.sleep(1.1)  # the timestamp's second is over
    pki.revoke(certificate, at=datetime.now(UTC))
    time.sleep(1.1)  # and so is the revocation's
    return _with_dss(sealed, certs=[asn1(certificate)], crl=pki.crl)


def _with_dss(pdf: bytes, *, certs: list[asn1_x509.Certificate], crl: bytes) -> bytes:
    """``pdf`` with an update that adds ``certs`` and ``crl`` to its document security store."""
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    DocumentSecurityStore.supply_dss_in_writer(
        writer, sig_contents=None, certs=certs, crls=[asn1_crl.CertificateList.load(crl)]
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def info_title_changed(sealed: bytes, title: str = "A different title") -> bytes:
    """An incremental update after the seal that changes only the document information
    dictionary (the trailer's /Info): its /Title."""
    writer = IncrementalPdfFileWriter(io.BytesIO(sealed))
    info_ref = writer.prev.trailer.raw_get("/Info")
    info = generic.DictionaryObject(dict(writer.prev.trailer["/Info"]))
    info["/Title"] = generic.pdf_string(title)
    writer.objects[(info_ref.generation, info_ref.idnum)] = info
    writer.mark_update(info_ref)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def junk_after_eof(sealed: bytes) -> bytes:
    return sealed + b"\n% appended after the seal\n1 0 obj (not part of anything) endobj\n"


def seal_removed(sealed: bytes) -> bytes:
    """The file as it was before its (last) seal: the bytes the seal's first range starts from,
    cut where the revision before it ends."""
    seal = PdfFileReader(io.BytesIO(sealed)).embedded_regular_signatures[-1]
    end = sealed.rindex(b"%%EOF", 0, seal.byte_range[1]) + len(b"%%EOF")
    while sealed[end : end + 1] in (b"\r", b"\n"):
        end += 1
    return sealed[:end]


# --- what pyHanko's own validator says -------------------------------------------------------


@dataclass(frozen=True)
class PyhankoSays:
    summary: str  # PdfSignatureStatus.summary() of the first signature: INTACT:TRUSTED,UNTOUCHED
    revoked: bool
    document_timestamps: tuple[str, ...]  # DocumentTimestampStatus.summary() of each
    lta: str  # the AdES-LTA validation's indication (files with a document timestamp), or ""

    def __str__(self) -> str:
        said = ("REVOKED " if self.revoked else "") + self.summary
        if self.document_timestamps:
            said += "; document timestamp " + ", ".join(self.document_timestamps)
        if self.lta:
            said += f"; AdES-LTA {self.lta}"
        return said


def _dss_context(reader: PdfFileReader, roots: list) -> ValidationContext:
    """The file's own validation data (its DSS), nothing fetched: `pyhanko sign validate`."""
    kwargs: dict[str, Any] = {"allow_fetching": False, "retroactive_revinfo": True}
    try:
        store = DocumentSecurityStore.read_dss(reader)
    except NoDSSFoundError:
        return ValidationContext(trust_roots=roots, **kwargs)
    return store.as_validation_context({"trust_roots": roots, **kwargs})


def pyhanko_says(pdf: bytes, roots: list) -> PyhankoSays:
    """pyHanko's validation of the first signature and every document timestamp with the
    file's own validation data, and for a file with document timestamps its AdES long-term
    validation (`lta_validation`: revocation data required, nothing fetched)."""
    from tests.esign.test_seal_engine import lta_validation

    reader = PdfFileReader(io.BytesIO(pdf), strict=False)
    if not reader.embedded_regular_signatures:
        return PyhankoSays("NO SIGNATURE", False, (), "")
    signature = reader.embedded_regular_signatures[0]
    status = validate_pdf_signature(signature, _dss_context(reader, roots))
    stamps = tuple(
        validate_pdf_timestamp(t, _dss_context(reader, roots)).summary()
        for t in reader.embedded_timestamp_signatures
    )
    lta = ""
    if stamps:
        result = lta_validation(pdf, roots)
        lta = f"{result.ades_subindic.name}"
    return PyhankoSays(status.summary(), bool(status.revoked), stamps, lta)
