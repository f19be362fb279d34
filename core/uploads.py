"""Uploaded files, whether they came as multipart parts or inline as base64 in JSON."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from core.errors import ValidationFailed


@dataclass(frozen=True)
class UploadedBlob:
    filename: str
    content_type: str
    data: bytes

    @property
    def looks_like_pdf(self) -> bool:
        # Clients send PDFs as application/octet-stream too, so the bytes decide.
        return self.data[:1024].lstrip().startswith(b"%PDF-")


def blob_from_django_file(upload: Any) -> UploadedBlob:
    return UploadedBlob(
        filename=upload.name or "upload",
        content_type=upload.content_type or "application/octet-stream",
        data=upload.read(),
    )


def blob_from_inline(value: dict[str, Any], *, property: str = "") -> UploadedBlob:
    """``{data: <base64>, filename, mimetype}``, as python-anvil sends files inline."""
    data = value.get("data")
    if not isinstance(data, str):
        raise ValidationFailed.single(property, "An inline upload needs 'data' as base64 text.")
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        raise ValidationFailed.single(property, "The inline upload's data is not base64.") from None
    return UploadedBlob(
        filename=str(value.get("filename") or "upload"),
        content_type=str(value.get("mimetype") or "application/octet-stream"),
        data=raw,
    )
