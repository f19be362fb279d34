"""Certified documents (issue 33, defect 9): changes that the certification's permissions
(DocMDP /P) allow are said as allowed, not as changes: a form filled in under P=2, an annotation
added under P=3. Anything else stays a change."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import fields, signers
from pyhanko.sign.fields import MDPPerm
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext
from reportlab.pdfgen.canvas import Canvas

from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_verify import verify_pdf
from tests.esign.ltvpki import ShortLivedPki
from tests.esign.sealpki import asn1


def form() -> bytes:
    """A one-page PDF with an empty text field ``name``."""
    out = io.BytesIO()
    canvas = Canvas(out)
    canvas.drawString(72, 720, "A form")
    canvas.acroForm.textfield(name="name", x=72, y=600, width=200, height=20, value="")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def certified(pki: ShortLivedPki, permission: MDPPerm | None, base: bytes | None = None) -> bytes:
    """``base`` (else ``form()``) certified with ``permission``; an ordinary approval signature
    when it is None."""
    key_pem, cert_pem = pki.key_and_certificate("Certifier")
    meta = signers.PdfSignatureMetadata(
        field_name="Certification",
        md_algorithm="sha256",
        subfilter=fields.SigSeedSubFilter.PADES,
        certify=permission is not None,
        docmdp_permissions=permission or MDPPerm.FILL_FORMS,
    )
    signer = load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)).signer
    document = IncrementalPdfFileWriter(io.BytesIO(base or form()))
    return signers.sign_pdf(document, meta, signer).getvalue()


def _written(writer: IncrementalPdfFileWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def annotated(pdf: bytes) -> bytes:
    """An incremental update that adds a sticky note to the first page."""
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    page = writer.root["/Pages"]["/Kids"].raw_get(0).get_object()
    note = writer.add_object(
        generic.DictionaryObject(
            {
                generic.NameObject("/Type"): generic.NameObject("/Annot"),
                generic.NameObject("/Subtype"): generic.NameObject("/Text"),
                generic.NameObject("/Rect"): generic.ArrayObject(
                    [generic.FloatObject(v) for v in (100, 100, 120, 120)]
                ),
                generic.NameObject("/Contents"): generic.pdf_string("A note"),
            }
        )
    )
    page["/Annots"].get_object().append(note)
    writer.update_container(page)
    return _written(writer)


def filled(pdf: bytes) -> bytes:
    """An incremental update that fills the text field ``name``."""
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    fields_ = writer.root["/AcroForm"]["/Fields"]
    for index in range(len(fields_)):
        field = fields_.raw_get(index).get_object()
        if field.get("/T") == "name":
            field[generic.NameObject("/V")] = generic.pdf_string("Ada")
            writer.update_container(field)
    return _written(writer)


def content_changed(pdf: bytes) -> bytes:
    """An incremental update that draws over the page: its content replaced."""
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    page = writer.root["/Pages"]["/Kids"].raw_get(0).get_object()
    stream = writer.add_object(
        generic.StreamObject(stream_data=b"BT /F1 24 Tf 72 500 Td (X) Tj ET")
    )
    page[generic.NameObject("/Contents")] = stream
    writer.update_container(page)
    return _written(writer)


def pyhanko_docmdp(pdf: bytes, pki: ShortLivedPki) -> tuple[object, object]:
    signature = PdfFileReader(io.BytesIO(pdf)).embedded_signatures[0]
    status = validate_pdf_signature(
        signature, ValidationContext(trust_roots=[asn1(pki.certificate)], allow_fetching=False)
    )
    return status.modification_level.name, status.docmdp_ok


def verify(pdf: bytes, pki: ShortLivedPki):  # type: ignore[no-untyped-def]
    return verify_pdf(pdf, trust_roots=[asn1(pki.certificate)], now=datetime.now(UTC))


def test_a_form_filled_under_p2_is_allowed(pki: ShortLivedPki) -> None:
    """Before: changed (changed_form), though certification level 2 allows it."""
    pdf = filled(certified(pki, MDPPerm.FILL_FORMS))

    report = verify(pdf, pki)

    assert report.verdict == "valid"
    (signature,) = report.signatures
    # (its signature carries no revocation data: a notice too, issue 33 defect 8)
    assert [f.code for f in signature.findings] == [
        "revocation_not_checked",
        "allowed_form_filling",
    ]
    assert "which the certifier permitted (certification level 2)" in signature.problems[1]
    assert not signature.changed
    assert pyhanko_docmdp(pdf, pki) == ("FORM_FILLING", True)  # pyHanko agrees


def test_an_annotation_under_p3_is_allowed(pki: ShortLivedPki) -> None:
    """Before: changed (changed_content). pyHanko 0.38 cannot tell an added annotation from any
    other change (OTHER, docmdp not ok); the verifier checks the revision itself."""
    pdf = annotated(certified(pki, MDPPerm.ANNOTATE))

    report = verify(pdf, pki)

    assert report.verdict == "valid"
    assert [f.code for f in report.signatures[0].findings] == [
        "revocation_not_checked",
        "allowed_annotations",
    ]


@pytest.mark.parametrize(
    ("permission", "change", "code"),
    [
        (MDPPerm.FILL_FORMS, annotated, "changed_annotations"),  # annotations need P=3
        (MDPPerm.NO_CHANGES, filled, "changed_form"),
        (MDPPerm.ANNOTATE, content_changed, "changed_content"),
    ],
)
def test_what_the_certification_does_not_allow_is_a_change(
    pki: ShortLivedPki,
    permission: MDPPerm,
    change,
    code: str,  # type: ignore[no-untyped-def]
) -> None:
    report = verify(change(certified(pki, permission)), pki)

    assert report.verdict == "changed"
    assert code in [f.code for f in report.signatures[0].findings]


# --- after an ordinary approval signature (no certification) ------------------------------------


@pytest.mark.parametrize(
    ("change", "code", "said"),
    [
        (
            filled,
            "allowed_form_filling",
            "Form fields were filled in after it was signed; the signed content is unchanged.",
        ),
        (
            annotated,
            "allowed_annotations",
            "Comments or other annotations were added after it was signed; the signed content "
            "is unchanged.",
        ),
    ],
)
def test_form_filling_and_annotations_after_an_approval_signature_are_notices(
    pki: ShortLivedPki,
    change,  # type: ignore[no-untyped-def]
    code: str,
    said: str,
) -> None:
    """Before: changed (changed_form / changed_content). DSS only warns; PDF readers allow
    both after a signature that certifies nothing (issue 47)."""
    report = verify(change(certified(pki, None)), pki)

    assert report.verdict == "valid"
    (signature,) = report.signatures
    assert [f.code for f in signature.findings] == ["revocation_not_checked", code]
    assert signature.problems[1] == said
    assert signature.indication == ("TOTAL-PASSED", None)


def test_content_changed_after_an_approval_signature_is_a_change(pki: ShortLivedPki) -> None:
    report = verify(content_changed(certified(pki, None)), pki)

    assert report.verdict == "changed"
    assert "changed_content" in [f.code for f in report.signatures[0].findings]


def test_a_field_appearance_replaced_without_its_value_is_a_change(pki: ShortLivedPki) -> None:
    """DSS2236ReplaceTest's attack: a field's appearance replaced, its value left, after an
    approval signature. pyHanko takes it for form filling."""
    pdf = filled(form())
    pdf = certified_over(pki, pdf)
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    fields_ = writer.root["/AcroForm"]["/Fields"]
    for index in range(len(fields_)):
        field = fields_.raw_get(index).get_object()
        if field.get("/T") == "name":
            shown = writer.add_object(
                generic.StreamObject(
                    {
                        generic.NameObject("/Type"): generic.NameObject("/XObject"),
                        generic.NameObject("/Subtype"): generic.NameObject("/Form"),
                        generic.NameObject("/BBox"): generic.ArrayObject(
                            [generic.FloatObject(v) for v in (0, 0, 200, 20)]
                        ),
                    },
                    stream_data=b"BT /Helv 12 Tf 2 6 Td (Eve) Tj ET",
                )
            )
            field[generic.NameObject("/AP")] = generic.DictionaryObject(
                {generic.NameObject("/N"): shown}
            )
            writer.update_container(field)

    report = verify(_written(writer), pki)

    assert report.verdict == "changed"
    assert "changed_content" in [f.code for f in report.signatures[0].findings]


def certified_over(pki: ShortLivedPki, pdf: bytes) -> bytes:
    """``pdf`` with an approval signature."""
    key_pem, cert_pem = pki.key_and_certificate("Approver")
    meta = signers.PdfSignatureMetadata(
        field_name="Approval", md_algorithm="sha256", subfilter=fields.SigSeedSubFilter.PADES
    )
    signer = load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)).signer
    return signers.sign_pdf(IncrementalPdfFileWriter(io.BytesIO(pdf)), meta, signer).getvalue()


def with_xref_stream(pdf: bytes) -> bytes:
    """``pdf`` rewritten by pikepdf (qpdf) with object streams, as most tools save: every later
    revision's cross-reference is then a stream object of its own (``/Type /XRef``)."""
    import pikepdf

    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(pdf)) as document:
        document.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return out.getvalue()


def test_an_annotation_under_p3_saved_with_a_cross_reference_stream_is_allowed(
    pki: ShortLivedPki,
) -> None:
    """Issue 47, item 3: the update's own /Type /XRef stream is not a non-annotation object
    (on the code before, this file was "changed")."""
    pdf = annotated(certified(pki, MDPPerm.ANNOTATE, base=with_xref_stream(form())))
    assert pdf.count(b"/Type /XRef") + pdf.count(b"/Type/XRef") >= 3  # base, certification, note

    report = verify(pdf, pki)

    assert report.verdict == "valid"
    assert [f.code for f in report.signatures[0].findings] == [
        "revocation_not_checked",
        "allowed_annotations",
    ]
