"""Uploaded files, whether they came as multipart parts or inline as base64 in JSON, and the
caps on bodies that carry them (public pages and endpoints: refused by Content-Length before
the body is read, and read into memory only, each file capped while it is read)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from django.core.files.uploadhandler import (
    FileUploadHandler,
    MemoryFileUploadHandler,
    StopUpload,
)
from django.http import HttpRequest

from core.errors import RequestTooLarge, ValidationFailed


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


# --- bodies that must stay small: refused before they are read, capped while they are read ------


def declared_length(request: HttpRequest) -> int:
    """The body's Content-Length; 0 when absent or not a number (Django then reads nothing)."""
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0


def check_declared_size(request: HttpRequest, *, limit: int, message: str) -> None:
    """Refuse a body that says it is larger than ``limit`` bytes before any of it is read."""
    if declared_length(request) > limit:
        raise RequestTooLarge(message)


def size_text(limit: int) -> str:
    """``limit`` bytes as people read it: "10 MB", "72 KB", "300 bytes"."""
    if limit >= 1_048_576:
        return f"{limit / 1_048_576:g} MB"
    return f"{limit / 1024:g} KB" if limit >= 1024 else f"{limit} bytes"


class InMemoryUploadHandler(MemoryFileUploadHandler):
    """Django's in-memory upload handler, whatever the size, so an upload never becomes a
    temporary file on disk; with ``file_limit``, a file that grows past it stops the upload
    (the rest of the body is left unread) and ``exceeded`` says so.

    Only for bodies already bounded: the caller has refused a Content-Length over its cap (the
    stream Django reads never goes past Content-Length, and without one it reads nothing).
    """

    def __init__(self, request: HttpRequest, *, file_limit: int | None = None) -> None:
        super().__init__(request)
        self.file_limit = file_limit
        self.exceeded = False
        self._received = 0

    def handle_raw_input(self, *args: Any, **kwargs: Any) -> None:
        super().handle_raw_input(*args, **kwargs)
        self.activated = True

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        self._received = 0
        super().new_file(*args, **kwargs)  # raises StopFutureHandlers: this one keeps the file

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self._received += len(raw_data)
        if self.file_limit is not None and self._received > self.file_limit:
            self.exceeded = True
            raise StopUpload(connection_reset=True)
        return super().receive_data_chunk(raw_data, start)


def in_memory_upload_handlers(
    request: HttpRequest, *, file_limit: int | None = None
) -> list[FileUploadHandler]:
    """``request.upload_handlers`` for a body read into memory only (see InMemoryUploadHandler);
    set before ``request.POST`` or ``request.FILES`` is first read."""
    return [InMemoryUploadHandler(request, file_limit=file_limit)]


def upload_exceeded(request: HttpRequest) -> bool:
    """Whether an InMemoryUploadHandler of ``request`` stopped a file over its limit; reads the
    body (``request.FILES``) first."""
    request.FILES  # noqa: B018 - parses the body with the handlers set
    return any(getattr(h, "exceeded", False) for h in request.upload_handlers)
