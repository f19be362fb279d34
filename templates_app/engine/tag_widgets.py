"""The fields text tags placed, written into the PDF as AcroForm fields: a PDF any viewer or
signing tool fills and signs where the tags were.

The dictionaries are the fill engine's (``fill.engine.assemble``: /Helv and /ZaDb in the
form's resources, the same /DA, a checkbox's /Yes and /Off states with ZapfDingbats' check,
``MK /CA 4``), written here because the engines of fill and templates are kept independent of
each other (pyproject's import contracts) and generate may not use fill. Signatures and
initials are signature fields (/FT /Sig), which the importer reads back as ``signature``
fields (``pdf_import``); every other type is a text field, a checkbox a check box.

Pure Python (pikepdf).
"""

from __future__ import annotations

from collections.abc import Sequence

import pikepdf
from pikepdf import Array, Dictionary, Name, String

from core.engine.pdf import number, open_pdf, rect_array, save_pdf
from templates_app.engine.text_tags import TagField

FF_READ_ONLY = 1
FF_REQUIRED = 2
FLAG_PRINT = 4
SIG_FLAGS_SIGNATURES_EXIST = 1
_SIGNATURE_TYPES = ("signature", "initial")


def _checkbox_on(
    pdf: pikepdf.Pdf, width: float, height: float, dingbats: pikepdf.Object
) -> pikepdf.Object:
    """The /Yes appearance: ZapfDingbats' check (4), centred, 80% of the box's height."""
    size = 0.8 * min(height, width / 0.846)  # the check is 0.846 em wide
    x = (width - 0.846 * size) / 2
    y = (height - 0.7 * size) / 2
    content = f"q 0 g BT /ZaDb {size:.2f} Tf {x:.2f} {y:.2f} Td (4) Tj ET Q".encode()
    return pdf.make_stream(
        content,
        Type=Name.XObject,
        Subtype=Name.Form,
        BBox=Array([0, 0, number(width), number(height)]),
        Resources=Dictionary(Font=Dictionary(ZaDb=dingbats)),
    )


def add_tag_fields(data: bytes, fields: Sequence[TagField]) -> bytes:
    """The PDF ``data`` with an AcroForm field for each of ``fields`` (named by its alias,
    described by its name or label), beside the form's own fields if it has any."""
    if not fields:
        return data
    pdf = open_pdf(data)
    helvetica = pdf.make_indirect(
        Dictionary(
            Type=Name.Font,
            Subtype=Name.Type1,
            BaseFont=Name.Helvetica,
            Encoding=Name.WinAnsiEncoding,
        )
    )
    dingbats = pdf.make_indirect(
        Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.ZapfDingbats)
    )
    empty = pdf.make_stream(b"", Type=Name.XObject, Subtype=Name.Form, BBox=Array([0, 0, 1, 1]))
    root = pdf.Root
    acroform = root.get("/AcroForm")
    if acroform is None:
        acroform = root.AcroForm = pdf.make_indirect(Dictionary(Fields=Array()))
    if "/Fields" not in acroform:
        acroform.Fields = Array()
    resources = acroform.get("/DR") or Dictionary()
    fonts = resources.get("/Font") or Dictionary()
    fonts.Helv, fonts.ZaDb = helvetica, dingbats
    resources.Font = fonts
    acroform.DR = resources
    if "/DA" not in acroform:
        acroform.DA = String("/Helv 0 Tf 0 g")
    any_default = False
    for item in fields:
        tag, rect = item.tag, item.rect
        page = pdf.pages[item.page].obj
        flags = (FF_READ_ONLY if tag.read_only else 0) | (FF_REQUIRED if tag.required else 0)
        widget = Dictionary(
            Type=Name.Annot,
            Subtype=Name.Widget,
            Rect=rect_array((rect.x, rect.y, rect.right, rect.top)),
            P=page,
            F=FLAG_PRINT,
            T=String(item.alias),
            Ff=flags,
        )
        if tag.name or tag.label:
            widget.TU = String(tag.label or tag.name)
        if item.type in _SIGNATURE_TYPES:
            widget.FT = Name.Sig
            widget.AP = Dictionary(N=empty)
            acroform.SigFlags = SIG_FLAGS_SIGNATURES_EXIST
        elif item.type == "checkbox":
            checked = tag.default.lower() in ("true", "yes", "1", "on", "checked")
            widget.FT = Name.Btn
            widget.DA = String("/ZaDb 0 Tf 0 g")
            widget.V = widget.AS = Name.Yes if checked else Name.Off
            widget.MK = Dictionary(CA=String("4"))
            on = _checkbox_on(pdf, rect.width, rect.height, dingbats)
            widget.AP = Dictionary(N=Dictionary(Yes=on, Off=empty))
        else:
            size = round(item.font_size, 1) if item.font_size >= 4 else 0
            widget.FT = Name.Tx
            widget.DA = String(f"/Helv {number(size)} Tf 0 g")
            widget.AP = Dictionary(N=empty)
            if tag.default:
                widget.V = String(tag.default)
                any_default = True
        ref = pdf.make_indirect(widget)
        annots = page.get("/Annots")
        if annots is None:
            page.Annots = Array()
            annots = page.Annots
        annots.append(ref)
        acroform.Fields.append(ref)
    if any_default:
        # A default value has no appearance of ours: viewers draw it.
        acroform.NeedAppearances = True
    return save_pdf(pdf)
