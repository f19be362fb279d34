"""The generate request body, checked and turned into a `GenerateRequest`.

`parse_generate_request` takes the decoded JSON body (``data`` already decrypted by the caller)
and either returns a `GenerateRequest` or raises `GenerateInvalid` listing every problem with
its dotted path (``data.3.fontSize``, ``page.marginTop``). Unknown keys are ignored, as the
published clients may send properties this service does not know; ``null`` means "not given".
In HTML mode the Markdown-only properties are ignored entirely, as the spec says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from core.engine.colors import COLOR_MESSAGE, parse_color
from core.engine.problems import Problem
from core.engine.style import FontCheck
from generate.engine.errors import GenerateInvalid, SourceTooLarge
from generate.engine.lengths import Length, LengthError, parse_length, parse_margin_shorthand
from generate.engine.request import (
    FONT_SIZE_MAX,
    FONT_SIZE_MIN,
    LOGO_DEFAULT_SIDE,
    LOGO_MAX_SIDE,
    PAGE_COUNT_BOXES,
    ColumnOption,
    GenerateRequest,
    Logo,
    MarkdownElement,
    MarkdownTable,
    Mode,
    PageSettings,
    TextStyle,
)

# The caller sees at most this many problems: a table of 10,000 bad cells is one mistake.
MAX_PROBLEMS = 50
_ALIGNS = ("left", "center", "right")
_VERTICAL_ALIGNS = ("top", "center", "bottom")
_COLUMN_WIDTH_RE = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*(px|%)?", re.IGNORECASE)
_LOGO_SCHEMES = ("http://", "https://", "data:")


@dataclass
class _Checker:
    """Collects problems while walking the body, so the caller hears about all of them."""

    font_check: FontCheck
    problems: list[Problem] = field(default_factory=list)

    def add(self, path: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(path, message))

    def string(self, value: object, path: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            self.add(path, "Must be a string.")
            return None
        return value

    def boolean(self, value: object, path: str, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(path, "Must be true or false.")
            return default
        return value

    def choice(self, value: object, path: str, choices: tuple[str, ...]) -> str | None:
        if value is None:
            return None
        if value not in choices:
            self.add(path, "Must be one of: " + ", ".join(f'"{c}"' for c in choices) + ".")
            return None
        return str(value)

    def font_family(self, value: object, path: str) -> str | None:
        name = self.string(value, path)
        if name is None:
            return None
        message = self.font_check(name)
        if message is not None:
            self.add(path, message)
            return None
        return name

    def font_size(self, value: object, path: str) -> int | None:
        if value is None:
            return None
        number = _integer(value)
        if number is None or not FONT_SIZE_MIN <= number <= FONT_SIZE_MAX:
            self.add(path, f"Must be an integer from {FONT_SIZE_MIN} to {FONT_SIZE_MAX}.")
            return None
        return number

    def color(self, value: object, path: str) -> str | None:
        if value is None:
            return None
        color = parse_color(value)
        if color is None:
            self.add(path, COLOR_MESSAGE)
        return color

    def style(self, source: Mapping[str, object], prefix: str) -> TextStyle:
        return TextStyle(
            font_family=self.font_family(source.get("fontFamily"), prefix + "fontFamily"),
            font_size=self.font_size(source.get("fontSize"), prefix + "fontSize"),
            text_color=self.color(source.get("textColor"), prefix + "textColor"),
        )


def parse_generate_request(
    body: Mapping[str, object], *, font_check: FontCheck, max_source_bytes: int
) -> GenerateRequest:
    """Check the whole body; raise GenerateInvalid with every problem, or SourceTooLarge."""
    checker = _Checker(font_check=font_check)
    mode = _mode(body.get("type"), checker)
    title = checker.string(body.get("title"), "title")
    field_tags = checker.boolean(body.get("fieldTags"), "fieldTags", False)
    page = _page(body.get("page"), checker)
    data = body.get("data")
    if data is None or data == "":
        checker.add("data", "Required")
        raise GenerateInvalid(checker.problems)
    if mode is None:
        raise GenerateInvalid(checker.problems)

    if mode == "html":
        html, css = _html_data(data, checker)
        if checker.problems:
            raise GenerateInvalid(checker.problems)
        _check_size(_size(html, css, title), max_source_bytes)
        return GenerateRequest(
            mode="html", title=title, field_tags=field_tags, page=page, html=html, css=css
        )

    style = checker.style(body, "")
    include_timestamp = checker.boolean(body.get("includeTimestamp"), "includeTimestamp", True)
    logo = _logo(body.get("logo"), checker)
    elements = _markdown_data(data, checker)
    if checker.problems:
        raise GenerateInvalid(checker.problems)
    logo_src = logo.src if isinstance(logo, Logo) else None
    _check_size(sum(_element_size(e) for e in elements) + _size(title, logo_src), max_source_bytes)
    return GenerateRequest(
        mode="markdown",
        title=title,
        field_tags=field_tags,
        page=page,
        elements=elements,
        style=style,
        include_timestamp=include_timestamp,
        logo=logo,
    )


def _mode(value: object, checker: _Checker) -> Mode | None:
    if value is None:
        return "markdown"
    if value == "html":
        return "html"
    if value == "markdown":
        return "markdown"
    checker.add("type", 'Must be "html" or "markdown".')
    return None


def _page(value: object, checker: _Checker) -> PageSettings:
    if value is None:
        return PageSettings()
    if not isinstance(value, Mapping):
        checker.add("page", "Must be an object.")
        return PageSettings()
    defaults = PageSettings()
    sizes: dict[str, Length] = {}
    for key, default in (("width", defaults.width), ("height", defaults.height)):
        length = _length(value.get(key), f"page.{key}", checker)
        if length is not None and length.value == 0:
            checker.add(f"page.{key}", "Must be greater than zero.")
            length = None
        sizes[key] = length or default

    margins = [
        defaults.margin_top,
        defaults.margin_right,
        defaults.margin_bottom,
        defaults.margin_left,
    ]
    if value.get("margin") is not None:
        try:
            margins = list(parse_margin_shorthand(value["margin"]))
        except LengthError as exc:
            checker.add("page.margin", str(exc))
    # The side overrides win over the shorthand, whatever the order of the keys.
    for index, key in enumerate(("marginTop", "marginRight", "marginBottom", "marginLeft")):
        length = _length(value.get(key), f"page.{key}", checker)
        if length is not None:
            margins[index] = length

    width, height = sizes["width"], sizes["height"]
    for name, length in (("width", width), ("height", height)):
        if length.inches > 200:
            checker.add(f"page.{name}", "Must be at most 200in (the largest PDF page).")
    if margins[1].inches + margins[3].inches >= width.inches:
        checker.add("page.margin", "The left and right margins leave no room on the page.")
    if margins[0].inches + margins[2].inches >= height.inches:
        checker.add("page.margin", "The top and bottom margins leave no room on the page.")

    page_count = value.get("pageCount")
    box = None
    if page_count is not None:
        if isinstance(page_count, str) and page_count in PAGE_COUNT_BOXES:
            box = PAGE_COUNT_BOXES[page_count]
        else:
            names = ", ".join(f'"{name}"' for name in PAGE_COUNT_BOXES)
            checker.add("page.pageCount", f"Must be one of: {names}.")
    return PageSettings(
        width=width,
        height=height,
        margin_top=margins[0],
        margin_right=margins[1],
        margin_bottom=margins[2],
        margin_left=margins[3],
        page_count_box=box,
    )


def _length(value: object, path: str, checker: _Checker) -> Length | None:
    if value is None:
        return None
    try:
        return parse_length(value)
    except LengthError as exc:
        checker.add(path, str(exc))
        return None


def _html_data(data: object, checker: _Checker) -> tuple[str, str]:
    if not isinstance(data, Mapping):
        checker.add("data", 'In HTML mode, data must be an object with "html" and "css" strings.')
        return "", ""
    html = data.get("html")
    if html is None:
        checker.add("data.html", "Required")
        html = ""
    elif not isinstance(html, str):
        checker.add("data.html", "Must be a string.")
        html = ""
    css = checker.string(data.get("css"), "data.css") or ""
    return html, css


def _markdown_data(data: object, checker: _Checker) -> tuple[MarkdownElement, ...]:
    if not isinstance(data, list):
        checker.add("data", "In Markdown mode, data must be an array of objects.")
        return ()
    elements = []
    for index, item in enumerate(data):
        path = f"data.{index}"
        if not isinstance(item, Mapping):
            checker.add(path, "Must be an object.")
            continue
        elements.append(
            MarkdownElement(
                label=checker.string(item.get("label"), f"{path}.label"),
                heading=checker.string(item.get("heading"), f"{path}.heading"),
                content=checker.string(item.get("content"), f"{path}.content"),
                table=_table(item.get("table"), f"{path}.table", checker),
                style=checker.style(item, f"{path}."),
            )
        )
    return tuple(elements)


def _table(value: object, path: str, checker: _Checker) -> MarkdownTable | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        checker.add(path, "Must be an object.")
        return None
    rows = _rows(value.get("rows"), f"{path}.rows", checker)
    vertical = checker.choice(value.get("verticalAlign"), f"{path}.verticalAlign", _VERTICAL_ALIGNS)
    return MarkdownTable(
        rows=rows,
        first_row_headers=checker.boolean(
            value.get("firstRowHeaders"), f"{path}.firstRowHeaders", True
        ),
        row_gridlines=checker.boolean(value.get("rowGridlines"), f"{path}.rowGridlines", False),
        column_gridlines=checker.boolean(
            value.get("columnGridlines"), f"{path}.columnGridlines", False
        ),
        vertical_align=vertical or "top",  # type: ignore[arg-type]
        column_options=_column_options(
            value.get("columnOptions"), f"{path}.columnOptions", checker
        ),
    )


def _rows(value: object, path: str, checker: _Checker) -> tuple[tuple[str, ...], ...]:
    if value is None:
        checker.add(path, "Required")
        return ()
    if not isinstance(value, list):
        checker.add(path, "Must be an array of rows, each an array of strings.")
        return ()
    rows = []
    for row_index, row in enumerate(value):
        if not isinstance(row, list):
            checker.add(f"{path}.{row_index}", "Must be an array of strings.")
            continue
        cells = []
        for cell_index, cell in enumerate(row):
            text = _cell_text(cell)
            if text is None:
                checker.add(f"{path}.{row_index}.{cell_index}", "Must be a string.")
                text = ""
            cells.append(text)
        rows.append(tuple(cells))
    return tuple(rows)


def _cell_text(cell: object) -> str | None:
    """Strings as they are; numbers as written; null as an empty cell."""
    if cell is None:
        return ""
    if isinstance(cell, str):
        return cell
    if isinstance(cell, int | float) and not isinstance(cell, bool) and math.isfinite(cell):
        return str(cell)
    return None


def _column_options(value: object, path: str, checker: _Checker) -> tuple[ColumnOption, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        checker.add(path, "Must be an array of objects.")
        return ()
    options = []
    for index, item in enumerate(value):
        item_path = f"{path}.{index}"
        if item is None:
            options.append(ColumnOption())
            continue
        if not isinstance(item, Mapping):
            checker.add(item_path, "Must be an object.")
            options.append(ColumnOption())
            continue
        align = checker.choice(item.get("align"), f"{item_path}.align", _ALIGNS)
        options.append(
            ColumnOption(
                align=align,  # type: ignore[arg-type]
                width=_column_width(item.get("width"), f"{item_path}.width", checker),
            )
        )
    return tuple(options)


def _column_width(value: object, path: str, checker: _Checker) -> str | None:
    """Pixels (a number, "120" or "120px") or a percentage of the table width ("25%")."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if math.isfinite(value) and value > 0:
            return f"{_number(value)}px"
    elif isinstance(value, str):
        match = _COLUMN_WIDTH_RE.fullmatch(value.strip())
        if match is not None and float(match.group(1)) > 0:
            unit = (match.group(2) or "px").lower()
            if unit == "px" or float(match.group(1)) <= 100:
                return f"{_number(float(match.group(1)))}{unit}"
    checker.add(path, 'Must be a width in pixels (120 or "120px") or a percentage ("25%").')
    return None


