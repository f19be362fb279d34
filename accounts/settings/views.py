"""The organization's settings page (/settings/<slug>/): the page itself, and the changes of
accounts' own sections (API keys, the inbound payload key pair, embedding origins).

Members log in (accounts' login page). Every member of the organization sees the page; owners
and admins change things (members get 403 on every change, and see the token and signing
secret masked). Someone who is not a member gets 404, as for an organization that does not exist.
Each change is a POST of a plain form, answered with a redirect back to its section, except a
new API key: that response shows the key once and is not stored anywhere. Other apps' changes
(webhooks.views) use the same :func:`changes` and :func:`back`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts.embedding import embed_origins, embed_origins_set
from accounts.models import ApiKey, Membership, PayloadKeyPair
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, api_key_revoke
from accounts.settings.sections import settings_context, settings_parts, settings_sections
from accounts.usage import api_key_usage
from core.engine.input_checks import line_problem
from core.errors import NotFound, ValidationFailed
from core.responses import file_response

CHANGE_ROLES = frozenset({Membership.Role.OWNER, Membership.Role.ADMIN})
USAGE_DAYS = 14


class PageErrors:
    """A refused change's messages, by where the page shows them: a control's name
    (``key_name``, ``webhook_url``...) or, for a message no control owns, its section's anchor.

    Not a dict: a template resolves ``errors.keys`` on a dict with no "keys" entry to the
    dict's ``keys`` method, and the API keys section showed ``dict_keys(['webhook'])``.
    Here a name with no message is "", whatever the name.
    """

    def __init__(
        self, messages: Mapping[str, str] | None = None, targets: Mapping[str, str] | None = None
    ) -> None:
        self._messages = dict(messages or {})
        self._targets = dict(targets or {})

    def __getitem__(self, name: str) -> str:
        return self._messages.get(name, "")

    def __bool__(self) -> bool:
        return bool(self._messages)

    def summary(self) -> list[dict[str, str]]:
        """The page's error summary, at its top: each message and the id of what it links to
        (the control, or else the section), as GOV.UK's error summary does."""
        return [
            {"message": message, "target": self._targets.get(name, name.replace("_", "-"))}
            for name, message in self._messages.items()
        ]


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


def back(slug: str, section: str) -> HttpResponse:
    """The redirect after a change: the page, at the section that changed."""
    return redirect(reverse("settings:page", args=[slug]) + f"#{section}")


def changed(
    request: HttpRequest, membership: Membership, section: str, message: str
) -> HttpResponse:
    """A change made: its message on the page, and back to the section that changed."""
    messages.success(request, message)
    return back(membership.organization.slug, section)


def actor(request: HttpRequest) -> str:
    """Who asked, as deliveries and audit entries name them."""
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
        return redirect("settings:page", memberships[0].organization.slug)
    return render(request, "accounts/settings/choose.html", {"memberships": memberships})


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
    errors: PageErrors | None = None,
    status: int = 200,
) -> HttpResponse:
    organization = membership.organization
    days, usage = api_key_usage(organization_id=organization.pk, days=USAGE_DAYS)
    context: dict[str, Any] = {
        **settings_context(request, organization),
        "organization": organization,
        "membership": membership,
        "can_change": _can_change(membership),
        "sections": settings_sections(),
        "parts": settings_parts(),
        "keys": ApiKey.objects.filter(organization=organization).order_by(
            "revoked_at", "-created_at"
        ),
        "new_key": new_key,
        "payload_key": PayloadKeyPair.objects.filter(organization=organization).first(),
        "embed_origins": embed_origins(organization),
        "usage_days": days,
        "usage": usage,
        "errors": errors or PageErrors(),
        # Not errors.summary: a template reads that as errors["summary"], "".
        "error_summary": errors.summary() if errors else [],
        "form": request.POST if errors else {},
    }
    response = render(request, "accounts/settings/page.html", context, status=status)
    if new_key is not None:
        response["Cache-Control"] = "no-store"
    return response


def changes(view: Any) -> Any:
    """A POST that changes the organization: login, membership, an owner's or admin's role.

    The view gets the membership; a ValidationFailed it raises re-renders the page, status 400,
    nothing changed, each message beside the control its field names (``view.controls``) or
    else at the top of the section the view names (``view.section``).
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
            return _render(request, membership, errors=_errors(view, failure), status=400)
        except NotFound as missing:
            raise Http404(missing.message) from None

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def _errors(view: Any, failure: ValidationFailed) -> PageErrors:
    placed: dict[str, list[str]] = {}
    for field in failure.fields:
        where = view.controls.get(field.property, view.section)
        placed.setdefault(where, []).append(field.message)
    return PageErrors(
        {where: " ".join(texts) for where, texts in placed.items()}, targets=view.targets
    )


def section(
    name: str,
    controls: Mapping[str, str] | None = None,
    targets: Mapping[str, str] | None = None,
) -> Any:
    """Where a change's refusal shows its messages (see :func:`changes`): beside the control
    ``controls`` maps the field's property to (its error's name in the template), else at the
    top of the section ``name``. The error summary links each message to the element whose id
    is the error's name with "-" for "_" (``key_name``: ``#key-name``), or ``targets[name]``."""

    def mark(view: Any) -> Any:
        view.section = name
        view.controls = dict(controls or {})
        view.targets = dict(targets or {})
        return view

    return mark


@changes
@section(
    "keys",
    controls={"name": "key_name", "kind": "key_kind"},
    targets={"key_kind": "kind-development"},
)
def key_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    kind = request.POST.get("kind", "")
    name = request.POST.get("name", "").strip()
    if len(name) > 100:
        raise ValidationFailed.single("name", "A key's name has at most 100 characters.")
    if problem := line_problem(name):
        raise ValidationFailed.single("name", problem)
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
    return changed(
        request, membership, "keys", f"Key {api_key.prefix}… revoked: it no longer works."
    )


@changes
@section("encryption")
def payload_key_new(request: HttpRequest, membership: Membership) -> HttpResponse:
    payload_key_create(organization=membership.organization)
    return changed(
        request,
        membership,
        "encryption",
        "New inbound key pair: download the public key and encrypt with it.",
    )


@never_cache
@login_required
@require_GET
def payload_key_download(request: HttpRequest, slug: str) -> HttpResponse:
    membership = _membership(request, slug)
    pair = PayloadKeyPair.objects.filter(organization=membership.organization).first()
    if pair is None:
        raise Http404("No inbound key pair yet.")
    return file_response(
        pair.public_pem, filename=f"{slug}-public-key.pem", content_type="application/x-pem-file"
    )


@changes
@section("embedding", controls={"embedOrigins": "origins"})
def embed_origins_save(request: HttpRequest, membership: Membership) -> HttpResponse:
    embed_origins_set(
        organization=membership.organization,
        lines=request.POST.get("origins", "").splitlines(),
    )
    return changed(request, membership, "embedding", "Embedding origins saved.")
