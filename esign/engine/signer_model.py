"""One signer of createEtchPacket's ``signers``, declared once: what each key takes, its messages
and its description (issue 53, item 1).

esign.packets.signer_inputs checks a signer with `SignerModel` (through core.engine.wire_models'
`validate`) and makes the packet's SignerInput; the create_packet tool's ``signers`` items are
`signer_schema` (mcp_server/schemas.py, through esign.graphql_docs). The messages are today's,
which the published clients show, including the leniencies the wire has always had: a key that
is not text where text is wanted reads as empty (``"name": 5`` is "Required"), a false-ish
``signerType`` or ``signatureMode`` is the default, and a null ``routingOrder``,
``enableEmails`` or ``group.required`` is a value (refused, or false), not a key left out.

What needs the service (the languages shipped, Django's email check) comes in `validate`'s
context (`EMAIL_CHECK`, `LANGUAGES`). What spans keys (an email signer needs an email, a witness
needs witnessFor) is `signer_rules`, read from the same object. Three keys are declared here for
their schema and description but still read by their own modules (esign.packets:
attachment_fields, initials): `HAND_READ`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Literal

import phonenumbers
from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    SkipValidation,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
    field_validator,
    model_validator,
)

from core.engine.input_checks import line_problem
from core.engine.problems import Problem
from core.engine.wire_models import (
    WireModel,
    component_schemas,
    refusal,
    says,
    validate,
    with_context,
)

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
# The keys read by their own modules (see the docstring), in the order they are read.
HAND_READ = ("attachments", "initialsOnEveryPage", "initialsPosition")
# The roles that sign nothing (esign.packets.roles): no signature of their own either.
NON_SIGNING_ROLES = ("approver", "viewer")


class SignerPart(WireModel):
    """A WireModel whose ``NULL_IS_A_VALUE`` keys keep a null as sent: today's parser refuses
    (or reads as false) a null there, where a null elsewhere is a key left out."""

    NULL_IS_A_VALUE: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _null_is_not_given(cls, data: object) -> object:
        if isinstance(data, Mapping):
            kept = cls.NULL_IS_A_VALUE
            return {k: v for k, v in data.items() if v is not None or k in kept}
        return data


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


# The keys declared for their schema, read by their own modules (`HAND_READ`).
AttachmentsKey = Annotated[
    Any, SkipValidation, WithJsonSchema({"type": "array", "items": {"type": "object"}})
]
InitialsKey = Annotated[
    Any,
    SkipValidation,
    WithJsonSchema(
        {"anyOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}]}
    ),
]
PositionKey = Annotated[
    Any,
    SkipValidation,
    WithJsonSchema(
        {
            "type": "object",
            "properties": {key: {"type": "number"} for key in ("x", "y", "width", "height")},
            "required": ["x", "y", "width", "height"],
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
    attachments: AttachmentsKey = Field(
        default=None,
        description="Extension: files the signer attaches on the signing page: [{type: "
        '"attachment", id, label, required, acceptedTypes (pdf, png, jpeg), maxBytes}]; at most '
        "10 a signer, 20 a packet.",
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
    initials_on_every_page: InitialsKey = Field(
        default=None,
        description="Extension: an initials field on every page (true) or on the pages of the "
        "files listed.",
    )
    initials_position: PositionKey = Field(
        default=None,
        description="Extension: where each initials field sits, in PDF points from the page's "
        "lower-left corner (default: the template's initials field, else the page's bottom "
        "right corner).",
    )


# Where each problem of a signer comes, in today's order: a key's own problems, and those of a
# rule that spans keys (the slots ending in "!").
PROBLEM_ORDER = (
    *("name", "email", "name!", "signerType", "email!", "routingOrder", "signatureMode"),
    *("redirectURL", "fields", "language", "signatureLevel", "verify", "group", "role"),
    *("witnessFor", "attachments", "allowForward", "allowUpdates", "initialsOnEveryPage"),
    "initialsPosition",
)


def signer_rules(raw: Mapping[str, Any], prefix: str) -> dict[str, list[Problem]]:
    """What spans a signer's keys, by slot of `PROBLEM_ORDER`; read from the object as sent,
    so that a key refused on its own does not hide another's problem."""
    found: dict[str, list[Problem]] = {}

    def add(slot: str, key: str, message: str) -> None:
        found.setdefault(slot, []).append(Problem(f"{prefix}.{key}", message))

    signer_type = raw.get("signerType") or "email"
    email = stripped(raw.get("email"))
    if not stripped(raw.get("name")):
        add("name!", "name", "Required")
    if signer_type == "email" and not email:
        add("email!", "email", "Required for an email signer.")
    verify = raw.get("verify")
    method = verify.get("method") if isinstance(verify, Mapping) else None
    if method == "email" and not email:
        add("verify", "verify.method", "An email code needs the signer's email.")
    if method == "integrator" and signer_type != "embedded":
        add("verify", "verify.method", "Only an embedded signer may be integrator.")
    level = raw.get("signatureLevel")
    if level in SIGNATURE_LEVELS and level != "simple":
        # A signature of their own (esign.packets.signature_levels) names its signer.
        if raw.get("role") in NON_SIGNING_ROLES:
            add("signatureLevel", "signatureLevel", f"A {raw['role']} signs nothing: only simple.")
        phone = verify.get("phone") if isinstance(verify, Mapping) else None
        if not raw.get("email") and not phone:
            add(
                "signatureLevel",
                "signatureLevel",
                f"An {level} signer needs an email (or a phone to verify) for their certificate "
                "to name.",
            )
    role, witness_for = raw.get("role") or "signer", raw.get("witnessFor")
    if role in ROLES and role != "witness" and witness_for is not None:
        add("role", "witnessFor", 'Only for a signer of role "witness".')
    if role == "witness" and not stripped(witness_for):
        add("role", "witnessFor", "Required: the id of the signer witnessed.")
    if raw.get("allowForward") is True and signer_type == "embedded":
        add(
            "allowForward",
            "allowForward",
            "An embedded signer cannot forward from the signing page: reassign them with "
            "reassignEtchSigner.",
        )
    return found


def read_signer(
    raw: Mapping[str, Any], prefix: str, context: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, list[Problem]]]:
    """``raw`` checked against `SignerModel`: the value of each key (a key refused keeps its
    default, and ``fields`` the references that are good, as the later checks of the packet
    read them) and the problems by slot of `PROBLEM_ORDER`, `signer_rules`' included."""
    found = signer_rules(raw, prefix)
    try:
        model = SignerModel.model_validate(raw, context=dict(context))
        return dict(model), found
    except ValidationError:
        pass
    values = dict(SignerModel.model_construct())
    for name, field in SignerModel.model_fields.items():
        key = str(field.alias)
        if key in HAND_READ or key not in raw:
            continue
        one, problems = validate(SignerModel, {key: raw[key]}, prefix=prefix, context=context)
        if one is not None:
            values[name] = getattr(one, name)
            continue
        for problem in problems:
            found.setdefault(key, []).append(problem)
        if name == "fields" and isinstance(raw[key], list):
            values[name] = [
                good.fields[0]
                for item in raw[key]
                if (good := validate(SignerModel, {key: [item]}, context=context)[0])
            ]
    return values, found


def signer_schema() -> dict[str, Any]:
    """The JSON schema of one signer and the objects inside it (components, named by class)."""
    return component_schemas(SignerModel)
