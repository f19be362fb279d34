"""Field detection (issue 48) on rows that carry their own labels and on slivers between rules:
tiny pages drawn with reportlab, with exact expectations."""

from __future__ import annotations

from collections.abc import Callable

from reportlab.pdfgen.canvas import Canvas

from templates_app.engine.detect_fields import detect_fields
from tests.templates_app.test_detect_fields import near, page


def test_a_sliver_between_two_rules_is_no_field_and_a_line_tall_box_is_one() -> None:
    """A box 8 points tall holds no line of writing (the 6-8 pt slivers of issue 48); one
    10 points tall does."""

    def draw(c: Canvas) -> None:
        c.rect(100, 600, 200, 8)
        c.rect(100, 400, 200, 10)

    (field,) = detect_fields(page(draw)).fields

    assert near(field.rect, 100, 400, 200, 10)


def test_a_grey_shade_is_no_field_and_a_pale_tint_is_one() -> None:
    """A mid-grey box is where a tax form says nothing is written (the shaded cells of an
    amount column): it was taken for a field shown by its colour, and it hid the line below
    it. A pale tint (a field's background) is still a field."""

    def draw(c: Canvas) -> None:
        c.setFillGray(0.75)
        c.rect(400, 600, 100, 48, stroke=0, fill=1)
        c.setFillGray(0.92)
        c.rect(100, 600, 150, 16, stroke=0, fill=1)

    (field,) = detect_fields(page(draw)).fields

    assert near(field.rect, 100, 600, 150, 16)


def test_the_rule_across_the_page_over_a_section_heading_is_no_field() -> None:
    """A rule across the page with "Section 2: ..." printed under it opens the section (the
    e-file information forms): it was a field. A line over a caption that is no heading stays."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica-Bold", 10)
        c.line(20, 600, 592, 600)
        c.drawString(24, 588, "Section 2: Signing Your Return")
        c.setFont("Helvetica", 9)
        c.line(20, 400, 592, 400)
        c.drawString(24, 390, "Explanation of the items above")

    (field,) = detect_fields(page(draw)).fields

    assert near(field.rect, 20, 400, 572, 20, tol=2)


def test_a_dashed_rule_is_a_line_to_write_on() -> None:
    """Schedule C's "Other expenses" rows are dashed rules (1.5 pt dashes, 1.5 pt gaps) under
    empty paper: each is a line to write on, as a solid rule is (before: no field at all)."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 703, "Other expenses. List type and amount")
        c.setDash(1.5, 1.5)
        for y in (680, 656):
            c.line(72, y, 400, y)

    found = sorted(detect_fields(page(draw)).fields, key=lambda f: -f.rect.y)

    assert len(found) == 2
    assert near(found[0].rect, 72, 680, 328, 20)
    assert near(found[1].rect, 72, 656, 328, 20)


