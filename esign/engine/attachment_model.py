"""One attachment field of a signer's ``attachments`` (an extension of the signer JSON): a file
they attach on the signing page, declared once: what each key takes, its messages and its
description (issue 53, item 1), and how a signer's list of them is read (`read_attachments`, which
esign.engine.signer_model's SignerModel reads ``attachments`` with: `Attachments`).

They are a key of their own, beside ``fields``: the published python-anvil checks every entry
of ``fields`` for a fileId and a fieldId, and passes unknown keys of a signer through.

``{"type": "attachment", "id": "photoId", "label": "Photo of your ID", "required": true,
"acceptedTypes": ["jpeg", "png", "pdf"], "maxBytes": 5000000}``: ``type`` optional; ``id``
unique among the signer's attachment fields; ``label`` shown to the signer (default: the id);
``required`` (default true) blocks finishing until a file is attached; ``acceptedTypes`` among
pdf, png and jpeg (MIME types too; default all three; HEIC is refused by name, see
esign.signing.attachments); ``maxBytes`` at most the service's cap (ESIGN_ATTACHMENT_MAX_BYTES,
the default; `validate`'s context `MAX_BYTES`). At most MAX_ATTACHMENT_FIELDS_PER_SIGNER fields a
signer and MAX_ATTACHMENT_FIELDS_PER_PACKET a packet. A ``type``, ``label``, ``required`` or
``maxBytes`` sent as null is refused, as before, where a null ``acceptedTypes`` is the default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
)
from pydantic_core import InitErrorDetails

from core.engine.input_checks import line_problem
from core.engine.problems import Problem
from core.engine.wire_models import component_schemas, refusal, says, validate, with_context
from esign.engine.attachment_files import KINDS
from esign.engine.signer_part import SignerPart

# `validate`'s context: the largest file a field may take (ESIGN_ATTACHMENT_MAX_BYTES).
MAX_BYTES = "max_bytes"
MAX_ATTACHMENT_FIELDS_PER_SIGNER = 10
MAX_ATTACHMENT_FIELDS_PER_PACKET = 20
MAX_ID_CHARS = 200
MAX_LABEL_CHARS = 200
# What acceptedTypes may say, to the kind kept.
TYPE_NAMES = {
    "pdf": "pdf",
    "application/pdf": "pdf",
    "png": "png",
    "image/png": "png",
    "jpeg": "jpeg",
    "jpg": "jpeg",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
}
HEIC_NAMES = frozenset({"heic", "heif", "image/heic", "image/heif"})


def _id(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise refusal("Required")
    text = value.strip()
    if problem := line_problem(text) or (
        f"At most {MAX_ID_CHARS} characters." if len(text) > MAX_ID_CHARS else None
    ):
        raise refusal(problem)
    return text


def _label(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise refusal("Must be text.")
    if problem := line_problem(value) or (
        f"At most {MAX_LABEL_CHARS} characters." if len(value) > MAX_LABEL_CHARS else None
    ):
        raise refusal(problem)
    return value.strip()


def _kind(value: object) -> str:
    key = value.strip().lower() if isinstance(value, str) else ""
    if key in HEIC_NAMES:
        raise refusal(
            "HEIC is not accepted (few viewers open it): ask for jpeg, which phones send when a "
            "page asks for it."
        )
    if key not in TYPE_NAMES:
        raise refusal("Must be one of pdf, png, jpeg.")
    return TYPE_NAMES[key]


def _in_kinds_order(kinds: list[str]) -> list[str]:
    return [kind for kind in KINDS if kind in kinds]


def _max_bytes(value: object, cap: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= cap:
        raise refusal(f"Must be a whole number from 1 to {cap}.")
    return value


Kind = Annotated[str, BeforeValidator(_kind)]


class AttachmentModel(SignerPart):
    """A file the signer attaches on the signing page (a phone's camera included)."""

    model_config = ConfigDict(json_schema_extra={"required": ["id"]})
    NULL_IS_A_VALUE = frozenset({"type", "label", "required", "maxBytes"})

    type: Annotated[Literal["attachment"], says("Must be attachment.")] = Field(
        default="attachment", description='"attachment" (optional).'
    )
    id: Annotated[str, BeforeValidator(_id)] = Field(
        default="",
        validate_default=True,
        max_length=MAX_ID_CHARS,
        description="Unique among the signer's attachment fields.",
    )
    label: Annotated[str, BeforeValidator(_label)] = Field(
        default="",  # not given: the id
        max_length=MAX_LABEL_CHARS,
        description="Shown to the signer (default: the id).",
    )
    required: bool = Field(
        default=True, description="Default true: no finishing without a file attached."
    )
    accepted_types: Annotated[
        list[Kind],
        Field(min_length=1),
        says("Must be a list of pdf, png, jpeg."),
        AfterValidator(_in_kinds_order),
    ] = Field(
        default_factory=lambda: list(KINDS),
        description="Among pdf, png, jpeg (MIME types too; default all; heic is refused).",
    )
    max_bytes: Annotated[int | None, BeforeValidator(with_context(_max_bytes, MAX_BYTES))] = Field(
        default=None,  # not given: the service's cap
        description="The largest file the field takes, at most the service's "
        "ESIGN_ATTACHMENT_MAX_BYTES (the default).",
    )


def attachments_schema() -> dict[str, Any]:
    """The JSON schema of one attachment field (components, named by class)."""
    return component_schemas(AttachmentModel)


def read_attachments(
    raw: object, path: str, cap: int
) -> tuple[list[AttachmentModel], list[Problem]]:
    """A signer's ``attachments`` (``path`` is ``signers.N.attachments``; ``cap`` the largest
    file): the fields read and the problems, in today's order. A field whose type or id is
    refused is that problem alone and no field; one refused on another key is still counted
    (the signer's and the packet's caps, a role's check), its other values the defaults."""
    if not isinstance(raw, list):
        return [], [Problem(path, "Must be a list of attachment fields.")]
    if len(raw) > MAX_ATTACHMENT_FIELDS_PER_SIGNER:
        message = f"At most {MAX_ATTACHMENT_FIELDS_PER_SIGNER} attachment fields a signer."
        return [], [Problem(path, message)]
    fields: list[AttachmentModel] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = f"{path}.{index}"
        model, found = validate(AttachmentModel, item, prefix=where, context={MAX_BYTES: cap})
        if not isinstance(item, Mapping):
            problems += found
            continue
        # A type refused, else an id refused, is the field's only problem (it is no field).
        refused = [p for p in found if p.path in (f"{where}.type", f"{where}.id")]
        if refused:
            problems.append(refused[0])
            continue
        field_id = _id(item.get("id"))
        if field_id in seen:
            problems.append(Problem(f"{where}.id", f"Duplicate attachment field id {field_id!r}."))
        seen.add(field_id)
        problems += found
        fields.append(model or AttachmentModel.model_construct(id=field_id))
    return fields, problems


def _attachments(raw: object, cap: int) -> list[AttachmentModel]:
    """A signer's ``attachments`` as SignerModel validates the key: `read_attachments`' fields,
    or its problems as the model's errors, each at its path below the key."""
    fields, problems = read_attachments(raw, "", cap)
    if not problems:
        return fields
    errors = [
        InitErrorDetails(
            type=refusal(problem.message),
            loc=tuple(part for part in problem.path.split(".") if part),
            input=raw,
        )
        for problem in problems
    ]
    raise ValidationError.from_exception_data("attachments", errors)


# A signer's ``attachments``: what SignerModel declares (its schema, a list of AttachmentModel)
# and reads them with (`read_attachments`, the largest file in `validate`'s context `MAX_BYTES`).
Attachments = Annotated[
    list[AttachmentModel],
    PlainValidator(
        with_context(_attachments, MAX_BYTES), json_schema_input_type=list[AttachmentModel]
    ),
]
