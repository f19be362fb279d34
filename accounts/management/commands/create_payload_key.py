from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.payload_keys import payload_key_create
from accounts.services import organization_get
from core.errors import ServiceError


class Command(BaseCommand):
    help = (
        "Create (or replace) an organization's inbound payload key pair; prints the public key "
        "(PEM) that integrators encrypt `data` with."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("org_slug")

    def handle(self, *args: object, org_slug: str, **options: object) -> None:
        try:
            pair = payload_key_create(organization=organization_get(slug=org_slug))
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(pair.public_pem.strip())
