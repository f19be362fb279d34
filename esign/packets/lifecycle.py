"""The life of a packet and its signers: the one way to change a status.

Every status change of a packet or a signer goes through :func:`packet_move` or
:func:`signer_move`, inside the transaction that makes it (the caller holds the packet's row
lock). Each checks the move against its table (esign.packets.statuses, with the statuses
themselves: a move the table does not allow is a Conflict, and nothing is written), stamps the
time the status carries, keeps the document group's status with the packet's, writes the audit
entry, emits the webhook event and tells the apps above (their hooks). The tables' names stay
importable from here.

What a change writes is written here too, beside the moves, so that a reader of a move reads
all of it in one place (in a module of their own, the event builders made each move leave this
file and come back: the signature's walk, tests/esign/test_walks.py, went from 10 returns to 13,
over its bound of 11): the audit entry (:func:`audit`, also called for what is no move: a link
opened again, an email sent), the webhook events of e-signature (each emitted through the
webhooks app in the transaction of the change it reports; their ``data`` names packets, groups
and signers by their wire fields), and the callbacks of the apps above (workflows sits above
esign, layers enforced by import-linter: it registers at start-up, its AppConfig.ready, and is
called explicitly where the state changes, inside the transaction, so that a workflow's signing
step learns at once that its packet was completed, declined or voided).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from core.errors import Conflict
from core.graphql.scalars import iso_ms
from esign.models import AuditEvent, DocumentGroup, Packet, Signer, SignerEmail
from esign.packets.audit import ROLE_ACTIONS, AuditAction, Client
from esign.packets.documents import signer_copies
from esign.packets.groups import group_signed_by
from esign.packets.signature_levels import signers_wire
from esign.packets.statuses import EMAIL_MOVES as EMAIL_MOVES
from esign.packets.statuses import (
    EMAILS,
    OPEN_PACKET,
    PACKET_ACTIONS,
    PACKET_MOVES,
    SIGNER_ACTIONS,
    SIGNER_MOVES,
)
from esign.packets.statuses import ENDED_SIGNER as ENDED_SIGNER
from esign.packets.statuses import FINISHED_SIGNER as FINISHED_SIGNER
from esign.packets.statuses import SEAL_MOVES as SEAL_MOVES
from esign.packets.statuses import SEALS as SEALS
from webhooks.services import (
    ETCH_PACKET_EXPIRED,
    ETCH_PACKET_SEAL_FAILED,
    ETCH_PACKET_SEALED,
    SIGNER_FORWARDED,
    event_emit,
)

P, S, Email = Packet.Status, Signer.Status, SignerEmail.Status


def packet_past_expiry(packet: Packet, now: datetime | None = None) -> bool:
    """Whether nobody may sign ``packet`` any more for its expiry: ``expired``, or open and past
    its ``expires_at`` (before the sweep moves it)."""
    if packet.status == P.EXPIRED:
        return True
    now = now or timezone.now()
    return (
        packet.status in OPEN_PACKET and packet.expires_at is not None and packet.expires_at <= now
    )


def packet_may_move(packet: Packet, to: str) -> bool:
    return to in PACKET_MOVES[packet.status]


def signer_may_move(signer: Signer, to: str) -> bool:
    return to in SIGNER_MOVES[signer.status]


def packet_created(packet: Packet, *, detail: dict[str, Any]) -> None:
    """A packet was written (a draft, before any move): its packetCreated entry and its
    documentGroupCreate event, in the transaction that wrote it."""
    audit(packet=packet, action=AuditAction.PACKET_CREATED, detail=detail)
    _emit(
        packet,
        "documentGroupCreate",
        {"etchPacket": _packet(packet), "documentGroup": _group(packet)},
    )


def signer_emails_cancel(**where: Any) -> int:
    """Cancel the pending signers' emails that match ``where`` (a signer's turn, or the packet,
    ended): no longer due. Returns how many."""
    pending = SignerEmail.objects.filter(status=Email.PENDING, **where)
    return EMAILS.move_all(pending, Email.CANCELLED)


def packet_move(
    packet: Packet, to: str, *, detail: dict[str, Any] | None = None, client: Client | None = None
) -> None:
    """Move the (locked) packet to ``to``: status, its time, the group, audit, event, hooks."""
    if not packet_may_move(packet, to):
        raise Conflict(f"The packet is {packet.status}; it cannot become {to}.")
    now = timezone.now()
    # Leaving ``expired`` is the sender's extension, whatever status it returns to.
    action = AuditAction.PACKET_REOPENED if packet.status == P.EXPIRED else PACKET_ACTIONS[to]
    before, packet.status = packet.status, to
    fields = ["status", "updated_at"]
    if to == P.SENT and packet.sent_at is None:
        packet.sent_at = now
        fields.append("sent_at")
    elif to == P.COMPLETED:
        packet.completed_at = now
        fields.append("completed_at")
    packet.save(update_fields=fields)
    DocumentGroup.objects.filter(packet=packet).update(status=to, updated_at=now)
    audit(packet=packet, action=action, client=client, detail=detail)
    if to == P.COMPLETED:
        packet_completed(packet)
    elif to == P.EXPIRED:
        packet_expired(packet)
    packet_status_changed(packet, before=before)


def signer_move(
    signer: Signer,
    to: str,
    *,
    client: Client | None = None,
    detail: dict[str, Any] | None = None,
    fields: tuple[str, ...] = (),
) -> None:
    """Move the signer (of a locked packet) to ``to``, saving ``fields`` with it; writes the
    audit entry and the webhook event (signerComplete for a signature, else signerUpdateStatus).
    """
    if not signer_may_move(signer, to):
        raise Conflict(f"The signer is {signer.status}; they cannot become {to}.")
    action = AuditAction.SIGNER_REOPENED if signer.status == S.EXPIRED else SIGNER_ACTIONS[to]
    action = ROLE_ACTIONS.get((signer.role, to), action)  # an approver's, a viewer's
    signer.status = to
    update = ["status", "updated_at", *fields]
    if to == S.COMPLETED:
        signer.completed_at = signer.completed_at or timezone.now()
        update.append("completed_at")
    signer.save(update_fields=list(dict.fromkeys(update)))
    audit(
        packet=signer.packet,
        signer=signer,
        action=action,
        client=client,
        detail=detail,
    )
    if to == S.COMPLETED:
        signer_completed(signer)
    else:
        signer_status_changed(signer)


def turn_start(packet: Packet, signers: list[Signer], *, packet_to: str | None = None) -> None:
    """A turn starts (the signing module chose whose): the packet moves to ``packet_to`` first,
    where it moves (``sent`` when a draft is sent, ``partial`` after a finish), then each of
    ``signers`` becomes ``sent``. The turn's moves in one call, in that order."""
    if packet_to is not None:
        packet_move(packet, packet_to)
    for signer in signers:
        signer_move(signer, S.SENT)


