"""Signing links: a secret token per link (only its SHA-256 is stored), which expires and can be
revoked, and the signer it opens."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.identity import ApiIdentity
from core.errors import Conflict, ValidationFailed
from esign.links.codes import needs_code
from esign.models import Packet, Signer, SignerToken
from esign.packets import lifecycle
from esign.packets.audit import AuditAction
from esign.packets.groups import GROUP_SIGNED, skipped_for_group
from esign.packets.lifecycle import audit
from esign.packets.lookups import signer_get

TOKEN_TTL = timedelta(hours=24)
# The reason of a link refused until its signer enters their one-time code.
VERIFICATION_REQUIRED = "verificationRequired"
# A link kept for showing again is reused only while it lasts at least this much longer.
REUSE_MARGIN = timedelta(hours=1)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def signer_token_issue(*, signer: Signer, client_user_id: str = "") -> str:
    """A new link secret for ``signer``, valid for TOKEN_TTL (the caller audits why)."""
    token = secrets.token_urlsafe(32)
    SignerToken.objects.create(
        signer=signer,
        token_hash=_hash(token),
        client_user_id=client_user_id[:255],
        expires_at=timezone.now() + TOKEN_TTL,
    )
    return token


def signer_link(*, signer: Signer, reason: str) -> str:
    """The signing URL the service shows a signer again and again (a workflow's done page): the
    newest link it keeps that lasts at least another REUSE_MARGIN, else a new one, audited with
    ``reason``. Called on an explicit step (the page that hands the link out), never per view of
    a page that merely lists it."""
    now = timezone.now()
    kept = (
        SignerToken.objects.filter(
            signer=signer, revoked_at__isnull=True, expires_at__gt=now + REUSE_MARGIN
        )
        .exclude(secret="")
        .order_by("-expires_at")
        .first()
    )
    if kept is not None:
        return signing_url(signer=signer, token=kept.secret)
    token = signer_token_issue(signer=signer)
    SignerToken.objects.filter(token_hash=_hash(token)).update(secret=token)
    audit(packet=signer.packet, signer=signer, action=reason)
    return signing_url(signer=signer, token=token)


def signing_url(*, signer: Signer, token: str) -> str:
    path = reverse("esign-verify", args=[signer.eid])
    return f"{settings.PUBLIC_BASE_URL}{path}?token={token}"


# A signer who will not sign (any more) gets no link: the page would only refuse them.
_NO_LONGER_SIGNS: dict[str, str] = {
    Signer.Status.COMPLETED: (
        "The signer has already signed: there is nothing left to sign. Their copy is at the "
        "links of the signerComplete event (documents); the packet's documents at "
        "/api/document-group/<eid>.zip."
    ),
    Signer.Status.SKIPPED: (
        "The signer was skipped: enough members of their signing group signed, or the packet "
        "stopped before their turn; they no longer sign."
    ),
    Signer.Status.DECLINED: "The signer declined to sign.",
    Signer.Status.VOIDED: "The packet was voided: nobody signs it any more.",
}


def sign_url_generate(*, identity: ApiIdentity, signer_eid: str, client_user_id: str) -> str:
    """generateEtchSignURL: a signing URL for an embedded signer (``client_user_id`` is kept
    with the link for the integrator's records)."""
    signer = signer_get(organization=identity.organization, eid=signer_eid)
    if signer.signer_type != Signer.Kind.EMBEDDED:
        raise ValidationFailed.single(
            "signerEid", "Signing URLs are made for embedded signers; email signers get an email."
        )
    if not client_user_id.strip():
        raise ValidationFailed.single("clientUserId", "Required")
    if signer.packet.status == Packet.Status.DRAFT:
        raise Conflict("The packet is a draft: send it first.")
    if lifecycle.packet_past_expiry(signer.packet):
        raise Conflict("The packet has expired: extend it first (extendEtchPacket).")
    if signer.status == Signer.Status.FORWARDED:  # esign.signing.forwarding
        raise Conflict("The signer's turn was handed to someone else: ask for their link.")
    if signer.status in _NO_LONGER_SIGNS:
        raise Conflict(_NO_LONGER_SIGNS[signer.status])
    # The integrator verified this signer itself (verify: {method: "integrator"}): recorded.
    detail = {"verifiedBy": "integrator"} if signer.verify_method == "integrator" else None
    with transaction.atomic():
        token = signer_token_issue(signer=signer, client_user_id=client_user_id)
        audit(
            packet=signer.packet,
            signer=signer,
            action=AuditAction.SIGNING_URL_CREATED,
            detail=detail,
        )
    return signing_url(signer=signer, token=token)


def signer_tokens_revoke(*, signer: Signer) -> int:
    """Every open link of ``signer`` stops working now (in the caller's transaction)."""
    return SignerToken.objects.filter(signer=signer, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def signer_tokens_expire(*, identity: ApiIdentity, signer_eid: str) -> int:
    """expireSignerTokens: every open link of the signer stops working now."""
    signer = signer_get(organization=identity.organization, eid=signer_eid)
    with transaction.atomic():
        count = signer_tokens_revoke(signer=signer)
        audit(packet=signer.packet, signer=signer, action=AuditAction.TOKENS_EXPIRED)
    return count


class SigningRefused(Exception):
    """A signing link that cannot be used; ``error_type`` is the wire's errorType, one of the
    three the published clients know (spec/COMPATIBILITY.md); ``reason`` (an extension, the
    event's ``reason``) tells a voided packet or signer from a link that never existed."""

    def __init__(
        self, error_type: str, message: str, signer: Signer | None = None, *, reason: str = ""
    ) -> None:
        self.error_type = error_type
        self.signer = signer
        self.reason = reason
        super().__init__(message)


def signer_of_expired_link(*, signer_eid: str, token: str) -> Signer | None:
    """The signer whose link ``token`` was, when it expired on its own (not revoked, not
    voided): the expired-link page may send them a new one."""
    row = SignerToken.objects.select_related("signer__packet").filter(token_hash=_hash(token or ""))
    token_row = row.first()
    if token_row is None or token_row.signer.eid != signer_eid or token_row.revoked_at is not None:
        return None
    if token_row.expires_at > timezone.now():
        return None
    return token_row.signer


def token_checked(*, signer_eid: str, token: str, now: datetime | None = None) -> SignerToken:
    """The link ``token`` of this signer: unexpired, not revoked, its request not cancelled or
    expired (SigningRefused otherwise). Its signer may still have a code to enter."""
    now = now or timezone.now()
    row = (
        SignerToken.objects.select_related("signer__packet__organization")
        .filter(token_hash=_hash(token or ""))
        .first()
    )
    if row is None or row.signer.eid != signer_eid:
        raise SigningRefused("tokenInvalid", "This signing link is not valid.")
    signer = row.signer
    if signer.packet.status == Packet.Status.VOIDED or signer.status == Signer.Status.VOIDED:
        reason = "packetVoided" if signer.packet.status == Packet.Status.VOIDED else "signerVoided"
        raise SigningRefused(
            "notFound", "This signature request was cancelled.", signer, reason=reason
        )
    if signer.status == Signer.Status.FORWARDED:  # their turn went to someone else
        raise SigningRefused(
            "notFound",
            "This signature request was handed to someone else.",
            signer,
            reason="signerForwarded",
        )
    if skipped_for_group(signer):
        raise SigningRefused(
            "notFound",
            "Another member of the signer's group signed this step.",
            signer,
            reason=GROUP_SIGNED,
        )
    if lifecycle.packet_past_expiry(signer.packet, now):
        raise SigningRefused(
            "tokenExpired", "This signature request has expired.", signer, reason="packetExpired"
        )
    if row.revoked_at is not None or row.expires_at <= now:
        raise SigningRefused("tokenExpired", "This signing link has expired.", signer)
    return row


def signer_from_token(*, signer_eid: str, token: str, now: datetime | None = None) -> Signer:
    """The signer a link opens: the token must be this signer's, unexpired and not revoked, and
    their one-time code entered with it if they have one (esign.links.codes): until then the
    link is refused with ``reason: verificationRequired`` (the page sends them to the code)."""
    row = token_checked(signer_eid=signer_eid, token=token, now=now)
    if needs_code(row.signer, row):
        raise SigningRefused(
            "tokenInvalid",
            "Enter the code sent to you before signing.",
            row.signer,
            reason=VERIFICATION_REQUIRED,
        )
    return row.signer


# The completion page a signer (or the integrator following the legacy frame's string) lands on
# after finishing without a redirect URL: its link carries a key signed with SECRET_KEY that
# lets it show the signer's documents for DONE_LINK_TTL, whatever happens to the signing link.
DONE_LINK_TTL = timedelta(days=7)
_DONE_SALT = "esign.signer-done"


def signer_done_key(signer: Signer) -> str:
    """The key of ``signer``'s completion page (the signature of its eid and the time)."""
    return signing.TimestampSigner(salt=_DONE_SALT).sign(signer.eid).split(":", 1)[1]


def signer_of_done_key(*, signer_eid: str, key: str) -> Signer | None:
    """The signer whose completion page ``key`` opens, while it works, once they finished."""
    try:
        signing.TimestampSigner(salt=_DONE_SALT).unsign(
            f"{signer_eid}:{key}", max_age=DONE_LINK_TTL
        )
    except signing.BadSignature:
        return None
    finished = (Signer.Status.COMPLETED, Signer.Status.DECLINED)
    return (
        Signer.objects.select_related("packet__organization")
        .filter(eid=signer_eid, status__in=finished)
        .first()
    )
