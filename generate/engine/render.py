"""HTML (ours or the caller's) to PDF bytes with WeasyPrint, under the service's rules.

`render_pdf` runs inside a render worker process (see `generate.engine.pool`) but is an ordinary
function: tests and benchmarks can call it directly. What it adds to plain WeasyPrint:

- every URL goes through the injected fetcher (`generate.engine.resources`); relative ones reach
  it as written (the document has no address) and are refused, so they are skipped;
- the caller's stylesheet (HTML mode) is an author stylesheet placed after the document's own;
  the service's defaults (page size and margins, page counter, fonts) are a user stylesheet, so
  the caller's CSS, ``@page`` rules included, takes precedence over them;
- HTML mode (`generate.engine.html_mode`): a margin box's ``content`` that combines
  ``element()`` with other values is dropped as the spec wants, fillable fields only for named
  controls of a valid type inside a ``form``, and ``-fs-table-paginate: none`` (Flying Saucer's
  switch) stops header/footer repetition;
- a page cap checked during layout, before anything is written;
- the title in the PDF metadata, and a diagonal watermark drawn on every page if asked for
  (`generate.engine.pdf_finish`).
"""

from __future__ import annotations

import contextlib
import threading
import traceback
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import tinycss2
import weasyprint
import weasyprint.layout
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from generate.engine.errors import PageLimitExceeded
from generate.engine.html_mode import FORCED_HTML_CSS, prepare_html
from generate.engine.job import Fetcher, RenderedPdf, RenderJob
from generate.engine.pdf_finish import Finisher
from generate.engine.resources import Resource

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


@dataclass(frozen=True)
class PreparedDocument:
    """A job's document parsed and prepared, with the options WeasyPrint renders it with."""

    html: weasyprint.HTML
    options: dict[str, Any]
    font_config: FontConfiguration


def prepare_document(
    job: RenderJob, font_config: FontConfiguration | None = None
) -> PreparedDocument:
    """Parse ``job``'s HTML and its stylesheets under the service's rules (see the module
    docstring); `render_pdf` renders it whole, `generate.engine.part_layout` in parts."""
    fetcher = _Fetcher(job.fetcher)
    document = weasyprint.HTML(string=job.html, url_fetcher=fetcher, base_url=DOCUMENT_BASE_URL)
    user_sheets = [job.user_css] if job.user_css else []
    if job.html_mode:
        prepare_html(document.etree_element, job.author_css)
        user_sheets.append(FORCED_HTML_CSS)
    config = font_config or FontConfiguration()
    stylesheets = [
        weasyprint.CSS(string=css, url_fetcher=fetcher, font_config=config) for css in user_sheets
    ]
    options = {
        "stylesheets": stylesheets,
        "pdf_forms": job.html_mode,
        "presentational_hints": job.html_mode,
    }
    return PreparedDocument(html=document, options=options, font_config=config)


def render_pdf(
    job: RenderJob,
    *,
    font_config: FontConfiguration | None = None,
    on_page: Callable[[], None] | None = None,
) -> RenderedPdf:
    """Render ``job`` to PDF bytes; PageLimitExceeded when it would have too many pages.

    A ``font_config`` may be shared by successive renders that add no ``@font-face`` fonts (the
    worker does that: it is the slowest object to build); pass None for a fresh one. ``on_page``
    is called for each page laid out, in every layout pass (the worker's CPU budget grows with
    it).
    """
    prepared = prepare_document(job, font_config)
    with _page_cap(job.max_pages, on_page):
        rendering = prepared.html.render(font_config=prepared.font_config, **prepared.options)
    pages = len(rendering.pages)
    if pages > job.max_pages:
        raise PageLimitExceeded(pages, job.max_pages)
    if job.title is not None:
        rendering.metadata.title = job.title
    pdf = rendering.write_pdf(finisher=Finisher(job.watermark))
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
    on_page = getattr(_cap, "on_page", None)
    for count, page in enumerate(_original_make_all_pages(context, root_box, html, pages), 1):
        if limit is not None and count > limit:
            raise PageLimitExceeded(count, limit)
        if on_page is not None:
            on_page()
        yield page


if _original_make_all_pages is not None:
    weasyprint.layout.make_all_pages = _capped_make_all_pages


@contextlib.contextmanager
def _page_cap(limit: int, on_page: Callable[[], None] | None = None) -> Iterator[None]:
    _cap.limit = limit
    _cap.on_page = on_page
    try:
        yield
    finally:
        _cap.limit = _cap.on_page = None


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
