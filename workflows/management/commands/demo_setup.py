"""Create (or refresh) the demo organization, its owner, a fresh development API key and the
demo template.

Used by the README's run command (scripts/run.sh). Prints shell variable assignments on stdout so
the calling script can show a working example call.

The demo spans every app, so it lives in the highest one, workflows: the layers (pyproject.toml)
let it import every app below, and it will add the demo workflow and e-signature packet too.
"""

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from accounts.models import ApiKey, Organization, User
from accounts.services import api_key_create, api_key_revoke, member_add
from core.eids import random_base62
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_with_spec

DEMO_SLUG = "demo"
DEMO_KEY_NAME = "demo (run command)"
DEMO_TEMPLATE_TITLE = "Demo: every field type"


class Command(BaseCommand):
    help = "Create the demo organization, admin user and a new development API key."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--admin-username", default="admin")

    @transaction.atomic
    def handle(self, *args: object, admin_username: str, **options: object) -> None:
        organization, _ = Organization.objects.get_or_create(
            slug=DEMO_SLUG, defaults={"name": "Demo Organization"}
        )
        admin_password = ""
        admin = User.objects.filter(username=admin_username).first()
        if admin is None:
            admin_password = random_base62(16)
            admin = User.objects.create_superuser(
                username=admin_username, email="admin@example.com", password=admin_password
            )
        member_add(organization=organization, user=admin, role="owner")
        # One live demo key at a time: each start revokes the previous one.
        for old in ApiKey.objects.filter(organization=organization, name=DEMO_KEY_NAME):
            api_key_revoke(api_key=old)
        _, raw_key = api_key_create(
            organization=organization, kind=ApiKey.Kind.DEVELOPMENT, name=DEMO_KEY_NAME, user=admin
        )
        template = PdfTemplate.objects.filter(
            organization=organization, title=DEMO_TEMPLATE_TITLE
        ).first()
        if template is None:
            pdf, spec = build_demo_template()
            template = template_create_with_spec(
                organization=organization,
                title=DEMO_TEMPLATE_TITLE,
                pdf=pdf,
                spec=spec,
                publish=True,
            )
        self.stdout.write(f"DEMO_ORG_EID={organization.eid}")
        self.stdout.write(f"DEMO_TEMPLATE_EID={template.eid}")
        self.stdout.write(f"DEMO_API_KEY={raw_key}")
        self.stdout.write(f"DEMO_ADMIN_USER={admin_username}")
        self.stdout.write(f"DEMO_ADMIN_PASSWORD={admin_password}")
