"""Admin for webhooks: endpoints, events and their deliveries with every attempt; resend.

Scoped like every admin of an organization's rows (``accounts.staff_admin``): a staff user who
is not a superuser sees the endpoints, events and deliveries of their organizations, and only
an owner or admin of the organization changes its endpoint, resends its deliveries or deletes
them. As on the settings page, the others see the first characters of the endpoint's token.
Events are replayed (sent again, paced, with their own webhook-id) by their owners and admins:
filter the events by action and date, select them, and run the action (at most
WEBHOOK_REPLAYS_PER_HOUR replays of an organization an hour, the API's included).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.staff_admin import OrganizationOwnedAdmin, ReadOnlyInline, manages, may_manage
from core.errors import RateLimited, ValidationFailed
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import (
    check_webhook_url,
    delivery_resend,
    events_replay,
)

# The token's characters shown to those who do not manage the organization (settings page too).
TOKEN_SHOWN = 4


class WebhookEndpointForm(forms.ModelForm):
    def clean_url(self) -> str:
        """Refused here as on the settings page: a URL deliveries could never reach."""
        url = self.cleaned_data.get("url") or ""
        if not url:
            return url
        try:
            return check_webhook_url(url, property="url")
        except ValidationFailed as failure:
            raise forms.ValidationError(" ".join(f.message for f in failure.fields)) from None


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(OrganizationOwnedAdmin):
    form = WebhookEndpointForm
    list_display = ["organization", "url", "disabled_at", "updated_at"]
    list_select_related = ["organization"]
    search_fields = ["organization__slug", "url"]
    readonly_fields = ["organization", "token", "token_start", "created_at", "updated_at"]
    fields = ["organization", "url", "token", "public_key_pem", "disabled_at", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made on first use, with a token

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_fields(request, obj))
        if obj is None or may_manage(request, obj.organization):
            return fields
        return ["token_start" if name == "token" else name for name in fields]

    @admin.display(description="token")
    def token_start(self, endpoint: WebhookEndpoint) -> str:
        return f"{endpoint.token[:TOKEN_SHOWN]}…"


class WebhookAttemptInline(ReadOnlyInline):
    model = WebhookAttempt
    fields = [
        "number",
        "outcome",
        "status_code",
        "duration_ms",
        "error",
        "response_excerpt",
        "started_at",
        "finished_at",
    ]
    readonly_fields = fields


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(OrganizationOwnedAdmin):
    list_display = [
        "eid",
        "organization",
        "action",
        "status",
        "attempt_count",
        "last_status_code",
        "created_at",
    ]
    list_filter = ["status", "event__action"]
    list_select_related = ["organization", "event"]
    search_fields = ["eid", "event__eid", "url", "organization__slug"]
    readonly_fields = [
        "eid",
        "event",
        "organization",
        "url",
        "status",
        "attempt_count",
        "next_attempt_at",
        "claimed_until",
        "last_status_code",
        "last_error",
        "delivered_at",
        "requested_by",
        "created_at",
    ]
    fields = readonly_fields
    inlines = [WebhookAttemptInline]
    actions = ["resend"]

    @admin.display(description="action", ordering="event__action")
    def action(self, delivery: WebhookDelivery) -> str:
        return delivery.event.action

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    # "view": a delivery is never changed, only sent again; who may is checked by ``manages``.
    @admin.action(description="Resend the selected deliveries' events", permissions=["view"])
    def resend(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        deliveries = list(queryset.select_related("event", "organization"))
        if not manages(request, {delivery.organization for delivery in deliveries}):
            return
        for delivery in deliveries:
            delivery_resend(delivery=delivery, requested_by=f"{request.user} (admin)")
        messages.success(request, f"Resent {len(deliveries)} event(s); see the new deliveries.")


class WebhookDeliveryInline(ReadOnlyInline):
    model = WebhookDelivery
    fields = ["eid", "url", "status", "attempt_count", "last_status_code", "created_at"]
    readonly_fields = fields
    show_change_link = True


@admin.register(WebhookEvent)
class WebhookEventAdmin(OrganizationOwnedAdmin):
    list_display = ["eid", "organization", "action", "created_at"]
    list_filter = ["action", "created_at"]
    date_hierarchy = "created_at"
    list_select_related = ["organization"]
    search_fields = ["eid", "organization__slug"]
    readonly_fields = ["eid", "organization", "action", "data", "webhook_url", "created_at"]
    fields = readonly_fields
    inlines = [WebhookDeliveryInline]
    actions = ["replay"]

    # "view": an event is never changed, only sent again; who may is checked by ``manages``.
    @admin.action(
        description="Replay the selected events (paced, oldest first, same webhook-id)",
        permissions=["view"],
    )
    def replay(self, request: HttpRequest, queryset: QuerySet[WebhookEvent]) -> None:
        limit = settings.WEBHOOK_REPLAY_MAX_EVENTS
        events = list(queryset.select_related("organization").order_by("created_at", "id"))
        if len(events) > limit:
            messages.error(request, f"At most {limit} events at once; filter a narrower range.")
            return
        if not manages(request, {event.organization for event in events}):
            return
        try:
            replayed = events_replay(events=events, requested_by=f"{request.user} (admin)")
        except RateLimited as capped:  # WEBHOOK_REPLAYS_PER_HOUR: nothing was sent
            messages.error(request, capped.message)
            return
        due = f"; the last is due at {replayed.last_due:%Y-%m-%d %H:%M:%S} UTC" if events else ""
        messages.success(
            request, f"Replaying {len(events)} event(s), see their new deliveries{due}."
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
