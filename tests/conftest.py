"""Shared fixtures: organizations, their members and API keys, an authenticated client, and the
demo template."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from accounts.models import ApiKey, Organization, User
from accounts.services import api_key_create, member_add, organization_create
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_with_spec
from tests.browser import CHROMIUM, CHROMIUM_ARGS, integrator_app, watched_tab
from tests.pdfsound import assert_sound
from tests.s3server import s3_server, s3_storage  # noqa: F401 - fixtures for every test


def pytest_configure(config: pytest.Config) -> None:
    """Static files by their plain names, from the apps' and the project's static directories:
    the tests run no collectstatic (tests/core/test_static_files.py checks the hashed storage).
    Passwords hashed with a fast hasher. The database emptied after a committing test by
    tests/db_flush.py."""
    from django.conf import settings

    # WhiteNoise serves nothing in the tests (no STATIC_ROOT): the live server does.
    config.addinivalue_line("filterwarnings", "ignore:No directory at:UserWarning")
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Passwords hashed the fast way: Django's default (PBKDF2, a million rounds) is slow on
    # purpose, and every user a test creates or signs in paid it (0.37 s a hash, most of the
    # accounts tests' time). No test is about the hasher; the served settings keep the default.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # After a committing test, only the tables it wrote are emptied (tests/db_flush.py): Django's
    # flush truncated every table and wrote the content types again, 0.5-3.5 s a test.
    from tests import db_flush

    db_flush.install()


def basic_auth(raw_key: str, *, with_colon: bool = True) -> str:
    credentials = f"{raw_key}:" if with_colon else raw_key
    return "Basic " + base64.b64encode(credentials.encode()).decode()


def graphql_answer(client: Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer to ``query`` posted by ``client`` to /graphql as the clients post it."""
    body = json.dumps({"query": query, "variables": variables})
    return client.post("/graphql", data=body, content_type="application/json").json()


@pytest.fixture(autouse=True)
def _generous_rate_limits(settings: pytest.FixtureRequest) -> None:
    # Tests make many calls per second; the rate-limit tests set their own limits.
    settings.RATE_LIMIT_DEVELOPMENT = 100_000
    settings.RATE_LIMIT_PRODUCTION = 100_000
    # No worker seals the packets tests complete, so their seals stay queued and, a few seconds
    # into a slow test, would refuse its next createEtchPacket (esign.sending.intake); the
    # intake tests turn it on.
    settings.PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS = 0
    # Nor does a sweep vacuum the tables on a PostgreSQL server with autovacuum off (CI's):
    # tests/core/test_table_upkeep.py turns it on.
    settings.TABLE_UPKEEP_SECONDS = 0


@pytest.fixture(autouse=True)
def _media_in_tmp(settings: pytest.FixtureRequest, tmp_path: Path) -> None:
    # Stored files (template PDFs) go to a directory of the test's own: parallel workers never
    # share ./data, and a test can tell what it wrote.
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _every_fill_is_sound(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every PDF the fill engine produces in any test is checked for structural soundness.

    The check runs after the test, on each output against the base PDF it was made from (see
    tests/pdfsound.py); the fill endpoint, the admin's test fill, the editor's preview and the
    published clients' calls all go through ``assemble``.
    """
    import fill.engine.fill as fill_engine

    produced: list[tuple[bytes, bytes]] = []
    original = fill_engine.assemble

    def assemble_and_record(**arguments: Any) -> bytes:
        output = original(**arguments)
        produced.append((arguments["base"], output))
        return output

    monkeypatch.setattr(fill_engine, "assemble", assemble_and_record)
    yield
    for base, output in produced:
        assert_sound(output, template=base)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per test module (it takes a moment to start)."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread, which makes Django
    # refuse ORM calls from the test itself ("async context"); the tests are synchronous.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def embedder() -> Iterator[str]:
    """The origin of an integrator's app that frames our pages (tests.browser.integrator_app)."""
    with integrator_app() as origin:
        yield origin


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    """A desktop tab (1400 × 900) that may use the clipboard on the live server; the test fails
    on any script error in its pages (tests.browser.watched_tab)."""
    with watched_tab(browser, clipboard_origin=live_server.url) as tab:
        yield tab


@pytest.fixture
def organization(db: None) -> Organization:
    return organization_create(slug="acme", name="Acme Inc.")


@pytest.fixture
def other_organization(db: None) -> Organization:
    return organization_create(slug="globex", name="Globex Corp.")


@pytest.fixture
def owner(organization: Organization) -> User:
    user = User.objects.create_user(
        username="olivia", email="olivia@acme.test", first_name="Olivia", last_name="Owner"
    )
    member_add(organization=organization, user=user, role="owner")
    return user


@pytest.fixture
def api_key(organization: Organization, owner: User) -> str:
    _, raw_key = api_key_create(organization=organization, kind=ApiKey.Kind.DEVELOPMENT)
    return raw_key


@pytest.fixture
def production_key(organization: Organization, owner: User) -> str:
    _, raw_key = api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION)
    return raw_key


@pytest.fixture
def other_api_key(other_organization: Organization) -> str:
    _, raw_key = api_key_create(organization=other_organization, kind=ApiKey.Kind.DEVELOPMENT)
    return raw_key


@pytest.fixture
def api_client(api_key: str) -> Client:
    """A test client that sends the organization's development key on every request."""
    return Client(HTTP_AUTHORIZATION=basic_auth(api_key))


@pytest.fixture
def client_for() -> Callable[[str], Client]:
    def make(raw_key: str) -> Client:
        return Client(HTTP_AUTHORIZATION=basic_auth(raw_key))

    return make


@pytest.fixture
def demo_template(organization: Organization) -> PdfTemplate:
    """The demo template (every field type, two arrays) of ``organization``, published as v1."""
    pdf, spec = build_demo_template()
    return template_create_with_spec(
        organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
    )
