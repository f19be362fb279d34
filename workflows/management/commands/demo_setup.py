"""Create (or refresh) the demo organization, its owner, a development API key, the demo
template and the demo workflow (two webforms that fill the template; workflows.demo).

Used by the README's run command (scripts/run.sh). Prints shell variable assignments on stdout so
the calling script can show a working example call.

The demo key survives restarts: like every key only its hash is in the database, and the key
itself is kept in ``<DATA_DIR>/demo-api-key``, readable by its owner only (0600). Each start reads
it from there and prints it again; a new key is made (and earlier demo keys revoked) only when the
file is missing or its key no longer authenticates. Deleting the file is how to rotate the key.

The admin's password is printed only by the start that created the user: it is not stored
anywhere else. ``manage.py changepassword admin`` sets a new one.

The demo's template and packet are found again by their eids, kept in
``<DATA_DIR>/demo-objects.json`` (never by title or name: the printed request makes packets of the
same name, and anyone may title a template alike). A missing or stale entry makes a new object.

The demo spans every app, so it lives in the highest one, workflows: the layers (pyproject.toml)
let it import every app below. The demo workflow is made once and published; later starts leave
it as it is (staff may have edited it) and print its address again.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.urls import reverse

from accounts.identity import ApiIdentity
from accounts.models import ApiKey, Organization, User
from accounts.services import api_key_authenticate, api_key_create, api_key_revoke, member_add
from core.eids import random_base62
from core.mail import DATABASE_BACKEND
from esign.sending import demo_packet_request_write, demo_packet_signing_url
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_with_spec
from workflows.definitions.versions import start_url
from workflows.demo import demo_workflow_create

DEMO_SLUG = "demo"
DEMO_KEY_NAME = "demo (run command)"
DEMO_KEY_FILE_NAME = "demo-api-key"
DEMO_TEMPLATE_TITLE = "Demo: every field type"
DEMO_OBJECTS_FILE_NAME = "demo-objects.json"


def demo_key_path() -> Path:
    return Path(settings.DATA_DIR) / DEMO_KEY_FILE_NAME


def read_demo_key(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip() or None
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def write_demo_key(path: Path, raw_key: str) -> None:
    """Write the key to ``path`` with mode 0600, replacing any earlier file whole.

    The file is created 0600 (never readable by others, not even for a moment) beside the target
    and renamed over it, so a crash leaves either the old key or the new one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(descriptor, 0o600)  # the umask cannot widen it, an old leftover could
        os.write(descriptor, (raw_key + "\n").encode("ascii"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    partial.replace(path)


def read_demo_objects(path: Path) -> dict[str, str]:
    """The eids of the demo's objects by role ("template", "packet"); {} when unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def write_demo_objects(path: Path, eids: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(eids, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(path)


def demo_key_still_valid(raw_key: str | None, organization: Organization) -> bool:
    if raw_key is None:
        return False
    api_key = api_key_authenticate(raw_key=raw_key)
    return api_key is not None and api_key.organization_id == organization.pk


def development_rate_limit() -> str:
    """The rate limit of development keys in words ("2 requests/s"), as settings have it."""
    if not settings.RATE_LIMIT_ENABLED:
        return "no rate limit"
    count, interval = settings.RATE_LIMIT_DEVELOPMENT, settings.RATE_LIMIT_INTERVAL_MS
    if interval == 1000:
        return f"{count} requests/s"
    return f"{count} requests per {interval} ms"


class Command(BaseCommand):
    help = (
        "Create the demo organization, admin user, template, workflow and signing packet; keep "
        "the development "
        "API key "
        f"in DATA_DIR/{DEMO_KEY_FILE_NAME} (a new one only when that file is missing or stale)."
    )

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

        key_path = demo_key_path()
        raw_key = read_demo_key(key_path)
        key_is_new = not demo_key_still_valid(raw_key, organization)
        if key_is_new:
            # The previous key cannot be printed any more: revoke it, one live demo key at a time.
            for old in ApiKey.objects.filter(
                organization=organization, name=DEMO_KEY_NAME, revoked_at__isnull=True
            ):
                api_key_revoke(api_key=old)
            _, raw_key = api_key_create(
                organization=organization,
                kind=ApiKey.Kind.DEVELOPMENT,
                name=DEMO_KEY_NAME,
                user=admin,
            )
            write_demo_key(key_path, raw_key)

        objects_path = Path(settings.DATA_DIR) / DEMO_OBJECTS_FILE_NAME
        kept = read_demo_objects(objects_path)
        template = (
            PdfTemplate.objects.filter(organization=organization, eid=kept["template"]).first()
            if kept.get("template")
            else None
        )
        if template is None:
            pdf, spec = build_demo_template()
            template = template_create_with_spec(
                organization=organization,
                title=DEMO_TEMPLATE_TITLE,
                pdf=pdf,
                spec=spec,
                publish=True,
            )
        workflow = demo_workflow_create(organization=organization, template=template)
        workflow_url = start_url(workflow)
        api_key = api_key_authenticate(raw_key=raw_key or "")
        assert api_key is not None  # made or checked just above
        packet_request = Path(settings.DATA_DIR) / "demo-packet.json"
        demo_packet_request_write(packet_request, template.eid)
        signing_url, packet_eid = demo_packet_signing_url(
            identity=ApiIdentity(organization=organization, api_key=api_key),
            template_eid=template.eid,
            packet_eid=kept.get("packet", ""),
        )
        demo_objects = {"template": template.eid, "packet": packet_eid}
        if demo_objects != kept:
            write_demo_objects(objects_path, demo_objects)
        values = {
            "DEMO_ORG_EID": organization.eid,
            # What a workflow's address and GraphQL's weld(organizationSlug:) name it by.
            "DEMO_ORG_SLUG": organization.slug,
            "DEMO_TEMPLATE_EID": template.eid,
            "DEMO_WORKFLOW_EID": workflow.eid,
            "DEMO_WORKFLOW_URL": workflow_url,
            # The address without the origin, for a server started on another HOST or PORT.
            "DEMO_WORKFLOW_PATH": workflow_url.removeprefix(settings.PUBLIC_BASE_URL),
            "DEMO_API_KEY": raw_key or "",
            "DEMO_PACKET_REQUEST_FILE": str(packet_request),
            # Without the origin, like the workflow's, for a server on another HOST or PORT.
            "DEMO_SIGNING_PATH": signing_url.removeprefix(settings.PUBLIC_BASE_URL),
            "DEMO_API_KEY_FILE": str(key_path),
            "DEMO_API_KEY_IS_NEW": "1" if key_is_new else "",
            "DEMO_ADMIN_USER": admin_username,
            # Empty unless the user was created just now: the password is stored nowhere else.
            "DEMO_ADMIN_PASSWORD": admin_password,
            "DEMO_ADMIN_HAS_PASSWORD": "1" if admin.has_usable_password() else "",
            "DEMO_API_KEY_RATE_LIMIT": development_rate_limit(),
            # Where emails are read when they are kept rather than sent (core.mail); empty when
            # they go to an SMTP server or the console.
            "DEMO_EMAILS_PATH": (
                reverse("admin:core_sentemail_changelist")
                if settings.EMAIL_BACKEND == DATABASE_BACKEND
                else ""
            ),
        }
        for name, value in values.items():
            self.stdout.write(f"{name}={shlex.quote(value)}")
