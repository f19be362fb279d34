"""The demo workflow: two webforms (about you, over two pages; your order) that fill the demo
template (templates_app.engine.demo). ``demo_setup`` publishes it beside that template; the
tests use it too."""

from __future__ import annotations

from typing import Any

from accounts.models import Organization
from templates_app.models import PdfTemplate
from workflows.definitions.versions import workflow_import
from workflows.models import Workflow

DEMO_WORKFLOW_SLUG = "demo-onboarding"


def demo_definition(template: PdfTemplate) -> dict[str, Any]:
    """The demo workflow's definition (the JSON of workflow_import) over ``template``."""

    def mapped(forge: str, *keys: str) -> list[dict[str, str]]:
        return [{"alias": key, "forge": forge, "field": key} for key in keys]

    return {
        "format": "workflow/1",
        "slug": DEMO_WORKFLOW_SLUG,
        "name": "Demo: onboarding",
        "webforms": [
            {
                "slug": "about-you",
                "name": "About you",
                "pages": [
                    {
                        "title": "Contact",
                        "description": "How we reach you.",
                        "fields": [
                            {"key": "name", "type": "fullName", "label": "Full name",
                             "required": True},
                            {"key": "email", "type": "email", "label": "Email", "required": True,
                             "helpText": "Only to reach you about this order."},
                            {"key": "phone", "type": "phone", "label": "Phone"},
                        ],
                    },
                    {
                        "title": "Identity",
                        "fields": [
                            {"key": "birthDate", "type": "date", "label": "Date of birth",
                             "required": True},
                            {"key": "ssn", "type": "ssn", "label": "Social security number",
                             "helpText": "9 digits, like 123-45-6789."},
                            {"key": "address", "type": "usAddress", "label": "Home address"},
                        ],
                    },
                ],
            },
            {
                "slug": "order",
                "name": "Your order",
                "pages": [
                    {
                        "title": "Order",
                        "fields": [
                            {"key": "amount", "type": "dollar", "label": "Amount",
                             "required": True, "validation": {"min": 1, "max": 100000}},
                            {"key": "quantity", "type": "integer", "label": "Quantity",
                             "validation": {"min": 1, "max": 999}, "default": 1},
                            {"key": "discount", "type": "percent", "label": "Discount"},
                            {"key": "colour", "type": "radioGroup", "label": "Favourite colour",
                             "options": [{"value": "red", "label": "Red"},
                                         {"value": "green", "label": "Green"},
                                         {"value": "blue", "label": "Blue"}]},
                            {"key": "comments", "type": "longText", "label": "Comments",
                             "validation": {"maxLength": 2000}},
                            {"key": "agree", "type": "checkbox",
                             "label": "I agree to the terms", "required": True},
                        ],
                    }
                ],
            },
        ],
        "documents": [
            {
                "template": {"eid": template.eid, "title": template.title},
                "title": "Demo form",
                "filename": "demo-form.pdf",
                "mappings": [
                    *mapped("about-you", "name", "email", "phone", "birthDate", "ssn", "address"),
                    *mapped("order", "amount", "quantity", "discount", "colour", "comments",
                            "agree"),
                ],
            }
        ],
        "signers": [],
    }  # fmt: skip


def demo_workflow_create(*, organization: Organization, template: PdfTemplate) -> Workflow:
    """The organization's demo workflow, published; made once, left as it is afterwards (staff
    may have edited it)."""
    existing = Workflow.objects.filter(organization=organization, slug=DEMO_WORKFLOW_SLUG).first()
    if existing is not None:
        return existing
    workflow, _ = workflow_import(
        organization=organization, data=demo_definition(template), publish=True
    )
    return workflow
