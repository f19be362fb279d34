"""Assembling the output: template pages with their overlays, widgets, page tree, metadata.

The template's PDF is opened with qpdf (core.engine.pdf) and changed through an editor
(core.engine.pdf.edit): where that is sound, the output is the template's bytes as they are
with an incremental update appended (the changed pages, the catalog, the information
dictionary and every new object); otherwise (an encrypted or repaired template, or when asked)
it is saved whole, a new, structurally sound file whatever shape the template had. Either way
every object is serialized by qpdf. Output pages that show the same template page share its
content streams and resources, so a 100-copy repeat writes those once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from dataclasses import field as dataclass_field

import pikepdf
from pikepdf import Array, Dictionary, Name, String

from core.engine.pdf import (
    INHERITABLE_PAGE_KEYS,
    NotIncremental,
    PageDrawing,
    PageOverlays,
    form_xobject,
    inherited,
    open_for_edit,
    open_pdf,
    rect_array,
)
from core.engine.pdf.geometry import local_frame
from core.engine.template_spec import Rect

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


def _name(value: str) -> Name:
    return Name("/" + value)


def _rect(rect: Rect) -> Array:
    return rect_array((rect.x, rect.y, rect.right, rect.top))


class _Assembler:
    def __init__(self, base: bytes, overlay: bytes | None, *, incremental: bool) -> None:
        self.edit = open_for_edit(base, incremental=incremental)
        self.pdf = self.edit.pdf
        self.overlay = open_pdf(overlay) if overlay is not None else None
        self.overlay_pages = (
            [page.obj for page in self.overlay.pages] if self.overlay is not None else []
        )
        self.template_pages = [page.obj for page in self.pdf.pages]
        # Each template page's entries as they are before any output page is made: copies are
        # built from these, never from a first output page that already holds an overlay.
        self.originals = [_entries(page) for page in self.template_pages]
        self.pages_node = self.edit.indirect(Dictionary(Type=Name.Pages))
        self.drawing = PageDrawing(self.pdf, new_stream=self.edit.stream)
        self.overlays = PageOverlays(self.pdf, prefix=OVERLAY_NAME, drawing=self.drawing)
        self._empty_appearance: pikepdf.Object | None = None
        self.fields: dict[str, pikepdf.Object] = {}

    # --- overlays -------------------------------------------------------------------------------
    def form(
        self, overlay_page: int, bbox: Iterable[float], matrix: tuple[float, ...] | None = None
    ) -> pikepdf.Object:
        form = form_xobject(
            self.edit.stream_pdf,
            source_page=self.overlay_pages[overlay_page],
            bbox=bbox,
            matrix=matrix,
        )
        return self.edit.adopt(form)

    # --- pages ----------------------------------------------------------------------------------
    def page(self, output: OutputPage, first_time: bool) -> pikepdf.Object:
        original = self.originals[output.template_page]
        if first_time:
            page = self.template_pages[output.template_page]
            self.edit.changed(page)
            for key, value in original.items():
                page[key] = value
        else:
            # A copy shares the template page's content streams and resources, but no
            # annotations or structure entries, which belong to one page only.
            page = self.edit.indirect(
                Dictionary(
                    {
                        key: value
                        for key, value in original.items()
                        if key not in ("/Annots", "/StructParents", "/B")
                    }
                )
            )
        page.Parent = self.pages_node
        if output.overlay_page is not None:
            self.add_overlay(page, output.overlay_page)
        if output.widgets:
            annots = page.get("/Annots")
            annots = Array(list(annots)) if isinstance(annots, Array) else Array()
            for widget in output.widgets:
                annots.append(self.widget(widget, page))
            page.Annots = annots
        return page

    def add_overlay(self, page: pikepdf.Object, overlay_page: int) -> None:
        """Draw the overlay page over ``page``, in a graphics state of its own."""
        box = [float(v) for v in page.get("/MediaBox", Array([0, 0, 612, 792]))]
        # A name of its own on the page: a filled output used again as a template already
        # names an earlier fill's form, which must go on being drawn.
        self.overlays.add(page, self.form(overlay_page, box))

    # --- widgets --------------------------------------------------------------------------------
    def empty_appearance(self) -> pikepdf.Object:
        if self._empty_appearance is None:
            self._empty_appearance = self.edit.stream(
                b"", Dictionary(Type=Name.XObject, Subtype=Name.Form, BBox=Array([0, 0, 1, 1]))
            )
        return self._empty_appearance

    def field_for(self, widget: Widget) -> pikepdf.Object:
        existing = self.fields.get(widget.name)
        if existing is not None:
            return existing
        flags = FF_READ_ONLY if widget.read_only else 0
        field = Dictionary(T=String(widget.name))
        if widget.kind == "text":
            red, green, blue = (int(widget.color[i : i + 2], 16) / 255 for i in (1, 3, 5))
            field.FT = Name.Tx
            field.V = String(str(widget.value))
            field.DA = String(f"/Helv {widget.font_size:g} Tf {red:.3f} {green:.3f} {blue:.3f} rg")
            field.Q = {"center": 1, "right": 2}.get(widget.alignment, 0)
            if widget.multiline:
                flags |= FF_MULTILINE
            if widget.comb:
                flags |= FF_COMB
                field.MaxLen = widget.comb
        elif widget.kind == "checkbox":
            field.FT = Name.Btn
            field.V = Name.Yes if widget.value else Name.Off
            field.DA = String("/ZaDb 0 Tf 0 g")
        else:
            flags |= FF_RADIO | FF_NO_TOGGLE_TO_OFF
            field.FT = Name.Btn
            field.V = _name(str(widget.value)) if widget.value else Name.Off
            field.DA = String("/ZaDb 0 Tf 0 g")
        field.Ff = flags
        field.Kids = Array()
        ref = self.fields[widget.name] = self.edit.indirect(field)
        return ref

    def widget(self, widget: Widget, page: pikepdf.Object) -> pikepdf.Object:
        field = self.field_for(widget)
        width, height, matrix = local_frame(widget.rect, widget.rotation)
        appearance = (
            self.form(widget.appearance, (0, 0, width, height), matrix)
            if widget.appearance is not None
            else self.empty_appearance()
        )
        annotation = Dictionary(
            Type=Name.Annot,
            Subtype=Name.Widget,
            Rect=_rect(widget.rect),
            P=page,
            F=FLAG_PRINT,
            Parent=field,
        )
        if widget.rotation:
            annotation.MK = Dictionary(R=widget.rotation)
        if widget.kind == "text":
            annotation.AP = Dictionary(N=appearance)
        else:
            on = "Yes" if widget.kind == "checkbox" else str(widget.option)
            is_on = (
                bool(widget.value) if widget.kind == "checkbox" else widget.value == widget.option
            )
            annotation.AP = Dictionary(
                N=Dictionary({"/" + on: appearance, "/Off": self.empty_appearance()})
            )
            annotation.AS = _name(on) if is_on else Name.Off
            annotation.MK = Dictionary(CA=String("4" if widget.kind == "checkbox" else "l"))
        ref = self.edit.indirect(annotation)
        field.Kids.append(ref)
        return ref

    def acroform(self) -> Dictionary:
        helvetica = self.edit.indirect(
            Dictionary(
                Type=Name.Font,
                Subtype=Name.Type1,
                BaseFont=Name.Helvetica,
                Encoding=Name.WinAnsiEncoding,
            )
        )
        dingbats = self.edit.indirect(
            Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.ZapfDingbats)
        )
        return Dictionary(
            Fields=Array(list(self.fields.values())),
            DR=Dictionary(Font=Dictionary(Helv=helvetica, ZaDb=dingbats)),
            DA=String("/Helv 0 Tf 0 g"),
            NeedAppearances=False,
        )

    def finish(self, pages: list[pikepdf.Object], title: str | None, producer: str) -> bytes:
        # A new flat page tree: the template's tree (with its inheritance) is left unreferenced,
        # and qpdf writes only what is reachable from the trailer.
        self.pages_node.Kids = Array(pages)
        self.pages_node.Count = len(pages)
        root = self.pdf.Root
        root.Pages = self.pages_node
        if "/AcroForm" in root:
            del root.AcroForm
        if self.fields:
            root.AcroForm = self.acroform()
        info = self.edit.info()
        info.Producer = String(producer)
        if title is not None:
            info.Title = String(title)
            # XMP metadata would name the template's title; viewers may prefer it to /Info.
            if "/Metadata" in root:
                del root.Metadata
            preferences = root.get("/ViewerPreferences")
            preferences = (
                Dictionary(dict(preferences.items())) if preferences is not None else Dictionary()
            )
            preferences.DisplayDocTitle = True
            root.ViewerPreferences = preferences
        return self.edit.save()


def _entries(page: pikepdf.Object) -> dict[str, pikepdf.Object]:
    """A page's own entries with its inherited attributes written in (the output's page tree
    is flat), without /Parent."""
    entries = {key: value for key, value in page.items() if key != "/Parent"}
    for key in INHERITABLE_PAGE_KEYS:
        value = inherited(page, key)
        if value is not None:
            entries[key] = value
    return entries


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
    overlay: bytes | None,
    title: str | None,
    producer: str,
    incremental: bool = True,
) -> bytes:
    """The filled PDF: an incremental update of ``base`` where that is sound and
    ``incremental``, else ``base`` rewritten whole."""
    _distinct_names(pages)
    try:
        return _assemble(base, pages, overlay, title, producer, incremental=incremental)
    except NotIncremental:
        # Damage qpdf found only while reading the objects the fill needed: written whole.
        return _assemble(base, pages, overlay, title, producer, incremental=False)


def _assemble(
    base: bytes,
    pages: list[OutputPage],
    overlay: bytes | None,
    title: str | None,
    producer: str,
    *,
    incremental: bool,
) -> bytes:
    assembler = _Assembler(base, overlay, incremental=incremental)
    seen: set[int] = set()
    refs = []
    for output in pages:
        first_time = output.template_page not in seen
        seen.add(output.template_page)
        refs.append(assembler.page(output, first_time))
    return assembler.finish(refs, title, producer)
