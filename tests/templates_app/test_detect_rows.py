"""Field detection (issue 48) on rows that carry their own labels and on slivers between rules:
tiny pages drawn with reportlab, with exact expectations."""

from __future__ import annotations

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from templates_app.engine.detect_fields import detect_fields
from tests.templates_app.test_detect_fields import near, page


def test_a_rule_with_its_labels_printed_on_it_is_a_field_after_each_label() -> None:
    """ "City ____ State ___ ZIP ______" on one rule, no wall between: three fields, each from
    its label's end to the next label, named by it."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(72, 602, "City")
        c.drawString(260, 602, "State")
        c.drawString(360, 602, "ZIP")
        c.line(72, 600, 500, 600)

    fields = sorted(detect_fields(page(draw)).fields, key=lambda f: f.rect.x)

    assert [(f.label, f.alias, f.type) for f in fields] == [
        ("City", "city", "shortText"),
        ("State", "state", "shortText"),
        ("ZIP", "zip", "shortText"),
    ]
    # From the paper after each label to the next label (or the rule's end), on the rule.
    ends = [
        x + stringWidth(t, "Helvetica", 8) for x, t in ((72, "City"), (260, "State"), (360, "ZIP"))
    ]
    for field, label_end, next_start in zip(fields, ends, (260, 360, 500), strict=True):
        assert label_end - 1.5 <= field.rect.x <= label_end + 3
        assert next_start - 3 <= field.rect.right <= next_start + 1  # a pixel of the glyph's edge
        assert abs(field.rect.y - 600) <= 1.5
        assert 10 <= field.rect.height <= 20


def test_a_heading_over_a_rule_and_a_sentence_on_one_are_no_fields() -> None:
    """Paper first (a heading centred over its column), or words running on past the last
    gap (a sentence with gaps): nothing to write in."""

    def draw(c: Canvas) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(250, 602, "Part II")
        c.line(72, 600, 500, 600)
        c.drawString(72, 502, "Enter the amount")
        c.drawString(250, 502, "from line 4 of the worksheet on page 2 of the instructions")
        c.line(72, 500, 500, 500)

    assert detect_fields(page(draw)).fields == ()


def test_a_sliver_between_two_rules_is_no_field_and_a_line_tall_box_is_one() -> None:
    """A box 8 points tall holds no line of writing (the 6-8 pt slivers of issue 48); one
    10 points tall does."""

    def draw(c: Canvas) -> None:
        c.rect(100, 600, 200, 8)
        c.rect(100, 400, 200, 10)

    (field,) = detect_fields(page(draw)).fields

    assert near(field.rect, 100, 400, 200, 10)
