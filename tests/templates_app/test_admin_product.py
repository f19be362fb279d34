"""The admin as one product: sections named for people, example data with a curl call on the
template's page, duplicating a template, the organization preselected in the upload form."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from accounts.models import User


def test_the_admin_index_names_the_sections_for_people(db: None) -> None:
    admin = User.objects.create_superuser(username="root", password="pw-root-123456789")
    client = Client()
    client.force_login(admin)

    page = client.get(reverse("admin:index")).content.decode()

    for section in ("PDF templates", "Accounts", "E-signatures", "Workflows", "Webhooks"):
        assert f">{section}</a>" in page, section
    for raw in ("Templates_App", "Templates_app", "Esign"):
        assert raw not in page
