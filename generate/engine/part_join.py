"""The PDFs of a long document's parts joined into one (`generate.engine.parts`)."""

from __future__ import annotations

import io
from typing import Any

from generate.engine.errors import PageLimitExceeded, RenderCpuLimit
from generate.engine.job import RenderedPdf, RenderJob
from generate.engine.part_job import Bookmark, PartDone


def joined_pdf(job: RenderJob, done: list[PartDone], spent: float) -> RenderedPdf:
    """The parts' PDFs joined, within the document's page cap and CPU budget (``spent``: what
    every part, probe and pass took)."""
    total = sum(d.layout.pages for d in done)
    if total > job.max_pages:
        raise PageLimitExceeded(total, job.max_pages)
    allowed = job.cpu_seconds + job.cpu_seconds_per_page * total
    if job.cpu_seconds and spent > allowed:
        raise RenderCpuLimit(allowed, total)
    pdfs = [d.pdf for d in done if d.pdf is not None]
    bookmarks: list[Bookmark] = []
    before = 0
    for part in done:
        bookmarks.extend(
            (level, label, before + page, x, y, state)
            for level, label, page, x, y, state in part.bookmarks
        )
        before += part.layout.pages
    return RenderedPdf(pdf=join_pdfs(pdfs, title=job.title, bookmarks=bookmarks), pages=total)


def join_pdfs(pdfs: list[bytes], *, title: str | None, bookmarks: list[Bookmark]) -> bytes:
    """One PDF of ``pdfs``' pages in order, with their links, the first one's metadata
    (``title`` over its title when given), and an outline of ``bookmarks`` (page numbers of
    the joined PDF) nested as WeasyPrint nests a document's: under the last bookmark of a
    lower level before it."""
    import pypdf
    from pypdf.generic import Fit

    writer = pypdf.PdfWriter()
    metadata: dict[str, Any] = {}
    for number, pdf in enumerate(pdfs):
        reader = pypdf.PdfReader(io.BytesIO(pdf))
        if number == 0 and reader.metadata is not None:
            metadata = dict(reader.metadata.items())
        writer.append(reader, import_outline=False)
    open_items: list[tuple[int, Any]] = []  # (level, outline item) of the bookmarks above
    for level, label, page, x, y, state in bookmarks:
        while open_items and open_items[-1][0] >= level:
            open_items.pop()
        item = writer.add_outline_item(
            title=label,
            page_number=page,
            parent=open_items[-1][1] if open_items else None,
            fit=Fit.xyz(left=x, top=y, zoom=0),
            is_open=state != "closed",
        )
        open_items.append((level, item))
    if title is not None:
        metadata["/Title"] = title
    if metadata:
        writer.add_metadata(metadata)
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()
