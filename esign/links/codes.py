"""A signer's verification before signing (an extension: the signer JSON's ``verify``).

A signer with ``verify: {method: "email"}`` or ``{method: "sms", phone}`` must enter a one-time
code, sent to their address or phone, before a link shows them the documents: the link opens the
code page (esign.signing.link_views.signing_code) until then, and every other use of it is refused
(esign.links.tokens). A right code marks that link verified; a new link asks again.

Codes: CODE_DIGITS digits, used once, valid CODE_TTL, only their keyed hash kept. MAX_TRIES wrong
tries lock the code, and a new one may be sent only LOCK_WAIT later; at most MAX_SENDS codes per
signer per SEND_WINDOW. Each send, success and lock is in the audit trail, with the method and
the masked address. ``{method: "integrator"}`` (embedded signers only) asks for no code: the
integrator says it verified the signer, and their link's audit entry records that.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from esign.links.sms import SmsFailed, sms_send
from esign.models import Signer, SignerCode, SignerToken
from esign.packets.audit import AuditAction, Client
from esign.packets.languages import written_language
from esign.packets.lifecycle import audit

logger = logging.getLogger(__name__)

CODE_DIGITS = 6
CODE_TTL = timedelta(minutes=10)
MAX_TRIES = 5
LOCK_WAIT = timedelta(minutes=15)
MAX_SENDS = 5
SEND_WINDOW = timedelta(hours=1)
CODE_METHODS = ("email", "sms")


def needs_code(signer: Signer, token: SignerToken) -> bool:
    """Whether ``token``'s signer must still enter a code before using it."""
    return signer.verify_method in CODE_METHODS and token.verified_at is None


def masked_destination(signer: Signer) -> str:
    """Where the code goes, masked: a***@example.com, or +*******4567."""
    if signer.verify_method == "sms":
        phone = signer.verify_phone
        return phone[:1] + "*" * max(len(phone) - 5, 0) + phone[-4:]
    local, _at, domain = signer.email.partition("@")
    return f"{local[:1]}***@{domain}"


def _audit_code(signer: Signer, action: AuditAction, client: Client | None) -> None:
    """The trail's entry for a code sent to the signer, or entered right: how, and where to."""
    audit(
        packet=signer.packet,
        signer=signer,
        action=action,
        client=client,
        detail={"method": signer.verify_method, "to": masked_destination(signer)},
    )


def _hash(signer: Signer, code: str) -> str:
    return salted_hmac("esign.signer-code", f"{signer.pk}:{code}", algorithm="sha256").hexdigest()


@dataclass(frozen=True)
class SendOutcome:
    sent: bool
    wait_seconds: int = 0  # when not sent: how long until a code may be sent
    failed: bool = False  # not sent: the email or the SMS provider refused it


def _live(signer: Signer, now: datetime) -> SignerCode | None:
    return (
        SignerCode.objects.filter(signer=signer, used_at__isnull=True, expires_at__gt=now)
        .order_by("-created_at", "-id")
        .first()
    )


def code_pending(signer: Signer) -> bool:
    """Whether a code was sent that may still be entered."""
    code = _live(signer, timezone.now())
    return code is not None and code.locked_at is None


def _wait(signer: Signer, now: datetime) -> int:
    """Seconds before another code may be sent (0: now)."""
    waits = [0.0]
    locked = SignerCode.objects.filter(signer=signer, locked_at__gt=now - LOCK_WAIT)
    for code in locked:
        assert code.locked_at is not None
        waits.append((code.locked_at + LOCK_WAIT - now).total_seconds())
    recent = list(
        SignerCode.objects.filter(signer=signer, created_at__gt=now - SEND_WINDOW)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    if len(recent) >= MAX_SENDS:
        waits.append((recent[-MAX_SENDS] + SEND_WINDOW - now).total_seconds())
    return int(max(waits) + 0.999)


def code_send(*, signer: Signer, client: Client | None = None) -> SendOutcome:
    """Send ``signer`` a new code (the previous ones stop working), unless locked or over the
    cap on sends; audited with the method and the masked address once it went out. A code that
    could not be sent (the SMS provider refused it) stops working at once."""
    now = timezone.now()
    with transaction.atomic():
        signer = Signer.objects.select_for_update().select_related("packet").get(pk=signer.pk)
        wait = _wait(signer, now)
        if wait > 0:
            return SendOutcome(sent=False, wait_seconds=wait)
        code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
        SignerCode.objects.filter(signer=signer, used_at__isnull=True, expires_at__gt=now).update(
            expires_at=now
        )
        row = SignerCode.objects.create(
            signer=signer,
            code_hash=_hash(signer, code),
            method=signer.verify_method,
            created_at=now,
            expires_at=now + CODE_TTL,
        )
    with translation.override(written_language(signer=signer)):
        minutes = int(CODE_TTL.total_seconds() // 60)
        text = _("Your code to sign “{packet}”: {code}. It works once, for {minutes} minutes.")
        body = text.format(packet=signer.packet.name, code=code, minutes=minutes)
        try:
            if signer.verify_method == "sms":
                sms_send(to=signer.verify_phone, body=body)
            else:
                send_mail(_("Your signing code"), body, None, [signer.email])
        except (SmsFailed, OSError):
            logger.warning("verification: the code to signer %s could not be sent", signer.eid)
            SignerCode.objects.filter(pk=row.pk).update(expires_at=now)
            return SendOutcome(sent=False, failed=True)
    _audit_code(signer, AuditAction.SIGNER_CODE_SENT, client)
    return SendOutcome(sent=True)


class CodeResult:
    RIGHT = "right"
    WRONG = "wrong"
    LOCKED = "locked"
    NONE = "none"  # no code that may be entered: expired, used, or never sent


def code_check(
    *, signer: Signer, token: SignerToken, code: str, client: Client | None = None
) -> str:
    """Check ``code`` for ``signer``'s link ``token``: right (the link is verified, the code
    used), wrong (one try counted; the last allowed locks it), locked, or none."""
    now = timezone.now()
    with transaction.atomic():
        signer = Signer.objects.select_for_update().select_related("packet").get(pk=signer.pk)
        live = _live(signer, now)
        if live is None:
            return CodeResult.NONE
        if live.locked_at is not None:
            return CodeResult.LOCKED
        given = (code or "").strip()
        if hmac.compare_digest(live.code_hash, _hash(signer, given)):
            live.used_at = now
            live.save(update_fields=["used_at"])
            SignerToken.objects.filter(pk=token.pk).update(verified_at=now)
            _audit_code(signer, AuditAction.SIGNER_VERIFIED, client)
            return CodeResult.RIGHT
        live.tries += 1
        fields = ["tries"]
        if live.tries >= MAX_TRIES:
            live.locked_at = now
            fields.append("locked_at")
            audit(
                packet=signer.packet,
                signer=signer,
                action=AuditAction.SIGNER_CODE_LOCKED,
                client=client,
                detail={"method": signer.verify_method, "tries": live.tries},
            )
        live.save(update_fields=fields)
        return CodeResult.LOCKED if live.locked_at else CodeResult.WRONG
