"""Issue 22's audit of verification, file by file (tests.esign.verify_files): document timestamps
verified, the file's own revocation data used at the time its timestamps prove, changes after
the seal named, and one verdict a non-expert reads right. Each verdict is set beside what
pyHanko's own validator says of the same file (with the same DSS, nothing fetched)."""

from __future__ import annotations

import hashlib
import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from django.test import Client
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_keys import certificates_from_pem, create_development_pki
from esign.engine.seal_verify import verify_pdf
from esign.engine.timestamps import TsaConfig
from esign.models import PacketDocument
from tests.esign import verify_files as files
from tests.esign.sealpki import asn1, shared_pki, softhsm_available, softhsm_key
from tests.esign.test_seal_engine import three_pages

# --- the engine ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def development() -> tuple[bytes, list]:
    """A B-B seal by a development key, and that key's root."""
    pki = create_development_pki(now=datetime.now(UTC))
    key = SoftwareKey(pki.key_pem, pki.cert_pem, pki.ca_pem)
    sealed = seal_pdf(three_pages(), credentials=load_credentials(key), signing_time=files.NOW)
    return sealed, certificates_from_pem(pki.ca_pem)


@pytest.fixture(scope="module")
def lta() -> bytes:
    return files.lta_seal(three_pages(), shared_pki())


def test_an_intact_b_lta_seal_is_valid_with_its_document_timestamp(lta: bytes) -> None:
    roots = [asn1(shared_pki().certificate)]

    report = verify_pdf(lta, trust_roots=roots)

    assert report.verdict == "valid"
    (signature,) = report.signatures
    assert (signature.level, signature.covers_whole_document, signature.findings) == (
        "PAdES-B-LTA",
        True,
        (),
    )
    (stamp,) = report.document_timestamps
    assert (stamp.intact, stamp.trusted, stamp.covers_whole_document) == (True, True, True)
    assert stamp.covers == ("DocumentSeal",)
    assert stamp.authority == "Seal tests TSA"
    said = files.pyhanko_says(lta, roots)
    assert said.summary.startswith("INTACT:TRUSTED,TIMESTAMP_TOKEN<INTACT:TRUSTED>")
    assert said.document_timestamps == ("INTACT:TRUSTED",)
    assert said.lta == "OK"


@pytest.mark.hsm
@pytest.mark.skipif(not softhsm_available(), reason="SoftHSM2 and pkcs11-tool are not installed")
def test_an_hsm_b_lta_seal_is_valid_and_a_changed_dss_byte_is_a_change() -> None:
    """The audit's second configuration: the key in SoftHSM2, the local CA's CRL, its TSA."""
    pki = shared_pki()
    roots = [asn1(pki.certificate)]
    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(softhsm_key()),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )
    changed = files.changed_byte_in_dss(sealed)

    assert verify_pdf(sealed, trust_roots=roots).verdict == "valid"
    assert verify_pdf(changed, trust_roots=roots).verdict == "changed"
    assert files.pyhanko_says(sealed, roots).lta == "OK"
    assert files.pyhanko_says(changed, roots).document_timestamps == ("INVALID",)


def test_a_changed_byte_under_the_document_timestamp_is_a_change(lta: bytes) -> None:
    """Defect 2: one byte of the DSS, which only the document timestamp covers."""
    roots = [asn1(shared_pki().certificate)]
    changed = files.changed_byte_in_dss(lta)

    report = verify_pdf(changed, trust_roots=roots)

    assert report.verdict == "changed"
    (stamp,) = report.document_timestamps
    assert (stamp.intact, stamp.trusted) == (False, False)
    assert [f.code for f in stamp.findings] == ["document_timestamp_not_intact"]
    assert stamp.problems[0].startswith("The file was changed after its document timestamp")
    assert report.signatures[0].level == "PAdES-B-LT"  # no document timestamp holds any more
    said = files.pyhanko_says(changed, roots)
    assert said.document_timestamps == ("INVALID",)
    assert said.lta != "OK"


def test_a_signer_revoked_by_the_crl_in_the_file_is_not_trusted() -> None:
    """Defect 3: the CRL in the file's own DSS revokes the seal's certificate."""
    pki = shared_pki()
    roots = [asn1(pki.certificate)]
    revoked, _ = files.revoked_signer(three_pages(), pki)

    report = verify_pdf(revoked, trust_roots=roots)

    assert report.verdict == "untrusted"
    (signature,) = report.signatures
    assert (signature.intact, signature.trusted, signature.revoked) == (True, False, True)
    assert signature.covers_whole_document is True  # a DSS update is no change
    assert [f.code for f in signature.findings] == ["revoked"]
    said = files.pyhanko_says(revoked, roots)
    assert said.revoked
    assert said.summary.startswith("INTACT:REVOKED")


