"""Field detection on flat PDFs (templates_app.engine.detect_fields): tiny pages drawn with
reportlab in each test, with exact expectations, and one real form flattened as the importer
stores it, scored against its own fields (a regression fails the floor)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from reportlab.pdfgen.canvas import Canvas

from bench.detect_scoring import scanned_copy, score, truth
from core.engine.template_spec import FieldSpec, Rect
from templates_app.engine.detect_fields import DetectLimits, detect_fields, without_overlaps
from templates_app.engine.errors import ImportRefused
from templates_app.engine.field_labels import type_from_label
from templates_app.engine.pdf_import import import_pdf
from tests.fixtures import PDFS


def page(draw: Callable[[Canvas], None]) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.setLineWidth(1)
    draw(canvas)
    canvas.save()
    return buffer.getvalue()


def near(rect: Rect, x: float, y: float, width: float, height: float, tol: float = 1.5) -> bool:
    return (
        abs(rect.x - x) <= tol
        and abs(rect.y - y) <= tol
        and abs(rect.width - width) <= tol
        and abs(rect.height - height) <= tol
    )


def test_a_label_and_an_underline_make_a_named_text_field() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 11)
        c.drawString(72, 700, "Full name")
        c.line(130, 698, 400, 698)

    (field,) = detect_fields(page(draw)).fields

    assert (field.id, field.alias, field.type, field.page, field.label) == (
        "f1",
        "fullName",
        "shortText",
        0,
        "Full name",
    )
    assert field.rect.x == pytest.approx(130, abs=1.5)
    assert field.rect.y == pytest.approx(698, abs=1.5)
    assert field.rect.width == pytest.approx(270, abs=2)
    assert field.rect.height == pytest.approx(20, abs=1)  # the empty band, at most 20 points
    assert field.style.font_size == 12.0


def test_a_box_under_its_label_is_a_field_with_a_font_size_that_fits() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(100, 612, "Email address")
        c.rect(100, 580, 200, 24)

    (field,) = detect_fields(page(draw)).fields

    assert (field.alias, field.type) == ("emailAddress", "email")
    assert near(field.rect, 100, 580, 200, 24)
    assert field.style.font_size == 12.0


def test_a_row_of_boxes_is_one_comb_field() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(100, 530, "Social security number")
        for i in range(9):
            c.rect(100 + i * 18, 500, 18, 24)

    (field,) = detect_fields(page(draw)).fields

    assert (field.alias, field.type, field.max_length) == ("socialSecurityNumber", "charList", 9)
    assert near(field.rect, 100, 500, 162, 24)
    assert len(field.boxes) == 9
    assert near(field.boxes[3], 154, 500, 18, 24)


def test_small_squares_and_box_glyphs_are_checkboxes_named_by_their_labels() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.rect(72, 600, 10, 10)
        c.drawString(88, 601, "I agree to the terms")
        c.rect(72, 570, 10, 10)
        c.drawString(88, 571, "Send me news")

    fields = detect_fields(page(draw)).fields

    assert [(f.alias, f.type) for f in fields] == [
        ("iAgreeToTerms", "checkbox"),
        ("sendMeNews", "checkbox"),
    ]
    assert near(fields[0].rect, 72, 600, 10, 10)
    assert near(fields[1].rect, 72, 570, 10, 10)


def test_box_glyphs_are_checkboxes() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("ZapfDingbats", 12)
        c.drawString(72, 600, "o")  # ❏
        c.drawString(72, 570, "q")  # ❑
        c.setFont("Helvetica", 10)
        c.drawString(90, 601, "Yes")
        c.drawString(90, 571, "No")

    fields = detect_fields(page(draw)).fields

    assert [(f.alias, f.type) for f in fields] == [("yes", "checkbox"), ("no", "checkbox")]
    assert near(fields[0].rect, 72, 600, 9, 8.5, tol=1.0)


def test_round_radio_buttons_are_checkboxes_named_by_their_labels() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 10)
        for row, label in enumerate(("Cash", "Cheque")):
            c.circle(78, 605 - row * 24, 6)
            c.drawString(90, 601 - row * 24, label)

    fields = detect_fields(page(draw)).fields

    assert [(f.alias, f.type) for f in fields] == [("cash", "checkbox"), ("cheque", "checkbox")]
    assert near(fields[0].rect, 72, 599, 12, 12, tol=1.0)
    assert near(fields[1].rect, 72, 575, 12, 12, tol=1.0)


def test_signature_date_and_initials_lines_get_their_types_in_english_and_spanish() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.line(72, 200, 300, 200)
        c.drawString(72, 188, "Signature of applicant")
        c.line(340, 200, 520, 200)
        c.drawString(340, 188, "Date")
        c.drawString(72, 122, "Firma")
        c.line(110, 120, 300, 120)
        c.drawString(340, 122, "Iniciales")
        c.line(390, 120, 470, 120)

    fields = detect_fields(page(draw)).fields

    assert [(f.alias, f.type) for f in fields] == [
        ("signatureOfApplicant", "signature"),
        ("date", "date"),
        ("firma", "signature"),
        ("iniciales", "initial"),
    ]
    assert fields[0].rect.y == pytest.approx(200, abs=1.5)
    assert fields[0].style.font_size is None  # a signer's field takes no text style


def test_an_empty_page_and_a_paragraph_have_no_fields() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 10)
        for row in range(20):
            c.drawString(72, 700 - row * 14, "Lorem ipsum dolor sit amet, consectetur adipiscing.")

    assert detect_fields(page(draw)).fields == ()
    assert detect_fields(page(lambda c: None)).fields == ()


def test_the_label_words_name_the_type() -> None:
    assert type_from_label("Fecha de nacimiento") == "date"
    assert type_from_label("Teléfono") == "phone"
    assert type_from_label("E-mail") == "email"
    assert type_from_label("Total amount due") == "number"
    assert type_from_label("Sign here") == "signature"
    assert type_from_label("Full name") is None


def test_only_the_pages_asked_for_are_read_and_the_limits_hold() -> None:
    def draw(c: Canvas) -> None:
        c.drawString(72, 700, "Name")
        c.line(110, 698, 400, 698)
        c.showPage()
        c.drawString(72, 700, "City")
        c.line(110, 698, 400, 698)

    pdf = page(draw)
    spec = detect_fields(pdf, pages=[1])

    assert len(spec.pages) == 2
    assert [(f.page, f.alias) for f in spec.fields] == [(1, "city")]
    with pytest.raises(ImportRefused) as refused:
        detect_fields(pdf, pages=[2])
    assert refused.value.reason == "no_such_page"

    with pytest.raises(ImportRefused) as refused:
        detect_fields(pdf, limits=DetectLimits(max_pages=1))
    assert refused.value.reason == "too_many_pages"
    with pytest.raises(ImportRefused) as refused:
        detect_fields(b"not a pdf")
    assert refused.value.reason == "not_pdf"


def test_found_fields_that_overlap_existing_ones_are_left_out() -> None:
    found = [
        FieldSpec(id="f1", alias="a", type="shortText", page=0, rect=Rect(100, 100, 100, 20)),
        FieldSpec(id="f2", alias="b", type="shortText", page=0, rect=Rect(100, 200, 100, 20)),
        FieldSpec(id="f3", alias="c", type="shortText", page=1, rect=Rect(100, 100, 100, 20)),
    ]
    existing = [FieldSpec(id="x", alias="x", type="shortText", page=0, rect=Rect(90, 95, 80, 20))]

    assert [f.id for f in without_overlaps(found, existing)] == ["f2", "f3"]


# Measured (bench/detect_fields.py's scoring) on 2026-11-27: pages 2 and 5 of the CRA B300
# (155 true fields): 155 of 162 found on the flat pages, 155 of 163 on a 150 dpi copy turned
# 0.5 degrees; page 1 of the IRS W-9 (22 true fields): 19 of 24 and 20 of 27. The floors leave
# room for rendering differences, not for a lost kind of box.
FLOORS = [
    # file, pages, (vector precision, recall), (rasterised precision, recall)
    ("ca-cra-b300-cannabis-duty.pdf", [1, 4], (0.9, 0.95), (0.88, 0.9)),
    ("irs-fw9-2018.pdf", [0], (0.75, 0.8), (0.7, 0.85)),
]


@pytest.mark.parametrize(("name", "pages", "vector_floor", "scanned_floor"), FLOORS)
def test_a_real_form_flattened_is_found_above_the_measured_floor(
    name: str, pages: list[int], vector_floor: tuple, scanned_floor: tuple
) -> None:
    imported = import_pdf((PDFS / name).read_bytes())
    true = [item for item in truth(imported.spec) if item.page in pages]

    vector = score(true, detect_fields(imported.pdf, pages=pages).fields)
    scanned = score(true, detect_fields(scanned_copy(imported.pdf, 150, 0.5), pages=pages).fields)

    assert vector.matched / vector.found >= vector_floor[0]
    assert vector.matched / vector.true >= vector_floor[1]
    assert scanned.matched / scanned.found >= scanned_floor[0]
    assert scanned.matched / scanned.true >= scanned_floor[1]


def test_a_large_page_is_drawn_within_the_pixel_bound() -> None:
    """A 100-inch page at 144 dpi would be 207 million pixels: it is drawn at the resolution
    that fits max_pixels, and its box is still found where it is."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(7200, 7200))
    canvas.setLineWidth(3)
    canvas.rect(1000, 5000, 2000, 60)
    canvas.save()

    (field,) = detect_fields(buffer.getvalue(), limits=DetectLimits(max_pixels=4_000_000)).fields

    assert field.type == "shortText"
    assert near(field.rect, 1000, 5000, 2000, 60, tol=8)


