"""The organization's API settings page (/settings/<slug>/): API keys, webhooks, payload keys,
embedding origins, the delivery log and usage per key.

Members log in (accounts' login page). Every member of the organization sees the page; owners
and admins change things (members get 403 on every change, and see the token and signing
secret masked). Someone who is not a member gets 404, as for an organization that does not exist.
Each change is a POST of a plain form, answered with a redirect back to its section, except a
new API key: that response shows the key once and is not stored anywhere.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import OuterRef, Prefetch, Subquery
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts.embedding import embed_origins, embed_origins_set
from accounts.models import ApiKey, Membership, PayloadKeyPair
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, api_key_revoke
from accounts.usage import api_key_usage
from core.errors import NotFound, ValidationFailed
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEvent
from webhooks.services import (
    NO_URL_REASON,
    deliveries_filter,
    delivery_get,
    delivery_resend,
    endpoint_get,
    endpoint_public_key_set,
    endpoint_token_rotate,
    endpoint_url_set,
    secret_rotate,
    secrets_current,
    webhook_test,
)

CHANGE_ROLES = frozenset({Membership.Role.OWNER, Membership.Role.ADMIN})
LOG_PAGE_SIZE = 20
USAGE_DAYS = 14
MAX_KEY_UPLOAD_BYTES = 10_000


def _membership(request: HttpRequest, slug: str) -> Membership:
    membership = (
        Membership.objects.select_related("organization")
        .filter(user=request.user, organization__slug=slug)
        .first()
    )
    if membership is None:
        raise Http404("No such organization.")
    return membership


def _can_change(membership: Membership) -> bool:
    return membership.role in CHANGE_ROLES


def _back(slug: str, section: str) -> HttpResponse:
    return redirect(reverse("webhooks:settings", args=[slug]) + f"#{section}")


def _actor(request: HttpRequest) -> str:
    return f"{request.user} (settings page)"


@login_required
@require_GET
def settings_index(request: HttpRequest) -> HttpResponse:
    """The settings of the user's organization; a list when they belong to several."""
    memberships = list(
        Membership.objects.filter(user=request.user)
        .select_related("organization")
        .order_by("organization__name")
    )
    if len(memberships) == 1:
        return redirect("webhooks:settings", memberships[0].organization.slug)
    return render(request, "webhooks/choose.html", {"memberships": memberships})


@never_cache
@login_required
@require_GET
def settings_page(request: HttpRequest, slug: str) -> HttpResponse:
    return _render(request, _membership(request, slug))


