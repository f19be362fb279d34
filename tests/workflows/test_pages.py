"""The webform pages without a browser: what the server answers to every page, every refusal and
every link (the browser test covers the script and the iframe)."""

from __future__ import annotations

import base64
import io
import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from PIL import Image

from accounts.models import Organization
from core.importmap import import_map_csp_source
from tests.workflows.conftest import EVENT_KEYS, FORGE_SUBMIT
from webhooks.models import WebhookEvent
from workflows.definitions.versions import workflow_publish
from workflows.models import Submission, WebformSubmission, Workflow
from workflows.submissions.links import continue_token

START = "/form/acme/demo-onboarding"
STEP_1 = {
    "page": "0",
    "action": "next",
    "name.firstName": "Ada",
    "name.lastName": "Lovelace",
    "email": "ada@example.com",
    "phone.num": "415 555 0132",
    "phone.region": "US",
}
STEP_2 = {
    "page": "1",
    "action": "next",
    "birthDate": "1990-12-10",
    "ssn": "123-45-6789",
    "address.street1": "12 Analytical Way",
    "address.city": "Boston",
    "address.state": "MA",
    "address.zip": "02110",
}
ORDER = {"page": "0", "action": "next", "amount": "$99.50", "quantity": "2", "agree": "on"}


def config(response: Any) -> dict[str, Any]:
    html = response.content.decode()
    match = re.search(r'<script id="wf-config" type="application/json">(.*?)</script>', html)
    assert match, html[:500]
    return json.loads(match.group(1))


def forge(workflow: Workflow, slug: str) -> str:
    return workflow.webforms.get(slug=slug).eid


def value_of(response: Any, name: str) -> str:
    match = re.search(rf'name="{re.escape(name)}" value="([^"]*)"', response.content.decode())
    return match.group(1) if match else ""


def continue_path(submission: Submission) -> str:
    return f"{START}/{submission.eid}?token={continue_token(submission)}"


def test_the_first_page(demo_workflow: Workflow, organization: Organization) -> None:
    organization.embed_origins = ["https://app.example.com"]
    organization.save()

    response = Client().get(START)

    assert response.status_code == 200
    assert response["Content-Security-Policy"] == (
        "frame-ancestors 'self' https://app.example.com;"
        f" script-src 'self' {import_map_csp_source()}; object-src 'none'; base-uri 'self'"
    )
    assert "X-Frame-Options" not in response
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    assert "Step 1 of 3: <bdi>Contact</bdi>" in html
    assert 'name="name.firstName"' in html
    assert 'autocomplete="email"' in html
    assert config(response) == {
        "events": [],
        "origins": ["http://127.0.0.1:8000", "https://app.example.com"],
        "continueUrl": "",
    }
    assert Submission.objects.count() == 0


def test_an_unknown_or_unpublished_workflow_is_not_found(
    demo_workflow: Workflow, organization: Organization
) -> None:
    assert Client().get("/form/acme/nothing").status_code == 404
    assert Client().get("/form/globex/demo-onboarding").status_code == 404
    draft = Workflow.objects.create(organization=organization, slug="draft", name="Draft")
    response = Client().get(f"/form/acme/{draft.slug}")
    assert response.status_code == 404
    assert "is not published" in response.content.decode()


def test_a_refused_page_keeps_what_was_typed(demo_workflow: Workflow) -> None:
    typed = {
        **STEP_1,
        "forge": forge(demo_workflow, "about-you"),
        "email": "ada at example",
        "phone.num": "12",
        "phone.region": "MX",
        "name.lastName": "",
    }

    response = Client().post(START, typed)

    assert response.status_code == 400
    html = response.content.decode()
    assert "There are 3 problems" in html
    assert '<p class="wf-error" id="f-email-error">Enter an email address' in html
    assert "Enter a complete phone number for Mexico." in html
    assert "Enter a first name and a last name." in html
    assert value_of(response, "email") == "ada at example"
    assert value_of(response, "phone.num") == "12"
    assert value_of(response, "name.firstName") == "Ada"
    assert '<option value="MX" selected>' in html
    assert 'aria-invalid="true"' in html
    assert Submission.objects.count() == 0
    assert config(response)["events"] == []


