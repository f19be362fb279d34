"""Field detection in the columns of tax-form tables (templates_app.engine.detect_fields): an
amount column's tall cell is written on its last line, and one ruled row under several column
headings is a field per heading. Tiny pages drawn with reportlab, exact expectations."""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from core.engine.template_spec import Rect
from templates_app.engine.detect_fields import detect_fields
from templates_app.engine.form_geometry import is_cents
from tests.templates_app.test_detect_fields import near, page


def amount_column(c: Canvas, tall: float) -> None:
    """Lines 1 to 4 of a return: a label at the left, a box in one amount column at the right;
    line 3's question takes ``tall`` points, its number printed at the row's foot."""
    c.setFont("Helvetica", 9)
    y = 700.0
    for number, height in ((1, 14.0), (2, 14.0), (3, tall), (4, 14.0)):
        y -= height
        c.drawString(72, y + 3, f"{number}  Amount of line {number}")
        c.rect(400, y, 100, height)


def test_a_tall_cell_in_a_column_of_one_line_cells_is_its_last_line() -> None:
    found = detect_fields(page(lambda c: amount_column(c, tall=48))).fields

    rects = sorted((f.rect for f in found), key=lambda r: -r.y)
    assert len(rects) == 4
    assert near(rects[2], 400, 700 - 14 - 14 - 48, 100, 14)  # the bottom band, one line tall
    assert [near(r, 400, r.y, 100, 14) for r in rects] == [True] * 4


def test_a_tall_box_alone_in_its_column_stays_whole() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 704, "Describe the property")
        c.rect(72, 640, 300, 60)

    (field,) = detect_fields(page(draw)).fields

    assert near(field.rect, 72, 640, 300, 60)


def test_one_row_under_several_column_headings_is_a_field_per_heading() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        for x, heading in ((80, "City or town"), (260, "State"), (330, "ZIP code")):
            c.drawString(x, 703, heading)
        c.rect(72, 684, 400, 16)

    found = sorted(detect_fields(page(draw)).fields, key=lambda f: f.rect.x)

    assert [f.alias for f in found] == ["cityTown", "state", "zipCode"]
    assert near(found[0].rect, 72, 684, 258 - 72, 16)
    assert near(found[1].rect, 258, 684, 328 - 258, 16)
    assert near(found[2].rect, 328, 684, 472 - 328, 16)


