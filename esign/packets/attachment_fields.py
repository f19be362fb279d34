"""Attachment fields (an extension of the signer JSON): each entry of a signer's
``attachments`` is a field of type ``attachment``, a file they attach on the signing page. What
an entry takes, its messages and its schema are declared once in esign.engine.attachment_model
(AttachmentModel), with which the signer model reads a signer's list of them; this module gives
it the service's cap (ESIGN_ATTACHMENT_MAX_BYTES), keeps the fields as signers store them
(AttachmentField) and checks the packet's cap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from core.engine.problems import Problem
from esign.engine.attachment_model import MAX_ATTACHMENT_FIELDS_PER_PACKET, AttachmentModel
from esign.models import Packet, Signer, SignerAttachment


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


def attachment_cap() -> int:
    """The largest file an attachment field takes (ESIGN_ATTACHMENT_MAX_BYTES): its default
    and its bound, in the signer model's context (esign.engine.attachment_model.MAX_BYTES)."""
    return int(settings.ESIGN_ATTACHMENT_MAX_BYTES)


def attachment_fields(fields: Iterable[AttachmentModel] | None) -> tuple[AttachmentField, ...]:
    """A signer's ``attachments`` as the signer model read them, kept as signers store them."""
    cap = attachment_cap()
    return tuple(
        AttachmentField(
            id=field.id,
            label=field.label or field.id,
            required=field.required,
            accepted_types=tuple(field.accepted_types),
            max_bytes=field.max_bytes or cap,
        )
        for field in fields or ()
    )


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
