"""From a checked request to a complete render job: the one place both modes meet."""

from __future__ import annotations

import datetime

from generate.engine.bounds import ElementLimits, check_element_limits
from generate.engine.job import Fetcher, RenderJob
from generate.engine.markdown_doc import FontCss, build_markdown_html
from generate.engine.request import GenerateRequest
from generate.engine.styles import DEFAULT_FONT_STACK, page_css

WATERMARK_TEXT = "DEVELOPMENT"


def build_render_job(
    request: GenerateRequest,
    *,
    now: datetime.datetime,
    fetcher: Fetcher,
    font_css: FontCss,
    default_logo_url: str,
    watermark: bool,
    max_pages: int,
    limits: ElementLimits | None = None,
) -> RenderJob:
    """The HTML and stylesheets for ``request``, with the rules it is to be rendered under.

    ``font_css`` gives the @font-face rules of a font family (Markdown mode asks for each family
    the document names); it may raise the fonts engine's FontUnavailable. A document over
    ``limits`` (its HTML: the caller's, or the one its Markdown became) is refused here, before
    any worker lays it out: TableCellLimitExceeded, ElementLimitExceeded.
    """
    limits = limits or ElementLimits()  # None: no limits
    common = {
        "fetcher": fetcher,
        "title": request.title,
        "watermark": WATERMARK_TEXT if watermark else None,
        "max_pages": max_pages,
    }
    if request.mode == "html":
        check_element_limits(request.html, limits)
        return RenderJob(
            html=request.html,
            author_css=request.css,
            # Defaults only: the document's own CSS, @page rules included, takes precedence.
            user_css=page_css(request.page) + f"html {{ font-family: {DEFAULT_FONT_STACK}; }}\n",
            html_mode=True,
            **common,  # type: ignore[arg-type]
        )
    html = build_markdown_html(
        request, now=now, font_css=font_css, default_logo_url=default_logo_url
    )
    check_element_limits(html, limits)
    return RenderJob(html=html, **common)  # type: ignore[arg-type]
