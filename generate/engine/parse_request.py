"""The generate request body, checked and turned into a `GenerateRequest`.

`parse_generate_request` takes the decoded JSON body (``data`` already decrypted by the caller)
and either returns a `GenerateRequest` or raises `GenerateInvalid` listing every problem with
its dotted path (``data.3.fontSize``, ``page.marginTop``). What each property takes is declared
once in `generate.engine.request_model` (from which the OpenAPI document is derived too); here
the checks run in the order the wire has always reported them, and what spans properties is
checked: margins that leave room on the page, and the size of the whole source. Unknown keys
are ignored, as the published clients may send properties this service does not know; ``null``
means "not given". In HTML mode the Markdown-only properties are ignored entirely, as the spec
says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NoReturn

from pydantic import TypeAdapter

from core.engine.problems import Problem
from core.engine.style import FontCheck
from core.engine.wire_models import validate, validate_as
from generate.engine import request_model as wire
from generate.engine.errors import GenerateInvalid, SourceTooLarge
from generate.engine.request import (
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
# The largest page a PDF can have, in inches.
_MAX_PAGE_INCHES = 200
_HTML_DATA: TypeAdapter[wire.GenerateHtmlData] = TypeAdapter(wire.HtmlData)
_MARKDOWN_DATA: TypeAdapter[list[wire.MarkdownBlock]] = TypeAdapter(wire.MarkdownData)


def parse_generate_request(
    body: Mapping[str, object], *, font_check: FontCheck, max_source_bytes: int
) -> GenerateRequest:
    """Check the whole body; raise GenerateInvalid with every problem, or SourceTooLarge."""
    context = {wire.FONT_CHECK: font_check}
    options, problems = validate(wire.GenerateOptions, body)
    page, page_problems = _page(body.get("page"))
    problems = [p for p in problems if not p.path.startswith("page")] + page_problems
    data = body.get("data")
    if data is None or data == "":
        _raise([*problems, Problem("data", "Required")])
    if any(p.path == "type" for p in problems):
        _raise(problems)
    mode: Mode = "html" if body.get("type") == "html" else "markdown"
    title = options.title if options else _title(body)
    field_tags = options.field_tags if options else False

    if mode == "html":
        html_data, data_problems = validate_as(_HTML_DATA, data, prefix="data")
        if problems or html_data is None:
            _raise(problems + data_problems)
        html, css = html_data.html, html_data.css or ""
        _check_size(_size(html, css, title), max_source_bytes)
        return GenerateRequest(
            mode="html", title=title, field_tags=field_tags, page=page, html=html, css=css
        )

    markdown, markdown_problems = validate(wire.MarkdownOptions, body, context=context)
    blocks, data_problems = validate_as(_MARKDOWN_DATA, data, prefix="data", context=context)
    problems += markdown_problems + data_problems
    if problems or markdown is None or blocks is None:
        _raise(problems)
    elements = tuple(_element(block) for block in blocks)
    logo = _logo(markdown.logo)
    logo_src = logo.src if isinstance(logo, Logo) else None
    _check_size(sum(_element_size(e) for e in elements) + _size(title, logo_src), max_source_bytes)
    return GenerateRequest(
        mode="markdown",
        title=title,
        field_tags=field_tags,
        page=page,
        elements=elements,
        style=TextStyle(markdown.font_family, markdown.font_size, markdown.text_color),
        include_timestamp=markdown.include_timestamp,
        logo=logo,
    )


def _raise(problems: list[Problem]) -> NoReturn:
    raise GenerateInvalid(problems[:MAX_PROBLEMS])


def _title(body: Mapping[str, object]) -> str | None:
    # Only read when another option has a problem: the request is refused anyway.
    title = body.get("title")
    return title if isinstance(title, str) else None


def _page(value: object) -> tuple[PageSettings, list[Problem]]:
    """The page, and its problems: a property's own first, then what the page's size leaves
    (each side that has a problem is taken at its default), then the page counter's."""
    if value is None:
        return PageSettings(), []
    page, problems = validate(wire.PageSettings, value, prefix="page")
    if page is None and isinstance(value, Mapping):
        # Measure the page with what did read, as if the rest were not given.
        failed = {p.path.split(".")[1] for p in problems if p.path.count(".") >= 1}
        page, _ = validate(wire.PageSettings, {k: v for k, v in value.items() if k not in failed})
    settings = _page_settings(page) if page is not None else PageSettings()
    counter = [p for p in problems if p.path == "page.pageCount"]
    problems = [p for p in problems if p.path != "page.pageCount"]
    return settings, problems + _page_room(settings) + counter


def _page_settings(page: wire.PageSettings) -> PageSettings:
    defaults = PageSettings()
    top, right, bottom, left = page.margin or (
        defaults.margin_top,
        defaults.margin_right,
        defaults.margin_bottom,
        defaults.margin_left,
    )
    # The side overrides win over the shorthand, whatever the order of the keys.
    return PageSettings(
        width=page.width or defaults.width,
        height=page.height or defaults.height,
        margin_top=page.margin_top or top,
        margin_right=page.margin_right or right,
        margin_bottom=page.margin_bottom or bottom,
        margin_left=page.margin_left or left,
        page_count_box=PAGE_COUNT_BOXES[page.page_count] if page.page_count else None,
    )


def _page_room(page: PageSettings) -> list[Problem]:
    problems = [
        Problem(f"page.{name}", "Must be at most 200in (the largest PDF page).")
        for name, length in (("width", page.width), ("height", page.height))
        if length.inches > _MAX_PAGE_INCHES
    ]
    if page.margin_right.inches + page.margin_left.inches >= page.width.inches:
        problems.append(
            Problem("page.margin", "The left and right margins leave no room on the page.")
        )
    if page.margin_top.inches + page.margin_bottom.inches >= page.height.inches:
        problems.append(
            Problem("page.margin", "The top and bottom margins leave no room on the page.")
        )
    return problems


def _element(block: wire.MarkdownBlock) -> MarkdownElement:
    table = block.table
    return MarkdownElement(
        label=block.label,
        heading=block.heading,
        content=block.content,
        table=None if table is None else _table(table),
        style=TextStyle(block.font_family, block.font_size, block.text_color),
    )


def _table(table: wire.MarkdownTable) -> MarkdownTable:
    return MarkdownTable(
        rows=tuple(tuple(row) for row in table.rows),
        first_row_headers=table.first_row_headers,
        row_gridlines=table.row_gridlines,
        column_gridlines=table.column_gridlines,
        vertical_align=table.vertical_align,
        column_options=tuple(
            ColumnOption() if option is None else ColumnOption(option.align, option.width)
            for option in table.column_options or ()
        ),
    )


def _logo(logo: wire.Logo | Literal[False] | None) -> Logo | Literal["default"] | None:
    if logo is None:
        return "default"
    if logo is False:
        return None
    return Logo(src=logo.src, max_width=logo.max_width, max_height=logo.max_height)


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
