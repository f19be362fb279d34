"""Fixtures of the single sign-on identity tests (test_sso_takeover.py, test_sso_link.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import Organization
from tests.accounts.sso_flow import Idp, running_idp, sso_settings


@pytest.fixture(scope="module")
def idp(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, live_server: Any
) -> Iterator[Idp]:
    """A test provider whose people are the test module's ``PEOPLE``."""
    people = request.module.PEOPLE
    with running_idp(tmp_path_factory.mktemp("oidc"), live_server.url, people) as running:
        yield running


@pytest.fixture
def acme_sso(settings: Any, idp: Idp, organization: Organization) -> Idp:
    """Acme's provider, for addresses of acme.test and example.com (the issue's setup)."""
    sso_settings(settings, idp, organization.slug)
    settings.SSO_EMAIL_DOMAINS = ["acme.test", "example.com"]
    return idp
