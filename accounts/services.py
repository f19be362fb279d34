"""Organizations, memberships and API keys: every change to them goes through here."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import ApiKey, Membership, Organization, User
from core.eids import random_base62
from core.errors import Conflict, NotFound, ValidationFailed

KEY_PREFIXES = {ApiKey.Kind.DEVELOPMENT: "dev_", ApiKey.Kind.PRODUCTION: "prod_"}
KEY_RANDOM_LENGTH = 40
# last_used_at is advisory; writing it on every request would turn each call into a write.
LAST_USED_PRECISION = timedelta(minutes=1)


def hash_api_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


@transaction.atomic
def organization_create(*, slug: str, name: str) -> Organization:
    if slug != slugify(slug) or not slug:
        raise ValidationFailed.single("slug", "Use lowercase letters, digits and hyphens.")
    if Organization.objects.filter(slug=slug).exists():
        raise Conflict(f"An organization with the slug '{slug}' already exists.")
    return Organization.objects.create(slug=slug, name=name or slug)


def organization_get(*, slug: str) -> Organization:
    try:
        return Organization.objects.get(slug=slug)
    except Organization.DoesNotExist:
        raise NotFound(f"No organization with the slug '{slug}'.") from None


@transaction.atomic
def member_add(*, organization: Organization, user: User, role: str) -> Membership:
    membership, _ = Membership.objects.update_or_create(
        user=user, organization=organization, defaults={"role": role}
    )
    return membership


@transaction.atomic
def api_key_create(
    *, organization: Organization, kind: str, name: str = "", user: User | None = None
) -> tuple[ApiKey, str]:
    """Create a key; return it with the raw key, which is never stored and never shown again."""
    if kind not in ApiKey.Kind.values:
        raise ValidationFailed.single("kind", "Use 'development' or 'production'.")
    if user is None:
        owner = (
            Membership.objects.filter(organization=organization, role=Membership.Role.OWNER)
            .order_by("created_at")
            .select_related("user")
            .first()
        )
        user = owner.user if owner else None
    raw_key = KEY_PREFIXES[ApiKey.Kind(kind)] + random_base62(KEY_RANDOM_LENGTH)
    api_key = ApiKey.objects.create(
        organization=organization,
        kind=kind,
        name=name,
        prefix=raw_key[:10],
        key_hash=hash_api_key(raw_key),
        user=user,
    )
    return api_key, raw_key


def api_key_revoke(*, api_key: ApiKey) -> None:
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["revoked_at"])


def api_key_authenticate(*, raw_key: str) -> ApiKey | None:
    """The active key matching ``raw_key``, or None. Notes when it was last used."""
    if not raw_key or len(raw_key) > 200:
        return None
    api_key = (
        ApiKey.objects.select_related("organization", "user")
        .filter(key_hash=hash_api_key(raw_key), revoked_at__isnull=True)
        .first()
    )
    if api_key is None:
        return None
    now = timezone.now()
    if api_key.last_used_at is None or now - api_key.last_used_at > LAST_USED_PRECISION:
        ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
        api_key.last_used_at = now
    return api_key
