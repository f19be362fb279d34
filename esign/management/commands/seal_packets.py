"""Enqueue sealing for every completed packet that is not sealed (pending, retrying or failed).

Run after upgrading (packets completed before sealing existed wait as pending), or after fixing
what made sealing fail for good (an HSM that was away, a TSA down for days).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from esign.models import Packet
from esign.sealing.seal import SEALABLE, packet_seal_retry


class Command(BaseCommand):
    help = "Enqueue sealing of every completed packet not sealed yet."

    def handle(self, *args: Any, **options: Any) -> None:
        packets = Packet.objects.filter(status=Packet.Status.COMPLETED, seal_status__in=SEALABLE)
        count = sum(packet_seal_retry(packet=packet) for packet in packets.iterator())
        self.stdout.write(f"Sealing enqueued for {count} packet(s); a db_worker seals them.")
