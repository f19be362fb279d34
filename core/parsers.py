"""Request body parsers: JSON and multipart reach views as the same dict.

The spec caps JSON bodies of fill and generate at 1,048,576 bytes (413 above it) and points
larger payloads at multipart/form-data, where each top-level property is a separate part.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from rest_framework.parsers import BaseParser, DataAndFiles, MultiPartParser

from core.engine.input_checks import text_problem
from core.errors import RequestTooLarge, ValidationFailed


def _declared_length(request: Any) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def body_too_large(size: int | None, limit: int, advice: str = "") -> RequestTooLarge:
    """The 413 of a body of ``size`` bytes (None: not known, read past the limit) over
    ``limit``, naming both so the client knows what to send instead."""
    if size is None:
        return RequestTooLarge(f"The request body is over the limit of {_amount(limit)}.{advice}")
    stated = f"The request body is {_amount(size)}; the limit is {_amount(limit)}."
    return RequestTooLarge(stated + advice)


def _amount(size: int) -> str:
    """'1,048,576 bytes (1 MiB)', '2,160,000 bytes (2.2 MB)'."""
    mib = 1_048_576
    if size % mib == 0:
        return f"{size:,} bytes ({size // mib} MiB)"
    return f"{size:,} bytes ({size / 1_000_000:.1f} MB)" if size >= 100_000 else f"{size:,} bytes"


def decode_json(raw: bytes) -> Any:
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationFailed.single("", f"Malformed JSON body: {_describe(exc)}") from exc
    except RecursionError:
        raise ValidationFailed.single("", too_deep(settings.API_JSON_MAX_DEPTH)) from None
    check_json_value(value, max_depth=settings.API_JSON_MAX_DEPTH)
    return value


def _describe(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    return "the body is not UTF-8 JSON"


def too_deep(max_depth: int) -> str:
    return f"The JSON is nested too deeply: at most {max_depth} levels of arrays and objects."


def check_json_value(value: Any, *, max_depth: int, prefix: str = "") -> None:
    """Refuse decoded JSON that no document can use, before any code walks it.

    Arrays and objects nested deeper than ``max_depth`` (code that walks a value recursively, the
    engines' and the renderer's, would run out of stack), and strings, values or property names,
    that are not text (``core.engine.input_checks.text_problem``): a lone UTF-16 surrogate
    (JSON's ``"\\ud800"`` escape decodes to one: it is not a character, and nothing can encode it
    into a PDF), NUL (PostgreSQL stores no NUL) and the other C0 control characters. The error
    names the property (under ``prefix``, a multipart part's name). A stack, not recursion: the
    nesting is the client's choice.
    """
    root = (prefix,) if prefix else ()
    stack: list[tuple[Any, tuple[str, ...], int]] = [(value, root, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem is not None:
                raise ValidationFailed.single(".".join(path), problem)
            continue
        children: Iterable[tuple[object, Any]]
        if isinstance(item, dict):
            children = item.items()
        elif isinstance(item, list):
            children = enumerate(item)
        else:
            continue
        if depth >= max_depth:
            raise ValidationFailed.single(prefix, too_deep(max_depth))
        for key, child in children:
            problem = text_problem(key) if isinstance(key, str) else None
            if problem is not None:
                raise ValidationFailed.single(".".join(path), f"A property name: {problem}")
            if isinstance(child, str | dict | list):
                stack.append((child, (*path, str(key)), depth + 1))


class ApiJSONParser(BaseParser):
    """JSON with a hard size limit; the limit may be raised per view (``json_body_limit``)."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        context = parser_context or {}
        view = context.get("view")
        view_limit = getattr(view, "json_body_limit", None)
        limit = view_limit or settings.API_JSON_BODY_LIMIT
        # The spec's way past the JSON limit (fill, generate), where no view sets its own.
        advice = "" if view_limit else " Send a larger payload as multipart/form-data."
        declared = _declared_length(context["request"])
        if declared > limit:
            raise body_too_large(declared, limit, advice)
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise body_too_large(None, limit, advice)
        if not raw.strip():
            return {}
        return decode_json(raw)


def decode_part(value: str, name: str = "") -> Any:
    """A multipart part is JSON-decoded where it is JSON, else kept as the string it is.

    To send a string that happens to look like JSON (``"2024"``), JSON-encode it.
    """
    try:
        decoded = json.loads(value)
    except ValueError:
        decoded = value
    except RecursionError:
        raise ValidationFailed.single(name, too_deep(settings.API_JSON_MAX_DEPTH)) from None
    check_json_value(decoded, max_depth=settings.API_JSON_MAX_DEPTH, prefix=name)
    return decoded


class ApiMultiPartParser(MultiPartParser):
    """multipart/form-data parsed into a plain dict of decoded parts, plus the uploaded files."""

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        request = (parser_context or {})["request"]
        declared = _declared_length(request)
        if declared > settings.API_MULTIPART_BODY_LIMIT:
            raise body_too_large(declared, settings.API_MULTIPART_BODY_LIMIT)
        # DRF turns a malformed body into a ParseError, rendered as a 400 ValidationError.
        parsed = super().parse(stream, media_type, parser_context)
        data = {key: decode_part(parsed.data[key], key) for key in parsed.data}
        return DataAndFiles(data, parsed.files)
