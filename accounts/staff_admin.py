"""The admin's scoping by organization, for every app's admin of an organization's rows.

``accounts.staff`` says which organizations a staff user sees and manages; this module applies
it to admin pages: ``OrganizationOwnedAdmin`` for rows with an ``organization`` foreign key,
``may_manage`` for a permission check on one organization and ``manages`` for an action on
several, which says which organizations refused it; ``ReadOnlyInline`` for rows shown on their
parent's page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest

from accounts.models import Organization
from accounts.staff import staff_managed_organizations, staff_manages, staff_organizations
from core.admin_actions import CheckedActionIds


def may_manage(request: HttpRequest, organization: Organization | None) -> bool:
    """True if the user manages ``organization`` (or there is none yet: an add page)."""
    if organization is None:
        return True
    return staff_manages(user=request.user, organization_ids={organization.pk})


def manages(request: HttpRequest, organizations: Iterable[Organization]) -> bool:
    """True if the user manages all of ``organizations``; else say which not, and False."""
    organizations = list(organizations)
    if staff_manages(user=request.user, organization_ids={o.pk for o in organizations}):
        return True
    managed = set(staff_managed_organizations(user=request.user).values_list("pk", flat=True))
    refused = ", ".join(sorted({o.slug for o in organizations if o.pk not in managed}))
    messages.error(request, f"Nothing was done: only an owner or admin of {refused} may do that.")
    return False


class OrganizationOwnedAdmin(CheckedActionIds):
    """An admin of rows that belong to an organization (``organization`` foreign key).

    Its pages, lookups and actions see the rows of the user's organizations (``get_queryset``);
    change and delete need an owner or admin of the row's organization; a form offers only the
    organizations the user manages. An action that changes something is offered to managers
    (``permissions=["manage"]``) and checks ``manages`` on the rows chosen too; a page of the
    admin's own that acts on one row checks ``may_manage`` (403). A forged selection that
    names no possible row is refused whole (``core.admin_actions``).
    """

    def has_manage_permission(self, request: HttpRequest) -> bool:
        """For actions with ``permissions=["manage"]``: those who manage some organization."""
        return staff_managed_organizations(user=request.user).exists()

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
        return obj is None or may_manage(request, obj.organization)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_delete_permission(request, obj):
            return False
        return obj is None or may_manage(request, obj.organization)

    def owned_row(self, request: HttpRequest, pk: int, *, act: bool = False) -> Any:
        """For a page of the admin's own: the row, if the user may see it (another
        organization's is a 404); to ``act`` on it, if they manage its organization too (403)."""
        row = self.get_queryset(request).filter(pk=pk).first()
        if row is None or not self.has_view_permission(request, row):
            raise Http404
        if act and not may_manage(request, row.organization):
            raise PermissionDenied
        return row

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.related_model is Organization:
            kwargs["queryset"] = staff_managed_organizations(user=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ReadOnlyInline(admin.TabularInline):
    """Rows shown on their parent's page, never changed there: the parent's scope is theirs."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
