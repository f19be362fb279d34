"""API requests counted per key per day, in the authentication path."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest
from django.test import Client

from accounts.models import ApiKey, ApiKeyUsage, Organization
from accounts.services import api_key_create
from accounts.usage import api_key_usage, api_key_usage_count
from tests.conftest import basic_auth

QUERY = {"query": "{ currentUser { eid } }"}


@pytest.mark.django_db
def test_each_authenticated_request_counts_once_for_its_key_and_day(
    api_key: str, production_key: str, client_for: Callable[[str], Client]
) -> None:
    for _ in range(3):
        assert client_for(api_key).post("/graphql", QUERY, "application/json").status_code == 200
    client_for(production_key).post("/graphql", QUERY, "application/json")

    counts = {u.api_key.kind: u.count for u in ApiKeyUsage.objects.select_related("api_key")}
    assert counts == {"development": 3, "production": 1}


@pytest.mark.django_db
def test_a_refused_key_counts_nothing(organization: Organization) -> None:
    key, raw_key = api_key_create(organization=organization, kind="development")
    key.revoked_at = key.created_at
    key.save()

    response = Client(HTTP_AUTHORIZATION=basic_auth(raw_key)).post(
        "/graphql", QUERY, "application/json"
    )

    assert response.status_code == 401
    assert ApiKeyUsage.objects.count() == 0


@pytest.mark.django_db
def test_api_key_usage_lists_each_key_per_day_newest_first(organization: Organization) -> None:
    key, _ = api_key_create(organization=organization, kind="development")
    idle, _ = api_key_create(organization=organization, kind="production")
    for day in (date(2026, 3, 1), date(2026, 3, 3), date(2026, 3, 3)):
        api_key_usage_count(api_key=key, day=day)
    api_key_usage_count(api_key=key, day=date(2026, 1, 1))  # outside the window

    days, rows = api_key_usage(organization_id=organization.pk, days=3, today=date(2026, 3, 3))

    assert days == [date(2026, 3, 3), date(2026, 3, 2), date(2026, 3, 1)]
    assert rows == [(key, [2, 0, 1])]
    assert isinstance(idle, ApiKey)
