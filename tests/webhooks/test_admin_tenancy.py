"""The webhook admin for staff of the endpoint's own organization: the owner manages it (URL,
token, resend), a member sees it with the token cut short and changes nothing; superusers see
every organization's. The outsider's side is walked for every admin in
tests/test_admin_every_modeladmin.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.urls import reverse

from accounts.models import Membership, Organization, User
from tests.accounts.test_admin_tenancy import PASSWORD, client_of, shown
from tests.staff import staff_member
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import endpoint_url_set, event_emit

ACME_URL = "https://acme.example/hook"


def staff_of(organization: Organization, role: str) -> User:
    return staff_member(organization, f"acme-{role}", role, ["webhooks"], PASSWORD)


@pytest.fixture
def endpoint(organization: Organization) -> WebhookEndpoint:
    return endpoint_url_set(organization=organization, url=ACME_URL)


@pytest.mark.parametrize(
    ("role", "manages"), [(Membership.Role.OWNER, True), (Membership.Role.MEMBER, False)]
)
def test_the_token_in_full_only_for_those_who_manage(organization, endpoint, role, manages):
    page = client_of(staff_of(organization, role)).get(
        reverse("admin:webhooks_webhookendpoint_change", args=[endpoint.pk])
    )

    html = page.content.decode()
    assert page.status_code == 200
    assert (endpoint.token in html) is manages
    assert (f"{endpoint.token[:4]}…" in html) is not manages
    assert page.context["has_change_permission"] is manages


@pytest.mark.parametrize(
    ("role", "manages"), [(Membership.Role.OWNER, True), (Membership.Role.MEMBER, False)]
)
def test_changing_the_url(organization, endpoint, role, manages) -> None:
    response = client_of(staff_of(organization, role)).post(
        reverse("admin:webhooks_webhookendpoint_change", args=[endpoint.pk]),
        {"url": "https://elsewhere.example/hook", "public_key_pem": "", "disabled_at": ""},
    )

    endpoint.refresh_from_db()
    assert response.status_code == (302 if manages else 403)
    assert endpoint.url == ("https://elsewhere.example/hook" if manages else ACME_URL)


@pytest.mark.parametrize(
    ("role", "manages"), [(Membership.Role.OWNER, True), (Membership.Role.MEMBER, False)]
)
def test_resending(
    organization, role, manages, django_capture_on_commit_callbacks: Callable
) -> None:
    event_emit(organization=organization, action="weldComplete", data={"eid": "x"})
    delivery = WebhookDelivery.objects.get()

    with django_capture_on_commit_callbacks(execute=False):
        response = client_of(staff_of(organization, role)).post(
            reverse("admin:webhooks_webhookdelivery_changelist"),
            {"action": "resend", "_selected_action": [delivery.pk]},
            follow=True,
        )

    assert WebhookDelivery.objects.count() == (2 if manages else 1)
    if not manages:
        assert "only an owner or admin of acme" in shown(response)


def test_superusers_see_every_organizations_deliveries(organization, other_organization):
    for org in (organization, other_organization):
        event_emit(organization=org, action="weldComplete", data={"eid": org.slug})
    root = User.objects.create_superuser(username="root", password=PASSWORD)

    listing = client_of(root).get(reverse("admin:webhooks_webhookdelivery_changelist"))

    assert sorted(d.organization.slug for d in listing.context["cl"].result_list) == [
        "acme",
        "globex",
    ]
