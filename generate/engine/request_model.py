"""The generate request body, declared once: what each property takes, its bounds, defaults,
messages and descriptions.

`generate.engine.parse_request` checks a body with these models and makes the engine's
`GenerateRequest`; generate/openapi.py derives the OpenAPI components from them (and the MCP
tool's input schema comes from those). The checks pydantic has no words for (a length and its
unit, the font catalogue, a column width) are validators here, beside the schema they document.
What spans properties (margins that leave no room, the size of the whole source) is checked
after the models, in parse_request.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    PlainValidator,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
)

from core.engine.colors import COLOR_MESSAGE, parse_color
from core.engine.style import FontCheck
from core.engine.wire_models import (
    WireModel,
    component_ref,
    one_of,
    refusal,
    says,
    with_context,
)
from generate.engine.lengths import (
    UNITS,
    Length,
    LengthError,
    parse_length,
    parse_margin_shorthand,
)
from generate.engine.markdown_doc import DEFAULT_FONT_SIZE_PT, DEFAULT_TEXT_COLOR
from generate.engine.request import (
    DEFAULT_FONT_FAMILY,
    FONT_SIZE_MAX,
    FONT_SIZE_MIN,
    LOGO_DEFAULT_SIDE,
    LOGO_MAX_SIDE,
    PAGE_COUNT_BOXES,
    Align,
    Mode,
    VerticalAlign,
)
from generate.engine.request import (
    PageSettings as PageDefaults,
)

# The key of `validate`'s context that holds the font catalogue's check.
FONT_CHECK = "font_check"

if TYPE_CHECKING:
    PageCountBox = str
else:
    PageCountBox = Literal[tuple(PAGE_COUNT_BOXES)]


def _any_case(text: str) -> str:
    """A regular expression matching ``text`` in any case (OpenAPI patterns have no flags)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in text)


_NUMBER = r"(\d+(\.\d+)?|\.\d+)"
_UNIT = "(" + "|".join(_any_case(unit) for unit in UNITS) + ")"
LENGTH_PATTERN = rf"^\s*({_NUMBER}{_UNIT}|0+(\.0+)?)\s*$"
COLOR_PATTERN = r"^#?[0-9A-Fa-f]{6}$"
_COLUMN_WIDTH_RE = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*(px|%)?", re.IGNORECASE)
_LOGO_SCHEMES = ("http://", "https://", "data:")
_PAGE = PageDefaults()


# --- values with checks of their own --------------------------------------------------------


def _length(value: object) -> Length:
    try:
        return parse_length(value)
    except LengthError as exc:
        raise refusal(str(exc)) from None


def _margins(value: object) -> tuple[Length, Length, Length, Length]:
    try:
        return parse_margin_shorthand(value)
    except LengthError as exc:
        raise refusal(str(exc)) from None


def _not_zero(length: Length) -> Length:
    if length.value == 0:
        raise refusal("Must be greater than zero.")
    return length


def _font_family(name: str, font_check: FontCheck) -> str:
    message = font_check(name)
    if message is not None:
        raise refusal(message)
    return name


def _whole_number(value: object) -> object:
    # 12.0 is the integer 12 (JSON has one number type); 12.5, "12" and true are not.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _normal_color(value: str) -> str:
    color = parse_color(value)
    assert color is not None  # the pattern has matched
    return color


def _cell_text(cell: object) -> str:
    """Strings as they are; numbers as written; null as an empty cell."""
    if cell is None:
        return ""
    if isinstance(cell, str):
        return cell
    if isinstance(cell, int | float) and not isinstance(cell, bool) and math.isfinite(cell):
        return str(cell)
    raise refusal("Must be a string.")


