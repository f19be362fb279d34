"""Markdown mode: the request's array of elements written out as one HTML document.

Everything the caller sends is text, never markup: labels, headings and table cells are
HTML-escaped, and Markdown is converted with raw HTML switched off, so ``<script>`` or
``<img src="file:///etc/passwd">`` in a payload shows up as those characters on the page. Links
keep only http(s), mailto and in-page targets; images keep only http(s) and data: sources (and
are then fetched through the safe fetcher like any other resource, or skipped).

Markdown is CommonMark (markdown-it-py) with GitHub's tables and strikethrough: people write
nested lists indented by two spaces, as CommonMark and GitHub read them.
"""

from __future__ import annotations

import datetime
import html
from collections.abc import Callable, Sequence
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from generate.engine.request import (
    ColumnOption,
    GenerateRequest,
    Logo,
    MarkdownElement,
    MarkdownTable,
    TextStyle,
)
from generate.engine.styles import font_stack, page_css

# family -> @font-face rules for it ("" when fontconfig already has it).
FontCss = Callable[[str], str]

DEFAULT_FONT_SIZE_PT = 12
DEFAULT_TEXT_COLOR = "#171717"
_LINK_SCHEMES = ("http://", "https://", "mailto:")
_IMAGE_SCHEMES = ("http://", "https://", "data:")
_ALIGN_CLASSES = {"center": "al-c", "right": "al-r"}

BASE_CSS = """
html { line-height: 1.4; }
body { margin: 0; }
.docgen-logo { float: right; margin: 0 0 12px 16px; }
.docgen-logo-default { width: 164px; height: 40px; }
.docgen-el { margin: 0 0 0.9em; }
.docgen-label { font-weight: bold; margin: 0 0 0.2em; }
.docgen-heading { font-size: 1.5em; font-weight: bold; line-height: 1.25; margin: 0.3em 0 0.3em; }
.docgen-content h1 { font-size: 1.8em; margin: 0.6em 0 0.3em; line-height: 1.2; }
.docgen-content h2 { font-size: 1.5em; margin: 0.6em 0 0.3em; line-height: 1.2; }
.docgen-content h3 { font-size: 1.25em; margin: 0.5em 0 0.25em; }
.docgen-content h4, .docgen-content h5, .docgen-content h6 {
  font-size: 1em; margin: 0.5em 0 0.2em;
}
.docgen-content p { margin: 0 0 0.6em; }
.docgen-content ul, .docgen-content ol { margin: 0 0 0.6em; padding-left: 1.6em; }
.docgen-content blockquote {
  margin: 0.4em 0 0.6em; padding: 0.1em 0 0.1em 0.9em;
  border-left: 3px solid #c8c8d0; color: #4a4a55;
}
.docgen-content code, .docgen-content pre {
  font-family: "Liberation Mono", "Noto Sans Mono", monospace; font-size: 0.88em;
}
.docgen-content pre {
  background: #f4f4f6; padding: 0.5em 0.7em; white-space: pre-wrap; overflow-wrap: break-word;
}
.docgen-content table { border-collapse: collapse; margin: 0.4em 0 0.7em; }
.docgen-content th, .docgen-content td { border: 1px solid #c8c8d0; padding: 0.2em 0.45em; }
.docgen-content img { max-width: 100%; }
.docgen-content a, .docgen-table a { color: #1d4ed8; }
table.docgen-table { width: 100%; border-collapse: collapse; margin: 0.3em 0 0.7em; }
table.docgen-table th, table.docgen-table td {
  padding: 0.3em 0.5em; text-align: left; vertical-align: top; overflow-wrap: break-word;
}
table.docgen-table th { font-weight: bold; }
table.docgen-table.rows tr > * { border-top: 1px solid #8e8e99; border-bottom: 1px solid #8e8e99; }
table.docgen-table.cols tr > * + * { border-left: 1px solid #8e8e99; }
table.docgen-table .al-c { text-align: center; }
table.docgen-table .al-r { text-align: right; }
table.docgen-table.va-center td, table.docgen-table.va-center th { vertical-align: middle; }
table.docgen-table.va-bottom td, table.docgen-table.va-bottom th { vertical-align: bottom; }
.docgen-timestamp { clear: both; margin: 1.5em 0 0; font-size: 8pt; color: #6b6b76; }
"""


def build_markdown_html(
    request: GenerateRequest,
    *,
    now: datetime.datetime,
    font_css: FontCss,
    default_logo_url: str,
) -> str:
    """The whole HTML document for a Markdown-mode request (styles included)."""
    faces = "".join(font_css(family) for family in request.font_families)
    root = request.style
    root_css = (
        f"html {{ font-family: {font_stack(root.font_family)};"
        f" font-size: {root.font_size or DEFAULT_FONT_SIZE_PT}pt;"
        f" color: {root.text_color or DEFAULT_TEXT_COLOR}; }}\n"
    )
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(request.title or '')}</title>",
        f"<style>\n{faces}{page_css(request.page)}{root_css}{BASE_CSS}</style>",
        "</head><body>\n",
        _logo_html(request.logo, default_logo_url),
    ]
    parts.extend(_element_html(element) for element in request.elements)
    if request.include_timestamp:
        stamp = now.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M")
        parts.append(f'<p class="docgen-timestamp">Generated {stamp} UTC</p>\n')
    parts.append("</body></html>\n")
    return "".join(parts)


