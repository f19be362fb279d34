"""Encrypt every stored secret again with the first key of FIELD_ENCRYPTION_KEYS (after a
rotation: put the new key first, keep the old one after it, run this, then drop the old one)."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand
from django.db import transaction

from core.fields import encrypted_fields_resave


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            written = encrypted_fields_resave(apps.get_models())
        self.stdout.write(
            f"Encrypted {written} row(s) with the first key of FIELD_ENCRYPTION_KEYS."
        )
