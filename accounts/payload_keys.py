"""Inbound payload encryption keys: create an organization's pair, decrypt what it is sent."""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import Organization, PayloadKeyPair
from core.engine.payload_crypto import (
    PayloadDecryptError,
    decrypt_payload,
    generate_keypair,
    protect_private_key,
    unprotect_private_key,
)
from core.errors import ValidationFailed


def _storage_secret() -> bytes:
    # A fixed-length derivation, so a short or unusual secret still makes a good PEM password.
    return (
        hashlib.sha256(b"payload-key:" + settings.PAYLOAD_KEY_SECRET.encode()).hexdigest().encode()
    )


@transaction.atomic
def payload_key_create(*, organization: Organization) -> PayloadKeyPair:
    """Create (or replace) the organization's key pair; returns it with the public key to show."""
    private_pem, public_pem = generate_keypair()
    pair, _ = PayloadKeyPair.objects.update_or_create(
        organization=organization,
        defaults={
            "public_pem": public_pem.decode(),
            "private_pem_encrypted": protect_private_key(private_pem, _storage_secret()).decode(),
        },
    )
    return pair


def payload_decrypt(*, organization: Organization, text: str, property: str = "data") -> Any:
    """The JSON value of an encrypted ``data`` string; a 400 on ``property`` if it does not open."""
    pair = PayloadKeyPair.objects.filter(organization=organization).first()
    if pair is None:
        raise ValidationFailed.single(
            property,
            "An encrypted string was sent, but the organization has no payload key pair.",
        )
    private_pem = unprotect_private_key(pair.private_pem_encrypted.encode(), _storage_secret())
    try:
        return decrypt_payload(text, private_pem)
    except PayloadDecryptError:
        raise ValidationFailed.single(
            property, "Could not decrypt: not encrypted with this organization's public key."
        ) from None
