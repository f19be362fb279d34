"""The arguments of createEtchPacket, read from their wire form into plain dataclasses.

One form from every door: GraphQL's arguments as sent (``core.graphql.arguments``), the JSON of
a createEtchPacketBatch row (esign.bulk.sends) and the MCP tool's arguments.

Every problem names the argument it is about (``files.1.fields.0.rect``,
``signers.0.fields.2``) and all problems are reported together, before anything is stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import phonenumbers
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils import timezone

from core.engine.input_checks import column_range, length_problem, line_problem
from core.engine.office_sniff import is_office_document, pdf_name
from core.engine.problems import Problem
from core.engine.template_spec import Rect, TemplateSpec
from core.errors import ValidationFailed
from core.moments import ISO_MESSAGE, parse_moment
from core.uploads import UploadedBlob, blob_from_inline
from esign.models import Packet, PacketDocument, Signer
from esign.packets import signature_levels
from esign.packets.attachment_fields import (
    AttachmentField,
    attachment_count_problems,
    attachment_fields,
)
from esign.packets.file_tags import SignerNames, TaggedField, read_file_tags, tagged_signer_fields
from esign.packets.initials import initials_option, initials_problems
from esign.packets.roles import ROLES, roles_checked
from esign.packets.updates import (
    allow_updates_of,
    prefilled_value,
    updates_problems,
)
from templates_app.models import TemplateVersion

# Field types a signer fills: signatures and initials are stamped; signatureDate gets the date
# of signing; the others take what the signer types (or ticks).
STAMP_TYPES = frozenset({"signature", "initial"})
SIGNER_FIELD_TYPES = frozenset(
    {"signature", "initial", "signatureDate", "shortText", "longText", "fullName", "email"}
    | {"date", "checkbox", "text"}
)
# A template's signer fields as fields of a packet's document: the same types, but the signer's
# name, ``signerName`` in a template (where ``fullName`` is a value of fill data), is the packet's
# ``fullName`` (the signing page offers the signer's name in it).
TEMPLATE_SIGNER_TYPES = {
    "signature": "signature",
    "initial": "initial",
    "signatureDate": "signatureDate",
    "signerName": "fullName",
}
MAX_FILES = 50
MAX_SIGNERS = 50
# What Signer.routing_order's column holds, from 1.
ROUTING_ORDERS = column_range(Signer._meta.get_field("routing_order"), low=1)
# Signer.email and Packet.reply_to_email are the same EmailField; and the redirect URL's column.
_EMAIL_COLUMN = Signer._meta.get_field("email")
_REDIRECT_COLUMN = Signer._meta.get_field("redirect_url")


@dataclass(frozen=True)
class SignField:
    id: str
    type: str
    page: int
    rect: Rect
    # A template field's alias (its Field Alias, which cast shows): signers may name it so too.
    alias: str = ""
    # The sender's value of a typed field (esign.packets.updates); None: the signer types it.
    value: Any = None

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "type": self.type, "page": self.page, "rect": self.rect.to_json()}
        out |= {"value": self.value} if self.value is not None else {}
        return out | ({"alias": self.alias} if self.alias else {})


def field_ids(fields: Iterable[SignField]) -> dict[str, str]:
    """The ids a signer may name a file's fields by, to the field's id: each id, and a template
    field's alias where no field has that id."""
    ids = {f.id: f.id for f in fields}
    return {f.alias: f.id for f in fields if f.alias} | ids


@dataclass(frozen=True)
class FileInput:
    """One file of the packet; exactly one of the sources is set."""

    id: str
    title: str
    filename: str
    fields: tuple[SignField, ...]
    cast_eid: str | None = None
    upload: UploadedBlob | None = None
    html: str | None = None
    css: str = ""
    markdown_blocks: tuple[Mapping[str, Any], ...] = ()
    font_size: int | None = None
    text_color: str | None = None
    tagged: tuple[TaggedField, ...] = ()  # its fields placed by text tags (esign.packets.file_tags)

    @property
    def source(self) -> str:
        if self.cast_eid is not None:
            return "template"
        if self.upload is not None:
            return "upload"
        return "html" if self.html is not None else "markdown"


@dataclass(frozen=True)
class SignerInput:
    alias_id: str
    name: str
    email: str
    signer_type: str
    routing_order: int
    redirect_url: str
    signature_mode: str
    accept_each_field: bool
    enable_emails: bool
    fields: tuple[tuple[str, str], ...]  # (file id, field id)
    language: str = ""  # "" (the packet's), or one of shipped_languages()
    # signatureLevel (an extension, esign.packets.signature_levels): simple, advanced.
    signature_level: str = "simple"
    # verify: a code before signing ("email", "sms" with verify_phone in E.164), or "integrator"
    # (an embedded signer the integrator verified itself); "" none (esign.links.codes).
    verify_method: str = ""
    verify_phone: str = ""
    # group: {id, required} (esign.packets.groups): "" and 0 without one.
    signing_group: str = ""
    signing_group_required: int = 0
    # role "witness" with witnessFor (another signer's id), or "signer".
    role: str = "signer"
    witness_for: str = ""
    attachment_fields: tuple[AttachmentField, ...] = ()  # files to attach (an extension)
    # allowForward (an extension, esign.signing.forwarding): None follows the packet's.
    allow_forward: bool | None = None
    # allowUpdates of the signer (esign.packets.updates): None follows the packet's.
    allow_updates: bool | None = None
    # initialsOnEveryPage / initialsPosition (an extension, esign.packets.initials): the file ids
    # (or "*") whose every page gets an initials field of theirs, and where.
    initials_files: tuple[str, ...] = ()
    initials_position: Rect | None = None