def test_a_heading_set_as_two_runs_is_one_heading() -> None:
    """Delaware's voucher: "ZIP" and "Code" are set in two sizes, two runs a space apart; the
    row was left whole as if its headings were a sentence's words."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8.8)
        c.drawString(80, 703, "City")
        c.setFont("Helvetica", 7)
        c.drawString(260, 703, "State")
        c.setFont("Helvetica", 6.6)
        c.drawString(330, 703, "ZIP")
        c.setFont("Helvetica", 7)
        c.drawString(344, 703, "Code")
        c.rect(72, 684, 400, 16)

    found = sorted(detect_fields(page(draw)).fields, key=lambda f: f.rect.x)

    assert [f.alias for f in found] == ["city", "state", "zipCode"]
    assert near(found[2].rect, 328, 684, 472 - 328, 16)


def test_a_row_under_checkbox_labels_or_a_sentence_is_not_split() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        for x, month in ((80, "January"), (200, "February"), (320, "March")):
            c.rect(x, 703, 8, 8)
            c.drawString(x + 12, 704, month)
        c.rect(72, 660, 400, 16)
        c.drawString(80, 679, "Mailing address of the financial institution. Number, street")
        c.rect(72, 620, 400, 16)
        c.drawString(80, 639, "Name of institution")

    texts = [f for f in detect_fields(page(draw)).fields if f.type != "checkbox"]

    assert sorted((round(f.rect.y), round(f.rect.width)) for f in texts) == [
        (620, 400),
        (660, 400),
    ]


def test_the_cents_box_after_an_amount_is_written_with_it_and_a_narrow_box_alone_stays() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 703, "7  Wages, salaries, tips")
        c.rect(400, 700, 100, 14)  # dollars
        c.rect(500, 700, 24, 14)  # cents
        c.drawString(72, 653, "Apt. no.")
        c.rect(110, 650, 24, 14)

    found = sorted(detect_fields(page(draw)).fields, key=lambda f: -f.rect.y)

    assert [(round(f.rect.x), round(f.rect.width)) for f in found] == [(400, 100), (110, 24)]


def test_the_narrow_gutter_between_two_amount_columns_is_no_field() -> None:
    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(300, 728, "Child 1")
        c.drawString(420, 728, "Child 2")
        for row, y in enumerate((700, 676, 652)):
            c.drawString(72, y + 3, f"{row + 2}  Amount for line {row + 2}")
            for x, width in ((290, 100), (390, 20), (410, 100), (510, 20)):
                c.rect(x, y, width, 24)

    found = detect_fields(page(draw)).fields

    assert sorted({round(f.rect.x) for f in found}) == [290, 410]
    assert len(found) == 6


def open_topped_column(c: Canvas, wall_top: float) -> None:
    """Lines 1 to 4 of a return, one amount column at the right: rules at the foot of each
    line, the column's walls from line 4's foot up to ``wall_top``, and no rule over line 1."""
    c.setFont("Helvetica", 9)
    for number, y in ((1, 686), (2, 672), (3, 658), (4, 644)):
        c.drawString(72, y + 3, f"{number}  Amount of line {number}")
        c.line(400, y, 500, y)
    c.line(400, 644, 400, wall_top)
    c.line(500, 644, 500, wall_top)


def test_the_first_cell_of_a_column_open_at_its_top_is_a_field() -> None:
    """Line 1's cell has walls but no rule above: its floor is still a line to write on, though
    it tops the column's cells below (before: only lines 2 to 4 were found)."""
    found = sorted(
        detect_fields(page(lambda c: open_topped_column(c, 714))).fields, key=lambda f: -f.rect.y
    )

    assert len(found) == 4
    assert near(found[0].rect, 400, 686, 100, 20)
    assert [round(f.rect.y) for f in found[1:]] == [672, 658, 644]


def test_the_paper_above_a_column_whose_walls_stop_at_its_top_is_no_field() -> None:
    found = detect_fields(page(lambda c: open_topped_column(c, 686))).fields

    assert sorted(round(f.rect.y) for f in found) == [644, 658, 672]


def test_a_column_closed_far_above_its_first_line_is_written_on_that_line() -> None:
    """Form 8814's line 11, Form 8863's line 17: the amount column's walls rise beside several
    lines of questions to a rule 140 points up, so the space above line 1's floor is a closed
    box, too tall for a field; the floor was taken for the heading of the cells below and no
    field was found there (only lines 2 to 4)."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        for number, y in ((1, 500), (2, 486), (3, 472), (4, 458)):
            c.drawString(72, y + 3, f"{number}  Amount of line {number}")
            c.line(400, y, 500, y)
        c.line(400, 458, 400, 640)
        c.line(500, 458, 500, 640)
        c.line(400, 640, 500, 640)

    found = sorted(
        (f for f in detect_fields(page(draw)).fields if f.rect.y < 600), key=lambda f: -f.rect.y
    )

    assert [round(f.rect.y) for f in found] == [500, 486, 472, 458], found
    assert near(found[0].rect, 400, 500, 100, 20)


def test_a_square_cell_after_an_amount_is_no_checkbox_unless_a_label_names_it() -> None:
    """A table row's square cell as tall as the amount cell before it (the cents of IRS 8283's
    and 2106's amount columns) was taken for a checkbox; one with a label after it stays one."""

    def draw(c: Canvas) -> None:
        c.rect(100, 600, 100, 12)
        c.rect(200, 600, 12, 12)
        c.rect(100, 500, 100, 12)
        c.rect(200, 500, 12, 12)
        c.setFont("Helvetica", 9)
        c.drawString(216, 502, "Yes")

    fields = detect_fields(page(draw)).fields

    assert [(f.type, round(f.rect.x), round(f.rect.y)) for f in fields] == [
        ("shortText", 100, 600),
        ("shortText", 100, 500),
        ("checkbox", 200, 500),
    ]


