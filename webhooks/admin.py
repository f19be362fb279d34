"""Admin for webhooks: endpoints, events and their deliveries with every attempt; resend."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import delivery_resend


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ["organization", "url", "disabled_at", "updated_at"]
    list_select_related = ["organization"]
    search_fields = ["organization__slug", "url"]
    readonly_fields = ["organization", "token", "created_at", "updated_at"]
    fields = ["organization", "url", "token", "public_key_pem", "disabled_at", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made on first use, with a token


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    can_delete = False
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

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
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

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.action(description="Resend the selected deliveries' events", permissions=["view"])
    def resend(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        count = 0
        for delivery in queryset.select_related("event", "organization"):
            delivery_resend(delivery=delivery, requested_by=f"{request.user} (admin)")
            count += 1
        messages.success(request, f"Resent {count} event(s); see the new deliveries.")


class WebhookDeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    extra = 0
    can_delete = False
    fields = ["eid", "url", "status", "attempt_count", "last_status_code", "created_at"]
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(WebhookEvent)
class WebhookEventAdmin(admin.ModelAdmin):
    list_display = ["eid", "organization", "action", "created_at"]
    list_filter = ["action"]
    list_select_related = ["organization"]
    search_fields = ["eid", "organization__slug"]
    readonly_fields = ["eid", "organization", "action", "data", "webhook_url", "created_at"]
    fields = readonly_fields
    inlines = [WebhookDeliveryInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