@dataclass(frozen=True)
class PacketInput:
    name: str
    files: tuple[FileInput, ...]
    signers: tuple[SignerInput, ...]
    payloads: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    is_draft: bool = False
    is_test: bool = False
    allow_updates: bool = False
    merge_pdfs: bool = False
    webhook_url: str = ""
    email_subject: str = ""
    email_body: str = ""
    reply_to_name: str = ""
    reply_to_email: str = ""
    reminder_days: int | None = None
    language: str = ""  # "" (the browser's, English for emails), or one of shipped_languages()
    expires_at: datetime | None = None  # expiresAt / expiresInDays (esign.sending.expiry)
    allow_forward: bool = False  # allowForward (esign.signing.forwarding)
    verification_stamp: bool = False  # verificationStamp (esign.engine.verification_mark)

    def signer_may_forward(self, signer: SignerInput) -> bool:
        """Whether ``signer`` may forward their turn from the signing page: their own
        ``allowForward``, else the packet's; only an email signer ever may."""
        wanted = self.allow_forward if signer.allow_forward is None else signer.allow_forward
        return wanted and signer.signer_type == "email"

    def signer_may_update(self, signer: SignerInput) -> bool:
        """Whether ``signer`` may change the values the sender filled in their fields
        (esign.packets.updates): their own ``allowUpdates``, else the packet's."""
        return self.allow_updates if signer.allow_updates is None else signer.allow_updates


MAX_REMINDER_DAYS = 365


def shipped_languages() -> tuple[str, ...]:
    """The languages of the signer's pages, emails and the audit trail: settings.LANGUAGES, each
    with its catalogues shipped (core.checks), the same codes as models.Language."""
    return tuple(code for code, _name in settings.LANGUAGES)


def _language(value: Any, path: str, problems: list[Problem]) -> str:
    """An extension of createEtchPacket: ``language`` of the packet or of one signer, a code of
    shipped_languages() in any case ("pt-BR", "zh-Hans" as BCP 47 writes them)."""
    if value is None or value == "":
        return ""
    languages = shipped_languages()
    if not isinstance(value, str) or value.strip().lower() not in languages:
        problems.append(Problem(path, f"Must be one of {', '.join(languages)}."))
        return ""
    return value.strip().lower()


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _line(value: Any, path: str, problems: list[Problem]) -> str:
    """``value`` as one line of text; a control character (a line break) is a problem: a value
    that becomes an email header (the subject is built from the packet's name) or a file name
    must stay on one line, or it could add headers."""
    text = _text(value)
    problem = line_problem(text)
    if problem is not None:
        problems.append(Problem(path, problem))
    return text


