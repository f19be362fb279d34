"""Every registered ModelAdmin, walked as a staff user of another organization.

The outsider is the owner of Globex, holds every model permission and is not a superuser; each
object is Acme's. For each model in ``admin.site._registry`` the outsider opens the list, the
change, delete and history pages, posts the change form (as the admin renders it to a superuser),
posts every action and the delete confirmation, opens the add page, every extra page of the admin
that takes an object id, and every autocomplete of the model's relations. None of it may show
Acme's object or anything in it, and none of it may change anything in the database.

A model registered later needs a factory in ``FACTORIES`` (else its test fails), and with it a
rule: rows of an organization are seen by its members (``accounts.staff``); users are seen by the
members of their organizations; organizations by their members; task results and groups, which
belong to no organization, by superusers only.

Then each role of Acme itself walks the same pages (``test_each_role_of_the_organization``): a
``member`` sees what the documents say members see, and changes, acts on or deletes nothing
(its posts leave the database as it was; its delete pages are refused); an ``admin`` or
``owner`` may do whatever a superuser may (the same pages answer, no action is refused). PDF
templates are every member's work (``accounts.staff``): a member walks them as an owner does.
Packets are walked open (with an email signer whose turn it is: void, resend, delete) and
completed (seal again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.db import models
from django.forms import ModelChoiceField
from django.urls import URLPattern, reverse
from django.utils.html import escape
from django_tasks_db.models import DBTaskResult

from accounts.models import ApiKey, Membership, Organization, PayloadKeyPair, User
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, member_add
from core.models import SentEmail
from esign.models import BulkBatch, BulkRow, DocumentGroup, Packet, Signer
from esign.signature_models import QualifiedProvider
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf
from tests.accounts.test_admin_tenancy import PASSWORD, client_of, is_missing
from tests.pdfcheck import blank_pdf
from tests.workflows.test_admin import form_data
from webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import endpoint_url_set, event_emit
from webhooks.tasks import webhook_deliver
from workflows.models import Submission, Webform, Workflow

# The outsider's own webhook URL, which the change form must not give Acme's endpoint.
OUTSIDER_URL = "https://globex.example/hook"
# Models that belong to no organization: only superusers see them.
SUPERUSER_ONLY = {DBTaskResult, Group, SentEmail}


class Tenant:
    """Acme's objects, one of each model, made on demand, and the strings they must not leak."""

    def __init__(
        self,
        organization: Organization,
        factories: dict[type[models.Model], Callable[[Tenant], Any]] | None = None,
    ) -> None:
        self.organization = organization
        # The factories of this walk: FACTORIES, some replaced (an open packet).
        self.factories = {**FACTORIES, **(factories or {})}
        self.objects: dict[type[models.Model], models.Model] = {}
        self.secrets: set[str] = set()

    def get(self, model: type[models.Model]) -> Any:
        if model not in self.objects:
            if model not in self.factories:
                pytest.fail(
                    f"{model._meta.label} is registered in the admin but has no factory in "
                    "tests/test_admin_every_modeladmin.py: add one, and scope its admin."
                )
            obj = self.factories[model](self)
            self.objects[model] = obj
            self.secrets.add(str(obj))
            if getattr(obj, "eid", ""):
                self.secrets.add(obj.eid)
        return self.objects[model]


def _user(tenant: Tenant) -> User:
    user = User.objects.create_user(username="acme-secret-member", email="secret@acme.test")
    member_add(organization=tenant.organization, user=user, role=Membership.Role.MEMBER)
    return user


def _group(tenant: Tenant) -> Group:
    group = Group.objects.create(name="acme-secret-group")
    group.user_set.add(tenant.get(User))
    return group


def _api_key(tenant: Tenant) -> ApiKey:
    key, raw = api_key_create(
        organization=tenant.organization, kind=ApiKey.Kind.PRODUCTION, name="acme-secret-key"
    )
    tenant.secrets.update({raw, "acme-secret-key"})
    return key


def _payload_key(tenant: Tenant) -> PayloadKeyPair:
    pair = payload_key_create(organization=tenant.organization)
    tenant.secrets.add(pair.public_pem.splitlines()[1])
    return pair


def _template(tenant: Tenant) -> PdfTemplate:
    return template_create_from_pdf(
        organization=tenant.organization, title="acme-secret-template", pdf=blank_pdf()
    )


def _packet(tenant: Tenant) -> Packet:
    # Completed and not sealed: the "seal again" action would enqueue it.
    packet = Packet.objects.create(
        organization=tenant.organization, name="acme-secret-packet", status="completed"
    )
    DocumentGroup.objects.create(packet=packet, status=packet.status)
    return packet


def _bulk_batch(tenant: Tenant) -> BulkBatch:
    """A draft bulk send (its Send would start it) with one row."""
    batch = BulkBatch.objects.create(
        organization=tenant.organization,
        name="acme-secret-bulk-send",
        status="draft",
        shape={"name": "acme-secret-shape"},
        columns=["name"],
        rows_total=1,
    )
    BulkRow.objects.create(batch=batch, index=0, values={"name": "acme-secret-row"})
    return batch


