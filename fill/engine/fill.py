"""fill_pdf: the whole fill, from a parsed request to the bytes of the filled PDF."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from core.engine.fetch import FetchError, data_url_size
from core.engine.fonts import FontFace, FontLibrary, FontNotFound
from core.engine.images import LoadedImage
from core.engine.pdf.draw import Look, Painter
from core.engine.pdf.geometry import local_size
from core.engine.pdf.text import TextSetter
from core.engine.template_spec import FieldSpec, Rect, Style, TemplateSpec
from fill.engine.assemble import OutputPage, Widget, assemble
from fill.engine.errors import DataUrlsTooLarge, FillInvalid, FillLimitExceeded
from fill.engine.formatting import PageNumbers, content_for
from fill.engine.layout import PagePlan, Placement, plan_document
from fill.engine.payload import (
    Entry,
    FillRequest,
    Repeat,
    RepeatedRows,
    Rows,
    Value,
    resolve_documents,
)
from fill.engine.slots import Draw, slots_for

logger = logging.getLogger(__name__)

DEFAULT_STYLE = Style(
    font_family="Noto Sans",
    font_size=10.0,
    text_color="#3E3E57",
    alignment="left",
    font_weight="normal",
)
TEXT_KINDS = ("text", "parts", "boxes")


@dataclass(frozen=True)
class FillLimits:
    max_pages: int = 2000
    max_array_length: int = 10_000
    max_documents: int = 1000
    # The spec's limit on data: URLs in one payload (decoded bytes, all of them together).
    max_data_url_bytes: int = 100 * 1024
    image_workers: int = 8
    # One deadline for all the images of a fill (each fetch also has its own).
    image_deadline_seconds: float = 10.0


@dataclass(frozen=True)
class FillContext:
    fonts: FontLibrary
    load_image: Callable[[str], LoadedImage | None]
    limits: FillLimits = field(default_factory=FillLimits)
    producer: str = "docautomation"
    # The output as an incremental update of the template where that is sound (fill/engine/
    # assemble.py); False writes every output whole.
    incremental: bool = True


@dataclass
class _Page:
    template_page: int
    draws: list[tuple[Rect, int, Draw]]
    widgets: list[Widget]


class _Filler:
    def __init__(self, spec: TemplateSpec, request: FillRequest, context: FillContext) -> None:
        self.spec = spec
        self.options = request.options
        self.context = context
        self.setter = TextSetter(context.fonts)
        self.images: dict[str, LoadedImage | None] = {}
        self._faces: dict[tuple[str, bool, bool], FontFace] = {}

    # --- style ----------------------------------------------------------------------------------
    def look(self, placement: Placement) -> Look:
        style = (
            placement.entry.style.over(placement.group_style)
            .over(placement.field.style)
            .over(self.options.style)
            .over(self.spec.style)
            .over(DEFAULT_STYLE)
        )
        weight = style.font_weight or "normal"
        bold, italic = weight in ("bold", "boldItalic"), weight in ("italic", "boldItalic")
        family = style.font_family or "Noto Sans"
        key = (family, bold, italic)
        face = self._faces.get(key)
        if face is None:
            try:
                face = self._faces[key] = self.context.fonts.resolve(
                    family, bold=bold, italic=italic
                )
            except FontNotFound as error:
                raise FillInvalid.single("fontFamily", str(error)) from None
        return Look(
            face=face,
            size=style.font_size or 10.0,
            color=style.text_color or "#3E3E57",
            alignment=style.alignment or "left",
        )

    def read_only(self, placement: Placement) -> bool:
        for value in (placement.entry.read_only, placement.group_read_only):
            if value is not None:
                return value
        return placement.field.read_only or self.options.default_read_only

    def rotation(self, field: FieldSpec) -> int:
        return field.rotation or self.spec.pages[field.page].rotate

    # --- one placement --------------------------------------------------------------------------
    def place(
        self, page: _Page, output_index: int, placement: Placement, numbers: PageNumbers
    ) -> None:
        field = placement.field
        content = content_for(field, placement.entry.value, numbers)
        interactive = self.options.use_interactive_fields
        look = self.look(placement)
        image = self.images.get(content.url) if content.kind == "image" else None
        flat, widgets = slots_for(
            field, content, look, self.rotation(field), interactive=interactive, image=image
        )
        page.draws.extend((s.rect, s.rotation, s.draw) for s in flat if s.draw is not None)
        name = placement.name.replace(".", "_")  # a period would make a field hierarchy
        for slot in widgets:
            page.widgets.append(
                Widget(
                    name=name + slot.suffix,
                    kind=slot.kind,
                    output_page=output_index,
                    rect=slot.rect,
                    rotation=slot.rotation,
                    value=slot.value,
                    draw=slot.draw,
                    option=slot.option,
                    multiline=slot.multiline,
                    comb=slot.comb,
                    read_only=self.read_only(placement),
                    font_size=look.size,
                    color=look.color,
                    alignment="left" if slot.comb else look.alignment,
                )
            )

    # --- the document ---------------------------------------------------------------------------
    def pages_of(
        self,
        plans: list[PagePlan],
        first_output_index: int,
        total_pages: int,
        *,
        document_is_loop: bool,
    ) -> list[_Page]:
        """One document's pages; page numbers count in the whole output (the spec's "PDF")."""
        pages = []
        for index, plan in enumerate(plans):
            output_index = first_output_index + index
            # A page whose data repeats it numbers within that repeat; any other page within
            # its document when that is one element of a whole-PDF repeat, else 1 of 1.
            loop = plan.loop or ((index + 1, len(plans)) if document_is_loop else (1, 1))
            numbers = PageNumbers(output_index + 1, total_pages, *loop)
            page = _Page(plan.template_page, [], [])
            for placement in plan.placements:
                self.place(page, output_index, placement, numbers)
            pages.append(page)
        return pages

    def render(self, pages: list[_Page]) -> tuple[bytes | None, list[OutputPage]]:
        """Draw overlay pages (flat content) then appearance pages (one per widget)."""
        buffer = io.BytesIO()
        canvas = Canvas(buffer, invariant=1, pageCompression=1)
        painter = Painter(canvas, self.setter)
        count = 0
        outputs = []
        for page in pages:
            overlay_index = None
            if page.draws:
                box = self.spec.pages[page.template_page].media_box
                canvas.setPageSize((max(box[2], 1), max(box[3], 1)))
                for rect, rotation, draw in page.draws:
                    with painter.frame(rect, rotation) as (width, height):
                        draw(painter, width, height)
                canvas.showPage()
                overlay_index, count = count, count + 1
            outputs.append(OutputPage(page.template_page, overlay_index, page.widgets))
        for page in pages:
            for widget in page.widgets:
                if widget.draw is None:
                    continue  # empty: the shared empty appearance serves
                width, height = local_size(widget.rect, widget.rotation)
                canvas.setPageSize((width, height))
                with painter.whole_page(width, height) as (w, h):
                    widget.draw(painter, w, h)
                canvas.showPage()
                widget.appearance, count = count, count + 1
        if count == 0:
            return None, outputs
        canvas.save()
        return buffer.getvalue(), outputs


def _image_urls(spec: TemplateSpec, documents: list[dict[str, Value]]) -> list[str]:
    image_keys = {f.alias for f in spec.fields if f.type == "imageFile"}
    by_id = {f.id: f for f in spec.fields}
    image_keys |= {a.alias for a in spec.arrays if by_id[a.field_ids[0]].type == "imageFile"}
    urls: list[str] = []
    for values in documents:
        for key in image_keys & values.keys():
            urls.extend(_entry_values(values[key]))
    return urls


def _entry_values(value: Value) -> list[str]:
    if isinstance(value, Entry):
        return [value.value] if isinstance(value.value, str) else []
    if isinstance(value, Repeat | Rows):
        return [e.value for e in value.entries if e is not None and isinstance(e.value, str)]
    if isinstance(value, RepeatedRows):
        return [url for group in value.groups for url in _entry_values(group)]
    return []


def load_images(
    urls: list[str],
    load: Callable[[str], LoadedImage | None],
    *,
    workers: int,
    deadline_seconds: float,
) -> dict[str, LoadedImage | None]:
    """Load ``urls``, ``workers`` at a time, within one deadline for all of them.

    Each fetch has its own deadline too, but a payload of many slow URLs would otherwise take
    (URLs / workers) of those. An image not loaded by the deadline is None, like any image that
    cannot be used (the spec leaves it out); those not started yet never are. Fetches under way
    at the deadline end on their own deadline, in the background.
    """
    if not urls:
        return {}
    pool = ThreadPoolExecutor(max_workers=min(workers, len(urls)))
    try:
        futures = {url: pool.submit(load, url) for url in urls}
        done, pending = wait(futures.values(), timeout=deadline_seconds)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    if pending:
        logger.info(
            "images: %d of %d left out at the deadline of %g s",
            len(pending),
            len(urls),
            deadline_seconds,
        )
    return {url: future.result() if future in done else None for url, future in futures.items()}


def check_data_urls(documents: Iterable[Any], limit: int) -> None:
    """Refuse a payload whose ``data:`` URLs decode to more than ``limit`` bytes in total.

    The spec's limit counts the whole payload, not what the template uses: every string in
    ``data`` counts, under unknown keys, in style objects, in every document of a whole-PDF
    repeat. It runs on the raw data, before anything is resolved or loaded.
    """
    total = 0
    stack = list(documents)  # a stack, not recursion: the nesting depth is the client's choice
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        # Scheme matched as the fetcher (and browsers) match it: surrounding space, any case.
        elif isinstance(item, str) and item.strip()[:5].lower() == "data:":
            # A malformed one (say a text value "Data: ...") is nothing anyone decodes.
            with suppress(FetchError):
                total += data_url_size(item)
    if total > limit:
        raise DataUrlsTooLarge(
            "data", f"The data: URLs of this payload total {total} bytes; the limit is {limit}."
        )


def fill_pdf(
    *, template_pdf: bytes, spec: TemplateSpec, request: FillRequest, context: FillContext
) -> bytes:
    """Fill ``template_pdf``, whose fields ``spec`` describes, with ``request``: the PDF bytes."""
    fonts = context.fonts
    limits = context.limits
    family = request.options.style.font_family
    if family is not None and (message := fonts.family_problem(family)) is not None:
        raise FillInvalid.single("fontFamily", message)
    check_data_urls(request.documents, limits.max_data_url_bytes)
    documents = resolve_documents(
        spec, request, max_array_length=limits.max_array_length, font_problem=fonts.family_problem
    )
    urls = _image_urls(spec, documents)
    plans = []
    for values in documents:
        plans.append(plan_document(spec, values, max_pages=limits.max_pages))
        if sum(len(p) for p in plans) > limits.max_pages:
            raise FillLimitExceeded(
                "data", f"The filled document would have more than {limits.max_pages} pages."
            )

    filler = _Filler(spec, request, context)
    filler.images = load_images(
        list(dict.fromkeys(urls)),
        context.load_image,
        workers=limits.image_workers,
        deadline_seconds=limits.image_deadline_seconds,
    )
    pages: list[_Page] = []
    total_pages = sum(len(document_plans) for document_plans in plans)
    for document_plans in plans:
        pages.extend(
            filler.pages_of(
                document_plans,
                len(pages),
                total_pages,
                document_is_loop=request.whole_pdf_repeat,
            )
        )
    overlay, outputs = filler.render(pages)
    return assemble(
        base=template_pdf,
        pages=outputs,
        overlay=overlay,
        title=request.options.title,
        producer=context.producer,
        incremental=context.incremental,
    )
