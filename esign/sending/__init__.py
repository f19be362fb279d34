"""The sender's side: creating a packet (its documents made and stored before one short
transaction), refusing a new one while the seals are behind, voiding and removing it, its
expiry and extension, and the demo packet.

This face lists what other apps use; esign's own modules import the modules themselves."""

from __future__ import annotations

from esign.sending.demo import demo_packet_request_write, demo_packet_signing_url
from esign.sending.intake import packet_intake_check
from esign.sending.packets import (
    PreparedPacket,
    packet_create,
    packet_prepare,
    packet_store,
)

__all__ = [
    "PreparedPacket",
    "demo_packet_request_write",
    "demo_packet_signing_url",
    "packet_create",
    "packet_intake_check",
    "packet_prepare",
    "packet_store",
]
