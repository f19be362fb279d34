"""python-anvil's get_welds, get_weld and forge_submit against the demo workflow, and its
download of the documents; another organization's key sees none of it."""

from __future__ import annotations

import io
import urllib.request
import zipfile

import pytest

from tests.conftest import basic_auth
from tests.pdfcheck import text_in_rect, words
from tests.workflows.order_workflow import item_rect, order_workflow, price_rect
from workflows.demo import demo_workflow_create
from workflows.models import Submission
from workflows.submissions.files import documents_zip

ABOUT_YOU = {
    "name": {"firstName": "Ada", "lastName": "Lovelace"},
    "email": "ada@example.com",
    "birthDate": "1815-12-10",
}
ORDER = {"amount": 1234.5, "agree": True, "colour": "blue"}


@pytest.fixture
def demo_workflow(organization, demo_template):
    return demo_workflow_create(organization=organization, template=demo_template)


@pytest.mark.django_db(transaction=True)
def test_get_welds_and_get_weld(python_anvil, demo_workflow) -> None:
    forges = [{"eid": w.eid, "name": w.name, "slug": w.slug} for w in demo_workflow.webforms.all()]

    report = python_anvil("get_welds")

    assert report == {
        "result": [
            {
                "eid": demo_workflow.eid,
                "slug": "demo-onboarding",
                "name": "Demo: onboarding",
                "forges": [{"eid": f["eid"], "name": f["name"]} for f in forges],
            }
        ]
    }
    assert python_anvil("get_weld", eid=demo_workflow.eid) == {
        "result": {
            "eid": demo_workflow.eid,
            "slug": "demo-onboarding",
            "name": "Demo: onboarding",
            "forges": forges,
        }
    }


@pytest.mark.django_db(transaction=True)
def test_forge_submit_fills_the_demo_template(python_anvil, demo_workflow, live_server, api_key):
    forges = {w.slug: w.eid for w in demo_workflow.webforms.all()}

    first = python_anvil(
        "forge_submit",
        payload={"forge_eid": forges["about-you"], "payload": ABOUT_YOU, "complete": True},
    )
    assert "error" not in first, first
    submission = first["result"]["forgeSubmit"]
    weld_data = submission["weldData"]
    assert submission["status"] == "completed"
    assert submission["resolvedPayload"]["email"] == {
        "type": "email",
        "value": "ada@example.com",
        "label": "Email",
    }
    assert weld_data["status"] == "in-progress"
    assert (weld_data["isTest"], weld_data["isComplete"]) == (True, False)

    second = python_anvil(
        "forge_submit",
        payload={
            "forge_eid": forges["order"],
            "weld_data_eid": weld_data["eid"],
            "payload": ORDER,
            "complete": True,
        },
    )
    assert "error" not in second, second
    assert second["result"]["forgeSubmit"]["weldData"] == {
        "eid": weld_data["eid"],
        "status": "completed",
        "isTest": True,
        "isComplete": True,
        "agents": [],
    }

    request = urllib.request.Request(
        f"{live_server.url}/download/{weld_data['eid']}.zip",
        headers={"Authorization": basic_auth(api_key)},
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
        archive = zipfile.ZipFile(io.BytesIO(response.read()))
    assert archive.namelist() == ["demo-form.pdf"]
    text = " ".join(w.text for page in words(archive.read("demo-form.pdf")) for w in page)
    assert "Ada Lovelace" in text
    assert "ada@example.com" in text
    assert "$1,234.50" in text


@pytest.mark.django_db(transaction=True)
def test_forge_submit_refuses_an_invalid_value(python_anvil, demo_workflow) -> None:
    forge = demo_workflow.webforms.get(slug="about-you").eid

    report = python_anvil(
        "forge_submit", payload={"forge_eid": forge, "payload": {"email": "not an email"}}
    )

    assert report["type"] == "TransportQueryError"
    assert "'property': 'payload.email'" in report["error"]
    assert "'code': 'ValidationError'" in report["error"]
    assert "payload.email: Enter an email address, like name@example.com." in report["error"]
    assert Submission.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_another_organizations_key_sees_no_weld(python_anvil, demo_workflow, other_api_key):
    assert python_anvil("get_welds", key=other_api_key) == {"result": []}
    report = python_anvil("get_weld", key=other_api_key, eid=demo_workflow.eid)
    assert "No workflow with eid" in report["error"]
    forge = demo_workflow.webforms.get(slug="order").eid
    refused = python_anvil(
        "forge_submit", key=other_api_key, payload={"forge_eid": forge, "payload": ORDER}
    )
    assert "No webform with eid" in refused["error"]
    assert Submission.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_forge_submit_fills_a_repeating_group_by_group_array_id(
    python_anvil, organization, demo_template
):
    """python-anvil's forge_submit with group_array_id and group_array_index: one entry at a
    time, then the webform completes and the entries fill the template's arrays."""
    workflow = order_workflow(organization, demo_template)
    forge = workflow.webforms.get().eid
    lamp = python_anvil(
        "forge_submit",
        payload={
            "forge_eid": forge,
            "payload": {"description": "Lamp", "price": 12.5},
            "group_array_id": "items",
            "group_array_index": 0,
        },
    )
    assert "error" not in lamp, lamp
    submission_eid = lamp["result"]["forgeSubmit"]["eid"]
    desk = python_anvil(
        "forge_submit",
        payload={
            "forge_eid": forge,
            "submission_eid": submission_eid,
            "payload": {"description": "Desk", "price": 300},
            "group_array_id": "items",
            "group_array_index": 1,
        },
    )
    refused = python_anvil(
        "forge_submit",
        payload={
            "forge_eid": forge,
            "submission_eid": submission_eid,
            "payload": {"description": "Chair"},
            "group_array_id": "items",
            "group_array_index": 5,
        },
    )
    done = python_anvil(
        "forge_submit",
        payload={
            "forge_eid": forge,
            "submission_eid": submission_eid,
            "payload": {"name": {"firstName": "Ada", "lastName": "Lovelace"}},
            "complete": True,
        },
    )

    assert "error" not in desk, desk
    entries = desk["result"]["forgeSubmit"]["resolvedPayload"]["items"]["value"]
    assert [{k: v["value"] for k, v in entry.items()} for entry in entries] == [
        {"description": "Lamp", "price": 12.5},
        {"description": "Desk", "price": 300},
    ]
    assert refused["type"] == "TransportQueryError"
    assert "'property': 'groupArrayIndex'" in refused["error"]
    assert "Must be an entry index from 0 to 2 (the next entry)." in refused["error"]
    assert "error" not in done, done
    assert done["result"]["forgeSubmit"]["weldData"]["isComplete"] is True
    submission = Submission.objects.get()
    pdf = zipfile.ZipFile(io.BytesIO(documents_zip(submission)[0])).read("order-form.pdf")
    page = words(pdf)[1]
    assert [text_in_rect(page, item_rect(row)) for row in range(3)] == ["Lamp", "Desk", ""]
    assert [text_in_rect(page, price_rect(row)) for row in range(2)] == ["$12.50", "$300.00"]
