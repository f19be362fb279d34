"""A workflow with a repeating group and a conditional page, over the demo template: its group's
fields fill the template's two arrays (items, prices: 5 rows on page 2, which repeats when there
are more entries), and its last page is shown only to those who want a delivery."""

from __future__ import annotations

from typing import Any

from accounts.models import Organization
from templates_app.models import PdfTemplate
from workflows.definitions.versions import workflow_import
from workflows.models import Workflow

GROUP = {
    "key": "items",
    "label": "Items",
    "helpText": "What you order, one entry per item.",
    "minEntries": 1,
    "maxEntries": 8,
    "fields": [
        {"key": "description", "type": "shortText", "label": "Description", "required": True},
        {"key": "price", "type": "dollar", "label": "Price", "required": True},
    ],
}


def order_definition(template: PdfTemplate) -> dict[str, Any]:
    return {
        "slug": "order",
        "name": "Order",
        "webforms": [
            {
                "slug": "order",
                "name": "Your order",
                "pages": [
                    {
                        "title": "You",
                        "fields": [
                            {"key": "name", "type": "fullName", "label": "Full name",
                             "required": True},
                            {"key": "deliver", "type": "checkbox",
                             "label": "Deliver it to my address"},
                        ],
                    },
                    {"title": "Items", "fields": [], "groups": [GROUP]},
                    {
                        "title": "Delivery",
                        "showWhen": {"field": "deliver", "hasValue": True},
                        "fields": [
                            {"key": "address", "type": "usAddress", "label": "Address",
                             "required": True},
                        ],
                    },
                ],
            }
        ],
        "documents": [
            {
                "template": {"eid": template.eid, "title": template.title},
                "title": "Order form",
                "filename": "order-form.pdf",
                "mappings": [
                    {"alias": "name", "forge": "order", "field": "name"},
                    {"alias": "items", "forge": "order", "field": "description"},
                    {"alias": "prices", "forge": "order", "field": "price"},
                    {"alias": "address", "forge": "order", "field": "address"},
                ],
            }
        ],
    }  # fmt: skip


def order_workflow(organization: Organization, template: PdfTemplate) -> Workflow:
    workflow, _ = workflow_import(
        organization=organization, data=order_definition(template), publish=True
    )
    return workflow


# Rows of the demo template's page 2 (templates_app.engine.demo), in PDF points.
def item_rect(row: int) -> dict[str, float]:
    return {"x": 54, "y": 690 - row * 30, "width": 360, "height": 18}


def price_rect(row: int) -> dict[str, float]:
    return {"x": 434, "y": 690 - row * 30, "width": 124, "height": 18}
