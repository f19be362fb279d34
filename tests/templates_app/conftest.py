"""Fixtures for template tests: templates imported the way users import them."""

import io

import pytest
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