def _logo_html(logo: Logo | str | None, default_logo_url: str) -> str:
    if logo is None:
        return ""
    if isinstance(logo, Logo):
        return (
            f'<img class="docgen-logo" alt="" src="{html.escape(logo.src, quote=True)}"'
            f' style="max-width: {logo.max_width:g}px; max-height: {logo.max_height:g}px">\n'
        )
    return (
        '<img class="docgen-logo docgen-logo-default" alt=""'
        f' src="{html.escape(default_logo_url, quote=True)}">\n'
    )


def _element_html(element: MarkdownElement) -> str:
    parts = [f'<div class="docgen-el"{_style_attribute(element.style)}>']
    if element.label is not None:
        parts.append(f'<div class="docgen-label">{_text(element.label)}</div>')
    if element.heading is not None:
        parts.append(f'<div class="docgen-heading">{_text(element.heading)}</div>')
    if element.content is not None:
        parts.append(f'<div class="docgen-content">{markdown_to_html(element.content)}</div>')
    if element.table is not None:
        parts.append(_table_html(element.table))
    parts.append("</div>\n")
    return "".join(parts)


def _style_attribute(style: TextStyle) -> str:
    declarations = []
    if style.font_family is not None:
        declarations.append(f"font-family: {font_stack(style.font_family)}")
    if style.font_size is not None:
        declarations.append(f"font-size: {style.font_size}pt")
    if style.text_color is not None:
        declarations.append(f"color: {style.text_color}")
    if not declarations:
        return ""
    return f' style="{html.escape("; ".join(declarations), quote=True)}"'


def _text(value: str) -> str:
    """Plain text as HTML: escaped, line breaks kept."""
    return html.escape(value).replace("\r\n", "\n").replace("\n", "<br>")


def _table_html(table: MarkdownTable) -> str:
    if not table.rows:
        return ""
    classes = ["docgen-table", f"va-{table.vertical_align}"]
    if table.row_gridlines:
        classes.append("rows")
    if table.column_gridlines:
        classes.append("cols")
    width = max(len(row) for row in table.rows)
    options = list(table.column_options[:width])
    options += [ColumnOption()] * (width - len(options))
    cell_classes = [
        f' class="{_ALIGN_CLASSES[o.align]}"' if o.align in _ALIGN_CLASSES else "" for o in options
    ]
    parts = [f'<table class="{" ".join(classes)}">']
    if any(o.width for o in options):
        parts.append("<colgroup>")
        parts.extend(f'<col style="width: {o.width}">' if o.width else "<col>" for o in options)
        parts.append("</colgroup>")
    rows = list(table.rows)
    if table.first_row_headers:
        header = rows.pop(0)
        parts.append("<thead><tr>")
        parts.extend(
            f"<th{cell_classes[index]}>{_text(cell)}</th>" for index, cell in enumerate(header)
        )
        parts.append("</tr></thead>")
    parts.append("<tbody>")
    for row in rows:
        parts.append("<tr>")
        parts.extend(
            f"<td{cell_classes[index]}>{_text(cell)}</td>" for index, cell in enumerate(row)
        )
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


class _CommonMark(MarkdownIt):
    """CommonMark with GitHub's tables and strikethrough, for untrusted text.

    Raw HTML is off (``html=False``): HTML blocks and inline tags are not recognised, so their
    characters are escaped like any other text. Every link and image destination is accepted
    while parsing and judged afterwards by ``_keep_safe_urls``: markdown-it's own check would leave
    a refused link's Markdown source on the page and refuse data: SVG images.
    """

    def __init__(self) -> None:
        super().__init__("commonmark", {"html": False, "xhtmlOut": False})
        self.enable(["table", "strikethrough"])
        self.core.ruler.push("docgen_safe_urls", _keep_safe_urls)

    def validateLink(self, url: str) -> bool:  # every URL: judged after parsing
        return True


def _keep_safe_urls(state: StateCore) -> None:
    """Keep only link and image URLs that are safe and can work in a PDF.

    A refused link keeps its text and loses its target; a refused image leaves its alt text.
    """
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        kept: list[Token] = []
        for token in block.children:
            if token.type == "link_open":
                href = str(token.attrs.get("href", "")).strip().lower()
                if not (href.startswith(_LINK_SCHEMES) or href.startswith("#")):
                    token.attrs.pop("href", None)
            elif token.type == "image":
                src = str(token.attrs.get("src", "")).strip().lower()
                if not src.startswith(_IMAGE_SCHEMES):
                    token = Token("text", "", 0, content=_plain_text(token.children or []))
            kept.append(token)
        block.children = kept


def _plain_text(tokens: Sequence[Token]) -> str:
    """The text of inline tokens without their markup (an image's alt text)."""
    parts = []
    for token in tokens:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif token.children:
            parts.append(_plain_text(token.children))
    return "".join(parts)


@cache
def _parser() -> _CommonMark:
    # One parser for the process: rendering keeps its state per call, so it is safe to share.
    return _CommonMark()


def markdown_to_html(text: str) -> str:
    """Convert one Markdown text (an element's ``content``) to HTML."""
    return _parser().render(text)