def _render(
    request: HttpRequest,
    membership: Membership,
    *,
    new_key: tuple[ApiKey, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    organization = membership.organization
    can_change = _can_change(membership)
    endpoint = endpoint_get(organization=organization)
    signing = secrets_current(organization=organization)
    filters = {
        "status": request.GET.get("status", ""),
        "action": request.GET.get("action", ""),
        "q": request.GET.get("q", "")[:100],
    }
    deliveries = deliveries_filter(
        organization=organization,
        status=filters["status"],
        action=filters["action"],
        search=filters["q"],
    ).prefetch_related(Prefetch("attempts", queryset=WebhookAttempt.objects.order_by("number")))
    # Whether a delivery is its event's first (a test someone sent) or a later one (resent).
    first_of_event = WebhookDelivery.objects.filter(event=OuterRef("event")).order_by("id")
    deliveries = deliveries.annotate(first_id=Subquery(first_of_event.values("id")[:1]))
    log = Paginator(deliveries, LOG_PAGE_SIZE).get_page(request.GET.get("page"))
    for delivery in log:
        delivery.origin = _origin(delivery)
        # "No webhook URL is set." on every row says less than the one note above the log.
        delivery.note = (
            ""
            if delivery.status == WebhookDelivery.Status.DELIVERED
            or (not endpoint.is_active and delivery.last_error == NO_URL_REASON)
            else delivery.last_error
        )
        # Resending goes to the event's own URL or the organization's: offered only when one
        # is in force, and not while the delivery is still being tried.
        delivery.resendable = delivery.status != WebhookDelivery.Status.PENDING and bool(
            delivery.event.webhook_url or endpoint.is_active
        )
    days, usage = api_key_usage(organization_id=organization.pk, days=USAGE_DAYS)
    context: dict[str, Any] = {
        "organization": organization,
        "membership": membership,
        "can_change": can_change,
        "keys": ApiKey.objects.filter(organization=organization).order_by(
            "revoked_at", "-created_at"
        ),
        "new_key": new_key,
        "endpoint": endpoint,
        "signing_secrets": signing,
        "payload_key": PayloadKeyPair.objects.filter(organization=organization).first(),
        "embed_origins": embed_origins(organization),
        "log": log,
        "filters": filters,
        "filter_query": urlencode({k: v for k, v in filters.items() if v}),
        "statuses": WebhookDelivery.Status.choices,
        "actions": WebhookEvent.Action.values,
        "usage_days": days,
        "usage": usage,
        "errors": errors or {},
        "form": request.POST if errors else {},
    }
    response = render(request, "webhooks/settings.html", context, status=status)
    if new_key is not None:
        response["Cache-Control"] = "no-store"
    return response


def _origin(delivery: Any) -> str:
    """Who asked for a delivery, in words: "" for an event's own delivery."""
    if not delivery.requested_by:
        return ""
    if delivery.pk != delivery.first_id:
        return f"Resent by {delivery.requested_by}"
    if delivery.event.action == WebhookEvent.Action.WEBHOOK_TEST:
        return f"Test sent by {delivery.requested_by}"
    return f"Sent by {delivery.requested_by}"


def changes(view: Any) -> Any:
    """A POST that changes the organization: login, membership, an owner's or admin's role.

    The view gets the membership; a ValidationFailed it raises re-renders the page with the
    message in the section the view names (``view.section``), status 400, nothing changed.
    """

    @login_required
    @require_POST
    def wrapped(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        membership = _membership(request, slug)
        if not _can_change(membership):
            return HttpResponseForbidden(
                "Only the organization's owners and admins can change this."
            )
        try:
            return view(request, membership, **kwargs)
        except ValidationFailed as failure:
            message = " ".join(f.message for f in failure.fields)
            return _render(request, membership, errors={view.section: message}, status=400)
        except NotFound as missing:
            raise Http404(missing.message) from None

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def section(name: str) -> Any:
    def mark(view: Any) -> Any:
        view.section = name
        return view

    return mark


@changes
@section("keys")
def key_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    kind = request.POST.get("kind", "")
    name = request.POST.get("name", "").strip()
    if len(name) > 100:
        raise ValidationFailed.single("name", "A key's name has at most 100 characters.")
    api_key, raw_key = api_key_create(
        organization=membership.organization, kind=kind, name=name, user=request.user
    )
    # Shown in this response only: the key is stored as a hash.
    return _render(request, membership, new_key=(api_key, raw_key))


@changes
@section("keys")
def key_revoke(request: HttpRequest, membership: Membership, eid: str) -> HttpResponse:
    api_key = ApiKey.objects.filter(organization=membership.organization, eid=eid).first()
    if api_key is None:
        raise NotFound("No such key.")
    api_key_revoke(api_key=api_key)
    messages.success(request, f"Key {api_key.prefix}… revoked: it no longer works.")
    return _back(membership.organization.slug, "keys")


@changes
@section("webhook")
def webhook_url_save(request: HttpRequest, membership: Membership) -> HttpResponse:
    endpoint_url_set(organization=membership.organization, url=request.POST.get("url", ""))
    messages.success(request, "Webhook URL saved.")
    return _back(membership.organization.slug, "webhook")


@changes
@section("webhook")
def webhook_token_rotate(request: HttpRequest, membership: Membership) -> HttpResponse:
    endpoint_token_rotate(organization=membership.organization)
    messages.success(request, "New webhook token: deliveries carry it from now on.")
    return _back(membership.organization.slug, "webhook")


@changes
@section("webhook")
def webhook_secret_rotate(request: HttpRequest, membership: Membership) -> HttpResponse:
    secret_rotate(organization=membership.organization)
    messages.success(
        request, "New signing secret. The previous one also signs until its expiry shown below."
    )
    return _back(membership.organization.slug, "webhook")


@changes
@section("webhook")
def webhook_send_test(request: HttpRequest, membership: Membership) -> HttpResponse:
    delivery = webhook_test(organization=membership.organization, requested_by=_actor(request))
    if delivery.status == WebhookDelivery.Status.SKIPPED:
        messages.warning(request, f"Test event recorded but not sent: {delivery.last_error}")
    else:
        messages.success(request, "Test event queued; it appears in the delivery log.")
    return _back(membership.organization.slug, "log")


@changes
@section("encryption")
def webhook_public_key_save(request: HttpRequest, membership: Membership) -> HttpResponse:
    if request.POST.get("remove"):
        pem = ""
    else:
        upload = request.FILES.get("public_key_file")
        if upload is not None:
            if upload.size is None or upload.size > MAX_KEY_UPLOAD_BYTES:
                raise ValidationFailed.single("publicKey", "The key file is too large.")
            pem = upload.read().decode("ascii", errors="replace")
        else:
            pem = request.POST.get("public_key", "")
        if not pem.strip():
            raise ValidationFailed.single("publicKey", "Choose a PEM file or paste the key.")
    endpoint_public_key_set(organization=membership.organization, pem=pem)
    messages.success(
        request,
        "Webhook data is now encrypted with your public key."
        if pem
        else "Public key removed: webhook data is sent unencrypted.",
    )
    return _back(membership.organization.slug, "encryption")


@changes
@section("encryption")
def payload_key_new(request: HttpRequest, membership: Membership) -> HttpResponse:
    payload_key_create(organization=membership.organization)
    messages.success(request, "New inbound key pair: download the public key and encrypt with it.")
    return _back(membership.organization.slug, "encryption")


@never_cache
@login_required
@require_GET
def payload_key_download(request: HttpRequest, slug: str) -> HttpResponse:
    membership = _membership(request, slug)
    pair = PayloadKeyPair.objects.filter(organization=membership.organization).first()
    if pair is None:
        raise Http404("No inbound key pair yet.")
    response = HttpResponse(pair.public_pem, content_type="application/x-pem-file")
    response["Content-Disposition"] = f'attachment; filename="{slug}-public-key.pem"'
    return response


@changes
@section("embedding")
def embed_origins_save(request: HttpRequest, membership: Membership) -> HttpResponse:
    embed_origins_set(
        organization=membership.organization,
        lines=request.POST.get("origins", "").splitlines(),
    )
    messages.success(request, "Embedding origins saved.")
    return _back(membership.organization.slug, "embedding")


@changes
@section("log")
def delivery_resend_view(request: HttpRequest, membership: Membership, eid: str) -> HttpResponse:
    delivery = delivery_get(organization=membership.organization, eid=eid)
    resent = delivery_resend(delivery=delivery, requested_by=_actor(request))
    messages.success(request, f"Event {delivery.event.eid} resent (log {resent.eid}).")
    return _back(membership.organization.slug, "log")
