"""The signers of createEtchPacket (``signers``), read from their wire form
(esign.packets.inputs): who each one is and how they are reached, their routing order and
fields, and the extensions of a signer (language, signature level, verification code, signing
group, role and witness, attachments, forwarding, updates, initials on every page). What the
signers must agree on among themselves is checked with the files (esign.packets.packet_checks).

Every problem names the argument it is about (``signers.0.verify.phone``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import phonenumbers

from core.engine.input_checks import column_range, length_problem, line_problem
from core.engine.problems import Problem
from esign.models import Signer
from esign.packets import signature_levels
from esign.packets.attachment_fields import attachment_fields
from esign.packets.initials import initials_option
from esign.packets.input_data import SignerInput
from esign.packets.input_values import email_address, language_of, one_line, stripped
from esign.packets.roles import ROLES
from esign.packets.updates import allow_updates_of

MAX_SIGNERS = 50
# What Signer.routing_order's column holds, from 1.
ROUTING_ORDERS = column_range(Signer._meta.get_field("routing_order"), low=1)
# The redirect URL's column.
_REDIRECT_COLUMN = Signer._meta.get_field("redirect_url")


def signer_input(raw: Any, index: int, problems: list[Problem]) -> SignerInput | None:
    path = f"signers.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    name = one_line(raw.get("name"), f"{path}.name", problems)
    email = email_address(raw.get("email"), f"{path}.email", problems)
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
    redirect = stripped(raw.get("redirectURL"))
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
        if not isinstance(item, Mapping) or not stripped(item.get("fileId")):
            problems.append(Problem(f"{path}.fields.{n}", "Must be {fileId, fieldId}."))
            continue
        fields.append((stripped(item.get("fileId")), stripped(item.get("fieldId"))))
    enable = raw.get("enableEmails", True)
    return SignerInput(
        alias_id=stripped(raw.get("id")) or f"signer{index + 1}",
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
        language=language_of(raw.get("language"), f"{path}.language", problems),
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
    to and how many of its members must sign (default 1); checked against the other members
    with the files (esign.packets.packet_checks)."""
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
    ``witnessFor``, the id of the signer witnessed (checked in esign.packets.packet_checks), or
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
