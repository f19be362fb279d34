"""fill_pdf: the whole fill, from a parsed request to the bytes of the filled PDF."""

from __future__ import annotations

import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from core.engine.fetch import data_url_size
from core.engine.fonts import FontFace, FontLibrary, FontNotFound
from core.engine.images import LoadedImage
from fill.engine.assemble import OutputPage, Widget, assemble
from fill.engine.errors import DataUrlsTooLarge, FillInvalid, FillLimitExceeded
from fill.engine.formatting import Content, PageNumbers, content_for
from fill.engine.layout import PagePlan, Placement, plan_document
from fill.engine.payload import DataResolver, Entry, FillRequest, Repeat, RepeatedRows, Rows, Value
from fill.engine.render import Look, Painter, local_size
from fill.engine.text import TextSetter
from templates_app.engine.spec import FieldSpec, Rect, Style, TemplateSpec

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


@dataclass(frozen=True)
class FillContext:
    fonts: FontLibrary
    load_image: Callable[[str], LoadedImage | None]
    limits: FillLimits = field(default_factory=FillLimits)
    producer: str = "docautomation"


Draw = Callable[[Painter, float, float], None]


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
        look = self.look(placement) if content.kind != "image" else None
        interactive = self.options.use_interactive_fields and content.kind != "image"
        if interactive:
            self._widgets(page, output_index, placement, content, look)
            return
        rotation = self.rotation(field)
        if content.kind == "text":
            if field.type == "longText":

                def draw(p, w, h, c=content):
                    return p.text_block(c.text, look, w, h, shrink=field.auto_size)  # noqa: E731
            else:
                draw = lambda p, w, h, c=content: p.text_line(c.text, look, w, h)  # noqa: E731
            page.draws.append((field.rect, rotation, draw))
        elif content.kind == "parts":
            rects = field.part_rects
            for name, text in content.parts:
                page.draws.append(
                    (rects[name], rotation, lambda p, w, h, t=text: p.text_line(t, look, w, h))
                )
        elif content.kind == "boxes":
            box_look = (
                Look(look.face, look.size, look.color, "center")
                if field.type == "charList"
                else look
            )
            for box, text in zip(field.boxes, content.boxes, strict=False):
                page.draws.append(
                    (box, rotation, lambda p, w, h, t=text: p.text_line(t, box_look, w, h))
                )
        elif content.kind == "check" and content.flag:
            page.draws.append((field.rect, 0, lambda p, w, h: p.check(look, w, h)))
        elif content.kind == "radio":
            for option in field.options:
                if option.id == content.option:
                    page.draws.append((option.rect, 0, lambda p, w, h: p.dot(look, w, h)))
        elif content.kind == "image":
            image = self.images.get(content.url)
            if image is not None:
                page.draws.append((field.rect, rotation, lambda p, w, h: p.image(image, w, h)))

    def _widgets(
        self, page: _Page, output_index: int, placement: Placement, content: Content, look: Look
    ) -> None:
        field = placement.field
        name = placement.name.replace(".", "_")
        common = {
            "output_page": output_index,
            "read_only": self.read_only(placement),
            "font_size": look.size,
            "color": look.color,
            "alignment": look.alignment,
        }
        rotation = self.rotation(field)
        kind = field.type
        empty = content.kind == "empty"

        def text_widget(
            widget_name: str, rect: Rect, text: str, *, multiline: bool = False, shrink: bool = True
        ) -> Widget:
            if multiline:
                draw = lambda p, w, h: p.text_block(text, look, w, h, shrink=field.auto_size)  # noqa: E731
            else:
                draw = lambda p, w, h: p.text_line(text, look, w, h, shrink=shrink)  # noqa: E731
            return Widget(
                name=widget_name,
                kind="text",
                rect=rect,
                rotation=rotation,
                value=text,
                draw=draw,
                multiline=multiline,
                **common,
            )

        if kind == "checkbox":
            page.widgets.append(
                Widget(
                    name=name,
                    kind="checkbox",
                    rect=field.rect,
                    rotation=0,
                    value=bool(content.flag) and not empty,
                    draw=lambda p, w, h: p.check(look, w, h),
                    **common,
                )
            )
        elif kind == "radioGroup":
            selected = "" if empty else content.option
            for option in field.options:
                page.widgets.append(
                    Widget(
                        name=name,
                        kind="radio",
                        rect=option.rect,
                        rotation=0,
                        value=selected,
                        option=option.id,
                        draw=lambda p, w, h: p.dot(look, w, h),
                        **common,
                    )
                )
        elif field.parts:
            texts = dict(content.parts) if not empty else {}
            for part, rect in field.parts:
                page.widgets.append(text_widget(f"{name}_{part}", rect, texts.get(part, "")))
        elif kind == "charList":
            chars = "" if empty else "".join(content.boxes)
            union = _union(field.boxes)
            box_look = Look(look.face, look.size, look.color, "center")
            offsets = [(box.x - union.x, box.width) for box in field.boxes]

            def comb(p: Painter, w: float, h: float, chars: str = chars) -> None:
                for (x, width), char in zip(offsets, chars, strict=False):
                    p.canvas.saveState()
                    p.canvas.translate(x, 0)
                    p.text_line(char, box_look, width, h)
                    p.canvas.restoreState()

            page.widgets.append(
                Widget(
                    name=name,
                    kind="text",
                    rect=union,
                    rotation=0,
                    value=chars,
                    draw=comb,
                    comb=len(field.boxes),
                    **{**common, "alignment": "left"},
                )
            )
        elif kind == "textWrap":
            lines = () if empty else content.boxes
            for index, box in enumerate(field.boxes):
                text = lines[index] if index < len(lines) else ""
                page.widgets.append(text_widget(f"{name}_{index}", box, text))
        else:
            text = "" if empty else content.text
            page.widgets.append(text_widget(name, field.rect, text, multiline=kind == "longText"))

    # --- the document ---------------------------------------------------------------------------
    def pages_of(self, plans: list[PagePlan], first_output_index: int) -> list[_Page]:
        pages = []
        for index, plan in enumerate(plans):
            page = _Page(plan.template_page, [], [])
            numbers = PageNumbers(index + 1, len(plans), plan.repeat_number, plan.repeat_total)
            for placement in plan.placements:
                self.place(page, first_output_index + index, placement, numbers)
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


