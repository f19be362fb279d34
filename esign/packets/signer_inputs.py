"""The signers of createEtchPacket (``signers``), read from their wire form
(esign.packets.inputs) into SignerInput. What a signer object takes, its messages and its schema
are declared once in esign.engine.signer_model (SignerModel), and how it is read with them in
esign.engine.signer_reading; this module gives them what needs the service (the languages
shipped, Django's email check, the largest attachment) and keeps the attachment fields read as
signers store them.
What the signers must agree on among themselves is checked with the files
(esign.packets.packet_checks).

Every problem names the argument it is about (``signers.0.verify.phone``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.engine.problems import Problem
from esign.engine.attachment_model import MAX_BYTES
from esign.engine.signer_model import EMAIL_CHECK, LANGUAGES, stripped
from esign.engine.signer_reading import PROBLEM_ORDER, read_signer
from esign.packets.attachment_fields import attachment_cap, attachment_fields
from esign.packets.input_data import SignerInput
from esign.packets.input_values import email_problem, shipped_languages

MAX_SIGNERS = 50


def signer_input(raw: Any, index: int, problems: list[Problem]) -> SignerInput | None:
    """The signer ``raw`` (the ``index``-th), its problems appended to ``problems``; a key
    refused keeps its default, so that the packet's later checks read the rest."""
    path = f"signers.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    context = {
        EMAIL_CHECK: email_problem,
        LANGUAGES: shipped_languages(),
        MAX_BYTES: attachment_cap(),
    }
    values, found = read_signer(raw, path, context)
    signer = SignerInput(
        alias_id=values["id"] or f"signer{index + 1}",
        # A name or a redirect refused is read as sent, as before (the tags match on names).
        name=values["name"] or stripped(raw.get("name")),
        email=values["email"],
        signer_type=values["signer_type"],
        routing_order=values["routing_order"] or index + 1,
        redirect_url=values["redirect_url"] or stripped(raw.get("redirectURL")),
        signature_mode=values["signature_mode"],
        accept_each_field=values["accept_each_field"],
        # A list names the emails wanted ([] = none); a boolean switches them all.
        enable_emails=values["enable_emails"],
        fields=tuple((ref.file_id, ref.field_id) for ref in values["fields"]),
        language=values["language"],
        signature_level=values["signature_level"],
        **_verify(values["verify"]),
        **_group(values["group"]),
        **_role(values["role"], values["witness_for"]),
        attachment_fields=attachment_fields(values["attachments"]),
        allow_forward=values["allow_forward"] if "allowForward" not in found else None,
        allow_updates=values["allow_updates"],
        initials_files=values["initials_on_every_page"],
        initials_position=values["initials_position"],
    )
    problems.extend(problem for slot in PROBLEM_ORDER for problem in found.get(slot, ()))
    return signer


def _verify(verify: Any) -> dict[str, Any]:
    """A signer's ``verify`` (esign.engine.signer_model.SignerVerify) as SignerInput's."""
    if verify is None:
        return {}
    return {"verify_method": verify.method, "verify_phone": verify.phone}


def _group(group: Any) -> dict[str, Any]:
    """A signer's ``group``: the signing group they belong to and how many of its members must
    sign; checked against the other members with the files (esign.packets.packet_checks)."""
    if group is None:
        return {}
    return {"signing_group": group.id, "signing_group_required": group.required}


def _role(role: str, witness_for: str) -> dict[str, Any]:
    """A signer's ``role``: a witness needs ``witnessFor``, the id of the signer witnessed
    (checked in esign.packets.packet_checks); approvers and viewers: esign.packets.roles."""
    if role == "witness":
        return {"role": "witness", "witness_for": witness_for} if witness_for else {}
    return {} if role == "signer" else {"role": role}
