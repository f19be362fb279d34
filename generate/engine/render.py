"""HTML (ours or the caller's) to PDF bytes with WeasyPrint, under the service's rules.

`render_pdf` runs inside a render worker process (see `generate.engine.pool`) but is an ordinary
function: tests and benchmarks can call it directly. What it adds to plain WeasyPrint:

- every URL goes through the injected fetcher (`generate.engine.resources`); relative ones reach
  it as written (the document has no address) and are refused, so they are skipped;
- the caller's stylesheet (HTML mode) is an author stylesheet placed after the document's own;
  the service's defaults (page size and margins, page counter, fonts) are a user stylesheet, so
  the caller's CSS, ``@page`` rules included, takes precedence over them;
- HTML mode: a margin box's ``content`` that combines ``element()`` with other values is dropped
  as the spec wants (`generate.engine.paged_css`), so an earlier ``content`` applies;
- HTML mode: fillable fields only for named controls of a valid type inside a ``form`` (buttons
  are drawn, never made fields: WeasyPrint 70 writes a broken field list for a submit button),
  and ``-fs-table-paginate: none`` (Flying Saucer's switch) stops header/footer repetition;
- a page cap checked during layout, before anything is written;
- the title in the PDF metadata, and a diagonal watermark drawn on every page if asked for.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import traceback
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import cssselect2
import pydyf
import tinycss2
import weasyprint
import weasyprint.layout
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from generate.engine.errors import PageLimitExceeded
from generate.engine.job import Fetcher, RenderedPdf, RenderJob
from generate.engine.paged_css import drop_combined_element_content
from generate.engine.resources import Resource

STATIC_ATTRIBUTE = "data-docgen-static"
NO_REPEAT_ATTRIBUTE = "data-docgen-no-repeat"
# Controls that stay drawn but are not made PDF fields, and table sections that do not repeat.
# User origin + !important outranks every rule of the document.
FORCED_HTML_CSS = f"""
[{STATIC_ATTRIBUTE}] {{ appearance: none !important; }}
[{STATIC_ATTRIBUTE}]::before, select[{STATIC_ATTRIBUTE}] option {{
  visibility: visible !important;
}}
textarea[{STATIC_ATTRIBUTE}] {{ text-indent: 0 !important; }}
table[{NO_REPEAT_ATTRIBUTE}] > thead, table[{NO_REPEAT_ATTRIBUTE}] > tfoot {{
  display: table-row-group !important;
}}
"""
# Input types that become fillable fields (others, and buttons of any kind, are only drawn).
FIELD_INPUT_TYPES = frozenset(
    {
        "text",
        "password",
        "email",
        "number",
        "tel",
        "url",
        "search",
        "date",
        "time",
        "datetime-local",
        "month",
        "week",
        "checkbox",
        "radio",
        "file",
    }
)
_CONTROL_TAGS = ("input", "select", "textarea", "button")
_PAGINATE_PROPERTY = "-fs-table-paginate"
# At-rules whose blocks hold ordinary style rules (or, nested, declarations).
_GROUPING_RULES = ("media", "supports", "layer", "container", "scope")
_CDATA = re.compile(r"^\s*<!\[CDATA\[|\]\]>\s*$")
# The caller's document has no address. Given no base URL, WeasyPrint 70 fails the whole document
# on some relative references (``@import url(common.css)``, ``target-counter(attr(href url), page)``
# on a link to "other.html") where a browser skips them. "about:blank" is where a browser's own
# address-less documents live: its scheme is not hierarchical, so a relative reference stays as
# written, reaches the fetcher, is refused there like any resource that cannot load, and the rest
# of the document renders. Fragments (#id) stay in-document links.
DOCUMENT_BASE_URL = "about:blank"


class _Fetcher(URLFetcher):
    """WeasyPrint's fetcher interface in front of the service's fetcher."""

    def __init__(self, fetcher: Fetcher) -> None:
        super().__init__(allow_redirects=False)
        self._fetcher = fetcher

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        # Any exception makes WeasyPrint skip the resource (and log it): the document is
        # rendered without that image or font, as the spec wants.
        resource = self._fetcher(url)
        return URLFetcherResponse(
            resource.url, resource.data, {"Content-Type": resource.content_type}
        )


def render_pdf(job: RenderJob, *, font_config: FontConfiguration | None = None) -> RenderedPdf:
    """Render ``job`` to PDF bytes; PageLimitExceeded when it would have too many pages.

    A ``font_config`` may be shared by successive renders that add no ``@font-face`` fonts (the
    worker does that: it is the slowest object to build); pass None for a fresh one.
    """
    fetcher = _Fetcher(job.fetcher)
    document = weasyprint.HTML(string=job.html, url_fetcher=fetcher, base_url=DOCUMENT_BASE_URL)
    user_sheets = [job.user_css] if job.user_css else []
    if job.html_mode:
        _prepare_html(document.etree_element, job.author_css)
        user_sheets.append(FORCED_HTML_CSS)
    config = font_config or FontConfiguration()
    stylesheets = [
        weasyprint.CSS(string=css, url_fetcher=fetcher, font_config=config) for css in user_sheets
    ]
    with _page_cap(job.max_pages):
        rendering = document.render(
            font_config=config,
            stylesheets=stylesheets,
            pdf_forms=job.html_mode,
            presentational_hints=job.html_mode,
        )
    pages = len(rendering.pages)
    if pages > job.max_pages:
        raise PageLimitExceeded(pages, job.max_pages)
    if job.title is not None:
        rendering.metadata.title = job.title
    pdf = rendering.write_pdf(finisher=_Finisher(job.watermark))
    return RenderedPdf(pdf=pdf, pages=pages)


# -- page cap -------------------------------------------------------------------------------------

_cap = threading.local()
# An internal of WeasyPrint 70 (pinned in requirements.txt). Should a later version move it, the
# wrapper below is simply not installed and the cap still holds, through the count after layout.
_original_make_all_pages = getattr(weasyprint.layout, "make_all_pages", None)


def _capped_make_all_pages(context: Any, root_box: Any, html: Any, pages: Any) -> Iterator[Any]:
    """WeasyPrint's page maker, stopped as soon as a layout pass goes past the cap.

    Without this a huge document would be laid out in full before its pages are counted; the
    count after render() stays the authoritative check.
    """
    assert _original_make_all_pages is not None
    limit = getattr(_cap, "limit", None)
    for count, page in enumerate(_original_make_all_pages(context, root_box, html, pages), 1):
        if limit is not None and count > limit:
            raise PageLimitExceeded(count, limit)
        yield page


if _original_make_all_pages is not None:
    weasyprint.layout.make_all_pages = _capped_make_all_pages


@contextlib.contextmanager
def _page_cap(limit: int) -> Iterator[None]:
    _cap.limit = limit
    try:
        yield
    finally:
        _cap.limit = None


# -- HTML mode ------------------------------------------------------------------------------------


def _prepare_html(root: ET.Element, author_css: str) -> None:
    """Adjust the caller's parsed document in place, before WeasyPrint styles it."""
    for style in root.iter("style"):
        # XHTML wraps style sheets in CDATA sections; parsed as HTML the markers would stay in
        # the CSS and swallow every rule after them.
        if style.text and "<![CDATA[" in style.text:
            style.text = _CDATA.sub("", style.text)
        if style.text:
            style.text = drop_combined_element_content(style.text)
    head = root.find("head")
    author_css = drop_combined_element_content(author_css)
    if author_css:
        if head is None:  # the HTML parser always makes one; a guard, not a code path
            head = ET.Element("head")
            root.insert(0, head)
        ET.SubElement(head, "style").text = author_css
    _mark_static_controls(root)
    if _PAGINATE_PROPERTY in author_css.lower() or _mentions_paginate(root):
        _stop_table_repetition(root, author_css)


