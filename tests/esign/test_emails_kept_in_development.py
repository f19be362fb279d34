"""Development email (EMAIL_URL=dbmail://, the default with DEBUG on): an email signer's email is
kept in the database, not printed, and a superuser reads it, with its signing link, in a
read-only admin page; nobody else sees it."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.mail import EmailMultiAlternatives
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import Organization, User
from accounts.services import member_add
from core.models import SentEmail
from esign.models import Packet
from tests.esign.conftest import send_queued_emails, two_signer_packet
from tests.processes import printed_setting
from tests.staff import superuser_client

pytestmark = pytest.mark.django_db
LIST = reverse("admin:core_sentemail_changelist")


@pytest.fixture(autouse=True)
def _kept(settings) -> None:
    settings.EMAIL_BACKEND = "core.mail.DatabaseEmailBackend"


def test_an_email_signers_email_is_kept_and_its_link_shown_to_a_superuser(
    create_packet, capsys
) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["signerType"] = "email"
    packet = Packet.objects.get(eid=create_packet(signers=variables["signers"])["eid"])

    assert send_queued_emails() == ["sent"]

    email = SentEmail.objects.get()
    assert email.to == "ada@example.com"
    signer = packet.signers.get(alias_id="client")
    assert f"/api/etch/verify/{signer.eid}?token=" in email.body
    assert "?token=" not in capsys.readouterr().out  # nothing printed
    client = superuser_client()
    listing = client.get(LIST).content.decode()
    assert email.subject in listing
    page = client.get(reverse("admin:core_sentemail_change", args=[email.pk])).content.decode()
    link = next(word for word in email.body.split() if "?token=" in word)
    assert f'<a href="{link.replace("&", "&amp;")}" rel="noreferrer">' in page


def test_the_page_is_read_only_and_for_superusers_only(organization: Organization) -> None:
    EmailMultiAlternatives(
        "Sign", "Open https://x.example/s?token=abc", "from@example.com", ["a@example.com"]
    ).send()
    email = SentEmail.objects.get()
    staff = User.objects.create_user(username="sam", password="x", is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(content_type__app_label="core"))
    member_add(organization=organization, user=staff, role="owner")
    staff_client = Client()
    staff_client.force_login(staff)
    change = reverse("admin:core_sentemail_change", args=[email.pk])

    assert staff_client.get(LIST).status_code == 403
    assert staff_client.get(change).status_code == 403
    root = superuser_client()
    assert root.get(reverse("admin:core_sentemail_add")).status_code == 403
    assert root.post(change, {"subject": "changed"}).status_code == 403
    delete = reverse("admin:core_sentemail_delete", args=[email.pk])
    assert root.post(delete, {"post": "yes"}).status_code == 403
    assert SentEmail.objects.get().subject == "Sign"


def settings_email_backend(tmp_path: Path, **env: str) -> str:
    unset = ("SECRET_KEY", "DEBUG", "DATABASE_URL", "EMAIL_URL")
    return printed_setting(tmp_path, "settings.EMAIL_BACKEND", unset=unset, **env).splitlines()[-1]


def test_development_keeps_emails_and_production_sends_or_hides_links(tmp_path: Path) -> None:
    production = {"DEBUG": "false", "SECRET_KEY": "x" * 50}
    assert settings_email_backend(tmp_path) == "core.mail.DatabaseEmailBackend"
    assert settings_email_backend(tmp_path, **production) == "core.mail.RedactedConsoleEmailBackend"
    assert (
        settings_email_backend(tmp_path, EMAIL_URL="smtp+tls://u:p@smtp.example.com:587")
        == "django.core.mail.backends.smtp.EmailBackend"
    )


def test_demo_setup_says_where_to_read_them(settings, tmp_path: Path) -> None:
    settings.DATA_DIR = tmp_path / "data"
    out = io.StringIO()
    call_command("demo_setup", stdout=out)
    printed = dict(line.split("=", 1) for line in shlex.split(out.getvalue()))
    assert printed["DEMO_EMAILS_PATH"] == "/admin/core/sentemail/"

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    out = io.StringIO()
    call_command("demo_setup", stdout=out)
    printed = dict(line.split("=", 1) for line in shlex.split(out.getvalue()))
    assert printed["DEMO_EMAILS_PATH"] == ""