def turned(data: bytes, rotate: int) -> bytes:
    """``data``'s one page stored turned: its content drawn turned back by ``rotate`` degrees
    and /Rotate ``rotate``, so it looks as before (as a landscape form is often stored)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    sheet = writer.pages[0]
    sheet.rotate(-rotate)
    sheet.transfer_rotation_to_content()
    sheet.rotate(rotate)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize("rotate", [90, 270])
def test_a_turned_page_is_read_as_it_is_seen(rotate: int) -> None:
    """On a page stored with /Rotate, the line under "Full name" runs across the page as it is
    seen: it is found and named, and its rect is in the page's own space (turned)."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 11)
        c.drawString(72, 700, "Full name")
        c.line(130, 698, 400, 698)

    upright = detect_fields(page(draw)).fields[0]
    (field,) = detect_fields(turned(page(draw), rotate)).fields

    assert (field.alias, field.type) == ("fullName", "shortText")
    # Seen across the page, stored up it: the width and height trade places.
    assert field.rect.height == pytest.approx(upright.rect.width, abs=2)
    assert field.rect.width == pytest.approx(upright.rect.height, abs=2)


def test_a_box_at_the_end_of_a_numbered_line_is_named_by_the_line_not_its_number() -> None:
    """IRS style: "Income after additions. Add lines 8 and 11 . . . 12 [box]". The nearest text
    is the line number; the name is the line's label, not its instruction."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 500, "Income after additions. Add lines 8 and 11")
        c.drawString(260, 500, ". . . . . . . . . . . . . . .")
        c.drawString(440, 500, "12")
        c.rect(460, 496, 100, 14)

    (field,) = detect_fields(page(draw)).fields

    assert field.alias == "incomeAfterAdditions"
    assert near(field.rect, 460, 496, 100, 14)


def test_a_cell_with_only_a_line_number_and_a_sliver_of_paper_is_no_field() -> None:
    """A column of line-number cells: "12" printed at the left of a 30 pt cell leaves a blank
    too narrow to write in (the old rule took it as a "$" cell with its field beside)."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.rect(400, 496, 30, 14)
        c.drawString(403, 500, "12")
        c.rect(430, 496, 100, 14)

    fields = detect_fields(page(draw)).fields

    assert [(round(f.rect.x), round(f.rect.width)) for f in fields] == [(430, 100)]


