"""Staff users of the admin tests: one builder for the user, its permissions and its membership."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Permission
from django.http import HttpResponse
from django.test import Client

from accounts.models import Organization, User
from accounts.services import member_add


def staff_member(
    organization: Organization,
    username: str,
    role: str,
    apps: list[str],
    password: str | None = "-",
) -> User:
    """A staff user with every permission of ``apps``, a member of ``organization`` in ``role``
    (no usable password for None)."""
    user = User.objects.create_user(username=username, password=password, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label__in=apps))
    member_add(organization=organization, user=user, role=role)
    return user


def staff_by_role(
    organization: Organization,
    other_organization: Organization,
    roles: list[str],
    apps: list[str],
    password: str,
) -> dict[str, User]:
    """One staff user a role: acme-<role> of ``organization``, and for "outsider" the owner of
    ``other_organization`` (globex-owner)."""
    return {
        role: staff_member(other_organization, "globex-owner", "owner", apps, password)
        if role == "outsider"
        else staff_member(organization, f"acme-{role}", role, apps, password)
        for role in roles
    }


def superuser_client() -> Client:
    """A test client signed in to the admin as a new superuser, root."""
    client = Client()
    client.force_login(
        User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")
    )
    return client


def admin_action(
    client: Client, changelist: str, action: str, *rows: Any, follow: bool = True
) -> HttpResponse:
    """Run ``action`` of the admin list at ``changelist`` on ``rows`` (their primary keys), as the
    list's form posts it."""
    return client.post(
        changelist, {"action": action, "_selected_action": list(rows)}, follow=follow
    )
