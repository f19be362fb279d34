"""The admin lists deliveries with their attempts and resends them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Organization, User
from webhooks.models import WebhookDelivery
from webhooks.services import event_emit


@pytest.fixture
def admin_client_(db: None) -> Client:
    user = User.objects.create_superuser(username="root", password="x" * 20)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_admin_resends_a_delivery_and_shows_its_attempts(
    organization: Organization,
    admin_client_: Client,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    event_emit(organization=organization, action="weldComplete", data={"eid": "x"})
    delivery = WebhookDelivery.objects.get()

    listing = admin_client_.get(reverse("admin:webhooks_webhookdelivery_changelist"))
    page = admin_client_.get(reverse("admin:webhooks_webhookdelivery_change", args=[delivery.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client_.post(
            reverse("admin:webhooks_webhookdelivery_changelist"),
            {"action": "resend", "_selected_action": [delivery.pk]},
        )

    assert listing.status_code == page.status_code == 200
    assert delivery.eid in listing.content.decode()
    assert "No webhook URL is set." in page.content.decode()
    assert response.status_code == 302
    resent = WebhookDelivery.objects.exclude(pk=delivery.pk).get()
    assert (resent.event_id, resent.requested_by) == (delivery.event_id, "root (admin)")
    for name in ("webhookevent", "webhookendpoint"):
        assert admin_client_.get(reverse(f"admin:webhooks_{name}_changelist")).status_code == 200
