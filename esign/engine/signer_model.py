"""One signer of createEtchPacket's ``signers``, declared once: what each key takes, its messages
and its description (issue 53, item 1).

esign.packets.signer_inputs checks a signer with `SignerModel` (through core.engine.wire_models'
`validate`) and makes the packet's SignerInput; the create_packet tool's ``signers`` items are
`signer_schema` (mcp_server/schemas.py, through esign.graphql_docs). The messages are today's,
which the published clients show, including the leniencies the wire has always had: a key that
is not text where text is wanted reads as empty (``"name": 5`` is "Required"), a false-ish
``signerType`` or ``signatureMode`` is the default, and a null ``routingOrder``,
``enableEmails`` or ``group.required`` is a value (refused, or false), not a key left out.
A signer's ``attachments`` are esign.engine.attachment_model's (`Attachments`).

What needs the service (the languages shipped, Django's email check, the largest attachment)
comes in `validate`'s context (`EMAIL_CHECK`, `LANGUAGES`, attachment_model's `MAX_BYTES`). How
a signer is read with it (the rules that span keys, today's order of the problems, what a
refused key leaves) is esign.engine.signer_reading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

import phonenumbers
from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
    field_validator,
)

from core.engine.input_checks import line_problem
from core.engine.template_spec import Rect
from core.engine.wire_models import component_schemas, refusal, says, with_context
from esign.engine.attachment_model import MAX_ATTACHMENT_FIELDS_PER_SIGNER, Attachments
from esign.engine.signer_part import SignerPart

# `validate`'s context: the check of an email address (its message, or None) and the language
# codes a signer may be given.
EMAIL_CHECK = "email_check"
LANGUAGES = "languages"
EmailCheck = Callable[[str], "str | None"]

# The bounds of the columns a signer is stored in (esign.models.Signer; a test compares them).
ROUTING_ORDER_MAX = 2**31 - 1
REDIRECT_URL_MAX = 2000
GROUP_ID_MAX = 200
# The values the wire takes (esign.models.Signer.Role for ROLES; a test compares them).
SIGNER_TYPES = ("email", "embedded")
SIGNATURE_MODES = ("draw", "text")
ROLES = ("signer", "witness", "approver", "viewer")
VERIFY_METHODS = ("email", "sms", "integrator")
SIGNATURE_LEVELS = ("simple", "advanced", "qualified")
# initialsOnEveryPage: true (esign.packets.initials.ALL_FILES; a test compares them).
ALL_FILES = "*"
# The roles that sign nothing (esign.packets.roles): no signature of their own either.
NON_SIGNING_ROLES = ("approver", "viewer")


def whole(message: str) -> WrapValidator:
    """``message`` for any problem of the value, those inside it included (a signer's field
    reference is wrong as a whole)."""

    def check(value: object, handler: ValidatorFunctionWrapHandler) -> object:
        try:
            return handler(value)
        except ValidationError:
            raise refusal(message) from None

    return WrapValidator(check)


def stripped(value: object) -> str:
    """Text as the wire has always read it: stripped, and "" for what is not text."""
    return value.strip() if isinstance(value, str) else ""


def _no_default(schema: dict[str, Any]) -> None:
    # A key whose absence has a message of its own is declared with a default that fails; the
    # schema says only that it is required (the model's ``required``).
    schema.pop("default", None)


def _one_line(text: str) -> str:
    if (problem := line_problem(text)) is not None:
        raise refusal(problem)
    return text


def _email(text: str, check: EmailCheck) -> str:
    if text and (problem := check(text)) is not None:
        raise refusal(problem)
    return text


def _language(value: object, languages: tuple[str, ...]) -> str:
    if value == "":
        return ""
    if not isinstance(value, str) or value.strip().lower() not in languages:
        raise refusal(f"Must be one of {', '.join(languages)}.")
    return value.strip().lower()


def _redirect(url: str) -> str:
    if url and not url.startswith(("https://", "http://")):
        raise refusal("Must be an http(s) URL.")
    if problem := line_problem(url):
        raise refusal(problem)
    if len(url) > REDIRECT_URL_MAX:
        raise refusal(f"Use at most {REDIRECT_URL_MAX} characters.")
    return url


def _phone(value: object) -> str:
    """An international phone number (with its + and country code), as E.164."""
    if not isinstance(value, str) or not value.strip():
        raise refusal("Required for an SMS code.")
    if problem := line_problem(value):
        raise refusal(problem)
    try:
        number = phonenumbers.parse(value, None)
    except phonenumbers.NumberParseException:
        number = None
    if number is None or not phonenumbers.is_valid_number(number):
        raise refusal("Must be a valid phone number with its country code (+...).")
    return str(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))


def _group_id(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise refusal("Required: the group's id, a non-empty string.")
    if problem := line_problem(value) or (
        f"At most {GROUP_ID_MAX} characters." if len(value.strip()) > GROUP_ID_MAX else None
    ):
        raise refusal(problem)
    return value.strip()


Text = Annotated[str, BeforeValidator(stripped)]


class SignerFieldRef(SignerPart):
    """A field the signer fills: a file's id and the id of one of its fields."""

    model_config = ConfigDict(json_schema_extra={"required": ["fileId"]})

    file_id: Annotated[Text, Field(min_length=1)] = Field(
        default="",
        validate_default=True,
        description="The file's id (files[].id).",
        json_schema_extra=_no_default,
    )
    field_id: Text = Field(
        default="",
        description="The id of a field of that file (files[].fields[].id, or a template's own "
        "signer field).",
    )


