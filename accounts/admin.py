"""Admin for organizations, members and API keys. A new key is shown once, in a message.

Every page, action, filter and lookup is scoped by ``accounts.staff``: a staff user who is not a
superuser sees only their organizations and what belongs to them, and changes, acts on or
deletes only what belongs to organizations they own or administer. Permission fields (staff,
superuser, groups, permissions) are a superuser's to set.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.login_guard import GuardedAdminAuthenticationForm
from accounts.models import ApiKey, Membership, Organization, PayloadKeyPair, User
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, api_key_revoke, member_add
from accounts.staff import (
    staff_managed_organizations,
    staff_manages,
    staff_may_change_user,
    staff_organizations,
    staff_users,
)

# Sign-in locks out after a few failures, per user name and per address (accounts.login_guard).
admin.site.login_form = GuardedAdminAuthenticationForm


def _manages(request: HttpRequest, organizations: Iterable[Organization]) -> bool:
    """True if the user manages all of ``organizations``; else say which not, and False."""
    organizations = list(organizations)
    if staff_manages(user=request.user, organization_ids={o.pk for o in organizations}):
        return True
    managed = set(staff_managed_organizations(user=request.user).values_list("pk", flat=True))
    refused = ", ".join(sorted(o.slug for o in organizations if o.pk not in managed))
    messages.error(request, f"Nothing was done: only an owner or admin of {refused} may do that.")
    return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]

    # ``obj`` is the organization the inline is shown on.
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_add_permission(request, obj) and _may_manage(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) and _may_manage(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and _may_manage(request, obj)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "user":
            # Only people the staff user already sees: the autocomplete offers no others, and
            # the form accepts no others either.
            kwargs["queryset"] = staff_users(user=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def _may_manage(request: HttpRequest, organization: Organization | None) -> bool:
    if organization is None:
        return True
    return staff_manages(user=request.user, organization_ids={organization.pk})


class _StaffUserCreationForm(UserAdmin.add_form):  # type: ignore[name-defined, misc]
    """A new user made by a staff user who is not a superuser joins one of their organizations
    as a member: nobody can make accounts that belong to no one they manage."""

    organization = forms.ModelChoiceField(queryset=Organization.objects.none())


@admin.register(User)
class AccountUserAdmin(UserAdmin):
    readonly_fields = ["eid"]
    fieldsets = (*UserAdmin.fieldsets, ("Public id", {"fields": ("eid",)}))
    _permission_fields = ["is_staff", "is_superuser", "groups", "user_permissions"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).filter(pk__in=staff_users(user=request.user))

    def has_add_permission(self, request: HttpRequest) -> bool:
        if not super().has_add_permission(request):
            return False
        return staff_managed_organizations(user=request.user).exists()

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or staff_may_change_user(user=request.user, target=obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_delete_permission(request, obj):
            return False
        if obj is None or request.user.is_superuser:
            return True
        return obj.pk != request.user.pk and staff_may_change_user(user=request.user, target=obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and not request.user.is_superuser:
            fields += [*self._permission_fields, "last_login", "date_joined"]
        return fields

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None and not request.user.is_superuser:
            return (*fieldsets, ("Organization", {"fields": ("organization",)}))
        return fieldsets

    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        if obj is None and not request.user.is_superuser:
            organizations = staff_managed_organizations(user=request.user)

            class CreationForm(_StaffUserCreationForm):
                def __init__(self, *args: Any, **inner: Any) -> None:
                    super().__init__(*args, **inner)
                    self.fields["organization"].queryset = organizations

            kwargs["form"] = CreationForm
        return super().get_form(request, obj, **kwargs)

    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        organization = form.cleaned_data.get("organization") if not change else None
        if organization is not None:
            member_add(organization=organization, user=obj, role=Membership.Role.MEMBER)


def _create_key(request: HttpRequest, queryset: QuerySet[Organization], kind: str) -> None:
    if not _manages(request, queryset):
        return
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

    def get_queryset(self, request: HttpRequest) -> QuerySet[Organization]:
        return (
            super()
            .get_queryset(request)
            .filter(pk__in=staff_organizations(user=request.user).values("pk"))
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        # A new organization would belong to nobody the staff user manages.
        return request.user.is_superuser and super().has_add_permission(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) and _may_manage(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and _may_manage(request, obj)

    @admin.action(description="Create a development API key", permissions=["change"])
    def create_development_key(
        self, request: HttpRequest, queryset: QuerySet[Organization]
    ) -> None:
        _create_key(request, queryset, ApiKey.Kind.DEVELOPMENT)

    @admin.action(description="Create a production API key", permissions=["change"])
    def create_production_key(self, request: HttpRequest, queryset: QuerySet[Organization]) -> None:
        _create_key(request, queryset, ApiKey.Kind.PRODUCTION)

    @admin.action(
        description="Create (or replace) the inbound payload key pair", permissions=["change"]
    )
    def create_payload_key(self, request: HttpRequest, queryset: QuerySet[Organization]) -> None:
        if not _manages(request, queryset):
            return
        for organization in queryset:
            pair = payload_key_create(organization=organization)
            messages.info(
                request,
                f"Public key of {organization.slug} (encrypt `data` with it): {pair.public_pem}",
            )


class _OrganizationOwnedAdmin(admin.ModelAdmin):
    """An admin of rows that belong to an organization (``organization`` foreign key)."""

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            super()
            .get_queryset(request)
            .select_related("organization")
            .filter(organization__in=staff_organizations(user=request.user).values("pk"))
        )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or _may_manage(request, obj.organization)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_delete_permission(request, obj):
            return False
        return obj is None or _may_manage(request, obj.organization)


@admin.register(PayloadKeyPair)
class PayloadKeyPairAdmin(_OrganizationOwnedAdmin):
    list_display = ["organization", "created_at"]
    readonly_fields = ["organization", "public_pem", "created_at"]
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(ApiKey)
class ApiKeyAdmin(_OrganizationOwnedAdmin):
    list_display = [
        "prefix",
        "organization",
        "kind",
        "name",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    # Only the organizations of the keys the user sees are offered.
    list_filter = ["kind", ("organization", admin.RelatedOnlyFieldListFilter)]
    readonly_fields = [
        "eid",
        "organization",
        "prefix",
        "key_hash",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    fields = ["eid", "organization", "kind", "name", "user", *readonly_fields[2:]]
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Keys are made by the organization actions, which can show the key once.
        return False

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None and "user" in form.base_fields:
            # A key acts for a member of its own organization, or for nobody.
            form.base_fields["user"].queryset = User.objects.filter(
                membership__organization=obj.organization
            )
        return form

    @admin.action(description="Revoke the selected keys", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        keys = list(queryset)
        if not _manages(request, {key.organization for key in keys}):
            return
        for api_key in keys:
            api_key_revoke(api_key=api_key)
        messages.success(request, f"Revoked {len(keys)} key(s).")