def test_a_type_comes_from_the_label_that_owns_the_box() -> None:
    """A "Last name" under "First name and initial" is a name, not an initial; "Initial
    investment" is an amount's label, not initials. Only a label about initials types one."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(72, 712, "Your first name and initial")
        c.rect(72, 690, 200, 20)
        c.drawString(72, 680, "Last name")
        c.rect(72, 658, 200, 20)
        c.drawString(72, 620, "Initial investment")
        c.rect(160, 616, 100, 14)
        c.drawString(72, 580, "Initials")
        c.rect(110, 576, 40, 14)

    types = {f.label: f.type for f in detect_fields(page(draw)).fields}

    assert types == {
        "Your first name and initial": "shortText",
        "Last name": "shortText",
        "Initial investment": "shortText",
        "Initials": "initial",
    }


def test_a_cell_with_a_short_label_at_its_left_is_the_paper_after_it() -> None:
    """A row of cells "City [ ]  State [ ]": each field is the paper after its label."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.rect(72, 600, 200, 16)
        c.drawString(75, 604, "City")
        c.rect(272, 600, 120, 16)
        c.drawString(275, 604, "State")

    fields = sorted(detect_fields(page(draw)).fields, key=lambda f: f.rect.x)

    assert [f.alias for f in fields] == ["city", "state"]
    assert 90 <= fields[0].rect.x <= 100
    assert fields[0].rect.right == pytest.approx(272, abs=1.5)


