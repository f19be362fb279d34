"""Text tags in a packet's uploaded file: ``{{Signature;role=Tenant}}`` written in the document
places a field of the packet (docs/text-tags.md).

An uploaded file is read at parse time (esign.packets.inputs): a PDF as it came, an Office
document converted first, but only when its text may hold a tag (a ``{{`` in its XML once the
markup is stripped), so an untagged document is converted once, when the packet's documents
are made, and keeps its source beside the packet. A file with tags is replaced by the PDF
without the tags' text (``apply_text_tags``, as templates read them); the tags become fields
of the file, and a signer given no fields gets the tagged fields that name them.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings

from core.engine.office_sniff import is_office_document
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from core.errors import ValidationFailed
from core.office import pdf_of_upload
from core.uploads import UploadedBlob
from templates_app.engine.aliases import unique_aliases
from templates_app.engine.detect_fields import DetectRefused
from templates_app.engine.tag_grammar import Tag
from templates_app.engine.text_tags import apply_text_tags

# A tag's type as a packet's field type: the signer's name is the packet's fullName; the
# others a signer fills are the same (esign.engine.file_model.SIGNER_FIELD_TYPES).
PACKET_TYPES = {
    "signature": "signature",
    "initial": "initial",
    "signatureDate": "signatureDate",
    "signerName": "fullName",
    "shortText": "shortText",
    "longText": "longText",
    "text": "text",
    "email": "email",
    "date": "date",
    "checkbox": "checkbox",
}
# An Office part read for "{{" at most this big (a zip bomb is refused by the converter, not
# unpacked here): a larger one is converted to be sure.
MAX_PART_BYTES = 20 * 1_048_576
_MARKUP = re.compile(rb"<[^>]*>")


@dataclass(frozen=True)
class TaggedField:
    """A field of a file placed by a tag, and whom the tag names."""

    id: str  # the tag's alias, unique among the file's fields
    type: str  # a packet field type
    page: int
    rect: Rect
    tag: Tag

    def describe(self) -> str:
        """The tag as the author knows it: its name and whom it names."""
        named = [f"role={self.tag.role}"] if self.tag.role else []
        named += [f"signer={self.tag.signer}"] if self.tag.signer is not None else []
        name = self.tag.name or self.tag.type
        whom = f" ({', '.join(named)})" if named else ""
        return f"Text tag {name!r}{whom}"


def _may_hold_tags(data: bytes) -> bool:
    """Whether an Office document's text may hold a ``{{``: a zipped one (DOCX, ODT...) is read
    part by part, its markup stripped (a tag typed in several runs is split by it); any other
    (RTF, a legacy .doc) is converted to be sure."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if not info.filename.endswith(".xml"):
                    continue
                if info.file_size > MAX_PART_BYTES:
                    return True
                if b"{{" in _MARKUP.sub(b"", archive.read(info)):
                    return True
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError):
        return True
    return False


def _pdf_of(blob: UploadedBlob, path: str, problems: list[Problem]) -> bytes | None:
    """The PDF to look for tags in; None when there is none to look at (an Office document
    without a ``{{``, or one refused: its problem is added)."""
    if blob.looks_like_pdf:
        return blob.data
    if not is_office_document(blob.data) or not _may_hold_tags(blob.data):
        return None
    try:
        return pdf_of_upload(
            blob.data, blob.filename, max_pages=settings.GENERATE_MAX_PAGES, path=path
        ).pdf
    except ValidationFailed as refused:
        problems.extend(Problem(f.property, f.message) for f in refused.fields)
        return None


def read_file_tags(
    blob: UploadedBlob, *, path: str, taken: Sequence[str], problems: list[Problem]
) -> tuple[UploadedBlob, tuple[TaggedField, ...]]:
    """The upload at ``path`` (``files.N.file``) as stored, and the fields its tags place, their
    ids unique among ``taken`` (the file's given field ids). Without tags: ``blob`` as it is.
    A tag that does not read, or whose type a packet has no field for: a problem naming it and
    its page."""
    pdf = _pdf_of(blob, path, problems)
    if pdf is None:
        return blob, ()
    try:
        tagged = apply_text_tags(pdf)
    except DetectRefused:
        return blob, ()  # not read as a PDF here: checked as before when its document is made
    if not tagged.fields and not tagged.problems:
        return blob, ()
    problems.extend(
        Problem(path, f"Text tag {trouble.text} on page {trouble.page + 1}: {trouble.message}")
        for trouble in tagged.problems
    )
    ids = unique_aliases([*taken, *(f.alias for f in tagged.fields)])[len(taken) :]
    fields = []
    for found, field_id in zip(tagged.fields, ids, strict=True):
        field = TaggedField(
            field_id, PACKET_TYPES.get(found.type, ""), found.page, found.rect, found.tag
        )
        if not field.type:
            problems.append(
                Problem(
                    path,
                    f"{field.describe()} on page {found.page + 1}: a signer cannot fill a field "
                    f"of type {found.type!r}; use one of {', '.join(sorted(PACKET_TYPES))}.",
                )
            )
            continue
        fields.append(field)
    stored = UploadedBlob(filename=blob.filename, content_type="application/pdf", data=tagged.pdf)
    return stored, tuple(fields)


@dataclass(frozen=True)
class SignerNames:
    """What a tag may name a signer by: its id, its name (``role=``), its place (``signer=N``)."""

    alias_id: str
    name: str
    has_fields: bool  # fields given: the signer gets no tagged field


def _named(field: TaggedField, signers: Sequence[SignerNames]) -> int | None:
    """The index of the signer the tag names: by role (the signer's id or name, any case),
    else by number, from 1."""
    if field.tag.role:
        role = field.tag.role.casefold()
        for index, signer in enumerate(signers):
            if role in (signer.alias_id.casefold(), signer.name.casefold()):
                return index
    if field.tag.signer is not None and 1 <= field.tag.signer <= len(signers):
        return field.tag.signer - 1
    return None


def tagged_signer_fields(
    files: Sequence[tuple[int, str, Sequence[TaggedField]]],
    signers: Sequence[SignerNames],
    problems: list[Problem],
) -> list[tuple[tuple[str, str], ...]]:
    """The (file id, field id) each signer gets from the tags of ``files`` ((index, file id,
    tagged fields)): a signer given fields gets none; a field whose tag names no signer goes
    to the only signer, else is a problem on ``files.N.file`` (nobody would fill it)."""
    given: list[list[tuple[str, str]]] = [[] for _ in signers]
    if all(signer.has_fields for signer in signers):
        return [() for _ in signers]  # every signer's fields are given: the tags name nobody
    for index, file_id, fields in files:
        for field in fields:
            who = _named(field, signers)
            if who is None and len(signers) == 1:
                who = 0
            if who is None:
                problems.append(
                    Problem(
                        f"files.{index}.file",
                        f"{field.describe()} on page {field.page + 1} names no signer: give "
                        "role= a signer's id or name, or signer= their number from 1.",
                    )
                )
            elif not signers[who].has_fields:
                given[who].append((file_id, field.id))
    return [tuple(fields) for fields in given]