def _email(value: Any, path: str, problems: list[Problem]) -> str:
    """``value`` as an email address: Django's EmailValidator (the shape mail servers take),
    on one line (the validator takes control characters inside a quoted local part), that fits
    the address columns."""
    text = _text(value)
    if not text:
        return text
    try:
        validate_email(text)
    except ValidationError:
        problems.append(Problem(path, "Must be an email address."))
        return text
    problem = line_problem(text) or length_problem(text, _EMAIL_COLUMN)
    if problem is not None:
        problems.append(Problem(path, problem))
    return text


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _sign_fields(raw: Any, path: str, problems: list[Problem]) -> tuple[SignField, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(Problem(path, "Must be a list of fields."))
        return ()
    fields: list[SignField] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = f"{path}.{index}"
        if not isinstance(item, Mapping):
            problems.append(Problem(where, "Must be an object."))
            continue
        if "type" not in item and ("content" in item or "heading" in item or "table" in item):
            continue  # a Markdown block, not a field
        field_id, kind = _text(item.get("id")), item.get("type")
        if not field_id:
            problems.append(Problem(f"{where}.id", "Required"))
        elif field_id in seen:
            problems.append(Problem(f"{where}.id", f"Duplicate field id {field_id!r}."))
        seen.add(field_id)
        if not isinstance(kind, str) or kind not in SIGNER_FIELD_TYPES:
            problems.append(
                Problem(f"{where}.type", f"Must be one of {', '.join(sorted(SIGNER_FIELD_TYPES))}.")
            )
        page = item.get("pageNum", item.get("page", 0))
        if not isinstance(page, int) or isinstance(page, bool) or page < 0:
            problems.append(Problem(f"{where}.pageNum", "Must be a page index from 0."))
            page = 0
        rect = item.get("rect")
        if not isinstance(rect, Mapping) or not all(
            _number(rect.get(k)) for k in ("x", "y", "width", "height")
        ):
            problems.append(Problem(f"{where}.rect", "Must be {x, y, width, height} in points."))
            continue
        if rect["width"] <= 0 or rect["height"] <= 0:
            problems.append(Problem(f"{where}.rect", "Width and height must be positive."))
            continue
        fields.append(
            SignField(
                id=field_id,
                type=str(kind),
                page=page,
                rect=Rect(
                    float(rect["x"]), float(rect["y"]), float(rect["width"]), float(rect["height"])
                ),
                value=prefilled_value(item, kind, where, problems),
            )
        )
    return tuple(fields)


def _upload(value: Any, path: str, problems: list[Problem]) -> UploadedBlob | None:
    if isinstance(value, UploadedBlob):
        blob = value
    elif isinstance(value, Mapping):
        try:
            blob = blob_from_inline(dict(value), property=path)
        except ValidationFailed as invalid:
            problems.extend(Problem(f.property, f.message) for f in invalid.fields)
            return None
    else:
        problems.append(Problem(path, "Must be an uploaded file."))
        return None
    # An Office document is converted when the packet's documents are made (esign.sending).
    if not blob.looks_like_pdf and not is_office_document(blob.data):
        problems.append(
            Problem(path, "The file is not a PDF, nor a Word, OpenDocument or RTF document.")
        )
        return None
    return blob


def _file(raw: Any, index: int, problems: list[Problem]) -> FileInput | None:
    path = f"files.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    file_id = _text(raw.get("id"))
    if not file_id:
        problems.append(Problem(f"{path}.id", "Required"))
    fields = _sign_fields(raw.get("fields"), f"{path}.fields", problems)
    title = _line(raw.get("title"), f"{path}.title", problems)
    upload_key = "file" if raw.get("file") is not None else "base64File"
    upload = raw.get(upload_key)
    uploaded_name = upload.filename if isinstance(upload, UploadedBlob) else None
    if isinstance(upload, Mapping):
        uploaded_name = upload.get("filename")
    filename = (
        _line(raw.get("filename"), f"{path}.filename", problems)
        or _line(uploaded_name, f"{path}.{upload_key}.filename", problems)
        or f"{title or file_id or 'document'}.pdf"
    )
    common: dict[str, Any] = {
        "id": file_id,
        "title": title,
        "filename": pdf_name(filename),
        "fields": fields,
        "font_size": raw.get("fontSize") if _number(raw.get("fontSize")) else None,
        "text_color": raw.get("textColor") if isinstance(raw.get("textColor"), str) else None,
    }
    markup = raw.get("markup")
    sources = [
        name
        for name, present in (
            ("castEid", raw.get("castEid") is not None),
            ("file", upload is not None),
            ("markup", markup is not None),
        )
        if present
    ]
    if len(sources) > 1:
        problems.append(Problem(path, f"Give one source, not {' and '.join(sources)}."))
        return None
    if raw.get("castEid") is not None:
        cast_eid = _text(raw.get("castEid"))
        if not cast_eid:
            problems.append(Problem(f"{path}.castEid", "Must be a template eid."))
        return FileInput(cast_eid=cast_eid, **common)
    if upload is not None:
        blob = _upload(upload, f"{path}.file", problems)
        if blob is None:
            return None
        taken = [f.id for f in fields]
        blob, tagged = read_file_tags(blob, path=f"{path}.file", taken=taken, problems=problems)
        common["fields"] += tuple(SignField(t.id, t.type, t.page, t.rect) for t in tagged)
        return FileInput(upload=blob, tagged=tagged, **common)
    if markup is not None:
        if not isinstance(markup, Mapping) or not isinstance(markup.get("html"), str):
            problems.append(Problem(f"{path}.markup", "Must be {html, css}."))
            return None
        css = markup.get("css")
        return FileInput(html=markup["html"], css=css if isinstance(css, str) else "", **common)
    blocks = tuple(
        item for item in raw.get("fields") or () if isinstance(item, Mapping) and "type" not in item
    )
    if not blocks:
        problems.append(
            Problem(path, "Needs a source: castEid, file (a PDF), markup or Markdown blocks.")
        )
        return None
    return FileInput(markdown_blocks=blocks, **common)


def _signer(raw: Any, index: int, problems: list[Problem]) -> SignerInput | None:
    path = f"signers.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    name = _line(raw.get("name"), f"{path}.name", problems)
    email = _email(raw.get("email"), f"{path}.email", problems)
    signer_type = raw.get("signerType") or "email"
    if not name:
        problems.append(Problem(f"{path}.name", "Required"))
    if signer_type not in ("email", "embedded"):
        problems.append(Problem(f"{path}.signerType", "Must be email or embedded."))
    if signer_type == "email" and not email:
        problems.append(Problem(f"{path}.email", "Required for an email signer."))
    order = raw.get("routingOrder", index + 1)
    if order not in ROUTING_ORDERS:
        problems.append(Problem(f"{path}.routingOrder", ROUTING_ORDERS.problem()))
        order = index + 1
    mode = raw.get("signatureMode") or "draw"
    if mode not in ("draw", "text"):
        problems.append(Problem(f"{path}.signatureMode", "Must be draw or text."))
    redirect = _text(raw.get("redirectURL"))
    if redirect and not redirect.startswith(("https://", "http://")):
        problems.append(Problem(f"{path}.redirectURL", "Must be an http(s) URL."))
    elif problem := line_problem(redirect) or length_problem(redirect, _REDIRECT_COLUMN):
        problems.append(Problem(f"{path}.redirectURL", problem))
    fields: list[tuple[str, str]] = []
    raw_fields = raw.get("fields") or []
    if not isinstance(raw_fields, list):
        problems.append(Problem(f"{path}.fields", "Must be a list of {fileId, fieldId}."))
        raw_fields = []
    for n, item in enumerate(raw_fields):
        if not isinstance(item, Mapping) or not _text(item.get("fileId")):
            problems.append(Problem(f"{path}.fields.{n}", "Must be {fileId, fieldId}."))
            continue
        fields.append((_text(item.get("fileId")), _text(item.get("fieldId"))))
    enable = raw.get("enableEmails", True)
    return SignerInput(
        alias_id=_text(raw.get("id")) or f"signer{index + 1}",
        name=name,
        email=email,
        signer_type=str(signer_type),
        routing_order=order,
        redirect_url=redirect,
        signature_mode=str(mode),
        accept_each_field=bool(raw.get("acceptEachField")),
        # A list names the emails wanted ([] = none); a boolean switches them all.
        enable_emails=bool(enable),
        fields=tuple(fields),
        language=_language(raw.get("language"), f"{path}.language", problems),
        signature_level=signature_levels.signature_level_of(raw, path, problems),
        **_verify(raw.get("verify"), path, str(signer_type), email, problems),
        **_group(raw.get("group"), path, problems),
        **_role(raw, path, problems),
        attachment_fields=attachment_fields(raw.get("attachments"), path, problems),
        allow_forward=_allow_forward(raw.get("allowForward"), path, str(signer_type), problems),
        **allow_updates_of(raw.get("allowUpdates"), path, problems),
        **initials_option(raw, path, problems),
    )


# The most members a group may require (its column's type bounds it; MAX_SIGNERS does first).
MAX_GROUP_REQUIRED = MAX_SIGNERS


def _group(raw: Any, path: str, problems: list[Problem]) -> dict[str, Any]:
    """A signer's ``group`` (an extension): ``{id, required}``, the signing group they belong
    to and how many of its members must sign (default 1); checked against the other members in
    :func:`_check_groups`."""
    if raw is None:
        return {}
    path = f"{path}.group"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object {id, required}."))
        return {}
    group_id = raw.get("id")
    if not isinstance(group_id, str) or not group_id.strip():
        problems.append(Problem(f"{path}.id", "Required: the group's id, a non-empty string."))
        return {}
    if problem := line_problem(group_id) or (
        "At most 200 characters." if len(group_id.strip()) > 200 else None
    ):
        problems.append(Problem(f"{path}.id", problem))
        return {}
    required = raw.get("required", 1)
    if not isinstance(required, int) or isinstance(required, bool) or required < 1:
        problems.append(Problem(f"{path}.required", "Must be a whole number from 1."))
        return {}
    return {"signing_group": group_id.strip(), "signing_group_required": required}


def _role(raw: Mapping[str, Any], path: str, problems: list[Problem]) -> dict[str, Any]:
    """A signer's ``role`` (an extension): "signer" (default), "witness", which needs
    ``witnessFor``, the id of the signer witnessed (checked in :func:`_check_witnesses`), or
    "approver" / "viewer" (esign.packets.roles)."""
    role = raw.get("role") or "signer"
    witness_for = raw.get("witnessFor")
    if role not in ROLES:
        problems.append(Problem(f"{path}.role", "Must be signer, witness, approver or viewer."))
        return {}
    if role != "witness":
        if witness_for is not None:
            problems.append(Problem(f"{path}.witnessFor", 'Only for a signer of role "witness".'))
        return {} if role == "signer" else {"role": role}
    if not isinstance(witness_for, str) or not witness_for.strip():
        problems.append(Problem(f"{path}.witnessFor", "Required: the id of the signer witnessed."))
        return {}
    return {"role": "witness", "witness_for": witness_for.strip()}


def _allow_forward(value: Any, path: str, signer_type: str, problems: list[Problem]) -> bool | None:
    """A signer's ``allowForward`` (an extension): true or false; an embedded signer never
    forwards from the page (the integrator reassigns them with reassignEtchSigner)."""
    if value is None:
        return None
    if not isinstance(value, bool):
        problems.append(Problem(f"{path}.allowForward", "Must be true or false."))
        return None
    if value and signer_type == "embedded":
        problems.append(
            Problem(
                f"{path}.allowForward",
                "An embedded signer cannot forward from the signing page: reassign them with "
                "reassignEtchSigner.",
            )
        )
        return None
    return value


VERIFY_METHODS = ("email", "sms", "integrator")


def _verify(
    raw: Any, path: str, signer_type: str, email: str, problems: list[Problem]
) -> dict[str, Any]:
    """A signer's ``verify`` (an extension): ``{method: "email" | "sms" | "integrator", phone}``.
    A phone is checked and kept in E.164 (phonenumbers); "integrator" is for embedded signers
    only (the integrator verified them itself)."""
    if raw is None:
        return {}
    path = f"{path}.verify"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object {method, phone}."))
        return {}
    method = raw.get("method")
    if method not in VERIFY_METHODS:
        problems.append(Problem(f"{path}.method", "Must be email, sms or integrator."))
        return {}
    if method == "email" and not email:
        problems.append(Problem(f"{path}.method", "An email code needs the signer's email."))
    if method == "integrator" and signer_type != "embedded":
        problems.append(Problem(f"{path}.method", "Only an embedded signer may be integrator."))
    phone = ""
    if method == "sms":
        phone = _phone(raw.get("phone"), f"{path}.phone", problems)
    return {"verify_method": str(method), "verify_phone": phone}


def _phone(value: Any, path: str, problems: list[Problem]) -> str:
    """An international phone number (with its + and country code), as E.164."""
    if not isinstance(value, str) or not value.strip():
        problems.append(Problem(path, "Required for an SMS code."))
        return ""
    if problem := line_problem(value):
        problems.append(Problem(path, problem))
        return ""
    try:
        number = phonenumbers.parse(value, None)
    except phonenumbers.NumberParseException:
        number = None
    if number is None or not phonenumbers.is_valid_number(number):
        problems.append(Problem(path, "Must be a valid phone number with its country code (+...)."))
        return ""
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _cross_check(
    files: list[FileInput],
    signers: list[SignerInput],
    problems: list[Problem],
    *,
    templates_read: bool = False,
) -> None:
    """Files and signers that agree: unique ids, each signer field on a file that has it, no
    field given to two signers. Until ``templates_read``, a template file's fields are only those
    given in ``files`` (its template's signer fields are added when it is read)."""
    by_id = {f.id: f for f in files}
    if len(by_id) != len(files):
        problems.append(Problem("files", "File ids must be unique."))
    aliases = [s.alias_id for s in signers]
    if len(set(aliases)) != len(aliases):
        problems.append(Problem("signers", "Signer ids must be unique."))
    taken: dict[tuple[str, str], str] = {}
    # Members of one signing group share their fields (whoever signs fills them).
    group_of = {s.alias_id: s.signing_group for s in signers}
    for index, signer in enumerate(signers):
        for n, (file_id, field_id) in enumerate(signer.fields):
            where = f"signers.{index}.fields.{n}"
            document = by_id.get(file_id)
            if document is None:
                problems.append(Problem(f"{where}.fileId", f"No file has the id {file_id!r}."))
            elif (resolved := field_ids(document.fields).get(field_id)) is None:
                if document.cast_eid is None:
                    problems.append(
                        Problem(f"{where}.fieldId", f"File {file_id!r} has no field {field_id!r}.")
                    )
                elif templates_read:
                    problems.append(
                        Problem(
                            f"{where}.fieldId",
                            f"File {file_id!r} has no field {field_id!r} for a signer: give the "
                            "id of one of its template's signature, initial, signatureDate or "
                            "signerName fields, or a field of its own.",
                        )
                    )
                # else: one of its template's fields, perhaps (checked when the template is read)
            elif (file_id, resolved) in taken and not (
                signer.signing_group
                and group_of[taken[(file_id, resolved)]] == signer.signing_group
            ):
                problems.append(
                    Problem(
                        where,
                        f"The field is already given to signer {taken[(file_id, resolved)]!r}.",
                    )
                )
            else:
                taken.setdefault((file_id, resolved), signer.alias_id)
    _check_groups(signers, problems)
    _check_witnesses(by_id, signers, problems)


def _check_groups(signers: list[SignerInput], problems: list[Problem]) -> None:
    """The members of each signing group sign one routing step: the same routing order, the
    same fields and the same ``required``, at most their number; a witness is in no group."""
    first: dict[str, tuple[int, SignerInput]] = {}
    members: dict[str, int] = {}
    for signer in signers:
        if signer.signing_group:
            members[signer.signing_group] = members.get(signer.signing_group, 0) + 1
    for index, signer in enumerate(signers):
        group = signer.signing_group
        if not group:
            continue
        path = f"signers.{index}"
        if signer.role == "witness":
            problems.append(Problem(f"{path}.group", "A witness cannot be in a signing group."))
        if group not in first:
            first[group] = (index, signer)
            if signer.signing_group_required > members[group]:
                problems.append(
                    Problem(
                        f"{path}.group.required",
                        f"Group {group!r} has {members[group]} member(s): required must be "
                        f"from 1 to {members[group]}.",
                    )
                )
            continue
        _, lead = first[group]
        if signer.routing_order != lead.routing_order:
            problems.append(
                Problem(
                    f"{path}.routingOrder",
                    f"The members of group {group!r} sign in one routing step: give "
                    f"{lead.routing_order}, as signer {lead.alias_id!r}.",
                )
            )
        if set(signer.fields) != set(lead.fields):
            problems.append(
                Problem(
                    f"{path}.fields",
                    f"The members of group {group!r} are given the same fields as signer "
                    f"{lead.alias_id!r} (whoever signs fills them).",
                )
            )
        if signer.signing_group_required != lead.signing_group_required:
            problems.append(
                Problem(
                    f"{path}.group.required",
                    f"The members of group {group!r} give the same required as signer "
                    f"{lead.alias_id!r} ({lead.signing_group_required}).",
                )
            )


def _field_pages(
    files: Mapping[str, FileInput], signer: SignerInput
) -> list[tuple[str, int]] | None:
    """The (file id, page) of each of ``signer``'s fields; None while one is not known yet (a
    template's field, before the template is read)."""
    pages = []
    for file_id, field_id in signer.fields:
        document = files.get(file_id)
        resolved = field_ids(document.fields).get(field_id) if document else None
        if document is None or resolved is None:
            return None
        pages.append((file_id, next(f.page for f in document.fields if f.id == resolved)))
    return pages


def _check_witnesses(
    files: Mapping[str, FileInput], signers: list[SignerInput], problems: list[Problem]
) -> None:
    """A witness names another signer (``witnessFor``: not a witness, not in a group), signs
    after them (a greater routing order) and has their fields on the pages of that signer's
    fields (a template's fields are known, and checked, once it is read)."""
    by_alias = {s.alias_id: s for s in signers}
    for index, signer in enumerate(signers):
        if signer.role != "witness":
            continue
        path = f"signers.{index}"
        witnessed = by_alias.get(signer.witness_for)
        if witnessed is None:
            problems.append(
                Problem(f"{path}.witnessFor", f"No signer has the id {signer.witness_for!r}.")
            )
            continue
        if witnessed is signer:
            problems.append(Problem(f"{path}.witnessFor", "A signer cannot witness themselves."))
            continue
        if witnessed.role != "signer" or witnessed.signing_group:
            problems.append(
                Problem(
                    f"{path}.witnessFor",
                    f"Signer {witnessed.alias_id!r} cannot be witnessed: name a signer who is "
                    "neither a witness, an approver or a viewer nor in a signing group.",
                )
            )
            continue
        if signer.routing_order <= witnessed.routing_order:
            problems.append(
                Problem(
                    f"{path}.routingOrder",
                    f"A witness signs after the signer witnessed: give a routing order greater "
                    f"than {witnessed.routing_order} (signer {witnessed.alias_id!r}'s).",
                )
            )
        own, theirs = _field_pages(files, signer), _field_pages(files, witnessed)
        if own is None or theirs is None:
            continue  # a template's field: checked once its template is read
        for n, where in enumerate(own):
            if where not in theirs:
                problems.append(
                    Problem(
                        f"{path}.fields.{n}",
                        f"A witness signs on the pages of the fields of signer "
                        f"{witnessed.alias_id!r}: file {where[0]!r} page {where[1]} has none.",
                    )
                )


# The furthest a packet may expire: five years from now (a bound, not a policy).
MAX_EXPIRY_DAYS = 365 * 5


def expiry_at(value: Any, path: str, problems: list[Problem], *, now: datetime) -> datetime | None:
    """``value`` as an ISO 8601 date and time in the future (at most MAX_EXPIRY_DAYS away); a
    time without an offset is UTC. None (and a problem at ``path``) when it is not one."""
    parsed = parse_moment(value)
    if parsed is None:
        problems.append(Problem(path, ISO_MESSAGE))
        return None
    if parsed <= now:
        problems.append(Problem(path, "Must be in the future."))
        return None
    if parsed > now + timedelta(days=MAX_EXPIRY_DAYS):
        problems.append(Problem(path, f"Must be at most {MAX_EXPIRY_DAYS} days from now."))
        return None
    return parsed


def expiry_of_arguments(
    expires_at: Any, expires_in_days: Any, problems: list[Problem], *, now: datetime
) -> datetime | None:
    """createEtchPacket's ``expiresAt`` or ``expiresInDays`` (from now), never both."""
    if expires_at is not None and expires_in_days is not None:
        problems.append(Problem("expiresInDays", "Give expiresAt or expiresInDays, not both."))
        return None
    if expires_at is not None:
        return expiry_at(expires_at, "expiresAt", problems, now=now)
    if expires_in_days is None:
        return None
    if (
        not isinstance(expires_in_days, int)
        or isinstance(expires_in_days, bool)
        or not 1 <= expires_in_days <= MAX_EXPIRY_DAYS
    ):
        problems.append(
            Problem("expiresInDays", f"Must be a whole number from 1 to {MAX_EXPIRY_DAYS}.")
        )
        return None
    return now + timedelta(days=expires_in_days)


def _list(value: Any, path: str, problems: list[Problem]) -> list[Any]:
    """A list argument: GraphQL types createEtchPacket's, but a bulk send's shape is any JSON."""
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(Problem(path, "Must be a list."))
        return []
    return value


def parse_packet_input(arguments: Mapping[str, Any]) -> PacketInput:
    """The createEtchPacket arguments, checked; ValidationFailed names every problem."""
    problems: list[Problem] = []
    raw_files = _list(arguments.get("files"), "files", problems)
    raw_signers = _list(arguments.get("signers"), "signers", problems)
    if not raw_files and "files" not in {p.path for p in problems}:
        problems.append(Problem("files", "Required"))
    if len(raw_files) > MAX_FILES:
        problems.append(Problem("files", f"At most {MAX_FILES} files."))
    if len(raw_signers) > MAX_SIGNERS:
        problems.append(Problem("signers", f"At most {MAX_SIGNERS} signers."))
    files = [f for i, raw in enumerate(raw_files[:MAX_FILES]) if (f := _file(raw, i, problems))]
    signers = [
        s for i, raw in enumerate(raw_signers[:MAX_SIGNERS]) if (s := _signer(raw, i, problems))
    ]
    # Signers given no fields get those their tags name (once every file read: a file refused
    # already is a problem, and the files' indexes would not be their places).
    if any(f.tagged for f in files) and len(files) == len(raw_files[:MAX_FILES]):
        names = [SignerNames(s.alias_id, s.name, bool(s.fields)) for s in signers]
        tagged = [(i, f.id, f.tagged) for i, f in enumerate(files) if f.tagged]
        for n, got in enumerate(tagged_signer_fields(tagged, names, problems)):
            signers[n] = replace(signers[n], fields=signers[n].fields or got)
    signers = roles_checked(raw_signers[:MAX_SIGNERS], signers, problems)
    initials_problems(files, signers, problems)
    updates_problems(files, signers, problems)
    _cross_check(files, signers, problems)
    problems += attachment_count_problems(len(s.attachment_fields) for s in signers)
    data = arguments.get("data") or {}
    payloads = data.get("payloads") if isinstance(data, Mapping) else None
    if payloads is not None and not isinstance(payloads, Mapping):
        problems.append(Problem("data.payloads", "Must be an object keyed by file id."))
        payloads = None
    for file_id in payloads or {}:
        if file_id not in {f.id for f in files if f.cast_eid is not None}:
            problems.append(
                Problem(f"data.payloads.{file_id}", "No template file has this id to fill.")
            )
    webhook_url = _text(arguments.get("webhookURL"))
    if webhook_url and not webhook_url.startswith(("https://", "http://")):
        problems.append(Problem("webhookURL", "Must be an http(s) URL."))
    reply_to = _email(arguments.get("replyToEmail"), "replyToEmail", problems)
    reminder_days = arguments.get("reminderDays")
    if reminder_days is not None and (
        not isinstance(reminder_days, int)
        or isinstance(reminder_days, bool)
        or not 1 <= reminder_days <= MAX_REMINDER_DAYS
    ):
        problems.append(
            Problem("reminderDays", f"Must be a whole number from 1 to {MAX_REMINDER_DAYS}.")
        )
    name = _line(arguments.get("name"), "name", problems)
    email_subject = _line(arguments.get("signatureEmailSubject"), "signatureEmailSubject", problems)
    reply_to_name = _line(arguments.get("replyToName"), "replyToName", problems)
    language = _language(arguments.get("language"), "language", problems)
    expires_at = expiry_of_arguments(
        arguments.get("expiresAt"), arguments.get("expiresInDays"), problems, now=timezone.now()
    )
    allow_forward = arguments.get("allowForward")
    if allow_forward is not None and not isinstance(allow_forward, bool):
        problems.append(Problem("allowForward", "Must be true or false."))
    if not isinstance(arguments.get("allowUpdates"), bool | None):  # a bulk send's JSON
        problems.append(Problem("allowUpdates", "Must be true or false."))
    verification_stamp = arguments.get("verificationStamp")
    if verification_stamp is not None and not isinstance(verification_stamp, bool):
        problems.append(Problem("verificationStamp", "Must be true or false."))
    if problems:
        raise ValidationFailed.from_problems(problems)
    return PacketInput(
        name=name or "Signature packet",
        files=tuple(files),
        signers=tuple(signers),
        payloads=payloads or {},
        is_draft=bool(arguments.get("isDraft")),
        is_test=bool(arguments.get("isTest")),
        allow_updates=bool(arguments.get("allowUpdates")),
        merge_pdfs=bool(arguments.get("mergePDFs")),
        webhook_url=webhook_url,
        email_subject=email_subject,
        email_body=_text(arguments.get("signatureEmailBody")),
        reply_to_name=reply_to_name,
        reply_to_email=reply_to,
        reminder_days=reminder_days,
        language=language,
        expires_at=expires_at,
        allow_forward=bool(allow_forward),
        verification_stamp=bool(verification_stamp),
    )


def _with_template_fields(
    file: FileInput, template: TemplateSpec, pages: int, index: int
) -> FileInput:
    """``file`` (from ``castEid``) with its template's signer fields (signature, initial,
    signatureDate, signerName) after its own fields, by the template's field ids (and aliases),
    which the signers' ``fieldId`` name; an id given in ``files[].fields`` too is refused. They sit
    on the template's pages, so a payload that repeats pages (the document, of ``pages`` pages, no
    longer has the template's pages) is refused."""
    signed = [spec for spec in template.fields if spec.is_signer]
    if signed and pages != len(template.pages):
        raise ValidationFailed.single(
            f"data.payloads.{file.id}",
            f"The template has signer fields on its {len(template.pages)} page(s): a payload "
            f"that repeats pages ({pages} here) cannot be signed.",
        )
    own = {f.id: n for n, f in enumerate(file.fields)}
    added: list[SignField] = []
    problems: list[Problem] = []
    for spec in signed:
        kind = TEMPLATE_SIGNER_TYPES.get(spec.type)
        if kind is None:
            continue
        if spec.id in own:
            problems.append(
                Problem(
                    f"files.{index}.fields.{own[spec.id]}.id",
                    f"The template has a field {spec.id!r} already: use another id.",
                )
            )
            continue
        alias = spec.alias if spec.alias != spec.id else ""
        added.append(SignField(id=spec.id, type=kind, page=spec.page, rect=spec.rect, alias=alias))
    if problems:
        raise ValidationFailed.from_problems(problems)
    return replace(file, fields=(*file.fields, *added))


def _check_fields_fit(file: FileInput, pages: int, index: int) -> None:
    problems = [
        Problem(f"files.{index}.fields.{n}.pageNum", f"The document has {pages} pages.")
        for n, field in enumerate(file.fields)
        if field.page >= pages
    ]
    if problems:
        raise ValidationFailed.from_problems(problems)


@dataclass(frozen=True)
class MadeFile:
    """What a file's document turned out to be once made (esign.sending.packets): its page count,
    and for a template's file the template's spec (its signer fields)."""

    pages: int
    template: TemplateSpec | None = None


@dataclass(frozen=True)
class StoredFile:
    """A file's document made and stored, before its packet is written: the file as checked
    (:func:`files_checked`), the template version it was filled from, and the stored PDFs (the
    prepared one, and the current one, which a test packet's mark makes differ)."""

    file: FileInput
    template_version: TemplateVersion | None
    pages: int
    prepared_path: str
    prepared_sha256: str
    current_path: str
    current_sha256: str


def files_checked(packet_input: PacketInput, made: Sequence[MadeFile]) -> list[FileInput]:
    """The packet's files once their documents are made (``made``, one per file, in order): each
    template file with its template's signer fields, every field on a page its document has, and
    each signer's ``fieldId`` naming a field of its file (``signers.N.fields.M.fieldId``).
    ValidationFailed names the problems of the first file that has any, else the signers'."""
    files = []
    for index, (file, document) in enumerate(zip(packet_input.files, made, strict=True)):
        if document.template is not None:
            file = _with_template_fields(file, document.template, document.pages, index)
        _check_fields_fit(file, document.pages, index)
        files.append(file)
    problems: list[Problem] = []
    _cross_check(files, list(packet_input.signers), problems, templates_read=True)
    if problems:
        raise ValidationFailed.from_problems(problems)
    return files


def packet_rows(
    packet: Packet, packet_input: PacketInput, documents: Sequence[StoredFile]
) -> tuple[list[PacketDocument], list[Signer]]:
    """The rows that keep what was asked of ``packet`` (not saved): its documents as stored
    (``documents``, in order) and its signers."""
    document_rows = [
        PacketDocument(
            packet=packet,
            alias_id=stored.file.id,
            position=position,
            title=stored.file.title[:255],
            filename=stored.file.filename[:255],
            source=stored.file.source,
            template_version=stored.template_version,
            prepared_path=stored.prepared_path,
            prepared_sha256=stored.prepared_sha256,
            current_path=stored.current_path,
            current_sha256=stored.current_sha256,
            fields=[field.to_json() for field in stored.file.fields],
            page_count=stored.pages,
        )
        for position, stored in enumerate(documents)
    ]
    signer_rows = [
        Signer(
            packet=packet,
            alias_id=signer.alias_id[:200],
            name=signer.name[:255],
            email=signer.email,
            signer_type=signer.signer_type,
            routing_order=signer.routing_order,
            redirect_url=signer.redirect_url,
            signature_mode=signer.signature_mode,
            accept_each_field=signer.accept_each_field,
            enable_emails=signer.enable_emails,
            language=signer.language,
            verify_method=signer.verify_method,
            verify_phone=signer.verify_phone,
            signing_group=signer.signing_group,
            signing_group_required=signer.signing_group_required,
            role=signer.role,
            witness_for=signer.witness_for,
            attachment_fields=[field.to_json() for field in signer.attachment_fields],
            allow_forward=packet_input.signer_may_forward(signer),
            allow_updates=packet_input.signer_may_update(signer),
            fields=[{"fileId": f, "fieldId": field_id} for f, field_id in signer.fields],
        )
        for signer in packet_input.signers
    ]
    return document_rows, signer_rows


@dataclass(frozen=True)
class ForwardInput:
    """Who a signer's turn goes to (esign.signing.forwarding): the signing page's forward form, the
    sender's reassignEtchSigner and the admin's form."""

    name: str
    email: str


def parse_forward_input(name: Any, email: Any, *, email_required: bool = True) -> ForwardInput:
    """``name`` and ``email`` checked as a signer's are (one line, an address that fits);
    ValidationFailed names ``name`` and ``email``."""
    problems: list[Problem] = []
    text = _line(name, "name", problems)
    if not text and not any(p.path == "name" for p in problems):
        problems.append(Problem("name", "Required"))
    elif problem := length_problem(text, Signer._meta.get_field("name")):
        problems.append(Problem("name", problem))
    address = _email(email, "email", problems)
    if email_required and not address and not any(p.path == "email" for p in problems):
        problems.append(Problem("email", "Required"))
    if problems:
        raise ValidationFailed.from_problems(problems)
    return ForwardInput(name=text, email=address)
