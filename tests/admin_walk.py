"""What the walks of every registered ModelAdmin share (tests/test_admin_every_modeladmin.py and
tests/test_admin_every_modeladmin_roles.py): a ``Tenant`` (an organization with its staff), a
factory for one object of every registered model (``FACTORIES``: a model registered later needs
one), the database snapshot a walk must leave unchanged, and the object's admin URLs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.db import models
from django.urls import URLPattern, reverse
from django_tasks_db.models import DBTaskResult

from accounts.models import ApiKey, Membership, Organization, PayloadKeyPair, User
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, member_add
from core.models import SentEmail
from esign.models import BulkBatch, BulkRow, DocumentGroup, Packet, Signer
from esign.signature_models import QualifiedProvider
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf
from tests.accounts.test_admin_tenancy import is_missing
from tests.pdfcheck import blank_pdf
from webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import endpoint_url_set, event_emit
from webhooks.tasks import webhook_deliver
from workflows.models import Submission, Webform, Workflow

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
                    "tests/admin_walk.py (FACTORIES): add one, and scope its admin."
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


def admin_urls(model: type[models.Model], pk: Any) -> tuple[str, str, str, str]:
    """The standard admin pages of one object: its change, delete and history pages, and its
    model's list."""
    return (
        reverse(url_name(model, "change"), args=[pk]),
        reverse(url_name(model, "delete"), args=[pk]),
        reverse(url_name(model, "history"), args=[pk]),
        reverse(url_name(model, "changelist")),
    )


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
