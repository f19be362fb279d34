"""The files of createEtchPacket (``files``), read from their wire form (esign.packets.inputs):
each file's source (a template's ``castEid``, an uploaded PDF or Office document and its text
tags, HTML markup or Markdown blocks) and the fields its signers fill. What a file object and
its fields take, their messages and their schema are declared once in esign.engine.file_model,
and how a file is read with them in esign.engine.file_reading; this module reads what needs
the service: the upload (decoded, sniffed, read for text tags) and a field's ``value``
(esign.packets.updates).

Every problem names the argument it is about (``files.1.fields.0.rect``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.engine.office_sniff import is_office_document, pdf_name
from core.engine.problems import Problem
from core.errors import ValidationFailed
from core.uploads import UploadedBlob, blob_from_inline
from esign.engine.file_reading import PROBLEM_ORDER, read_file
from esign.packets.file_tags import read_file_tags
from esign.packets.input_data import FileInput, SignField
from esign.packets.input_values import one_line
from esign.packets.updates import prefilled_value


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
    """The file ``raw`` (the ``index``-th), its problems appended to ``problems``; None when it
    cannot be read (no source, or a source refused)."""
    path = f"files.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    read = read_file(raw, path, prefilled_value)
    problems.extend(problem for slot in PROBLEM_ORDER for problem in read.problems.get(slot, ()))
    values = read.values
    upload_key = "file" if raw.get("file") is not None else "base64File"
    upload = raw.get(upload_key)
    uploaded_name = upload.filename if isinstance(upload, UploadedBlob) else None
    if isinstance(upload, Mapping):
        uploaded_name = upload.get("filename")
    filename = (
        values["filename"]
        or one_line(uploaded_name, f"{path}.{upload_key}.filename", problems)
        or f"{values['title'] or values['id'] or 'document'}.pdf"
    )
    fields = tuple(SignField(f.id, f.type, f.page, f.rect, value=f.value) for f in read.fields)
    common: dict[str, Any] = {
        "id": values["id"],
        "title": values["title"],
        "filename": pdf_name(filename),
        "fields": fields,
        "font_size": values["font_size"],
        "text_color": values["text_color"],
    }
    if "source" in read.problems:
        problems.extend(read.problems["source"])
        return None
    if read.sources == ("castEid",):
        problems.extend(read.problems.get("castEid", ()))
        return FileInput(cast_eid=values["cast_eid"] or "", **common)
    if read.sources == ("file",):
        blob = _upload(upload, f"{path}.file", problems)
        if blob is None:
            return None
        taken = [f.id for f in fields]
        blob, tagged = read_file_tags(blob, path=f"{path}.file", taken=taken, problems=problems)
        common["fields"] += tuple(SignField(t.id, t.type, t.page, t.rect) for t in tagged)
        return FileInput(upload=blob, tagged=tagged, **common)
    if read.sources == ("markup",):
        if "markup" in read.problems:
            problems.extend(read.problems["markup"])
            return None
        markup = values["markup"]
        return FileInput(html=markup.html, css=markup.css, **common)
    return FileInput(markdown_blocks=read.blocks, **common)
