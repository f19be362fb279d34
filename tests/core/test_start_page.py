"""GET / is a start page for people; POST / stays the GraphQL alias the published clients use."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.test import Client

CURRENT_USER = '{"query":"{ currentUser { role } }"}'


def links(html: str) -> dict[str, str]:
    """href -> link text of every link on the page."""
    return {
        href: re.sub(r"<[^>]+>|\s+", " ", text).strip()
        for href, text in re.findall(r'<a [^>]*href="([^"]+)"[^>]*>(.*?)</a>', html, re.S)
    }


def test_get_root_is_a_start_page_without_a_login_prompt(db: None) -> None:
    response = Client().get("/", HTTP_ACCEPT="text/html")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "WWW-Authenticate" not in response
    html = response.content.decode()
    assert '<html lang="en">' in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "<h1>Document automation service</h1>" in html
    nav = html[html.index("<nav") : html.index("</nav>")]
    assert links(nav) == {
        "/admin/": "Admin",
        "/settings/": "Settings",
        "/api/docs": "API reference",
        "/api/openapi.json": "OpenAPI 3 (JSON)",
        "/graphql": "GraphiQL",
        "/graphql/schema.graphql": "Schema (SDL)",
        "/verify": "Verify a signed PDF",
        "/healthz": "Health check",
    }
    assert "http://127.0.0.1:8000" in html  # the base URL to give the clients


def test_every_link_of_the_start_page_answers(db: None) -> None:
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-12345678")
    client = Client()
    client.force_login(admin)

    html = client.get("/").content.decode()

    for href in links(html):
        response = client.get(href, HTTP_ACCEPT="text/html", follow=True)
        assert response.status_code == 200, href


def test_the_start_page_needs_no_accept_header_and_answers_head(db: None) -> None:
    assert Client().get("/").status_code == 200
    head = Client().head("/")
    assert head.status_code == 200
    assert head.content == b""


def test_the_start_page_names_who_is_signed_in(db: None) -> None:
    user = get_user_model().objects.create_user("ada", password="pw-12345678")
    client = Client()
    client.force_login(user)

    assert "Signed in as <strong>ada</strong>" in client.get("/").content.decode()


def test_the_admin_view_site_link_leads_to_the_start_page(db: None) -> None:
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-12345678")
    client = Client()
    client.force_login(admin)

    html = client.get("/admin/").content.decode()

    assert links(html)["/"] == "View site"


def test_post_root_is_still_graphql(api_client: Client) -> None:
    response = api_client.post("/", data=CURRENT_USER, content_type="application/json")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"data": {"currentUser": {"role": "owner"}}}


def test_post_root_without_a_key_is_still_the_api_401(db: None) -> None:
    response = Client().post("/", data=CURRENT_USER, content_type="application/json")

    assert response.status_code == 401
    assert response.json() == {"name": "AuthorizationError", "message": "Not logged in."}
    assert response["WWW-Authenticate"] == 'Basic realm="api"'


def test_get_root_with_an_api_key_is_still_the_api(api_client: Client) -> None:
    response = api_client.get("/")

    assert response.status_code == 200
    assert response.json() == {"graphql": "POST a JSON body {query, variables} here."}


def test_the_start_page_says_when_it_was_opened_at_another_address(db: None, settings) -> None:
    settings.PUBLIC_BASE_URL = "https://pdf.example.com"

    html = Client().get("/").content.decode()

    assert (
        '<p class="base-url"><span>Base URL</span> <code>https://pdf.example.com</code></p>' in html
    )
    assert "This page was opened at <code>http://testserver</code>" in html
    assert "<code>PUBLIC_BASE_URL</code>" in html


def test_the_start_page_has_no_note_at_its_own_address(db: None, settings) -> None:
    settings.PUBLIC_BASE_URL = "http://testserver"

    assert "was opened at" not in Client().get("/").content.decode()
