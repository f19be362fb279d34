"""Admin for organizations, members and API keys.

A new API key is made with a button in the "API keys" section of the organization's page, which
answers with a page that shows the key once (it is stored only as a hash); the organization
list's actions make keys in bulk and answer with the same page, one key per organization.

Every page, action, filter and lookup is scoped by ``accounts.staff``: a staff user who is not a
superuser sees only their organizations and what belongs to them, and changes, acts on or
deletes only what belongs to organizations they own or administer (``accounts.staff_admin``,
which the other apps' admins use too). Permission fields (staff, superuser, groups,
permissions) are a superuser's to set, and so are groups, which belong to no organization:
only superusers see them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import quote, unquote
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse

from accounts.login_guard import GuardedAdminAuthenticationForm
from accounts.models import ApiKey, Membership, Organization, PayloadKeyPair, User
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, api_key_revoke, member_add
from accounts.staff import (
    staff_managed_organizations,
    staff_may_change_user,
    staff_organizations,
    staff_users,
)
from accounts.staff_admin import OrganizationOwnedAdmin, manages, may_manage
from core.admin_actions import CheckedActionIds
from core.admin_pages import own_pages
from core.engine.input_checks import line_problem

# Sign-in locks out after a few failures, per user name and per address (accounts.login_guard).
admin.site.login_form = GuardedAdminAuthenticationForm
# Single sign-on offered beside it when configured (accounts.sso).
admin.site.login_template = "accounts/admin_login.html"


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]

    # ``obj`` is the organization the inline is shown on.
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_add_permission(request, obj) and may_manage(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) and may_manage(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and may_manage(request, obj)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "user":
            # Only people the staff user already sees: the autocomplete offers no others, and
            # the form accepts no others either.
            kwargs["queryset"] = staff_users(user=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class _StaffUserCreationForm(UserAdmin.add_form):  # type: ignore[name-defined, misc]
    """A new user made by a staff user who is not a superuser joins one of their organizations
    as a member: nobody can make accounts that belong to no one they manage."""

    organization = forms.ModelChoiceField(queryset=Organization.objects.none())


class SuperuserGroupAdmin(CheckedActionIds, GroupAdmin):
    """Groups grant permissions to people of every organization: a superuser's to see and set."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser


admin.site.unregister(Group)
admin.site.register(Group, SuperuserGroupAdmin)


@admin.register(User)
class AccountUserAdmin(CheckedActionIds, UserAdmin):
    readonly_fields = ["eid"]
    fieldsets = (*UserAdmin.fieldsets, ("Public id", {"fields": ("eid",)}))
    _permission_fields = ["is_staff", "is_superuser", "groups", "user_permissions"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).filter(pk__in=staff_users(user=request.user))

    def get_list_filter(self, request: HttpRequest) -> Any:
        filters = super().get_list_filter(request)
        if request.user.is_superuser:
            return filters
        return [f for f in filters if f != "groups"]  # groups are a superuser's (above)

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


KEY_NAME_MAX = ApiKey._meta.get_field("name").max_length
# The organization's page lists this many of its newest keys; the key list has them all.
KEYS_LISTED = 20


def _key_create(
    request: HttpRequest, organization: Organization, kind: str, name: str = ""
) -> tuple[ApiKey, str]:
    """Make one key of ``organization`` for the admin user; return it with the raw key.

    The one place the admin makes keys (the button and the actions). The key acts for the admin
    user if they are a member, else for the owner (``api_key_create``). The raw key is only
    returned: the caller shows it once and neither stores nor logs it.
    """
    member = request.user if organization.members.filter(pk=request.user.pk).exists() else None
    api_key, raw_key = api_key_create(
        organization=organization,
        kind=kind,
        name=(name or f"created by {request.user}")[:KEY_NAME_MAX],
        user=member,
    )
    # The admin's history of the key; its text is the prefix only (ApiKey.__str__).
    admin.site.get_model_admin(ApiKey).log_addition(request, api_key, [{"added": {}}])
    return api_key, raw_key


def _keys_shown_once(
    request: HttpRequest,
    model_admin: admin.ModelAdmin,
    created: list[tuple[Organization, ApiKey, str]],
) -> TemplateResponse:
    """The page that shows new keys, this once: never a URL, a message (messages live in the
    session or a cookie) or a log. ``admin_view`` marks it ``Cache-Control: no-store``."""
    site = model_admin.admin_site

    def change_url(organization: Organization) -> str:
        return reverse(
            "admin:accounts_organization_change",
            args=[quote(organization.pk)],
            current_app=site.name,
        )

    request.current_app = site.name
    only = created[0][0] if len(created) == 1 else None
    context = {
        **site.each_context(request),
        "title": f"New API key of {only}" if only else "New API keys",
        "opts": model_admin.opts,
        "original": only,
        "change_url": change_url(only) if only else "",
        "has_view_permission": model_admin.has_view_permission(request, only),
        "created": [
            {
                "organization": organization,
                "api_key": api_key,
                "raw_key": raw_key,
                "change_url": change_url(organization),
            }
            for organization, api_key, raw_key in created
        ],
    }
    return TemplateResponse(request, "admin/accounts/organization/api_key_created.html", context)


