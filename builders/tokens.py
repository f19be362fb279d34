"""generateEmbedURL's tokens: issued for one object of the caller's organization, checked on
every request of the embedded builder.

A token is a random secret in the URL's path (third-party cookies are blocked in iframes, so no
session can carry it); only its SHA-256 is stored. It opens one object, of one kind
(``EmbedToken.EmbedType``), for the actions it names, until it expires or is revoked: every
builder request goes through :func:`embed_token_open` and, for what changes something,
:func:`require`, which refuse in the wire shape (404 for a token that opens nothing, 403 for an
action it does not grant).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.identity import ApiIdentity
from accounts.models import Organization
from builders.models import EmbedToken
from core.engine.problems import Problem
from core.errors import NotFound, ServiceError, ValidationFailed
from templates_app.services import template_get
from workflows.embedded import webform_of

EmbedType = EmbedToken.EmbedType

# The actions each builder can grant, and what a token grants when the caller names none (the
# hosted API's tokens name none: its builder does everything it offers).
PERMISSIONS: dict[str, tuple[str, ...]] = {
    EmbedType.PDF_TEMPLATE: ("edit", "publish"),
    EmbedType.ETCH_PACKET: ("edit", "send"),
    EmbedType.WORKFLOW: ("edit", "publish"),
}
DEFAULT_VALID_SECONDS = 2 * 60 * 60
MAX_VALID_SECONDS = 7 * 24 * 60 * 60
# Keys of ``options`` a builder reads; any other is refused (a typo would otherwise be ignored).
OPTION_KEYS: dict[str, frozenset[str]] = {
    EmbedType.PDF_TEMPLATE: frozenset({"pageTitle"}),
    EmbedType.ETCH_PACKET: frozenset({"pageTitle", "castEids", "isTest"}),
    EmbedType.WORKFLOW: frozenset({"pageTitle", "forgeEid"}),
}
# Options of the hosted API's builders that these builders do not have (its preset-fields mode,
# its copy changes, its settings pages): accepted, so that code written for it runs unchanged,
# and not acted on (docs/embedding-builders.md lists them).
HOSTED_OPTIONS_IGNORED: dict[str, frozenset[str]] = {
    EmbedType.PDF_TEMPLATE: frozenset(
        {
            "mode",
            "title",
            "description",
            "selectionDescription",
            "finishButtonText",
            "selectionAddAnotherFieldText",
            "showPageTitleBar",
            "fields",
        }
    ),
    EmbedType.ETCH_PACKET: frozenset(),
    EmbedType.WORKFLOW: frozenset({"showSettingsPage", "showWebformOptions"}),
}
MAX_CAST_EIDS = 50
METADATA_MAX_BYTES = 4096


class EmbedForbidden(ServiceError):
    """An action the token does not grant."""

    name = "ForbiddenError"
    status = 403
    default_message = "This link does not allow that."


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def embed_url(row: EmbedToken, token: str) -> str:
    path = reverse("builders-page", args=[row.embed_type, token])
    return f"{settings.PUBLIC_BASE_URL}{path}"


def _permissions(value: Any, embed_type: str, problems: list[Problem]) -> list[str]:
    offered = PERMISSIONS[embed_type]
    if value is None:
        return list(offered)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        problems.append(Problem("permissions", "A non-empty list of actions."))
        return []
    unknown = [v for v in value if v not in offered]
    if unknown:
        problems.append(
            Problem(
                "permissions",
                f"Not an action of {embed_type}: {', '.join(unknown)} "
                f"(one or more of {', '.join(offered)}).",
            )
        )
    return [p for p in offered if p in value]


def _options(
    value: Any, embed_type: str, organization: Organization, problems: list[Problem]
) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(Problem("options", "An object."))
        return {}
    ignored = HOSTED_OPTIONS_IGNORED[embed_type]
    options = {key: item for key, item in value.items() if key not in ignored}
    unknown = sorted(set(options) - OPTION_KEYS[embed_type])
    if unknown:
        problems.append(Problem("options", f"Not an option of {embed_type}: {', '.join(unknown)}."))
    title = options.get("pageTitle")
    if title is not None and (not isinstance(title, str) or len(title) > 200):
        problems.append(Problem("options.pageTitle", "Text of at most 200 characters."))
    forge = options.get("forgeEid")
    if forge is not None and (not isinstance(forge, str) or not forge):
        problems.append(Problem("options.forgeEid", "A webform's eid (forge eid)."))
    if "isTest" in options and not isinstance(options["isTest"], bool):
        problems.append(Problem("options.isTest", "true or false."))
    casts = options.get("castEids")
    if casts is not None:
        if (
            not isinstance(casts, list)
            or len(casts) > MAX_CAST_EIDS
            or not all(isinstance(c, str) for c in casts)
        ):
            problems.append(
                Problem("options.castEids", f"A list of at most {MAX_CAST_EIDS} template eids.")
            )
        else:
            for index, eid in enumerate(casts):
                try:
                    template_get(organization=organization, eid=eid)
                except NotFound as missing:
                    problems.append(Problem(f"options.castEids.{index}", missing.message))
    return options


def _object_checked(
    organization: Organization, embed_type: str, eid: str, options: dict[str, Any]
) -> None:
    """NotFound unless ``eid`` names an object of ``organization`` the builder opens."""
    if embed_type == EmbedType.PDF_TEMPLATE:
        template_get(organization=organization, eid=eid)
    elif embed_type == EmbedType.WORKFLOW:
        webform_of(
            organization=organization, workflow_eid=eid, webform_eid=options.get("forgeEid") or ""
        )
    elif eid != organization.eid:
        # The packet builder makes a new packet of the organization: its eid is the eid.
        raise NotFound(f"No organization with eid '{eid}'.")


def embed_url_generate(
    *,
    identity: ApiIdentity,
    eid: Any,
    embed_type: Any,
    valid_for_seconds: Any = None,
    permissions: Any = None,
    metadata: Any = None,
    options: Any = None,
) -> tuple[EmbedToken, str]:
    """generateEmbedURL: a new token for ``eid`` and the URL that opens the builder with it."""
    organization = identity.organization
    problems: list[Problem] = []
    if embed_type not in PERMISSIONS:
        raise ValidationFailed.single(
            "type", f"One of {', '.join(PERMISSIONS)}: the builder to open."
        )
    if not isinstance(eid, str) or not eid:
        raise ValidationFailed.single("eid", "Required: the eid of what the builder opens.")
    seconds = DEFAULT_VALID_SECONDS if valid_for_seconds is None else valid_for_seconds
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int)
        or not (1 <= seconds <= MAX_VALID_SECONDS)
    ):
        problems.append(
            Problem("validForSeconds", f"A whole number of seconds from 1 to {MAX_VALID_SECONDS}.")
        )
    granted = _permissions(permissions, embed_type, problems)
    if metadata is not None and not isinstance(metadata, Mapping):
        problems.append(Problem("metadata", "An object (handed back in the builder's events)."))
    elif metadata is not None and len(json.dumps(metadata)) > METADATA_MAX_BYTES:
        problems.append(Problem("metadata", f"At most {METADATA_MAX_BYTES} characters."))
    checked_options = _options(options, embed_type, organization, problems)
    if problems:
        raise ValidationFailed.from_problems(problems)
    _object_checked(organization, embed_type, eid, checked_options)
    token = secrets.token_urlsafe(32)
    row = EmbedToken.objects.create(
        organization=organization,
        embed_type=embed_type,
        object_eid=eid,
        permissions=granted,
        options=checked_options,
        metadata=dict(metadata or {}),
        watermark=identity.is_development,
        token_hash=_hash(token),
        expires_at=timezone.now() + timedelta(seconds=seconds),
    )
    return row, embed_url(row, token)


def embed_token_open(*, token: str, embed_type: str) -> EmbedToken:
    """The live token ``token`` for a builder of ``embed_type``; NotFound otherwise (unknown,
    another builder's, expired or revoked: all alike, so a guess learns nothing)."""
    row = (
        EmbedToken.objects.select_related("organization")
        .filter(token_hash=_hash(token), embed_type=embed_type)
        .first()
    )
    if row is None or row.revoked_at is not None or row.expires_at <= timezone.now():
        raise NotFound("This link has expired or does not exist: ask for a new one.")
    return row


def require(row: EmbedToken, action: str) -> None:
    """EmbedForbidden unless the token grants ``action``."""
    if action not in row.permissions:
        raise EmbedForbidden(f"This link does not allow '{action}'.")


def embed_token_revoke(*, identity: ApiIdentity, request_token_eid: Any) -> bool:
    """expireEmbedURL: the token stops working now. NotFound for another organization's."""
    with transaction.atomic():
        row = (
            EmbedToken.objects.select_for_update()
            .filter(organization=identity.organization, eid=request_token_eid)
            .first()
        )
        if row is None:
            raise NotFound(f"No embed token with eid '{request_token_eid}'.")
        if row.revoked_at is None:
            row.revoked_at = timezone.now()
            row.save(update_fields=["revoked_at"])
    return True
