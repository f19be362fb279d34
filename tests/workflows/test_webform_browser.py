"""A webform in a real browser: headless Chromium, driven by Playwright, against the live server,
inside an iframe of a page served on another origin (the integrator's app).

A two-step webform is filled: step 1 is refused in the browser, then by the server (the script
bypassed), each time with everything typed still there; then both steps pass, the embedding page
records forgeSubmitPage, forgeComplete and weldComplete with the ids of what was stored, and the
zip of the documents holds the filled PDF with the typed values. Screenshots of each step go to
test-artifacts/workflows/, at a desktop and a phone width.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from playwright.sync_api import expect

from accounts.models import Organization
from templates_app.models import PdfTemplate
from tests.browser import Tab, none_expected
from tests.conftest import basic_auth
from tests.pdfcheck import text_in_rect, words
from tests.templates_app.conftest import ARTIFACTS
from tests.workflows.conftest import EVENT_KEYS
from workflows.definitions.versions import workflow_import
from workflows.models import Submission, Webform, WebformSubmission, Workflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "workflows"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# Boxes of the demo template (templates_app.engine.demo), page 1, in PDF points.
NAME = {"x": 54, "y": 690, "width": 240, "height": 18}
EMAIL = {"x": 318, "y": 690, "width": 240, "height": 18}
BIRTH_DATE = {"x": 318, "y": 650, "width": 110, "height": 18}
PHONE_BOX = {"x": 448, "y": 650, "width": 110, "height": 18}
AMOUNT = {"x": 54, "y": 570, "width": 110, "height": 18}


@pytest.fixture
def public_base(settings: Any, live_server: Any) -> str:
    """The pages are served on the service's public base URL, as in production."""
    settings.PUBLIC_BASE_URL = live_server.url
    return live_server.url


def form_tab(browser: Any, viewport: dict[str, int], url: str, **options: Any) -> Tab:
    """A tab of ``viewport`` (``options`` as Tab takes them) on the public form at ``url``, once
    the form is ready."""
    tab = Tab(browser, viewport, **options)
    tab.page.goto(url)
    tab.page.wait_for_selector("#wf-form[data-state=ready]")
    return tab


