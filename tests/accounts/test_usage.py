"""API requests counted per key per day, in the authentication path: counted in the process and
written every API_KEY_USAGE_FLUSH_SECONDS (issue 38: off the request's path)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts import usage
from accounts.models import ApiKey, ApiKeyUsage, Organization
from accounts.services import api_key_create
from accounts.usage import api_key_usage, api_key_usage_count, api_key_usage_flush
from tests.conftest import basic_auth


@pytest.fixture(autouse=True)
def no_counts_of_other_tests() -> None:
    """Counts left in this process by other tests' requests (their rows rolled back since)."""
    usage._pending.clear()


QUERY = {"query": "{ currentUser { eid } }"}


@pytest.mark.django_db
def test_each_authenticated_request_counts_once_for_its_key_and_day(
    api_key: str, production_key: str, client_for: Callable[[str], Client]
) -> None:
    for _ in range(3):
        assert client_for(api_key).post("/graphql", QUERY, "application/json").status_code == 200
    client_for(production_key).post("/graphql", QUERY, "application/json")
    api_key_usage_flush()  # what the process does every API_KEY_USAGE_FLUSH_SECONDS

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


@pytest.mark.django_db
def test_requests_write_no_usage_until_the_flush_interval_has_passed(
    api_key: str, client_for: Callable[[str], Client], settings: Any, monkeypatch: Any
) -> None:
    settings.API_KEY_USAGE_FLUSH_SECONDS = 5
    clock = [1000.0]
    monkeypatch.setattr(usage.time, "monotonic", lambda: clock[0])
    usage._last_flush = clock[0]
    client = client_for(api_key)

    with CaptureQueriesContext(connection) as queries:
        for _ in range(3):
            assert client.post("/graphql", QUERY, "application/json").status_code == 200
    assert not [q for q in queries if "apikeyusage" in q["sql"]]  # nothing written per request
    assert ApiKeyUsage.objects.count() == 0

    clock[0] += 5
    client.post("/graphql", QUERY, "application/json")  # the first request after 5 s writes

    assert list(ApiKeyUsage.objects.values_list("count", flat=True)) == [4]


@pytest.mark.django_db
def test_the_usage_page_reads_this_processes_counts_too(organization: Organization) -> None:
    key, _ = api_key_create(organization=organization, kind="development")
    api_key_usage_count(api_key=key)

    _, rows = api_key_usage(organization_id=organization.pk, days=1)

    assert rows == [(key, [1])]