def _logo(value: object, checker: _Checker) -> Logo | Literal["default"] | None:
    if value is None:
        return "default"
    if value is False:
        return None
    if not isinstance(value, Mapping):
        checker.add("logo", "Must be an object with src, or false.")
        return "default"
    src = value.get("src")
    if src is None:
        checker.add("logo.src", "Required")
    elif not isinstance(src, str) or not src.strip().lower().startswith(_LOGO_SCHEMES):
        checker.add("logo.src", "Must be an http(s) URL or a data: URI.")
        src = None
    sides = []
    for key in ("maxWidth", "maxHeight"):
        side = value.get(key)
        if side is None:
            sides.append(float(LOGO_DEFAULT_SIDE))
            continue
        if (
            not isinstance(side, int | float)
            or isinstance(side, bool)
            or not math.isfinite(side)
            or not 0 < side <= LOGO_MAX_SIDE
        ):
            checker.add(
                f"logo.{key}", f"Must be a number greater than 0 and at most {LOGO_MAX_SIDE}."
            )
            side = LOGO_DEFAULT_SIDE
        sides.append(float(side))
    if src is None:
        return "default"
    return Logo(src=src.strip(), max_width=sides[0], max_height=sides[1])


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _number(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _size(*texts: str | None) -> int:
    return sum(len(text.encode()) for text in texts if text)


def _element_size(element: MarkdownElement) -> int:
    size = _size(element.label, element.heading, element.content)
    if element.table is not None:
        size += sum(len(cell.encode()) for row in element.table.rows for cell in row)
    return size


def _check_size(size: int, limit: int) -> None:
    if size > limit:
        raise SourceTooLarge(size, limit)
