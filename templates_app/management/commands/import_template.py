from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import organization_get
from core.errors import ServiceError
from templates_app.services import template_create_from_pdf


class Command(BaseCommand):
    help = (
        "Import a PDF (or a DOCX, ODT or RTF document, converted to PDF) as a template of an "
        "organization; prints the new template's eid."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("org_slug")
        parser.add_argument("pdf_path", type=Path)
        parser.add_argument("--title", default="")
        parser.add_argument("--publish", action="store_true", help="Publish it as version 1.")

    def handle(
        self,
        *args: object,
        org_slug: str,
        pdf_path: Path,
        title: str,
        publish: bool,
        **options: object,
    ) -> None:
        try:
            pdf = pdf_path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {pdf_path}: {exc.strerror}") from None
        try:
            organization = organization_get(slug=org_slug)
            # A Word, OpenDocument or RTF file is converted to PDF (and kept as the source).
            template = template_create_from_pdf(
                organization=organization,
                title=title or pdf_path.stem,
                pdf=pdf,
                publish=publish,
                filename=pdf_path.name,
            )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(template.eid)
