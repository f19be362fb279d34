"""CSS the service writes itself: page size and margins, the page counter, the default fonts.

Every value placed in this CSS was parsed first (lengths, colours, known font names) and is
re-serialised here, and strings are written as escaped CSS strings.
"""

from __future__ import annotations

from generate.engine.request import PageSettings

# The spec's default stack: Noto Sans, then Noto CJK for Chinese, Japanese and Korean, then
# whatever sans-serif fontconfig has (Pango falls back per character beyond that).
DEFAULT_FONT_STACK = '"Noto Sans", "Noto Sans CJK SC", sans-serif'


def css_string(value: str) -> str:
    """A double-quoted CSS string; safe for any text (quotes, backslashes, newlines)."""
    escaped = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ").replace("\r", "")
    )
    escaped = escaped.replace("<", "\\3c ")  # never "</style>" inside a style element
    return f'"{escaped}"'


# The PDF standard names have no files of their own: fontconfig maps them to the metric-compatible
# Liberation fonts, but only when nothing else in the stack matches better, and Noto Sans (next in
# every stack) does. So the Liberation family is named right after the standard one.
METRIC_COMPATIBLE = {
    "Courier": "Liberation Mono",
    "Helvetica": "Liberation Sans",
    "Times New Roman": "Liberation Serif",
}


def font_stack(family: str | None) -> str:
    """A family first, then the default stack as fallback for the glyphs it lacks."""
    if family is None or family == "Noto Sans":
        return DEFAULT_FONT_STACK
    names = [css_string(family)]
    if family in METRIC_COMPATIBLE:
        names.append(css_string(METRIC_COMPATIBLE[family]))
    return ", ".join([*names, DEFAULT_FONT_STACK])


def page_css(page: PageSettings) -> str:
    """The @page rule for the request's page settings, with the page counter if asked for."""
    margins = " ".join(
        length.css()
        for length in (page.margin_top, page.margin_right, page.margin_bottom, page.margin_left)
    )
    counter = ""
    if page.page_count_box is not None:
        align = _COUNTER_ALIGN[page.page_count_box]
        counter = (
            f"  @{page.page_count_box} {{\n"
            '    content: "Page " counter(page) " of " counter(pages);\n'
            f"    font-family: {DEFAULT_FONT_STACK}; font-size: 9pt; color: #555;\n"
            f"    text-align: {align};\n"
            "  }\n"
        )
    return (
        "@page {\n"
        f"  size: {page.width.css()} {page.height.css()};\n"
        f"  margin: {margins};\n"
        f"{counter}"
        "}\n"
    )


_COUNTER_ALIGN = {
    "top-left": "left",
    "top-center": "center",
    "top-right": "right",
    "bottom-left": "left",
    "bottom-center": "center",
    "bottom-right": "right",
}
