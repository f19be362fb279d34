"""@anvilco/anvil's forgeSubmit (its own default mutation and selection) and removeWeldData
against the demo workflow; another organization's key can remove nothing."""

from __future__ import annotations

import pytest

from tests.workflows.order_workflow import order_workflow
from workflows.demo import demo_workflow_create
from workflows.models import Submission, WebformSubmission


@pytest.fixture
def demo_workflow(organization, demo_template):
    return demo_workflow_create(organization=organization, template=demo_template)


@pytest.mark.django_db(transaction=True)
def test_forge_submit_then_remove_weld_data(node_anvil, demo_workflow, other_api_key) -> None:
    forge = demo_workflow.webforms.get(slug="about-you").eid

    created = node_anvil(
        "forgeSubmit",
        variables={
            "forgeEid": forge,
            "payload": {"email": "ada@example.com", "phone": "415 555 0132"},
            "currentStep": 0,
            "isTest": True,
        },
    )

    assert created["statusCode"] == 200
    assert created["errors"] is None, created
    submission = created["data"]["data"]["forgeSubmit"]
    row = WebformSubmission.objects.get()
    assert submission["id"] == submission["eid"] == row.eid
    assert submission["status"] == "in-progress"
    assert submission["currentStep"] == 0
    assert submission["completedAt"] is None
    assert submission["signer"] is None
    assert submission["payloadValue"] == {
        "email": "ada@example.com",
        "phone": {"num": "415 555 0132", "region": "US", "baseRegion": "US"},
    }
    weld_data = submission["weldData"]
    assert weld_data == {
        "id": row.submission.eid,
        "eid": row.submission.eid,
        "isTest": True,
        "isComplete": False,
        "agents": [],
    }
    assert submission["continueURL"].endswith(
        f"/form/acme/demo-onboarding/{weld_data['eid']}?token="
        + submission["continueURL"].split("token=")[1]
    )

    refused = node_anvil("removeWeldData", key=other_api_key, variables={"eid": weld_data["eid"]})
    assert refused["errors"][0]["message"] == f"No weldData with eid '{weld_data['eid']}'."
    assert Submission.objects.filter(eid=weld_data["eid"]).exists()

    removed = node_anvil("removeWeldData", variables={"eid": weld_data["eid"]})
    assert removed["statusCode"] == 200
    assert removed["errors"] is None, removed
    assert removed["data"]["data"] == {"removeWeldData": True}
    assert not Submission.objects.exists()
    assert not WebformSubmission.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_forge_submit_adds_an_entry_of_a_repeating_group(node_anvil, organization, demo_template):
    """@anvilco/anvil's forgeSubmit sends groupArrayId and groupArrayIndex with its own mutation;
    the entry lands at that index of the group, and an index past the next is refused."""
    workflow = order_workflow(organization, demo_template)
    forge = workflow.webforms.get().eid

    created = node_anvil(
        "forgeSubmit",
        variables={
            "forgeEid": forge,
            "payload": {"description": "Lamp", "price": "$12.50"},
            "groupArrayId": "items",
            "groupArrayIndex": 0,
        },
    )
    refused = node_anvil(
        "forgeSubmit",
        variables={
            "forgeEid": forge,
            "submissionEid": created["data"]["data"]["forgeSubmit"]["eid"],
            "payload": {"description": "Desk"},
            "groupArrayId": "items",
            "groupArrayIndex": 2,
        },
    )

    assert created["errors"] is None, created
    assert created["data"]["data"]["forgeSubmit"]["payloadValue"] == {
        "items": [{"description": "Lamp", "price": 12.5}]
    }
    assert refused["errors"][0]["extensions"]["fields"] == [
        {
            "property": "groupArrayIndex",
            "message": "Must be an entry index from 0 to 1 (the next entry).",
        }
    ]
    assert WebformSubmission.objects.get().payload["items"] == [
        {"description": "Lamp", "price": 12.5}
    ]
