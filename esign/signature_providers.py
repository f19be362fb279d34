"""Which CSC v2 provider an organization's qualified signers use (issue 51), and how it is asked.

Its own ``QualifiedProvider`` row, else the settings' CSC_* provider, else none (then
createEtchPacket refuses a qualified signer). Read by the packet parser (esign.packets.
signature_levels), the qualified signer's pages (esign.signing.qualified_views) and the signing
itself (esign.sealing.qualified).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from core.engine.fetch import FetchPolicy
from esign.engine.csc_client import CscProvider
from esign.signature_models import QualifiedProvider


@dataclass(frozen=True)
class ProviderChoice:
    """The provider a packet's qualified signers use, and its name for them."""

    provider: CscProvider
    name: str


def qualified_provider(organization_id: int) -> ProviderChoice | None:
    """The organization's CSC provider (its QualifiedProvider row), else the settings' (CSC_*),
    else None: qualified signers cannot be asked for."""
    row = QualifiedProvider.objects.filter(organization_id=organization_id).first()
    if row is not None:
        return ProviderChoice(
            CscProvider(row.base_url, row.client_id, row.client_secret, row.oauth_url), row.name
        )
    if settings.CSC_BASE_URL and settings.CSC_CLIENT_ID:
        return ProviderChoice(
            CscProvider(
                settings.CSC_BASE_URL,
                settings.CSC_CLIENT_ID,
                settings.CSC_CLIENT_SECRET,
                settings.CSC_OAUTH_URL,
            ),
            settings.CSC_PROVIDER_NAME,
        )
    return None


def csc_policy() -> FetchPolicy:
    """How the provider is asked: its URL is an organization's setting, so it passes the
    address guard like any URL a customer names (FETCH_ALLOW_* for a private one)."""
    return FetchPolicy(
        deadline_seconds=settings.CSC_TIMEOUT_SECONDS,
        max_bytes=1_048_576,
        allow_hosts=frozenset(settings.FETCH_ALLOW_HOSTS),
        allow_networks=tuple(settings.FETCH_ALLOW_NETWORKS),
        user_agent="docautomation-csc/1",
    )
