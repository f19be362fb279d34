"""Write a workflow's definition as JSON, to keep it in version control or import it elsewhere.

manage.py workflow_export <organization-slug> <workflow-slug> [--published N] [--output file]
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Organization
from core.errors import ServiceError
from workflows.definitions.versions import workflow_by_slug, workflow_export


class Command(BaseCommand):
    help = "Write a workflow (its working version, or published version N) as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("organization", help="The organization's slug.")
        parser.add_argument("workflow", help="The workflow's slug.")
        parser.add_argument(
            "--published", type=int, default=None, metavar="N", help="Published version N."
        )
        parser.add_argument("--output", "-o", default="-", help="A file; - for stdout.")

    def handle(
        self,
        *args: object,
        organization: str,
        workflow: str,
        published: int | None,
        output: str,
        **options: object,
    ) -> None:
        owner = Organization.objects.filter(slug=organization).first()
        if owner is None:
            raise CommandError(f"No organization with slug {organization!r}.")
        try:
            data = workflow_export(
                workflow=workflow_by_slug(organization=owner, slug=workflow),
                version_number=published,
            )
        except ServiceError as error:
            raise CommandError(error.message) from None
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if output == "-":
            self.stdout.write(text, ending="")
        else:
            Path(output).write_text(text, encoding="utf-8")
            self.stderr.write(f"Wrote {output}")
