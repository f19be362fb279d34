"""createEtchPacket's own options, declared once: what each takes, its messages and its
description (issue 53, item 1): the packet's name, the signature email's subject and body, the
reply-to, the webhook URL, reminders, language, expiry (``expiresAt`` / ``expiresInDays``) and
the switches (draft, test, merged PDFs, forwarding, updates, the verification stamp).

esign.packets.packet_options reads them with `read_options`; what needs the service comes in
the context: Django's email check and the languages shipped (esign.engine.signer_model's
`EMAIL_CHECK`, `LANGUAGES`, as a signer's) and the check of an expiry moment against the clock
(`EXPIRY_CHECK`). The messages and their order are today's, with the wire's old leniencies: a
name or subject that is not text reads as none, and isDraft, isTest and mergePDFs are read for
their truth (a bulk send's JSON may say 1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from core.engine.problems import Problem
from core.engine.wire_models import (
    WireModel,
    component_schemas,
    refusal,
    says,
    validate,
    with_context,
)
from esign.engine.file_model import OneLine
from esign.engine.signer_model import EMAIL_CHECK, LANGUAGES, Text
from esign.engine.signer_model import _email as email_checked
from esign.engine.signer_model import _language as language_checked

# `validate`'s context (besides the signer model's): an expiry moment as sent -> the moment, or
# the message saying why it is none (not ISO 8601, past, too far).
EXPIRY_CHECK = "expiry_check"
ExpiryCheck = Callable[[object], "datetime | str"]

MAX_REMINDER_DAYS = 365
# The furthest a packet may expire: five years from now (a bound, not a policy).
MAX_EXPIRY_DAYS = 365 * 5
BOTH_EXPIRIES = "Give expiresAt or expiresInDays, not both."


def _http_url(url: str) -> str:
    if url and not url.startswith(("https://", "http://")):
        raise refusal("Must be an http(s) URL.")
    return url


def _expiry(value: object, check: ExpiryCheck) -> datetime:
    moment = check(value)
    if isinstance(moment, str):
        raise refusal(moment)
    return moment


Truth = Annotated[bool, BeforeValidator(bool)]


class PacketOptions(WireModel):
    """The packet's own arguments of createEtchPacket (its files, signers and data aside)."""

    webhook_url: Annotated[Text, AfterValidator(_http_url)] = Field(
        default="", alias="webhookURL", description="This packet's own webhook URL."
    )
    reply_to_email: Annotated[Text, AfterValidator(with_context(email_checked, EMAIL_CHECK))] = (
        Field(default="", description="Where signers' replies go.")
    )
    reminder_days: (
        Annotated[
            int,
            Field(ge=1, le=MAX_REMINDER_DAYS),
            says(f"Must be a whole number from 1 to {MAX_REMINDER_DAYS}."),
        ]
        | None
    ) = Field(
        default=None,
        description=f"Remind signers who have not signed every this many days "
        f"(1-{MAX_REMINDER_DAYS}).",
    )
    name: OneLine = Field(default="", description="The packet's name.")
    signature_email_subject: OneLine = Field(
        default="", description="The subject of the signing emails."
    )
    reply_to_name: OneLine = Field(default="", description="The name beside replyToEmail.")
    language: Annotated[str, BeforeValidator(with_context(language_checked, LANGUAGES))] = Field(
        default="", description="The signers' pages and emails and the audit trail."
    )
    expires_at: Annotated[datetime, BeforeValidator(with_context(_expiry, EXPIRY_CHECK))] | None = (
        Field(
            default=None,
            description="The packet expires then (ISO 8601, UTC without an offset).",
        )
    )
    expires_in_days: (
        Annotated[
            int,
            Field(ge=1, le=MAX_EXPIRY_DAYS),
            says(f"Must be a whole number from 1 to {MAX_EXPIRY_DAYS}."),
        ]
        | None
    ) = Field(
        default=None,
        description="The packet expires this many days from now (instead of expiresAt).",
    )
    allow_forward: bool | None = Field(
        default=None, description="Signers may hand their turn to someone else."
    )
    allow_updates: bool | None = Field(
        default=None,
        description="As createEtchPacket's allowUpdates: signers may change the values the "
        "sender filled in their fields (files[].fields[].value) before signing.",
    )
    verification_stamp: bool | None = Field(
        default=None, description="Each sealed document carries a verification mark."
    )
    is_draft: Truth = Field(default=False, description="Create without sending.")
    is_test: Truth = Field(default=False, description="A test packet (watermarked).")
    merge_pdfs: Truth = Field(
        default=False, alias="mergePDFs", description="One PDF of all the documents."
    )
    signature_email_body: Text = Field(
        default="", description="A message added to the signing emails."
    )


def options_schema() -> dict[str, Any]:
    """The JSON schema of the options (components, named by class)."""
    return component_schemas(PacketOptions)


def read_options(
    arguments: Mapping[str, Any], context: Mapping[str, Any]
) -> tuple[PacketOptions | None, list[Problem]]:
    """The options among createEtchPacket's ``arguments`` and their problems, in today's
    order; expiresAt and expiresInDays both given are that problem alone (on expiresInDays),
    in expiresAt's place."""
    both = all(arguments.get(key) is not None for key in ("expiresAt", "expiresInDays"))
    if not both:
        return validate(PacketOptions, arguments, context=context)
    given = {k: v for k, v in arguments.items() if k not in ("expiresAt", "expiresInDays")}
    model, problems = validate(PacketOptions, given, context=context)
    keys = [str(field.alias) for field in PacketOptions.model_fields.values()]
    later = keys[keys.index("expiresAt") :]
    place = next((n for n, p in enumerate(problems) if p.path.split(".")[0] in later), None)
    problem = Problem("expiresInDays", BOTH_EXPIRIES)
    problems.insert(len(problems) if place is None else place, problem)
    return None, problems
