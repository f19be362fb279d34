"""What a render worker is handed and what it hands back. Light: no WeasyPrint import here, so
the web process that builds jobs never loads the renderer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from generate.engine.resources import Resource

# A URL -> the resource, or an exception to leave it out. Must pickle (it goes to a worker).
Fetcher = Callable[[str], Resource]


@dataclass(frozen=True)
class RenderJob:
    """One document to render, complete: it is pickled to a worker process as it is."""

    html: str
    fetcher: Fetcher
    user_css: str = ""  # the service's defaults, below the document's own CSS
    author_css: str = ""  # the caller's stylesheet (HTML mode), after the document's own
    html_mode: bool = False  # fillable forms, -fs-table-paginate, presentational hints
    title: str | None = None
    watermark: str | None = None
    max_pages: int = 1000
    # The CPU-time budget of the render in its worker (`generate.engine.cpu_budget`): this many
    # CPU-seconds plus ``cpu_seconds_per_page`` for each page laid out; 0 for no budget.
    cpu_seconds: float = 0.0
    cpu_seconds_per_page: float = 0.0


@dataclass(frozen=True)
class RenderedPdf:
    pdf: bytes
    pages: int
