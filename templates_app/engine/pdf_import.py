"""Import a PDF as a template: its AcroForm fields become template fields.

Signature fields (/FT /Sig) become ``signature`` fields, at their widgets' rects: a signer signs
them in a packet (createEtchPacket assigns them by id); fill never draws them.

Each field gets a usable alias (``templates_app.engine.aliases``: from its name when that is
meaningful, else its tooltip or the label printed beside it), unique within the template; its
full name is kept in ``name`` and the human text (tooltip or printed label) in ``label``.

The stored base PDF has the interactive fields removed, so a filled document never shows the
original widgets under (or over) the filled values. Where a widget painted its own background or
border (/MK /BG, /BC), that paint is kept as static page content so the form still looks the same.
A PDF encrypted with an empty user password is opened with it and stored without encryption.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pikepdf
from pypdf import PasswordType, PdfReader
from pypdf.errors import PdfReadError, PyPdfError
from pypdf.generic import (
    DictionaryObject,
)

from core.engine.pdf import PageDrawing, PdfUnreadable, open_pdf, save_pdf
from core.engine.pdfobjects import as_array, as_dict
from core.engine.problems import EngineError
from core.engine.template_spec import (
    FieldSpec,
    PageSpec,
    RadioOption,
    Rect,
    Style,
    TemplateSpec,
)
from templates_app.engine.aliases import (
    ascii_words,
    camel_case,
    identifier_from_name,
    identifier_from_phrase,
    label_phrase,
    name_parts,
    unique_aliases,
)
from templates_app.engine.page_text import TextLine, labels_near, page_lines

# AcroForm field flags (PDF 32000-1, tables 226, 228, 230).
FF_MULTILINE = 1 << 12
FF_PASSWORD = 1 << 13
FF_RADIO = 1 << 15
FF_PUSHBUTTON = 1 << 16
FF_COMB = 1 << 24
ANNOT_HIDDEN = 1 << 1

MAX_IMPORT_PAGES = 500
_DA_FONT = re.compile(r"/(\S+)\s+(-?[\d.]+)\s+Tf")
_DA_RGB = re.compile(r"(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+rg")
_DA_GRAY = re.compile(r"(?<![\d.])(-?[\d.]+)\s+g(?!\w)")


class ImportRefused(EngineError):
    """The PDF cannot become a template. ``reason`` is stable; the message is for people."""

    code = "import_refused"
    kind = "invalid"
    path = "file"

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


@dataclass(frozen=True)
class ImportedTemplate:
    spec: TemplateSpec
    pdf: bytes


@dataclass
class _Terminal:
    """One terminal form field with the attributes it inherits, and its widgets."""

    name: str
    label: str
    field_type: str
    flags: int
    da: str
    quadding: int
    max_length: int | None
    widgets: list[DictionaryObject] = field(default_factory=list)


def _acroform(reader: PdfReader) -> DictionaryObject | None:
    acroform = as_dict(reader.trailer["/Root"]).get("/AcroForm")
    return as_dict(acroform) if acroform is not None else None


def _rect_of(widget: DictionaryObject) -> Rect:
    corners = as_array(widget["/Rect"])
    if len(corners) != 4:
        raise PdfReadError("a widget's /Rect must be four numbers")
    x0, y0, x1, y1 = (float(v) for v in corners)
    return Rect.from_corners(x0, y0, x1, y1)


def _text(value: Any) -> str:
    return str(value) if value is not None else ""


def _walk_fields(
    node: DictionaryObject, parent_name: str, inherited: dict[str, Any]
) -> Iterator[_Terminal]:
    attrs = dict(inherited)
    for key in ("/FT", "/Ff", "/DA", "/Q", "/MaxLen"):
        if key in node:
            attrs[key] = node[key]
    partial = _text(node.get("/T"))
    name = f"{parent_name}.{partial}" if parent_name and partial else (partial or parent_name)
    kids = [kid.get_object() for kid in node.get("/Kids") or []]
    field_kids = [kid for kid in kids if "/T" in kid]
    if field_kids:
        for kid in field_kids:
            yield from _walk_fields(kid, name, attrs)
        return
    widgets = kids or [node]  # a field merged with its single widget is its own widget
    yield _Terminal(
        name=name,
        label=_text(node.get("/TU")),
        field_type=_text(attrs.get("/FT")),
        flags=int(attrs.get("/Ff", 0)),
        da=_text(attrs.get("/DA")),
        quadding=int(attrs.get("/Q", 0)),
        max_length=int(attrs["/MaxLen"]) if "/MaxLen" in attrs else None,
        widgets=widgets,
    )


def _style_from(terminal: _Terminal, widget: DictionaryObject) -> tuple[Style, bool]:
    """Font size, colour and alignment from the field's appearance; auto size when size is 0."""
    da = _text(widget.get("/DA")) or terminal.da
    quadding = int(widget.get("/Q", terminal.quadding))
    font = _DA_FONT.search(da)
    size = float(font.group(2)) if font else None
    color = None
    if rgb := _DA_RGB.search(da):
        color = "#" + "".join(
            f"{round(max(0.0, min(1.0, float(c))) * 255):02X}" for c in rgb.groups()
        )
    elif gray := _DA_GRAY.search(da):
        level = round(max(0.0, min(1.0, float(gray.group(1)))) * 255)
        color = f"#{level:02X}{level:02X}{level:02X}"
    alignment = {1: "center", 2: "right"}.get(quadding)
    style = Style(
        font_size=size if size else None,
        text_color=color if color not in (None, "#000000") else None,
        alignment=alignment,
    )
    return style, size == 0


