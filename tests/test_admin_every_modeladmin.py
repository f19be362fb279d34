"""Every registered ModelAdmin, walked as a staff user of another organization.

The outsider is the owner of Globex, holds every model permission and is not a superuser; each
object is Acme's. For each model in ``admin.site._registry`` the outsider opens the list, the
change, delete and history pages, posts the change form (as the admin renders it to a superuser),
posts every action and the delete confirmation, opens the add page, every extra page of the admin
that takes an object id, and every autocomplete of the model's relations. None of it may show
Acme's object or anything in it, and none of it may change anything in the database.

A model registered later needs a factory in ``FACTORIES`` (tests/admin_walk.py; else its test
fails), and with it a rule: rows of an organization are seen by its members (``accounts.staff``);
users are seen by the members of their organizations; organizations by their members; task
results and groups, which belong to no organization, by superusers only.

Then each role of Acme itself walks the same pages: tests/test_admin_every_modeladmin_roles.py."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.db import models
from django.forms import ModelChoiceField
from django.urls import reverse
from django.utils.html import escape

from accounts.models import Membership, Organization, User
from accounts.services import member_add
from tests.accounts.test_admin_tenancy import PASSWORD, client_of
from tests.admin_walk import (
    FACTORIES,
    REGISTERED,
    SUPERUSER_ONLY,
    Tenant,
    admin_urls,
    body,
    object_urls,
    refused,
    snapshot,
    url_name,
)
from tests.workflows.test_admin import form_data

# The outsider's own webhook URL, which the change form must not give Acme's endpoint.
OUTSIDER_URL = "https://globex.example/hook"


@pytest.fixture
def outsider(other_organization: Organization) -> User:
    user = User.objects.create_user(username="globex-owner", password=PASSWORD, is_staff=True)
    user.user_permissions.set(Permission.objects.all())
    member_add(organization=other_organization, user=user, role=Membership.Role.OWNER)
    return user


def test_every_registered_model_has_a_factory() -> None:
    missing = [m._meta.label for m in REGISTERED if m not in FACTORIES]
    assert missing == [], f"admin models without a factory (and so untested): {missing}"


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model._meta.label)
def test_an_outsider_reaches_nothing_of_another_organization(
    model: type[models.Model], organization: Organization, outsider: User
) -> None:
    tenant = Tenant(organization)
    obj = tenant.get(model)
    model_admin = admin.site._registry[model]
    pk = obj.pk
    change_url, delete_url, history_url, changelist_url = admin_urls(model, pk)

    # A superuser sees the object, so the pages below are real; their form is what is posted.
    root = client_of(User.objects.create_superuser(username="root", password=PASSWORD))
    assert pk in [o.pk for o in root.get(changelist_url).context["cl"].result_list]
    form_page = root.get(change_url)
    assert form_page.status_code == 200
    change_data = form_data(form_page, f"{model._meta.model_name}_form")
    assert change_data, "the superuser's change page has no form to post"
    for name, value in change_data.items():
        if value.startswith(("http://", "https://")):
            change_data[name] = OUTSIDER_URL  # the redirection that was reported
    # Acme's objects of every model the relations of this one point to (for the autocomplete).
    relations = [
        field
        for field in model._meta.get_fields()
        if field.is_relation and field.concrete and field.related_model in admin.site._registry
    ]
    for field in relations:
        if field.related_model in FACTORIES:
            tenant.get(field.related_model)

    client = client_of(outsider)
    # Every hole found, not only the first: the test lists them all.
    problems: list[str] = []
    state = snapshot()

    def expect(condition: bool, problem: str) -> None:
        if not condition:
            problems.append(problem)

    def check(response: Any, what: str, *, echoed: str = "") -> None:
        nonlocal state
        text = body(response).replace(escape(echoed) if echoed else "\0", "")
        leaked = sorted(s for s in tenant.secrets if s in text or escape(s) in text)
        expect(not leaked, f"{what} shows Acme's {leaked}")
        now = snapshot()
        expect(now == state, f"{what} changed the database")
        state = now

    # The list.
    listing = client.get(changelist_url)
    check(listing, "the list")
    expected = 403 if model in SUPERUSER_ONLY else 200
    expect(listing.status_code == expected, f"the list answered {listing.status_code}")
    if listing.status_code == 200:
        expect(pk not in [o.pk for o in listing.context["cl"].result_list], "the list has it")
    # A search for it: the page repeats the words searched for, and must show nothing else.
    words = str(getattr(obj, "eid", "") or obj)
    found = client.get(changelist_url, {"q": words})
    check(found, "a search", echoed=words)
    if found.status_code == 200:
        expect(pk not in [o.pk for o in found.context["cl"].result_list], "a search finds it")

    # The object's pages, and posting its change form.
    for what, request in [
        ("the change page", lambda: client.get(change_url)),
        ("posting the change form", lambda: client.post(change_url, change_data)),
        ("the history", lambda: client.get(history_url)),
        ("the delete page", lambda: client.get(delete_url)),
    ]:
        response = request()
        check(response, what)
        expect(refused(response), f"{what} answered {response.status_code}")

    # Every action, on the object selected, confirmed as the delete action asks. An action
    # that deleted it ends the walk.
    actions = sorted(name for _, name, _ in model_admin._get_base_actions())
    for action in sorted(actions, key=lambda name: name == "delete_selected"):
        for data in ({}, {"post": "yes"}):
            response = client.post(
                changelist_url,
                {"action": action, "_selected_action": [pk], "index": "0", **data},
                follow=True,
            )
            check(response, f"the action {action}")
            if not model._default_manager.filter(pk=pk).exists():
                pytest.fail("\n".join([*problems, f"the action {action} deleted it"]))

    # The admin's other pages of one object (publish, preview, export, create a key …).
    for url in object_urls(model_admin, pk):
        for method in (client.get, client.post):
            response = method(url)
            check(response, f"{method.__name__.upper()} {url}")
            expect(refused(response), f"{url} answered {response.status_code}")

    # The add page offers none of Acme's objects (nor Acme) in any choice.
    adding = client.get(reverse(url_name(model, "add")))
    check(adding, "the add page")
    if adding.status_code == 200:
        forms = [adding.context["adminform"].form]
        for inline in adding.context["inline_admin_formsets"]:
            forms += [*inline.formset.forms, inline.formset.empty_form]
        for form in forms:
            for name, field in form.fields.items():
                if not isinstance(field, ModelChoiceField):
                    continue
                theirs = tenant.objects.get(field.queryset.model)
                if field.queryset.model is Organization:
                    theirs = organization
                if theirs is not None:
                    offered = field.queryset.filter(pk=theirs.pk).exists()
                    expect(not offered, f"the add page offers Acme's {theirs} as {name}")
    else:
        expect(adding.status_code == 403, f"the add page answered {adding.status_code}")

    # Autocompletes of this model's relations list only what the outsider sees.
    for field in relations:
        response = client.get(
            reverse("admin:autocomplete"),
            {
                "app_label": model._meta.app_label,
                "model_name": model._meta.model_name,
                "field_name": field.name,
                "term": "",
            },
        )
        check(response, f"the autocomplete of {field.name}")
        theirs = tenant.objects.get(field.related_model)
        if response.status_code == 200 and theirs is not None:
            ids = [r["id"] for r in response.json()["results"]]
            expect(str(theirs.pk) not in ids, f"the autocomplete of {field.name} offers it")

    # Last, as it would end the walk: posting the delete confirmation.
    response = client.post(delete_url, {"post": "yes"})
    check(response, "posting the delete confirmation")
    expect(refused(response), f"posting the delete confirmation answered {response.status_code}")
    expect(model._default_manager.filter(pk=pk).exists(), "it was deleted")

    if problems:
        pytest.fail("\n".join(problems))