def test_a_table_row_heading_and_the_paper_above_a_table_are_no_fields() -> None:
    """A row "Total production | [+ empty] | [+ empty]": the heading's blank is no field, nor
    is the open paper between a paragraph and the table's top rule."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 660, "Provide complete details for each type of product.")
        c.rect(72, 600, 220, 20)
        c.drawString(75, 606, "Total production")
        for x in (292, 392):
            c.rect(x, 600, 100, 20)

    fields = detect_fields(page(draw)).fields

    assert sorted(round(f.rect.x) for f in fields) == [292, 392]


def test_a_table_cell_is_named_by_its_column_heading_and_an_instruction_names_nothing() -> None:
    """Cells several rows under "Qualifying person's name" take the heading's name (numbered
    down the column); a box under "Add lines 19 and 20" is not named by the instruction."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(80, 700, "Qualifying person's name")
        for row in range(3):
            c.rect(72, 640 - row * 20, 200, 20)
        c.drawString(72, 560, "Add lines 19 and 20")
        c.rect(72, 536, 120, 18)

    fields = sorted(detect_fields(page(draw)).fields, key=lambda f: -f.rect.y)

    assert [f.alias for f in fields] == [
        "qualifyingPersonsName",
        "qualifyingPersonsName2",
        "qualifyingPersonsName3",
        "text4",
    ]


def test_a_date_is_named_as_a_date_and_a_place_of_birth_is_not_one() -> None:
    assert type_from_label("Country of birth") is None
    assert type_from_label("City/Town and Country of Birth") is None
    assert type_from_label("Date of birth") == "date"
    assert type_from_label("Place and date of signature") == "date"


def test_a_white_box_on_a_tinted_ground_is_a_field_and_its_cents_go_with_it() -> None:
    def draw(c: Canvas) -> None:
        c.setFillColorRGB(0.99, 0.93, 0.95)  # the IRS's pale pink ground
        c.rect(36, 500, 540, 200, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.rect(400, 600, 100, 24, stroke=0, fill=1)  # the dollars
        c.rect(500, 600, 22, 24, stroke=0, fill=1)  # the cents
        c.line(400, 600, 522, 600)
        c.line(500, 600, 500, 624)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica", 10)
        c.drawString(290, 604, "Wages, salaries, tips")

    (field,) = detect_fields(page(draw)).fields

    assert (field.alias, field.type) == ("wagesSalariesTips", "shortText")
    assert near(field.rect, 400, 600, 100, 24, tol=2)