class SignerVerify(SignerPart):
    """A one-time code before the documents (an extension)."""

    model_config = ConfigDict(json_schema_extra={"required": ["method"]})
    NULL_IS_A_VALUE = frozenset({"method"})

    method: Annotated[
        Literal["email", "sms", "integrator"], says("Must be email, sms or integrator.")
    ] = Field(
        default=None,  # absent (or null): the Literal refuses it, with its message
        validate_default=True,
        description='"email" (to their email) or "sms" (to phone); "integrator" (embedded '
        "signers only) asks for none: you verified them, recorded as such in the trail.",
        json_schema_extra=_no_default,
    )
    phone: str = Field(
        default="",
        validate_default=True,
        description="For sms: international, with its + and country code (kept in E.164).",
    )

    @field_validator("phone", mode="before")
    @classmethod
    def _phone_for_sms(cls, value: object, info: ValidationInfo) -> str:
        # Only an SMS code reads a phone (a method refused leaves it unread).
        return _phone(value) if info.data.get("method") == "sms" else ""


class SignerGroup(SignerPart):
    """A signing group (an extension): several signers of one step of whom ``required`` sign."""

    model_config = ConfigDict(json_schema_extra={"required": ["id"]})
    NULL_IS_A_VALUE = frozenset({"required"})

    id: Annotated[str, BeforeValidator(_group_id)] = Field(
        default="",
        validate_default=True,
        max_length=GROUP_ID_MAX,
        description="The group's id, shared by its members.",
        json_schema_extra=_no_default,
    )
    required: int = Field(
        default=1,
        ge=1,
        description="How many members must sign (default 1, at most the members).",
    )

    @field_validator("required", mode="before")
    @classmethod
    def _whole_from_one(cls, value: object, info: ValidationInfo) -> int:
        if "id" not in info.data:
            return 1  # a group without a good id is refused for that alone
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise refusal("Must be a whole number from 1.")
        return value


def _initials_files(value: object) -> tuple[str, ...]:
    if value is False:
        return ()
    if value is True:
        return (ALL_FILES,)
    if isinstance(value, list) and value and all(isinstance(i, str) and i.strip() for i in value):
        return tuple(dict.fromkeys(item.strip() for item in value))
    raise refusal("Must be true, false or a list of file ids.")


_POSITION_KEYS = ("x", "y", "width", "height")


def _position(value: object) -> Rect:
    def number(item: object) -> bool:
        return isinstance(item, int | float) and not isinstance(item, bool)

    if not isinstance(value, Mapping) or not all(number(value.get(k)) for k in _POSITION_KEYS):
        raise refusal("Must be {x, y, width, height} in points.")
    x, y, width, height = (value[key] for key in _POSITION_KEYS)
    if width <= 0 or height <= 0 or x < 0 or y < 0:
        raise refusal("x and y must be 0 or more, width and height positive.")
    return Rect(float(x), float(y), float(width), float(height))


