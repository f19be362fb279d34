"""One file of createEtchPacket's ``files``, declared once: what each key takes, its messages and
its description (issue 53, item 1), and the signer fields placed on it (``fields``).

esign.packets.file_inputs reads a file through esign.engine.file_reading, which checks it with
`FileModel` and each of its fields with `SignFieldModel`; the create_packet tool's ``files``
items are `file_schema` (mcp_server/schemas.py, through esign.graphql_docs), and the GraphQL
reference's EtchFile descriptions are the model's. The messages are today's, which the
published clients show, with the wire's old leniencies: a title, filename or field id that is
not text reads as empty, a ``fontSize`` that is no number or a ``textColor`` that is no text is
left out, and a ``pageNum`` sent as null is a value (refused), not a key left out.

What needs the service is read by the parser and declared here for its schema and description
only (`HAND_READ`): the uploaded file (``file`` / ``base64File``: decoded, sniffed and read for
text tags) and a field's ``value`` (held to the signer's own rules for its type, which read the
service's settings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    SkipValidation,
    WithJsonSchema,
    model_validator,
)

from core.engine.template_spec import Rect
from core.engine.wire_models import WireModel, component_schemas, refusal, says

# Text, one line of it and a key required with a message of its own, read as a signer's are.
from esign.engine.signer_model import Text, _no_default, _one_line, whole

MAX_FILES = 50
# The types of field a signer fills: signatures and initials are stamped; signatureDate gets
# the date of signing; the others take what the signer types (or ticks).
FieldType = Literal[
    "signature",
    "initial",
    "signatureDate",
    "shortText",
    "longText",
    "fullName",
    "email",
    "date",
    "checkbox",
    "text",
]
SIGNER_FIELD_TYPES = frozenset(get_args(FieldType))
STAMP_TYPES = frozenset({"signature", "initial"})
# The keys of a field object that make it a Markdown block (with no ``type``), not a field.
BLOCK_KEYS = ("content", "heading", "table")
# The keys read by the parser (see the docstring): a file's upload, a field's value.
HAND_READ = ("file", "base64File", "value")
# A file's sources, in the order a file with several names them.
SOURCES = ("castEid", "file", "markup")

_RECT_KEYS = ("x", "y", "width", "height")
_RECT_SCHEMA = {
    "type": "object",
    "properties": {key: {"type": "number"} for key in _RECT_KEYS},
    "required": list(_RECT_KEYS),
}


def is_number(value: object) -> bool:
    """A JSON number (a boolean is none)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_block(value: object) -> bool:
    """Whether a ``fields`` entry is a Markdown block (no ``type``; content, a heading or a
    table), which makes the document of a file without another source."""
    return (
        isinstance(value, Mapping)
        and "type" not in value
        and any(key in value for key in BLOCK_KEYS)
    )


def page_of(item: Mapping[str, Any]) -> object:
    """A field's page as sent: ``pageNum``, else its older name ``page``, else 0."""
    return item.get("pageNum", item.get("page", 0))


def _required(text: str) -> str:
    if not text:
        raise refusal("Required")
    return text


def _rect(value: object) -> Rect:
    if not isinstance(value, Mapping) or not all(is_number(value.get(k)) for k in _RECT_KEYS):
        raise refusal("Must be {x, y, width, height} in points.")
    x, y, width, height = (value[key] for key in _RECT_KEYS)
    if width <= 0 or height <= 0:
        raise refusal("Width and height must be positive.")
    return Rect(float(x), float(y), float(width), float(height))


def _template_eid(text: str) -> str:
    if not text:
        raise refusal("Must be a template eid.")
    return text


FieldRect = Annotated[Rect, PlainValidator(_rect), WithJsonSchema(_RECT_SCHEMA)]
PageIndex = Annotated[int, Field(ge=0), says("Must be a page index from 0.")]
OneLine = Annotated[Text, AfterValidator(_one_line)]


