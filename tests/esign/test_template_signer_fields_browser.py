"""The signing page of a packet whose file is a template with signer fields, in a real browser:
the real form's own signature field, a signer name and a date signed, shown where the template
has them, signed, and stamped there in the sealed PDF."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.conf import settings

from esign.models import Packet
from esign.sealing.seal import packet_seal
from tests.browser import Tab
from tests.esign.conftest import CREATE
from tests.esign.test_template_signer_fields import (
    DATE_RECT,
    NAME_RECT,
    field_of,
    packet_variables,
    signer_fields_sample,
)
from tests.pdfcheck import text_in_rect, words
from tests.templates_app.conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "esign"
SCREENS = {
    "desktop": ({"width": 1280, "height": 860}, {}),
    "phone": ({"width": 390, "height": 844}, {"is_mobile": True, "has_touch": True}),
}


@pytest.mark.parametrize("screen", SCREENS)
def test_a_template_signature_field_is_shown_signed_and_stamped_where_the_form_has_it(
    browser, live_server, graphql, sign_url, api_client, organization, screen
) -> None:
    template = signer_fields_sample(organization)
    signature = field_of(template, "signature")
    key = f"record/{signature['id']}"
    result = graphql(CREATE, packet_variables(template, [signature["id"], "nm1", "dt1"]))
    assert "errors" not in result, result
    packet = result["data"]["createEtchPacket"]
    [signer] = packet["documentGroup"]["signers"]
    url = sign_url(signer["eid"]).replace(settings.PUBLIC_BASE_URL, live_server.url)

    viewport, device = SCREENS[screen]
    tab = Tab(browser, viewport, **device)
    tab.page.goto(url)
    tab.page.wait_for_selector("#signing[data-state=ready]")
    tab.page.wait_for_selector(".sg-page.is-rendered")
    keys = tab.page.eval_on_selector_all(".sg-field", "(els) => els.map((e) => e.dataset.key)")
    assert sorted(keys) == sorted([key, "record/nm1", "record/dt1"])
    # The field sits on the page where the form's /Sig widget was.
    field = tab.page.locator(f".sg-field[data-key='{key}']")
    field.scroll_into_view_if_needed()
    page_box = tab.page.locator(".sg-page").first.bounding_box()
    box = field.bounding_box()
    scale = page_box["width"] / 612
    rect = signature["rect"]
    assert box["x"] - page_box["x"] == pytest.approx(rect["x"] * scale, abs=2)
    assert box["y"] - page_box["y"] == pytest.approx(
        (792 - rect["y"] - rect["height"]) * scale, abs=2
    )
    assert box["width"] == pytest.approx(rect["width"] * scale, abs=2)

    field.click()  # a click (a tap on a phone) on the signature field adopts there
    tab.page.wait_for_selector("#sg-adopt[open]")
    assert tab.page.input_value("#sg-typed") == "Ada Lovelace"
    tab.page.click("#sg-adopt-ok")
    assert tab.page.inner_text(f".sg-field[data-key='{key}'] .sg-hand") == "Ada Lovelace"
    # The signing date fills itself: it is not one of the signer's steps.
    assert "All 2 fields completed" in tab.page.inner_text("#sg-count")
    tab.page.wait_for_timeout(300)
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"template-signature-field-ready-{screen}.png"))
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=done]")
    tab.close()

    stored = Packet.objects.get(eid=packet["eid"])
    assert stored.status == "completed"
    assert packet_seal(packet_id=stored.pk).startswith("sealed")
    zip_url = packet["documentGroup"]["downloadZipURL"].replace(settings.PUBLIC_BASE_URL, "")
    response = api_client.get(zip_url)
    assert response.status_code == 200
    pdf = zipfile.ZipFile(io.BytesIO(response.content)).read("record.pdf")
    page: list[Any] = words(pdf)[0]
    assert "Ada" in text_in_rect(page, rect, tolerance=2)
    assert text_in_rect(page, NAME_RECT) == "Ada Lovelace"
    assert text_in_rect(page, DATE_RECT) == stored.completed_at.strftime("%Y-%m-%d")
