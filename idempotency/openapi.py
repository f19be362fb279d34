"""The Idempotency-Key header in the OpenAPI document: a drf-spectacular postprocessing hook."""

from __future__ import annotations

from typing import Any

from django.conf import settings

# The REST operations that create something: fill and generate (verify only reads a PDF).
IDEMPOTENT_OPERATIONS = frozenset({"fillPdf", "generatePdf"})


def idempotency_text() -> str:
    hours = f"{settings.IDEMPOTENCY_KEY_HOURS:g}"
    return (
        f"- **Safe retries**: send `Idempotency-Key: <a unique string>` (1 to 255 visible "
        f"ASCII characters, a UUID for example) with a POST that creates something (fill, "
        f"generate-pdf, and GraphQL requests such as `createEtchPacket` and `forgeSubmit`). "
        f"The same key with the same request within {hours} hours gets the first answer again "
        f"(with `Idempotent-Replayed: true`) without doing the work again; the key with another "
        f"request, or while its first request is still running, is a `409` ConflictError that "
        f"names the key. Keys are the organization's. Refusals (4xx raised before an answer) and "
        f"failures keep nothing, so a retry runs. Answers over "
        f"{settings.IDEMPOTENCY_MAX_STORED_BYTES} bytes are not kept (a retry gets a 409, never "
        f"a second run). Fill keeps nothing of its answer (the service stores none of the data "
        f"sent to it): a retry fills again.\n"
    )


PARAMETER = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    # idempotency.views._VALID_KEY: visible ASCII, no space.
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
    "description": "Makes a retry safe: the same key with the same request gets the first "
    "answer again; with another request, a 409.",
}


def document_idempotency_key(
    result: dict[str, Any], generator: object = None, request: object = None, public: bool = True
) -> dict[str, Any]:
    """Add the header to the operations that honour it, and a paragraph to the introduction."""
    for item in result.get("paths", {}).values():
        operation = item.get("post")
        if operation and operation.get("operationId") in IDEMPOTENT_OPERATIONS:
            operation.setdefault("parameters", []).append(dict(PARAMETER))
    info = result.setdefault("info", {})
    description = str(info.get("description", ""))
    # Among the REST introduction's bullets, before the GraphQL reference appended after them.
    marker = "- **GraphQL**"
    at = description.find(marker)
    text = idempotency_text()
    info["description"] = (
        description[:at] + text + description[at:] if at >= 0 else description + "\n" + text
    )
    return result
