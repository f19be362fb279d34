"""Back never blocks (issue 24, item 3): what is typed is kept, nothing is checked, and only the
parts a message is about are marked invalid."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from tests.workflows.test_pages import START, STEP_1, continue_path, forge, value_of
from workflows.engine.definition import FieldDef
from workflows.engine.form_inputs import invalid_parts
from workflows.models import Submission, WebformSubmission, Workflow

HALF_ADDRESS = {
    "page": "1",
    "action": "back",
    "birthDate": "1990-12-1",  # half typed: not a date yet
    "ssn": "123-45-6789",
    "address.street1": "12 Analytical",
    "address.city": "",
    "address.state": "",
    "address.zip": "",
}


def invalid_names(response: Any) -> set[str]:
    html = response.content.decode()
    return set(re.findall(r'name="([^"]+)"[^>]*aria-invalid="true"', html)) | set(
        re.findall(r'<select[^>]*name="([^"]+)"[^>]*aria-invalid="true"', html)
    )


def test_back_keeps_a_half_typed_page_and_checks_nothing(demo_workflow: Workflow) -> None:
    client = Client()
    about_you = forge(demo_workflow, "about-you")
    client.post(START, {**STEP_1, "forge": about_you})
    submission = Submission.objects.get()

    back = client.post(continue_path(submission), {**HALF_ADDRESS, "forge": about_you})

    assert back.status_code == 200
    html = back.content.decode()
    assert "Step 1 of 3: <bdi>Contact</bdi>" in html
    assert "wf-summary-title" not in html
    row = WebformSubmission.objects.get()
    # The valid value is stored; the half-typed ones are kept as typed, not as values.
    assert row.payload["ssn"] == "123456789"
    assert "address" not in row.payload
    assert "birthDate" not in row.payload
    assert row.draft == {
        "birthDate": {"birthDate": "1990-12-1"},
        "address": {
            "address.street1": "12 Analytical",
            "address.street2": "",
            "address.city": "",
            "address.state": "",
            "address.zip": "",
            "address.country": "",
        },
    }
    assert row.current_step == 0

    # Forward again: step 2 shows what was typed, with no message.
    forward = client.post(continue_path(submission), {**STEP_1, "forge": about_you})
    assert "Step 2 of 3: <bdi>Identity</bdi>" in forward.content.decode()
    assert value_of(forward, "address.street1") == "12 Analytical"
    assert value_of(forward, "birthDate") == "1990-12-1"
    assert value_of(forward, "ssn") == "123456789"
    assert 'aria-invalid="true"' not in forward.content.decode()

    # Next checks it: only the missing required parts are marked, never the apartment.
    refused = client.post(
        continue_path(submission), {**HALF_ADDRESS, "action": "next", "forge": about_you}
    )
    assert refused.status_code == 400
    assert invalid_names(refused) == {
        "birthDate",
        "address.city",
        "address.state",
        "address.zip",
    }
    assert WebformSubmission.objects.get().draft == row.draft  # a refusal changes nothing

    passed = client.post(
        continue_path(submission),
        {
            **HALF_ADDRESS,
            "action": "next",
            "forge": about_you,
            "birthDate": "1990-12-10",
            "address.city": "Boston",
            "address.state": "MA",
            "address.zip": "02110",
        },
    )
    assert "Step 3 of 3: <bdi>Order</bdi>" in passed.content.decode()
    row = WebformSubmission.objects.get()
    assert row.draft == {}
    assert row.payload["address"]["city"] == "Boston"


def test_only_the_parts_a_message_is_about_are_marked() -> None:
    name = FieldDef(key="n", type="fullName", label="Name", required=True)
    address = FieldDef(key="a", type="usAddress", label="Address")
    phone = FieldDef(key="p", type="phone", label="Phone")

    assert invalid_parts(name, {"firstName": "Ada"}, "name") == ("lastName",)
    assert invalid_parts(name, {}, "required") == ("firstName", "lastName")
    assert invalid_parts(name, {"mi": "ABCDEF"}, "middleInitial") == ("mi",)
    assert invalid_parts(address, {"street1": "1 A St"}, "address") == (
        "city",
        "state",
        "zip",
    )
    assert invalid_parts(address, {"zip": "1"}, "zip") == ("zip",)
    assert invalid_parts(address, {}, "state") == ("state",)
    assert invalid_parts(phone, {"num": "1"}, "phone") == ("num",)
    assert invalid_parts(phone, {}, "phoneRegion") == ("region",)
    assert invalid_parts(address, {}, "") == ()
