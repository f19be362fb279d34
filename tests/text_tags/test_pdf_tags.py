"""Text tags in a PDF's text layer: found with their boxes, their text removed from the page,
written back as AcroForm fields, and as a template's fields.

The PDFs are drawn here with reportlab, so where each tag is drawn is known from the font's
metrics, independently of pdfium (which finds the tags); the text left is read by pypdf and
poppler (pdftotext), the fields by pypdf.
"""

from __future__ import annotations

import io
import subprocess
import tempfile
from pathlib import Path

import pytest
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth
from reportlab.pdfgen import canvas

from core.engine.template_spec import Rect
from templates_app.engine.pdf_import import import_pdf
from templates_app.engine.tag_widgets import add_tag_fields
from templates_app.engine.text_tags import apply_text_tags, tag_template
from tests.pdfcheck import poppler_words
from tests.pdfsound import qpdf_check

# (font, size, x, baseline, text before the tag, the tag, text after it)
LINES = [
    ("Helvetica", 12, 72, 700, "Tenant name: ", "{{Tenant Name}}", " (as on the lease)"),
    ("Times-Roman", 20, 72, 640, "", "{{Signature;role=Tenant}}", ""),
    ("Courier", 10, 72, 600, "Date: ", "{{date;type=date;signer=1}}", " and so on"),
    ("Helvetica-Bold", 9, 360, 600, "", "{{agree;type=checkbox}}", " I agree"),
    ("Times-Italic", 14, 72, 560, "Landlord ", "{{signature, r2}}", ""),
    ("Helvetica", 11, 72, 520, "Company: ", "{{text, r1, required=false, label=Company}}", "."),
]


def _drawn() -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=(612, 792))
    for font, size, x, y, before, tag, after in LINES:
        pdf.setFont(font, size)
        pdf.drawString(x, y, before + tag + after)
    pdf.showPage()
    # Page 2: a tag drawn in three runs (fonts change inside it), and a malformed one.
    pdf.setFont("Helvetica", 12)
    text = pdf.beginText(72, 700)
    text.textOut("Initial here: {{initials;")
    text.setFont("Helvetica-Bold", 12)
    text.textOut("type=")
    text.setFont("Helvetica", 12)
    text.textOut("initial}} thanks")
    pdf.drawText(text)
    pdf.drawString(72, 650, "Broken: {{x;type=zzz}} and {{never closed")
    pdf.save()
    return buffer.getvalue()


def _expected(font: str, size: float, x: float, y: float, before: str, tag: str) -> Rect:
    left = x + stringWidth(before, font, size)
    return Rect(left, y, stringWidth(tag, font, size), size)


def _assert_tag_box(rect: Rect, expected: Rect) -> None:
    """Across: the tag's advance, within 2 pt. Up and down: the line the tag is written on,
    from below the baseline (its descenders) to above its capitals, a line high at most."""
    size = expected.height
    ascent, descent = getAscentDescent("Helvetica", size)
    assert rect.x == pytest.approx(expected.x, abs=2)
    assert rect.right == pytest.approx(expected.right, abs=2)
    assert rect.y == pytest.approx(expected.y + descent, abs=2)
    assert expected.y + 0.7 * size <= rect.top <= expected.y + ascent + 0.4 * size
    assert rect.height <= 1.3 * size


