"""Signed PDFs made by other tools, read as the EU's reference validator (DSS) reads them (issue
47, items 4 to 7): every file here is one of DSS's own test files (tests/data/pades_corpus/dss,
their sidecars say where each comes from and what DSS asserts), read as it is or with one
change made here. Each test says what the verifier said before.
"""

from __future__ import annotations

import io
from datetime import datetime, timedelta
from pathlib import Path

import pikepdf
import pytest
from asn1crypto import cms
from asn1crypto import crl as asn1_crl
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.fields import enumerate_sig_fields
from pyhanko.sign.general import find_cms_attribute_iter
from pyhanko.sign.validation import EmbeddedPdfSignature, validate_pdf_signature
from pyhanko.sign.validation.dss import DocumentSecurityStore, NoDSSFoundError
from pyhanko.sign.validation.errors import SignatureValidationError
from pyhanko_certvalidator import ValidationContext

from esign.engine.pdf_signatures import file_certificates, open_pdf
from esign.engine.seal_verify import PdfNotVerifiable, verify_pdf
from esign.engine.verify_limits import VerifyLimits, check_pdf_limits
from esign.engine.verify_report import PdfVerification, SignatureReport
from tests.esign.test_seal_engine import three_pages

DSS = Path(__file__).resolve().parents[1] / "data" / "pades_corpus" / "dss"


def corpus(name: str) -> bytes:
    return (DSS / name).read_bytes()


def verify(pdf: bytes, **options: object) -> PdfVerification:
    """What the API runs: the structural limits, then the verification (no roots unless given)."""
    check_pdf_limits(pdf, VerifyLimits())
    return verify_pdf(pdf, trust_roots=options.pop("trust_roots", []), **options)  # type: ignore[arg-type]


def codes(signature: SignatureReport) -> list[str]:
    return [f.code for f in signature.findings]


def message(signature: SignatureReport, code: str) -> str:
    return next(f.message for f in signature.findings if f.code == code)


def pyhanko_alone(pdf: bytes, index: int = 0) -> object:
    """pyHanko's own validation of a signature (what the verifier passed through before)."""
    reader = PdfFileReader(io.BytesIO(pdf), strict=False)
    name, _, field = list(enumerate_sig_fields(reader, filled_status=True))[index]
    return validate_pdf_signature(
        EmbeddedPdfSignature(reader, field, name),
        ValidationContext(trust_roots=[], allow_fetching=False),
        skip_diff=True,
    )


# --- item 4: formats pyHanko does not read -----------------------------------------------------


def test_an_adbe_pkcs7_sha1_signature_is_read() -> None:
    """Before: the adbe.pkcs7.sha1 signature was unreadable (FORMAT_FAILURE)."""
    pdf = corpus("pkcs7_sha1.pdf")
    with pytest.raises(SignatureValidationError, match="adbe.pkcs7.sha1 is not a recognized"):
        pyhanko_alone(pdf)

    report = verify(pdf)

    assert [s.intact for s in report.signatures] == [True, True]
    assert "adbe.pkcs7.sha1" in message(report.signatures[0], "signature_format")


def test_an_adbe_pkcs7_sha1_signature_over_changed_bytes_is_not_intact() -> None:
    pdf = bytearray(corpus("pkcs7_sha1.pdf"))
    assert pdf[10:14] == bytes.fromhex("e2e3cfd3")  # the header's binary comment, signed
    pdf[10] = 0xE1

    first = verify(bytes(pdf)).signatures[0]

    assert first.intact is False
    assert message(first, "not_intact").endswith(
        "its SHA-1 digest is not the one the adbe.pkcs7.sha1 signature signed."
    )


def test_a_cms_with_two_signer_infos_is_one_intact_signature() -> None:
    """Before: unreadable (pyHanko: "signer_infos should contain exactly one entry")."""
    (signature,) = verify(corpus("pdf-double-signer-info.pdf")).signatures

    assert signature.intact is True
    assert "holds 2 signer infos" in message(signature, "signature_format")


def test_an_enveloping_cms_is_read_and_its_content_must_be_the_signed_bytes() -> None:
    """Before: both unreadable ("detached signatures should not have encapsulated data"). DSS:
    the first intact, the second (an empty enveloped content) not."""
    (enveloping,) = verify(corpus("pades-enveloping-cms.pdf")).signatures
    (empty,) = verify(corpus("pades-enveloping-empty-bytes-cms.pdf")).signatures

    assert enveloping.intact is True
    assert "enveloping" in message(enveloping, "signature_format")
    assert empty.intact is False
    assert message(empty, "not_intact").startswith(
        "The signature's CMS envelops content that is not the signed bytes of the document "
        "(0 bytes instead of"
    )


def test_a_plain_ecdsa_signature_value_is_checked() -> None:
    """Before: "the signature value does not match" (pyHanko read r || s as DER)."""
    pdf = corpus("dss-PLAIN-ECDSA_TeleSec_PKS_eIDAS_QES_CA_1-baseline-b.pdf")
    assert pyhanko_alone(pdf).valid is False  # type: ignore[attr-defined]

    (signature,) = verify(pdf).signatures

    assert signature.intact is True
    assert "plain ECDSA" in message(signature, "signature_format")


