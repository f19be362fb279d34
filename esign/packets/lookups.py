"""An organization's packets, document groups and signers by their eid: another organization's
are as absent as missing ones (NotFound), whichever door asks (GraphQL, REST, the MCP tools, the
admin's actions)."""

from __future__ import annotations

from accounts.models import Organization
from core.lookups import get_or_not_found
from esign.models import DocumentGroup, Packet, Signer


def packet_get(*, organization: Organization, eid: str) -> Packet:
    """The organization's packet; another organization's is as absent as a missing one."""
    return get_or_not_found(
        Packet.objects.select_related("document_group"),
        f"No packet with eid '{eid}'.",
        organization=organization,
        eid=eid,
    )


def document_group_get(*, organization: Organization, eid: str) -> DocumentGroup:
    """The organization's document group (a packet's public name); another organization's is as
    absent as a missing one."""
    return get_or_not_found(
        DocumentGroup.objects.select_related("packet"),
        f"No document group with eid '{eid}'.",
        packet__organization=organization,
        eid=eid,
    )


def signer_get(*, organization: Organization, eid: str) -> Signer:
    """The organization's signer; another organization's is as absent as a missing one."""
    return get_or_not_found(
        Signer.objects.select_related("packet"),
        f"No signer with eid '{eid}'.",
        packet__organization=organization,
        eid=eid,
    )
