"""The organization's webhook settings: its endpoint (URL, token, the integrator's public key)
and the secrets that sign its deliveries.

A URL is checked where it is set (:func:`check_webhook_url`, which may resolve the host name, so
never inside a transaction); events keep only its form (:func:`webhook_url_form`) and the
outbound guard checks the address again at every delivery.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Organization
from core.eids import random_base62
from core.engine.fetch import FetchError, check_address
from core.engine.input_checks import line_problem
from core.errors import ValidationFailed
from core.resources import webhook_policy
from webhooks.engine.signing import new_secret
from webhooks.models import WebhookEndpoint, WebhookSecret

TOKEN_LENGTH = 32
MIN_PUBLIC_KEY_BITS = 2048
MAX_PUBLIC_KEY_PEM = 10_000
_url_validator = URLValidator(schemes=["http", "https"])


def endpoint_get(*, organization: Organization, token: bool = True) -> WebhookEndpoint:
    """The organization's endpoint settings, made (with a token) on first use; ``token=False``
    leaves the token of a stored one unread (not decrypted), for who reads only the URL."""
    rows = WebhookEndpoint.objects.all() if token else WebhookEndpoint.objects.defer("token")
    # A callable default: the token is drawn only when the endpoint is made, not on every read.
    endpoint, _ = rows.get_or_create(
        organization=organization, defaults={"token": lambda: random_base62(TOKEN_LENGTH)}
    )
    return endpoint


NO_URL_REASON = "No webhook URL is set."
DISABLED_REASON = (
    "The webhook URL answered 410 Gone and was disabled; save it again to re-enable it."
)


def url_in_force(*, organization: Organization, webhook_url: str = "") -> tuple[str, str]:
    """Where a delivery goes now, and why nowhere when the URL is "": an event's own
    ``webhook_url``, else the organization's endpoint's (:func:`endpoint_url_in_force`)."""
    if webhook_url:
        return webhook_url, ""
    return endpoint_url_in_force(endpoint_get(organization=organization, token=False))


def endpoint_url_in_force(endpoint: WebhookEndpoint) -> tuple[str, str]:
    """The endpoint's URL unless none is saved or it was disabled (it answered 410 Gone: saving
    it again clears that), and why nowhere when the URL is ""."""
    if not endpoint.url:
        return "", NO_URL_REASON
    if endpoint.disabled_at is not None:
        return "", DISABLED_REASON
    return endpoint.url, ""


def check_webhook_url(url: str, *, property: str = "webhookURL") -> str:
    """``url`` stripped if it is an http(s) URL that deliveries may reach; a 400 on ``property``
    otherwise. Call it where a URL is set (never inside a transaction: it may resolve the host
    name): a URL the outbound guard would refuse at every delivery (a private or loopback
    address) is refused here, with the setting that would allow it."""
    url = webhook_url_form(url, property=property)
    try:
        check_address(url, webhook_policy())
    except FetchError as error:
        if error.code != "address_not_allowed":
            raise ValidationFailed.single(property, error.message) from None
        host = urlsplit(url).hostname or ""
        raise ValidationFailed.single(
            property,
            f"{host} is a private, loopback or otherwise non-public address, and webhooks are "
            "only sent to public ones. To allow it (a receiver on this machine or your "
            f"intranet), add {host} to the FETCH_ALLOW_HOSTS setting (or its network to "
            "FETCH_ALLOW_NETWORKS) and restart the service.",
        ) from None
    return url


def webhook_url_form(url: str, *, property: str = "webhookURL") -> str:
    """``url`` stripped if it is an http(s) URL; a 400 on ``property`` otherwise."""
    url = url.strip()
    try:
        _url_validator(url)
    except ValidationError:
        raise ValidationFailed.single(property, "Enter an http or https URL.") from None
    # The validator takes NUL and other control characters in the path (PostgreSQL stores no NUL).
    if problem := line_problem(url):
        raise ValidationFailed.single(property, problem)
    if len(url) > 2000:
        raise ValidationFailed.single(property, "The URL is longer than 2000 characters.")
    return url


def endpoint_url_set(*, organization: Organization, url: str) -> WebhookEndpoint:
    """Set (or with "" clear) the organization's URL; saving it re-enables a disabled endpoint."""
    checked = check_webhook_url(url, property="url") if url.strip() else ""  # before the writes
    with transaction.atomic():
        endpoint = endpoint_get(organization=organization)
        endpoint.url = checked
        endpoint.disabled_at = None
        endpoint.save(update_fields=["url", "disabled_at", "updated_at"])
    return endpoint


@transaction.atomic
def endpoint_token_rotate(*, organization: Organization) -> WebhookEndpoint:
    endpoint = endpoint_get(organization=organization)
    endpoint.token = random_base62(TOKEN_LENGTH)
    endpoint.save(update_fields=["token", "updated_at"])
    return endpoint


def check_public_key(pem: str) -> str:
    """The integrator's RSA public key as SPKI PEM; a 400 on ``publicKey`` if it is not one."""
    text = pem.strip()
    if len(text) > MAX_PUBLIC_KEY_PEM:
        raise ValidationFailed.single("publicKey", "The key file is too large for a public key.")
    if "PRIVATE KEY" in text:
        raise ValidationFailed.single(
            "publicKey", "This is a private key: upload the public key only, keep this one secret."
        )
    try:
        key = serialization.load_pem_public_key(text.encode())
    except (ValueError, TypeError):
        raise ValidationFailed.single(
            "publicKey", "Not a PEM public key (-----BEGIN PUBLIC KEY-----)."
        ) from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValidationFailed.single("publicKey", "The key must be an RSA key.")
    if key.key_size < MIN_PUBLIC_KEY_BITS:
        raise ValidationFailed.single(
            "publicKey", f"The key has {key.key_size} bits; at least {MIN_PUBLIC_KEY_BITS}."
        )
    spki = key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return spki.decode("ascii")


@transaction.atomic
def endpoint_public_key_set(*, organization: Organization, pem: str) -> WebhookEndpoint:
    """Register (or with "" remove) the integrator's key; from now on ``data`` is encrypted."""
    endpoint = endpoint_get(organization=organization)
    endpoint.public_key_pem = check_public_key(pem) if pem.strip() else ""
    endpoint.save(update_fields=["public_key_pem", "updated_at"])
    return endpoint


def secrets_current(
    *, organization: Organization, now: datetime | None = None
) -> list[WebhookSecret]:
    """The secrets that sign now, newest first; the first one is made on first use."""
    now = now or timezone.now()
    current = list(
        WebhookSecret.objects.filter(organization=organization).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        )
    )
    if not current:
        current = [
            WebhookSecret.objects.create(
                organization=organization, secret=new_secret(), created_at=now
            )
        ]
    return current


@transaction.atomic
def secret_rotate(*, organization: Organization, now: datetime | None = None) -> WebhookSecret:
    """A new signing secret; the previous one keeps signing for the overlap, then expires.

    At most two secrets sign at once: one still overlapping from an earlier rotation expires now.
    """
    now = now or timezone.now()
    overlap = timedelta(hours=settings.WEBHOOK_SECRET_OVERLAP_HOURS)
    WebhookSecret.objects.filter(organization=organization, expires_at__gt=now).update(
        expires_at=now
    )
    WebhookSecret.objects.filter(organization=organization, expires_at__isnull=True).update(
        expires_at=now + overlap
    )
    return WebhookSecret.objects.create(
        organization=organization, secret=new_secret(), created_at=now
    )
