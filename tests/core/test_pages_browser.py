"""The pages a person opens, in a real browser (headless Debian Chromium through Playwright):
the start page on a phone and a desktop, Swagger UI at /api/docs and GraphiQL at /graphql, each
working with no request leaving this machine. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from accounts.models import ApiKey, Organization
from accounts.services import api_key_create, member_add
from tests.axe import axe_violations
from tests.browser import CSP_REPORTER
from tests.templates_app.conftest import ARTIFACTS, PASSWORD, make_staff

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def open_page(browser, live_server):
    """Open a tab of the given viewport; every request to another host is refused and recorded,
    and any script error fails the test."""
    contexts = []
    foreign: list[str] = []
    errors: list[str] = []
    local = urlsplit(live_server.url).netloc

    def make(viewport: dict[str, int]):
        context = browser.new_context(viewport=viewport)
        contexts.append(context)

        def only_local(route) -> None:
            if urlsplit(route.request.url).netloc == local or route.request.url.startswith("data:"):
                route.continue_()
            else:
                foreign.append(route.request.url)
                route.abort()

        context.route("**/*", only_local)
        context.add_init_script(CSP_REPORTER)
        tab = context.new_page()
        tab.set_default_timeout(15_000)
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.on(
            "console",
            lambda msg: msg.text.startswith("CSP violation") and errors.append(msg.text),
        )
        return tab

    yield make
    for context in contexts:
        context.close()
    assert foreign == []
    assert errors == []


def no_horizontal_scroll(tab) -> bool:
    return tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_start_page_reads_on_a_phone_and_a_desktop(open_page, live_server) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        tab = open_page(viewport)
        response = tab.goto(live_server.url + "/")
        assert response.status == 200
        assert tab.title() == "Document automation service"
        assert no_horizontal_scroll(tab), name
        names = tab.locator("nav a.link").all_inner_texts()
        assert names == [
            "Admin",
            "Settings",
            "API reference",
            "GraphiQL",
            "Verify a signed PDF",
            "Health check",
        ]
        for link in tab.locator("nav a").all():
            assert link.is_visible()
            box = link.bounding_box()
            assert box["height"] >= 20  # a comfortable target for a finger
        body_size = tab.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
        assert body_size >= 16
        # Keyboard users see where they are.
        tab.keyboard.press("Tab")
        focused = tab.evaluate("document.activeElement.textContent")
        assert focused == "Admin"
        outline = tab.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid"
        tab.screenshot(path=str(ARTIFACTS / f"start-page-{name}.png"), full_page=True)
        tab.click("text=Health check")
        assert '"status": "ok"' in tab.content() or '"status":"ok"' in tab.content()


def test_swagger_ui_shows_the_api_reference_offline(open_page, live_server) -> None:
    tab = open_page(DESKTOP)
    tab.goto(live_server.url + "/api/docs")

    tab.wait_for_selector("text=Fill a PDF template")
    tab.wait_for_selector("text=Generate a PDF from HTML/CSS or Markdown")
    tab.click("text=Generate a PDF from HTML/CSS or Markdown")
    tab.wait_for_selector("text=422")
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "api-docs.png"), full_page=False)


def test_the_api_reference_has_a_graphql_section(open_page, live_server) -> None:
    tab = open_page(DESKTOP)
    tab.goto(live_server.url + "/api/docs")

    heading = tab.locator(".info h2", has_text="GraphQL")
    heading.wait_for()
    # The heading of createEtchPacket itself (createEtchPacketBatch's contains its name).
    tab.locator(".info h3", has_text=re.compile(r"createEtchPacket(?!Batch)")).wait_for()
    assert '"signerType": "email"' in tab.locator(".info").inner_text()
    heading.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "api-docs-graphql.png"), full_page=False)


def test_graphiql_runs_a_query_with_the_members_api_key(
    open_page, live_server, organization: Organization
) -> None:
    member = make_staff("explorer", organization)
    _, raw_key = api_key_create(
        organization=organization, kind=ApiKey.Kind.DEVELOPMENT, user=member
    )
    tab = open_page(DESKTOP)
    tab.goto(live_server.url + "/graphql")
    tab.wait_for_url("**/accounts/login/?next=/graphql")
    tab.fill("#id_username", member.username)
    tab.fill("#id_password", PASSWORD)
    tab.click("button[type=submit]")
    tab.wait_for_url(live_server.url + "/graphql")
    tab.wait_for_selector(".graphiql-container")
    assert tab.locator("#gq-key-state").inner_text() == (
        "Queries run as Acme Inc. with your session; mutations need an API key."
    )

    tab.fill("#gq-api-key", raw_key)
    tab.press("#gq-api-key", "Enter")
    tab.click(".graphiql-execute-button")
    result = tab.locator(".result-window")
    result.locator("text=Acme Inc.").wait_for()

    assert '"currentUser"' in result.inner_text()
    assert tab.locator("#gq-key-state").inner_text() == (
        "Queries and mutations run as this API key's organization."
    )
    assert tab.locator("#gq-org").is_disabled()
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "graphiql.png"))


def test_graphiql_runs_queries_with_the_members_session(
    browser, live_server, organization: Organization, other_organization: Organization
) -> None:
    """No key pasted: no 401 and no AuthorizationError; queries run as the organization chosen
    in the bar, which says so; a mutation says to paste a key."""
    member = make_staff("explorer", organization)
    member_add(organization=other_organization, user=member, role="member")
    statuses: list[int] = []
    console_errors: list[str] = []
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport)
        context.add_init_script(CSP_REPORTER)
        tab = context.new_page()
        tab.set_default_timeout(15_000)
        tab.on("response", lambda response: statuses.append(response.status))
        tab.on(
            "console",
            lambda msg: (
                msg.type == "error"
                and not msg.location.get("url", "").endswith("/favicon.ico")
                and console_errors.append(f"{msg.text} {msg.location.get('url')}")
            ),
        )
        tab.goto(live_server.url + "/graphql")
        tab.fill("#id_username", member.username)
        tab.fill("#id_password", PASSWORD)
        tab.click("button[type=submit]")
        tab.wait_for_url(live_server.url + "/graphql")
        tab.wait_for_selector(".graphiql-container")
        state = tab.locator("#gq-key-state")
        assert state.inner_text() == (
            "Queries run as Acme Inc. with your session; mutations need an API key."
        )
        assert axe_violations(tab, include=[".gq-bar"]) == []

        tab.click(".graphiql-execute-button")
        result = tab.locator(".result-window")
        result.locator("text=acme").first.wait_for()
        assert "AuthorizationError" not in result.inner_text()
        if name == "desktop":
            tab.select_option("#gq-org", "globex")
            assert "Globex" in state.inner_text()
            # GraphiQL takes the new fetcher when it next renders: on a loaded machine that can
            # be after a first run, so the query runs again until it answers as Globex.
            for _ in range(20):
                tab.click(".graphiql-execute-button")
                try:
                    result.locator("text=globex").first.wait_for(timeout=3_000)
                    break
                except PlaywrightTimeoutError:
                    continue
            result.locator("text=globex").first.wait_for()
            assert '"acme"' not in result.inner_text()
            ARTIFACTS.mkdir(exist_ok=True)
            tab.screenshot(path=str(ARTIFACTS / "graphiql-session.png"))
        else:
            tab.screenshot(path=str(ARTIFACTS / "graphiql-session-phone.png"))
        context.close()
    assert 401 not in statuses
    assert console_errors == []
