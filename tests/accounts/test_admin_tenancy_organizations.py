"""The accounts admin's organization pages and their keys for staff who are not superusers: the
organization list, page, renaming, memberships, deletion and history and its key actions, then
the API key and payload key pages (lists, filters, renames, revocation, deletion), each scoped
to the staff user's own organizations (the staff users are those of test_admin_tenancy.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.models import ApiKey, Membership, Organization, PayloadKeyPair, User
from accounts.payload_keys import payload_key_create
from accounts.services import member_add
from templates_app.services import template_create_from_pdf
from tests.accounts.test_admin_tenancy import (
    OWNER_ONLY,
    PAGE_ACCESS,
    ROLES,
    client_of,
    is_missing,
    page_as_expected,
    shown,
)
from tests.accounts.test_admin_tenancy import acme_key as acme_key  # noqa: F401 - the fixture
from tests.accounts.test_admin_tenancy import globex_key as globex_key  # noqa: F401 - the fixture
from tests.accounts.test_admin_tenancy import staff as staff  # noqa: F401 - the fixture
from tests.pdfcheck import blank_pdf
from tests.staff import admin_action

# --- organizations -------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_the_organization_list_names_only_ones_own(staff, role) -> None:
    page = client_of(staff[role]).get(reverse("admin:accounts_organization_changelist"))

    assert page.status_code == 200
    listed = sorted(o.slug for o in page.context["cl"].result_list)
    assert listed == (["globex"] if role == "outsider" else ["acme"])


@pytest.mark.parametrize(("role", "expected"), PAGE_ACCESS)
def test_the_organization_page(staff, organization, role, expected) -> None:
    page = client_of(staff[role]).get(
        reverse("admin:accounts_organization_change", args=[organization.pk])
    )

    if not page_as_expected(page, expected):
        return
    assert organization.name in page.content.decode()


def organization_form(organization: Organization, **changes: str) -> dict[str, str]:
    members = list(Membership.objects.filter(organization=organization).order_by("pk"))
    data = {
        "name": organization.name,
        "slug": organization.slug,
        "membership_set-TOTAL_FORMS": str(len(members)),
        "membership_set-INITIAL_FORMS": str(len(members)),
        "membership_set-MIN_NUM_FORMS": "0",
        "membership_set-MAX_NUM_FORMS": "1000",
    }
    for index, membership in enumerate(members):
        data[f"membership_set-{index}-id"] = str(membership.pk)
        data[f"membership_set-{index}-organization"] = str(organization.pk)
        data[f"membership_set-{index}-user"] = str(membership.user_id)
        data[f"membership_set-{index}-role"] = membership.role
    return data | changes


def organization_form_adding(organization: Organization, user: User, role: str) -> dict[str, str]:
    """The organization's change form as it is, with one membership row added for ``user``."""
    data = organization_form(organization)
    count = int(data["membership_set-TOTAL_FORMS"])
    data.update(
        {
            "membership_set-TOTAL_FORMS": str(count + 1),
            f"membership_set-{count}-organization": str(organization.pk),
            f"membership_set-{count}-user": str(user.pk),
            f"membership_set-{count}-role": role,
        }
    )
    return data


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_renaming_an_organization(staff, organization, role, allowed) -> None:
    response = client_of(staff[role]).post(
        reverse("admin:accounts_organization_change", args=[organization.pk]),
        organization_form(organization, name="Renamed"),
    )

    organization.refresh_from_db()
    if allowed:
        assert response.status_code == 302, response.content.decode()[:3000]
        assert organization.name == "Renamed"
    else:
        assert response.status_code in (302, 403)
        assert response.status_code == 403 or is_missing(response)
        assert organization.name == "Acme Inc."


@pytest.mark.parametrize("role", ROLES)
def test_a_membership_cannot_name_a_user_of_another_organization(staff, organization, role) -> None:
    stranger = User.objects.create_user(username="stranger-of-globex")
    member_add(organization=Organization.objects.get(slug="globex"), user=stranger, role="member")
    data = organization_form_adding(organization, stranger, "owner")

    response = client_of(staff[role]).post(
        reverse("admin:accounts_organization_change", args=[organization.pk]), data
    )

    assert response.status_code in (200, 302, 403)
    assert not Membership.objects.filter(organization=organization, user=stranger).exists()


def test_the_owner_adds_a_member_who_shares_an_organization(staff, organization) -> None:
    colleague = User.objects.create_user(username="colleague")
    other = Organization.objects.create(slug="acme-labs", name="Acme Labs")
    member_add(organization=other, user=colleague, role="member")
    member_add(organization=other, user=staff["owner"], role="owner")
    data = organization_form_adding(organization, colleague, "member")

    response = client_of(staff["owner"]).post(
        reverse("admin:accounts_organization_change", args=[organization.pk]), data
    )

    assert response.status_code == 302, response.content.decode()[:3000]
    assert Membership.objects.get(organization=organization, user=colleague).role == "member"


