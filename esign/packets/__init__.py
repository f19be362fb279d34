"""A packet: the arguments it is made from (createEtchPacket's, read by ``inputs``), its
documents, its lifecycle (the one way to change a status, and the audit entry, webhook event and
callbacks each change writes: ``lifecycle``), the audit vocabulary, signing groups' rules, the
languages of what signers read, and lookups by eid. The lowest room of esign: every other room
builds on it.

This face lists what other apps use; esign's own modules import the modules themselves."""

from __future__ import annotations

from esign.packets.audit import AuditAction
from esign.packets.inputs import (
    FileInput,
    PacketInput,
    SignerInput,
    SignField,
    parse_packet_input,
)
from esign.packets.lifecycle import (
    FINISHED_SIGNER,
    on_packet_removing,
    on_packet_status_change,
    on_signer_handing_over,
    packet_summary,
    signer_summary,
)
from esign.packets.lookups import packet_get

__all__ = [
    "AuditAction",
    "FINISHED_SIGNER",
    "FileInput",
    "PacketInput",
    "SignField",
    "SignerInput",
    "on_packet_removing",
    "on_packet_status_change",
    "on_signer_handing_over",
    "packet_get",
    "packet_summary",
    "parse_packet_input",
    "signer_summary",
]
