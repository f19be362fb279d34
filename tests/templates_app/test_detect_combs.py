"""Field detection (issue 48) of character boxes (combs) and what only looks like them: tiny
pages drawn with reportlab, with exact expectations."""

from __future__ import annotations

from collections.abc import Callable

from reportlab.pdfgen.canvas import Canvas

from templates_app.engine.detect_fields import detect_fields
from tests.templates_app.test_detect_fields import near, page
from tests.templates_app.test_detect_rows import ssn_blank


def test_ticks_standing_on_a_rule_are_one_comb() -> None:
    """Schedule C's EIN: a rule with short ticks between the characters and no rule across
    their tops, one tick dotted (between the EIN's two groups). No box closes, so nothing was
    found (before: no field); it is one comb of nine."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(300, 650, "Employer ID number (EIN)")
        c.line(300, 636, 435, 636)
        for i in range(10):
            if i == 2:
                c.setDash(1, 1.5)
            c.line(300 + 15 * i, 636, 300 + 15 * i, 648)
            c.setDash()

    fields = detect_fields(page(draw)).fields

    (field,) = [f for f in fields if f.type == "charList"]
    assert field.max_length == 9
    assert near(field.rect, 300, 636, 135, 12)
    assert near(field.boxes[2], 330, 636, 15, 12)


def test_boxes_whose_top_rule_is_broken_are_one_comb() -> None:
    """Oregon's account number: seventeen boxes whose top rule is broken where the text above
    it is whited out. Only the stretches under a whole top closed, so three combs were found
    (before: 4, 4 and 2 boxes); the walls on the one floor make it one comb of seventeen."""

    def draw(c: Canvas) -> None:
        c.line(100, 500, 355, 500)
        for x0, x1 in ((100, 160), (190, 250), (280, 310)):
            c.line(x0, 512, x1, 512)
        for i in range(18):
            c.line(100 + 15 * i, 500, 100 + 15 * i, 512)

    fields = detect_fields(page(draw)).fields

    (field,) = [f for f in fields if f.type == "charList"]
    assert field.max_length == 17
    assert near(field.rect, 100, 500, 255, 12)


def test_two_boxes_side_by_side_are_no_comb() -> None:
    """A feet-and-inches pair of cells is two fields, not a comb of two (before: one comb)."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(102, 515, "ft.")
        c.drawString(124, 515, "in.")
        c.rect(100, 500, 22, 12)
        c.rect(122, 500, 22, 12)

    fields = sorted(detect_fields(page(draw)).fields, key=lambda f: f.rect.x)

    assert [f.type for f in fields] == ["shortText", "shortText"]
    assert near(fields[0].rect, 100, 500, 22, 12)


def test_the_two_box_group_of_a_number_stays_a_comb() -> None:
    """An SSN printed as 3-2-4 boxes with a gap for a dash: each group is a comb, as the form
    makes them, the group of two as well (it is one of the number's groups)."""

    def draw(c: Canvas) -> None:
        for x0, count in ((100, 3), (154, 2), (193, 4)):
            for i in range(count):
                c.rect(x0 + 12 * i, 500, 12, 14)

    fields = sorted(detect_fields(page(draw)).fields, key=lambda f: f.rect.x)

    assert [(f.type, f.max_length) for f in fields] == [
        ("charList", 3),
        ("charList", 2),
        ("charList", 4),
    ]


def test_a_grey_cell_is_no_field() -> None:
    """A cell shaded grey (an amount column's cell where nothing is written) read as empty
    paper: a field (before: one, and a comb with an empty neighbour as narrow). The empty
    cell is still one."""

    def draw(c: Canvas) -> None:
        c.setFillGray(0.75)
        c.rect(300, 500, 100, 24, fill=1)
        c.setFillGray(0)
        c.rect(100, 500, 100, 24)

    fields = detect_fields(page(draw)).fields

    assert [(f.type, round(f.rect.x)) for f in fields] == [("shortText", 100)]


def oregon_ssn_cell(*dashes: float) -> Callable[[Canvas], None]:
    """Oregon's SSN cell: its label at the top, "-" printed at ``dashes`` on its last line."""

    def draw(c: Canvas) -> None:
        c.rect(450, 660, 126, 24)
        c.setFont("Helvetica", 8)
        c.drawString(454, 676, "Social Security number (SSN)")
        for x in dashes:
            c.drawString(x, 664, "-")

    return draw


def test_dashes_between_a_numbers_groups_leave_its_blank_empty() -> None:
    """Oregon's SSN cell prints "-   -" where the groups meet, under the label: the dashes read
    as writing, so the cell held no blank (before: no field)."""

    (field,) = detect_fields(page(oregon_ssn_cell(484, 514))).fields

    assert near(field.rect, 450, 660, 126, 15, tol=2)
    assert field.label.startswith("Social Security number")


def test_cells_under_yes_and_no_headings_are_checkboxes() -> None:
    """Form 4562's Section C: rows of small cells under alternating Yes and No headings, the
    boxes to tick drawn only by the form's widgets. They read as a comb (before: one comb per
    row); each cell is a box to tick."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica-Bold", 8)
        for i in range(4):
            c.drawString(236 + 29 * i, 352, "Yes" if i % 2 == 0 else "No")
        for y in (348, 336, 324):
            c.line(230, y, 346, y)
        c.line(230, 360, 346, 360)
        for i in range(5):
            c.line(230 + 29 * i, 324, 230 + 29 * i, 360)

    fields = detect_fields(page(draw)).fields

    ticks = [f for f in fields if f.type == "checkbox"]
    assert len(ticks) == 8
    assert not [f for f in fields if f.type == "charList"]
    # The box to tick fills the cell's line, centred across the cell (answer_columns).
    assert near(min(ticks, key=lambda f: (-f.rect.y, f.rect.x)).rect, 238.5, 336, 12, 12)


def test_a_blank_parted_into_an_ssns_groups_is_its_comb() -> None:
    """The 1040's SSN blank: dotted walls on its floor where the groups of 3, 2 and 4 digits
    meet, the groups' widths in that ratio. It was a text field (before: shortText); it is
    the SSN's comb of nine, each group cut into its digits."""

    (field,) = [f for f in detect_fields(page(ssn_blank(504, 528))).fields if f.rect.y < 710]

    assert (field.type, field.max_length) == ("charList", 9)
    assert near(field.rect, 468, 696, 108, 14.5)
    assert near(field.boxes[3], 504, 696, 12, 14.5)


def test_a_blank_with_dashes_between_an_ssns_groups_is_its_comb() -> None:
    """Oregon's SSN cell, "-   -" printed where the groups of 3, 2 and 4 digits meet: the blank
    was a text field (before: shortText); it is the SSN's comb of nine, each group cut into
    its digits."""

    (field,) = detect_fields(page(oregon_ssn_cell(488, 516))).fields

    assert (field.type, field.max_length) == ("charList", 9)
    assert near(field.boxes[0], 450, 660, 13.3, 15, tol=2)
    assert near(field.boxes[3], 490, 660, 14, 15, tol=2)
