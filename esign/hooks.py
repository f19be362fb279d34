"""What apps above e-signature do when a packet changes state, without esign importing them.

workflows sits above esign (layers enforced by import-linter): a workflow's signing step must
learn at once that its packet was completed, declined or voided, so that weldComplete is written
in the same transaction as the signature that completed it. workflows registers a callback at
start-up (its AppConfig.ready); esign calls every callback, explicitly, where the state changes.
"""

from __future__ import annotations

from collections.abc import Callable

from esign.models import Packet

PacketCallback = Callable[[Packet], None]
_callbacks: list[PacketCallback] = []


def on_packet_status_change(callback: PacketCallback) -> PacketCallback:
    """Register ``callback(packet)``, run inside the transaction of every status change."""
    if callback not in _callbacks:
        _callbacks.append(callback)
    return callback


def packet_status_changed(packet: Packet) -> None:
    for callback in list(_callbacks):
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


# Callbacks asked before a signer's turn is handed to someone else (esign.forwarding; inside the
# transaction, the packet locked): one that raises (a Conflict) refuses it. A workflow's signing
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
