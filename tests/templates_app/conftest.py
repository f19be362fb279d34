"""Fixtures for template tests: templates imported the way users import them, staff members of
the template admin (and of another organization), and a headless Chromium for the editor."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from pypdf import PdfReader, PdfWriter
from pypdf.constants import UserAccessPermissions
from reportlab.pdfgen.canvas import Canvas

from accounts.models import Organization, User
from accounts.services import member_add
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf
from tests.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS  # noqa: F401 - imported from here
from tests.fixtures import PDFS

PASSWORD = "pw-editor-123456789"


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


def small_form() -> bytes:
    """One page: a printed heading, a text field ``full_name`` and a checkbox ``agree``."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.drawString(72, 730, "Application for a fishing permit")
    canvas.acroForm.textfield(name="full_name", x=72, y=680, width=240, height=20, fontSize=12)
    canvas.acroForm.checkbox(name="agree", x=72, y=640, size=14)
    canvas.save()
    return buffer.getvalue()


def locked_form(*, user_password: str = "", algorithm: str = "AES-256") -> bytes:
    """``small_form`` encrypted as published government forms are: with an empty user password
    anyone opens it, and the owner password only forbids editing and filling it."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(small_form())))
    allowed = UserAccessPermissions.all() & ~(
        UserAccessPermissions.MODIFY
        | UserAccessPermissions.ADD_OR_MODIFY
        | UserAccessPermissions.FILL_FORM_FIELDS
    )
    writer.encrypt(
        user_password=user_password,
        owner_password="owner",
        algorithm=algorithm,
        permissions_flag=allowed,
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
