"""The accounts admin for staff who are not superusers: every page, action, filter and lookup is
scoped to the staff user's own organizations.

Three staff users hold every permission of the accounts and templates apps: the ``owner`` of
Acme, a plain ``member`` of Acme and an ``outsider`` (the owner of Globex). The owner manages
Acme (keys, payload key, members); the member sees Acme and changes nothing; the outsider
neither sees nor touches anything of Acme, and nobody reaches Globex's objects from Acme.

This module: the staff users and helpers (other apps' admin tests import them), the user pages
(lists and autocomplete of people of one's organizations only, a member's own page and
password, the permissions an owner may not grant, adding and deleting members), the template
list's organization filter, and superusers. The organization pages and their keys are in
test_admin_tenancy_organizations.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from accounts.models import ApiKey, Membership, Organization, User
from accounts.services import api_key_create, member_add
from templates_app.services import template_create_from_pdf
from tests.pdfcheck import blank_pdf
from tests.staff import staff_by_role

PASSWORD = "pw-tenancy-123456789"
ROLES = ["owner", "member", "outsider"]
# What each role may do with a page of acme's: change it, only view it, or not find it.
PAGE_ACCESS = [("owner", "change"), ("member", "view"), ("outsider", "missing")]
OWNER_ONLY = [("owner", True), ("member", False), ("outsider", False)]


def page_as_expected(page: Any, expected: str) -> bool:
    """The admin page is missing (expected "missing", False), or shown with the change
    permission for "change" and without it for "view" (True)."""
    if expected == "missing":
        assert is_missing(page)
        return False
    assert page.status_code == 200
    assert page.context["has_change_permission"] is (expected == "change")
    return True


@pytest.fixture
def staff(organization: Organization, other_organization: Organization) -> dict[str, User]:
    apps = ["accounts", "templates_app"]
    return staff_by_role(organization, other_organization, ROLES, apps, PASSWORD)


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def acme_key(organization: Organization, staff: dict[str, User]) -> ApiKey:
    key, _ = api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION, name="acme")
    return key


@pytest.fixture
def globex_key(other_organization: Organization, staff: dict[str, User]) -> ApiKey:
    key, _ = api_key_create(organization=other_organization, kind="production", name="globex")
    return key


def shown(response) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request))


def is_missing(response) -> bool:
    """The admin's answer for an object the user may not see: the "does not exist" redirect
    (change, delete, history) or a 404 (password change)."""
    return response.status_code == 404 or (
        response.status_code == 302 and response["Location"] == reverse("admin:index")
    )


# --- users ----------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_the_user_list_names_only_people_of_ones_organizations(staff, role) -> None:
    User.objects.create_superuser(username="root", password=PASSWORD)

    page = client_of(staff[role]).get(reverse("admin:accounts_user_changelist"))

    listed = sorted(u.username for u in page.context["cl"].result_list)
    assert listed == (["globex-owner"] if role == "outsider" else ["acme-member", "acme-owner"])


@pytest.mark.parametrize("role", ROLES)
def test_the_user_autocomplete_names_only_people_of_ones_organizations(staff, role) -> None:
    response = client_of(staff[role]).get(
        reverse("admin:autocomplete"),
        {"app_label": "accounts", "model_name": "membership", "field_name": "user", "term": ""},
    )

    # Only staff who may change an organization use the membership inline at all.
    if response.status_code == 403:
        assert role == "member"
        return
    assert response.status_code == 200
    names = sorted(r["text"] for r in json.loads(response.content)["results"])
    assert names == (["globex-owner"] if role == "outsider" else ["acme-member", "acme-owner"])


@pytest.mark.parametrize(("role", "expected"), PAGE_ACCESS)
def test_the_page_of_a_member(staff, role, expected) -> None:
    target = staff["member"] if role != "member" else staff["owner"]
    page = client_of(staff[role]).get(reverse("admin:accounts_user_change", args=[target.pk]))

    if not page_as_expected(page, expected):
        return


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_setting_a_members_password(staff, role, allowed) -> None:
    target = staff["member"] if role != "member" else staff["owner"]
    response = client_of(staff[role]).post(
        reverse("admin:auth_user_password_change", args=[target.pk]),
        {"password1": "new-Pass-98765!x", "password2": "new-Pass-98765!x"},
    )

    target.refresh_from_db()
    assert target.check_password("new-Pass-98765!x") is allowed
    if not allowed:
        assert response.status_code in (403, 404)


def test_a_member_changes_their_own_name_but_not_their_permissions(staff) -> None:
    member = staff["member"]
    count = member.user_permissions.count()
    response = client_of(member).post(
        reverse("admin:accounts_user_change", args=[member.pk]),
        {
            "username": member.username,
            "first_name": "Mona",
            "last_name": "",
            "email": "",
            "is_active": "on",
            "is_staff": "on",
            "is_superuser": "on",
            "user_permissions": [p.pk for p in Permission.objects.all()],
            "date_joined_0": "2020-01-01",
            "date_joined_1": "00:00:00",
        },
    )

    member.refresh_from_db()
    assert response.status_code == 302, response.content.decode()[:3000]
    assert member.first_name == "Mona"
    assert not member.is_superuser
    assert member.user_permissions.count() == count


def test_the_owner_cannot_grant_permissions_or_superuser(staff) -> None:
    member = staff["member"]
    count = member.user_permissions.count()
    client_of(staff["owner"]).post(
        reverse("admin:accounts_user_change", args=[member.pk]),
        {
            "username": member.username,
            "is_active": "on",
            "is_staff": "on",
            "is_superuser": "on",
            "user_permissions": [p.pk for p in Permission.objects.all()],
        },
    )

    member.refresh_from_db()
    assert not member.is_superuser
    assert member.user_permissions.count() == count


def test_nobody_changes_a_superuser_or_someone_with_another_organization(
    staff, organization, other_organization
) -> None:
    root = User.objects.create_superuser(username="root", password=PASSWORD)
    member_add(organization=organization, user=root, role="member")
    both = User.objects.create_user(username="both", password=PASSWORD)
    member_add(organization=organization, user=both, role="member")
    member_add(organization=other_organization, user=both, role="member")
    client = client_of(staff["owner"])

    for target in (root, both):
        response = client.post(
            reverse("admin:auth_user_password_change", args=[target.pk]),
            {"password1": "new-Pass-98765!x", "password2": "new-Pass-98765!x"},
        )
        target.refresh_from_db()
        assert response.status_code == 403
        assert not target.check_password("new-Pass-98765!x")
        page = client.get(reverse("admin:accounts_user_change", args=[target.pk]))
        assert page.status_code == 200
        assert page.context["has_change_permission"] is False


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_adding_a_user_makes_them_a_member_of_a_managed_organization(
    staff, organization, role, allowed
) -> None:
    client = client_of(staff[role])
    response = client.post(
        reverse("admin:accounts_user_add"),
        {
            "username": "newcomer",
            "password1": "new-Pass-98765!x",
            "password2": "new-Pass-98765!x",
            "usable_password": "true",
            "organization": organization.pk,
        },
    )

    created = User.objects.filter(username="newcomer").first()
    if allowed:
        assert response.status_code == 302, response.content.decode()[:3000]
        assert Membership.objects.get(user=created).organization == organization
        assert Membership.objects.get(user=created).role == "member"
    else:
        assert created is None


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_deleting_a_member(staff, role, allowed) -> None:
    target = staff["member"] if role != "member" else staff["owner"]
    response = client_of(staff[role]).post(
        reverse("admin:accounts_user_delete", args=[target.pk]), {"post": "yes"}
    )

    assert User.objects.filter(pk=target.pk).exists() is not allowed
    if not allowed:
        assert response.status_code == 403 or is_missing(response)


# --- the template list's organization filter -----------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_the_template_list_filter_names_only_ones_organizations(
    staff, organization, other_organization, role
) -> None:
    for org in (organization, other_organization):
        template_create_from_pdf(organization=org, title=f"T {org.slug}", pdf=blank_pdf())

    page = client_of(staff[role]).get(reverse("admin:templates_app_pdftemplate_changelist"))

    html = page.content.decode()
    assert ("Globex Corp." in html) is (role == "outsider")
    assert ("Acme Inc." in html) is (role != "outsider")


def test_superusers_still_see_and_manage_everything(staff, acme_key, globex_key) -> None:
    root = User.objects.create_superuser(username="root", password=PASSWORD)
    client = client_of(root)

    organizations = client.get(reverse("admin:accounts_organization_changelist"))
    keys = client.get(reverse("admin:accounts_apikey_changelist"))
    client.post(
        reverse("admin:accounts_apikey_changelist"),
        {"action": "revoke", "_selected_action": [acme_key.pk, globex_key.pk]},
    )

    assert sorted(o.slug for o in organizations.context["cl"].result_list) == ["acme", "globex"]
    assert len(keys.context["cl"].result_list) == 2
    assert ApiKey.objects.filter(revoked_at__isnull=True).count() == 0