def ssn_blank(*walls: float) -> Callable[[Canvas], None]:
    """The 1040's SSN blank between two rules, with dotted walls at ``walls`` on its floor."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 7)
        c.drawString(470, 712, "Your social security number")
        c.line(468, 696, 576, 696)
        c.line(468, 720, 576, 720)
        c.setDash(1, 1.5)
        for x in walls:
            c.line(x, 697, x, 708)

    return draw


def test_a_box_parted_by_dotted_walls_is_one_blank() -> None:
    """The SSN box of a 1040 has dotted walls between the groups of its digits, and no solid
    walls; the dots read as writing, so no field was found there (before: none)."""

    # (The paper above the box's top rule is a line of its own on this bare page.)
    (field,) = [f for f in detect_fields(page(ssn_blank(500, 522))).fields if f.rect.y < 710]

    assert near(field.rect, 468, 696, 108, 14.5)
    assert field.label == "Your social security number"


def test_the_paper_an_arrow_points_at_is_a_field_and_a_letter_a_is_no_arrow() -> None:
    """ "Firm's name ▶ ____": the IRS prints an arrow between a label and the rule both stand
    on, a glyph of a font of signs ("UniversalStd-NewswithCommPi") that pdfium reads as "a".
    The label is too long to be a sign at the line's start, so no field was found; the paper
    after the arrow is one, named by the label. The same row with a real "a" (a line's "1a",
    in a font of letters) is left alone."""

    def draw(c: Canvas) -> None:
        for y, font in ((600, "Courier"), (500, "Helvetica-Bold")):
            c.setFont("Helvetica", 9)
            c.drawString(74, y + 3, "Firm's name")
            c.setFont(font, 9)
            c.drawString(128, y + 3, "a")
            c.line(72, y, 400, y)

    # Courier renamed as a font of signs would be named (pdfium reads its "a" as it is).
    pdf = page(draw).replace(b"/BaseFont /Courier", b"/BaseFont /CourPi ")

    (field,) = detect_fields(pdf).fields

    assert near(field.rect, 132.5, 600, 267.5, 20)
    assert (field.label, field.alias) == ("Firm's name", "firmsName")


def test_a_cell_with_its_unit_printed_at_its_right_is_a_field_before_the_unit() -> None:
    """Form 2106's vehicle table prints "miles" (and "%") at the right end of each amount cell:
    no field was found in such a cell, since its ink reaches its bottom. The field is the paper
    before the unit. A cell whose text fills it (a label) stays no field."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.rect(300, 600, 100, 14)
        c.drawRightString(398, 603, "miles")
        c.rect(300, 586, 100, 14)
        c.drawRightString(398, 589, "%")
        c.rect(300, 500, 100, 14)
        c.drawString(302, 503, "Business miles included")

    fields = sorted(detect_fields(page(draw)).fields, key=lambda field: -field.rect.y)

    assert len(fields) == 2, [field.rect for field in fields]
    miles, percent = fields
    # "miles" is 21 points wide at 9 points: the field ends where it starts.
    assert near(miles.rect, 300, 600, 77.5, 14, tol=2), miles.rect
    assert near(percent.rect, 300, 586, 92, 14, tol=3), percent.rect


def test_the_blanks_left_in_a_printed_sentence_are_fields() -> None:
    """ "For the tax year beginning ____, 2013, and ending ____." (the IRS forms' tax year line)
    and "( ____ )" print nothing in their blanks: no field was found there. A table heading's
    columns far apart ("(a) Name     (b) Address") and a leader's dots are no blanks."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(40, 700, "For the tax year beginning")
        c.drawString(200, 700, ", 2013, and ending")
        c.drawString(340, 700, ". See the instructions.")
        c.drawString(40, 600, "Area code (")
        c.drawString(140, 600, ")")
        c.drawString(40, 500, "(a) Name of the payer")
        c.drawString(300, 500, "(b) Address")
        c.drawString(40, 400, "Total income")
        c.drawString(160, 400, ". . . . . . . . . . . .")

    fields = sorted(
        detect_fields(page(draw)).fields, key=lambda field: (-field.rect.y, field.rect.x)
    )

    assert len(fields) == 3, [field.rect for field in fields]
    beginning, ending, area_code = fields
    # Each blank lies between the words around it ("beginning" ends near 150, "(" near 83).
    assert 140 < beginning.rect.x < beginning.rect.right < 200, beginning.rect
    assert 270 < ending.rect.x < ending.rect.right < 340, ending.rect
    assert 80 < area_code.rect.x < area_code.rect.right < 140, area_code.rect
    assert all(694 <= field.rect.y <= 700 for field in (beginning, ending))


def test_a_row_rule_after_a_label_that_names_a_field_is_a_line_to_write_on() -> None:
    """Form 2441's care providers are rows between rules, open at the left, each with its label
    on the rule's start ("First", "Last or Business", "City"): no field was found, the label
    being too long for a sign. A label that names a person's or a place's particulars makes the
    paper after it a field; other words on a row's rule ("Total income") do not."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        for y, label in ((600, "First"), (588, "Last or Business"), (576, "Total income")):
            c.line(20, y, 220, y)
            c.drawString(21, y + 2, label)
        c.line(20, 612, 220, 612)

    found = detect_fields(page(draw)).fields
    # The paper above the top rule is a line of its own; the rows are below it.
    fields = sorted((f for f in found if f.rect.y < 610), key=lambda field: -field.rect.y)

    assert [field.label for field in fields] == ["First", "Last or Business"], fields
    first, last = fields
    assert 35 < first.rect.x < 45, first.rect
    assert 75 < last.rect.x < 90, last.rect
    assert first.rect.right == last.rect.right == 220