def _rotation(widget: DictionaryObject) -> int:
    mk = widget.get("/MK")
    rotation = int(mk.get_object().get("/R", 0)) if mk is not None else 0
    return rotation % 360 if rotation % 90 == 0 else 0


def _on_state(widget: DictionaryObject) -> str | None:
    ap = widget.get("/AP")
    normal = ap.get_object().get("/N") if ap is not None else None
    if normal is None or not isinstance(normal.get_object(), DictionaryObject):
        return None
    states = [str(key)[1:] for key in normal.get_object() if key != "/Off"]
    return states[0] if states else None


def _page_spec(page: Any) -> PageSpec:
    box = page.mediabox
    x0, y0, x1, y1 = (float(v) for v in (box.left, box.bottom, box.right, box.top))
    return PageSpec(
        width=x1 - x0,
        height=y1 - y0,
        rotate=int(page.get("/Rotate", 0) or 0) % 360,
        media_box=(x0, y0, x1, y1),
    )


def _open(data: bytes) -> PdfReader:
    """A reader of ``data``, decrypted when its user password is empty.

    Many published forms are encrypted with an empty user password: any viewer opens them and
    only permissions (editing, printing) are restricted. Opened with "", every object reads in
    clear, and the base PDF written from them has no /Encrypt. A real password is a wall.
    """
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
    except NotImplementedError as exc:  # pypdf reads only the password (/Standard) handler
        raise ImportRefused(
            "encrypted",
            "The PDF is encrypted for certificate holders; remove its protection and upload again.",
        ) from exc
    if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise ImportRefused(
            "encrypted",
            "The PDF needs a password to open; remove its password protection and upload again.",
        )
    return reader


def _read(data: bytes) -> PdfReader:
    if b"%PDF-" not in data[:1024]:
        raise ImportRefused("not_pdf", "The file is not a PDF.")
    try:
        reader = _open(data)
        page_count = len(reader.pages)
        for page in reader.pages:
            _ = page.mediabox
    except ImportRefused:
        raise
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.") from exc
    if page_count == 0:
        raise ImportRefused("damaged", "The PDF has no pages.")
    if page_count > MAX_IMPORT_PAGES:
        raise ImportRefused("too_many_pages", f"A template has at most {MAX_IMPORT_PAGES} pages.")
    return reader


def _field_specs(reader: PdfReader) -> list[FieldSpec]:
    acroform = _acroform(reader)
    if acroform is None:
        return []
    page_of: dict[int, int] = {}
    for index, page in enumerate(reader.pages):
        for annot in page.get("/Annots") or []:
            if hasattr(annot, "idnum"):
                page_of[annot.idnum] = index

    fields: list[_Field] = []
    for root in acroform.get("/Fields") or []:
        for terminal in _walk_fields(root.get_object(), "", {}):
            field = _field_of(terminal, page_of)
            if field is not None:
                fields.append(field)
    _name_fields(fields, reader)
    specs: list[FieldSpec] = []
    for field in fields:
        specs.extend(_specs_of(field, start=len(specs) + 1))
    return specs


@dataclass
class _Field:
    """A terminal field that has something to fill, placed on its pages, and its names."""

    terminal: _Terminal
    kind: str  # "radioGroup", "checkbox", "signature" or "text"
    placed: list[tuple[DictionaryObject, int, Rect]]
    alias: str = ""
    label: str = ""


def _page_index(widget: DictionaryObject, page_of: dict[int, int]) -> int | None:
    ref = widget.indirect_reference
    if ref is not None and ref.idnum in page_of:
        return page_of[ref.idnum]
    return None


