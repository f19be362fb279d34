"""The generate request body as JSON Schema for the OpenAPI document (core/openapi.py).

Built from the engine's own constants (units, font sizes, page counter positions, defaults), so
the reference says what ``generate.engine.parse_request.parse_generate_request`` accepts.
docs/generate.md is the long form.
"""

from __future__ import annotations

from typing import get_args

from django.conf import settings
from drf_spectacular.utils import OpenApiExample

from core.openapi import Schema, ref, register_links, register_schemas
from generate.engine.lengths import UNITS
from generate.engine.markdown_doc import DEFAULT_FONT_SIZE_PT, DEFAULT_TEXT_COLOR
from generate.engine.request import (
    DEFAULT_FONT_FAMILY,
    FONT_SIZE_MAX,
    FONT_SIZE_MIN,
    LOGO_DEFAULT_SIDE,
    LOGO_MAX_SIDE,
    PAGE_COUNT_BOXES,
    Align,
    VerticalAlign,
)

_ALIGNS = get_args(Align)
_VERTICAL_ALIGNS = get_args(VerticalAlign)


def _any_case(text: str) -> str:
    """A regular expression matching ``text`` in any case (OpenAPI patterns have no flags)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in text)


_NUMBER = r"(\d+(\.\d+)?|\.\d+)"
_UNIT = "(" + "|".join(_any_case(unit) for unit in UNITS) + ")"
LENGTH_PATTERN = rf"^\s*({_NUMBER}{_UNIT}|0+(\.0+)?)\s*$"
COLOR_PATTERN = r"^#?[0-9A-Fa-f]{6}$"

_LENGTH: Schema = {
    "type": "string",
    "pattern": LENGTH_PATTERN,
    "description": f"A number and a unit ({', '.join(UNITS)}); `em` and `rem` are 16px; a bare "
    "`0` is allowed.",
    "example": "0.5in",
}
_FONT_SIZE: Schema = {
    "type": "integer",
    "minimum": FONT_SIZE_MIN,
    "maximum": FONT_SIZE_MAX,
    "description": "Points.",
}
_TEXT_COLOR: Schema = {
    "type": "string",
    "pattern": COLOR_PATTERN,
    "description": "6-digit hex colour, `#` optional.",
}
_FONT_FAMILY: Schema = {
    "type": "string",
    "minLength": 1,
    "pattern": r"\S",
    "description": "Exact, case-sensitive: `Courier`, `Helvetica`, `Times New Roman`, "
    "`Noto Sans` or any Google Fonts family. An unknown name is a 400 on its property.",
}

SCHEMAS: dict[str, Schema] = {
    "GenerateRequest": {
        "type": "object",
        "description": "HTML and CSS (`type: html`), or an array of Markdown blocks (the default). "
        "Unknown properties are ignored; `null` means not given. In HTML mode the "
        "Markdown-only properties are ignored.",
        "required": ["data"],
        "properties": {
            "type": {
                "type": "string",
                "enum": ["html", "markdown"],
                "default": "markdown",
                "description": "What `data` is: `html` (`{html, css}`) or `markdown` (blocks).",
            },
            "title": {
                "type": "string",
                "description": "The PDF's title (HTML mode: else the document's `<title>`).",
            },
            "fieldTags": {
                "type": "boolean",
                "default": False,
                "description": "Extension: text tags in the document (`{{Name;type=date}}`, "
                "`{{signature, r1}}`: docs/text-tags.md) become the PDF's form fields at their "
                "place, their text removed. A tag that does not read is a 400 on `data` naming "
                "it and its page.",
            },
            "data": {
                "description": "HTML mode: `{html, css}`; Markdown mode: an array of blocks; or "
                "a string encrypted with the organization's payload key.",
                "oneOf": [
                    ref("GenerateHtmlData"),
                    {"type": "array", "items": ref("MarkdownBlock")},
                    ref("EncryptedData"),
                ],
            },
            "page": {
                **ref("PageSettings"),
                "description": "Page size, margins and the page counter.",
            },
            "fontSize": {
                **_FONT_SIZE,
                "default": DEFAULT_FONT_SIZE_PT,
                "description": "Markdown only; points.",
            },
            "textColor": {**_TEXT_COLOR, "default": DEFAULT_TEXT_COLOR},
            "fontFamily": {**_FONT_FAMILY, "default": DEFAULT_FONT_FAMILY},
            "includeTimestamp": {
                "type": "boolean",
                "default": True,
                "description": 'Markdown only: "Generated YYYY-MM-DD HH:MM UTC" after the content.',
            },
            "logo": {
                "description": "Markdown only. Default: the service's logo, top right of the "
                "first page; `false` removes it.",
                "oneOf": [ref("Logo"), {"type": "boolean", "enum": [False]}],
            },
        },
    },
    "GenerateHtmlData": {
        "type": "object",
        "required": ["html"],
        "properties": {
            "html": {"type": "string", "description": "The document: a fragment or a page."},
            "css": {
                "type": "string",
                "description": "A stylesheet applied after the document's own styles.",
            },
        },
    },
    "MarkdownBlock": {
        "type": "object",
        "description": "Drawn in this order: label, heading, content, table.",
        "properties": {
            "label": {"type": "string", "description": "Bold text."},
            "heading": {"type": "string", "description": "Larger (1.5 times) bold text."},
            "content": {
                "type": "string",
                "description": "CommonMark 0.31.2 with GitHub's tables and ~~strikethrough~~ "
                "(a list nests under an item indented to its text: two spaces under `- `). Raw "
                "HTML is escaped; links keep only http(s), mailto and #fragment targets.",
            },
            "table": ref("MarkdownTable"),
            "fontFamily": _FONT_FAMILY,
            "fontSize": _FONT_SIZE,
            "textColor": _TEXT_COLOR,
        },
    },
    "MarkdownTable": {
        "type": "object",
        "required": ["rows"],
        "properties": {
            "rows": {
                "type": "array",
                "description": "Rows of plain-text cells (numbers as written, `null` empty, "
                "`\\n` breaks a line).",
                "items": {
                    "type": "array",
                    "items": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]},
                },
            },
            "firstRowHeaders": {
                "type": "boolean",
                "default": True,
                "description": "The first row is a bold header, repeated on every page.",
            },
            "rowGridlines": {"type": "boolean", "default": False},
            "columnGridlines": {"type": "boolean", "default": False},
            "verticalAlign": {
                "type": "string",
                "enum": list(_VERTICAL_ALIGNS),
                "default": _VERTICAL_ALIGNS[0],
            },
            "columnOptions": {
                "type": "array",
                "description": "One entry per column from the left; `{}` or `null`: no change.",
                "items": {
                    "anyOf": [
                        {
                            "type": "object",
                            "properties": {
                                "align": {"type": "string", "enum": list(_ALIGNS)},
                                "width": {
                                    "description": 'Pixels (`120` or `"120px"`) or a percentage '
                                    'of the table (`"25%"`).',
                                    "oneOf": [
                                        {"type": "number", "exclusiveMinimum": 0},
                                        {
                                            "type": "string",
                                            "pattern": r"^\s*\d+(\.\d+)?\s*(px|%)?\s*$",
                                        },
                                    ],
                                },
                            },
                        },
                        {"type": "null"},
                    ]
                },
            },
        },
    },
    "PageSettings": {
        "type": "object",
        "description": "Page size, margins and page counter. In HTML mode these are defaults: "
        "`@page` rules of the document win.",
        "properties": {
            "width": {**_LENGTH, "default": "8.5in", "description": "At most 200in."},
            "height": {**_LENGTH, "default": "11in", "description": "At most 200in."},
            "margin": {
                "type": "string",
                "default": "0.5in",
                "description": "CSS shorthand: 1 to 4 lengths (top, right, bottom, left).",
                "example": "0.75in 0.5in",
            },
            "marginTop": _LENGTH,
            "marginRight": _LENGTH,
            "marginBottom": _LENGTH,
            "marginLeft": _LENGTH,
            "pageCount": {
                "type": "string",
                "enum": list(PAGE_COUNT_BOXES),
                "description": '"Page N of M" in that margin box.',
            },
        },
    },
    "Logo": {
        "type": "object",
        "required": ["src"],
        "properties": {
            "src": {"type": "string", "description": "An http(s) URL or a `data:` URI."},
            "maxWidth": {
                "type": "number",
                "maximum": LOGO_MAX_SIDE,
                "default": LOGO_DEFAULT_SIDE,
                "description": "CSS pixels.",
            },
            "maxHeight": {
                "type": "number",
                "maximum": LOGO_MAX_SIDE,
                "default": LOGO_DEFAULT_SIDE,
                "description": "CSS pixels.",
            },
        },
    },
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
