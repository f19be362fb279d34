"""Markdown mode: the request's array of elements written out as one HTML document.

Everything the caller sends is text, never markup: labels, headings and table cells are
HTML-escaped, and Markdown is converted with raw HTML switched off, so ``<script>`` or
``<img src="file:///etc/passwd">`` in a payload shows up as those characters on the page. Links
keep only http(s), mailto and in-page targets; images keep only http(s) and data: sources (and
are then fetched through the safe fetcher like any other resource, or skipped).
"""

from __future__ import annotations

import datetime
import html
import xml.etree.ElementTree as ET
from collections.abc import Callable

import markdown
from markdown.treeprocessors import Treeprocessor
from markdown.util import AMP_SUBSTITUTE

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
    converter = _markdown_converter()
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(request.title or '')}</title>",
        f"<style>\n{faces}{page_css(request.page)}{root_css}{BASE_CSS}</style>",
        "</head><body>\n",
        _logo_html(request.logo, default_logo_url),
    ]
    parts.extend(_element_html(element, converter) for element in request.elements)
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


def _element_html(element: MarkdownElement, converter: markdown.Markdown) -> str:
    parts = [f'<div class="docgen-el"{_style_attribute(element.style)}>']
    if element.label is not None:
        parts.append(f'<div class="docgen-label">{_text(element.label)}</div>')
    if element.heading is not None:
        parts.append(f'<div class="docgen-heading">{_text(element.heading)}</div>')
    if element.content is not None:
        converter.reset()
        parts.append(f'<div class="docgen-content">{converter.convert(element.content)}</div>')
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


class _SafeUrls(Treeprocessor):
    """Keep only link and image URLs that are safe and can work in a PDF."""

    def run(self, root: ET.Element) -> None:
        for parent in list(root.iter()):
            for child in list(parent):
                if child.tag == "a":
                    # Automatic mail links arrive entity-encoded (against spam): decode to judge.
                    raw = (child.get("href") or "").replace(AMP_SUBSTITUTE, "&")
                    href = html.unescape(raw).strip()
                    if not (href.lower().startswith(_LINK_SCHEMES) or href.startswith("#")):
                        child.attrib.pop("href", None)
                elif child.tag == "img":
                    src = (child.get("src") or "").strip()
                    if not src.lower().startswith(_IMAGE_SCHEMES):
                        _replace_with_text(parent, child, child.get("alt") or "")


def _replace_with_text(parent: ET.Element, child: ET.Element, text: str) -> None:
    """Remove ``child`` from ``parent``, leaving ``text`` (and the child's tail) in its place."""
    index = list(parent).index(child)
    addition = text + (child.tail or "")
    if index == 0:
        parent.text = (parent.text or "") + addition
    else:
        previous = parent[index - 1]
        previous.tail = (previous.tail or "") + addition
    parent.remove(child)


def _markdown_converter() -> markdown.Markdown:
    """A Markdown converter for untrusted text: no raw HTML, only safe URLs.

    Raw HTML blocks and inline tags are not recognised at all, so their characters are escaped
    like any other text when the tree is serialised.
    """
    converter = markdown.Markdown(
        extensions=["tables", "sane_lists", "fenced_code"], output_format="html"
    )
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    converter.treeprocessors.register(_SafeUrls(converter), "docgen_safe_urls", 15)
    return converter


def markdown_to_html(text: str) -> str:
    """Convert one Markdown text with the same rules as the document builder (for tests/tools)."""
    return _markdown_converter().convert(text)