def _pdftotext(pdf: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.pdf"
        path.write_bytes(pdf)
        return subprocess.run(
            ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
        ).stdout


def test_tags_are_found_at_their_boxes_with_what_they_ask_for() -> None:
    tagged = apply_text_tags(_drawn())

    by_alias = {field.alias: field for field in tagged.fields}
    assert list(by_alias) == ["tenantName", "signature", "date", "agree", "signature2", "company", "initials"]  # fmt: skip
    for (font, size, x, y, before, tag, _after), field in zip(LINES, tagged.fields, strict=False):
        expected = _expected(font, size, x, y, before, tag)
        if field.type == "checkbox":
            # A checkbox is square, as tall as the tag, where the tag starts.
            assert field.rect.x == pytest.approx(expected.x, abs=2)
            assert field.rect.width == pytest.approx(field.rect.height)
        else:
            _assert_tag_box(field.rect, expected)
    assert [(f.type, f.tag.role, f.tag.signer, f.tag.required) for f in tagged.fields] == [
        ("shortText", "", None, True),
        ("signature", "Tenant", None, True),
        ("date", "", 1, True),
        ("checkbox", "", None, True),
        ("signature", "", 2, True),
        ("shortText", "", 1, False),
        ("initial", "", None, True),
    ]
    assert {f.page for f in tagged.fields[:6]} == {0}
    # A tag drawn in three runs in two fonts is one tag, its box the three runs'.
    initials = by_alias["initials"]
    assert initials.page == 1
    before = stringWidth("Initial here: ", "Helvetica", 12)
    width = (
        stringWidth("{{initials;", "Helvetica", 12)
        + stringWidth("type=", "Helvetica-Bold", 12)
        + stringWidth("initial}}", "Helvetica", 12)
    )
    _assert_tag_box(initials.rect, Rect(72 + before, 700, width, 12))
    assert by_alias["tenantName"].font_size == pytest.approx(12)


def test_the_tags_text_is_gone_and_the_rest_stays_where_it_was() -> None:
    source = _drawn()
    tagged = apply_text_tags(source)

    pages = PdfReader(io.BytesIO(tagged.pdf)).pages
    for text in (_pdftotext(tagged.pdf), "\n".join(page.extract_text() for page in pages)):
        for _font, _size, _x, _y, before, tag, after in LINES:
            assert tag not in text
            assert tag.strip("{}") not in text
            if before.strip():
                assert before.strip() in text
            if after.strip(" ."):
                assert after.strip(" .") in text
        assert "initials" not in text
        assert "Initial here:" in text
        assert "thanks" in text
        # A malformed tag is left on the page: its author has something to fix.
        assert "{{x;type=zzz}}" in text
    # The words after a removed tag are drawn where they were.
    before = {w.text: w for w in poppler_words(source)}
    after = {w.text: w for w in poppler_words(tagged.pdf)}
    for text in ("(as", "lease)", "so", "agree", "thanks"):
        assert after[text].x_min == pytest.approx(before[text].x_min, abs=0.01)


def test_malformed_tags_are_listed_with_their_page() -> None:
    tagged = apply_text_tags(_drawn())

    assert [(p.page, p.text, p.message) for p in tagged.problems] == [
        (1, "{{x;type=zzz}}", '"zzz" is not a field type.'),
        (1, "{{never closed", "This {{ is never closed by }}."),
    ]
    assert all(field.alias != "x" for field in tagged.fields)


def test_fields_are_written_as_acroform_fields_of_their_types() -> None:
    tagged = apply_text_tags(_drawn())
    pdf = add_tag_fields(tagged.pdf, tagged.fields)

    reader = PdfReader(io.BytesIO(pdf))
    fields = reader.get_fields()
    assert {name: str(f.get("/FT")) for name, f in fields.items()} == {
        "tenantName": "/Tx",
        "signature": "/Sig",
        "date": "/Tx",
        "agree": "/Btn",
        "signature2": "/Sig",
        "company": "/Tx",
        "initials": "/Sig",
    }
    widgets = {
        str(annot.get_object()["/T"]): annot.get_object()
        for page in reader.pages
        for annot in page.get("/Annots", [])
    }
    for field in tagged.fields:
        rect = [float(v) for v in widgets[field.alias]["/Rect"]]
        assert rect == pytest.approx([field.rect.x, field.rect.y, field.rect.right, field.rect.top], abs=0.01)  # fmt: skip
    assert widgets["tenantName"]["/TU"] == "Tenant Name"
    assert int(widgets["company"]["/Ff"]) & 2 == 0  # required=false
    assert int(widgets["tenantName"]["/Ff"]) & 2 == 2
    assert widgets["agree"]["/AS"] == "/Off"
    assert set(widgets["agree"]["/AP"]["/N"]) == {"/Yes", "/Off"}
    assert int(reader.trailer["/Root"]["/AcroForm"]["/SigFlags"]) == 1
    # The result is a sound PDF: qpdf reads it without a warning.
    assert qpdf_check(pdf).warnings == ()


def test_the_written_fields_import_as_a_template() -> None:
    tagged = apply_text_tags(_drawn())
    imported = import_pdf(add_tag_fields(tagged.pdf, tagged.fields))

    types = {field.alias: field.type for field in imported.spec.fields}
    assert types["signature"] == "signature"
    assert types["agree"] == "checkbox"
    assert types["tenantName"] == "shortText"


def test_a_pdf_with_tags_becomes_a_template_spec() -> None:
    pdf, spec, problems = tag_template(_drawn())

    assert len(spec.pages) == 2
    assert spec.pages[0].width == 612
    assert [(f.id, f.alias, f.type, f.page) for f in spec.fields] == [
        ("f1", "tenantName", "shortText", 0),
        ("f2", "signature", "signature", 0),
        ("f3", "date", "date", 0),
        ("f4", "agree", "checkbox", 0),
        ("f5", "signature2", "signature", 0),
        ("f6", "company", "shortText", 0),
        ("f7", "initials", "initial", 1),
    ]
    assert spec.fields[0].label == "Tenant Name"
    assert spec.fields[5].label == "Company"
    assert spec.fields[0].style.font_size == 12
    assert spec.fields[1].style.font_size is None  # a signature writes no text
    assert len(problems) == 2
    assert "{{Tenant Name}}" not in _pdftotext(pdf)


def test_a_tag_may_size_its_field_and_its_text() -> None:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=(612, 792))
    pdf.setFont("Helvetica", 10)
    pdf.drawString(100, 500, "{{Amount;type=dollar;fontSize=9;width=120;height=30}}")
    pdf.save()

    (field,) = apply_text_tags(buffer.getvalue()).fields

    assert field.type == "dollar"
    # 120 x 30 points from the tag's top-left corner: the top of its line, above its capitals.
    assert field.rect.x == pytest.approx(100, abs=0.5)
    assert field.rect.width == 120
    assert field.rect.height == 30
    assert 500 + 7 <= field.rect.top <= 500 + 12
    assert field.field_spec(1).style.font_size == 9


def test_tags_are_added_to_the_fields_the_importer_read() -> None:
    """A PDF with a form field of its own and tags: the importer reads the field, the tags add
    theirs after it; an alias taken by the form is not taken twice."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=(612, 792))
    pdf.setFont("Helvetica", 12)
    pdf.drawString(72, 720, "Tenant name:")
    pdf.acroForm.textfield(name="tenantName", x=160, y=715, width=200, height=18)
    pdf.drawString(72, 680, "Again: {{Tenant Name}} and {{Signature;role=Tenant}}")
    pdf.save()
    imported = import_pdf(buffer.getvalue())
    assert [(f.id, f.alias) for f in imported.spec.fields] == [("f1", "tenantName")]

    _pdf, spec, problems = tag_template(imported.pdf, imported.spec)

    assert problems == ()
    assert [(f.id, f.alias, f.type) for f in spec.fields] == [
        ("f1", "tenantName", "shortText"),
        ("f2", "tenantName2", "shortText"),
        ("f3", "signature", "signature"),
    ]
    assert spec.pages == imported.spec.pages
