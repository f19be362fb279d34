"""A signer's fields and what they adopt: the fields assigned to them across the packet's
documents, the signature and initials they adopt, and the checks of the values they type."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

from core.engine.problems import Problem
from core.errors import ValidationFailed
from esign.inputs import STAMP_TYPES
from esign.models import Signer
from esign.signing_groups import fields_filled_by_another


@dataclass(frozen=True)
class Adoption:
    """What a signer adopted: a drawn signature (PNG) or typed text, and initials."""

    drawn_png: bytes | None = None
    typed: str = ""
    initials: str = ""


def signer_fields(signer: Signer) -> list[dict[str, Any]]:
    """The signer's fields with their documents: [{fileId, fieldId, type, page, rect, ...}],
    ``fieldId`` the field's id whether the signer was given it by id or by its template alias
    (esign.inputs.field_ids: an id before an alias). Nothing for a member of a signing group
    whose fields another member filled first (esign.signing_groups)."""
    if signer.signing_group and fields_filled_by_another(signer):
        return []
    documents = {d.alias_id: d for d in signer.packet.documents.all()}
    out = []
    for ref in signer.fields:
        document = documents.get(ref["fileId"])
        if document is None:
            continue
        by_alias = {f["alias"]: f for f in document.fields if f.get("alias")}
        by_id = {f["id"]: f for f in document.fields}
        field = by_id.get(ref["fieldId"]) or by_alias.get(ref["fieldId"])
        if field is not None:
            out.append({"fileId": document.alias_id, "fieldId": field["id"], **field})
    return out


# The longest value a signer may type, by field type; the others are SIGNING_TEXT_MAX_CHARS.
_EMAIL_MAX_CHARS = 254  # RFC 5321's longest address
_DATE_MAX_CHARS = 32  # any spelling of a date


def _value_cap(kind: str) -> int:
    if kind == "email":
        return _EMAIL_MAX_CHARS
    if kind == "date":
        return _DATE_MAX_CHARS
    if kind == "fullName":
        return int(settings.SIGNING_NAME_MAX_CHARS)
    return int(settings.SIGNING_TEXT_MAX_CHARS)


def check_values(signer: Signer, adoption: Adoption, values: dict[str, Any]) -> None:
    """Only the signer's own typed fields are taken (what is kept on the signer is bounded by
    them), each within the length of its type; a checkbox is true or false."""
    problems = []
    typed: set[str] = set()
    for field in signer_fields(signer):
        key = f"{field['fileId']}/{field['fieldId']}"
        if field["type"] in STAMP_TYPES:
            if field["type"] == "signature" and not (adoption.drawn_png or adoption.typed):
                problems.append(Problem("signature", _("Adopt a signature first.")))
            if field["type"] == "initial" and not (adoption.initials or adoption.typed):
                problems.append(Problem("initials", _("Adopt your initials first.")))
        elif field["type"] == "checkbox":
            typed.add(key)
            if key in values and not isinstance(values[key], bool):
                problems.append(Problem(key, _("Must be true or false.")))
        elif field["type"] != "signatureDate":
            typed.add(key)
            value = values.get(key)
            cap = _value_cap(field["type"])
            if not isinstance(value, str) or not value.strip():
                problems.append(Problem(key, _("Required")))
            elif len(value) > cap:
                problems.append(Problem(key, _("At most %(count)s characters.") % {"count": cap}))
            elif (message := _type_problem(field["type"], value.strip())) is not None:
                problems.append(Problem(key, message))
    # A key is echoed back in its property, so a long one is cut (the body's cap bounds them all).
    problems += [
        Problem(f"values.{key[:200]}", _("Not a field this signer fills in."))
        for key in sorted(set(values) - typed)
    ]
    if problems:
        unique = {(p.path, p.message): p for p in problems}
        raise ValidationFailed.from_problems(unique.values())


def _type_problem(kind: str, value: str) -> str | None:
    """What is wrong with ``value`` for a field of ``kind`` (as fill checks its types): an
    email must be an address, a date an ISO date (YYYY-MM-DD)."""
    if kind == "email":
        try:
            validate_email(value)
        except ValidationError:
            return _("Enter an email address, like name@example.com.")
    if kind == "date":
        try:
            date.fromisoformat(value)
        except ValueError:
            return _("Enter a date as YYYY-MM-DD.")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return _("Enter a date as YYYY-MM-DD.")
    return None


def check_attachments(signer: Signer) -> None:
    """Every required attachment field of the signer has a file (esign.attachments); the
    problem names ``attachments.<field id>``."""
    if not signer.attachment_fields:
        return  # nothing to attach: no query
    attached = set(signer.attachments.values_list("field_id", flat=True))
    problems = [
        Problem(
            f"attachments.{field['id']}",
            _("Attach “{label}” to finish.").format(label=field["label"]),
        )
        for field in signer.attachment_fields or []
        if field.get("required") and field["id"] not in attached
    ]
    if problems:
        raise ValidationFailed.from_problems(problems)