def _number(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _column_width(value: object) -> str:
    """Pixels (a number, "120" or "120px") or a percentage of the table width ("25%")."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if math.isfinite(value) and value > 0:
            return f"{_number(value)}px"
    elif isinstance(value, str):
        match = _COLUMN_WIDTH_RE.fullmatch(value.strip())
        if match is not None and float(match.group(1)) > 0:
            unit = (match.group(2) or "px").lower()
            if unit == "px" or float(match.group(1)) <= 100:
                return f"{_number(float(match.group(1)))}{unit}"
    raise refusal('Must be a width in pixels (120 or "120px") or a percentage ("25%").')


def _logo_src(value: str) -> str:
    if not value.strip().lower().startswith(_LOGO_SCHEMES):
        raise ValueError("no http(s) or data: URI")  # says() words it
    return value.strip()


_LENGTH_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": LENGTH_PATTERN,
    "description": f"A number and a unit ({', '.join(UNITS)}); `em` and `rem` are 16px; a bare "
    "`0` is allowed.",
    "example": "0.5in",
}
PageLength = Annotated[Length, PlainValidator(_length), WithJsonSchema(_LENGTH_SCHEMA)]
PageSide = Annotated[PageLength, AfterValidator(_not_zero)]
Margins = Annotated[
    tuple[Length, Length, Length, Length],
    PlainValidator(_margins),
    WithJsonSchema({"type": "string", "example": "0.75in 0.5in"}),
]
FontSize = Annotated[
    int,
    Field(ge=FONT_SIZE_MIN, le=FONT_SIZE_MAX, description="Points."),
    BeforeValidator(_whole_number),
    says(f"Must be an integer from {FONT_SIZE_MIN} to {FONT_SIZE_MAX}."),
]
TextColor = Annotated[
    str,
    Field(pattern=COLOR_PATTERN, description="6-digit hex colour, `#` optional."),
    AfterValidator(_normal_color),
    says(COLOR_MESSAGE),
]
FontFamily = Annotated[
    str,
    Field(
        description="Exact, case-sensitive: `Courier`, `Helvetica`, `Times New Roman`, "
        "`Noto Sans` or any Google Fonts family. An unknown name is a 400 on its property.",
        json_schema_extra={"minLength": 1, "pattern": r"\S"},
    ),
    AfterValidator(with_context(_font_family, FONT_CHECK)),
]
Cell = Annotated[str, PlainValidator(_cell_text, json_schema_input_type=str | float | None)]
Row = Annotated[list[Cell], says("Must be an array of strings.")]
ColumnWidth = Annotated[
    str,
    PlainValidator(_column_width),
    WithJsonSchema(
        {
            "description": 'Pixels (`120` or `"120px"`) or a percentage of the table (`"25%"`).',
            "oneOf": [
                {"type": "number", "exclusiveMinimum": 0},
                {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*(px|%)?\s*$"},
            ],
        }
    ),
]
LogoSide = Annotated[
    float,
    Field(gt=0, le=LOGO_MAX_SIDE, allow_inf_nan=False, description="CSS pixels."),
    says(f"Must be a number greater than 0 and at most {LOGO_MAX_SIDE}."),
]


# --- the objects ----------------------------------------------------------------------------


class PageSettings(WireModel):
    """Page size, margins and page counter. In HTML mode these are defaults: `@page` rules of
    the document win."""

    width: PageSide | None = Field(
        None, description="At most 200in.", json_schema_extra={"default": _PAGE.width.css()}
    )
    height: PageSide | None = Field(
        None, description="At most 200in.", json_schema_extra={"default": _PAGE.height.css()}
    )
    margin: Margins | None = Field(
        None,
        description="CSS shorthand: 1 to 4 lengths (top, right, bottom, left).",
        json_schema_extra={"default": _PAGE.margin_top.css()},
    )
    margin_top: PageLength | None = None
    margin_right: PageLength | None = None
    margin_bottom: PageLength | None = None
    margin_left: PageLength | None = None
    page_count: Annotated[PageCountBox, says(one_of(list(PAGE_COUNT_BOXES)))] | None = Field(
        None, description='"Page N of M" in that margin box.'
    )


class GenerateHtmlData(WireModel):
    html: str = Field(description="The document: a fragment or a page.")
    css: str | None = Field(
        None, description="A stylesheet applied after the document's own styles."
    )


class ColumnOption(WireModel):
    align: Annotated[Align, says(one_of(get_args(Align)))] | None = None
    width: ColumnWidth | None = None


class MarkdownTable(WireModel):
    rows: Annotated[list[Row], says("Must be an array of rows, each an array of strings.")] = Field(
        description="Rows of plain-text cells (numbers as written, `null` empty, `\\n` "
        "breaks a line)."
    )
    # Checked before the flags, as the wire has always listed them.
    vertical_align: Annotated[VerticalAlign, says(one_of(get_args(VerticalAlign)))] = "top"
    first_row_headers: bool = Field(
        True, description="The first row is a bold header, repeated on every page."
    )
    row_gridlines: bool = False
    column_gridlines: bool = False
    column_options: Annotated[list[ColumnOption | None], says("Must be an array of objects.")] | (
        None
    ) = Field(None, description="One entry per column from the left; `{}` or `null`: no change.")


class MarkdownBlock(WireModel):
    """Drawn in this order: label, heading, content, table."""

    label: str | None = Field(None, description="Bold text.")
    heading: str | None = Field(None, description="Larger (1.5 times) bold text.")
    content: str | None = Field(
        None,
        description="CommonMark 0.31.2 with GitHub's tables and ~~strikethrough~~ (a list nests "
        "under an item indented to its text: two spaces under `- `). Raw HTML is escaped; links "
        "keep only http(s), mailto and #fragment targets.",
    )
    table: MarkdownTable | None = None
    font_family: FontFamily | None = None
    font_size: FontSize | None = None
    text_color: TextColor | None = None


class Logo(WireModel):
    src: Annotated[
        str, AfterValidator(_logo_src), says("Must be an http(s) URL or a data: URI.")
    ] = Field(description="An http(s) URL or a `data:` URI.")
    # The schema's default as written (200, not 200.0).
    max_width: LogoSide = Field(
        float(LOGO_DEFAULT_SIDE), json_schema_extra={"default": LOGO_DEFAULT_SIDE}
    )
    max_height: LogoSide = Field(
        float(LOGO_DEFAULT_SIDE), json_schema_extra={"default": LOGO_DEFAULT_SIDE}
    )


def _logo(value: object, handler: ValidatorFunctionWrapHandler) -> Logo | Literal[False]:
    # Checked as a Logo (not as the union, whose problems would name its branches).
    if value is False:
        return False
    if not isinstance(value, Mapping):
        raise refusal("Must be an object with src, or false.")
    return Logo.model_validate(value)


class GenerateOptions(WireModel):
    """What both modes read: checked first, then the mode's own properties."""

    type: Annotated[Mode, says('Must be "html" or "markdown".')] = Field(
        "markdown", description="What `data` is: `html` (`{html, css}`) or `markdown` (blocks)."
    )
    title: str | None = Field(
        None, description="The PDF's title (HTML mode: else the document's `<title>`)."
    )
    field_tags: bool = Field(
        False,
        description="Extension: text tags in the document (`{{Name;type=date}}`, "
        "`{{signature, r1}}`: docs/text-tags.md) become the PDF's form fields at their place, "
        "their text removed. A tag that does not read is a 400 on `data` naming it and its page.",
    )
    page: PageSettings | None = Field(None, description="Page size, margins and the page counter.")


class MarkdownOptions(WireModel):
    """Markdown mode's own properties (HTML mode ignores them)."""

    font_family: FontFamily | None = Field(None, json_schema_extra={"default": DEFAULT_FONT_FAMILY})
    font_size: FontSize | None = Field(
        None,
        description="Markdown only; points.",
        json_schema_extra={"default": DEFAULT_FONT_SIZE_PT},
    )
    text_color: TextColor | None = Field(None, json_schema_extra={"default": DEFAULT_TEXT_COLOR})
    include_timestamp: bool = Field(
        True, description='Markdown only: "Generated YYYY-MM-DD HH:MM UTC" after the content.'
    )
    # None: the service's logo (not given); False: none.
    logo: Annotated[Logo | Literal[False], WrapValidator(_logo)] | None = Field(
        None,
        description="Markdown only. Default: the service's logo, top right of the first page; "
        "`false` removes it.",
    )


MarkdownData = Annotated[
    list[MarkdownBlock], says("In Markdown mode, data must be an array of objects.")
]
HtmlData = Annotated[
    GenerateHtmlData,
    says('In HTML mode, data must be an object with "html" and "css" strings.'),
]


class GenerateRequest(MarkdownOptions, GenerateOptions):
    """HTML and CSS (`type: html`), or an array of Markdown blocks (the default). Unknown
    properties are ignored; `null` means not given. In HTML mode the Markdown-only properties
    are ignored."""

    # Documented whole; parse_request checks it by mode (HtmlData or MarkdownData), after the
    # options, and an encrypted string is decrypted by the service before that.
    data: (
        GenerateHtmlData | list[MarkdownBlock] | Annotated[str, component_ref("EncryptedData")]
    ) = Field(
        description="HTML mode: `{html, css}`; Markdown mode: an array of blocks; or a string "
        "encrypted with the organization's payload key."
    )
