"""Create or update workflows from JSON written by workflow_export (or the admin's export).

    manage.py workflow_import <organization-slug> <file> [--publish]

A workflow whose slug the organization already has gets its working version replaced (its
webforms keep their eids when their slugs are kept). A file may hold one workflow or the
admin's list of several ({"format": "workflow-list/1", "workflows": [...]}). Any problem in any
of them imports none.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from accounts.models import Organization
from core.errors import ServiceError
from workflows.definitions.versions import workflow_import


class Command(BaseCommand):
    help = "Create or update workflows from a JSON export."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("organization", help="The organization's slug.")
        parser.add_argument("file", help="The JSON file; - for stdin.")
        parser.add_argument("--publish", action="store_true", help="Publish each one imported.")

    def handle(
        self, *args: object, organization: str, file: str, publish: bool, **options: object
    ) -> None:
        owner = Organization.objects.filter(slug=organization).first()
        if owner is None:
            raise CommandError(f"No organization with slug {organization!r}.")
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, ValueError) as error:
            raise CommandError(f"Cannot read {file}: {error}") from None
        items = data["workflows"] if isinstance(data, dict) and "workflows" in data else [data]
        try:
            with transaction.atomic():
                for item in items:
                    workflow, created = workflow_import(
                        organization=owner, data=item, publish=publish
                    )
                    verb = "Created" if created else "Updated"
                    self.stdout.write(f"{verb} {workflow.slug} ({workflow.eid})")
        except ServiceError as error:
            raise CommandError(f"Nothing was imported: {error.message}") from None
