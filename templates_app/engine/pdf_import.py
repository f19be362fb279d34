"""Import a PDF as a template: its AcroForm fields become template fields.

Signature fields (/FT /Sig) become ``signature`` fields, at their widgets' rects: a signer signs
them in a packet (createEtchPacket assigns them by id); fill never draws them.

Each field gets a usable alias (``templates_app.engine.aliases``: from its name when that is
meaningful, else its tooltip or the label printed beside it), unique within the template; its
full name is kept in ``name`` and the human text (tooltip or printed label) in ``label``.

The stored base PDF has the interactive fields removed, their paint kept
(``templates_app.engine.base_pdf``); the fields are read by ``templates_app.engine.acroform``.
A PDF encrypted with an empty user password is opened with it and stored without encryption.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace
from typing import Any

from pypdf import PasswordType, PdfReader, apply_configuration
from pypdf.errors import LimitReachedError, PdfReadError, PyPdfError
from pypdf.generic import DictionaryObject

from core.engine.template_spec import (
    FieldSpec,
    PageSpec,
    RadioOption,
    Rect,
    Style,
    TemplateSpec,
)
from templates_app.engine.acroform import (
    FF_COMB,
    FF_MULTILINE,
    FF_PUSHBUTTON,
    FF_RADIO,
    Terminal,
    acroform_of,
    on_state,
    rect_of,
    rotation_of,
    style_from,
    walk_fields,
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
from templates_app.engine.base_pdf import base_pdf, widget_paint
from templates_app.engine.errors import ImportRefused
from templates_app.engine.page_text import TextLine, labels_near, page_lines

MAX_IMPORT_PAGES = 500
# pypdf walks a page tree to 100,000 entries, a page listed many times counted each time (a few
# hundred bytes of nested /Kids name billions): seconds of the web process before the count is
# known. A template's pages and the nodes above them need far fewer.
PAGE_TREE_MAX_ENTRIES = 4 * MAX_IMPORT_PAGES
TOO_MANY_PAGES = f"A template has at most {MAX_IMPORT_PAGES} pages."


@dataclass(frozen=True)
class ImportedTemplate:
    spec: TemplateSpec
    pdf: bytes


def _page_spec(page: Any) -> PageSpec:
    box = page.mediabox
    left, bottom, right, top = (float(v) for v in (box.left, box.bottom, box.right, box.top))
    # Any two opposite corners make the box (ISO 32000 7.9.5), as every viewer shows it.
    x0, y0, x1, y1 = min(left, right), min(bottom, top), max(left, right), max(bottom, top)
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
        with apply_configuration(page_tree_maximum_entries=PAGE_TREE_MAX_ENTRIES):
            page_count = len(reader.pages)
        if page_count == 0:
            raise ImportRefused("damaged", "The PDF has no pages.")
        if page_count > MAX_IMPORT_PAGES:
            raise ImportRefused("too_many_pages", TOO_MANY_PAGES)
        for number, page in enumerate(reader.pages, start=1):
            spec = _page_spec(page)
            if spec.width <= 0 or spec.height <= 0:
                raise ImportRefused(
                    "damaged",
                    f"Page {number} has no area (its MediaBox is {spec.width:g} x "
                    f"{spec.height:g} points).",
                )
    except ImportRefused:
        raise
    except LimitReachedError as exc:
        # The page tree's entries ran past the bound above; another of pypdf's limits: damaged.
        if "page tree entry" not in str(exc):
            raise ImportRefused("damaged", "The PDF is damaged and cannot be read.") from exc
        raise ImportRefused("too_many_pages", TOO_MANY_PAGES) from exc
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.") from exc
    return reader


def _field_specs(reader: PdfReader) -> list[FieldSpec]:
    acroform = acroform_of(reader)
    if acroform is None:
        return []
    page_of: dict[int, int] = {}
    for index, page in enumerate(reader.pages):
        for annot in page.get("/Annots") or []:
            if hasattr(annot, "idnum"):
                page_of[annot.idnum] = index

    fields: list[_Field] = []
    for root in acroform.get("/Fields") or []:
        for terminal in walk_fields(root.get_object(), "", {}):
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

    terminal: Terminal
    kind: str  # "radioGroup", "checkbox", "signature" or "text"
    placed: list[tuple[DictionaryObject, int, Rect]]
    alias: str = ""
    label: str = ""


def _page_index(widget: DictionaryObject, page_of: dict[int, int]) -> int | None:
    ref = widget.indirect_reference
    if ref is not None and ref.idnum in page_of:
        return page_of[ref.idnum]
    return None


def _field_of(terminal: Terminal, page_of: dict[int, int]) -> _Field | None:
    kind = terminal.field_type
    if kind == "/Btn" and terminal.flags & FF_PUSHBUTTON:
        return None  # buttons carry no data
    placed = []
    for widget in terminal.widgets:
        page = _page_index(widget, page_of)
        if page is None or "/Rect" not in widget:
            continue  # a widget on no page is invisible: nothing to fill
        placed.append((widget, page, rect_of(widget)))
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
            option_id = on_state(widget) or f"option{len(options) + 1}"
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
        style, auto_size = style_from(terminal, widget)
        # Single-line text, password, and choice fields (combo and list) take text.
        base = FieldSpec(
            id=f"f{start + offset}",
            type="shortText",
            page=page,
            rect=rect,
            style=style,
            rotation=rotation_of(widget),
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


def import_pdf(data: bytes) -> ImportedTemplate:
    """Read a PDF's pages and form fields; return the template spec and the cleaned base PDF."""
    reader = _read(data)
    try:
        pages = tuple(_page_spec(page) for page in reader.pages)
        fields = _field_specs(reader)
        acroform = acroform_of(reader)
        if acroform is not None and "/XFA" in acroform and not fields:
            has_listed_fields = bool(acroform.get("/Fields"))
            if not has_listed_fields:
                raise ImportRefused(
                    "xfa_only",
                    "The PDF is an XFA-only form (no AcroForm fields). Save it as a static "
                    "AcroForm PDF and upload again.",
                )
        pdf = base_pdf(data, widget_paint(reader))
    except ImportRefused:
        raise
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.") from exc
    return ImportedTemplate(spec=TemplateSpec(pages=pages, fields=tuple(fields)), pdf=pdf)
