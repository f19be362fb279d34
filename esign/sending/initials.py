"""Initials on every page (esign.packets.initials reads the option): once a packet's documents are
made and their pages known, each signer who asked for them is given an initials field on every
page of the documents they named, placed by their ``initialsPosition``, else the document's
template's own initials field (its rect, on every page), else the page's bottom-right corner. A
page where the signer already has an initials field keeps that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.engine.template_spec import Rect
from esign.engine.pages import page_boxes
from esign.packets.initials import ALL_FILES
from esign.packets.inputs import FileInput, MadeFile, PacketInput, SignField

# The bottom-right corner's field, in points: its size and its distance from the page's edges.
CORNER_WIDTH, CORNER_HEIGHT, CORNER_MARGIN = 72.0, 30.0, 36.0


def _where(file: FileInput, made: MadeFile, pdf: bytes, position: Rect | None) -> list[Rect]:
    """Each page's initials rect: the signer's position, the template's initials field, or the
    page's bottom-right corner."""
    if position is not None:
        return [position] * made.pages
    template = made.template
    own = next((f for f in template.fields if f.type == "initial"), None) if template else None
    if own is not None:
        return [own.rect] * made.pages
    rects = []
    for box in page_boxes(pdf):
        _x0, y0, x1, _y1 = box.view
        rects.append(
            Rect(
                x1 - CORNER_MARGIN - CORNER_WIDTH,
                y0 + CORNER_MARGIN,
                CORNER_WIDTH,
                CORNER_HEIGHT,
            )
        )
    return rects


def page_initials_added(
    files: list[FileInput],
    packet_input: PacketInput,
    made: Sequence[MadeFile],
    pdfs: Sequence[bytes],
) -> tuple[list[FileInput], PacketInput]:
    """The files with an initials field on each page for every signer who asked for them, and
    the packet's signers given those fields."""
    files = list(files)
    signers = []
    for signer in packet_input.signers:
        if not signer.initials_files:
            signers.append(signer)
            continue
        given = list(signer.fields)
        for index, file in enumerate(files):
            if ALL_FILES not in signer.initials_files and file.id not in signer.initials_files:
                continue
            by_id = {f.id: f for f in file.fields}
            initialled = {
                by_id[field_id].page
                for file_id, field_id in signer.fields
                if file_id == file.id and field_id in by_id and by_id[field_id].type == "initial"
            }
            added = []
            rects = _where(file, made[index], pdfs[index], signer.initials_position)
            for page, rect in enumerate(rects):
                if page in initialled:
                    continue
                field_id = f"initials-{signer.alias_id}-{page + 1}"
                while field_id in by_id:
                    field_id += "-"
                added.append(SignField(id=field_id, type="initial", page=page, rect=rect))
                given.append((file.id, field_id))
            files[index] = replace(file, fields=(*file.fields, *added))
        signers.append(replace(signer, fields=tuple(given)))
    return files, replace(packet_input, signers=tuple(signers))
