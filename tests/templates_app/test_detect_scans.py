"""Field detection on scanned pages: a page drawn with reportlab, turned into a 150 dpi grey
picture turned half a degree (``bench.detect_scoring.scanned_copy``), as a scanner gives it."""

from __future__ import annotations

import io
from collections.abc import Callable

import pypdfium2 as pdfium
from reportlab.pdfgen.canvas import Canvas

from bench.detect_scoring import scanned_copy
from core.engine.template_spec import Rect
from templates_app.engine import page_raster as raster
from templates_app.engine.detect_fields import detect_fields
from templates_app.engine.page_shapes import Found
from templates_app.engine.scan_marks import without_letters
from tests.templates_app.test_detect_ticks import tick_table


def scanned(draw: Callable[[Canvas], None], angle: float = 0.5) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    draw(canvas)
    canvas.save()
    return scanned_copy(buffer.getvalue(), 150, angle)


def table(canvas: Canvas) -> None:
    """Four columns of ten one-line cells, thin rules, as a tax form's amounts."""
    canvas.setLineWidth(0.5)
    for row in range(11):
        canvas.line(72, 300 + row * 14, 540, 300 + row * 14)
    for x in (72, 190, 307, 423, 540):
        canvas.line(x, 300, x, 440)


def test_a_scan_turned_half_a_degree_is_turned_back() -> None:
    """A smoothed turn blurs every angle but 0, which once read sharpest: the page was left
    turned and its rules broke into steps."""
    document = pdfium.PdfDocument(scanned(table))
    image = document[0].render(scale=2, grayscale=True).to_pil().convert("L")

    _turned, angle = raster.deskew(image)

    assert abs(angle + 0.5) <= 0.03


def test_the_cells_of_a_turned_scan_are_found_whole() -> None:
    fields = detect_fields(scanned(table)).fields

    assert len([f for f in fields if f.type != "checkbox"]) == 40


def test_a_scans_bold_letters_make_no_checkboxes_and_a_double_box_is_one() -> None:
    """The strokes of neighbouring bold capitals close small boxes; a box printed with a
    second, inner side is found twice. Only the two printed boxes are checkboxes."""

    def draw(canvas: Canvas) -> None:
        canvas.setFont("Helvetica-Bold", 20)
        canvas.drawString(72, 700, "SPECIAL POWER OF ATTORNEY FOR CLOSING ON")
        canvas.drawString(72, 660, "NONCASH CHARITABLE CONTRIBUTIONS")
        canvas.setFont("Helvetica", 10)
        canvas.setLineWidth(0.8)
        canvas.rect(72, 600, 10, 10)
        canvas.drawString(88, 601, "Deposit")
        canvas.rect(172, 600, 10, 10)
        canvas.rect(173.5, 601.5, 7, 7)
        canvas.drawString(188, 601, "Custodial")

    ticks = [f for f in detect_fields(scanned(draw)).fields if f.type == "checkbox"]

    assert sorted(round(f.rect.x) for f in ticks) == [72, 172]
    assert all(7 <= f.rect.width <= 12 for f in ticks)


def test_a_scan_of_a_turned_page_is_in_the_space_of_the_page() -> None:
    """The bench's scanned copy keeps the page's /Rotate and box, so its fields are scored
    in the space of the form's own (a landscape form's once came out a turn away)."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.rect(100, 500, 200, 20)
    canvas.save()
    document = pdfium.PdfDocument(buffer.getvalue())
    document[0].set_rotation(180)
    out = io.BytesIO()
    document.save(out)

    copy = pdfium.PdfDocument(scanned_copy(out.getvalue(), 150, 0.0))

    assert copy[0].get_rotation() == 180
    assert [round(v) for v in copy[0].get_mediabox()] == [0, 0, 612, 792]
    field = detect_fields(scanned_copy(out.getvalue(), 150, 0.0)).fields[0]
    assert abs(field.rect.x - 100) <= 2
    assert abs(field.rect.y - 500) <= 2


def test_a_scans_line_number_cells_are_no_fields() -> None:
    """An amount column's two-line rows as the IRS prints them (Form 8846): the line number in
    bold at the foot of a narrow box of its own, grey above it, then the amount's box. On a
    scan the number's strokes read as a wall's dots and are wiped with the rules, so its box
    looked empty (a field was found in it); OCR's detector sees the ink in it."""

    def draw(canvas: Canvas) -> None:
        canvas.setLineWidth(0.5)
        for row in range(4):
            y = 600 - row * 36
            canvas.setFont("Helvetica", 9)
            canvas.drawString(72, y + 22, "Employer social security and Medicare taxes paid")
            canvas.drawString(72, y + 4, "on certain employee tips . . . . . . . . . . .")
            canvas.setFillGray(0.75)
            canvas.rect(440, y + 12, 22, 24, stroke=0, fill=1)
            canvas.setFillGray(0)
            canvas.rect(440, y, 22, 36)
            canvas.setFont("Helvetica-Bold", 9)
            canvas.drawString(448, y + 3, str(4 + row))
            canvas.rect(462, y, 100, 36)

    fields = detect_fields(scanned(draw)).fields

    found = [(round(f.rect.x), round(f.rect.width)) for f in fields]
    assert len(found) == 4, found
    assert all(abs(x - 462) <= 3 and abs(width - 100) <= 3 for x, width in found), found