class SignFieldModel(WireModel):
    """A signer field placed on the file, a JSON object; a signer names it in
    ``signers[].fields``."""

    model_config = ConfigDict(json_schema_extra={"required": ["id", "type", "rect"]})

    id: Annotated[Text, AfterValidator(_required)] = Field(
        default="",
        validate_default=True,
        description="Unique in the file; signers name it in signers[].fields.",
        json_schema_extra=_no_default,
    )
    type: Annotated[
        FieldType,
        says(f"Must be one of {', '.join(sorted(SIGNER_FIELD_TYPES))}."),
    ] = Field(
        default=None,  # absent (or null): the Literal refuses it, with its message
        validate_default=True,
        description="signature, initial, signatureDate (the date of signing), or a value the "
        "signer types: shortText, longText, fullName, email, date, text, checkbox.",
        json_schema_extra=_no_default,
    )
    page_num: PageIndex = Field(default=0, description="Page index from 0 (or `page`).")
    rect: FieldRect = Field(
        default=None,  # absent: refused, with the rect's message
        validate_default=True,
        description="{x, y, width, height}: PDF points of that page, origin at the lower left.",
        json_schema_extra=_no_default,
    )
    value: Annotated[
        Any,
        SkipValidation,
        WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "boolean"}]}),
    ] = Field(
        default=None,
        description="Extension, a typed field's only (a checkbox's true or false): the "
        "sender's value, stamped when its signer finishes; they may change it first when "
        "allowUpdates (the packet's or theirs) says so.",
    )

    @model_validator(mode="before")
    @classmethod
    def _null_is_not_given(cls, data: object) -> object:
        # `page` is pageNum's older name; a pageNum (or page) sent as null is refused, as
        # before, where a null elsewhere is a key left out.
        if not isinstance(data, Mapping):
            return data
        if "pageNum" not in data and "page" in data:
            data = {**data, "pageNum": page_of(data)}
        return {k: v for k, v in data.items() if v is not None or k == "pageNum"}


# An entry of a file's ``fields``: a signer field or, with no ``type``, a Markdown block; read
# one by one by esign.engine.file_reading (a field id is unique in its file, a block is no field).
FieldEntry = Annotated[
    Any,
    SkipValidation,
    WithJsonSchema(
        {
            "anyOf": [
                {"$ref": "#/components/schemas/SignFieldModel"},
                {
                    "type": "object",
                    "description": "A Markdown block (no type): {content}, {heading} or "
                    "{table}..., as generate-pdf's Markdown.",
                },
            ]
        }
    ),
]


class MarkupModel(WireModel):
    """An HTML document instead of a PDF, rendered as generate-pdf renders HTML."""

    html: str = Field(description="The document's HTML.")
    css: Annotated[str, BeforeValidator(lambda value: value if isinstance(value, str) else "")] = (
        Field(default="", description="Its style sheet.")
    )


Upload = Annotated[
    Any,
    SkipValidation,
    WithJsonSchema(
        {
            "type": "object",
            "properties": {
                "data": {"type": "string", "description": "The file, base64."},
                "filename": {"type": "string"},
                "mimetype": {"type": "string"},
            },
            "required": ["data"],
        }
    ),
]


class FileModel(WireModel):
    """One file of the packet, a JSON object with one source: a template (``castEid``), an
    uploaded PDF or Office document (``file`` / ``base64File``), HTML (``markup``) or Markdown
    blocks in ``fields``. Problems are reported at ``files.<index>.<key>``."""

    # A file without an id is refused by esign.engine.file_reading's rules (any value that is
    # not text reads as none, as before); the schema says it is required.
    model_config = ConfigDict(json_schema_extra={"required": ["id"]})

    id: Text = Field(
        default="",
        description="Your id for the file, unique in the packet; signers' fields and "
        "`data.payloads` name it.",
    )
    fields: Annotated[list[FieldEntry], says("Must be a list of fields.")] = Field(
        default_factory=list,
        description="The signer fields placed on this file; without another source, Markdown "
        "blocks that make the document.",
    )
    title: OneLine = Field(default="", description="The document's title, shown to signers.")
    filename: OneLine = Field(
        default="", description="The file name of the document in downloads (.pdf added)."
    )
    cast_eid: Annotated[Text, AfterValidator(_template_eid)] | None = Field(
        default=None,
        description="A template of your organization: its PDF, filled with "
        "`data.payloads.<id>.data` when given, with the template's own signer fields.",
    )
    file: Upload = Field(
        default=None,
        description="A PDF, Word (DOCX), OpenDocument or RTF document: a part of a GraphQL "
        "multipart request, or inline base64 {data, filename, mimetype}.",
    )
    base64_file: Upload = Field(
        default=None,
        description="The same as `file`, as inline base64 `{data, filename, mimetype}`.",
    )
    markup: Annotated[MarkupModel, whole("Must be {html, css}.")] | None = Field(
        default=None, description="An HTML document instead of a PDF: {html, css}."
    )
    font_size: Annotated[
        int | float | None,
        BeforeValidator(lambda value: value if is_number(value) else None),
        WithJsonSchema({"type": "number"}),
    ] = Field(default=None, description="Markdown documents: the text's font size in points.")
    text_color: Annotated[
        str | None,
        BeforeValidator(lambda value: value if isinstance(value, str) else None),
        WithJsonSchema({"type": "string"}),
    ] = Field(default=None, description="Markdown documents: the text's colour, `#rrggbb`.")


def file_schema() -> dict[str, Any]:
    """The JSON schema of one file and the objects inside it (components, named by class)."""
    return component_schemas(FileModel, SignFieldModel)