@pytest.mark.parametrize("role", ROLES)
def test_only_superusers_add_organizations(staff, role) -> None:
    client = client_of(staff[role])
    page = client.get(reverse("admin:accounts_organization_add"))
    response = client.post(
        reverse("admin:accounts_organization_add"),
        {"name": "Mine", "slug": "mine", "membership_set-TOTAL_FORMS": "0",
         "membership_set-INITIAL_FORMS": "0"},
    )  # fmt: skip

    assert page.status_code == 403
    assert response.status_code == 403
    assert not Organization.objects.filter(slug="mine").exists()


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_deleting_an_organization(staff, organization, role, allowed) -> None:
    client = client_of(staff[role])
    url = reverse("admin:accounts_organization_delete", args=[organization.pk])
    page = client.get(url)
    response = client.post(url, {"post": "yes"})

    exists = Organization.objects.filter(pk=organization.pk).exists()
    if allowed:
        assert page.status_code == 200
        assert not exists
    else:
        assert page.status_code == 403 or is_missing(page)
        assert response.status_code == 403 or is_missing(response)
        assert exists


@pytest.mark.parametrize(
    ("role", "visible"), [("owner", True), ("member", True), ("outsider", False)]
)
def test_the_organization_history(staff, organization, role, visible) -> None:
    page = client_of(staff[role]).get(
        reverse("admin:accounts_organization_history", args=[organization.pk])
    )

    assert page.status_code == 200 if visible else is_missing(page)


@pytest.mark.parametrize("action", ["create_development_key", "create_production_key"])
@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_the_create_key_actions(staff, organization, action, role, allowed) -> None:
    response = admin_action(
        client_of(staff[role]),
        reverse("admin:accounts_organization_changelist"),
        action,
        organization.pk,
    )

    keys = ApiKey.objects.filter(organization=organization)
    page = response.content.decode()
    assert not re.search(r"(dev|prod)_[A-Za-z0-9]{40}", shown(response))  # never in a message
    if allowed:
        [key] = keys
        raw = re.search(r"((?:dev|prod)_[A-Za-z0-9]{40})", page).group(1)
        assert key.prefix == raw[:10]
    else:
        assert not keys.exists()
        assert not re.search(r"(dev|prod)_[A-Za-z0-9]{40}", page)


def test_a_key_made_by_an_outsider_action_cannot_exist_so_cannot_fill(
    staff, organization, other_organization
) -> None:
    """The reported escalation: Globex's owner runs "Create a production API key" on Acme's row,
    then uses the key on Acme's templates. The action does nothing, so there is no key to use."""
    template = template_create_from_pdf(
        organization=organization, title="Acme secret", pdf=blank_pdf(), publish=True
    )
    response = admin_action(
        client_of(staff["outsider"]),
        reverse("admin:accounts_organization_changelist"),
        "create_production_key",
        organization.pk,
    )

    assert not ApiKey.objects.exists()
    assert not re.search(r"prod_[A-Za-z0-9]{40}", shown(response))
    assert template.eid not in response.content.decode()


def test_an_action_on_a_mixed_selection_changes_nothing(staff, organization) -> None:
    labs = Organization.objects.create(slug="labs", name="Labs")
    member_add(organization=labs, user=staff["member"], role=Membership.Role.OWNER)

    response = admin_action(
        client_of(staff["member"]),
        reverse("admin:accounts_organization_changelist"),
        "create_production_key",
        organization.pk,
        labs.pk,
    )

    assert not ApiKey.objects.exists()
    assert "acme" in shown(response)


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_the_payload_key_action(staff, organization, role, allowed) -> None:
    response = admin_action(
        client_of(staff[role]),
        reverse("admin:accounts_organization_changelist"),
        "create_payload_key",
        organization.pk,
    )

    exists = PayloadKeyPair.objects.filter(organization=organization).exists()
    assert exists is allowed
    assert ("BEGIN PUBLIC KEY" in shown(response)) is allowed


def test_the_payload_key_action_does_not_replace_another_organizations_key(
    staff, organization, other_organization
) -> None:
    before = payload_key_create(organization=organization).public_pem

    admin_action(
        client_of(staff["outsider"]),
        reverse("admin:accounts_organization_changelist"),
        "create_payload_key",
        organization.pk,
        follow=False,
    )

    assert PayloadKeyPair.objects.get(organization=organization).public_pem == before


# --- API keys --------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_the_key_list_and_its_filter_name_only_ones_own(staff, acme_key, globex_key, role) -> None:
    page = client_of(staff[role]).get(reverse("admin:accounts_apikey_changelist"))

    assert page.status_code == 200
    listed = [k.name for k in page.context["cl"].result_list]
    assert listed == (["globex"] if role == "outsider" else ["acme"])
    html = page.content.decode()
    assert ("Globex Corp." in html) is (role == "outsider")
    assert ("Acme Inc." in html) is (role != "outsider")


