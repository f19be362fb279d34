"""A workflow's links over time: the done page shows one kept signing link (not one per view),
and continue links expire and can be ended."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Organization
from esign.models import AuditEvent, SignerToken
from templates_app.models import PdfTemplate
from tests.staff import admin_action, superuser_client
from tests.workflows.test_signing_step import config, nda, submit_nda
from workflows.models import Submission
from workflows.submissions.links import continue_token, submission_links_rotate

pytestmark = pytest.mark.django_db


def _submit(organization: Organization, template: PdfTemplate) -> tuple[Client, Submission, str]:
    workflow = nda(organization, template)
    client = Client()
    done = submit_nda(client, workflow)
    return client, Submission.objects.get(), config(done)["signUrl"]


def test_the_done_page_shows_one_kept_link_not_one_per_view(
    organization: Organization, demo_template: PdfTemplate
) -> None:
    client, submission, first = _submit(organization, demo_template)
    page = f"/form/acme/nda/{submission.eid}?token={continue_token(submission)}"

    again = [config(client.get(page))["signUrl"] for _ in range(3)]

    assert again == [first] * 3
    assert SignerToken.objects.count() == 1
    assert AuditEvent.objects.filter(action="signingUrlCreated").count() == 1

    # Once it is about to expire, the next view gets a new one (and audits it).
    SignerToken.objects.update(expires_at=timezone.now() + timedelta(minutes=5))
    renewed = config(client.get(page))["signUrl"]
    assert renewed != first
    assert SignerToken.objects.count() == 2
    assert AuditEvent.objects.filter(action="signingUrlCreated").count() == 2
    assert client.get(renewed.removeprefix("http://127.0.0.1:8000")).status_code == 200


def test_continue_links_expire(
    organization: Organization, demo_template: PdfTemplate, settings
) -> None:
    client, submission, _ = _submit(organization, demo_template)
    old = continue_token(submission, now=timezone.now() - timedelta(days=31))
    fresh = continue_token(submission)

    assert client.get(f"/form/acme/nda/{submission.eid}?token={fresh}").status_code == 200
    expired = client.get(f"/form/acme/nda/{submission.eid}?token={old}")
    assert expired.status_code == 404
    assert "expired" in expired.content.decode()
    tampered = fresh.split(".")[0] + "." + "0" * 40
    assert client.get(f"/form/acme/nda/{submission.eid}?token={tampered}").status_code == 404


def test_ending_the_continue_links_of_a_submission(
    organization: Organization, demo_template: PdfTemplate
) -> None:
    client, submission, _ = _submit(organization, demo_template)
    before = continue_token(submission)

    submission_links_rotate(submission=submission)

    assert client.get(f"/form/acme/nda/{submission.eid}?token={before}").status_code == 404
    after = continue_token(Submission.objects.get(pk=submission.pk))
    assert client.get(f"/form/acme/nda/{submission.eid}?token={after}").status_code == 200


def test_the_admin_ends_continue_links(
    organization: Organization, demo_template: PdfTemplate
) -> None:
    client, submission, _ = _submit(organization, demo_template)
    before = continue_token(submission)
    browser = superuser_client()

    done = admin_action(
        browser, "/admin/workflows/submission/", "end_continue_links", submission.pk
    )

    assert "Ended the continue links of 1 submission(s)." in done.content.decode()
    assert client.get(f"/form/acme/nda/{submission.eid}?token={before}").status_code == 404