def _union(rects: tuple[Rect, ...]) -> Rect:
    x0, y0 = min(r.x for r in rects), min(r.y for r in rects)
    return Rect(x0, y0, max(r.right for r in rects) - x0, max(r.top for r in rects) - y0)


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


def check_data_urls(urls: list[str], limit: int) -> None:
    total = sum(data_url_size(url) for url in urls if url.startswith("data:"))
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
    if request.options.style.font_family is not None and not fonts.is_known_family(
        request.options.style.font_family
    ):
        raise FillInvalid.single(
            "fontFamily", f'Unknown font family "{request.options.style.font_family}".'
        )
    resolver = DataResolver(
        spec, max_array_length=limits.max_array_length, is_known_font=fonts.is_known_family
    )
    documents = [
        resolver.resolve(data, path)
        for data, path in zip(request.documents, request.paths, strict=True)
    ]
    urls = _image_urls(spec, documents)
    check_data_urls(urls, limits.max_data_url_bytes)
    plans = []
    for values in documents:
        plans.append(plan_document(spec, values, max_pages=limits.max_pages))
        if sum(len(p) for p in plans) > limits.max_pages:
            raise FillLimitExceeded(
                "data", f"The filled document would have more than {limits.max_pages} pages."
            )

    filler = _Filler(spec, request, context)
    unique = list(dict.fromkeys(urls))
    if unique:
        with ThreadPoolExecutor(max_workers=min(limits.image_workers, len(unique))) as pool:
            filler.images = dict(zip(unique, pool.map(context.load_image, unique), strict=True))
    pages: list[_Page] = []
    for document_plans in plans:
        pages.extend(filler.pages_of(document_plans, len(pages)))
    overlay, outputs = filler.render(pages)
    return assemble(
        base=template_pdf,
        pages=outputs,
        overlay=PdfReader(io.BytesIO(overlay)) if overlay else None,
        title=request.options.title,
        producer=context.producer,
    )
