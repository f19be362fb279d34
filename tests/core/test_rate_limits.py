import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from tests.conftest import basic_auth

BODY = json.dumps({"query": "{ currentUser { eid } }"})


def call(client: Client):
    return client.post("/graphql", data=BODY, content_type="application/json")


def test_headers_on_success_and_on_errors(api_client: Client, settings) -> None:
    settings.RATE_LIMIT_DEVELOPMENT = 7
    settings.RATE_LIMIT_INTERVAL_MS = 60_000
    ok = call(api_client)
    unauthenticated = call(Client())
    not_found = api_client.post("/api/v1/nothing", data="{}", content_type="application/json")

    for response in (ok, unauthenticated, not_found):
        assert response["X-RateLimit-Limit"] == "7", response.status_code
        assert response["X-RateLimit-Interval-Ms"] == "60000"
    assert (ok.status_code, unauthenticated.status_code, not_found.status_code) == (200, 401, 404)


def test_production_keys_get_their_own_limit(production_key: str, client_for, settings) -> None:
    settings.RATE_LIMIT_PRODUCTION = 40

    assert call(client_for(production_key))["X-RateLimit-Limit"] == "40"


def test_over_the_limit_is_429_with_an_integer_retry_after(
    api_key: str, client_for, settings
) -> None:
    settings.RATE_LIMIT_DEVELOPMENT = 2
    settings.RATE_LIMIT_INTERVAL_MS = 60_000
    client = client_for(api_key)

    statuses = [call(client).status_code for _ in range(3)]

    assert statuses == [200, 200, 429]
    refused = call(client)
    assert refused.status_code == 429
    # The message names the limit, so a caller knows how to pace (issue 49, item 20).
    assert refused.json() == {
        "name": "RateLimitError",
        "message": "Rate limit exceeded: a development API key may make 2 requests every "
        f"60000 ms; retry after {refused['Retry-After']} s (Retry-After).",
    }
    assert refused["Retry-After"].isdigit()
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused["X-RateLimit-Limit"] == "2"


def test_each_key_has_its_own_bucket(
    api_key: str, other_api_key: str, client_for, settings
) -> None:
    settings.RATE_LIMIT_DEVELOPMENT = 1
    settings.RATE_LIMIT_INTERVAL_MS = 60_000

    assert call(client_for(api_key)).status_code == 200
    assert call(client_for(api_key)).status_code == 429
    assert call(client_for(other_api_key)).status_code == 200


WORKER = textwrap.dedent(
    """
    import os, sys, django
    sys.path.insert(0, os.environ["PROJECT_DIR"])
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    django.setup()
    from django.core.management import call_command
    if sys.argv[1] == "setup":
        call_command("createcachetable", verbosity=0)
        sys.exit(0)
    from accounts.ratelimit import rate_limit_hit
    allowed = sum(
        rate_limit_hit(bucket=sys.argv[2], limit=30, interval_ms=600_000).allowed for _ in range(20)
    )
    print(allowed)
    """
)


def _database_url_for_workers(tmp_path: Path) -> str:
    settings_dict = connection.settings_dict
    if connection.vendor == "postgresql":
        host = settings_dict["HOST"] or "127.0.0.1"
        user, password = settings_dict["USER"], settings_dict["PASSWORD"]
        port = settings_dict["PORT"] or 5432
        return f"postgres://{user}:{password}@{host}:{port}/{settings_dict['NAME']}"
    return f"sqlite:///{tmp_path / 'shared.sqlite3'}"


@pytest.mark.django_db(transaction=True)
def test_the_counter_holds_across_server_processes(tmp_path: Path) -> None:
    """Four processes hit one bucket 20 times each; exactly the limit (30) get through."""
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {
        **os.environ,
        "PROJECT_DIR": str(Path(__file__).resolve().parents[2]),
        "DATABASE_URL": _database_url_for_workers(tmp_path),
        "DATA_DIR": str(tmp_path),
    }
    subprocess.run([sys.executable, str(script), "setup"], env=env, check=True, timeout=60)
    bucket = f"procs-{os.getpid()}-{tmp_path.name}"
    workers = [
        subprocess.Popen(
            [sys.executable, str(script), "hit", bucket], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    allowed = [int(worker.communicate(timeout=120)[0]) for worker in workers]

    assert sum(allowed) == 30
    assert all(worker.returncode == 0 for worker in workers)


def test_unauthenticated_requests_use_the_development_limit_in_headers(db: None, settings) -> None:
    settings.RATE_LIMIT_DEVELOPMENT = 3
    response = Client(HTTP_AUTHORIZATION=basic_auth("nope")).post(
        "/graphql", data=BODY, content_type="application/json"
    )

    assert response.status_code == 401
    assert response["X-RateLimit-Limit"] == "3"


@pytest.mark.django_db(transaction=True)
def test_a_request_in_an_open_window_costs_one_read_and_one_compare_and_set_write() -> None:
    from django.test.utils import CaptureQueriesContext

    from accounts.ratelimit import rate_limit_hit

    now_ms = 1_000_000_000
    first = rate_limit_hit(bucket="k", limit=5, interval_ms=60_000, now_ms=now_ms)
    with CaptureQueriesContext(connection) as queries:
        second = rate_limit_hit(bucket="k", limit=5, interval_ms=60_000, now_ms=now_ms + 1)

    assert (first.count, second.count) == (1, 2)
    # SELECT, then UPDATE ... WHERE value = <read> (core.cache): no add() before, no lock held.
    statements = [
        q["sql"] for q in queries if q["sql"].split()[0] in ("SELECT", "UPDATE", "INSERT")
    ]
    assert len(statements) == 2, statements


@pytest.mark.parametrize("tries", [20, 1])
def test_an_increment_that_meets_another_one_counts_both(
    db: None, monkeypatch: pytest.MonkeyPatch, tries: int
) -> None:
    """Another process writes the counter between this increment's read and its write: the
    write finds the counter changed, reads it again (or, out of tries, takes the row's lock)."""
    from django.core.cache import caches

    import core.cache

    cache = caches["ratelimit"]
    cache.add("race", 1, timeout=60)
    decode = core.cache.CounterDatabaseCache._decode
    reads: list[str] = []

    def read_then_interfere(stored: str) -> object:
        reads.append(stored)
        if len(reads) == 1:
            cache.set("race", 5, timeout=60)  # the other process's write, after this read
        return decode(stored)

    monkeypatch.setattr(core.cache, "COMPARE_AND_SET_TRIES", tries)
    monkeypatch.setattr(
        core.cache.CounterDatabaseCache, "_decode", staticmethod(read_then_interfere)
    )

    assert cache.incr("race") == 6
    assert cache.get("race") == 6
    assert len(reads) == 2
