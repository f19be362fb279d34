"""Generate in the OpenAPI document (core/openapi.py): the request body's components, derived
from the model the engine checks bodies with (``generate.engine.request_model``), the async
job's answer, the operation's description and examples. docs/generate.md is the long form.
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiExample

from core.engine.wire_models import component_schemas
from core.openapi import Schema, register_links, register_schemas
from generate.engine.request_model import GenerateRequest

# GenerateRequest and every object it holds (PageSettings, MarkdownBlock, Logo...), derived from
# the model that parse_request checks bodies with: the document cannot say other than the parser.
SCHEMAS: dict[str, Schema] = {
    **component_schemas(GenerateRequest),
    "GeneratePdfJob": {
        "type": "object",
        "description": "Extension: an asynchronous generate job (`POST /api/v1/generate-pdf"
        "?async=true`), as its status URL shows it.",
        "properties": {
            "id": {"type": "string"},
            "status": {"type": "string", "enum": ["pending", "running", "done", "failed"]},
            "statusURL": {"type": "string", "description": "GET it for the status, or the PDF."},
            "pages": {"type": ["integer", "null"]},
            "error": {
                "type": ["object", "null"],
                "description": "A failed job's error, in the wire shape (`name`, `message`).",
            },
            "createdAt": {"type": "string", "format": "date-time"},
            "finishedAt": {"type": ["string", "null"], "format": "date-time"},
            "expiresAt": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "After this the job and its PDF are gone (404).",
            },
        },
    },
}
register_schemas(SCHEMAS)
# The job an async generate answers (202) is read by its id.
register_links(
    "generatePdf",
    202,
    {
        "GetJob": {
            "operationId": "getGeneratePdfJob",
            "parameters": {"eid": "$response.body#/id"},
            "description": "The job's status, then its PDF (as `statusURL` and `Location`).",
        }
    },
)

JOB_DESCRIPTION = (
    "Extension. The job of `POST /api/v1/generate-pdf?async=true`, for the organization that "
    "made it only (any other key gets 404): 202 with its status while it is pending or "
    "running, 200 with its PDF once done, 200 with its status and `error` if it failed. A "
    "finished job is kept `GENERATE_JOB_RETENTION_SECONDS`, then 404."
)


def generate_description() -> str:
    return (
        "Makes a new PDF from HTML and CSS, or from an array of Markdown blocks, and answers its "
        "bytes. Nothing of the request is stored. Documents made with a development key carry a "
        'diagonal "DEVELOPMENT" watermark.\n\n'
        "Limits: the HTML/CSS or Markdown text of one request is at most "
        f"{settings.GENERATE_MAX_SOURCE_BYTES} bytes (413), the document at most "
        f"{settings.GENERATE_MAX_TABLE_CELLS} table cells and {settings.GENERATE_MAX_ELEMENTS} "
        "HTML elements (refused before rendering), "
        f"{settings.GENERATE_MAX_PAGES} pages, {settings.GENERATE_TIMEOUT_SECONDS:g} seconds "
        f"of processor time plus {settings.GENERATE_TIMEOUT_SECONDS_PER_PAGE:g} a page, "
        f"{settings.GENERATE_WALL_TIMEOUT_SECONDS:g} seconds in all, and "
        f"{settings.GENERATE_WORKER_MEMORY_MB} MB of memory (422).\n\n"
        "Send `Accept: application/pdf` or `*/*`.\n\n"
        "Extension: with `?async=true` the answer is `202` with the job's status "
        "(`GeneratePdfJob`, JSON) once the body is checked, and the document renders in the "
        "background; `GET` its `statusURL` for the PDF."
    )


EXAMPLES = [
    OpenApiExample(
        "Markdown",
        request_only=True,
        value={
            "title": "Invoice 42",
            "page": {"margin": "0.75in", "pageCount": "bottomCenter"},
            "fontSize": 11,
            "data": [
                {"heading": "Invoice 42"},
                {"label": "Billed to", "content": "Ada Lovelace\n\n- Item one\n  - a detail"},
                {
                    "table": {
                        "rows": [["Item", "Price"], ["Difference engine", "1,200.00"]],
                        "rowGridlines": True,
                        "columnOptions": [{"width": "70%"}, {"align": "right"}],
                    }
                },
            ],
        },
    ),
    OpenApiExample(
        "HTML",
        request_only=True,
        value={
            "type": "html",
            "title": "Hello",
            "page": {"width": "210mm", "height": "297mm", "margin": "20mm"},
            "data": {"html": "<h1>Hello</h1><p>World</p>", "css": "h1 { color: #3E3E57; }"},
        },
    ),
]