def test_a_timestamp_stored_as_a_signature_is_a_document_timestamp() -> None:
    """Before: two signatures, the second unreadable."""
    report = verify(corpus("pades-tst-with-sig-type.pdf"))

    assert len(report.signatures) == 1
    (timestamp,) = report.document_timestamps
    assert timestamp.intact is True


def test_one_signature_referenced_from_two_fields_is_counted_once() -> None:
    """Before: two signatures."""
    report = verify(corpus("signature-referenced-from-multiple-fields.pdf"))

    assert [s.intact for s in report.signatures] == [True]


@pytest.mark.parametrize("name", ["pdf-with-empty-sig.pdf", "pdf-with-two-empty-sigs.pdf"])
def test_unsigned_placeholders_are_no_signatures(name: str) -> None:
    """Before: one and two unreadable signatures, the file "changed"."""
    report = verify(corpus(name))

    assert (report.verdict, report.signatures) == ("not_signed", ())


def test_an_encrypted_pdf_with_an_empty_user_password_is_read() -> None:
    """Before: refused as unreadable."""
    (signature,) = verify(corpus("encrypted.pdf")).signatures

    assert signature.intact is True


def test_a_pdf_that_needs_a_password_is_refused_saying_so() -> None:
    encrypted = io.BytesIO()
    with pikepdf.open(io.BytesIO(three_pages())) as pdf:
        pdf.save(encrypted, encryption=pikepdf.Encryption(user="secret", owner="owner"))

    with pytest.raises(PdfNotVerifiable) as refused:
        verify_pdf(encrypted.getvalue(), trust_roots=[])

    assert refused.value.problems[0].message == (
        "The PDF is encrypted: it opens only with a password."
    )


# --- item 5: what was missed ---------------------------------------------------------------------


def test_signed_attributes_not_in_der_order_are_not_intact() -> None:
    """Before: intact (pyHanko checks the bytes as they are; DSS re-encodes: HASH_FAILURE)."""
    pdf = corpus("dss-818_Signature-P-IT_ADO-1_HASH_FAILURE_ECDSA.pdf")
    said = pyhanko_alone(pdf)
    assert (said.intact, said.valid) == (True, True)  # type: ignore[attr-defined]

    (signature,) = verify(pdf).signatures

    assert signature.intact is False
    assert signature.indication == ("TOTAL-FAILED", "HASH_FAILURE")
    assert message(signature, "not_intact").startswith(
        "The signature's signed attributes are not DER-encoded (not in sorted order)"
    )


def test_a_byte_range_past_the_end_of_the_file_is_not_intact() -> None:
    """Before: intact, its changes "unknown" (DSS: the byte range is invalid)."""
    pdf = corpus("pdf-eof.pdf")
    assert pyhanko_alone(pdf).intact is True  # type: ignore[attr-defined]

    (signature,) = verify(pdf).signatures

    assert signature.intact is False
    assert message(signature, "byte_range_invalid") == (
        "The signature's byte range reaches past the end of the file (79,188 bytes of 79,187)."
    )
    # DSS: an invalid byte range is a format failure, not a digest's (HASH_FAILURE)
    assert signature.indication == ("TOTAL-FAILED", "FORMAT_FAILURE")


def test_a_byte_range_overlapping_another_signature_is_not_intact() -> None:
    """DSS2451Test: one signature valid, the other TOTAL-FAILED (its byte range is invalid)."""
    report = verify(corpus("pdf-byterange-overlap.pdf"))

    assert [s.intact for s in report.signatures] == [True, False]
    assert report.signatures[1].indication == ("TOTAL-FAILED", "FORMAT_FAILURE")


def _first_timestamp_imprint_flipped(pdf: bytes) -> bytes:
    """``pdf`` with one hexadecimal digit of the first signature timestamp's message imprint
    changed, inside /Contents (an unsigned attribute: neither the byte range nor the signature
    covers it)."""
    reader = PdfFileReader(io.BytesIO(pdf), strict=False)
    embedded = reader.embedded_regular_signatures[0]
    content = embedded.pkcs7_content
    signer_info = cms.ContentInfo.load(content)["content"]["signer_infos"][0]
    token = next(
        find_cms_attribute_iter(signer_info["unsigned_attrs"], "signature_time_stamp_token")
    )
    imprint = token["content"]["encap_content_info"]["content"].parsed["message_imprint"]
    position = content.index(imprint["hashed_message"].native)
    start = int(embedded.byte_range[1]) + 1 + 2 * position  # after the '<'
    digit = pdf[start : start + 1]
    return pdf[:start] + (b"0" if digit != b"0" else b"1") + pdf[start + 1 :]


def test_a_broken_signature_timestamp_before_a_sound_one_is_found() -> None:
    """Before: not seen (pyHanko checks the tokens until one is trusted and reports the last)."""
    pdf = _first_timestamp_imprint_flipped(corpus("pades-t-duplicated-sigtst.pdf"))
    assert pyhanko_alone(pdf).timestamp_validity.intact is True  # type: ignore[attr-defined]

    (signature,) = verify(pdf).signatures

    assert signature.intact is True
    assert message(signature, "timestamp_not_intact") == (
        "The signature's first timestamp (of 2) is over another signature value: it does not "
        "stamp this signature."
    )