InitialsFiles = Annotated[
    tuple[str, ...],
    BeforeValidator(_initials_files),
    WithJsonSchema(
        {"anyOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}]}
    ),
]
Position = Annotated[
    Rect,
    PlainValidator(_position),
    WithJsonSchema(
        {
            "type": "object",
            "properties": {key: {"type": "number"} for key in _POSITION_KEYS},
            "required": list(_POSITION_KEYS),
        }
    ),
]


class SignerModel(SignerPart):
    """One signer, a JSON object. Problems are reported at ``signers.<index>.<key>`` (e.g.
    ``signers.0.fields.2``)."""

    model_config = ConfigDict(json_schema_extra={"required": ["name"]})
    NULL_IS_A_VALUE = frozenset({"routingOrder", "enableEmails"})

    id: Text = Field(
        default="",
        description="Your alias, unique in the packet (default signer1, signer2...).",
    )
    name: Annotated[Text, AfterValidator(_one_line)] = Field(
        default="", description="The signer's name, one line (required)."
    )
    email: Annotated[Text, AfterValidator(with_context(_email, EMAIL_CHECK))] = Field(
        default="", description="Required for an email signer."
    )
    signer_type: Annotated[
        Literal["email", "embedded"],
        BeforeValidator(lambda value: value or "email"),
        says("Must be email or embedded."),
    ] = Field(
        default="email",
        description='"email" (gets a signing email in turn) or "embedded" (no email: ask for a '
        "link with generateEtchSignURL).",
    )
    routing_order: Annotated[
        int,
        Field(ge=1, le=ROUTING_ORDER_MAX),
        says(f"Must be a whole number from 1 to {ROUTING_ORDER_MAX}."),
    ] = Field(
        default=0,  # not given: the signer's position (from 1)
        description="Whole number from 1 (default: position); signers of one order sign in "
        "parallel, the next order when all of them finished.",
        json_schema_extra=_no_default,
    )
    fields: Annotated[
        list[Annotated[SignerFieldRef, whole("Must be {fileId, fieldId}.")]],
        BeforeValidator(lambda value: value or []),
        says("Must be a list of {fileId, fieldId}."),
    ] = Field(
        default_factory=list,
        description="The fields this signer fills; no field given to two signers.",
    )
    signature_mode: Annotated[
        Literal["draw", "text"],
        BeforeValidator(lambda value: value or "draw"),
        says("Must be draw or text."),
    ] = Field(
        default="draw",
        description='"draw" (default) or "text" (typed in a handwriting font).',
    )
    accept_each_field: Annotated[bool, BeforeValidator(bool)] = Field(
        default=False, description="true: the signer accepts each field one by one."
    )
    redirect_url: Annotated[Text, AfterValidator(_redirect)] = Field(
        default="",
        alias="redirectURL",
        description="http(s); where the signing page sends the signer when done, with "
        "signerEid, documentGroupEid, action... in the query.",
        json_schema_extra={"maxLength": REDIRECT_URL_MAX},
    )
    enable_emails: Annotated[bool, BeforeValidator(bool)] = Field(
        default=True,
        description="false: no emails to this signer (their copy link included).",
    )
    language: Annotated[str, BeforeValidator(with_context(_language, LANGUAGES))] = Field(
        default="",
        description="Extension: the language of this signer's pages and emails (default: the "
        "packet's).",
    )
    signature_level: Annotated[
        Literal["simple", "advanced", "qualified"], says("Must be simple, advanced or qualified.")
    ] = Field(
        default="simple",
        description="Extension: simple (default), advanced (their own PAdES signature with a "
        "one-hour certificate of the service's signer CA) or qualified (with their credential "
        "at the organization's CSC v2 provider; the last signer only).",
    )
    verify: Annotated[SignerVerify, says("Must be an object {method, phone}.")] | None = Field(
        default=None, description="Extension: a one-time code before the documents."
    )
    group: Annotated[SignerGroup, says("Must be an object {id, required}.")] | None = Field(
        default=None,
        description="Extension: a signing group, several signers of one step of whom "
        "`required` sign for it; members share routingOrder, fields (whoever signs first fills "
        "them) and required. Once enough signed, the others are `skipped`, their links ended.",
    )
    role: Annotated[
        Literal["signer", "witness", "approver", "viewer"],
        BeforeValidator(lambda value: value or "signer"),
        says("Must be signer, witness, approver or viewer."),
    ] = Field(
        default="signer",
        description='Extension: "signer" (default); "witness" of the signer whose id is '
        'witnessFor (a greater routingOrder); "approver": no fields, approves or rejects with a '
        'reason; "viewer": no fields, never waited for, reads at their routingOrder (none '
        "given: once the packet completes).",
    )
    witness_for: Text = Field(
        default="", description='The id of the signer witnessed (role "witness" only).'
    )
    attachments: Attachments | None = Field(
        default=None,
        description="Extension: files the signer attaches on the signing page: [{type: "
        '"attachment", id, label, required, acceptedTypes (pdf, png, jpeg), maxBytes}]; at most '
        "10 a signer, 20 a packet.",
        json_schema_extra={"maxItems": MAX_ATTACHMENT_FIELDS_PER_SIGNER},
    )
    allow_forward: bool | None = Field(
        default=None,
        description="Extension: may hand their turn to someone else from the signing page "
        "(email signers only; default: the packet's allowForward).",
    )
    allow_updates: bool | None = Field(
        default=None,
        description="Extension: may change the values the sender filled in their fields "
        "(files[].fields[].value); default: the packet's.",
    )
    initials_on_every_page: InitialsFiles = Field(
        default=(),
        description="Extension: an initials field on every page (true) or on the pages of the "
        "files listed.",
    )
    initials_position: Position | None = Field(
        default=None,
        description="Extension: where each initials field sits, in PDF points from the page's "
        "lower-left corner (default: the template's initials field, else the page's bottom "
        "right corner).",
    )

    @field_validator("initials_position", mode="before")
    @classmethod
    def _with_initials(cls, value: object, info: ValidationInfo) -> object:
        # A position is where the initials of initialsOnEveryPage go: none without them.
        if not info.data.get("initials_on_every_page"):
            raise refusal("Only with initialsOnEveryPage.")
        return value


def signer_schema() -> dict[str, Any]:
    """The JSON schema of one signer and the objects inside it (components, named by class)."""
    return component_schemas(SignerModel)
