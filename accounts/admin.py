"""Admin for organizations, members and API keys. A new key is shown once, in a message."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import ApiKey, Membership, Organization, PayloadKeyPair, User
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, api_key_revoke


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(User)
class AccountUserAdmin(UserAdmin):
    readonly_fields = ["eid"]
    fieldsets = (*UserAdmin.fieldsets, ("Public id", {"fields": ("eid",)}))


def _create_key(request: HttpRequest, queryset: QuerySet[Organization], kind: str) -> None:
    for organization in queryset:
        member = request.user if organization.members.filter(pk=request.user.pk).exists() else None
        _, raw_key = api_key_create(
            organization=organization, kind=kind, name=f"created by {request.user}", user=member
        )
        messages.warning(
            request,
            f"New {kind} API key for {organization.slug}: {raw_key} "
            "(copy it now: it is stored only as a hash and will not be shown again).",
        )


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "eid", "created_at"]
    search_fields = ["name", "slug", "eid"]
    readonly_fields = ["eid", "created_at", "updated_at"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]
    actions = ["create_development_key", "create_production_key", "create_payload_key"]

    @admin.action(description="Create a development API key")
    def create_development_key(
        self, request: HttpRequest, queryset: QuerySet[Organization]
    ) -> None:
        _create_key(request, queryset, ApiKey.Kind.DEVELOPMENT)

    @admin.action(description="Create a production API key")
    def create_production_key(self, request: HttpRequest, queryset: QuerySet[Organization]) -> None:
        _create_key(request, queryset, ApiKey.Kind.PRODUCTION)

    @admin.action(description="Create (or replace) the inbound payload key pair")
    def create_payload_key(self, request: HttpRequest, queryset: QuerySet[Organization]) -> None:
        for organization in queryset:
            pair = payload_key_create(organization=organization)
            messages.info(
                request,
                f"Public key of {organization.slug} (encrypt `data` with it): {pair.public_pem}",
            )


@admin.register(PayloadKeyPair)
class PayloadKeyPairAdmin(admin.ModelAdmin):
    list_display = ["organization", "created_at"]
    readonly_fields = ["organization", "public_pem", "created_at"]
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = [
        "prefix",
        "organization",
        "kind",
        "name",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = ["kind", "organization"]
    readonly_fields = ["eid", "prefix", "key_hash", "created_at", "last_used_at", "revoked_at"]
    fields = ["eid", "organization", "kind", "name", "user", *readonly_fields[1:]]
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Keys are made by the organization actions, which can show the key once.
        return False

    @admin.action(description="Revoke the selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        for api_key in queryset:
            api_key_revoke(api_key=api_key)
        messages.success(request, f"Revoked {queryset.count()} key(s).")
