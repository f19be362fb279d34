"""The files of createEtchPacket (``files``), read from their wire form (esign.packets.inputs):
each file's source (a template's ``castEid``, an uploaded PDF or Office document and its text
tags, HTML markup or Markdown blocks) and the fields its signers fill.

Every problem names the argument it is about (``files.1.fields.0.rect``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.engine.office_sniff import is_office_document, pdf_name
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from core.errors import ValidationFailed
from core.uploads import UploadedBlob, blob_from_inline
from esign.packets.file_tags import read_file_tags
from esign.packets.input_data import FileInput, SignField
from esign.packets.input_values import is_number, one_line, stripped
from esign.packets.updates import prefilled_value

# Field types a signer fills: signatures and initials are stamped; signatureDate gets the date
# of signing; the others take what the signer types (or ticks).
STAMP_TYPES = frozenset({"signature", "initial"})
SIGNER_FIELD_TYPES = frozenset(
    {"signature", "initial", "signatureDate", "shortText", "longText", "fullName", "email"}
    | {"date", "checkbox", "text"}
)
MAX_FILES = 50


def _sign_fields(raw: Any, path: str, problems: list[Problem]) -> tuple[SignField, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(Problem(path, "Must be a list of fields."))
        return ()
    fields: list[SignField] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = f"{path}.{index}"
        if not isinstance(item, Mapping):
            problems.append(Problem(where, "Must be an object."))
            continue
        if "type" not in item and ("content" in item or "heading" in item or "table" in item):
            continue  # a Markdown block, not a field
        field_id, kind = stripped(item.get("id")), item.get("type")
        if not field_id:
            problems.append(Problem(f"{where}.id", "Required"))
        elif field_id in seen:
            problems.append(Problem(f"{where}.id", f"Duplicate field id {field_id!r}."))
        seen.add(field_id)
        if not isinstance(kind, str) or kind not in SIGNER_FIELD_TYPES:
            problems.append(
                Problem(f"{where}.type", f"Must be one of {', '.join(sorted(SIGNER_FIELD_TYPES))}.")
            )
        page = item.get("pageNum", item.get("page", 0))
        if not isinstance(page, int) or isinstance(page, bool) or page < 0:
            problems.append(Problem(f"{where}.pageNum", "Must be a page index from 0."))
            page = 0
        rect = item.get("rect")
        if not isinstance(rect, Mapping) or not all(
            is_number(rect.get(k)) for k in ("x", "y", "width", "height")
        ):
            problems.append(Problem(f"{where}.rect", "Must be {x, y, width, height} in points."))
            continue
        if rect["width"] <= 0 or rect["height"] <= 0:
            problems.append(Problem(f"{where}.rect", "Width and height must be positive."))
            continue
        fields.append(
            SignField(
                id=field_id,
                type=str(kind),
                page=page,
                rect=Rect(
                    float(rect["x"]), float(rect["y"]), float(rect["width"]), float(rect["height"])
                ),
                value=prefilled_value(item, kind, where, problems),
            )
        )
    return tuple(fields)


def _upload(value: Any, path: str, problems: list[Problem]) -> UploadedBlob | None:
    if isinstance(value, UploadedBlob):
        blob = value
    elif isinstance(value, Mapping):
        try:
            blob = blob_from_inline(dict(value), property=path)
        except ValidationFailed as invalid:
            problems.extend(Problem(f.property, f.message) for f in invalid.fields)
            return None
    else:
        problems.append(Problem(path, "Must be an uploaded file."))
        return None
    # An Office document is converted when the packet's documents are made (esign.sending).
    if not blob.looks_like_pdf and not is_office_document(blob.data):
        problems.append(
            Problem(path, "The file is not a PDF, nor a Word, OpenDocument or RTF document.")
        )
        return None
    return blob


def file_input(raw: Any, index: int, problems: list[Problem]) -> FileInput | None:
    path = f"files.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    file_id = stripped(raw.get("id"))
    if not file_id:
        problems.append(Problem(f"{path}.id", "Required"))
    fields = _sign_fields(raw.get("fields"), f"{path}.fields", problems)
    title = one_line(raw.get("title"), f"{path}.title", problems)
    upload_key = "file" if raw.get("file") is not None else "base64File"
    upload = raw.get(upload_key)
    uploaded_name = upload.filename if isinstance(upload, UploadedBlob) else None
    if isinstance(upload, Mapping):
        uploaded_name = upload.get("filename")
    filename = (
        one_line(raw.get("filename"), f"{path}.filename", problems)
        or one_line(uploaded_name, f"{path}.{upload_key}.filename", problems)
        or f"{title or file_id or 'document'}.pdf"
    )
    common: dict[str, Any] = {
        "id": file_id,
        "title": title,
        "filename": pdf_name(filename),
        "fields": fields,
        "font_size": raw.get("fontSize") if is_number(raw.get("fontSize")) else None,
        "text_color": raw.get("textColor") if isinstance(raw.get("textColor"), str) else None,
    }
    markup = raw.get("markup")
    sources = [
        name
        for name, present in (
            ("castEid", raw.get("castEid") is not None),
            ("file", upload is not None),
            ("markup", markup is not None),
        )
        if present
    ]
    if len(sources) > 1:
        problems.append(Problem(path, f"Give one source, not {' and '.join(sources)}."))
        return None
    if raw.get("castEid") is not None:
        cast_eid = stripped(raw.get("castEid"))
        if not cast_eid:
            problems.append(Problem(f"{path}.castEid", "Must be a template eid."))
        return FileInput(cast_eid=cast_eid, **common)
    if upload is not None:
        blob = _upload(upload, f"{path}.file", problems)
        if blob is None:
            return None
        taken = [f.id for f in fields]
        blob, tagged = read_file_tags(blob, path=f"{path}.file", taken=taken, problems=problems)
        common["fields"] += tuple(SignField(t.id, t.type, t.page, t.rect) for t in tagged)
        return FileInput(upload=blob, tagged=tagged, **common)
    if markup is not None:
        if not isinstance(markup, Mapping) or not isinstance(markup.get("html"), str):
            problems.append(Problem(f"{path}.markup", "Must be {html, css}."))
            return None
        css = markup.get("css")
        return FileInput(html=markup["html"], css=css if isinstance(css, str) else "", **common)
    blocks = tuple(
        item for item in raw.get("fields") or () if isinstance(item, Mapping) and "type" not in item
    )
    if not blocks:
        problems.append(
            Problem(path, "Needs a source: castEid, file (a PDF), markup or Markdown blocks.")
        )
        return None
    return FileInput(markdown_blocks=blocks, **common)
