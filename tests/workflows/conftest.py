"""Fixtures for workflow tests: the demo workflow (two webforms over the demo template), a
GraphQL caller, and values that pass every rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization
from templates_app.models import PdfTemplate
from workflows.demo import demo_workflow_create
from workflows.models import Workflow

FORGE_SUBMIT = """
mutation ForgeSubmit($forgeEid: String!, $weldDataEid: String, $submissionEid: String,
                     $payload: JSON!, $enforcePayloadValidOnCreate: Boolean, $currentStep: Int,
                     $complete: Boolean, $isTest: Boolean, $timezone: String,
                     $webhookURL: String, $groupArrayId: String, $groupArrayIndex: Int) {
  forgeSubmit(forgeEid: $forgeEid, weldDataEid: $weldDataEid, submissionEid: $submissionEid,
              payload: $payload, enforcePayloadValidOnCreate: $enforcePayloadValidOnCreate,
              currentStep: $currentStep, complete: $complete, isTest: $isTest,
              timezone: $timezone, webhookURL: $webhookURL, groupArrayId: $groupArrayId,
              groupArrayIndex: $groupArrayIndex) {
    id eid status continueURL payloadValue resolvedPayload currentStep completedAt createdAt
    updatedAt signer { name email status routingOrder }
    weldData { id eid status isTest isComplete agents displayTitle completionPercentage }
  }
}
"""
WELD_DATA = """
query WeldData($eid: String!) {
  weldData(eid: $eid) { eid status isTest isComplete displayTitle completionPercentage
    downloadZipURL continueURL submissions { eid status payloadValue } weld { eid slug } }
}
"""

ABOUT_YOU_1 = {
    "name": {"firstName": "Ada", "mi": "B", "lastName": "Lovelace"},
    "email": "ada@example.com",
    "phone": {"num": "(415) 555-0132", "region": "US"},
}
ABOUT_YOU_2 = {
    "birthDate": "1990-12-10",
    "ssn": "123-45-6789",
    "address": {"street1": "12 Analytical Way", "city": "Boston", "state": "ma", "zip": "02110"},
}
# The keys of the weldComplete event a finished workflow posts to the page that embeds it.
EVENT_KEYS = {
    "action",
    "organizationSlug",
    "organizationEid",
    "weldEid",
    "weldDataEid",
    "forgeEid",
    "submissionEid",
}
ORDER = {
    "amount": "$1,234.50",
    "quantity": 3,
    "discount": 12.5,
    "colour": "green",
    "comments": "Deliver to the back door.",
    "agree": True,
}


@pytest.fixture
def demo_workflow(organization: Organization, demo_template: PdfTemplate) -> Workflow:
    return demo_workflow_create(organization=organization, template=demo_template)


def forges(workflow: Workflow) -> dict[str, str]:
    """Webform slug -> eid."""
    return {w.slug: w.eid for w in workflow.webforms.all()}


@pytest.fixture
def graphql(api_client: Client) -> Callable[..., dict[str, Any]]:
    """POST a GraphQL operation with the organization's key; the parsed response body."""

    def run(query: str, client: Client | None = None, **variables: Any) -> dict[str, Any]:
        response = (client or api_client).post(
            "/graphql",
            data=json.dumps({"query": query, "variables": variables}),
            content_type="application/json",
        )
        assert response.status_code in (200, 400, 401, 404), response.content
        return response.json()

    return run