def test_a_scans_rule_that_opens_a_section_is_no_field() -> None:
    """North Dakota's e-file form: a rule across the page over "Section 2: Verifying Your
    Identity". On a vector page its heading leaves it out; on a scan OCR reads the heading."""

    def draw(canvas: Canvas) -> None:
        canvas.setFont("Helvetica", 9)
        canvas.drawString(40, 720, "Check the box if you do not have any of the above forms")
        canvas.setLineWidth(1.5)
        canvas.line(20, 700, 600, 700)
        canvas.setFont("Helvetica-Bold", 9)
        canvas.drawString(40, 686, "Section 2: Verifying Your Identity")
        canvas.setFont("Helvetica", 9)
        canvas.drawString(40, 640, "Prior Year North Dakota Taxable Income")
        canvas.setLineWidth(0.5)
        canvas.line(300, 638, 400, 638)

    fields = detect_fields(scanned(draw)).fields

    found = [(round(f.rect.x), round(f.rect.width)) for f in fields]
    assert len(found) == 1, found
    assert abs(found[0][0] - 300) <= 3, found


def test_a_scans_row_under_column_headings_is_a_field_per_heading() -> None:
    """One ruled row under "City or town", "State" and "ZIP code": on a vector page a field
    per heading; on a scan the headings are read by OCR, after the row is found."""

    def draw(canvas: Canvas) -> None:
        canvas.setFont("Helvetica", 9)
        for x, heading in ((80, "City or town"), (260, "State"), (330, "ZIP code")):
            canvas.drawString(x, 703, heading)
        canvas.setLineWidth(0.5)
        canvas.rect(72, 684, 400, 16)

    fields = sorted(detect_fields(scanned(draw)).fields, key=lambda f: f.rect.x)

    assert [f.alias for f in fields] == ["cityTown", "state", "zipCode"], fields


def test_a_scans_yes_and_no_columns_are_checkboxes() -> None:
    """Form 4972's lines 1-3 scanned: the cells of a "Yes" and a "No" column at the right are
    boxes to tick, as on a vector page, once OCR has read the headings; it reads them side by
    side as one line, "Yes No", which is cut into its words."""

    def draw(canvas: Canvas) -> None:
        canvas.setFont("Helvetica-Bold", 9)
        canvas.drawString(504, 662, "Yes")
        canvas.drawString(528, 662, "No")
        canvas.setFont("Helvetica", 9)
        canvas.setLineWidth(0.5)
        for y in (660, 648, 636, 612):
            canvas.line(500, y, 548, y)
        for x in (500, 522, 548):
            canvas.line(x, 612, x, 660)
        canvas.drawString(100, 650, "1 Was this a distribution of a plan participant's balance?")
        canvas.drawString(100, 638, "2 Did you roll over any part of the distribution?")
        canvas.drawString(100, 614, "3 Was this distribution paid to you as a beneficiary?")

    fields = detect_fields(scanned(draw)).fields

    # (The scan's first row, under the headings' ink, is not found: a scan's own gap.)
    assert {f.type for f in fields} == {"checkbox"}, fields
    assert {round(f.rect.x / 24) for f in fields} == {21, 22}, fields  # both columns