def test_a_webform_page_by_page_to_the_documents(
    demo_workflow: Workflow, organization: Organization, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A continue link's token holds its expiry to the second, from the clock the code reads:
    # held, so that the link the page gives and the one made here to compare are made at the
    # same time (CI saw them a second apart).
    held = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: held)
    client = Client()
    first = client.post(START, {**STEP_1, "forge": forge(demo_workflow, "about-you")})

    submission = Submission.objects.get()
    row = WebformSubmission.objects.get()
    assert first.status_code == 200
    assert "Step 2 of 3: <bdi>Identity</bdi>" in first.content.decode()
    assert config(first)["events"] == [
        {
            "action": "forgeSubmitPage",
            "organizationSlug": "acme",
            "organizationEid": organization.eid,
            "weldEid": demo_workflow.eid,
            "weldDataEid": submission.eid,
            "forgeEid": forge(demo_workflow, "about-you"),
            "submissionEid": row.eid,
            "pageId": demo_workflow.webforms.get(slug="about-you").pages.first().eid,
            "pageIndex": 0,
        }
    ]
    assert config(first)["continueUrl"] == continue_path(submission)
    assert [e.action for e in WebhookEvent.objects.all()] == ["weldCreate"]

    # The continue URL resumes at the step reached; a wrong token opens nothing.
    resumed = client.get(continue_path(submission))
    assert "Step 2 of 3: <bdi>Identity</bdi>" in resumed.content.decode()
    assert client.get(f"{START}/{submission.eid}?token=wrong").status_code == 404
    assert client.get(f"/form/globex/demo-onboarding/{submission.eid}").status_code == 404

    # Back to step 1, with its values; then forward again.
    back = client.post(
        continue_path(submission),
        {"forge": forge(demo_workflow, "about-you"), "page": "1", "action": "back"},
    )
    assert "Step 1 of 3: <bdi>Contact</bdi>" in back.content.decode()
    assert value_of(back, "email") == "ada@example.com"
    assert config(back)["events"] == []

    second = client.post(
        continue_path(submission), {**STEP_2, "forge": forge(demo_workflow, "about-you")}
    )
    html = second.content.decode()
    assert "Step 3 of 3: <bdi>Order</bdi>" in html
    assert "Your order" in html
    assert value_of(second, "quantity") == "1"  # the field's default
    assert [e["action"] for e in config(second)["events"]] == ["forgeSubmitPage", "forgeComplete"]

    done = client.post(continue_path(submission), {**ORDER, "forge": forge(demo_workflow, "order")})
    assert done.status_code == 200
    assert [e["action"] for e in config(done)["events"]] == [
        "forgeSubmitPage",
        "forgeComplete",
        "weldComplete",
    ]
    assert set(config(done)["events"][-1]) == EVENT_KEYS
    submission.refresh_from_db()
    assert submission.status == "completed"
    assert submission.is_test is False
    html = done.content.decode()
    assert "Thank you" in html
    link = re.search(
        r'href="(/form/acme/demo-onboarding/[^"]+/documents/0\.pdf\?token=[^"]+)"', html
    )
    assert link
    pdf = client.get(link.group(1).replace("&amp;", "&"))
    assert pdf.status_code == 200
    assert pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")
    zipped = client.get(
        f"{START}/{submission.eid}/documents.zip?token={continue_token(submission)}"
    )
    assert zipped["Content-Type"] == "application/zip"
    assert client.get(f"{START}/{submission.eid}/documents/0.pdf?token=x").status_code == 404

    # Once done, the continue URL shows the end, and a late post changes nothing.
    again = client.post(
        continue_path(submission), {**ORDER, "forge": forge(demo_workflow, "order")}
    )
    assert "Thank you" in again.content.decode()
    assert WebhookEvent.objects.filter(action="weldComplete").count() == 1


def test_a_page_of_an_unknown_webform_shows_where_the_person_is(demo_workflow: Workflow) -> None:
    client = Client()
    client.post(START, {**STEP_1, "forge": forge(demo_workflow, "about-you")})
    submission = Submission.objects.get()

    response = client.post(continue_path(submission), {"forge": "nope", "page": "9"})

    assert response.status_code == 200
    assert "That page could not be found" in response.content.decode()
    assert "Step 2 of 3" in response.content.decode()


def test_a_later_page_cannot_be_skipped_to(demo_workflow: Workflow) -> None:
    client = Client()
    client.post(START, {**STEP_1, "forge": forge(demo_workflow, "about-you")})
    submission = Submission.objects.get()

    response = client.get(continue_path(submission) + "&forge=order&step=0")

    assert "Step 2 of 3: <bdi>Identity</bdi>" in response.content.decode()