def _field_of(terminal: _Terminal, page_of: dict[int, int]) -> _Field | None:
    kind = terminal.field_type
    if kind == "/Btn" and terminal.flags & FF_PUSHBUTTON:
        return None  # buttons carry no data
    placed = []
    for widget in terminal.widgets:
        page = _page_index(widget, page_of)
        if page is None or "/Rect" not in widget:
            continue  # a widget on no page is invisible: nothing to fill
        placed.append((widget, page, _rect_of(widget)))
    if not placed:
        return None
    if kind == "/Sig":
        return _Field(terminal=terminal, kind="signature", placed=placed)
    if kind != "/Btn":
        return _Field(terminal=terminal, kind="text", placed=placed)
    kind = "radioGroup" if terminal.flags & FF_RADIO else "checkbox"
    return _Field(terminal=terminal, kind=kind, placed=placed)


def _name_fields(fields: list[_Field], reader: PdfReader) -> None:
    """Give each field its alias and label (see ``aliases``): aliases unique in the template."""
    lines: dict[int, list[TextLine]] = {}

    def lines_of(page: int) -> list[TextLine]:
        if page not in lines:
            lines[page] = page_lines(reader.pages[page])
        return lines[page]

    # The label found for a group of fields (the same name above them), for the members of the
    # group that have none of their own: the three comb boxes of one SSN under one caption.
    group_labels: dict[str, tuple[str, str]] = {}
    for number, item in enumerate(fields, start=1):
        terminal = item.terminal
        parts = name_parts(terminal.name)
        tooltip = label_phrase(terminal.label) if terminal.label.strip() else None
        item.label = terminal.label
        alias = identifier_from_name(parts[-1]) if parts else None
        if alias is None and tooltip is not None:
            alias = identifier_from_phrase(tooltip)
        if alias is None and item.kind == "signature":
            alias = "signature"  # Acrobat's "Signature1": what is printed near is no better
        if alias is None:
            _widget, page, rect = item.placed[0]
            if item.kind == "radioGroup":
                rect = _union([r for _w, _p, r in item.placed])
            group = terminal.name.rpartition(".")[0]
            for found in labels_near(rect, lines_of(page), kind=item.kind):
                phrase = label_phrase(found.text, last=found.side == "left")
                named = identifier_from_phrase(phrase) if phrase else None
                if named is not None and phrase is not None:
                    alias, item.label = named, item.label or phrase
                    if group:
                        group_labels.setdefault(group, (named, phrase))
                    break
            else:
                if group in group_labels:
                    alias, phrase = group_labels[group]
                    item.label = item.label or phrase
        if alias is None:
            alias = next(
                (a for part in reversed(parts[:-1]) if (a := identifier_from_name(part))), None
            )
        if alias is None and parts and (words := ascii_words(parts[-1])):
            alias = camel_case(words)
        item.alias = alias or f"field{number}"
    for item, alias in zip(fields, unique_aliases(f.alias for f in fields), strict=True):
        item.alias = alias


def _specs_of(field: _Field, start: int) -> list[FieldSpec]:
    terminal, placed = field.terminal, field.placed

    if field.kind == "radioGroup":
        options: list[RadioOption] = []
        seen: set[str] = set()
        for widget, _page, rect in placed:
            option_id = _on_state(widget) or f"option{len(options) + 1}"
            while option_id in seen:
                option_id += "_"
            seen.add(option_id)
            options.append(RadioOption(id=option_id, rect=rect))
        widget, page, _ = placed[0]
        union = _union([option.rect for option in options])
        return [
            FieldSpec(
                id=f"f{start}",
                type="radioGroup",
                page=page,
                rect=union,
                options=tuple(options),
                alias=field.alias,
                label=field.label,
                name=terminal.name,
            )
        ]

    kind = terminal.field_type
    specs = []
    for offset, (widget, page, rect) in enumerate(placed):
        style, auto_size = _style_from(terminal, widget)
        # Single-line text, password, and choice fields (combo and list) take text.
        base = FieldSpec(
            id=f"f{start + offset}",
            type="shortText",
            page=page,
            rect=rect,
            style=style,
            rotation=_rotation(widget),
            auto_size=auto_size,
            alias=field.alias,
            label=field.label,
            name=terminal.name,
        )
        if field.kind == "signature":
            # Signed in a packet, stamped at the rect: no text style of the form applies.
            specs.append(replace(base, type="signature", style=Style(), auto_size=False))
        elif field.kind == "checkbox":
            specs.append(replace(base, type="checkbox", auto_size=False))
        elif kind == "/Tx" and terminal.flags & FF_COMB and terminal.max_length:
            boxes = _comb_boxes(rect, terminal.max_length)
            specs.append(
                replace(base, type="charList", max_length=terminal.max_length, boxes=boxes)
            )
        elif kind == "/Tx" and terminal.flags & FF_MULTILINE:
            specs.append(replace(base, type="longText"))
        else:
            specs.append(base)
    return specs


