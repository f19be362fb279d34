"""Fixtures for the visual editor: staff members, templates, and a headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.models import Organization, User
from accounts.services import member_add
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf, template_create_with_spec
from tests.fixtures import PDFS

PASSWORD = "pw-editor-123456789"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def make_staff(
    username: str, organization: Organization | None, *, can_change: bool = True
) -> User:
    """A staff member of ``organization`` with the template permissions (or only "view")."""
    user = User.objects.create_user(username=username, password=PASSWORD, is_staff=True)
    permissions = Permission.objects.filter(content_type__app_label="templates_app")
    if not can_change:
        permissions = permissions.filter(codename__startswith="view_")
    user.user_permissions.set(permissions)
    if organization is not None:
        member_add(organization=organization, user=user, role="admin")
    return user


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def member(organization: Organization) -> User:
    return make_staff("editor", organization)


@pytest.fixture
def member_client(member: User) -> Client:
    return logged_in(member)


@pytest.fixture
def outsider_client(other_organization: Organization) -> Client:
    return logged_in(make_staff("outsider", other_organization))


@pytest.fixture
def fw9_template(organization: Organization) -> PdfTemplate:
    return template_create_from_pdf(
        organization=organization, title="W-9", pdf=(PDFS / "irs-fw9-2018.pdf").read_bytes()
    )


@pytest.fixture
def demo_template(organization: Organization) -> PdfTemplate:
    pdf, spec = build_demo_template()
    return template_create_with_spec(organization=organization, title="Demo", pdf=pdf, spec=spec)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per test module (it takes a moment to start)."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread, which makes Django
    # refuse ORM calls from the test itself ("async context"); the tests are synchronous.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()
