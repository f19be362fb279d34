"""Fixtures for template tests: templates imported the way users import them."""

import io

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.constants import UserAccessPermissions
from reportlab.pdfgen.canvas import Canvas

from accounts.models import Organization
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf, template_create_with_spec
from tests.fixtures import PDFS


@pytest.fixture
def fw9_template(organization: Organization) -> PdfTemplate:
    return template_create_from_pdf(
        organization=organization, title="W-9", pdf=(PDFS / "irs-fw9-2018.pdf").read_bytes()
    )


@pytest.fixture
def demo_template(organization: Organization) -> PdfTemplate:
    pdf, spec = build_demo_template()
    return template_create_with_spec(
        organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
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