def test_a_scans_dashed_rules_are_lines_and_part_the_cells_they_cross() -> None:
    """Form 8275 scanned: the lines of its "Detailed Explanation" are dashed, and a dashed rule
    across each cell of its "Detailed Description" column parts it into two lines. A vector
    page joins the dashes once its text is whited out; a scan keeps its letters, so its dashes
    are told from them by shape (thin pieces of their own), and the dash touching a wall is one
    piece with it, so the rule is drawn to the wall."""

    def draw(canvas: Canvas) -> None:
        canvas.setFont("Helvetica", 9)
        canvas.drawString(72, 720, "Detailed Explanation (see instructions)")
        canvas.setLineWidth(0.5)
        canvas.setDash(3, 2)
        for y in (690, 666):
            canvas.line(72, y, 540, y)
        canvas.setDash()
        for y in (600, 576, 552):  # a column of two cells, each parted by a dashed rule
            canvas.line(216, y, 432, y)
        for x in (216, 432):
            canvas.line(x, 552, x, 600)
        canvas.setDash(3, 2)
        for y in (588, 564):
            canvas.line(216, y, 432, y)

    fields = detect_fields(scanned(draw)).fields

    lines = sorted((round(f.rect.y), round(f.rect.width)) for f in fields if f.rect.width > 400)
    assert [y for y, _width in lines] == [666, 690], lines
    cells = sorted(round(f.rect.y) for f in fields if abs(f.rect.width - 216) <= 4)
    assert len(cells) == 4, cells
    assert all(abs(y - 12 * (46 + i)) <= 2 for i, y in enumerate(cells)), cells  # 552, 564...


def test_a_box_a_scans_letters_make_has_print_inside_and_is_no_checkbox() -> None:
    """The web address in a form's header, the italic title of Pennsylvania's schedules: a
    round letter with its neighbours closes a box of a checkbox's size whose sides read clear
    of ink, but its strokes are inside it; a printed box is empty inside."""

    def draw(canvas: Canvas) -> None:
        canvas.setFont("Helvetica", 22)
        canvas.drawString(72, 730, "www.sos.state.of-office.com/Dividends")
        canvas.setFont("Times-Italic", 20)
        canvas.drawString(72, 560, "See PA's Form 3800 for the property described")
        canvas.setLineWidth(0.8)
        canvas.rect(72, 500, 10, 10)
        canvas.setFont("Helvetica", 10)
        canvas.drawString(88, 501, "Deposit")

    ticks = [f for f in detect_fields(scanned(draw)).fields if f.type == "checkbox"]

    assert [(round(f.rect.x), round(f.rect.y)) for f in ticks] == [(72, 500)], ticks


def test_a_scans_narrow_cells_with_print_inside_are_no_fields() -> None:
    """The dependents table of ``test_detect_ticks.tick_table`` scanned: each narrow cell
    holds a printed checkbox, which is the field; the cell, with the box's ink inside it, is
    none."""
    fields = detect_fields(scanned(tick_table)).fields

    assert {f.type for f in fields} == {"checkbox"}, fields
    assert len(fields) == 6, fields


def test_a_narrow_cell_with_a_number_printed_in_it_is_print_not_a_blank() -> None:
    """Form 2106's and Schedule R's narrow cells on a scan: a line number or a word inside a
    cell under 40 points wide (wider than the line-number boxes OCR's detector answers for)
    whose strokes the rules' mask wiped as a dotted wall's. ``without_letters`` sees the ink
    inside the cell; the empty cell beside it stays."""

    def draw(canvas: Canvas) -> None:
        canvas.setLineWidth(0.5)
        canvas.rect(400, 600, 36, 14)
        canvas.rect(436, 600, 36, 14)
        canvas.setFont("Helvetica-Bold", 10)
        canvas.drawString(408, 603, "12a")

    document = pdfium.PdfDocument(scanned(draw, angle=0))
    image = document[0].render(scale=2, grayscale=True).to_pil().convert("L")
    document.close()
    frame = raster.PageFrame(crop=(0.0, 0.0, 612.0, 792.0), rotation=0, scale=2)
    cells = [Found("text", Rect(400, 600, 36, 14)), Found("text", Rect(436, 600, 36, 14))]

    kept = without_letters(cells, image, frame)

    assert [item.rect.x for item in kept] == [436], kept
