"""Issue 24 in a real browser (Chromium via Playwright): Back never blocks and marks nothing,
only the required parts of an address are marked, a phone's photo is made small enough in the
browser and kept after another field's error, and the last page sums up the answers.
Screenshots go to test-artifacts/workflows/issue24-*-{desktop,phone}.png."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import Tab
from tests.workflows.test_phone_photos import phone_photo
from tests.workflows.test_public_uploads import badge_create
from tests.workflows.test_webform_browser import DESKTOP, public_base, shoot  # noqa: F401
from workflows.demo import demo_workflow_create
from workflows.models import WebformSubmission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def refused(message: Any) -> bool:
    return message.text.endswith("status of 400 (Bad Request)")


def test_back_never_blocks_and_marks_only_required_parts(
    browser, public_base, organization, demo_template  # noqa: F811
) -> None:  # fmt: skip
    demo_workflow_create(organization=organization, template=demo_template)
    tab = Tab(browser, DESKTOP, expected=refused)
    page = tab.page
    page.goto(f"{public_base}/form/acme/demo-onboarding")
    page.fill("[name='name.firstName']", "Ada")
    page.fill("[name='name.lastName']", "Lovelace")
    page.fill("[name=email]", "ada@example.com")
    page.click("#wf-next")
    page.wait_for_selector("text=Step 2 of 3")

    # A half-typed address and date: Back goes back, with no message.
    page.fill("[name='address.street1']", "12 Analytical")
    page.fill("[name=birthDate]", "1990-12-10")
    page.click("#wf-back")
    page.wait_for_selector("text=Step 1 of 3")
    assert page.is_hidden("#wf-summary")
    shoot(tab, "issue24-3-back-never-blocks")
    assert WebformSubmission.objects.get().draft["address"]["address.street1"] == "12 Analytical"

    # Forward: what was typed is there; Next marks only the missing required parts.
    page.click("#wf-next")
    page.wait_for_selector("text=Step 2 of 3")
    assert page.input_value("[name='address.street1']") == "12 Analytical"
    page.click("#wf-next")
    page.wait_for_selector("#wf-summary:not([hidden])")
    invalid = page.eval_on_selector_all(
        "#wf-form [aria-invalid=true]", "els => els.map(e => e.name)"
    )
    assert set(invalid) >= {"address.city", "address.state", "address.zip"}
    assert "address.street1" not in invalid
    assert "address.street2" not in invalid
    shoot(tab, "issue24-3-only-required-parts-marked")
    tab.close()


def test_a_phone_photo_is_made_smaller_and_kept_then_a_summary(
    browser, public_base, organization, demo_template, tmp_path  # noqa: F811
) -> None:  # fmt: skip
    badge_create(organization, demo_template)
    photo = tmp_path / "IMG_0001.jpg"
    photo.write_bytes(phone_photo())
    assert photo.stat().st_size > 2_000_000
    tab = Tab(browser, DESKTOP, expected=refused)
    page = tab.page
    page.goto(f"{public_base}/form/acme/badge")
    page.wait_for_selector("#wf-form[data-state=ready]")
    page.set_input_files("[name='photo.file']", str(photo))
    page.wait_for_selector("#f-photo-note:not([hidden])")
    assert "Made smaller to send" in page.inner_text("#f-photo-note")
    size = page.evaluate("document.querySelector(\"[name='photo.file']\").files[0].size")
    assert size <= 72_000
    assert page.is_hidden("#f-photo-error")

    # Another field is wrong: the photo stays chosen (and the server keeps it too).
    page.fill("[name=email]", "ada@")
    page.click("#wf-next")
    page.wait_for_selector("#wf-summary:not([hidden])")
    assert page.evaluate("document.querySelector(\"[name='photo.file']\").files.length") == 1
    shoot(tab, "issue24-4-photo-kept-after-another-error")

    page.fill("[name=email]", "ada@example.com")
    page.click("#wf-next")
    page.wait_for_selector("#wf-answers")
    assert "Your answers" in page.inner_text("#wf-answers")
    assert "ada@example.com" in page.inner_text("#wf-answers")
    assert WebformSubmission.objects.get().payload["photo"].startswith("data:image/jpeg")
    shoot(tab, "issue24-5-summary-and-documents")
    tab.close()
