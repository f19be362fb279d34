"""What is a change after a signature and what is not (issue 47): the page rule, copied
timestamps, the codes that are notices, the ETSI indication of an invalid byte range. Files of
DSS's own tests (tests/data/pades_corpus/dss) and seals made here with one revision added.
Each test says what the verifier said before.
"""

from __future__ import annotations

import io

import pytest
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import load_credentials
from esign.engine.seal_verify import verify_pdf
from esign.engine.verify_report import (
    CHANGE_CODES,
    NOTICE_CODES,
    Finding,
    indication_of,
)
from tests.esign.test_seal_engine import NOW, development, three_pages  # noqa: F401
from tests.esign.test_verify_formats import (
    _first_timestamp_imprint_flipped,
    codes,
    corpus,
    verify,
)


def _sealed_then(key: object, change: object) -> bytes:
    """A seal over three pages, then one incremental revision made by ``change(writer)``."""
    sealed = seal_pdf(three_pages(), credentials=load_credentials(key), signing_time=NOW)
    writer = IncrementalPdfFileWriter(io.BytesIO(sealed))
    change(writer)  # type: ignore[operator]
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _page_tree(writer: IncrementalPdfFileWriter) -> generic.DictionaryObject:
    pages = writer.root["/Pages"]
    writer.update_container(pages)
    return pages


# --- the page rule ---------------------------------------------------------------------------


def test_a_page_tree_entry_no_page_inherits_is_no_change(development) -> None:  # noqa: F811
    """Before: changed_pages (any rewrite of a page-tree node), as pkcs7_sha1.pdf's iText
    /ITXT entry on its /Pages node was read."""
    key, roots = development
    pdf = _sealed_then(
        key, lambda w: _page_tree(w).__setitem__("/ITXT", generic.pdf_string("5.5.13"))
    )

    (signature,) = verify_pdf(pdf, trust_roots=roots).signatures

    assert signature.intact is True
    assert not set(codes(signature)) & CHANGE_CODES


def test_pages_reordered_after_a_seal_are_changed_pages(development) -> None:  # noqa: F811
    key, roots = development

    def reorder(writer: IncrementalPdfFileWriter) -> None:
        pages = _page_tree(writer)
        kids = pages["/Kids"]
        pages["/Kids"] = generic.ArrayObject([kids.raw_get(2), kids.raw_get(1), kids.raw_get(0)])

    (signature,) = verify_pdf(_sealed_then(key, reorder), trust_roots=roots).signatures

    assert "changed_pages" in codes(signature)
    assert signature.indication == ("TOTAL-FAILED", "FORMAT_FAILURE")


def test_an_inherited_page_attribute_changed_is_a_content_change(development) -> None:  # noqa: F811
    """The same pages, but what they inherit (their media box) rewritten: what they show."""
    key, roots = development
    box = generic.ArrayObject([generic.NumberObject(n) for n in (0, 0, 100, 100)])
    pdf = _sealed_then(key, lambda w: _page_tree(w).__setitem__("/MediaBox", box))

    (signature,) = verify_pdf(pdf, trust_roots=roots).signatures

    assert codes(signature) == ["changed_content"]


def test_pkcs7_sha1_file_is_not_changed() -> None:
    """PdfPkcs7WithSha1SubFilterTest: no modification. Before: changed_pages."""
    report = verify(corpus("pkcs7_sha1.pdf"))

    assert report.verdict != "changed"
    assert [s.intact for s in report.signatures] == [True, True]


# --- timestamps that do not hold --------------------------------------------------------------


def test_a_broken_signature_timestamp_is_not_a_change() -> None:
    """Before: verdict "changed" (timestamp_not_intact was a change code)."""
    report = verify(_first_timestamp_imprint_flipped(corpus("pades-t-duplicated-sigtst.pdf")))

    (signature,) = report.signatures
    assert "timestamp_not_intact" in codes(signature)
    assert signature.changed is False
    assert report.verdict == "untrusted"


def test_a_copied_signature_timestamp_is_not_a_change() -> None:
    """PAdESTwoSigWithCopiedTstTest: both signatures intact, no modification; the copied
    timestamp is not valid. Before: "changed"."""
    report = verify(corpus("pades-two-sig-copied-tst.pdf"))

    assert [s.intact for s in report.signatures] == [True, True]
    assert report.verdict == "untrusted"


