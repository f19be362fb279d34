"""Reading a PDF's AcroForm: its terminal fields with what they inherit, and what a widget says
about itself (rect, text style, rotation, on state).

Pure Python (no Django).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pypdf import PdfReader
from pypdf.errors import PdfReadError
from pypdf.generic import DictionaryObject

from core.engine.pdf import as_array, as_dict
from core.engine.template_spec import Rect, Style

# AcroForm field flags (PDF 32000-1, tables 226, 228, 230).
FF_MULTILINE = 1 << 12
FF_PASSWORD = 1 << 13
FF_RADIO = 1 << 15
FF_PUSHBUTTON = 1 << 16
FF_COMB = 1 << 24
ANNOT_HIDDEN = 1 << 1

_DA_FONT = re.compile(r"/(\S+)\s+(-?[\d.]+)\s+Tf")
_DA_RGB = re.compile(r"(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+rg")
_DA_GRAY = re.compile(r"(?<![\d.])(-?[\d.]+)\s+g(?!\w)")


@dataclass
class Terminal:
    """One terminal form field with the attributes it inherits, and its widgets."""

    name: str
    label: str
    field_type: str
    flags: int
    da: str
    quadding: int
    max_length: int | None
    widgets: list[DictionaryObject] = field(default_factory=list)


def acroform_of(reader: PdfReader) -> DictionaryObject | None:
    acroform = as_dict(reader.trailer["/Root"]).get("/AcroForm")
    return as_dict(acroform) if acroform is not None else None


def rect_of(widget: DictionaryObject) -> Rect:
    corners = as_array(widget["/Rect"])
    if len(corners) != 4:
        raise PdfReadError("a widget's /Rect must be four numbers")
    x0, y0, x1, y1 = (float(v) for v in corners)
    return Rect.from_corners(x0, y0, x1, y1)


def _text(value: Any) -> str:
    return str(value) if value is not None else ""


def walk_fields(
    node: DictionaryObject, parent_name: str, inherited: dict[str, Any]
) -> Iterator[Terminal]:
    attrs = dict(inherited)
    for key in ("/FT", "/Ff", "/DA", "/Q", "/MaxLen"):
        if key in node:
            attrs[key] = node[key]
    partial = _text(node.get("/T"))
    name = f"{parent_name}.{partial}" if parent_name and partial else (partial or parent_name)
    kids = [kid.get_object() for kid in node.get("/Kids") or []]
    field_kids = [kid for kid in kids if "/T" in kid]
    if field_kids:
        for kid in field_kids:
            yield from walk_fields(kid, name, attrs)
        return
    widgets = kids or [node]  # a field merged with its single widget is its own widget
    yield Terminal(
        name=name,
        label=_text(node.get("/TU")),
        field_type=_text(attrs.get("/FT")),
        flags=int(attrs.get("/Ff", 0)),
        da=_text(attrs.get("/DA")),
        quadding=int(attrs.get("/Q", 0)),
        max_length=int(attrs["/MaxLen"]) if "/MaxLen" in attrs else None,
        widgets=widgets,
    )


def style_from(terminal: Terminal, widget: DictionaryObject) -> tuple[Style, bool]:
    """Font size, colour and alignment from the field's appearance; auto size when size is 0."""
    da = _text(widget.get("/DA")) or terminal.da
    quadding = int(widget.get("/Q", terminal.quadding))
    font = _DA_FONT.search(da)
    size = float(font.group(2)) if font else None
    color = None
    if rgb := _DA_RGB.search(da):
        color = "#" + "".join(
            f"{round(max(0.0, min(1.0, float(c))) * 255):02X}" for c in rgb.groups()
        )
    elif gray := _DA_GRAY.search(da):
        level = round(max(0.0, min(1.0, float(gray.group(1)))) * 255)
        color = f"#{level:02X}{level:02X}{level:02X}"
    alignment = {1: "center", 2: "right"}.get(quadding)
    style = Style(
        font_size=size if size else None,
        text_color=color if color not in (None, "#000000") else None,
        alignment=alignment,
    )
    return style, size == 0


def rotation_of(widget: DictionaryObject) -> int:
    mk = widget.get("/MK")
    rotation = int(mk.get_object().get("/R", 0)) if mk is not None else 0
    return rotation % 360 if rotation % 90 == 0 else 0


def on_state(widget: DictionaryObject) -> str | None:
    ap = widget.get("/AP")
    normal = ap.get_object().get("/N") if ap is not None else None
    if normal is None or not isinstance(normal.get_object(), DictionaryObject):
        return None
    states = [str(key)[1:] for key in normal.get_object() if key != "/Off"]
    return states[0] if states else None