def _mark_static_controls(root: ET.Element) -> None:
    """Mark the controls that must not become PDF fields (drawn only).

    A field needs a ``form`` ancestor, a non-empty name, and for inputs a valid field type
    (a missing type means text, as in HTML). Buttons of every kind are drawn only.
    """
    in_form = {id(element) for form in root.iter("form") for element in form.iter()}
    for tag in _CONTROL_TAGS:
        for element in root.iter(tag):
            name = (element.get("name") or "").strip()
            field = id(element) in in_form and bool(name) and tag != "button"
            if tag == "input":
                field = field and (element.get("type") or "text").strip().lower() in (
                    FIELD_INPUT_TYPES
                )
            if not field:
                element.set(STATIC_ATTRIBUTE, "")


def _mentions_paginate(root: ET.Element) -> bool:
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        text = element.text if element.tag == "style" else element.get("style")
        if text and _PAGINATE_PROPERTY in text.lower():
            return True
    return False


def _stop_table_repetition(root: ET.Element, author_css: str) -> None:
    """Tables under ``-fs-table-paginate: none`` get their thead/tfoot drawn once.

    The property is looked for in the caller's stylesheet, the document's ``<style>`` elements
    (nested rules and @media blocks included) and ``style`` attributes. Its element and every
    table inside it are marked; the forced stylesheet then makes their header and footer plain
    row groups, and a footer is moved after the body so it still comes last.
    """
    selectors: list[str] = []
    for element in root.iter("style"):
        selectors.extend(_paginate_none_selectors(element.text or ""))
    selectors.extend(_paginate_none_selectors(author_css))

    matched: list[ET.Element] = []
    for element in root.iter():
        if isinstance(element.tag, str) and _declares_paginate_none(element.get("style") or ""):
            matched.append(element)
    if selectors:
        wrapper = cssselect2.ElementWrapper.from_html_root(root)
        for selector in selectors:
            try:
                matched.extend(found.etree_element for found in wrapper.query_all(selector))
            except (cssselect2.SelectorError, ValueError, TypeError):
                continue  # a selector cssselect2 cannot match is one WeasyPrint ignores too

    for element in matched:
        for table in element.iter("table"):
            table.set(NO_REPEAT_ATTRIBUTE, "")
            footers = [child for child in table if child.tag == "tfoot"]
            for footer in footers:
                table.remove(footer)
                table.append(footer)