@pytest.mark.parametrize("role", ROLES)
def test_filtering_keys_by_another_organization_shows_none_of_its_keys(
    staff, acme_key, globex_key, role
) -> None:
    other = globex_key if role != "outsider" else acme_key
    page = client_of(staff[role]).get(
        reverse("admin:accounts_apikey_changelist"),
        {"organization__id__exact": other.organization.pk},
    )

    # With one organization to offer, the admin shows no filter and ignores the parameter.
    assert page.status_code in (200, 302)
    if page.status_code == 200:
        assert other not in page.context["cl"].result_list
        assert other.name not in page.content.decode()


@pytest.mark.parametrize(("role", "expected"), PAGE_ACCESS)
def test_the_key_page(staff, acme_key, role, expected) -> None:
    page = client_of(staff[role]).get(reverse("admin:accounts_apikey_change", args=[acme_key.pk]))

    if not page_as_expected(page, expected):
        return


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_renaming_a_key(staff, acme_key, role, allowed) -> None:
    response = client_of(staff[role]).post(
        reverse("admin:accounts_apikey_change", args=[acme_key.pk]),
        {"kind": acme_key.kind, "name": "renamed", "user": ""},
    )

    acme_key.refresh_from_db()
    assert (acme_key.name == "renamed") is allowed
    if allowed:
        assert response.status_code == 302, response.content.decode()[:3000]
    else:
        assert response.status_code == 403 or is_missing(response)


def test_a_key_cannot_be_moved_to_another_organization_or_act_for_a_stranger(
    staff, acme_key, other_organization
) -> None:
    stranger = staff["outsider"]
    response = client_of(staff["owner"]).post(
        reverse("admin:accounts_apikey_change", args=[acme_key.pk]),
        {
            "organization": other_organization.pk,
            "kind": acme_key.kind,
            "name": "acme",
            "user": stranger.pk,
        },
    )

    acme_key.refresh_from_db()
    assert response.status_code == 200  # the form refuses the user
    assert acme_key.organization.slug == "acme"
    assert acme_key.user_id != stranger.pk


def test_a_key_offers_only_the_members_of_its_organization(staff, acme_key) -> None:
    page = client_of(staff["owner"]).get(
        reverse("admin:accounts_apikey_change", args=[acme_key.pk])
    )

    users = page.context["adminform"].form.fields["user"].queryset
    assert sorted(u.username for u in users) == ["acme-member", "acme-owner"]


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_the_revoke_action(staff, acme_key, role, allowed) -> None:
    response = admin_action(
        client_of(staff[role]), reverse("admin:accounts_apikey_changelist"), "revoke", acme_key.pk
    )

    acme_key.refresh_from_db()
    assert (acme_key.revoked_at is not None) is allowed
    assert ("Revoked 1 key" in shown(response)) is allowed


@pytest.mark.parametrize(("role", "allowed"), OWNER_ONLY)
def test_deleting_a_key(staff, acme_key, role, allowed) -> None:
    response = client_of(staff[role]).post(
        reverse("admin:accounts_apikey_delete", args=[acme_key.pk]), {"post": "yes"}
    )

    assert ApiKey.objects.filter(pk=acme_key.pk).exists() is not allowed
    if not allowed:
        assert response.status_code == 403 or is_missing(response)


@pytest.mark.parametrize(
    ("role", "visible"), [("owner", True), ("member", True), ("outsider", False)]
)
def test_the_key_history(staff, acme_key, role, visible) -> None:
    page = client_of(staff[role]).get(reverse("admin:accounts_apikey_history", args=[acme_key.pk]))

    assert page.status_code == 200 if visible else is_missing(page)


# --- payload keys ----------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_the_payload_key_list_names_only_ones_own(staff, organization, other_organization, role):
    payload_key_create(organization=organization)
    payload_key_create(organization=other_organization)

    page = client_of(staff[role]).get(reverse("admin:accounts_payloadkeypair_changelist"))

    assert page.status_code == 200
    listed = [p.organization.slug for p in page.context["cl"].result_list]
    assert listed == (["globex"] if role == "outsider" else ["acme"])


@pytest.mark.parametrize(
    ("role", "visible", "deletable"),
    [("owner", True, True), ("member", True, False), ("outsider", False, False)],
)
def test_the_payload_key_page_and_delete(staff, organization, role, visible, deletable) -> None:
    pair = payload_key_create(organization=organization)
    client = client_of(staff[role])

    page = client.get(reverse("admin:accounts_payloadkeypair_change", args=[pair.pk]))
    response = client.post(
        reverse("admin:accounts_payloadkeypair_delete", args=[pair.pk]), {"post": "yes"}
    )

    assert page.status_code == 200 if visible else is_missing(page)
    assert PayloadKeyPair.objects.filter(pk=pair.pk).exists() is not deletable
    if not deletable:
        assert response.status_code == 403 or is_missing(response)
