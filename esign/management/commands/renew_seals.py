"""Renew now the archive timestamps of sealed files that are due (esign.sealing.renewal), without
waiting for the workers' sweep; with ``--all``, of every sealed file that has a timestamp.

Run after a TSA or revocation outage that made renewals fail, before retiring a TSA whose
certificate is about to expire, or after upgrading (it records first when the files of packets
sealed earlier are due).
"""

from __future__ import annotations

import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from core.eids import EID_PATTERN
from esign.models import Packet, SealedFileVersion
from esign.sealing.renewal import sealed_file_renew, sealed_versions_record


class Command(BaseCommand):
    help = "Renew now the archive timestamps of sealed files that are due (or all of them)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all",
            action="store_true",
            help="Renew every sealed file with a timestamp, due or not.",
        )
        parser.add_argument(
            "--packet", action="append", default=[], help="Only this packet's files (its eid)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for eid in options["packet"]:
            # Compared with the column as typed (PostgreSQL takes no NUL in a query's text).
            if not re.fullmatch(EID_PATTERN, eid):
                raise CommandError(f"--packet: {eid!r} is not a packet's eid.")
        packets = Packet.objects.filter(
            seal_status=Packet.SealStatus.SEALED, sealed_versions__isnull=True
        )
        if options["packet"]:
            packets = packets.filter(eid__in=options["packet"])
        for packet in packets.iterator():
            sealed_versions_record(packet)
        if options["all"]:
            files = SealedFileVersion.objects.filter(renewal_due_at__isnull=False)
        else:  # due, including those waiting for a retry: an operator asks for it now
            files = SealedFileVersion.objects.filter(renewal_due_at__lte=timezone.now())
        if options["packet"]:
            files = files.filter(packet__eid__in=options["packet"])
        renewed = failed = 0
        for version_id in files.order_by("pk").values_list("pk", flat=True):
            outcome = sealed_file_renew(version_id=version_id, force=True)
            self.stdout.write(f"{version_id}: {outcome}")
            renewed += outcome.startswith("renewed (")
            failed += outcome.startswith("retrying")
        self.stdout.write(f"Renewed {renewed} sealed file(s); {failed} failed.")