def test_the_cents_of_amount_columns_side_by_side_are_written_with_their_amounts() -> None:
    """Schedule E's properties A, B and C: each amount box ends in its cents box, and the next
    column's amount follows it. The cents of A and B were fields of their own (only the last
    column's, which ends the row, was left out); a narrow box between wider ones that repeats
    no such pattern (City, State, ZIP code) stays."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 703, "3  Rents received")
        for x in (300, 402, 504):
            c.rect(x, 700, 80, 14)  # dollars
            c.rect(x + 80, 700, 22, 14)  # cents
        c.rect(72, 600, 200, 14)  # city
        c.rect(272, 600, 24, 14)  # state
        c.rect(296, 600, 80, 14)  # ZIP code

    found = sorted(detect_fields(page(draw)).fields, key=lambda f: (-f.rect.y, f.rect.x))

    assert [(round(f.rect.x), round(f.rect.width)) for f in found] == [
        (300, 80),
        (402, 80),
        (504, 80),
        (72, 200),
        (272, 24),
        (296, 80),
    ]


def test_the_cents_of_amount_columns_are_left_out_where_the_last_is_open() -> None:
    """Schedule E again, as the 2013 form draws it: the rows run on past the last column's
    cents with no wall to close them, so no box follows C's amount, and B's cents were kept as
    a field. Between two amounts of one width, a narrow box is the first one's cents."""

    def draw(c: Canvas) -> None:
        c.setLineWidth(0.5)
        for y in (700, 714):
            c.line(300, y, 590, y)
        for x in (300, 380, 402, 482, 504, 584):
            c.line(x, 700, x, 714)

    found = sorted(detect_fields(page(draw)).fields, key=lambda f: f.rect.x)

    assert [(round(f.rect.x), round(f.rect.width)) for f in found] == [
        (300, 80),
        (402, 80),
        (504, 80),
    ]


def test_the_cents_between_two_line_amounts_of_one_width_are_cents() -> None:
    """Form 8839's children 1, 2 and 3 side by side, each an amount and its cents, two lines
    (24 points) a row: a box between two amounts of one width is the first one's cents, however
    tall the row. A taller narrow box elsewhere may be a column of its own: Form 8275's "Line
    No." between "Form or Schedule" and "Amount", and the last child's cents, ending the row,
    stay (the labels or the spacers rule decide those)."""
    places = ((200, 81), (281, 22), (303, 81), (384, 22), (406, 81), (487, 22))
    row = [Rect(x, 456, width, 24) for x, width in places]
    line_no = [Rect(432, 444, 50, 24), Rect(482, 444, 22, 24), Rect(504, 444, 72, 24)]

    assert [is_cents(rect, row) for rect in row] == [False, True, False, True, False, False]
    assert [is_cents(rect, line_no) for rect in line_no] == [False, False, False]


def test_an_empty_row_over_an_empty_cell_is_a_field_and_a_heading_row_is_not() -> None:
    """Form 8936's line 5, Form 6252's line 21: an amount's row, open at its right, stands on
    the top rule of an empty cell below; that rule was taken for the cell's column heading and
    no field was found. A row empty up to the rule above it, beside a wall, is a row of its own
    to write in; a row with words printed in it is the heading of the cell below."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        for x0, x1 in ((100, 260), (400, 576)):
            c.line(x0, 524, x1, 524)
            c.line(x0, 500, x1, 500)
            c.line(x0, 464, x0 + 100, 464)
            c.line(x0, 464, x0, 524)  # the row's wall, at its left only
            c.line(x0 + 100, 464, x0 + 100, 500)
        c.drawString(110, 504, "Amount")

    found = sorted(
        (f for f in detect_fields(page(draw)).fields if f.rect.y < 520),
        key=lambda f: (f.rect.x, -f.rect.y),
    )

    assert len(found) == 3, found
    heading_cell, row, cell = found
    assert near(heading_cell.rect, 100, 464, 100, 36)
    assert near(row.rect, 400, 500, 176, 20)
    assert near(cell.rect, 400, 464, 100, 36)
