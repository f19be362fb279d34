"""Inputs found by fuzzing that used to be 500s: each is a 4xx in the wire shape now.

JSON nested deeper than any document needs, strings that are not Unicode (lone surrogates),
a ``data:`` URL whose base64 is broken, Markdown nested hundreds of levels deep, and paths
under /api/ that name nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.conftest import basic_auth
from tests.generate.conftest import URL as GENERATE_URL

pytestmark = pytest.mark.django_db


def nested(depth: int, leaf: Any = "x") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def nested_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def assert_wire_validation_error(response: Any, property: str | None = None) -> dict[str, Any]:
    assert response.status_code == 400, response.content[:500]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["name"] == "ValidationError"
    assert body["fields"]
    if property is not None:
        assert [f["property"] for f in body["fields"]] == [property], body
    return body


@pytest.fixture
def fill_url(demo_template) -> str:
    return f"/api/v1/fill/{demo_template.eid}.pdf"


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
def test_json_nested_too_deep_is_a_400_on_fill(api_client: Client, fill_url: str, depth) -> None:
    raw = json.dumps({"data": {"title": "x", "notes": "y"}})[:-1] + ', "deep": '
    raw += "[" * depth + "]" * depth + "}"
    response = api_client.post(fill_url, data=raw, content_type="application/json")

    body = assert_wire_validation_error(response, "")
    assert "nested" in body["fields"][0]["message"]


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_json_nested_too_deep_is_a_400_on_generate(api_client: Client, depth) -> None:
    raw = '{"type": "markdown", "data": [{"content": "x"}], "title": ' + nested_objects(depth) + "}"
    response = api_client.post(GENERATE_URL, data=raw, content_type="application/json")

    assert_wire_validation_error(response, "")


def test_json_nested_within_the_limit_parses(api_client: Client, fill_url: str) -> None:
    # An unknown key nested 60 deep is ignored like any unknown key: the fill succeeds.
    body = {"data": {"title": "x", "unknown": nested(60)}}
    response = api_client.post(fill_url, data=json.dumps(body), content_type="application/json")

    assert response.status_code == 200, response.content[:300]


def test_a_multipart_part_nested_too_deep_is_a_400(api_client: Client) -> None:
    response = api_client.post(
        GENERATE_URL, data={"type": "markdown", "data": "[" * 5000 + "]" * 5000}
    )

    assert_wire_validation_error(response, "data")


@pytest.mark.parametrize("surrogate", ["\\ud800", "\\udfff", "a\\udc80b"])
def test_a_lone_surrogate_in_a_fill_title_is_a_400(
    api_client: Client, fill_url: str, surrogate: str
) -> None:
    raw = '{"title": "' + surrogate + '", "data": {"title": "x"}}'
    response = api_client.post(fill_url, data=raw, content_type="application/json")

    body = assert_wire_validation_error(response, "title")
    assert "surrogate" in body["fields"][0]["message"]


def test_a_lone_surrogate_in_fill_data_is_a_400_naming_the_property(
    api_client: Client, fill_url: str
) -> None:
    raw = '{"data": {"title": "ok", "items": ["fine", "bad \\ud83d"]}}'
    response = api_client.post(fill_url, data=raw, content_type="application/json")

    assert_wire_validation_error(response, "data.items.1")


def test_a_lone_surrogate_in_a_key_is_a_400(api_client: Client, fill_url: str) -> None:
    raw = '{"data": {"title": "ok", "x\\ud800": 1}}'
    response = api_client.post(fill_url, data=raw, content_type="application/json")

    assert_wire_validation_error(response, "data")


def test_a_surrogate_pair_is_one_character_and_fills(api_client: Client, fill_url: str) -> None:
    raw = '{"title": "\\ud83d\\ude00", "data": {"title": "x"}}'
    response = api_client.post(fill_url, data=raw, content_type="application/json")

    assert response.status_code == 200, response.content[:300]


@pytest.mark.parametrize(
    ("body", "property"),
    [
        ({"type": "markdown", "title": "\ud800", "data": [{"content": "x"}]}, "title"),
        ({"type": "markdown", "data": [{"label": "\ud800"}]}, "data.0.label"),
        ({"type": "markdown", "data": [{"heading": "\udfff"}]}, "data.0.heading"),
        ({"type": "markdown", "data": [{"content": "a\ud800b"}]}, "data.0.content"),
        (
            {"type": "markdown", "data": [{"table": {"rows": [["\ud800"]]}}]},
            "data.0.table.rows.0.0",
        ),
        ({"type": "html", "data": {"html": "<p>\ud800</p>"}}, "data.html"),
        ({"type": "html", "data": {"html": "<p>x</p>", "css": "p{content:'\ud800'}"}}, "data.css"),
    ],
)
def test_a_lone_surrogate_in_any_generate_text_is_a_400(
    api_client: Client, body: dict[str, Any], property: str
) -> None:
    # json.dumps writes a lone surrogate as the escape \udXXX, as a client would send it.
    response = api_client.post(GENERATE_URL, data=json.dumps(body), content_type="application/json")

    assert_wire_validation_error(response, property)


@pytest.mark.parametrize(
    "url",
    [
        "data:image/png;base64,@@@@",
        "data:image/png;base64,A",
        "data:image/png;base64,AAAA=AAA",
        "data:image/png;base64,%ZZ",
        "data:image/png;base64",
        "data:",
    ],
)
def test_a_broken_data_url_in_an_image_field_leaves_the_image_out(
    api_client: Client, fill_url: str, url: str
) -> None:
    body = {"data": {"title": "x", "photo": url}}
    response = api_client.post(fill_url, data=json.dumps(body), content_type="application/json")

    # The spec: an image that cannot be used is left out, and the document is made.
    assert response.status_code == 200, response.content[:300]
    assert response.content.startswith(b"%PDF-")


@pytest.mark.parametrize("url", ["data:image/png;base64,@@@@", "data:image/png;base64,A"])
def test_a_broken_data_url_as_the_generate_logo_is_not_a_500(api_client: Client, url: str) -> None:
    body = {"type": "markdown", "data": [{"content": "x"}], "logo": {"src": url}}
    response = api_client.post(GENERATE_URL, data=json.dumps(body), content_type="application/json")

    assert response.status_code in (200, 400), response.content[:300]
    if response.status_code == 400:
        assert response.json()["name"] == "ValidationError"


@pytest.mark.parametrize(
    "markdown",
    [
        "".join("  " * level + "- item\n" for level in range(400)),
        "".join("   " * level + "1. item\n" for level in range(400)),
        ">" * 400 + " quoted",
        "- " * 400 + "x",
        "* " * 2000 + "x",
        "[" * 5000 + "x" + "]" * 5000,
        "*" * 5000 + "x" + "*" * 5000,
    ],
    ids=["bullets", "ordered", "quotes", "inline-bullets", "stars", "brackets", "emphasis"],
)
def test_markdown_nested_hundreds_deep_is_not_a_500(api_client: Client, markdown: str) -> None:
    body = {"type": "markdown", "data": [{"content": "fine"}, {"content": markdown}]}
    response = api_client.post(GENERATE_URL, data=json.dumps(body), content_type="application/json")

    # Markdown nests at most 20 levels (markdown-it); what is left may still be too deep for the
    # renderer, which is a 422 naming where it failed.
    assert response.status_code in (200, 400, 422), response.content[:300]
    if response.status_code == 400:
        assert_wire_validation_error(response, "data.1.content")
    elif response.status_code == 422:
        assert response.json()["name"] == "UnprocessableDocumentError"


@pytest.mark.parametrize("method", ["get", "post", "put", "delete"])
@pytest.mark.parametrize(
    "path",
    [
        "/api/",
        "/api/v1/",
        "/api/v1/nothing",
        "/api/v1/fill/",
        "/api/v2/fill/x.pdf",
        "/api/v1/x/y/z",
    ],
)
def test_unknown_api_paths_are_a_404_in_the_wire_shape(
    api_key: str, method: str, path: str
) -> None:
    # As a real client meets them: CSRF checks on (Django's test client turns them off).
    client = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=basic_auth(api_key))
    body = {"data": "{}", "content_type": "application/json"} if method != "get" else {}
    response = getattr(client, method)(path, **body)

    assert response.status_code == 404, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"name": "NotFoundError", "message": "Not found."}


def test_unknown_api_paths_are_a_404_without_credentials_too() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post("/api/v1/nothing", data="{}", content_type="application/json")

    assert response.status_code == 404
    assert response.json()["name"] == "NotFoundError"
