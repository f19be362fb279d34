"""forgeSubmit, weld, weldData, welds and removeWeldData through GraphQL; the events written with
each change; /download/<eid>.zip; and what another organization's key sees (nothing)."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.test import Client

from accounts.models import ApiKey, Organization
from accounts.services import api_key_create
from tests.pdfcheck import words
from tests.workflows.conftest import (
    ABOUT_YOU_1,
    ABOUT_YOU_2,
    FORGE_SUBMIT,
    ORDER,
    WELD_DATA,
    forges,
)
from webhooks.models import WebhookEvent
from workflows.models import Submission, WebformSubmission, Workflow

WELD = """
query Weld($eid: String, $organizationSlug: String, $slug: String) {
  weld(eid: $eid, organizationSlug: $organizationSlug, slug: $slug) {
    eid slug name title forges { eid slug name }
    weldDatas { eid status createdAt displayTitle completionPercentage isTest isComplete }
  }
}
"""
WELDS = "{ currentUser { organizations { slug welds { eid slug name forges { eid name } } } } }"
REMOVE = "mutation Remove($eid: String!) { removeWeldData(eid: $eid) }"


def submit(graphql: Any, **variables: Any) -> dict[str, Any]:
    body = graphql(FORGE_SUBMIT, **variables)
    assert "errors" not in body, body
    return body["data"]["forgeSubmit"]


def complete_demo(graphql: Any, workflow: Workflow, **extra: Any) -> dict[str, Any]:
    """Both webforms of the demo workflow submitted and completed; the last submission."""
    f = forges(workflow)
    first = submit(
        graphql, forgeEid=f["about-you"], payload={**ABOUT_YOU_1, **ABOUT_YOU_2}, complete=True,
        **extra,
    )  # fmt: skip
    return submit(
        graphql,
        forgeEid=f["order"],
        weldDataEid=first["weldData"]["eid"],
        payload=ORDER,
        complete=True,
    )


def test_the_first_submit_starts_a_weld_data_and_emits_weld_create(
    demo_workflow: Workflow, graphql: Any
) -> None:
    f = forges(demo_workflow)

    result = submit(graphql, forgeEid=f["about-you"], payload=ABOUT_YOU_1, currentStep=1)

    submission = Submission.objects.get()
    row = WebformSubmission.objects.get()
    assert result["eid"] == row.eid
    assert result["status"] == "in-progress"
    assert result["currentStep"] == 1
    assert result["payloadValue"] == {
        "name": {"firstName": "Ada", "mi": "B", "lastName": "Lovelace"},
        "email": "ada@example.com",
        "phone": {"num": "(415) 555-0132", "region": "US", "baseRegion": "US"},
    }
    assert result["weldData"] == {
        "id": submission.eid,
        "eid": submission.eid,
        "status": "in-progress",
        "isTest": True,  # a development key's submissions are tests
        "isComplete": False,
        "agents": [],
        "displayTitle": "Demo: onboarding: Ada B Lovelace",
        "completionPercentage": 0.0,
    }
    [event] = WebhookEvent.objects.all()
    assert event.action == "weldCreate"
    assert event.data == {
        "isComplete": False,
        "isTest": True,
        "eid": submission.eid,
        "documents": [],
        "weld": {"eid": demo_workflow.eid, "slug": "demo-onboarding"},
        "forges": {
            "about-you": {"eid": f["about-you"], "name": "About you"},
            "order": {"eid": f["order"], "name": "Your order"},
        },
        "submissions": {
            "about-you": {
                "eid": row.eid,
                "resolvedPayload": {
                    "name": {
                        "type": "fullName",
                        "value": {"firstName": "Ada", "mi": "B", "lastName": "Lovelace"},
                        "label": "Full name",
                    },
                    "email": {"type": "email", "value": "ada@example.com", "label": "Email"},
                    "phone": {
                        "type": "phone",
                        "value": {"num": "(415) 555-0132", "region": "US", "baseRegion": "US"},
                        "label": "Phone",
                    },
                },
            }
        },
    }


def test_completing_every_webform_fills_the_documents_and_emits_weld_complete(
    demo_workflow: Workflow, graphql: Any, api_client: Client
) -> None:
    f = forges(demo_workflow)
    first = submit(graphql, forgeEid=f["about-you"], payload=ABOUT_YOU_1)
    weld_data_eid = first["weldData"]["eid"]
    # Completing with a required field missing names it, and changes nothing.
    refused = graphql(
        FORGE_SUBMIT, forgeEid=f["about-you"], submissionEid=first["eid"], payload={},
        complete=True,
    )  # fmt: skip
    assert refused["errors"][0]["extensions"]["fields"] == [
        {"message": "This field is required.", "property": "payload.birthDate"}
    ]
    assert WebformSubmission.objects.get().completed_at is None

    done_first = submit(
        graphql, forgeEid=f["about-you"], weldDataEid=weld_data_eid, submissionEid=first["eid"],
        payload=ABOUT_YOU_2, complete=True,
    )  # fmt: skip
    assert done_first["status"] == "completed"
    assert done_first["weldData"]["completionPercentage"] == 50.0
    last = submit(
        graphql, forgeEid=f["order"], weldDataEid=weld_data_eid, payload=ORDER, complete=True
    )

    assert last["weldData"]["status"] == "completed"
    assert last["weldData"]["isComplete"] is True
    assert last["weldData"]["completionPercentage"] == 100.0
    assert [e.action for e in WebhookEvent.objects.order_by("created_at", "id")] == [
        "weldCreate",
        "forgeComplete",
        "forgeComplete",
        "weldComplete",
    ]
    complete = WebhookEvent.objects.get(action="weldComplete").data
    assert set(complete) == {
        "isComplete",
        "isTest",
        "eid",
        "documents",
        "weld",
        "forges",
        "submissions",
    }
    assert complete["isComplete"] is True
    assert complete["eid"] == weld_data_eid
    assert complete["documents"] == [
        {"type": "application/zip", "url": f"http://127.0.0.1:8000/download/{weld_data_eid}.zip"}
    ]
    assert complete["submissions"]["order"]["resolvedPayload"]["amount"] == {
        "type": "dollar",
        "value": 1234.5,
        "label": "Amount",
    }
    assert complete["submissions"]["about-you"]["resolvedPayload"]["ssn"]["value"] == "123456789"
    forge_complete = WebhookEvent.objects.filter(action="forgeComplete").order_by("id").last()
    assert forge_complete.data["forge"] == {
        "eid": f["order"],
        "slug": "order",
        "name": "Your order",
    }
    assert forge_complete.data["submission"]["eid"] == last["eid"]

    response = api_client.get(f"/download/{weld_data_eid}.zip")
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        'attachment; filename="Demo onboarding - Ada B Lovelace.zip"'
    )
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.namelist() == ["demo-form.pdf"]
    text = " ".join(w.text for page in words(archive.read("demo-form.pdf")) for w in page)
    for expected in ("Ada B Lovelace", "ada@example.com", "(415) 555-0132", "123-45-6789",
                     "12 Analytical Way", "Boston, MA 02110", "$1,234.50", "12.5%"):  # fmt: skip
        assert expected in text, expected

    # A completed submission changes no more.
    again = graphql(FORGE_SUBMIT, forgeEid=f["order"], submissionEid=last["eid"], payload={})
    assert again["errors"][0]["extensions"]["code"] == "ConflictError"


def test_a_payload_is_checked_value_by_value(demo_workflow: Workflow, graphql: Any) -> None:
    f = forges(demo_workflow)

    refused = graphql(
        FORGE_SUBMIT,
        forgeEid=f["about-you"],
        payload={"email": "nope", "ssn": "000-12-3456", "birthDate": "2023-02-30", "x": 1},
    )

    assert refused["data"] == {"forgeSubmit": None}
    assert refused["errors"][0]["extensions"]["fields"] == [
        {"message": "Enter an email address, like name@example.com.", "property": "payload.email"},
        {"message": "This date does not exist.", "property": "payload.birthDate"},
        {"message": "This is not a valid social security number.", "property": "payload.ssn"},
    ]
    assert Submission.objects.count() == 0
    assert WebhookEvent.objects.count() == 0

    # Not enforced on create: what is invalid is left out, the rest is kept.
    kept = submit(
        graphql, forgeEid=f["about-you"], payload={"email": "nope", "ssn": "123456789"},
        enforcePayloadValidOnCreate=False,
    )  # fmt: skip
    assert kept["payloadValue"] == {"ssn": "123456789"}


@pytest.mark.parametrize(
    ("variables", "message", "property"),
    [
        ({"currentStep": 2}, "Must be a page index from 0 to 1.", "currentStep"),
        ({"groupArrayId": "g1"},
         "Must be the key of a repeating group of the webform (none).", "groupArrayId"),
        ({"groupArrayIndex": 0},
         "Must be the key of a repeating group of the webform (none).", "groupArrayId"),
        ({"timezone": "Mars/Olympus"}, "Must be an IANA time zone name.", "timezone"),
        ({"webhookURL": "ftp://example.com/hook"}, None, "webhookURL"),
        ({"payload": [1, 2]}, "Must be an object keyed by field key.", "payload"),
        # Several wrong: the first is named, as forgeSubmit always answered.
        ({"timezone": "Mars/Olympus", "webhookURL": "ftp://example.com/hook"}, None, "webhookURL"),
    ],
)  # fmt: skip
def test_arguments_are_checked(
    demo_workflow: Workflow, graphql: Any, variables: dict, message: str | None, property: str
) -> None:
    arguments = {"forgeEid": forges(demo_workflow)["about-you"], "payload": {}, **variables}

    body = graphql(FORGE_SUBMIT, **arguments)

    [field] = body["errors"][0]["extensions"]["fields"]
    assert field["property"] == property
    if message:
        assert field["message"] == message
    assert Submission.objects.count() == 0


def test_every_argument_the_clients_send_is_accepted(demo_workflow: Workflow, graphql: Any):
    f = forges(demo_workflow)
    result = submit(
        graphql, forgeEid=f["about-you"], payload=ABOUT_YOU_1, enforcePayloadValidOnCreate=True,
        currentStep=0, complete=False, isTest=True, timezone="America/New_York",
        webhookURL="https://hooks.example.com/weld", groupArrayId=None, groupArrayIndex=None,
    )  # fmt: skip
    submission = Submission.objects.get(eid=result["weldData"]["eid"])
    assert (submission.timezone, submission.webhook_url) == (
        "America/New_York",
        "https://hooks.example.com/weld",
    )
    assert WebhookEvent.objects.get().webhook_url == "https://hooks.example.com/weld"


def test_a_production_key_keeps_is_test_as_given(
    demo_workflow: Workflow, graphql: Any, production_key: str, client_for: Any
) -> None:
    f = forges(demo_workflow)
    client = client_for(production_key)
    real = graphql(FORGE_SUBMIT, client=client, forgeEid=f["order"], payload={"amount": 5})
    test = graphql(
        FORGE_SUBMIT, client=client, forgeEid=f["order"], payload={"amount": 5}, isTest=True
    )
    assert real["data"]["forgeSubmit"]["weldData"]["isTest"] is False
    assert test["data"]["forgeSubmit"]["weldData"]["isTest"] is True


def test_weld_by_eid_or_by_organization_slug_and_slug(demo_workflow: Workflow, graphql: Any):
    complete_demo(graphql, demo_workflow)
    by_eid = graphql(WELD, eid=demo_workflow.eid)["data"]["weld"]
    by_slug = graphql(WELD, organizationSlug="acme", slug="demo-onboarding")["data"]["weld"]

    assert by_eid == by_slug
    assert by_eid["title"] == by_eid["name"] == "Demo: onboarding"
    assert [f["slug"] for f in by_eid["forges"]] == ["about-you", "order"]
    [weld_data] = by_eid["weldDatas"]
    assert weld_data["status"] == "completed"
    assert weld_data["isComplete"] is True
    assert weld_data["completionPercentage"] == 100.0
    assert weld_data["displayTitle"] == "Demo: onboarding: Ada B Lovelace"
    assert weld_data["createdAt"].endswith("Z")
    welds = graphql(WELDS)["data"]["currentUser"]["organizations"]
    assert welds == [
        {
            "slug": "acme",
            "welds": [
                {
                    "eid": demo_workflow.eid,
                    "slug": "demo-onboarding",
                    "name": "Demo: onboarding",
                    "forges": [
                        {"eid": w.eid, "name": w.name} for w in demo_workflow.webforms.all()
                    ],
                }
            ],
        }
    ]


def test_weld_data_and_remove_weld_data(demo_workflow: Workflow, graphql: Any) -> None:
    last = complete_demo(graphql, demo_workflow)
    eid = last["weldData"]["eid"]
    data = graphql(WELD_DATA, eid=eid)["data"]["weldData"]
    assert data["downloadZipURL"] == f"http://127.0.0.1:8000/download/{eid}.zip"
    assert [s["status"] for s in data["submissions"]] == ["completed", "completed"]

    assert graphql(REMOVE, eid=eid) == {"data": {"removeWeldData": True}}
    assert not Submission.objects.exists()
    missing = graphql(WELD_DATA, eid=eid)
    assert missing["errors"][0]["message"] == f"No weldData with eid '{eid}'."


def test_the_download_waits_for_completion(demo_workflow: Workflow, graphql: Any, api_client):
    first = submit(graphql, forgeEid=forges(demo_workflow)["order"], payload={"amount": 5})

    response = api_client.get(f"/download/{first['weldData']['eid']}.zip")

    assert response.status_code == 409
    assert response.json()["name"] == "ConflictError"
    assert api_client.get("/download/nothing.zip").status_code == 404
    assert Client().get(f"/download/{first['weldData']['eid']}.zip").status_code == 401


def test_another_organizations_key_sees_nothing(
    demo_workflow: Workflow, graphql: Any, other_api_key: str, client_for: Any,
    other_organization: Organization,
) -> None:  # fmt: skip
    last = complete_demo(graphql, demo_workflow)
    eid = last["weldData"]["eid"]
    other = client_for(other_api_key)
    f = forges(demo_workflow)

    assert graphql(WELDS, client=other)["data"]["currentUser"]["organizations"] == [
        {"slug": "globex", "welds": []}
    ]
    assert graphql(WELD, client=other, eid=demo_workflow.eid)["data"] == {"weld": None}
    by_slug = graphql(WELD, client=other, organizationSlug="acme", slug="demo-onboarding")
    assert by_slug["errors"][0]["extensions"]["code"] == "NotFoundError"
    assert graphql(WELD_DATA, client=other, eid=eid)["data"] == {"weldData": None}
    for variables in (
        {"forgeEid": f["order"], "payload": {"amount": 1}},
        {"forgeEid": f["order"], "weldDataEid": eid, "payload": {"amount": 1}},
    ):
        refused = graphql(FORGE_SUBMIT, client=other, **variables)
        assert refused["errors"][0]["extensions"]["code"] == "NotFoundError"
    assert graphql(REMOVE, client=other, eid=eid)["errors"][0]["extensions"]["code"] == (
        "NotFoundError"
    )
    assert other.get(f"/download/{eid}.zip").status_code == 404
    assert Submission.objects.filter(eid=eid, status="completed").exists()
    assert not WebhookEvent.objects.filter(organization=other_organization).exists()
    # A key of the other organization's own: still nothing of acme's.
    _, second_key = api_key_create(organization=other_organization, kind=ApiKey.Kind.PRODUCTION)
    assert client_for(second_key).get(f"/download/{eid}.zip").status_code == 404