def test_a_signer_revoked_after_the_timestamp_is_trusted_at_that_time() -> None:
    """Defect 3: trust at the time the timestamps prove, with the file's revocation data."""
    pki = shared_pki()
    roots = [asn1(pki.certificate)]
    pdf = files.revoked_after_its_timestamp(three_pages(), pki)

    report = verify_pdf(pdf, trust_roots=roots)

    (signature,) = report.signatures
    assert (signature.trusted, signature.revoked) == (True, False)
    # Issue 33: at the time its document timestamp proves (AdES long-term validation), which
    # like its signature timestamp's is before the revocation.
    assert signature.trusted_at == report.document_timestamps[0].at
    assert report.verdict == "valid"
    # pyHanko's plain validation decides at the current time: revoked; its AdES long-term
    # validation, like this one, at the time proven: it passes.
    said = files.pyhanko_says(pdf, roots)
    assert said.revoked
    assert said.lta == "OK"


def standing(signature: Any) -> tuple[bool, bool, bool]:
    """Whether the signature is intact, trusted, and covers the whole document."""
    return signature.intact, signature.trusted, signature.covers_whole_document


def test_an_info_only_update_after_the_seal_is_a_change(development) -> None:
    """Defect 4: only the document information's /Title changed, in a later revision."""
    sealed, roots = development
    changed = files.info_title_changed(sealed)

    report = verify_pdf(changed, trust_roots=roots)

    assert report.verdict == "changed"
    (signature,) = report.signatures
    assert standing(signature) == (True, True, False)
    assert [f.code for f in signature.findings] == ["changed_metadata"]
    # pyHanko sees a later revision but counts it as long-term validation data.
    assert files.pyhanko_says(changed, roots).summary == (
        "INTACT:TRUSTED,EXTENDED_WITH_LTA_UPDATES,ACCEPTABLE_MODIFICATIONS"
    )


def test_a_validation_data_update_is_no_change(development) -> None:
    """The other side of the /Info check: pyHanko's own DSS update (it also rewrites /Info's
    /ModDate and /Producer) is still nothing but validation data."""
    sealed, roots = development
    pki = shared_pki()
    extended = files._with_dss(sealed, certs=[asn1(pki.certificate)], crl=pki.crl)

    report = verify_pdf(extended, trust_roots=roots)

    assert report.verdict == "valid"
    assert report.signatures[0].covers_whole_document is True


def test_bytes_after_the_end_of_file_are_a_change(development) -> None:
    """Defect 4: junk after %%EOF, which nothing signs."""
    sealed, roots = development
    changed = files.junk_after_eof(sealed)

    report = verify_pdf(changed, trust_roots=roots)

    assert report.verdict == "changed"
    assert report.appended_bytes == 63
    (signature,) = report.signatures
    assert signature.covers_whole_document is False
    assert [f.code for f in signature.findings] == ["appended_bytes"]
    assert signature.problems == (
        "63 bytes were added after the end of the file, where no signature covers them.",
    )
    assert files.pyhanko_says(changed, roots).summary == (
        "INTACT:TRUSTED,EXTENDED_WITH_NONE,ACCEPTABLE_MODIFICATIONS"
    )
    # Whitespace after %%EOF is no change.
    assert verify_pdf(sealed + b"\r\n\n", trust_roots=roots).verdict == "valid"


def test_a_third_party_signature_is_intact_but_untrusted(lta: bytes, development) -> None:
    """Defect 5: a seal by another CA is not "changed": it is intact, from a signer (and a
    TSA) this service does not trust."""
    _, roots = development

    report = verify_pdf(lta, trust_roots=roots)

    assert report.verdict == "untrusted"
    (signature,) = report.signatures
    assert standing(signature) == (True, False, True)
    # Issue 33: its signature timestamp's TSA is not trusted either, which is now said.
    assert [f.code for f in report.signatures[0].findings] == [
        "timestamp_not_trusted",
        "not_trusted",
    ]
    assert [f.code for f in report.document_timestamps[0].findings] == [
        "document_timestamp_not_trusted"
    ]
    assert files.pyhanko_says(lta, roots).summary.startswith("INTACT:UNTRUSTED")


def test_a_changed_byte_in_the_signed_range_is_a_change(development) -> None:
    sealed, roots = development
    changed = files.changed_byte_in_signed_range(sealed)

    report = verify_pdf(changed, trust_roots=roots)

    assert report.verdict == "changed"
    assert [f.code for f in report.signatures[0].findings] == ["not_intact"]
    assert files.pyhanko_says(changed, roots).summary == "INVALID"