def test_embedded_mode_is_kept_from_page_to_page(demo_workflow: Workflow) -> None:
    client = Client()
    first = client.get(START + "?embedded=true")
    assert 'class="wf wf-embedded"' in first.content.decode()
    assert 'action="/form/acme/demo-onboarding?embedded=true"' in first.content.decode()

    second = client.post(
        START + "?embedded=true", {**STEP_1, "forge": forge(demo_workflow, "about-you")}
    )

    assert config(second)["continueUrl"].endswith("&embedded=true")
    assert "wf-embedded" in second.content.decode()
    assert "continue where you left off" not in second.content.decode()


def _png(size: int = 8) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), (200, 20, 20)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_an_image_field_takes_an_upload_and_keeps_it(
    organization: Organization, demo_template: Any
) -> None:
    from tests.workflows.test_public_uploads import badge_create

    workflow = badge_create(organization, demo_template)
    forge_eid = workflow.webforms.get().eid
    client = Client()
    upload = SimpleUploadedFile("me.png", _png(), content_type="image/png")

    # The email is wrong: the image is kept (as the data: URL it became) for the next try.
    refused = client.post(
        "/form/acme/badge",
        {"forge": forge_eid, "page": "0", "photo.file": upload, "email": "x"},
    )
    kept = value_of(refused, "photo")
    assert kept == "data:image/png;base64," + base64.b64encode(_png()).decode()
    assert 'class="wf-image"' in refused.content.decode()

    done = client.post(
        "/form/acme/badge", {"forge": forge_eid, "page": "0", "photo": kept, "email": "a@b.co"}
    )
    assert "Thank you" in done.content.decode()
    assert WebformSubmission.objects.get().payload["photo"] == kept

    too_big = SimpleUploadedFile("big.png", b"\x89PNG" + b"0" * 80_000, content_type="image/png")
    big = client.post("/form/acme/badge", {"forge": forge_eid, "page": "0", "photo.file": too_big})
    assert "This file is not a readable image of the type it claims" in big.content.decode()


def test_the_workflows_version_is_kept_by_a_submission_under_way(
    demo_workflow: Workflow,
) -> None:
    client = Client()
    client.post(START, {**STEP_1, "forge": forge(demo_workflow, "about-you")})
    submission = Submission.objects.get()
    field = demo_workflow.webforms.get(slug="about-you").fields.get(key="birthDate")
    field.label = "Birthday"
    field.save()
    workflow_publish(workflow=demo_workflow)

    resumed = client.get(continue_path(submission)).content.decode()
    fresh = client.get(START + "?forge=about-you").content.decode()

    assert submission.version_number == 1
    assert "Date of birth" in resumed
    assert "Contact" in fresh  # a new submission starts on version 2, at its first page
    assert demo_workflow.versions.count() == 2


@pytest.mark.parametrize("method", ["put", "delete"])
def test_other_methods_are_refused(demo_workflow: Workflow, method: str) -> None:
    assert getattr(Client(), method)(START).status_code == 405


def test_the_embedding_demo_page(demo_workflow: Workflow) -> None:
    response = Client().get(START + "/embed-demo")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'src="http://127.0.0.1:8000/form/acme/demo-onboarding?embedded=true"' in html
    assert "wf-demo-events" in html


def test_an_earlier_page_the_api_left_incomplete_is_shown_with_its_messages(
    demo_workflow: Workflow, graphql: Any
) -> None:
    # An integrator prefills part of the webform through forgeSubmit; the person finishes it on
    # the page. Finishing checks every page: the one still missing required answers comes back.
    about_you = forge(demo_workflow, "about-you")
    body = graphql(FORGE_SUBMIT, forgeEid=about_you, payload={"birthDate": "1990-12-10"})
    assert "errors" not in body, body
    continue_url = body["data"]["forgeSubmit"]["continueURL"]

    last = Client().post(
        continue_url.removeprefix(settings.PUBLIC_BASE_URL), {**STEP_2, "forge": about_you}
    )

    assert last.status_code == 400
    html = last.content.decode()
    assert "Step 1 of 3: <bdi>Contact</bdi>" in html
    assert re.search(r'name="email"[^>]*aria-invalid="true"', html)
    assert "Step 2 of 3" not in html
    row = WebformSubmission.objects.get()
    assert row.completed_at is None
    assert "email" not in row.payload
