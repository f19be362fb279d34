"""The roles single sign-on gives grant what their names say, out of the box: a new member
edits templates and reads packets in the admin, an admin also sends packets and manages
workflows and members; the group follows the role at each sign-in, and a group's permissions
changed in the admin are kept."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client

from accounts.models import Membership, Organization, User
from accounts.sso_people import person_for
from accounts.sso_roles import ROLE_PERMISSIONS, role_group_name

pytestmark = pytest.mark.django_db

ISSUER = "https://idp.example.test"


@pytest.fixture
def sso(settings: Any, organization: Organization) -> None:
    settings.SSO_ORGANIZATION = organization.slug
    settings.SSO_ROLE_CLAIM = "roles"
    settings.SSO_ROLE = "member"


def signed_in(subject: str, roles: list[str]) -> User:
    claims = {"email": f"{subject}@acme.test", "email_verified": True, "roles": roles}
    user = person_for(issuer=ISSUER, subject=subject, claims=claims, linking=None)
    return User.objects.get(pk=user.pk)  # permissions read afresh


def test_every_permission_of_the_table_exists() -> None:
    known = {
        f"{app}.{codename}"
        for app, codename in Permission.objects.values_list("content_type__app_label", "codename")
    }
    for role, names in ROLE_PERMISSIONS.items():
        assert set(names) <= known, (role, set(names) - known)


def test_a_new_member_edits_templates_and_reads_packets(sso: None) -> None:
    member = signed_in("mia", [])

    assert Membership.objects.get(user=member).role == "member"
    assert [g.name for g in member.groups.all()] == [role_group_name("member")]
    for allowed in [
        "templates_app.view_pdftemplate",
        "templates_app.add_pdftemplate",
        "templates_app.change_pdftemplate",
        "esign.view_packet",
        "workflows.view_workflow",
        "workflows.view_submission",
    ]:
        assert member.has_perm(allowed), allowed
    for refused in ["esign.add_packet", "esign.delete_packet", "workflows.change_workflow",
                    "accounts.add_apikey", "auth.change_group"]:  # fmt: skip
        assert not member.has_perm(refused), refused


def test_a_new_admin_can_do_more(sso: None) -> None:
    admin = signed_in("ada", ["admin"])

    assert [g.name for g in admin.groups.all()] == [role_group_name("admin")]
    for allowed in [
        "templates_app.delete_pdftemplate",
        "esign.add_packet",
        "esign.add_bulkbatch",
        "workflows.change_workflow",
        "accounts.change_membership",
        "accounts.add_apikey",
    ]:
        assert admin.has_perm(allowed), allowed
    assert not admin.has_perm("accounts.delete_payloadkeypair")
    assert signed_in("olga", ["owner"]).has_perm("accounts.delete_payloadkeypair")


def test_a_new_member_lands_in_an_admin_that_shows_their_work(sso: None) -> None:
    client = Client()
    client.force_login(signed_in("mia", []))
    page = client.get("/admin/").content.decode()

    assert "You don’t have permission to view or edit anything" not in page
    assert "/admin/templates_app/pdftemplate/add/" in page
    assert "/admin/esign/packet/" in page


def test_the_group_follows_the_role_at_the_next_sign_in(sso: None) -> None:
    person = signed_in("mia", [])
    Membership.objects.filter(user=person).update(role="admin")
    person = signed_in("mia", [])
    assert [g.name for g in person.groups.all()] == [role_group_name("admin")]

    Membership.objects.filter(user=person).delete()
    assert list(signed_in("mia", []).groups.all()) == []


def test_a_groups_permissions_changed_in_the_admin_are_kept(sso: None) -> None:
    signed_in("mia", [])
    group = Group.objects.get(name=role_group_name("member"))
    group.permissions.set(Permission.objects.filter(codename="view_pdftemplate"))

    signed_in("max", [])
    signed_in("mia", [])
    assert list(group.permissions.values_list("codename", flat=True)) == ["view_pdftemplate"]
