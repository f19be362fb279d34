"""The field model of a PDF template, as frozen dataclasses with a JSON (camelCase) form.

Coordinates: every rectangle is in PDF points in the page's default user space, the space of
a widget's /Rect: origin at (0, 0) of the page coordinate system (usually the lower-left corner
of the MediaBox), x to the right, y up, before the page's /Rotate is applied. ``x, y`` is the
lower-left corner of the box.

The JSON form is what the database stores, what the editor edits and what ``fieldInfo`` shows.

The field types (``FIELD_TYPES``, ``SIGNER_TYPES``, ``PARTS``, ``TEXT_TYPES``) are declared in
``field_types``, with what the editor needs to know of them, and re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.engine.colors import parse_color
from core.engine.field_types import FIELD_TYPES as FIELD_TYPES
from core.engine.field_types import PARTS as PARTS
from core.engine.field_types import SIGNER_TYPES as SIGNER_TYPES
from core.engine.field_types import TEMPLATE_FIELD_TYPES as TEMPLATE_FIELD_TYPES
from core.engine.field_types import TEXT_TYPES as TEXT_TYPES

ALIGNMENTS = ("left", "center", "right")
FONT_WEIGHTS = ("normal", "bold", "italic", "boldItalic")
ROTATIONS = (0, 90, 180, 270)
STYLE_KEYS = ("fontFamily", "fontSize", "textColor", "alignment", "fontWeight")


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def top(self) -> float:
        return self.y + self.height

    def to_json(self) -> dict[str, float]:
        return {
            "x": round(self.x, 3),
            "y": round(self.y, 3),
            "width": round(self.width, 3),
            "height": round(self.height, 3),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rect:
        return cls(
            x=float(data["x"]),
            y=float(data["y"]),
            width=float(data["width"]),
            height=float(data["height"]),
        )

    @classmethod
    def from_corners(cls, x0: float, y0: float, x1: float, y1: float) -> Rect:
        return cls(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))


@dataclass(frozen=True)
class Style:
    """Style settings; ``None`` means "not set here", so the next level of precedence applies."""

    font_family: str | None = None
    font_size: float | None = None
    text_color: str | None = None
    alignment: str | None = None
    font_weight: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {
            "fontFamily": self.font_family,
            "fontSize": self.font_size,
            "textColor": self.text_color,
            "alignment": self.alignment,
            "fontWeight": self.font_weight,
        }
        return {key: value for key, value in out.items() if value is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Style:
        data = data or {}
        size = data.get("fontSize")
        return cls(
            font_family=data.get("fontFamily"),
            font_size=float(size) if size is not None else None,
            # Stored colours are "#RRGGBB"; one written without "#" is read the same way.
            text_color=parse_color(color) or color if (color := data.get("textColor")) else None,
            alignment=data.get("alignment"),
            font_weight=data.get("fontWeight"),
        )

    def over(self, lower: Style) -> Style:
        """This style with unset values taken from ``lower`` (lower precedence)."""
        return Style(
            font_family=self.font_family if self.font_family is not None else lower.font_family,
            font_size=self.font_size if self.font_size is not None else lower.font_size,
            text_color=self.text_color if self.text_color is not None else lower.text_color,
            alignment=self.alignment if self.alignment is not None else lower.alignment,
            font_weight=self.font_weight if self.font_weight is not None else lower.font_weight,
        )


@dataclass(frozen=True)
class RadioOption:
    id: str
    rect: Rect

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "rect": self.rect.to_json()}


@dataclass(frozen=True)
class FieldSpec:
    id: str
    alias: str
    type: str
    page: int
    rect: Rect
    label: str = ""
    # The field's fully qualified name in the PDF it was imported from (its alias is derived).
    name: str = ""
    style: Style = field(default_factory=Style)
    # Type-specific formatting: date {"pattern"}; number/dollar/percent {"decimals",
    # "thousandsSeparator", "decimalSeparator", "currencySymbol"}.
    format: Mapping[str, Any] = field(default_factory=dict)
    read_only: bool = False
    # Shrink text until it fits (shortText always may shrink; longText only with this set).
    auto_size: bool = False
    # Degrees the content is turned counter-clockwise inside the box (widget /MK /R).
    rotation: int = 0
    max_length: int | None = None
    boxes: tuple[Rect, ...] = ()
    options: tuple[RadioOption, ...] = ()
    parts: tuple[tuple[str, Rect], ...] = ()

    @property
    def part_rects(self) -> dict[str, Rect]:
        return dict(self.parts)

    @property
    def is_signer(self) -> bool:
        """Signed in a packet (signature, initial, signatureDate, signerName), never filled."""
        return self.type in SIGNER_TYPES

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "alias": self.alias,
            "type": self.type,
            "page": self.page,
            "rect": self.rect.to_json(),
        }
        if self.label:
            out["label"] = self.label
        if self.name:
            out["name"] = self.name
        if style := self.style.to_json():
            out["style"] = style
        if self.format:
            out["format"] = dict(self.format)
        if self.read_only:
            out["readOnly"] = True
        if self.auto_size:
            out["autoSize"] = True
        if self.rotation:
            out["rotation"] = self.rotation
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.boxes:
            out["boxes"] = [box.to_json() for box in self.boxes]
        if self.options:
            out["options"] = [option.to_json() for option in self.options]
        if self.parts:
            out["parts"] = {name: rect.to_json() for name, rect in self.parts}
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FieldSpec:
        """Build from JSON already checked by ``validate_template_json``."""
        max_length = data.get("maxLength")
        return cls(
            id=str(data["id"]),
            alias=str(data.get("alias") or data["id"]),
            type=str(data["type"]),
            page=int(data.get("page", 0)),
            rect=Rect.from_json(data["rect"]),
            label=str(data.get("label") or ""),
            name=str(data.get("name") or ""),
            style=Style.from_json(data.get("style")),
            format=dict(data.get("format") or {}),
            read_only=bool(data.get("readOnly", False)),
            auto_size=bool(data.get("autoSize", False)),
            rotation=int(data.get("rotation", 0)),
            max_length=int(max_length) if max_length is not None else None,
            boxes=tuple(Rect.from_json(box) for box in data.get("boxes") or ()),
            options=tuple(
                RadioOption(id=str(o["id"]), rect=Rect.from_json(o["rect"]))
                for o in data.get("options") or ()
            ),
            parts=tuple(
                (name, Rect.from_json(rect)) for name, rect in (data.get("parts") or {}).items()
            ),
        )


@dataclass(frozen=True)
class ArraySpec:
    """A column of fields of one type filled from one array value; rows in ``field_ids`` order."""

    id: str
    alias: str
    field_ids: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "alias": self.alias, "fieldIds": list(self.field_ids)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ArraySpec:
        return cls(
            id=str(data["id"]),
            alias=str(data.get("alias") or data["id"]),
            field_ids=tuple(str(f) for f in data["fieldIds"]),
        )


@dataclass(frozen=True)
class PageSpec:
    width: float
    height: float
    rotate: int = 0
    # [x0, y0, x1, y1] of the MediaBox: rects must lie inside it.
    media_box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "width": round(self.width, 3),
            "height": round(self.height, 3),
            "rotate": self.rotate,
            "mediaBox": [round(v, 3) for v in self.media_box],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PageSpec:
        width, height = float(data["width"]), float(data["height"])
        box = data.get("mediaBox") or [0, 0, width, height]
        return cls(
            width=width,
            height=height,
            rotate=int(data.get("rotate", 0)),
            media_box=(float(box[0]), float(box[1]), float(box[2]), float(box[3])),
        )


@dataclass(frozen=True)
class TemplateSpec:
    pages: tuple[PageSpec, ...]
    fields: tuple[FieldSpec, ...] = ()
    arrays: tuple[ArraySpec, ...] = ()
    style: Style = field(default_factory=Style)

    def to_json(self) -> dict[str, Any]:
        return {
            "pages": [page.to_json() for page in self.pages],
            "fields": [f.to_json() for f in self.fields],
            "arrays": [a.to_json() for a in self.arrays],
            "style": self.style.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TemplateSpec:
        return cls(
            pages=tuple(PageSpec.from_json(p) for p in data.get("pages") or ()),
            fields=tuple(FieldSpec.from_json(f) for f in data.get("fields") or ()),
            arrays=tuple(ArraySpec.from_json(a) for a in data.get("arrays") or ()),
            style=Style.from_json(data.get("style")),
        )
