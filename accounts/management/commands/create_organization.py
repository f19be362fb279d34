from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import organization_create
from core.errors import ServiceError


class Command(BaseCommand):
    help = "Create an organization; prints its eid."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--name", default="")

    def handle(self, *args: object, slug: str, name: str, **options: object) -> None:
        try:
            organization = organization_create(slug=slug, name=name)
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(organization.eid)
