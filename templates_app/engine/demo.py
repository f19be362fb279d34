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

    def field(self, label: str, rect: Rect, key: str, kind: str, **spec: Any) -> FieldSpec:
        """Draws and records one field; its alias is its id unless ``spec`` names another."""
        for option in spec.get("options", ()):
            self.label(option.id, option.rect.right + 3, option.rect.y + 3)
            radius = option.rect.width / 2
            self.canvas.circle(option.rect.x + radius, option.rect.y + radius, radius)
        self.label(label, rect.x, rect.top + LABEL_GAP)
        # Boxes, parts and radio options are drawn on their own: an outline around them as well
        # would double their lines.
        if kind != "radioGroup" and not spec.get("boxes") and not spec.get("parts"):
            self.box(rect)
        for extra in spec.get("boxes", ()):
            self.box(extra)
        for _, part in spec.get("parts", ()):
            self.box(part)
        spec.setdefault("alias", key)
        field = FieldSpec(page=self.page, rect=rect, label=label, id=key, type=kind, **spec)
        self.fields.append(field)
        return field


LEFT, RIGHT, WIDTH = 54.0, 318.0, 240.0

# The first page, one row a field, drawn in this order: label, box, id (its alias too unless the
# last column names another), type, and the rest of its spec.
FIRST_PAGE: tuple[tuple[str, Rect, str, str, dict[str, Any]], ...] = (
    ("Full name (one box)", Rect(LEFT, 690, WIDTH, 18), "name", "fullName", {}),
    ("Email", Rect(RIGHT, 690, WIDTH, 18), "email", "email", {}),
    ("SSN", Rect(LEFT, 650, 110, 18), "ssn", "ssn", {}),
    ("EIN", Rect(LEFT + 130, 650, 110, 18), "ein", "ein", {}),
    (
        "Date of birth",
        Rect(RIGHT, 650, 110, 18),
        "birthDate",
        "date",
        {"format": {"pattern": "MMMM D, YYYY"}},
    ),
    ("Phone", Rect(RIGHT + 130, 650, 110, 18), "phone", "phone", {}),
    ("Address", Rect(LEFT, 610, 504, 18), "address", "usAddress", {}),
    ("Amount", Rect(LEFT, 570, 110, 18), "amount", "dollar", {}),
    ("Quantity", Rect(LEFT + 130, 570, 110, 18), "quantity", "integer", {}),
    ("Rate", Rect(RIGHT, 570, 110, 18), "rate", "number", {"format": {"decimals": 3}}),
    ("Discount", Rect(RIGHT + 130, 570, 110, 18), "discount", "percent", {}),
    (
        "Account number (one character per box)",
        Rect(LEFT, 530, 162, 18),
        "account",
        "charList",
        {"max_length": 9, "boxes": tuple(Rect(LEFT + i * 18, 530, 18, 18) for i in range(9))},
    ),
    ("Agree to terms", Rect(RIGHT, 530, 14, 14), "agree", "checkbox", {}),
    (
        "Favourite colour",
        Rect(RIGHT + 120, 530, 102, 14),  # as tall as the checkbox: the labels line up
        "colour",
        "radioGroup",
        {
            "options": tuple(
                RadioOption(id=choice, rect=Rect(RIGHT + 120 + i * 45, 530, 12, 12))
                for i, choice in enumerate(("red", "green", "blue"))
            )
        },
    ),
    (
        "Notes (one line per box)",
        Rect(LEFT, 434, 504, 52),
        "notes",
        "textWrap",
        {"boxes": tuple(Rect(LEFT, 470 - i * 18, 504, 16) for i in range(3))},
    ),
    ("Comments", Rect(LEFT, 350, 504, 60), "comments", "longText", {"auto_size": True}),
    ("Title", Rect(LEFT, 300, 240, 18), "title", "shortText", {}),
    ("Signature image", Rect(RIGHT, 250, 200, 68), "photo", "imageFile", {}),
    (
        "Name in parts: first, middle initial, last",
        Rect(LEFT, 250, 240, 18),
        "nameParts",
        "fullName",
        {
            "alias": "name",
            "parts": (
                ("firstName", Rect(LEFT, 250, 110, 18)),
                ("mi", Rect(LEFT + 115, 250, 20, 18)),
                ("lastName", Rect(LEFT + 140, 250, 100, 18)),
            ),
        },
    ),
    ("Footer (page-number variables)", Rect(LEFT, 40, 200, 14), "footer", "shortText", {}),
)


def build_demo_template() -> tuple[bytes, TemplateSpec]:
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(PAGE_W, PAGE_H))
    canvas.setTitle("Demo template")
    fields: list[FieldSpec] = []

    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawString(54, 740, "Demo form: every field type")
    p = _Page(canvas, 0, fields)
    for label, rect, key, kind, rest in FIRST_PAGE:
        p.field(label, rect, key, kind, **rest)
    canvas.showPage()

    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawString(54, 740, "Items (array fields: extra rows repeat this page)")
    p = _Page(canvas, 1, fields)
    descriptions, prices = [], []
    for row in range(5):
        y = 690 - row * ROW_PITCH
        descriptions.append(
            p.field(f"Item {row + 1}", Rect(LEFT, y, 360, 18), f"item{row}", "shortText")
        )
        prices.append(
            p.field(f"Price {row + 1}", Rect(LEFT + 380, y, 124, 18), f"price{row}", "dollar")
        )
    p.field("Page", Rect(LEFT, 40, 200, 14), "footer2", "shortText", alias="footer")
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
