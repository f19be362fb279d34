"""The generate request as frozen dataclasses, and the bounds of its values.

`generate.engine.parse_request.parse_generate_request` checks a body and makes one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from generate.engine.lengths import Length

Mode = Literal["html", "markdown"]
Align = Literal["left", "center", "right"]
VerticalAlign = Literal["top", "center", "bottom"]


DEFAULT_FONT_FAMILY = "Noto Sans"
FONT_SIZE_MIN = 5
FONT_SIZE_MAX = 30
LOGO_MAX_SIDE = 500
LOGO_DEFAULT_SIDE = 200

# pageCount position -> the CSS @page margin box it goes into.
PAGE_COUNT_BOXES: dict[str, str] = {
    "topLeft": "top-left",
    "topCenter": "top-center",
    "topRight": "top-right",
    "bottomLeft": "bottom-left",
    "bottomCenter": "bottom-center",
    "bottomRight": "bottom-right",
}


@dataclass(frozen=True)
class PageSettings:
    width: Length = Length(8.5, "in")
    height: Length = Length(11.0, "in")
    margin_top: Length = Length(0.5, "in")
    margin_right: Length = Length(0.5, "in")
    margin_bottom: Length = Length(0.5, "in")
    margin_left: Length = Length(0.5, "in")
    page_count_box: str | None = None  # a CSS margin box name, e.g. "bottom-center"


@dataclass(frozen=True)
class Logo:
    src: str  # http(s) or data: URL; fetched like every other resource
    max_width: float = LOGO_DEFAULT_SIDE  # CSS pixels
    max_height: float = LOGO_DEFAULT_SIDE


@dataclass(frozen=True)
class ColumnOption:
    align: Align | None = None
    width: str | None = None  # CSS: "120px" or "25%"


@dataclass(frozen=True)
class MarkdownTable:
    rows: tuple[tuple[str, ...], ...]
    first_row_headers: bool = True
    row_gridlines: bool = False
    column_gridlines: bool = False
    vertical_align: VerticalAlign = "top"
    column_options: tuple[ColumnOption, ...] = ()


@dataclass(frozen=True)
class TextStyle:
    font_family: str | None = None
    font_size: int | None = None  # points
    text_color: str | None = None  # "#rrggbb"


@dataclass(frozen=True)
class MarkdownElement:
    label: str | None = None
    heading: str | None = None
    content: str | None = None  # Markdown
    table: MarkdownTable | None = None
    style: TextStyle = TextStyle()


@dataclass(frozen=True)
class GenerateRequest:
    mode: Mode
    title: str | None = None
    # Text tags ({{name;type=date}}) in the document become the PDF's form fields, their text
    # removed (the service does it after the render: templates_app.engine.text_tags).
    field_tags: bool = False
    page: PageSettings = PageSettings()
    # HTML mode
    html: str = ""
    css: str = ""
    # Markdown mode
    elements: tuple[MarkdownElement, ...] = ()
    style: TextStyle = TextStyle()
    include_timestamp: bool = True
    # "default": the service's own logo; None: no logo (the caller sent false).
    logo: Logo | Literal["default"] | None = "default"

    @property
    def font_families(self) -> tuple[str, ...]:
        """Every font family the document names, the document's first, without repeats."""
        names = [self.style.font_family or DEFAULT_FONT_FAMILY]
        names += [e.style.font_family for e in self.elements if e.style.font_family]
        return tuple(dict.fromkeys(names))
