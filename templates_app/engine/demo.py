"""The demo template: a two-page form the project draws itself, using every field type.

The run command publishes it so a fresh install has something real to fill.
"""

from __future__ import annotations

import io
from typing import Any

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from core.engine.template_spec import (
    ArraySpec,
    FieldSpec,
    PageSpec,
    RadioOption,
    Rect,
    Style,
    TemplateSpec,
)

PAGE_W, PAGE_H = 612.0, 792.0
LABEL_COLOR = HexColor("#555566")
BOX_COLOR = HexColor("#9AA0B4")
LABEL_FONT, LABEL_SIZE = "Helvetica", 7
# A label's baseline sits this far above its box: with its ascenders the label reaches about 8
# points above the box, so anything drawn above a labelled box keeps clear of that band.
LABEL_GAP = 3.0
ROW_PITCH = 30.0  # page 2: 18-point rows, their labels and about 4 points of air above each


class _Page:
    """Draws labelled boxes on one canvas page and records the fields placed in them."""

    def __init__(self, canvas: Canvas, page: int, fields: list[FieldSpec]) -> None:
        self.canvas, self.page, self.fields = canvas, page, fields

    def box(self, rect: Rect) -> None:
        self.canvas.setStrokeColor(BOX_COLOR)
        self.canvas.setLineWidth(0.6)
        self.canvas.rect(rect.x, rect.y, rect.width, rect.height)

    def label(self, text: str, x: float, y: float) -> None:
        self.canvas.setFillColor(LABEL_COLOR)
        self.canvas.setFont(LABEL_FONT, LABEL_SIZE)
        self.canvas.drawString(x, y, text)

    def field(self, label: str, rect: Rect, **spec: Any) -> FieldSpec:
        self.label(label, rect.x, rect.top + LABEL_GAP)
        # Boxes, parts and radio options are drawn on their own: an outline around them as well
        # would double their lines.
        if spec["type"] != "radioGroup" and not spec.get("boxes") and not spec.get("parts"):
            self.box(rect)
        for extra in spec.get("boxes", ()):
            self.box(extra)
        for _, part in spec.get("parts", ()):
            self.box(part)
        field = FieldSpec(page=self.page, rect=rect, label=label, **spec)
        self.fields.append(field)
        return field


def build_demo_template() -> tuple[bytes, TemplateSpec]:
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(PAGE_W, PAGE_H))
    canvas.setTitle("Demo template")
    fields: list[FieldSpec] = []

    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawString(54, 740, "Demo form: every field type")
    p = _Page(canvas, 0, fields)
    left, right, width = 54.0, 318.0, 240.0
    p.field(
        "Full name (one box)", Rect(left, 690, width, 18), id="name", alias="name", type="fullName"
    )
    p.field("Email", Rect(right, 690, width, 18), id="email", alias="email", type="email")
    p.field("SSN", Rect(left, 650, 110, 18), id="ssn", alias="ssn", type="ssn")
    p.field("EIN", Rect(left + 130, 650, 110, 18), id="ein", alias="ein", type="ein")
    p.field(
        "Date of birth",
        Rect(right, 650, 110, 18),
        id="birthDate",
        alias="birthDate",
        type="date",
        format={"pattern": "MMMM D, YYYY"},
    )
    p.field("Phone", Rect(right + 130, 650, 110, 18), id="phone", alias="phone", type="phone")
    p.field("Address", Rect(left, 610, 504, 18), id="address", alias="address", type="usAddress")
    p.field("Amount", Rect(left, 570, 110, 18), id="amount", alias="amount", type="dollar")
    p.field(
        "Quantity", Rect(left + 130, 570, 110, 18), id="quantity", alias="quantity", type="integer"
    )
    p.field(
        "Rate",
        Rect(right, 570, 110, 18),
        id="rate",
        alias="rate",
        type="number",
        format={"decimals": 3},
    )
    p.field(
        "Discount", Rect(right + 130, 570, 110, 18), id="discount", alias="discount", type="percent"
    )
    char_boxes = tuple(Rect(left + i * 18, 530, 18, 18) for i in range(9))
    p.field(
        "Account number (one character per box)",
        Rect(left, 530, 162, 18),
        id="account",
        alias="account",
        type="charList",
        max_length=9,
        boxes=char_boxes,
    )
    p.field("Agree to terms", Rect(right, 530, 14, 14), id="agree", alias="agree", type="checkbox")
    options = tuple(
        RadioOption(id=choice, rect=Rect(right + 120 + i * 45, 530, 12, 12))
        for i, choice in enumerate(("red", "green", "blue"))
    )
    for option in options:
        p.label(option.id, option.rect.right + 3, option.rect.y + 3)
        canvas.circle(option.rect.x + 6, option.rect.y + 6, 6)
    p.field(
        "Favourite colour",
        Rect(right + 120, 530, 102, 14),  # as tall as the checkbox: the labels line up
        id="colour",
        alias="colour",
        type="radioGroup",
        options=options,
    )
    lines = tuple(Rect(left, 470 - i * 18, 504, 16) for i in range(3))
    p.field(
        "Notes (one line per box)",
        Rect(left, 434, 504, 52),
        id="notes",
        alias="notes",
        type="textWrap",
        boxes=lines,
    )
    p.field(
        "Comments",
        Rect(left, 350, 504, 60),
        id="comments",
        alias="comments",
        type="longText",
        auto_size=True,
    )
    p.field("Title", Rect(left, 300, 240, 18), id="title", alias="title", type="shortText")
    p.field(
        "Signature image",
        Rect(right, 250, 200, 68),
        id="photo",
        alias="photo",
        type="imageFile",
    )
    name_parts = (
        ("firstName", Rect(left, 250, 110, 18)),
        ("mi", Rect(left + 115, 250, 20, 18)),
        ("lastName", Rect(left + 140, 250, 100, 18)),
    )
    p.field(
        "Name in parts: first, middle initial, last",
        Rect(left, 250, 240, 18),
        id="nameParts",
        alias="name",
        type="fullName",
        parts=name_parts,
    )
    p.field(
        "Footer (page-number variables)",
        Rect(left, 40, 200, 14),
        id="footer",
        alias="footer",
        type="shortText",
    )
    canvas.showPage()

    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawString(54, 740, "Items (array fields: extra rows repeat this page)")
    p = _Page(canvas, 1, fields)
    descriptions, prices = [], []
    for row in range(5):
        y = 690 - row * ROW_PITCH
        descriptions.append(
            p.field(
                f"Item {row + 1}",
                Rect(left, y, 360, 18),
                id=f"item{row}",
                alias=f"item{row}",
                type="shortText",
            )
        )
        prices.append(
            p.field(
                f"Price {row + 1}",
                Rect(left + 380, y, 124, 18),
                id=f"price{row}",
                alias=f"price{row}",
                type="dollar",
            )
        )
    p.field("Page", Rect(left, 40, 200, 14), id="footer2", alias="footer", type="shortText")
    canvas.showPage()
    canvas.save()

    arrays = (
        ArraySpec(id="items", alias="items", field_ids=tuple(f.id for f in descriptions)),
        ArraySpec(id="prices", alias="prices", field_ids=tuple(f.id for f in prices)),
    )
    pages = tuple(PageSpec(PAGE_W, PAGE_H, 0, (0.0, 0.0, PAGE_W, PAGE_H)) for _ in range(2))
    spec = TemplateSpec(
        pages=pages,
        fields=tuple(fields),
        arrays=arrays,
        style=Style(font_family="Noto Sans", font_size=10, text_color="#1F2A44"),
    )
    return out.getvalue(), spec
