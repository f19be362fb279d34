"""The settings page's delivery log: who asked for a delivery, said truthfully (a test is "Test
sent by", a resend "Resent by"); Resend offered only where the event could go; pages of 20."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Organization, User
from webhooks.models import WebhookDelivery
from webhooks.services import delivery_resend, endpoint_url_set, event_emit, webhook_test

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner_client(owner: User) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def page(client: Client, query: str = "") -> str:
    response = client.get(reverse("settings:page", args=["acme"]) + query)
    assert response.status_code == 200
    return response.content.decode()


def row(html: str, eid: str) -> str:
    return re.search(rf'<tr data-delivery="{eid}">(.*?)</tr>', html, re.S).group(1)


def test_a_test_event_is_labelled_as_sent_and_its_resend_as_resent(
    owner_client: Client, organization: Organization
) -> None:
    endpoint_url_set(organization=organization, url="https://hooks.example.com/in")
    test = webhook_test(organization=organization, requested_by="olivia (settings page)")
    WebhookDelivery.objects.filter(pk=test.pk).update(status="failed")
    test.refresh_from_db()
    again = delivery_resend(delivery=test, requested_by="root (admin)")
    own = event_emit(organization=organization, action="weldCreate", data={}).deliveries.get()

    html = page(owner_client)

    assert "Test sent by olivia (settings page)" in row(html, test.eid)
    assert "esent" not in row(html, test.eid)
    assert "Resent by root (admin)" in row(html, again.eid)
    assert 'class="muted origin"' not in row(html, own.eid)  # the event's own delivery


def test_resend_is_offered_only_where_the_event_could_go(
    owner_client: Client, organization: Organization
) -> None:
    not_sent = event_emit(organization=organization, action="weldCreate", data={}).deliveries.get()
    own_url = event_emit(
        organization=organization,
        action="signerComplete",
        data={},
        webhook_url="https://hooks.example.com/own",
    ).deliveries.get()
    WebhookDelivery.objects.filter(pk=own_url.pk).update(status="failed")

    html = page(owner_client)

    assert "Resend" not in row(html, not_sent.eid)
    assert "Resend" in row(html, own_url.eid)
    assert 'id="log-no-url"' in html
    endpoint_url_set(organization=organization, url="https://hooks.example.com/in")
    html = page(owner_client)
    assert "Resend" in row(html, not_sent.eid)
    assert 'id="log-no-url"' not in html


def test_the_log_is_paged_by_20_and_filtered(
    owner_client: Client, organization: Organization
) -> None:
    for n in range(45):
        event_emit(organization=organization, action="weldCreate", data={"n": n})
    webhook_test(organization=organization, requested_by="olivia (settings page)")

    first = page(owner_client)
    last = page(owner_client, "?page=3")
    tests_only = page(owner_client, "?action=webhookTest")

    assert first.count("<tr data-delivery=") == 20
    assert "Page 1 of 3" in first
    assert last.count("<tr data-delivery=") == 6
    assert tests_only.count("<tr data-delivery=") == 1
    assert "1 delivery, newest first" in tests_only


def test_the_action_filter_offers_the_seal_events_and_filters_by_them(
    owner_client: Client, organization: Organization
) -> None:
    sealed = event_emit(organization=organization, action="etchPacketSealed", data={})
    event_emit(organization=organization, action="etchPacketComplete", data={})

    html = page(owner_client, "?action=etchPacketSealed")

    options = re.search(r'<select id="f-action" name="action">(.*?)</select>', html, re.S)
    values = re.findall(r'<option value="([^"]*)"', options.group(1))
    assert {
        "etchPacketSealFailed",
        "etchPacketSealed",
        "generatePdfJobFinished",
        "signerForwarded",
    } <= set(values)
    assert '<option value="etchPacketSealed" selected>' in html
    assert re.findall(r'<tr data-delivery="(\w+)">', html) == [sealed.deliveries.get().eid]