def test_a_removed_seal_leaves_an_unsigned_file(development) -> None:
    sealed, roots = development
    removed = files.seal_removed(sealed)

    assert removed == three_pages()
    assert verify_pdf(removed, trust_roots=roots).verdict == "not_signed"
    assert files.pyhanko_says(removed, roots).summary == "NO SIGNATURE"


# --- the API and the page ----------------------------------------------------------------------


def post(client: Client, data: bytes) -> dict[str, Any]:
    upload = io.BytesIO(data)
    upload.name = "document.pdf"
    response = client.post("/api/v1/verify", {"file": upload})
    assert response.status_code == 200, response.content
    return response.json()


def page(data: bytes) -> str:
    upload = io.BytesIO(data)
    upload.name = "document.pdf"
    response = Client().post("/verify", {"file": upload})
    assert response.status_code == 200
    return " ".join(response.content.decode().split())


@pytest.fixture
def trusting_the_test_pki(settings: Any, tmp_path: Path) -> None:
    """The test PKI's root in SEAL_TRUST_ROOTS_FILE, besides the development root."""
    roots = tmp_path / "roots.pem"
    roots.write_bytes(shared_pki().ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots)


@pytest.mark.django_db
def test_the_api_says_valid_for_an_intact_b_lta_seal(
    lta: bytes, api_client: Client, trusting_the_test_pki: None
) -> None:
    body = post(api_client, lta)

    assert body["verdict"] == "valid"
    assert body["problems"] == []
    (stamp,) = body["documentTimestamps"]
    assert {k: stamp[k] for k in ("authority", "intact", "trusted", "coversWholeDocument")} == {
        "authority": "Seal tests TSA",
        "intact": True,
        "trusted": True,
        "coversWholeDocument": True,
    }
    assert stamp["covers"] == ["DocumentSeal"]
    assert stamp["at"].endswith("Z")
    assert body["signers"] == [
        {
            "name": "Seal tests software seal",
            "signedAt": body["signatures"][0]["timestamp"],
            "source": "signature",
            "verified": True,
            "timeProven": True,  # issue 33: by a trusted timestamp
        }
    ]
    assert body["signatures"][0]["level"] == "PAdES-B-LTA"
    html = page(lta)
    assert "<strong>Valid.</strong> Every signature is intact and trusted" in html
    assert "Document timestamps (1)" in html


@pytest.mark.django_db
def test_the_api_and_page_say_changed_for_a_byte_under_the_document_timestamp(
    lta: bytes, api_client: Client, trusting_the_test_pki: None
) -> None:
    changed = files.changed_byte_in_dss(lta)

    body = post(api_client, changed)

    assert body["verdict"] == "changed"
    assert body["signatures"][0]["coversWholeDocument"] is True  # the seal itself is whole
    assert [p["code"] for p in body["problems"]] == ["document_timestamp_not_intact"]
    assert body["documentTimestamps"][0]["intact"] is False
    html = page(changed)
    assert "<strong>Changed after signing.</strong>" in html
    assert "The file was changed after its document timestamp by Seal tests TSA" in html


@pytest.mark.django_db
def test_the_api_says_revoked(api_client: Client, trusting_the_test_pki: None) -> None:
    revoked, _ = files.revoked_signer(three_pages(), shared_pki())

    body = post(api_client, revoked)

    assert body["verdict"] == "untrusted"
    (signature,) = body["signatures"]
    assert (signature["trusted"], signature["revoked"]) == (False, True)
    assert body["problems"] == [
        {
            "code": "revoked",
            "message": "The signer's certificate was revoked (by revocation data in the file).",
            "fieldName": "DocumentSeal",
        }
    ]
    html = page(revoked)
    assert "<strong>Intact, but not from a trusted signer.</strong>" in html
    assert "No: the certificate was revoked" in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "code", "words"),
    [
        (
            files.info_title_changed,
            "changed_metadata",
            "The document&#x27;s information (title, author, subject...) was changed after it "
            "was signed.",
        ),
        (
            files.junk_after_eof,
            "appended_bytes",
            "63 bytes were added after the end of the file, where no signature covers them.",
        ),
    ],
)
def test_a_change_after_the_seal_is_named(
    packet_files: dict[str, bytes], api_client: Client, change: Any, code: str, words: str
) -> None:
    changed = change(packet_files["agreement.pdf"])

    body = post(api_client, changed)

    assert body["verdict"] == "changed"
    assert body["sealedByUs"] is False
    assert body["signatures"][0]["coversWholeDocument"] is False
    assert [p["code"] for p in body["problems"]] == [code, "development_seal"]
    html = page(changed)
    assert "<strong>Changed after signing.</strong>" in html
    assert f"<li>{words}</li>" in html
    assert "Yes: nothing was changed after it" not in html


