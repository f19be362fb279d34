"""The verifier on signed PDFs written by others (tests/data/pades_corpus: the validation files of
DSS, the EU's reference validator, with the verdicts its own Java tests assert in each sidecar),
issue 47 items 1, 2, 3 and 8:

1. validation data (a DSS dictionary, VRI entries, document timestamps) added after a signature
   is no change of it;
2. an ordinary later signature (in an empty or new signature field) is no change of the earlier;
3. where pyHanko's difference analysis fails (a missing object, freed objects, a rewritten VRI,
   a linearized file), the signature is still intact and our own analysis of the later
   revisions decides; a page added after a signature is a change (pages);
8. the EN 319 102-1 indications: a page added TOTAL-FAILED/FORMAT_FAILURE, an expired signer
   without proof of existence INDETERMINATE/OUT_OF_BOUNDS_NO_POE, the last document timestamp's
   authority expired without renewal INDETERMINATE/NO_POE.

Every attacked file of the corpus is still flagged. One verification per file (cached): no trust
roots, the clock held.
"""

from __future__ import annotations

import functools
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.fields import enumerate_sig_fields
from pyhanko.sign.validation import EmbeddedPdfSignature

from esign.engine.seal_verify import PdfNotVerifiable, verify_pdf
from esign.engine.verify_report import (
    CHANGED,
    REVOKED,
    UNREADABLE_SIGNATURE,
    Finding,
    PdfVerification,
    SignatureReport,
    indication_of,
)

CORPUS = Path(__file__).resolve().parents[1] / "data" / "pades_corpus"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
VALIDATION_ONLY = "validation"
LATER_SIGNATURE = "later signature"
ANALYSIS_FAILS = "pyHanko's analysis fails"

# Clean files (DSS asserts every signature intact and no undefined change after it), by the
# kind of what follows their signatures; each was "changed" before issue 47.
CLEAN = {
    # B-LT / B-LTA made by other tools: only a DSS (VRI) and document timestamps follow
    "dss/Signature-P-HU_POL-3.pdf": VALIDATION_ONLY,
    "dss/belgian_pki_multiple_ocsps.pdf": VALIDATION_ONLY,
    "dss/DSS-3298.pdf": VALIDATION_ONLY,
    "dss/dss-2058_dss-2058-LTA-test.pdf": VALIDATION_ONLY,
    "dss/Test.signed_Certipost-2048-SHA512.extended-LTA.pdf": VALIDATION_ONLY,
    "dss/pades-t-level-extended.pdf": VALIDATION_ONLY,
    "dss/Signature-P-FR_CS-5.pdf": VALIDATION_ONLY,
    # a second approval signature in a new or empty signature field
    "dss/DSS-3226.pdf": LATER_SIGNATURE,
    "dss/muestra-firmado-firmado.pdf": LATER_SIGNATURE,
    "dss/pades3_Baseline_B.pdf": LATER_SIGNATURE,
    "dss/dss-2058_dss-2058-QC-LTA-test.pdf": LATER_SIGNATURE,
    "dss/PAdES-LT.pdf": LATER_SIGNATURE,
    # pyHanko's analysis raises (a missing object) or refuses (freed objects, a VRI entry
    # rewritten, a linearized file's two sections)
    "dss/pades-ltv.pdf": ANALYSIS_FAILS,
    "dss/pades-ltv-with-reason.pdf": ANALYSIS_FAILS,
    "dss/pades-same-border-annotations.pdf": ANALYSIS_FAILS,
    "dss/Signature-P-HU_POL-7.pdf": ANALYSIS_FAILS,
    "dss/pades-ocsp-archiveCutOff-invalid.pdf": ANALYSIS_FAILS,
}


def sidecar(name: str) -> dict:
    return json.loads((CORPUS / f"{name}.json").read_text())


@functools.cache
def verified(name: str) -> PdfVerification | None:
    """The file's verification (None: refused as unreadable), once per test run."""
    try:
        return verify_pdf((CORPUS / name).read_bytes(), trust_roots=[], now=NOW)
    except PdfNotVerifiable:
        return None


def own_roots(pdf: bytes) -> list[asn1_x509.Certificate]:
    """The self-signed certificates the file's signatures carry: trusted here so that trust
    gets as far as the signer's validity."""
    reader = PdfFileReader(io.BytesIO(pdf), strict=False)
    roots = []
    for name, _, ref in enumerate_sig_fields(reader, filled_status=True):
        for choice in EmbeddedPdfSignature(reader, ref, name).signed_data["certificates"]:
            if choice.chosen.self_signed != "no":
                roots.append(choice.chosen)
    return roots


