"""Every registered ModelAdmin, walked by each role of the organization that owns the object
(``test_each_role_of_the_organization``): a ``member`` sees what the documents say members see,
and changes, acts on or deletes nothing (its posts leave the database as it was; its delete
pages are refused); an ``admin`` or ``owner`` may do whatever a superuser may (the same pages
answer, no action is refused). PDF templates are every member's work (``accounts.staff``): a
member walks them as an owner does. Packets are walked open (with an email signer whose turn it
is: void, resend, delete) and completed (seal again).

The factories and the walk's helpers are in tests/admin_walk.py; the outsider's walk in
tests/test_admin_every_modeladmin.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.db import models

from accounts.models import Membership, Organization, User
from accounts.services import member_add
from esign.models import Packet
from templates_app.models import PdfTemplate
from tests.accounts.test_admin_tenancy import PASSWORD, client_of
from tests.admin_walk import (
    REGISTERED,
    SUPERUSER_ONLY,
    Tenant,
    _open_packet,
    admin_urls,
    body,
    object_urls,
    refused,
    snapshot,
)
from tests.workflows.test_admin import form_data

# --- each role of the organization -------------------------------------------------------------

ROLES = [Membership.Role.MEMBER, Membership.Role.ADMIN, Membership.Role.OWNER]
# Models every member changes as an owner does (accounts.staff: templates are everyday work).
MEMBERS_CHANGE = {PdfTemplate}
# The words of every refusal of an action to someone who is not an owner or admin.
REFUSAL = "only an owner or admin"
# The walks of each role: every model of an organization, and packets open and completed.
ROLE_WALKS = [
    pytest.param(model, {}, id=model._meta.label)
    for model in REGISTERED
    if model not in SUPERUSER_ONLY
] + [pytest.param(Packet, {Packet: _open_packet}, id="esign.Packet-open")]


def staff_of(organization: Organization, role: str, elsewhere: Organization) -> User:
    """Staff of ``organization`` in ``role``, with every permission, and the owner of another
    organization: what they may do there must not open what they may not do here."""
    user = User.objects.create_user(username=f"acme-{role}", password=PASSWORD, is_staff=True)
    user.user_permissions.set(Permission.objects.all())
    member_add(organization=organization, user=user, role=role)
    member_add(organization=elsewhere, user=user, role=Membership.Role.OWNER)
    return user


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("model", "factories"), ROLE_WALKS)
def test_each_role_of_the_organization(
    model: type[models.Model],
    factories: dict[type[models.Model], Callable[[Tenant], Any]],
    role: str,
    organization: Organization,
    other_organization: Organization,
) -> None:
    tenant = Tenant(organization, factories)
    obj = tenant.get(model)
    model_admin = admin.site._registry[model]
    pk = obj.pk
    change_url, delete_url, history_url, changelist_url = admin_urls(model, pk)
    manages = role != Membership.Role.MEMBER or model in MEMBERS_CHANGE

    # What a superuser gets, before anyone changes anything: the manager gets the same.
    root = client_of(User.objects.create_superuser(username="root", password=PASSWORD))
    form_page = root.get(change_url)
    change_data = form_data(form_page, f"{model._meta.model_name}_form")
    root_may_change = form_page.context["has_change_permission"]
    root_delete = root.get(delete_url).status_code
    extra_urls = object_urls(model_admin, pk)
    root_gets = {url: root.get(url).status_code for url in extra_urls}

    client = client_of(staff_of(organization, role, other_organization))
    problems: list[str] = []
    # Every row of every table, read again after each request: only for a role that may not
    # change the model (31 of the 45 role tests manage theirs, and compare nothing).
    state = {} if manages else snapshot()

    def expect(condition: bool, problem: str) -> None:
        if not condition:
            problems.append(problem)

    def unchanged(what: str) -> None:
        """A member's request: nothing in the database may have changed."""
        nonlocal state
        if manages:
            return
        now = snapshot()
        expect(now == state, f"{what} changed the database")
        state = now

    # Every member sees the object: its list and its page.
    listing = client.get(changelist_url)
    expect(listing.status_code == 200, f"the list answered {listing.status_code}")
    if listing.status_code == 200:
        expect(pk in [o.pk for o in listing.context["cl"].result_list], "the list lacks it")
    page = client.get(change_url)
    expect(page.status_code == 200, f"the change page answered {page.status_code}")
    expect(client.get(history_url).status_code == 200, "the history is refused")
    if page.status_code == 200:
        may_change = page.context["has_change_permission"]
        expected = root_may_change and manages
        expect(may_change == expected, f"the change page offers changes: {may_change}")
    delete_page = client.get(delete_url)
    if manages:
        expect(delete_page.status_code == root_delete, f"the delete page: {delete_page}")
    else:
        expect(refused(delete_page), f"the delete page answered {delete_page.status_code}")
    unchanged("looking")

    # The admin's other pages of one object, as the superuser got them, then posted.
    for url in extra_urls:
        got = client.get(url)
        if manages:
            expect(got.status_code == root_gets[url], f"GET {url} answered {got.status_code}")
        unchanged(f"GET {url}")
    response = client.post(change_url, change_data)
    unchanged("posting the change form")
    if not manages:
        expect(refused(response), f"posting the change form answered {response.status_code}")

    # Every action but deleting (last): a manager's is not refused, a member's does nothing.
    actions = sorted(name for _, name, _ in model_admin._get_base_actions())
    for action in [name for name in actions if name != "delete_selected"]:
        for data in ({}, {"post": "yes"}):
            response = client.post(
                changelist_url,
                {"action": action, "_selected_action": [pk], "index": "0", **data},
                follow=True,
            )
            if manages:
                expect(REFUSAL not in body(response), f"the action {action} was refused")
            unchanged(f"the action {action}")
    for url in extra_urls:
        client.post(url)
        unchanged(f"POST {url}")

    # Last: deleting, as the superuser may (a completed packet is kept, even for them).
    for what, request in [
        ("the action delete_selected", lambda: client.post(
            changelist_url,
            {"action": "delete_selected", "_selected_action": [pk], "post": "yes"},
        )),
        ("posting the delete confirmation", lambda: client.post(delete_url, {"post": "yes"})),
    ]:  # fmt: skip
        request()
        unchanged(what)
    if not manages:
        expect(model._default_manager.filter(pk=pk).exists(), "it was deleted")

    if problems:
        pytest.fail("\n".join(problems))
