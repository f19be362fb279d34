"""Which organizations, and which people, a staff user may see and manage in the admin.

Django's permissions say what kind of object a staff user may view or change; membership says
whose. A staff user sees the organizations they belong to, in any role, and what belongs to
them; they manage (change, act on, delete) only those where they are an owner or an admin.
That is the organization itself, its accounts (members, API keys, payload keys) and its
workflows, which publish pages and send webhooks. PDF templates are everyday work: any member
whom Django's permissions allow edits them, as an owner does (templates_app/admin.py).
Superusers see and manage everything. Every admin page, action, filter and lookup of a tenant's
objects goes through these functions.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import Membership, Organization, User

MANAGER_ROLES = (Membership.Role.OWNER, Membership.Role.ADMIN)


def staff_organizations(*, user: Any) -> QuerySet[Organization]:
    """The organizations ``user`` sees: those they belong to (every one for a superuser)."""
    if user.is_superuser:
        return Organization.objects.all()
    return Organization.objects.filter(membership__user=user)


def staff_managed_organizations(*, user: Any) -> QuerySet[Organization]:
    """The organizations ``user`` manages: owner or admin (every one for a superuser)."""
    if user.is_superuser:
        return Organization.objects.all()
    return Organization.objects.filter(membership__user=user, membership__role__in=MANAGER_ROLES)


def staff_manages(*, user: Any, organization_ids: set[int]) -> bool:
    """True if ``user`` manages every one of these organizations."""
    if user.is_superuser:
        return True
    managed = set(
        staff_managed_organizations(user=user)
        .filter(pk__in=organization_ids)
        .values_list("pk", flat=True)
    )
    return organization_ids <= managed


def staff_users(*, user: Any) -> QuerySet[User]:
    """The people ``user`` sees: themselves and the members of their organizations."""
    if user.is_superuser:
        return User.objects.all()
    shared = Membership.objects.filter(organization__in=staff_organizations(user=user)).values_list(
        "user_id", flat=True
    )
    return User.objects.filter(Q(pk=user.pk) | Q(pk__in=shared))


def staff_may_change_user(*, user: Any, target: User) -> bool:
    """Whether ``user`` may change ``target``'s account (name, e-mail, password, active).

    Themselves, or someone who is not a superuser and all of whose organizations ``user``
    manages: changing a person changes them for every organization they belong to.
    """
    if user.is_superuser or target.pk == user.pk:
        return True
    if target.is_superuser:
        return False
    theirs = set(Membership.objects.filter(user=target).values_list("organization_id", flat=True))
    return bool(theirs) and staff_manages(user=user, organization_ids=theirs)