def _paginate_none_selectors(css: str) -> list[str]:
    if _PAGINATE_PROPERTY not in css.lower():
        return []
    found: list[str] = []
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    _collect_selectors(rules, None, found)
    return found


def _collect_selectors(rules: list[Any], parent: str | None, found: list[str]) -> None:
    for rule in rules:
        if rule.type == "qualified-rule":
            selector = _nest(parent, tinycss2.serialize(rule.prelude).strip())
            items = tinycss2.parse_blocks_contents(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            if any(_is_paginate_none(item) for item in items):
                found.append(selector)
            _collect_selectors([i for i in items if i.type != "declaration"], selector, found)
        elif (
            rule.type == "at-rule"
            and rule.content is not None
            and rule.lower_at_keyword in _GROUPING_RULES
        ):
            items = tinycss2.parse_blocks_contents(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            if parent is not None and any(_is_paginate_none(i) for i in items):
                found.append(parent)
            _collect_selectors([i for i in items if i.type != "declaration"], parent, found)


def _nest(parent: str | None, selector: str) -> str:
    """A nested rule's selector, spelt out (``&`` is the parent, else a descendant of it)."""
    if parent is None:
        return selector
    parts = _split_selector_list(selector)
    return ", ".join(
        part.replace("&", f":is({parent})") if "&" in part else f":is({parent}) {part}"
        for part in parts
    )


def _split_selector_list(selector: str) -> list[str]:
    tokens = tinycss2.parse_component_value_list(selector)
    parts: list[list[Any]] = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return [tinycss2.serialize(part).strip() for part in parts if tinycss2.serialize(part).strip()]


def _declares_paginate_none(style: str) -> bool:
    if _PAGINATE_PROPERTY not in style.lower():
        return False
    items = tinycss2.parse_blocks_contents(style, skip_comments=True, skip_whitespace=True)
    return any(_is_paginate_none(item) for item in items)


def _is_paginate_none(item: Any) -> bool:
    if item.type != "declaration" or item.lower_name != _PAGINATE_PROPERTY:
        return False
    values = [token for token in item.value if token.type not in ("whitespace", "comment")]
    return len(values) == 1 and values[0].type == "ident" and values[0].lower_value == "none"


# -- after layout: fields, watermark --------------------------------------------------------------


class _Finisher:
    """Last changes to the PDF objects before WeasyPrint writes them."""

    def __init__(self, watermark: str | None) -> None:
        self.watermark = watermark

    def __call__(self, document: Any, pdf: pydyf.PDF) -> None:
        _tidy_field_list(pdf)
        if self.watermark:
            _draw_watermark(pdf, self.watermark)


def _is_dangling(reference: Any) -> bool:
    return isinstance(reference, bytes) and reference.startswith(b"None ")


def _tidy_field_list(pdf: pydyf.PDF) -> None:
    """Keep the AcroForm field list to the fields WeasyPrint wrote, top-level ones only.

    The HTML preparation keeps buttons out of the form, which is where WeasyPrint 70 leaves a
    ``None 0 R`` reference that readers cannot parse; this drops any other such reference too.
    WeasyPrint also lists each radio button beside its group: a kid belongs in its group only.
    """
    acroform = pdf.catalog.get("AcroForm")
    if isinstance(acroform, pydyf.Dictionary) and "Fields" in acroform:
        acroform["Fields"] = pydyf.Array(
            reference
            for reference in acroform["Fields"]
            if not _is_dangling(reference) and "Parent" not in _resolve(pdf, reference)
        )
    for page in _pages(pdf):
        annotations = page.get("Annots")
        if isinstance(annotations, pydyf.Array):
            page["Annots"] = pydyf.Array(r for r in annotations if not _is_dangling(r))


def _pages(pdf: pydyf.PDF) -> list[pydyf.Dictionary]:
    return [pdf.objects[number] for number in pdf.pages["Kids"][::3]]


def _resolve(pdf: pydyf.PDF, value: Any) -> Any:
    if isinstance(value, bytes) and value.endswith(b" R"):
        return pdf.objects[int(value.split()[0])]
    return value


# Helvetica-Bold advance widths (1/1000 em) for centring the watermark without a font file.
_HELVETICA_BOLD_WIDTHS = {
    " ": 278, "A": 722, "B": 722, "C": 722, "D": 722, "E": 667, "F": 611, "G": 778, "H": 722,
    "I": 278, "J": 556, "K": 722, "L": 611, "M": 833, "N": 722, "O": 778, "P": 667, "Q": 778,
    "R": 722, "S": 667, "T": 611, "U": 722, "V": 667, "W": 944, "X": 667, "Y": 667, "Z": 611,
}  # fmt: skip


def _draw_watermark(pdf: pydyf.PDF, text: str) -> None:
    """Draw ``text`` diagonally across every page, over the content, translucent.

    A standard PDF font (nothing embedded) and a content stream appended to each page: the
    document's own CSS cannot hide it, and text extraction finds it.
    """
    text = "".join(c for c in text.upper() if c in _HELVETICA_BOLD_WIDTHS) or "DEVELOPMENT"
    width_em = sum(_HELVETICA_BOLD_WIDTHS[c] for c in text) / 1000
    font = pydyf.Dictionary(
        {
            "Type": "/Font",
            "Subtype": "/Type1",
            "BaseFont": "/Helvetica-Bold",
            "Encoding": "/WinAnsiEncoding",
        }
    )
    pdf.add_object(font)
    state = pydyf.Dictionary({"Type": "/ExtGState", "ca": 0.16, "CA": 0.16})
    pdf.add_object(state)
    save = pydyf.Stream([b"q"])
    pdf.add_object(save)

    for page in _pages(pdf):
        resources = _resolve(pdf, page["Resources"])
        fonts = _resolve(pdf, resources.get("Font"))
        if fonts is None:
            fonts = resources["Font"] = pydyf.Dictionary()
        fonts["DocgenWatermark"] = font.reference
        states = _resolve(pdf, resources.get("ExtGState"))
        if states is None:
            states = resources["ExtGState"] = pydyf.Dictionary()
        states["DocgenWatermarkState"] = state.reference

        left, bottom, right, top = (float(v) for v in page["MediaBox"])
        width, height = right - left, top - bottom
        angle = math.atan2(height, width)
        cos, sin = math.cos(angle), math.sin(angle)
        size = 0.6 * math.hypot(width, height) / width_em
        advance = width_em * size
        # Start so the text's centre (half its advance, a third of the size up) is the page's.
        x = left + width / 2 - cos * advance / 2 + sin * size / 3
        y = bottom + height / 2 - sin * advance / 2 - cos * size / 3
        operations = (
            f"Q q /DocgenWatermarkState gs 0.75 0.1 0.1 rg BT /DocgenWatermark {size:.2f} Tf "
            f"{cos:.5f} {sin:.5f} {-sin:.5f} {cos:.5f} {x:.2f} {y:.2f} Tm ({text}) Tj ET Q"
        )
        stamp = pydyf.Stream([operations.encode("ascii")])
        pdf.add_object(stamp)
        # "q" before the page's own content and "Q" after it, so its graphics state (WeasyPrint
        # flips the y axis) does not carry over into the watermark.
        contents = page["Contents"]
        own = list(contents) if isinstance(contents, pydyf.Array) else [contents]
        page["Contents"] = pydyf.Array([save.reference, *own, stamp.reference])


# -- what failed ----------------------------------------------------------------------------------

# The innermost WeasyPrint module a failure passed through, as the stage of the work it stopped.
_WRITING = "while writing the PDF"
_STAGES = (
    ("weasyprint.css", "while applying the CSS"),
    ("weasyprint.layout", "while laying out the pages"),
    ("weasyprint.text", "while setting the text"),
    ("weasyprint.svg", "while drawing an SVG image"),
    ("weasyprint.images", "while drawing an image"),
    ("weasyprint.html", "while reading the HTML"),
    ("weasyprint.formatting_structure", "while reading the HTML"),
    ("weasyprint.draw", _WRITING),
    ("weasyprint.pdf", _WRITING),
    ("weasyprint.stacking", _WRITING),
    ("pydyf", _WRITING),
)
_QUOTE_LIMIT = 100


def describe_failure(exc: BaseException) -> str | None:
    """Where in the caller's document an unexpected renderer exception happened, in the
    caller's terms: "on the CSS declaration `...`", "while laying out a <td> element on page 2",
    "while applying the CSS"; None when nothing is known.

    WeasyPrint's exceptions say nothing a caller can act on (an AssertionError, a TypeError in
    its table code), so this reads the frames the exception passed through instead: the CSS
    declaration or rule being parsed (tinycss2 nodes, which quote the caller's own text), the
    box being laid out (which names its element), the page our page cap was counting. Never the
    exception's type, message or a file name. Relies on WeasyPrint 70's local names ("box",
    "element"); should they change, the answer is only vaguer.
    """
    declaration = rule = box = element = stage = None
    page = 0
    for frame, _line in traceback.walk_tb(exc.__traceback__):  # outermost first
        module = frame.f_globals.get("__name__", "")
        stage = next((words for prefix, words in _STAGES if module.startswith(prefix)), stage)
        local = frame.f_locals
        if frame.f_code is _capped_make_all_pages.__code__:
            page = local.get("count", 0) + 1  # pages done in this pass, plus the failing one
        for value in local.values():
            if isinstance(value, tinycss2.ast.Declaration):
                declaration = value
            elif isinstance(value, tinycss2.ast.QualifiedRule | tinycss2.ast.AtRule):
                rule = value
        if isinstance(getattr(local.get("box"), "element_tag", None), str):
            box = local["box"]
        if isinstance(local.get("element"), ET.Element):
            element = local["element"]
    if declaration is not None:
        return f"on the CSS declaration `{_quote(declaration.serialize())}`"
    if isinstance(rule, tinycss2.ast.AtRule):
        return (
            f"on the CSS rule `{_quote(f'@{rule.at_keyword} {tinycss2.serialize(rule.prelude)}')}`"
        )
    if isinstance(rule, tinycss2.ast.QualifiedRule):
        return f"on the CSS rule for `{_quote(tinycss2.serialize(rule.prelude))}`"
    if box is not None:
        verb = "drawing" if stage == _WRITING else "laying out"
        where = f" on page {page}" if page else ""
        return f"while {verb} {_element_words(box.element_tag, box.element)}{where}"
    if element is not None and isinstance(element.tag, str):
        return f"while applying the CSS to {_element_words(element.tag, element)}"
    return stage


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _QUOTE_LIMIT else text[: _QUOTE_LIMIT - 1] + "…"


def _element_words(tag: str, element: Any) -> str:
    """'a <td id="total"> element', 'the ::before of a <p> element'."""
    tag, _, pseudo = tag.partition("::")
    attributes = ""
    if isinstance(element, ET.Element):
        for name in ("id", "class"):
            if element.get(name):
                attributes = f' {name}="{_quote(element.get(name, ""))}"'
                break
    words = f"a <{tag}{attributes}> element"
    return f"the ::{pseudo} of {words}" if pseudo else words


# -- worker warm-up -------------------------------------------------------------------------------

_WARM_UP_HTML = """<html><body style="font-family: 'Noto Sans', 'Noto Sans CJK SC', sans-serif">
<p>Warm-up <b>bold</b> <i>italic</i> 日本語 中文 한국어</p>
<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>
</body></html>"""


def warm_up(font_config: FontConfiguration) -> None:
    """Load fontconfig, Pango and the common fonts once, so the first real render is not slow."""

    def refuse(url: str) -> Resource:
        raise ValueError("no resources while warming up")

    render_pdf(RenderJob(html=_WARM_UP_HTML, fetcher=refuse), font_config=font_config)