@pytest.mark.django_db
def test_a_development_seal_is_valid_here_only(
    packet_files: dict[str, bytes], api_client: Client
) -> None:
    body = post(api_client, packet_files["agreement.pdf"])

    assert body["verdict"] == "valid_development"
    assert body["signatures"][0]["development"] is True
    html = page(packet_files["agreement.pdf"])
    assert "<strong>Valid, with a development seal.</strong>" in html
    assert "trusted here only, not by any other service or PDF reader" in html
    assert "In this installation only: a development certificate, trusted nowhere else" in html
    assert "Yes: the certificate chains to a trusted root" not in html
    assert "This exact file is a document this service sealed." in html
    audit = page(packet_files["audit-trail.pdf"])
    assert "This exact file is an audit trail this service sealed." in audit
    assert "Signed by</h3>" in html
    assert "<strong>Ada Lovelace</strong>" in html
    assert "from the audit trail of this service" in html


@pytest.mark.django_db
def test_a_third_party_seal_is_untrusted_not_changed(lta: bytes, api_client: Client) -> None:
    body = post(api_client, lta)

    assert body["verdict"] == "untrusted"
    # Issue 33: its signature timestamp's TSA is not trusted either, which is now said.
    assert [p["code"] for p in body["problems"]] == [
        "timestamp_not_trusted",
        "not_trusted",
        "document_timestamp_not_trusted",
    ]
    html = page(lta)
    assert "<strong>Intact, but not from a trusted signer.</strong>" in html
    assert "Changed after signing" not in html


@pytest.mark.django_db
def test_a_removed_seal_is_not_signed_and_named_as_our_document(
    packet_files: dict[str, bytes], api_client: Client
) -> None:
    removed = files.seal_removed(packet_files["agreement.pdf"])
    document = PacketDocument.objects.get()
    assert document.current_sha256 == body_sha(removed)

    body = post(api_client, removed)

    assert body["verdict"] == "not_signed"
    assert body["knownAs"] == "document_before_seal"
    assert body["sealedByUs"] is False
    assert [s["name"] for s in body["signers"]] == ["Ada Lovelace", "Charles Babbage"]
    html = page(removed)
    assert "<strong>Not signed.</strong>" in html
    assert "A document of this service, without its seal." in html
    assert "Ask the sender for the sealed file" in html


def body_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_an_indirect_title_rewritten_after_the_seal_is_a_change(development) -> None:
    """The /Info check compares values as of the signed revision: a /Title that is an indirect
    object, rewritten later, is caught too."""
    _, roots = development
    pki = create_development_pki(now=datetime.now(UTC))
    key = SoftwareKey(pki.key_pem, pki.cert_pem, pki.ca_pem)
    writer = IncrementalPdfFileWriter(io.BytesIO(three_pages()))
    title = writer.add_object(generic.pdf_string("The original title"))
    info_ref = writer.prev.trailer.raw_get("/Info")
    info = generic.DictionaryObject(dict(writer.prev.trailer["/Info"]))
    info["/Title"] = title
    writer.objects[(info_ref.generation, info_ref.idnum)] = info
    writer.mark_update(info_ref)
    before = io.BytesIO()
    writer.write(before)
    sealed = seal_pdf(before.getvalue(), credentials=load_credentials(key), signing_time=files.NOW)
    roots = certificates_from_pem(pki.ca_pem)
    writer = IncrementalPdfFileWriter(io.BytesIO(sealed))
    writer.mark_update(title)
    writer.objects[(title.generation, title.idnum)] = generic.pdf_string("Another title")
    after = io.BytesIO()
    writer.write(after)

    assert verify_pdf(sealed, trust_roots=roots).verdict == "valid"
    report = verify_pdf(after.getvalue(), trust_roots=roots)
    assert report.verdict == "changed"
    # pyHanko counts the rewritten string object as a change of content; /Info names it.
    assert "changed_metadata" in [f.code for f in report.signatures[0].findings]


def test_a_sealed_linearized_file_has_no_appended_bytes(development, tmp_path: Path) -> None:
    """In a linearized file the newest xref section is near the start: the tail is measured
    from the section that ends furthest into the file."""
    pki = create_development_pki(now=datetime.now(UTC))
    key = SoftwareKey(pki.key_pem, pki.cert_pem, pki.ca_pem)
    linearized = io.BytesIO()
    with pikepdf.open(io.BytesIO(three_pages())) as pdf:
        pdf.save(linearized, linearize=True)
    sealed = seal_pdf(
        linearized.getvalue(), credentials=load_credentials(key), signing_time=files.NOW
    )

    report = verify_pdf(sealed, trust_roots=certificates_from_pem(pki.ca_pem))

    assert report.appended_bytes == 0
    assert report.verdict == "valid"
