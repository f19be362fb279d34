"""The webhook events of e-signature, emitted through the webhooks app in the transaction of
the change they report: documentGroupCreate, signerUpdateStatus, signerComplete,
etchPacketComplete, and the extensions etchPacketSealed, etchPacketSealFailed,
etchPacketExpired and signerForwarded. Their ``data``
names packets, groups and signers by their wire fields."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse

from core.graphql.scalars import iso_ms
from esign.copies import signer_copies
from esign.models import Packet, Signer
from esign.signing_groups import wire_extensions
from webhooks.services import (
    ETCH_PACKET_EXPIRED,
    ETCH_PACKET_SEAL_FAILED,
    ETCH_PACKET_SEALED,
    SIGNER_FORWARDED,
    event_emit,
)


def _packet(packet: Packet) -> dict[str, Any]:
    return {
        "eid": packet.eid,
        "name": packet.name,
        "status": packet.status,
        "isTest": packet.is_test,
        "createdAt": iso_ms(packet.created_at),
        "completedAt": iso_ms(packet.completed_at),
        "expiresAt": iso_ms(packet.expires_at),
    }


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
        # Extensions: role, witnessFor, group {id, required, signedBy} (esign.signing_groups).
        **wire_extensions(signer),
    }


def _emit(packet: Packet, action: str, data: dict[str, Any]) -> None:
    event_emit(
        organization=packet.organization,
        action=action,
        data=data,
        webhook_url=packet.webhook_url or None,
    )


def document_group_created(packet: Packet) -> None:
    _emit(
        packet,
        "documentGroupCreate",
        {"etchPacket": _packet(packet), "documentGroup": _group(packet)},
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
    ([{id, title, filename, url}], esign.copies), for an app that embeds its signers (they get
    no email) to hand them."""
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
    """Extension: every document and the audit trail are sealed; the zip can be downloaded."""
    _emit(
        packet,
        ETCH_PACKET_SEALED,
        {
            "etchPacket": _packet(packet),
            "documentGroup": _group(packet),
            "seal": seal_summary(packet),
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
    """Extension: ``original``'s turn went to ``successor`` (esign.forwarding), who has their
    fields and routing order; ``forwardedBy`` is "signer" (from the signing page) or "sender"
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
