"""Assembling the output: template pages with their overlays, widgets, page tree, metadata."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from pypdf import PdfReader
from pypdf.generic import (
    ArrayObject,
    BooleanObject,
    DecodedStreamObject,
    DictionaryObject,
    EncodedStreamObject,
    FloatObject,
    IndirectObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

from core.engine.pdfobjects import as_array, as_dict, as_stream
from fill.engine.pdfwrite import IncrementalWriter
from fill.engine.render import local_size, rotation_matrix
from templates_app.engine.spec import Rect

OVERLAY_NAME = "/DocAutomationFill"
FF_READ_ONLY = 1
FF_MULTILINE = 1 << 12
FF_NO_TOGGLE_TO_OFF = 1 << 14
FF_RADIO = 1 << 15
FF_COMB = 1 << 24
FLAG_PRINT = 4


@dataclass
class Widget:
    """One interactive widget; widgets sharing a ``name`` are kids of one field."""

    name: str
    kind: str  # text | checkbox | radio
    output_page: int
    rect: Rect
    rotation: int
    value: str | bool
    draw: Callable[..., None] | None
    read_only: bool = False
    font_size: float = 10.0
    color: str = "#000000"
    alignment: str = "left"
    multiline: bool = False
    comb: int | None = None
    option: str | None = None  # radio: the option this widget stands for
    appearance: int | None = None  # the overlay page holding its (on) appearance


@dataclass
class OutputPage:
    template_page: int
    overlay_page: int | None
    widgets: list[Widget] = dataclass_field(default_factory=list)


def _name(value: str) -> NameObject:
    return NameObject("/" + value)


def _number(value: float) -> FloatObject | NumberObject:
    return NumberObject(int(value)) if float(value).is_integer() else FloatObject(round(value, 4))


def _rect_array(rect: Rect) -> ArrayObject:
    return ArrayObject(_number(v) for v in (rect.x, rect.y, rect.right, rect.top))


def _stream(data: bytes, writer: IncrementalWriter) -> IndirectObject:
    stream = DecodedStreamObject()
    stream.set_data(data)
    return writer.add(stream)


class _Assembler:
    def __init__(self, base: bytes, overlay: PdfReader | None) -> None:
        self.writer = IncrementalWriter(base)
        self.reader = self.writer.reader
        self.overlay = overlay
        self.template_pages = self.reader.pages
        self.root_ref = self.reader.trailer.raw_get("/Root")
        self.root = as_dict(self.root_ref)
        root = self.root
        self.pages_ref = root.raw_get("/Pages")
        self._wrap: tuple[IndirectObject, IndirectObject, IndirectObject] | None = None
        self._empty_appearance: IndirectObject | None = None
        self.fields: dict[str, tuple[IndirectObject, DictionaryObject, list[Widget]]] = {}

    # --- overlays -------------------------------------------------------------------------------
    def wrap_streams(self) -> tuple[IndirectObject, IndirectObject, IndirectObject]:
        """Shared streams: save state before the page's content, restore it, draw the overlay."""
        if self._wrap is None:
            self._wrap = (
                _stream(b"q\n", self.writer),
                _stream(b"\nQ\n", self.writer),
                _stream(f"q {OVERLAY_NAME} Do Q\n".encode(), self.writer),
            )
        return self._wrap

    def form_xobject(
        self, overlay_page: int, bbox: ArrayObject, matrix: tuple[float, ...] | None = None
    ) -> IndirectObject:
        assert self.overlay is not None
        page = self.overlay.pages[overlay_page]
        contents = as_stream(page["/Contents"])
        form = EncodedStreamObject()
        form._data = contents._data
        if "/Filter" in contents:
            form[NameObject("/Filter")] = contents["/Filter"]
        form[NameObject("/Type")] = NameObject("/XObject")
        form[NameObject("/Subtype")] = NameObject("/Form")
        form[NameObject("/BBox")] = bbox
        if matrix is not None and matrix != (1, 0, 0, 1, 0, 0):
            form[NameObject("/Matrix")] = ArrayObject(_number(v) for v in matrix)
        form[NameObject("/Resources")] = self.writer.import_object(
            page.raw_get("/Resources"), self.overlay
        )
        return self.writer.add(form)

    # --- pages ----------------------------------------------------------------------------------
    def page(self, output: OutputPage, first_time: bool) -> IndirectObject:
        template = self.template_pages[output.template_page]
        original = template.indirect_reference
        assert original is not None  # pages read from a file always have one
        ref = original if first_time else self.writer.reserve()
        page = DictionaryObject({NameObject(k): v for k, v in template.items()})
        page[NameObject("/Parent")] = self.pages_ref
        if not first_time:
            # Copies share no annotations or structure entries with the original page.
            for key in ("/Annots", "/StructParents", "/B"):
                page.pop(NameObject(key), None)
        if output.overlay_page is not None:
            box = template.mediabox
            bbox = ArrayObject(
                _number(float(v)) for v in (box.left, box.bottom, box.right, box.top)
            )
            overlay = self.form_xobject(output.overlay_page, bbox)
            resources = template.get("/Resources")
            resources = (
                DictionaryObject(dict(resources.get_object().items()))
                if resources is not None
                else DictionaryObject()
            )
            xobjects = resources.get("/XObject")
            xobjects = (
                DictionaryObject(dict(xobjects.get_object().items()))
                if xobjects is not None
                else DictionaryObject()
            )
            xobjects[NameObject(OVERLAY_NAME)] = overlay
            resources[NameObject("/XObject")] = xobjects
            page[NameObject("/Resources")] = resources
            save, restore, draw = self.wrap_streams()
            contents = template.raw_get("/Contents") if "/Contents" in template else None
            existing = []
            if contents is not None:
                resolved = contents.get_object()
                existing = list(resolved) if isinstance(resolved, ArrayObject) else [contents]
            page[NameObject("/Contents")] = ArrayObject([save, *existing, restore, draw])
        if output.widgets:
            annots = page.get("/Annots")
            annots = ArrayObject(annots.get_object()) if annots is not None else ArrayObject()
            for widget in output.widgets:
                annots.append(self.widget(widget, ref))
            page[NameObject("/Annots")] = annots
        self.writer.put(ref, page)
        return ref

    # --- widgets --------------------------------------------------------------------------------
    def empty_appearance(self) -> IndirectObject:
        if self._empty_appearance is None:
            form = DecodedStreamObject()
            form.set_data(b"")
            form[NameObject("/Type")] = NameObject("/XObject")
            form[NameObject("/Subtype")] = NameObject("/Form")
            form[NameObject("/BBox")] = ArrayObject(
                [NumberObject(0), NumberObject(0), NumberObject(1), NumberObject(1)]
            )
            self._empty_appearance = self.writer.add(form)
        return self._empty_appearance

    def field_for(self, widget: Widget) -> tuple[IndirectObject, DictionaryObject]:
        entry = self.fields.get(widget.name)
        if entry is None:
            flags = FF_READ_ONLY if widget.read_only else 0
            field = DictionaryObject({NameObject("/T"): TextStringObject(widget.name)})
            if widget.kind == "text":
                red, green, blue = (int(widget.color[i : i + 2], 16) / 255 for i in (1, 3, 5))
                field[NameObject("/FT")] = NameObject("/Tx")
                field[NameObject("/V")] = TextStringObject(str(widget.value))
                field[NameObject("/DA")] = TextStringObject(
                    f"/Helv {widget.font_size:g} Tf {red:.3f} {green:.3f} {blue:.3f} rg"
                )
                field[NameObject("/Q")] = NumberObject(
                    {"center": 1, "right": 2}.get(widget.alignment, 0)
                )
                if widget.multiline:
                    flags |= FF_MULTILINE
                if widget.comb:
                    flags |= FF_COMB
                    field[NameObject("/MaxLen")] = NumberObject(widget.comb)
            elif widget.kind == "checkbox":
                field[NameObject("/FT")] = NameObject("/Btn")
                field[NameObject("/V")] = NameObject("/Yes" if widget.value else "/Off")
                field[NameObject("/DA")] = TextStringObject("/ZaDb 0 Tf 0 g")
            else:
                flags |= FF_RADIO | FF_NO_TOGGLE_TO_OFF
                field[NameObject("/FT")] = NameObject("/Btn")
                field[NameObject("/V")] = (
                    _name(str(widget.value)) if widget.value else NameObject("/Off")
                )
                field[NameObject("/DA")] = TextStringObject("/ZaDb 0 Tf 0 g")
            field[NameObject("/Ff")] = NumberObject(flags)
            field[NameObject("/Kids")] = ArrayObject()
            entry = self.fields[widget.name] = (self.writer.reserve(), field, [])
        return entry[0], entry[1]

    def widget(self, widget: Widget, page_ref: IndirectObject) -> IndirectObject:
        field_ref, field = self.field_for(widget)
        width, height = local_size(widget.rect, widget.rotation)
        bbox = ArrayObject([NumberObject(0), NumberObject(0), _number(width), _number(height)])
        matrix = rotation_matrix(widget.rotation, widget.rect.width, widget.rect.height)
        appearance = (
            self.form_xobject(widget.appearance, bbox, matrix)
            if widget.appearance is not None
            else self.empty_appearance()
        )
        annotation = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Annot"),
                NameObject("/Subtype"): NameObject("/Widget"),
                NameObject("/Rect"): _rect_array(widget.rect),
                NameObject("/P"): page_ref,
                NameObject("/F"): NumberObject(FLAG_PRINT),
                NameObject("/Parent"): field_ref,
            }
        )
        if widget.rotation:
            annotation[NameObject("/MK")] = DictionaryObject(
                {NameObject("/R"): NumberObject(widget.rotation)}
            )
        if widget.kind == "text":
            annotation[NameObject("/AP")] = DictionaryObject({NameObject("/N"): appearance})
        else:
            on = "Yes" if widget.kind == "checkbox" else str(widget.option)
            is_on = (
                bool(widget.value) if widget.kind == "checkbox" else widget.value == widget.option
            )
            annotation[NameObject("/AP")] = DictionaryObject(
                {
                    NameObject("/N"): DictionaryObject(
                        {_name(on): appearance, NameObject("/Off"): self.empty_appearance()}
                    )
                }
            )
            annotation[NameObject("/AS")] = _name(on) if is_on else NameObject("/Off")
            annotation[NameObject("/MK")] = DictionaryObject(
                {NameObject("/CA"): TextStringObject("4" if widget.kind == "checkbox" else "l")}
            )
        ref = self.writer.add(annotation)
        as_array(field["/Kids"]).append(ref)
        return ref

    def acroform(self) -> DictionaryObject:
        for ref, field, _ in self.fields.values():
            self.writer.put(ref, field)
        helvetica = self.writer.add(
            DictionaryObject(
                {
                    NameObject("/Type"): NameObject("/Font"),
                    NameObject("/Subtype"): NameObject("/Type1"),
                    NameObject("/BaseFont"): NameObject("/Helvetica"),
                    NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
                }
            )
        )
        dingbats = self.writer.add(
            DictionaryObject(
                {
                    NameObject("/Type"): NameObject("/Font"),
                    NameObject("/Subtype"): NameObject("/Type1"),
                    NameObject("/BaseFont"): NameObject("/ZapfDingbats"),
                }
            )
        )
        return DictionaryObject(
            {
                NameObject("/Fields"): ArrayObject(ref for ref, _, _ in self.fields.values()),
                NameObject("/DR"): DictionaryObject(
                    {
                        NameObject("/Font"): DictionaryObject(
                            {NameObject("/Helv"): helvetica, NameObject("/ZaDb"): dingbats}
                        )
                    }
                ),
                NameObject("/DA"): TextStringObject("/Helv 0 Tf 0 g"),
                NameObject("/NeedAppearances"): BooleanObject(False),
            }
        )

    def finish(self, page_refs: list[IndirectObject], title: str | None, producer: str) -> bytes:
        self.writer.put(
            self.pages_ref,
            DictionaryObject(
                {
                    NameObject("/Type"): NameObject("/Pages"),
                    NameObject("/Kids"): ArrayObject(page_refs),
                    NameObject("/Count"): NumberObject(len(page_refs)),
                }
            ),
        )
        root = DictionaryObject({NameObject(k): v for k, v in self.root.items()})
        root.pop(NameObject("/AcroForm"), None)
        if self.fields:
            root[NameObject("/AcroForm")] = self.acroform()
        info = self.reader.trailer.get("/Info")
        info = (
            DictionaryObject(dict(info.get_object().items()))
            if info is not None
            else DictionaryObject()
        )
        info[NameObject("/Producer")] = TextStringObject(producer)
        if title is not None:
            info[NameObject("/Title")] = TextStringObject(title)
            # XMP metadata would name the template's title; viewers may prefer it to /Info.
            root.pop(NameObject("/Metadata"), None)
            preferences = root.get("/ViewerPreferences")
            preferences = (
                DictionaryObject(dict(preferences.get_object().items()))
                if preferences is not None
                else DictionaryObject()
            )
            preferences[NameObject("/DisplayDocTitle")] = BooleanObject(True)
            root[NameObject("/ViewerPreferences")] = preferences
        self.writer.put(self.root_ref, root)
        info_ref = self.writer.add(info)
        return self.writer.finish(root=self.root_ref, info=info_ref)


def _distinct_names(pages: list[OutputPage]) -> None:
    """Widgets of one name must agree on their value: give those that do not names of their own."""
    by_name: dict[str, list[Widget]] = {}
    for page in pages:
        for widget in page.widgets:
            by_name.setdefault(widget.name, []).append(widget)
    taken = set(by_name)
    for name, widgets in by_name.items():
        kinds = {w.kind for w in widgets}
        values = {str(w.value) for w in widgets}
        if len(kinds) == 1 and (len(values) == 1 or kinds == {"radio"}):
            continue
        counter = 0
        for widget in widgets[1:]:
            while f"{name}~{counter}" in taken:
                counter += 1
            widget.name = f"{name}~{counter}"
            taken.add(widget.name)


def assemble(
    *,
    base: bytes,
    pages: list[OutputPage],
    overlay: PdfReader | None,
    title: str | None,
    producer: str,
) -> bytes:
    _distinct_names(pages)
    assembler = _Assembler(base, overlay)
    seen: set[int] = set()
    refs = []
    for output in pages:
        first_time = output.template_page not in seen
        seen.add(output.template_page)
        refs.append(assembler.page(output, first_time))
    return assembler.finish(refs, title, producer)