def shoot(tab: Tab, name: str) -> None:
    """A full-page screenshot at the desktop width, and one at the phone width (then back)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = tab.page.viewport_size
    tab.page.screenshot(path=str(SHOTS / f"{name}-desktop.png"))
    tab.page.set_viewport_size(PHONE)
    tab.page.wait_for_timeout(200)
    tab.page.screenshot(path=str(SHOTS / f"{name}-phone.png"))
    tab.page.set_viewport_size(size)
    tab.page.wait_for_timeout(100)


def application(organization: Organization, template: PdfTemplate) -> Workflow:
    """One webform of two steps that fills the demo template, published."""
    data = {
        "slug": "application",
        "name": "Permit application",
        "webforms": [
            {
                "slug": "applicant",
                "name": "Applicant",
                "pages": [
                    {
                        "title": "Contact",
                        "fields": [
                            {"key": "name", "type": "fullName", "label": "Full name",
                             "required": True},
                            {"key": "email", "type": "email", "label": "Email", "required": True},
                            {"key": "phone", "type": "phone", "label": "Phone", "required": True,
                             "helpText": "We call only about this application."},
                        ],
                    },
                    {
                        "title": "Details",
                        "fields": [
                            {"key": "birthDate", "type": "date", "label": "Date of birth",
                             "required": True},
                            {"key": "amount", "type": "dollar", "label": "Fee paid",
                             "required": True, "validation": {"min": 1, "max": 5000}},
                            {"key": "agree", "type": "checkbox", "label": "I agree to the terms",
                             "required": True},
                        ],
                    },
                ],
            }
        ],
        "documents": [
            {
                "template": {"eid": template.eid},
                "title": "Permit",
                "filename": "permit.pdf",
                "mappings": [
                    {"alias": key, "forge": "applicant", "field": key}
                    for key in ("name", "email", "phone", "birthDate", "amount", "agree")
                ],
            }
        ],
    }  # fmt: skip
    workflow, _ = workflow_import(organization=organization, data=data, publish=True)
    return workflow


def open_embedded(tab: Tab, embedder: str, url: str) -> Any:
    tab.page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    frame = tab.page.wait_for_selector("#app-frame").content_frame()
    frame.wait_for_selector("#wf-form[data-state=ready]")
    return frame


def events(tab: Tab, count: int) -> list[dict[str, Any]]:
    tab.page.wait_for_function(f"window.__events.length >= {count}")
    return tab.page.evaluate("window.__events")


def typed(frame: Any) -> dict[str, str]:
    return {
        name: frame.input_value(f"[name='{name}']")
        for name in ("name.firstName", "name.lastName", "email", "phone.num", "phone.region")
    }


def refused_by_the_server(message: Any) -> bool:
    """A page the server refuses comes back with status 400, which Chromium logs as an error."""
    return message.text.endswith("status of 400 (Bad Request)") and "/form/acme/application" in (
        message.location.get("url", "")
    )


def test_a_two_step_webform_in_an_iframe_of_another_origin(
    browser, live_server, public_base, embedder, organization: Organization, demo_template,
    api_key: str,
) -> None:  # fmt: skip
    organization.embed_origins = [embedder]
    organization.save()
    workflow = application(organization, demo_template)
    webform = Webform.objects.get(workflow=workflow)
    tab = Tab(browser, DESKTOP, expected=refused_by_the_server)
    frame = open_embedded(tab, embedder, f"{public_base}/form/acme/application?embedded=true")
    assert frame.inner_text("#wf-step") == "Step 1 of 2: Contact"
    shoot(tab, "01-step-1")

    # Step 1, refused in the browser: nothing is sent, every message is beside its field.
    frame.fill("[name='name.firstName']", "Ada")
    frame.fill("[name='name.lastName']", "Lovelace")
    frame.fill("[name=email]", "ada@example")
    frame.select_option("[name='phone.region']", "GB")
    frame.fill("[name='phone.num']", "020 7946")
    # By the keyboard: the frame (another origin, its height following its content) may move
    # under a click's coordinates on a loaded machine; Enter on the focused button may not miss.
    frame.press("#wf-next", "Enter")
    frame.wait_for_selector("#wf-summary:not([hidden])")
    assert frame.inner_text("#f-email-error") == "Enter an email address, like name@example.com."
    assert frame.inner_text("#f-phone-error") == "Enter a complete phone number for United Kingdom."
    assert frame.is_hidden("#f-name-error")
    assert "There are 2 problems" in frame.inner_text("#wf-summary")
    assert frame.evaluate("document.activeElement.id") == "wf-summary"
    assert frame.get_attribute("#f-email", "aria-invalid") == "true"
    assert Submission.objects.count() == 0
    as_typed = {
        "name.firstName": "Ada",
        "name.lastName": "Lovelace",
        "email": "ada@example",
        "phone.num": "020 7946",
        "phone.region": "GB",
    }
    assert typed(frame) == as_typed
    shoot(tab, "02-step-1-refused-in-the-browser")

    # The same values past the script: the server refuses them with the same messages, and
    # the page comes back with everything as it was typed.
    frame.evaluate("document.getElementById('wf-form').submit()")
    frame.wait_for_selector("#wf-form[data-state=ready]")
    assert frame.inner_text("#f-email-error") == "Enter an email address, like name@example.com."
    assert frame.inner_text("#f-phone-error") == "Enter a complete phone number for United Kingdom."
    assert typed(frame) == as_typed
    assert Submission.objects.count() == 0
    assert tab.page.evaluate("window.__events") == []
    shoot(tab, "03-step-1-refused-by-the-server")

    # Fixed as the messages say; the message goes as soon as the field is right.
    frame.fill("[name=email]", "ada@example.com")
    frame.press("[name=email]", "Tab")
    assert frame.is_hidden("#f-email-error")
    frame.select_option("[name='phone.region']", "US")
    frame.fill("[name='phone.num']", "(415) 555-0132")
    frame.click("#wf-next")
    frame.wait_for_selector("#wf-step:has-text('Step 2 of 2: Details')")
    frame.wait_for_selector("#wf-form[data-state=ready]")
    [submitted_page] = events(tab, 1)
    submission = Submission.objects.get()
    row = WebformSubmission.objects.get()
    assert submission.status == "in-progress"
    assert row.payload["email"] == "ada@example.com"
    assert row.current_step == 1
    assert submitted_page["origin"] == public_base
    # What every event of this submission names.
    ids = {
        "organizationSlug": "acme",
        "organizationEid": organization.eid,
        "weldEid": workflow.eid,
        "weldDataEid": submission.eid,
        "forgeEid": webform.eid,
        "submissionEid": row.eid,
    }
    assert submitted_page["data"] == {
        "action": "forgeSubmitPage",
        **ids,
        "pageId": webform.pages.order_by("position").first().eid,
        "pageIndex": 0,
    }
    # The address in the frame is now the continue URL: a reload resumes here.
    assert frame.url.startswith(f"{public_base}/form/acme/application/{submission.eid}?token=")
    shoot(tab, "04-step-2")

    # Step 2: a fee above the maximum is refused, then the right one passes.
    frame.fill("[name=birthDate]", "1990-12-10")
    frame.fill("[name=amount]", "9,999")
    frame.evaluate("window.__stepTwo = true")  # gone if the page were sent and came back
    frame.click("#wf-next")
    # The click reaches the frame (another origin's process) on its own channel: wait for its
    # messages rather than read the page the instant the click returns.
    expect(frame.locator("#f-amount-error")).to_have_text("Enter a number of at most 5000.")
    expect(frame.locator("#f-agree-error")).to_have_text("Check this box to continue.")
    assert frame.evaluate("window.__stepTwo") is True  # refused in the browser
    frame.fill("[name=amount]", "1,234.50")
    frame.check("[name=agree]")
    frame.click("#wf-next")
    frame.wait_for_selector("#wf-done-title")
    recorded = events(tab, 4)
    assert [e["origin"] for e in recorded] == [public_base] * 4
    assert [e["data"]["action"] for e in recorded] == [
        "forgeSubmitPage",
        "forgeSubmitPage",
        "forgeComplete",
        "weldComplete",
    ]
    submission.refresh_from_db()
    assert submission.status == "completed"
    assert recorded[2]["data"] == {"action": "forgeComplete", **ids}
    assert recorded[3]["data"] == {"action": "weldComplete", **ids}
    assert set(recorded[3]["data"]) == EVENT_KEYS
    assert frame.inner_text("#wf-done-title") == "Thank you"
    assert frame.inner_text("#wf-documents") == "Permit (PDF)"
    shoot(tab, "05-done")
    tab.close()

    # The integrator downloads the documents with its key: the PDF holds what was typed.
    response = Client(HTTP_AUTHORIZATION=basic_auth(api_key)).get(f"/download/{submission.eid}.zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert archive.namelist() == ["permit.pdf"]
        pdf = archive.read("permit.pdf")
    first = words(pdf)[0]
    assert text_in_rect(first, NAME) == "Ada Lovelace"
    assert text_in_rect(first, EMAIL) == "ada@example.com"
    assert text_in_rect(first, PHONE_BOX) == "(415) 555-0132"
    assert text_in_rect(first, BIRTH_DATE) == "December 10, 1990"
    assert text_in_rect(first, AMOUNT) == "$1,234.50"


def test_an_origin_not_allowed_cannot_frame_the_webform(
    browser, live_server, public_base, embedder, organization: Organization, demo_template
) -> None:
    organization.embed_origins = ["https://app.example.com"]
    organization.save()
    application(organization, demo_template)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    url = f"{public_base}/form/acme/application?embedded=true"
    page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    frame = page.wait_for_selector("#app-frame").content_frame()
    page.wait_for_timeout(500)
    assert frame.query_selector("#wf-form") is None  # refused by frame-ancestors
    context.close()


def test_the_embedding_demo_page_lists_the_events(
    browser, live_server, public_base, organization: Organization, demo_template
) -> None:
    from workflows.demo import demo_workflow_create

    workflow = demo_workflow_create(organization=organization, template=demo_template)
    tab = Tab(browser, DESKTOP, expected=none_expected)
    tab.page.goto(f"{public_base}/form/acme/demo-onboarding/embed-demo")
    frame = tab.page.wait_for_selector("#wf-demo-iframe").content_frame()
    frame.wait_for_selector("#wf-form[data-state=ready]")
    frame.fill("[name='name.firstName']", "Grace")
    frame.fill("[name='name.lastName']", "Hopper")
    frame.fill("[name=email]", "grace@example.com")
    frame.click("#wf-next")
    tab.page.wait_for_selector("#wf-demo-events li")

    [event] = tab.page.evaluate("window.__events")
    submission = Submission.objects.get()
    assert event["action"] == "forgeSubmitPage"
    assert event["weldEid"] == workflow.eid
    assert event["weldDataEid"] == submission.eid
    assert '"action":"forgeSubmitPage"' in tab.page.inner_text("#wf-demo-events")
    frame.wait_for_selector("#wf-step:has-text('Step 2 of 3: Identity')")
    shoot(tab, "06-embedding-demo")
    tab.close()