def test_a_duplicated_document_timestamp_is_reported_as_a_copy() -> None:
    """PAdESLevelTWithDuplicatedDocTstTest: one document timestamp valid, the other's message
    imprint not intact; the signature B- and T-level valid. Before: "changed"."""
    report = verify(corpus("pades-t-duplicated-doctst.pdf"))

    (signature,) = report.signatures
    assert signature.intact is True
    assert not signature.changed
    stamps = sorted(
        ([f.code for f in t.findings], t.indication) for t in report.document_timestamps
    )
    assert (["document_timestamp_copied"], ("TOTAL-FAILED", "HASH_FAILURE")) in stamps
    assert report.verdict == "untrusted"


def test_a_document_timestamp_copied_from_the_signature_timestamp_is_a_copy() -> None:
    """PAdESLevelLTAWithCopiedDocTstTest: the document timestamp is the signature timestamp's
    token (same digest); the signature T-level valid, not LTA. Before: "changed"."""
    report = verify(corpus("pades-lta-copied-doctst.pdf"))

    (stamp,) = report.document_timestamps
    assert [f.code for f in stamp.findings] == ["document_timestamp_copied"]
    assert report.verdict == "untrusted"


# --- notices and indications -----------------------------------------------------------------


def test_other_tools_formats_and_padding_are_notices() -> None:
    """Before: neither was a notice (a file holding only them could look bad)."""
    assert {"signature_format", "signature_contents_padding"} <= NOTICE_CODES
    findings = (
        Finding("signature_format", "adbe.pkcs7.sha1"),
        Finding("signature_contents_padding", "padding"),
    )
    assert indication_of(findings) == ("TOTAL-PASSED", None)


def test_an_invalid_byte_range_is_a_format_failure_before_any_digest() -> None:
    """DSS: TOTAL-FAILED/FORMAT_FAILURE. Before: HASH_FAILURE."""
    findings = (
        Finding("not_intact", "digest"),
        Finding("byte_range_invalid", "gap"),
    )
    assert indication_of(findings) == ("TOTAL-FAILED", "FORMAT_FAILURE")


# --- after an ordinary approval signature ----------------------------------------------------


def test_annotations_and_form_filling_after_an_approval_signature_are_notices() -> None:
    """PAdESLevelBWithAnnotAddedTest and PAdESLevelBWithFilledFormTest: no undefined change,
    not a failure. Before: "changed" (changed_annotations, changed_form)."""
    annotated = verify(corpus("pades-signed-annot-added.pdf"))
    filled = verify(corpus("pades-signed-filled-form.pdf"))

    assert "allowed_annotations" in codes(annotated.signatures[0])
    assert "allowed_form_filling" in codes(filled.signatures[0])
    assert annotated.verdict != "changed"
    assert filled.verdict != "changed"


@pytest.mark.parametrize(
    "name",
    ["pdf-spoofing-attack.pdf", "pades-spoofing-replaced-reason.pdf", "dss-2236_replace.pdf"],
)
def test_spoofing_after_an_approval_signature_stays_a_change(name: str) -> None:
    """PAdESWithSpoofingAttackTest, PAdESSpoofingAttackReplacementTest (the signature's own
    dictionary written again after the bytes it covers), DSS2236ReplaceTest (a field's
    appearance replaced, its value not): undefined changes, whatever annotations or form
    filling came with them."""
    report = verify(corpus(name))

    assert report.verdict == "changed"
    assert not {"allowed_annotations", "allowed_form_filling"} & set(codes(report.signatures[0]))


def test_the_dss_818_first_signature_is_not_valid() -> None:
    """AbstractDSS818Test: the first signature is not valid (DSS: HASH_FAILURE); its sidecar
    said intact before. Ours: not intact, TOTAL-FAILED (pyHanko's check of the value fails)."""
    (signature,) = verify(corpus("dss-818_Signature-P-DE_CRY-2_HASH_FAILURE.pdf")).signatures

    assert signature.intact is False
    assert signature.indication[0] == "TOTAL-FAILED"
