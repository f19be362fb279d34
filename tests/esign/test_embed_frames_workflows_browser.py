"""The published embed frame hosting a workflow (see test_embed_frames_browser.py): the documented
workflow example hears the workflow's events, and an embedded workflow's signer is heard by the
embed frame as an object."""

from __future__ import annotations

import pytest

from accounts.models import Organization
from templates_app.engine.demo import build_demo_template
from templates_app.services import template_create_with_spec
from tests.browser import Tab
from tests.esign.test_embed_frames_browser import app as app  # noqa: F401 - the fixture
from tests.esign.test_embed_frames_browser import app_url
from tests.esign.test_signing_browser import DESKTOP, events
from workflows.demo import demo_workflow_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_documented_workflow_example_hears_the_workflows_events(
    browser, live_server, app: str, organization: Organization, settings
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    organization.embed_origins = [app]
    organization.save()
    pdf, spec = build_demo_template()
    template = template_create_with_spec(
        organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
    )
    workflow = demo_workflow_create(organization=organization, template=template)
    url = f"{live_server.url}/form/acme/{workflow.slug}?embedded=true"
    tab = Tab(browser, DESKTOP)
    tab.page.goto(app_url(app, "workflow", url, live_server.url))
    frame = tab.page.wait_for_selector("iframe").content_frame()
    frame.fill("[name='name.firstName']", "Ada")
    frame.fill("[name='name.lastName']", "Lovelace")
    frame.fill("[name='email']", "ada@example.com")
    frame.fill("[name='phone.num']", "415 555 0132")
    frame.get_by_role("button", name="Next").click()
    [event] = [e["data"] for e in events(tab, 1)]
    assert event["action"] == "forgeSubmitPage"
    assert event["weldEid"] == workflow.eid
    assert event["pageIndex"] == 0
    tab.close()


def test_an_embedded_workflows_signer_is_heard_by_the_embed_frame_as_an_object(
    browser, live_server, app: str, organization: Organization, demo_template, settings, tmp_path
) -> None:
    # The workflow's signing link is its own (embedded=true), not the legacy frame's
    # (withinIframe=true, which gets the string only): the embed frame hears the object.
    from tests.workflows.test_signing_step import nda

    settings.PUBLIC_BASE_URL = live_server.url
    settings.SEAL_DEV_DIR = tmp_path / "seal-dev"
    organization.embed_origins = [app]
    organization.save()
    nda(organization, demo_template)
    url = f"{live_server.url}/form/acme/nda?embedded=true"
    tab = Tab(browser, DESKTOP)
    tab.page.goto(app_url(app, "workflow", url, live_server.url))
    frame = tab.page.wait_for_selector("iframe").content_frame()
    frame.fill("[name='name.firstName']", "Ada")
    frame.fill("[name='name.lastName']", "Lovelace")
    frame.fill("[name='email']", "ada@example.com")
    frame.click("#wf-next")
    frame.wait_for_selector("#wf-sign")
    frame.click("#wf-sign")
    frame.wait_for_selector("#signing[data-state=ready]")
    frame.click(".sg-field[data-key$='/sig1']")
    frame.wait_for_selector("#sg-adopt[open]")
    pad = frame.locator("#sg-pad").bounding_box()
    tab.page.mouse.move(pad["x"] + 20, pad["y"] + 40)
    tab.page.mouse.down()
    tab.page.mouse.move(pad["x"] + 150, pad["y"] + 20, steps=5)
    tab.page.mouse.up()
    frame.click("#sg-adopt-ok")
    frame.click("#sg-finish")
    tab.page.wait_for_function(
        "window.__events.some((e) => e.data.action === 'signerComplete')", timeout=30_000
    )
    actions = [e["data"]["action"] for e in tab.page.evaluate("window.__events")]
    assert actions[:3] == ["forgeSubmitPage", "forgeComplete", "signerComplete"]
    tab.close()
