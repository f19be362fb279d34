"""Attachment fields (an extension of the signer JSON): each entry of a signer's
``attachments`` is a field of type ``attachment``, a file they attach on the signing page.
They are a key of their own, beside ``fields``: the published python-anvil checks every entry
of ``fields`` for a fileId and a fieldId, and passes unknown keys of a signer through.

``{"type": "attachment", "id": "photoId", "label": "Photo of your ID", "required": true,
"acceptedTypes": ["jpeg", "png", "pdf"], "maxBytes": 5000000}``: ``type`` optional; ``id``
unique among the signer's attachment fields; ``label`` shown to the signer (default: the id);
``required`` (default true) blocks finishing until a file is attached; ``acceptedTypes`` among
pdf, png and jpeg (MIME types too; default all three; HEIC is refused by name, see
esign.signing.attachments); ``maxBytes`` at most ESIGN_ATTACHMENT_MAX_BYTES (the default). At most
MAX_ATTACHMENT_FIELDS_PER_SIGNER fields a signer and MAX_ATTACHMENT_FIELDS_PER_PACKET a packet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from core.engine.input_checks import line_problem
from core.engine.problems import Problem
from esign.engine.attachment_files import KINDS
from esign.models import Packet, Signer, SignerAttachment

MAX_ATTACHMENT_FIELDS_PER_SIGNER = 10
MAX_ATTACHMENT_FIELDS_PER_PACKET = 20
MAX_LABEL_CHARS = 200
# What acceptedTypes may say, to the kind kept.
_TYPE_NAMES = {
    "pdf": "pdf",
    "application/pdf": "pdf",
    "png": "png",
    "image/png": "png",
    "jpeg": "jpeg",
    "jpg": "jpeg",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
}
_HEIC_NAMES = {"heic", "heif", "image/heic", "image/heif"}


@dataclass(frozen=True)
class AttachmentField:
    id: str
    label: str
    required: bool
    accepted_types: tuple[str, ...]  # keys of esign.engine.attachment_files.KINDS
    max_bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "required": self.required,
            "acceptedTypes": list(self.accepted_types),
            "maxBytes": self.max_bytes,
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> AttachmentField:
        return cls(
            id=value["id"],
            label=value["label"],
            required=value["required"],
            accepted_types=tuple(value["acceptedTypes"]),
            max_bytes=value["maxBytes"],
        )


def attachment_fields(raw: Any, path: str, problems: list[Problem]) -> tuple[AttachmentField, ...]:
    """A signer's ``attachments`` (``path`` is the signer's): a list of attachment fields."""
    if raw is None:
        return ()
    path = f"{path}.attachments"
    if not isinstance(raw, list):
        problems.append(Problem(path, "Must be a list of attachment fields."))
        return ()
    if len(raw) > MAX_ATTACHMENT_FIELDS_PER_SIGNER:
        problems.append(
            Problem(path, f"At most {MAX_ATTACHMENT_FIELDS_PER_SIGNER} attachment fields a signer.")
        )
        return ()
    fields: list[AttachmentField] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = f"{path}.{index}"
        if not isinstance(item, Mapping):
            problems.append(Problem(where, "Must be an object."))
            continue
        if item.get("type", "attachment") != "attachment":
            problems.append(Problem(f"{where}.type", "Must be attachment."))
            continue
        made = attachment_field(item, where, seen, problems)
        if made is not None:
            fields.append(made)
    return tuple(fields)


def attachment_field(
    item: Mapping[str, Any], path: str, seen: set[str], problems: list[Problem]
) -> AttachmentField | None:
    """One attachment field, checked; ``seen`` holds the signer's ids so far."""
    field_id = item.get("id")
    if not isinstance(field_id, str) or not field_id.strip():
        problems.append(Problem(f"{path}.id", "Required"))
        return None
    field_id = field_id.strip()
    problem = line_problem(field_id) or ("At most 200 characters." if len(field_id) > 200 else None)
    if problem is not None:
        problems.append(Problem(f"{path}.id", problem))
        return None
    if field_id in seen:
        problems.append(Problem(f"{path}.id", f"Duplicate attachment field id {field_id!r}."))
    seen.add(field_id)
    label = item.get("label", field_id)
    if not isinstance(label, str) or not label.strip():
        problems.append(Problem(f"{path}.label", "Must be text."))
        label = field_id
    elif problem := line_problem(label) or (
        f"At most {MAX_LABEL_CHARS} characters." if len(label) > MAX_LABEL_CHARS else None
    ):
        problems.append(Problem(f"{path}.label", problem))
    required = item.get("required", True)
    if not isinstance(required, bool):
        problems.append(Problem(f"{path}.required", "Must be true or false."))
    accepted = _accepted_types(item.get("acceptedTypes"), f"{path}.acceptedTypes", problems)
    cap = int(settings.ESIGN_ATTACHMENT_MAX_BYTES)
    max_bytes = item.get("maxBytes", cap)
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or not 1 <= max_bytes <= cap:
        problems.append(Problem(f"{path}.maxBytes", f"Must be a whole number from 1 to {cap}."))
        max_bytes = cap
    return AttachmentField(
        id=field_id,
        label=label.strip(),
        required=required is not False,
        accepted_types=accepted,
        max_bytes=max_bytes,
    )