def _comb_boxes(rect: Rect, count: int) -> tuple[Rect, ...]:
    width = rect.width / count
    return tuple(Rect(rect.x + i * width, rect.y, width, rect.height) for i in range(count))


def _union(rects: list[Rect]) -> Rect:
    x0 = min(r.x for r in rects)
    y0 = min(r.y for r in rects)
    return Rect(x0, y0, max(r.right for r in rects) - x0, max(r.top for r in rects) - y0)


def _color_operator(color: Any, stroke: bool) -> str | None:
    values = [float(v) for v in color] if color is not None else []
    ops = {1: ("g", "G"), 3: ("rg", "RG"), 4: ("k", "K")}
    if len(values) not in ops:
        return None
    op = ops[len(values)][1 if stroke else 0]
    return " ".join(f"{v:.4f}" for v in values) + f" {op}"


def _static_paint(widget: DictionaryObject) -> str:
    """Content-stream operators repainting a widget's background and border, if it had any."""
    mk = widget.get("/MK")
    if mk is None or "/Rect" not in widget:
        return ""
    mk = mk.get_object()
    rect = _rect_of(widget)
    ops = []
    if (fill := _color_operator(mk.get("/BG"), stroke=False)) is not None:
        ops.append(f"q {fill} {rect.x:.3f} {rect.y:.3f} {rect.width:.3f} {rect.height:.3f} re f Q")
    if (stroke := _color_operator(mk.get("/BC"), stroke=True)) is not None:
        bs = widget.get("/BS")
        width = float(bs.get_object().get("/W", 1)) if bs is not None else 1.0
        if width > 0:
            half = width / 2
            ops.append(
                f"q {stroke} {width:.3f} w {rect.x + half:.3f} {rect.y + half:.3f} "
                f"{rect.width - width:.3f} {rect.height - width:.3f} re S Q"
            )
    return "\n".join(ops)


def _widget_paint(reader: PdfReader) -> list[str]:
    """For each page, the operators repainting its visible widgets' backgrounds and borders."""
    pages = []
    for page in reader.pages:
        annots = page.get("/Annots")
        paint = []
        for ref in annots.get_object() if annots is not None else ():
            annot = ref.get_object()
            if (
                isinstance(annot, DictionaryObject)
                and annot.get("/Subtype") == "/Widget"
                and not int(annot.get("/F", 0)) & ANNOT_HIDDEN
            ):
                paint.append(_static_paint(annot))
        pages.append("\n".join(p for p in paint if p))
    return pages


def _base_pdf(data: bytes, paint: list[str]) -> bytes:
    """The stored base: ``data`` without its interactive form, the widgets' paint kept as page
    content, written whole by qpdf (repaired, decrypted, structurally sound)."""
    try:
        pdf = open_pdf(data)
    except PdfUnreadable as exc:
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.") from exc
    if len(pdf.pages) != len(paint):  # the two readers disagree: too damaged to trust
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.")
    drawing = PageDrawing(pdf)
    for page, operators in zip(pdf.pages, paint, strict=True):
        annots = page.obj.get("/Annots")
        if annots is not None:
            kept = [
                annot
                for annot in (annots if isinstance(annots, pikepdf.Array) else ())
                if not (
                    isinstance(annot, pikepdf.Dictionary)
                    and annot.get("/Subtype") == pikepdf.Name.Widget
                )
            ]
            if kept:
                page.obj.Annots = pikepdf.Array(kept)
            else:
                del page.obj["/Annots"]
        if operators:
            drawing.append(page.obj, drawing.stream(operators.encode()))
    root = pdf.Root
    for key in ("/AcroForm", "/NeedsRendering", "/Perms"):
        if key in root:
            del root[key]
    return save_pdf(pdf)


def import_pdf(data: bytes) -> ImportedTemplate:
    """Read a PDF's pages and form fields; return the template spec and the cleaned base PDF."""
    reader = _read(data)
    try:
        pages = tuple(_page_spec(page) for page in reader.pages)
        fields = _field_specs(reader)
        acroform = _acroform(reader)
        if acroform is not None and "/XFA" in acroform and not fields:
            has_listed_fields = bool(acroform.get("/Fields"))
            if not has_listed_fields:
                raise ImportRefused(
                    "xfa_only",
                    "The PDF is an XFA-only form (no AcroForm fields). Save it as a static "
                    "AcroForm PDF and upload again.",
                )
        pdf = _base_pdf(data, _widget_paint(reader))
    except ImportRefused:
        raise
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.") from exc
    return ImportedTemplate(spec=TemplateSpec(pages=pages, fields=tuple(fields)), pdf=pdf)
