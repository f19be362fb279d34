"""Field detection (issue 48) of checkboxes printed as no box: the cells of a form's "Yes" and
"No" columns, and ovals drawn with a thick pen. Tiny pages drawn with reportlab."""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from core.engine.template_spec import FieldSpec
from templates_app.engine.answer_columns import answer_words
from templates_app.engine.detect_fields import detect_fields
from templates_app.engine.field_labels import TextRun
from tests.templates_app.test_detect_fields import near, page


def _by_place(fields: tuple[FieldSpec, ...]) -> list[FieldSpec]:
    return sorted(fields, key=lambda f: (-round(f.rect.y), f.rect.x))


def test_the_cells_of_yes_and_no_columns_are_checkboxes_the_open_no_column_too() -> None:
    """A tax form's questions are answered in a "Yes" and a "No" column at the right: no box is
    printed in the cells, and the "No" column is left open at the page's edge (Form 4972's
    lines 1-3). Each cell's last line is a checkbox (before: the "Yes" cells were text fields
    and the "No" ones nothing). A narrow cell under a "Code" heading stays a text field."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(504, 662, "Yes")
        c.drawString(528, 662, "No")
        c.drawString(420, 662, "Code")
        for y in (660, 648, 636, 612):
            c.line(414, y, 436, y)
            c.line(500, y, 548, y)
        for x in (414, 436, 500, 522):
            c.line(x, 612, x, 660)
        c.drawString(100, 650, "1 Was this a distribution of a plan participant's balance?")
        c.drawString(100, 638, "2 Did you roll over any part of the distribution?")
        c.drawString(100, 614, "3 Was this distribution paid to you as a beneficiary?")

    fields = _by_place(detect_fields(page(draw)).fields)

    ticks = [f for f in fields if f.type == "checkbox"]
    assert len(ticks) == 6
    for row, y in enumerate((648, 636, 612)):
        assert near(ticks[2 * row].rect, 505, y + 1, 12, 12, tol=1.0)
        assert near(ticks[2 * row + 1].rect, 527.5, y + 1, 12, 12, tol=1.5)
    codes = [f for f in fields if f.type != "checkbox"]
    assert len(codes) == 3
    assert all(near(f.rect, 414, f.rect.y, 22, f.rect.height) for f in codes)


def test_a_row_of_cells_under_yes_no_pairs_is_checkboxes_not_a_comb() -> None:
    """Form 4562's vehicle questions: cells side by side under "Yes No Yes No" headings read as
    a comb of characters (before: one charList); each cell is a checkbox."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica-Bold", 9)
        for index, word in enumerate(("Yes", "No", "Yes", "No")):
            c.drawString(305 + 29 * index, 352, word)
        for y in (348, 336, 324):
            c.line(300, y, 416, y)
        for index in range(5):
            c.line(300 + 29 * index, 324, 300 + 29 * index, 360)
        c.line(300, 360, 416, 360)

    ticks = _by_place(detect_fields(page(draw)).fields)

    assert [f.type for f in ticks] == ["checkbox"] * 8
    for index, tick in enumerate(ticks):
        assert near(tick.rect, 308.5 + 29 * (index % 4), 336 - 12 * (index // 4), 12, 12)


def test_ovals_drawn_with_a_thick_pen_are_checkboxes() -> None:
    """Pennsylvania's "fill in the oval, if a loss": ovals twice as wide as tall drawn with a
    pen a third of their height, in a table's column. A ring that wide was no ring, and an
    oval that dark was cleared with the page's shading (before: none found)."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 9)
        c.line(470, 300, 470, 500)
        for row in range(8):
            y = 310 + 25 * row + row / 3  # the ovals fall on every part of the page's blocks
            c.drawString(300, y, f"{row + 1}. Net gain or loss (fill in the oval, if a loss)")
            c.line(300, y - 4, 560, y - 4)
            c.setLineWidth(2.4)
            c.roundRect(478, y - 1, 15, 7, 3.5)
            c.setLineWidth(1)

    ticks = [f for f in detect_fields(page(draw)).fields if f.type == "checkbox"]

    assert len(ticks) == 8
    for row, tick in enumerate(sorted(ticks, key=lambda f: f.rect.y)):
        assert near(tick.rect, 476.8, 310 + 25 * row + row / 3 - 2.2, 17.4, 9.4, tol=1.5)


def test_a_column_of_boxes_half_again_as_wide_as_tall_is_checkboxes() -> None:
    """The 1040's dependants table ends in a column of 18 by 12 point boxes, one per row, to
    tick for the child tax credit: too wide for a checkbox, too narrow for a text cell
    (before: none found)."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(490, 676, "Check if qualifies for")
        c.drawString(490, 668, "child tax credit")
        c.line(510, 660, 528, 660)
        for row in range(4):
            c.line(510, 648 - 12 * row, 528, 648 - 12 * row)
        c.line(510, 612, 510, 660)
        c.line(528, 612, 528, 660)

    ticks = _by_place(detect_fields(page(draw)).fields)

    assert [f.type for f in ticks] == ["checkbox"] * 4
    for row, tick in enumerate(ticks):
        assert near(tick.rect, 510, 648 - 12 * row, 18, 12)


def test_white_squares_on_a_dark_ground_are_checkboxes() -> None:
    """Testformular1's choices are dark teal bands, each with its name in white and a white
    square to tick: the ground is ink to the rules, so the squares had no rules of their own
    (before: none found). The white words are no squares."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 12)
        for row in range(2):
            y = 600 - 80 * row
            c.setFillColorRGB(0.25, 0.5, 0.5)
            c.rect(50, y, 500, 60, stroke=0, fill=1)
            c.setFillColorRGB(1, 1, 1)
            c.drawString(60, y + 35, "Umwelt und Naturschutz")
            c.setStrokeGray(0.3)
            c.rect(520, y + 36, 12, 12, stroke=1, fill=1)

    ticks = _by_place(detect_fields(page(draw)).fields)

    assert [f.type for f in ticks] == ["checkbox"] * 2
    assert near(ticks[0].rect, 520, 636, 12, 12)
    assert near(ticks[1].rect, 520, 556, 12, 12)


def test_answer_headings_ocr_reads_as_one_word_are_cut() -> None:
    """Form 1310's "Yes" and "No" headings are set so close that OCR reads them as one word,
    "YesNo": cut, each heads its own column (the "No" one at its share of the run)."""
    run = TextRun(x=534, y=469, size=10, text="YesNo", right=589)
    other = TextRun(x=100, y=469, size=10, text="Notes", right=130)

    cut = answer_words([run, other])

    assert [(w.text, round(w.x), round(w.right)) for w in cut] == [
        ("Yes", 534, 567),
        ("No", 567, 589),
        ("Notes", 100, 130),
    ]


def tick_table(canvas: Canvas) -> None:
    """A dependents table's "SON / ADOPTED / STEP" columns, two rows: a printed checkbox in the
    middle of each narrow cell."""
    canvas.setLineWidth(0.5)
    canvas.setFont("Helvetica", 8)
    for i, word in enumerate(("SON", "ADOPTED", "STEP")):
        canvas.drawString(302 + i * 38, 652, word)
    for y in (600, 624, 648):
        canvas.line(300, y, 414, y)
    for x in (300, 338, 376, 414):
        canvas.line(x, 600, x, 648)
    for x in (300, 338, 376):
        for y in (600, 624):
            canvas.rect(x + 14, y + 7, 10, 10)


def test_a_cell_holding_a_checkbox_is_no_field_of_its_own() -> None:
    """The box is the field; its cell was found as a text field over it."""
    fields = detect_fields(page(tick_table)).fields

    assert {f.type for f in fields} == {"checkbox"}, fields
    assert len(fields) == 6, fields