def _accepted_types(value: Any, path: str, problems: list[Problem]) -> tuple[str, ...]:
    if value is None:
        return tuple(KINDS)
    if not isinstance(value, list) or not value:
        problems.append(Problem(path, "Must be a list of pdf, png, jpeg."))
        return tuple(KINDS)
    kinds: list[str] = []
    for index, name in enumerate(value):
        key = name.strip().lower() if isinstance(name, str) else ""
        if key in _HEIC_NAMES:
            problems.append(
                Problem(
                    f"{path}.{index}",
                    "HEIC is not accepted (few viewers open it): ask for jpeg, which phones "
                    "send when a page asks for it.",
                )
            )
        elif key not in _TYPE_NAMES:
            problems.append(Problem(f"{path}.{index}", "Must be one of pdf, png, jpeg."))
        elif _TYPE_NAMES[key] not in kinds:
            kinds.append(_TYPE_NAMES[key])
    return tuple(kind for kind in KINDS if kind in kinds) or tuple(KINDS)


def attachment_count_problems(counts: Iterable[int]) -> list[Problem]:
    """The packet-wide cap, given each signer's number of attachment fields."""
    total = sum(counts)
    if total > MAX_ATTACHMENT_FIELDS_PER_PACKET:
        return [
            Problem(
                "signers",
                f"At most {MAX_ATTACHMENT_FIELDS_PER_PACKET} attachment fields in a packet.",
            )
        ]
    return []


def attachment_fields_of(signer: Signer) -> list[AttachmentField]:
    return [AttachmentField.from_json(value) for value in signer.attachment_fields or []]


def packet_attachments(packet: Packet) -> list[tuple[Signer, AttachmentField, SignerAttachment]]:
    """Every file attached in ``packet``: by signer (routing order), then in their fields' order."""
    out = []
    for signer in packet.signers.prefetch_related("attachments"):
        attached = {a.field_id: a for a in signer.attachments.all()}
        for field in attachment_fields_of(signer):
            if field.id in attached:
                out.append((signer, field, attached[field.id]))
    return out


def readable_size(size: int) -> str:
    """A size as people read it, in decimal units as file managers and phones show them:
    5,000,000 bytes is "5 MB", 1,900,000 "1.9 MB", 17,000 "17 KB", 300 "300 bytes". A whole
    number of binary megabytes (ESIGN_ATTACHMENT_MAX_BYTES' 10 * 1,048,576) is the number its
    writer meant, "10 MB", never "10.5 MB"."""
    if size >= 1_048_576 and size % 1_048_576 == 0:
        return f"{size // 1_048_576} MB"
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f}".removesuffix(".0") + " MB"
    if size >= 1000:
        return f"{round(size / 1000)} KB"
    return f"{size} bytes"