def _open_packet(tenant: Tenant) -> Packet:
    """Sent, with an email signer whose turn it is: void, resend and delete would act on it."""
    packet = Packet.objects.create(
        organization=tenant.organization, name="acme-secret-packet", status="sent"
    )
    DocumentGroup.objects.create(packet=packet, status=packet.status)
    Signer.objects.create(
        packet=packet, alias_id="client", name="Ada", email="ada@acme.example", status="sent"
    )
    return packet


def _workflow(tenant: Tenant) -> Workflow:
    return Workflow.objects.create(
        organization=tenant.organization, name="acme-secret-workflow", slug="acme-workflow"
    )


def _webform(tenant: Tenant) -> Webform:
    return Webform.objects.create(
        workflow=tenant.get(Workflow), name="acme-secret-webform", slug="acme-webform"
    )


def _submission(tenant: Tenant) -> Submission:
    return Submission.objects.create(
        workflow=tenant.get(Workflow), definition={}, display_title="acme-secret-submission"
    )


def _endpoint(tenant: Tenant) -> WebhookEndpoint:
    endpoint = endpoint_url_set(
        organization=tenant.organization, url="https://acme.example/secret-hook"
    )
    tenant.secrets.update({endpoint.url, endpoint.token})
    return endpoint


def _qualified_provider(tenant: Tenant) -> QualifiedProvider:
    provider = QualifiedProvider.objects.create(
        organization=tenant.organization,
        name="Acme's QTSP",
        base_url="https://qtsp.acme.example/csc/v2",
        client_id="acme-client",
        client_secret="acme-csc-secret",
    )
    tenant.secrets.update({provider.base_url, provider.client_secret})
    return provider


def _event(tenant: Tenant) -> WebhookEvent:
    tenant.get(WebhookEndpoint)
    event = event_emit(
        organization=tenant.organization,
        action=WebhookEvent.Action.FORGE_COMPLETE,
        data={"answers": {"ssn": "acme-secret-answer"}},
    )
    tenant.secrets.add("acme-secret-answer")
    return event


def _delivery(tenant: Tenant) -> WebhookDelivery:
    return tenant.get(WebhookEvent).deliveries.get()


def _task_result(tenant: Tenant) -> DBTaskResult:
    result = webhook_deliver.enqueue(delivery_id=tenant.get(WebhookDelivery).pk)
    return DBTaskResult.objects.get(pk=result.id)


def _sent_email(tenant: Tenant) -> SentEmail:
    # A development email holds live signing links of every organization: superusers only.
    tenant.secrets.add("acme-secret-signing-link")
    return SentEmail.objects.create(
        from_email="noreply@localhost",
        to="ada@acme.example",
        subject="acme-secret-subject",
        body="Sign here: acme-secret-signing-link",
    )


FACTORIES: dict[type[models.Model], Callable[[Tenant], Any]] = {
    User: _user,
    Group: _group,
    Organization: lambda tenant: tenant.organization,
    ApiKey: _api_key,
    PayloadKeyPair: _payload_key,
    PdfTemplate: _template,
    Packet: _packet,
    BulkBatch: _bulk_batch,
    Workflow: _workflow,
    Webform: _webform,
    Submission: _submission,
    QualifiedProvider: _qualified_provider,
    WebhookEndpoint: _endpoint,
    WebhookEvent: _event,
    WebhookDelivery: _delivery,
    DBTaskResult: _task_result,
    SentEmail: _sent_email,
}

REGISTERED = sorted(admin.site._registry, key=lambda model: model._meta.label)


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Every row of every table but the sessions: what an outsider's request may not change."""
    return {
        model._meta.label: list(model._default_manager.order_by("pk").values())
        for model in apps.get_models()
        if model is not Session
    }


def body(response: Any) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode(errors="replace")
    return response.content.decode(errors="replace")


def refused(response: Any) -> bool:
    """Forbidden, not found, the wrong method, or the admin's "does not exist" redirect."""
    return response.status_code in (403, 404, 405) or is_missing(response)


def url_name(model: type[models.Model], view: str) -> str:
    return f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}"


def object_urls(model_admin: admin.ModelAdmin, pk: Any) -> list[str]:
    """The admin's own pages of one object beyond change, delete and history (``get_urls``)."""
    standard = {f"{model_admin.opts.app_label}_{model_admin.opts.model_name}_{view}"
                for view in ("change", "delete", "history")}  # fmt: skip
    urls = []
    for pattern in model_admin.get_urls():
        if not isinstance(pattern, URLPattern) or not pattern.name or pattern.name in standard:
            continue
        converters = list(getattr(pattern.pattern, "converters", {}))
        if not converters:
            continue
        # The admin's pages of one object start with its id (object_id, id, packet_id …).
        kwargs = {name: (str(pk) if name == converters[0] else "1") for name in converters}
        urls.append(reverse(f"admin:{pattern.name}", kwargs=kwargs))
    return urls


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
    change_url = reverse(url_name(model, "change"), args=[pk])
    delete_url = reverse(url_name(model, "delete"), args=[pk])
    history_url = reverse(url_name(model, "history"), args=[pk])
    changelist_url = reverse(url_name(model, "changelist"))

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
    change_url = reverse(url_name(model, "change"), args=[pk])
    delete_url = reverse(url_name(model, "delete"), args=[pk])
    history_url = reverse(url_name(model, "history"), args=[pk])
    changelist_url = reverse(url_name(model, "changelist"))
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
