"""Single sign-on asks its provider through core.engine.fetch: the address guard applies to every
endpoint, with the issuer's own host let through (the operator named it) and FETCH_ALLOW_*
honoured as for any outbound URL."""

from __future__ import annotations

from typing import Any

import pytest

from accounts import sso


@pytest.fixture
def issuer_on_loopback(settings: Any) -> None:
    # Port 9 (discard) on loopback: nothing listens, so a request let through is refused there.
    settings.SSO_OIDC_ISSUER = "http://127.0.0.1:9/o"
    settings.FETCH_ALLOW_HOSTS = []
    settings.FETCH_ALLOW_NETWORKS = []


def ask_for_a_token(endpoint: str) -> str:
    backend = sso.SsoBackend()
    backend.OIDC_OP_TOKEN_ENDPOINT = endpoint
    with pytest.raises(sso.ProviderError) as refused:
        backend.get_token({"grant_type": "authorization_code", "code": "c"})
    return str(refused.value)


@pytest.mark.usefixtures("issuer_on_loopback")
def test_the_issuers_private_host_is_let_through() -> None:
    assert ask_for_a_token("http://127.0.0.1:9/o/token/") == "connection_failed"


@pytest.mark.usefixtures("issuer_on_loopback")
@pytest.mark.parametrize(
    "endpoint", ["http://10.0.0.1/token/", "http://127.0.0.2:9/token/", "http://localhost:9/t"]
)
def test_an_endpoint_on_another_private_host_is_refused_unasked(endpoint: str) -> None:
    assert ask_for_a_token(endpoint) == "address_not_allowed"


@pytest.mark.usefixtures("issuer_on_loopback")
def test_the_userinfo_and_keys_are_fetched_under_the_same_guard() -> None:
    backend = sso.SsoBackend()
    backend.OIDC_OP_USER_ENDPOINT = "http://10.0.0.1/userinfo/"
    backend.OIDC_OP_JWKS_ENDPOINT = "http://10.0.0.1/jwks/"

    with pytest.raises(sso.ProviderError, match="address_not_allowed"):
        backend.get_userinfo("access", "id", {})
    with pytest.raises(sso.ProviderError, match="address_not_allowed"):
        backend.retrieve_matching_jwk("a.b.c")


def test_fetch_allow_hosts_reach_the_provider_too(settings: Any) -> None:
    settings.SSO_OIDC_ISSUER = "https://login.example.com/realm"
    settings.FETCH_ALLOW_HOSTS = ["idp.intranet.example"]
    settings.FETCH_ALLOW_NETWORKS = ["10.1.0.0/16"]

    policy = sso.provider_policy()

    assert policy.allow_hosts == {"login.example.com", "idp.intranet.example"}
    assert policy.allow_networks == ("10.1.0.0/16",)
    assert policy.max_redirects == 0
