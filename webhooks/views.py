"""The webhook sections of the organization's settings page (accounts.settings): the endpoint
(URL, token, signing secrets, the integrator's public key) and the delivery log, with their
changes. The page, its access rules and its other sections are accounts'; this module adds
its own through :func:`settings_sections_add`, called from ``WebhooksConfig.ready()``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import OuterRef, Prefetch, Subquery
from django.http import HttpRequest, HttpResponse
from django.utils.http import urlencode

from accounts.models import Membership, Organization
from accounts.settings.sections import (
    settings_context_add,
    settings_part_add,
    settings_section_add,
)
from accounts.settings.views import actor, back, changed, changes, section
from core.errors import ValidationFailed
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEvent
from webhooks.services.endpoints import (
    NO_URL_REASON,
    endpoint_get,
    endpoint_public_key_set,
    endpoint_token_rotate,
    endpoint_url_in_force,
    endpoint_url_set,
    secret_rotate,
    secrets_current,
)
from webhooks.services.events import (
    EXTENSION_ACTIONS,
    deliveries_filter,
    delivery_get,
    delivery_resend,
    webhook_test,
)
from webhooks.services.replay import REPLAY_PREFIX

LOG_PAGE_SIZE = 20
MAX_KEY_UPLOAD_BYTES = 10_000


def settings_sections_add() -> None:
    """Put the webhook sections on the settings page: the endpoint after the API keys, the
    integrator's public key inside Encryption, the delivery log after Embedding."""
    settings_section_add(
        anchor="webhook", label="Webhooks", template="webhooks/settings/webhook.html", order=20
    )
    settings_part_add(section="encryption", template="webhooks/settings/encryption.html")
    settings_section_add(
        anchor="log", label="Delivery log", template="webhooks/settings/log.html", order=50
    )
    settings_context_add(webhook_settings_context)


def webhook_settings_context(request: HttpRequest, organization: Organization) -> dict[str, Any]:
    """What the webhook sections show: the endpoint, the secrets and a page of the log."""
    endpoint = endpoint_get(organization=organization)
    organization_url, _ = endpoint_url_in_force(endpoint)
    filters = {
        "status": request.GET.get("status", ""),
        "action": request.GET.get("action", ""),
        "q": request.GET.get("q", "")[:100],
    }
    deliveries = deliveries_filter(
        organization=organization,
        status=filters["status"],
        action=filters["action"],
        search=filters["q"],
    ).prefetch_related(Prefetch("attempts", queryset=WebhookAttempt.objects.order_by("number")))
    # Whether a delivery is its event's first (a test someone sent) or a later one (resent).
    first_of_event = WebhookDelivery.objects.filter(event=OuterRef("event")).order_by("id")
    deliveries = deliveries.annotate(first_id=Subquery(first_of_event.values("id")[:1]))
    log = Paginator(deliveries, LOG_PAGE_SIZE).get_page(request.GET.get("page"))
    for delivery in log:
        delivery.origin = _origin(delivery)
        # "No webhook URL is set." on every row says less than the one note above the log.
        delivery.note = (
            ""
            if delivery.status == WebhookDelivery.Status.DELIVERED
            or (not organization_url and delivery.last_error == NO_URL_REASON)
            else delivery.last_error
        )
        # Resending goes to the event's own URL or the organization's: offered only when one
        # is in force, and not while the delivery is still being tried.
        delivery.resendable = delivery.status != WebhookDelivery.Status.PENDING and bool(
            delivery.event.webhook_url or organization_url
        )
    return {
        "endpoint": endpoint,
        "url_in_force": organization_url,
        "signing_secrets": secrets_current(organization=organization),
        "log": log,
        "filters": filters,
        "filter_query": urlencode({k: v for k, v in filters.items() if v}),
        "statuses": WebhookDelivery.Status.choices,
        # The spec's events, then this service's extensions (the seal's), as the filter takes.
        "actions": [*WebhookEvent.Action.values, *sorted(EXTENSION_ACTIONS)],
    }


def _origin(delivery: Any) -> str:
    """Who asked for a delivery, in words: "" for an event's own delivery."""
    if not delivery.requested_by:
        return ""
    if delivery.requested_by.startswith(REPLAY_PREFIX):
        return delivery.requested_by  # "Replay by ...", a resend among many
    if delivery.pk != delivery.first_id:
        return f"Resent by {delivery.requested_by}"
    if delivery.event.action == WebhookEvent.Action.WEBHOOK_TEST:
        return f"Test sent by {delivery.requested_by}"
    return f"Sent by {delivery.requested_by}"


@changes
@section("webhook", controls={"url": "webhook_url"})
def webhook_url_save(request: HttpRequest, membership: Membership) -> HttpResponse:
    endpoint_url_set(organization=membership.organization, url=request.POST.get("url", ""))
    return changed(request, membership, "webhook", "Webhook URL saved.")


@changes
@section("webhook")
def webhook_token_rotate(request: HttpRequest, membership: Membership) -> HttpResponse:
    endpoint_token_rotate(organization=membership.organization)
    return changed(
        request, membership, "webhook", "New webhook token: deliveries carry it from now on."
    )


@changes
@section("webhook")
def webhook_secret_rotate(request: HttpRequest, membership: Membership) -> HttpResponse:
    secret_rotate(organization=membership.organization)
    return changed(
        request,
        membership,
        "webhook",
        "New signing secret. The previous one also signs until its expiry shown below.",
    )


@changes
@section("webhook")
def webhook_send_test(request: HttpRequest, membership: Membership) -> HttpResponse:
    delivery = webhook_test(organization=membership.organization, requested_by=actor(request))
    if delivery.status == WebhookDelivery.Status.SKIPPED:
        messages.warning(request, f"Test event recorded but not sent: {delivery.last_error}")
        return back(membership.organization.slug, "log")
    return changed(request, membership, "log", "Test event queued; it appears in the delivery log.")


@changes
@section(
    "encryption", controls={"publicKey": "public_key"}, targets={"public_key": "public-key-text"}
)
def webhook_public_key_save(request: HttpRequest, membership: Membership) -> HttpResponse:
    if request.POST.get("remove"):
        pem = ""
    else:
        upload = request.FILES.get("public_key_file")
        if upload is not None:
            if upload.size is None or upload.size > MAX_KEY_UPLOAD_BYTES:
                raise ValidationFailed.single("publicKey", "The key file is too large.")
            pem = upload.read().decode("ascii", errors="replace")
        else:
            pem = request.POST.get("public_key", "")
        if not pem.strip():
            raise ValidationFailed.single("publicKey", "Choose a PEM file or paste the key.")
    endpoint_public_key_set(organization=membership.organization, pem=pem)
    return changed(
        request,
        membership,
        "encryption",
        "Webhook data is now encrypted with your public key."
        if pem
        else "Public key removed: webhook data is sent unencrypted.",
    )


@changes
@section("log")
def delivery_resend_view(request: HttpRequest, membership: Membership, eid: str) -> HttpResponse:
    delivery = delivery_get(organization=membership.organization, eid=eid)
    resent = delivery_resend(delivery=delivery, requested_by=actor(request))
    return changed(
        request, membership, "log", f"Event {delivery.event.eid} resent (log {resent.eid})."
    )
