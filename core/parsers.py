"""Request body parsers: JSON and multipart reach views as the same dict.

The spec caps JSON bodies of fill and generate at 1,048,576 bytes (413 above it) and points
larger payloads at multipart/form-data, where each top-level property is a separate part.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from rest_framework.parsers import BaseParser, DataAndFiles, MultiPartParser

from core.errors import RequestTooLarge, ValidationFailed


def _declared_length(request: Any) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def decode_json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationFailed.single("", f"Malformed JSON body: {_describe(exc)}") from exc


def _describe(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    return "the body is not UTF-8 JSON"


class ApiJSONParser(BaseParser):
    """JSON with a hard size limit; the limit may be raised per view (``json_body_limit``)."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        context = parser_context or {}
        view = context.get("view")
        limit = getattr(view, "json_body_limit", None) or settings.API_JSON_BODY_LIMIT
        if _declared_length(context["request"]) > limit:
            raise RequestTooLarge()
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise RequestTooLarge()
        if not raw.strip():
            return {}
        return decode_json(raw)


def decode_part(value: str) -> Any:
    """A multipart part is JSON-decoded where it is JSON, else kept as the string it is.

    To send a string that happens to look like JSON (``"2024"``), JSON-encode it.
    """
    try:
        return json.loads(value)
    except ValueError:
        return value


class ApiMultiPartParser(MultiPartParser):
    """multipart/form-data parsed into a plain dict of decoded parts, plus the uploaded files."""

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        request = (parser_context or {})["request"]
        if _declared_length(request) > settings.API_MULTIPART_BODY_LIMIT:
            raise RequestTooLarge()
        # DRF turns a malformed body into a ParseError, rendered as a 400 ValidationError.
        parsed = super().parse(stream, media_type, parser_context)
        data = {key: decode_part(parsed.data[key]) for key in parsed.data}
        return DataAndFiles(data, parsed.files)