def _create_key(
    request: HttpRequest,
    model_admin: admin.ModelAdmin,
    queryset: QuerySet[Organization],
    kind: str,
) -> TemplateResponse | None:
    if not manages(request, queryset):
        return None
    created = [
        (organization, *_key_create(request, organization, kind)) for organization in queryset
    ]
    return _keys_shown_once(request, model_admin, created) if created else None


def _one_line(value: str) -> None:
    """A key's name is one line of text (core.engine.input_checks), as on the settings page."""
    if problem := line_problem(value):
        raise forms.ValidationError(problem)


class _KeyCreateForm(forms.Form):
    """The organization page's "Create … key" buttons: the button sends ``kind``."""

    name = forms.CharField(
        required=False,
        max_length=KEY_NAME_MAX,
        error_messages={"max_length": f"A key's name has at most {KEY_NAME_MAX} characters."},
        validators=[_one_line],
    )
    kind = forms.ChoiceField(
        choices=ApiKey.Kind.choices,
        error_messages={
            "required": "Choose a development or a production key.",
            "invalid_choice": "Choose a development or a production key.",
        },
    )


@admin.register(Organization)
class OrganizationAdmin(CheckedActionIds):
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
        return super().has_change_permission(request, obj) and may_manage(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and may_manage(request, obj)

    def get_urls(self) -> list[URLPattern]:
        # Before the default URLs, whose "<path:object_id>/" would take this one.
        return [
            *own_pages(
                self,
                "accounts_organization",
                [("<path:object_id>/api-keys/create/", self.create_key_view, "create_key")],
            ),
            *super().get_urls(),
        ]

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Organization | None = None,
    ) -> HttpResponse:
        # The "API keys" section, for those who may make keys: owners and admins.
        if obj is not None and change and self.has_change_permission(request, obj):
            context["api_keys"] = self._api_keys_section(request, obj)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def _api_keys_section(self, request: HttpRequest, organization: Organization) -> dict:
        keys = organization.api_keys.all()
        key_admin = self.admin_site.get_model_admin(ApiKey)
        may_view_keys = key_admin.has_view_or_change_permission(request)
        changelist = reverse("admin:accounts_apikey_changelist", current_app=self.admin_site.name)
        return {
            "listed": keys.order_by("-created_at")[:KEYS_LISTED],
            "count": keys.count(),
            "create_url": reverse(
                "admin:accounts_organization_create_key",
                args=[quote(organization.pk)],
                current_app=self.admin_site.name,
            ),
            "name_max": KEY_NAME_MAX,
            "may_view_keys": may_view_keys,
            "changelist_url": (
                f"{changelist}?{urlencode({'organization__id__exact': organization.pk})}"
                if may_view_keys
                else ""
            ),
        }

    def create_key_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """POST from the organization's page: make a key and show it once, on this response.

        The key is in this page only: never in a URL, a message (stored in the session or a
        cookie) or a log. ``admin_view`` marks the page ``Cache-Control: no-store``.
        """
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        organization = self.get_object(request, unquote(object_id))
        if organization is None:
            raise Http404("No such organization.")
        if not self.has_change_permission(request, organization):
            raise PermissionDenied
        change_url = reverse(
            "admin:accounts_organization_change",
            args=[quote(organization.pk)],
            current_app=self.admin_site.name,
        )
        form = _KeyCreateForm(request.POST)
        if not form.is_valid():
            problems = " ".join(error for errors in form.errors.values() for error in errors)
            messages.error(request, f"No key was created. {problems}")
            return HttpResponseRedirect(f"{change_url}#api-keys")
        api_key, raw_key = _key_create(
            request, organization, form.cleaned_data["kind"], form.cleaned_data["name"]
        )
        return _keys_shown_once(request, self, [(organization, api_key, raw_key)])

    @admin.action(description="Create a development API key", permissions=["change"])
    def create_development_key(
        self, request: HttpRequest, queryset: QuerySet[Organization]
    ) -> TemplateResponse | None:
        return _create_key(request, self, queryset, ApiKey.Kind.DEVELOPMENT)

    @admin.action(description="Create a production API key", permissions=["change"])
    def create_production_key(
        self, request: HttpRequest, queryset: QuerySet[Organization]
    ) -> TemplateResponse | None:
        return _create_key(request, self, queryset, ApiKey.Kind.PRODUCTION)

    @admin.action(
        description="Create (or replace) the inbound payload key pair", permissions=["change"]
    )
    def create_payload_key(self, request: HttpRequest, queryset: QuerySet[Organization]) -> None:
        if not manages(request, queryset):
            return
        for organization in queryset:
            pair = payload_key_create(organization=organization)
            messages.info(
                request,
                f"Public key of {organization.slug} (encrypt `data` with it): {pair.public_pem}",
            )


@admin.register(PayloadKeyPair)
class PayloadKeyPairAdmin(OrganizationOwnedAdmin):
    list_display = ["organization", "created_at"]
    readonly_fields = ["organization", "public_pem", "created_at"]
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(ApiKey)
class ApiKeyAdmin(OrganizationOwnedAdmin):
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
        # Keys are made on the organization's page (or by its actions), which show the key once.
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
        if not manages(request, {key.organization for key in keys}):
            return
        for api_key in keys:
            api_key_revoke(api_key=api_key)
        messages.success(request, f"Revoked {len(keys)} key(s).")