# --- the audit entry -----------------------------------------------------------------------------


def audit(
    *,
    packet: Packet,
    action: str,
    signer: Signer | None = None,
    client: Client | None = None,
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append an entry to ``packet``'s trail (in the caller's transaction)."""
    client = client or Client()
    return AuditEvent.objects.create(
        packet=packet,
        signer=signer,
        action=AuditAction(action).value,
        ip=client.ip,
        user_agent=client.user_agent[:500],
        detail=detail or {},
    )


# --- the webhook events --------------------------------------------------------------------------
# documentGroupCreate, signerUpdateStatus, signerComplete, etchPacketComplete, and the extensions
# etchPacketSealed, etchPacketSealFailed, etchPacketExpired and signerForwarded.


def packet_summary(packet: Packet) -> dict[str, Any]:
    """What a packet is and where it stands, by its wire fields (the events' etchPacket, the
    MCP tools' packet)."""
    return {
        "eid": packet.eid,
        "name": packet.name,
        "status": packet.status,
        "isTest": packet.is_test,
        "createdAt": iso_ms(packet.created_at),
        "completedAt": iso_ms(packet.completed_at),
    }


def _packet(packet: Packet) -> dict[str, Any]:
    return {**packet_summary(packet), "expiresAt": iso_ms(packet.expires_at)}


def _group(packet: Packet) -> dict[str, Any]:
    group = packet.document_group
    return {
        "eid": group.eid,
        "status": packet.status,  # the group's status follows the packet's
        "downloadZipURL": settings.PUBLIC_BASE_URL
        + reverse("esign-download-zip", args=[group.eid]),
        "files": [
            {"id": d.alias_id, "filename": d.filename, "title": d.title}
            for d in packet.documents.all()
        ],
    }


def signer_summary(signer: Signer) -> dict[str, Any]:
    """Who a signer is and where they stand, by their wire fields (the events' signers, a
    workflow submission's agents)."""
    return {
        "eid": signer.eid,
        "aliasId": signer.alias_id,
        "name": signer.name,
        "email": signer.email,
        "status": signer.status,
        "routingOrder": signer.routing_order,
    }


def _signer(signer: Signer) -> dict[str, Any]:
    return {
        **signer_summary(signer),
        "signActionType": signer.signer_type,
        "completedAt": iso_ms(signer.completed_at),
        # Extensions: role, witnessFor, group {id, required, signedBy} (esign.packets.groups).
        **_wire_extensions(signer),
    }


def _emit(packet: Packet, action: str, data: dict[str, Any]) -> None:
    event_emit(
        organization=packet.organization,
        action=action,
        data=data,
        webhook_url=packet.webhook_url or None,
    )


def _signer_event(signer: Signer, action: str) -> None:
    packet = signer.packet
    _emit(
        packet,
        action,
        {"signer": _signer(signer), "etchPacket": _packet(packet), "documentGroup": _group(packet)},
    )


def signer_status_changed(signer: Signer) -> None:
    _signer_event(signer, "signerUpdateStatus")


def signer_completed(signer: Signer) -> None:
    """signerComplete, with an extension key: ``documents``, the signer's lasting copy
    ([{id, title, filename, url}], esign.packets.documents), for an app that embeds its signers
    (they get no email) to hand them."""
    packet = signer.packet
    _emit(
        packet,
        "signerComplete",
        {
            "signer": _signer(signer),
            "etchPacket": _packet(packet),
            "documentGroup": _group(packet),
            "documents": signer_copies(signer),
        },
    )


def packet_completed(packet: Packet) -> None:
    _emit(
        packet,
        "etchPacketComplete",
        {
            "etchPacket": _packet(packet),
            "documentGroup": _group(packet),
            "signers": [_signer(s) for s in packet.signers.all()],
        },
    )


def seal_summary(packet: Packet) -> dict[str, Any]:
    """Where the packet's seal stands, by the wire fields of etchPacket (sealStatus...)."""
    error = None
    if packet.seal_error_code:
        error = {"code": packet.seal_error_code, "message": packet.seal_error_message}
    return {
        "status": packet.seal_status,
        "level": packet.seal_level or None,
        "sealedAt": iso_ms(packet.sealed_at),
        "attempts": packet.seal_attempts,
        "error": error,
    }


def packet_sealed(packet: Packet) -> None:
    """Extension: every document and the audit trail are sealed; the zip can be downloaded.
    ``signers``: each signer's signatureLevel and their own certificates (issue 51)."""
    _emit(
        packet,
        ETCH_PACKET_SEALED,
        {
            "etchPacket": _packet(packet),
            "documentGroup": _group(packet),
            "seal": seal_summary(packet),
            "signers": signers_wire(packet),
        },
    )


def packet_seal_failed(packet: Packet) -> None:
    """Extension: sealing failed and will not be tried again by itself (the retries ran out, or
    the error cannot go away: a revoked certificate) until an operator seals it again."""
    _emit(
        packet,
        ETCH_PACKET_SEAL_FAILED,
        {
            "etchPacket": _packet(packet),
            "documentGroup": _group(packet),
            "seal": seal_summary(packet),
        },
    )


def packet_expired(packet: Packet) -> None:
    """Extension: the packet's expiresAt passed before everyone signed; its signers whose turn it
    was are ``expired`` (the sender may extend it: extendEtchPacket)."""
    _emit(
        packet,
        ETCH_PACKET_EXPIRED,
        {
            "etchPacket": _packet(packet),
            "documentGroup": _group(packet),
            "signers": [_signer(s) for s in packet.signers.all()],
        },
    )


def signer_forwarded(original: Signer, successor: Signer, *, by: str) -> None:
    """Extension: ``original``'s turn went to ``successor`` (esign.signing.forwarding), who has
    their fields and routing order; ``forwardedBy`` is "signer" (from the signing page) or "sender"
    (reassignEtchSigner, the admin). ``original`` is ``forwarded`` (their signerUpdateStatus
    says so too)."""
    packet = original.packet
    _emit(
        packet,
        SIGNER_FORWARDED,
        {
            "signer": _signer(original),
            "newSigner": _signer(successor),
            "forwardedBy": by,
            "etchPacket": _packet(packet),
            "documentGroup": _group(packet),
        },
    )


def _wire_extensions(signer: Signer) -> dict[str, Any]:
    """The signer's extension keys in the webhook events: ``role``, ``witnessFor`` and
    ``group`` ({id, required, signedBy: [{eid, aliasId, name}]}, or null)."""
    group = None
    if signer.signing_group:
        group = {
            "id": signer.signing_group,
            "required": signer.signing_group_required,
            "signedBy": [
                {"eid": s.eid, "aliasId": s.alias_id, "name": s.name}
                for s in group_signed_by(signer)
            ],
        }
    return {"role": signer.role, "witnessFor": signer.witness_for or None, "group": group}


# --- the apps above: their callbacks ------------------------------------------------------------

PacketCallback = Callable[[Packet], None]
# Each callback with what it sees of a packet's status: {status: what it is to the callback}, or
# None (every status as it is).
_callbacks: list[tuple[PacketCallback, Mapping[str, str] | None]] = []


def on_packet_status_change(
    callback: PacketCallback, *, seen_as: Mapping[str, str] | None = None
) -> PacketCallback:
    """Register ``callback(packet)``, run inside the transaction of a status change. With
    ``seen_as`` (``{status: what it is to the callback}``; a status not in it is nothing to it),
    only of a change that the callback sees: a workflow's submission, ready to sign while its
    packet is a draft, sent or delivered, is not told of the moves between those."""
    if all(registered is not callback for registered, _ in _callbacks):
        _callbacks.append((callback, seen_as))
    return callback


def packet_status_changed(packet: Packet, *, before: str) -> None:
    for callback, seen_as in list(_callbacks):
        if seen_as is None or seen_as.get(before) != seen_as.get(packet.status):
            callback(packet)


# Callbacks asked before a packet is removed (inside the transaction, the packet locked): one
# that raises (a Conflict) refuses the removal.
_removing: list[PacketCallback] = []


def on_packet_removing(callback: PacketCallback) -> PacketCallback:
    """Register ``callback(packet)``, run before a packet is removed; it may refuse by raising."""
    if callback not in _removing:
        _removing.append(callback)
    return callback


def packet_removing(packet: Packet) -> None:
    for callback in list(_removing):
        callback(packet)


# Callbacks asked before a signer's turn is handed to someone else (esign.signing.forwarding; inside
# the transaction, the packet locked): one that raises (a Conflict) refuses it. A workflow's signing
# step hands its page's signing link to the person filling the webform, who is the signer it
# names: a new signer there would be signed for by someone else.
_handing_over: list[PacketCallback] = []


def on_signer_handing_over(callback: PacketCallback) -> PacketCallback:
    """Register ``callback(packet)``, run before a signer of ``packet`` is forwarded or
    reassigned; it may refuse by raising."""
    if callback not in _handing_over:
        _handing_over.append(callback)
    return callback


def signer_handing_over(packet: Packet) -> None:
    for callback in list(_handing_over):
        callback(packet)