def attacked_files() -> list[str]:
    return sorted(
        str(p.relative_to(CORPUS))
        for p in CORPUS.rglob("*.pdf")
        if json.loads(p.with_name(p.name + ".json").read_text())["expected"]["attacked"]
    )


@pytest.mark.parametrize(("name", "kind"), sorted(CLEAN.items()))
def test_what_follows_a_signature_that_is_no_change_is_not_called_one(name: str, kind: str) -> None:
    expected = sidecar(name)["expected"]
    report = verified(name)

    assert expected["changed"] is False
    assert not expected["attacked"]
    assert report is not None
    assert report.verdict != CHANGED, [s.findings for s in report.signatures]
    assert len(report.signatures) == len(expected["intact"])
    assert all(
        s.intact
        for s, e in zip(report.signatures, expected["intact"], strict=True)
        if e is not None
    )
    assert not any(s.changed for s in report.signatures)


def test_a_signature_after_which_pyhanko_refuses_freed_objects_is_intact_and_unchanged() -> None:
    """AD-RB.pdf: pyHanko refuses the revision after the first signature (an object freed);
    DSS asserts that signature valid and nothing changed after it (its second signature's
    validity it does not assert)."""
    report = verified("dss/AD-RB.pdf")

    assert report is not None
    first = report.signatures[0]
    assert first.intact
    assert not first.changed, first.findings


@pytest.mark.parametrize("name", attacked_files())
def test_every_attacked_file_is_still_flagged(name: str) -> None:
    report = verified(name)

    assert report is None or report.verdict == CHANGED


def test_a_page_added_after_the_signature_is_a_format_failure() -> None:
    name = "dss/pdf-signed-added-page.pdf"
    report = verified(name)

    assert report is not None
    assert report.verdict == CHANGED
    (signature,) = report.signatures
    assert signature.intact
    assert "changed_pages" in [f.code for f in signature.findings]
    assert "/".join(filter(None, signature.indication)) == sidecar(name)["expected"]["indication"]


def test_an_expired_signer_without_proof_of_existence_is_out_of_bounds_no_poe() -> None:
    pdf = (CORPUS / "dss/DSS-2199.pdf").read_bytes()  # B-B signer, certificate expired in 2020

    report = verify_pdf(pdf, trust_roots=own_roots(pdf), now=NOW)

    (signature,) = report.signatures
    assert signature.intact
    assert not signature.trusted
    assert [f.code for f in signature.findings] == ["certificate_expired"]
    assert signature.indication == ("INDETERMINATE", "OUT_OF_BOUNDS_NO_POE")


def test_past_the_last_timestamp_authority_certificate_it_is_no_poe_with_the_renewal_advice() -> (
    None
):
    pdf = (CORPUS / "dss/pades-t-level-extended.pdf").read_bytes()
    roots = own_roots(pdf)

    report = verify_pdf(pdf, trust_roots=roots, tsa_roots=roots, now=NOW)

    (stamp,) = report.document_timestamps
    assert stamp.intact
    assert stamp.trusted
    assert [f.code for f in stamp.findings] == ["timestamp_renewal_needed"]
    assert stamp.indication == ("INDETERMINATE", "NO_POE")
    assert report.verdict != CHANGED


def test_trust_that_cannot_be_decided_leaves_the_signature_intact() -> None:
    """pyHanko fails on the file's OCSP response (identified by a SHA-512 hash) once the chain
    is found: the signature was "unreadable" (FORMAT_FAILURE) before."""
    pdf = (CORPUS / "dss/pades-ltv.pdf").read_bytes()

    report = verify_pdf(pdf, trust_roots=own_roots(pdf), now=NOW)

    (signature,) = report.signatures
    assert signature.intact
    assert not signature.trusted
    assert [f.code for f in signature.findings] == ["not_trusted"]
    assert report.verdict != CHANGED


def test_unreadable_is_total_failed_and_revoked_without_proof_is_revoked_no_poe() -> None:
    unreadable = (Finding(UNREADABLE_SIGNATURE, "unreadable"),)
    revoked = (Finding(REVOKED, "revoked"),)

    def report(proven: bool) -> SignatureReport:
        return SignatureReport(
            "Signature1", "", None, True, False, True, None, None, findings=revoked, proven=proven
        )

    assert indication_of(unreadable) == ("TOTAL-FAILED", "FORMAT_FAILURE")
    assert report(proven=False).indication == ("INDETERMINATE", "REVOKED_NO_POE")
    assert report(proven=True).indication == ("TOTAL-FAILED", "REVOKED")
