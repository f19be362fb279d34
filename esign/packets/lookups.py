"""An organization's packets, document groups and signers by their eid: another organization's
are as absent as missing ones (NotFound), whichever door asks (GraphQL, REST, the MCP tools, the
admin's actions)."""

from __future__ import annotations

from accounts.models import Organization
from core.lookups import get_by_eid
from esign.models import DocumentGroup, Packet, Signer


def packet_get(*, organization: Organization, eid: str) -> Packet:
    """The organization's packet; another organization's is as absent as a missing one."""
    return get_by_eid(
        Packet.objects.select_related("document_group"), "packet", eid, organization=organization
    )


def document_group_get(*, organization: Organization, eid: str) -> DocumentGroup:
    """The organization's document group (a packet's public name); another organization's is as
    absent as a missing one."""
    return get_by_eid(
        DocumentGroup.objects.select_related("packet"),
        "document group",
        eid,
        packet__organization=organization,
    )


def signer_get(*, organization: Organization, eid: str) -> Signer:
    """The organization's signer; another organization's is as absent as a missing one."""
    return get_by_eid(
        Signer.objects.select_related("packet"), "signer", eid, packet__organization=organization
    )
