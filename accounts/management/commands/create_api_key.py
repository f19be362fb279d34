from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import ApiKey
from accounts.services import api_key_create, organization_get
from core.errors import ServiceError


class Command(BaseCommand):
    help = "Create an API key for an organization; prints the key (shown only this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("org_slug")
        parser.add_argument("--kind", choices=ApiKey.Kind.values, default=ApiKey.Kind.DEVELOPMENT)
        parser.add_argument("--name", default="")

    def handle(self, *args: object, org_slug: str, kind: str, name: str, **options: object) -> None:
        try:
            organization = organization_get(slug=org_slug)
            _, raw_key = api_key_create(organization=organization, kind=kind, name=name)
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(raw_key)