def test_the_sound_pair_of_timestamps_is_no_finding() -> None:
    (signature,) = verify(corpus("pades-t-duplicated-sigtst.pdf")).signatures

    assert "timestamp_not_intact" not in codes(signature)


# --- item 6: false refusals ------------------------------------------------------------------


def test_bytes_after_the_cms_in_contents_are_a_notice() -> None:
    """Before: "The signature's contents were changed after it was signed" (not intact)."""
    pdf = corpus("DSS-2155.pdf")
    (signature,) = verify(pdf).signatures

    assert signature.intact is True
    assert "bytes other than zeros after its CMS object" in message(
        signature, "signature_contents_padding"
    )


def test_objects_are_counted_not_declared_sizes() -> None:
    """Before: refused, "The file has 278728 objects" (an embedded file's /Size)."""
    pdf = corpus("evidence-record_PAdES_with_er.pdf")
    assert len(pdf) < 500_000

    (signature,) = verify(pdf).signatures

    assert signature.intact is True


# --- item 7: revocation data counts only when its issuer signed it ----------------------------


def _with_forged_crl(pdf: bytes) -> tuple[bytes, list[object], datetime]:
    """``pdf`` with an update adding to its DSS a CRL that names the signer's issuer and revokes
    the signer, signed by another key; the roots the file carries and the signing time."""
    reader = open_pdf(pdf)
    certificates = file_certificates(reader)
    try:
        store = DocumentSecurityStore.read_dss(reader)
    except NoDSSFoundError:
        store = None
    if store is not None:
        certificates += [
            asn1_x509.Certificate.load(r.get_object().data) for r in store.certs.values()
        ]
    roots = list({c.sha256: c for c in certificates if c.self_signed in ("maybe", "yes")}.values())
    signature = reader.embedded_regular_signatures[0]
    signer = signature.signer_cert
    at = signature.self_reported_timestamp
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(x509.load_der_x509_certificate(signer.dump()).issuer)
        .last_update(at - timedelta(days=1))
        .next_update(at + timedelta(days=3650))
        .add_revoked_certificate(
            x509.RevokedCertificateBuilder()
            .serial_number(signer.serial_number)
            .revocation_date(at - timedelta(days=2))
            .build()
        )
        .sign(key, hashes.SHA256())
    )
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    DocumentSecurityStore.supply_dss_in_writer(
        writer,
        sig_contents=None,
        crls=[asn1_crl.CertificateList.load(forged.public_bytes(serialization.Encoding.DER))],
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue(), roots, at


def test_a_forged_crl_in_a_dss_update_does_not_untrust_a_signer() -> None:
    """Before: the signer not trusted ("not_trusted"): pyHanko used the forged CRL."""
    original = corpus("doc-firmado-T.pdf")
    forged, roots, at = _with_forged_crl(original)
    before = verify(original, trust_roots=roots, now=at).signatures[0]
    assert before.trusted is True

    (signature,) = verify(forged, trust_roots=roots, now=at).signatures

    assert (signature.trusted, signature.revoked) == (True, False)
    assert "not_trusted" not in codes(signature)


def test_a_forged_crl_does_not_count_as_revocation_data() -> None:
    """Before: the signer's revocation "checked" by the forged CRL."""
    forged, roots, at = _with_forged_crl(corpus("belgian_pki_multiple_ocsps.pdf"))

    (signature,) = verify(forged, trust_roots=roots, now=at).signatures

    assert signature.trusted is True
    assert signature.revocation_checked is False
    assert "revocation_not_checked" in codes(signature)


# --- files pyHanko refuses to open, read as PDFBox recovers them ----------------------------


def test_misplaced_cross_reference_pointers_are_recovered() -> None:
    """Before: refused ("The PDF could not be read": a /Prev of 0, another a few hundred bytes
    off). DSS (PDFBox) reads five signatures, none intact (their signed attributes unsorted)."""
    report = verify(corpus("pades-5-signatures-and-1-document-timestamp.pdf"))

    assert [s.intact for s in report.signatures] == [False] * 5
    assert len(report.document_timestamps) == 1


@pytest.mark.parametrize("name", ["pades_infinite_loop.pdf", "pades_opposite_infinite_loop.pdf"])
def test_a_startxref_past_the_end_and_a_looping_field_tree_are_read(name: str) -> None:
    """Before: refused. DSS's test asks for a report, and quickly (a looping form tree)."""
    report = verify(corpus(name))

    assert report.verdict in ("changed", "not_signed")


def test_a_null_encrypt_entry_is_no_encryption_and_the_attack_is_still_flagged() -> None:
    """Before: refused ("Encryption settings must be a dictionary"): the spoofing attack file
    of DSS's tests, whose trailers say /Encrypt null."""
    report = verify(corpus("pdf-spoofing-attack.pdf"))

    assert report.verdict == "changed"
