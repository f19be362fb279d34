import json
import logging
from pathlib import Path

import pytest
from django.test import Client


def test_unknown_api_path_is_a_json_404(api_client: Client) -> None:
    response = api_client.post("/api/v1/nothing-here", data="{}", content_type="application/json")

    assert response.status_code == 404
    assert response.json() == {"name": "NotFoundError", "message": "Not found."}


def test_healthz_checks_the_database(db: None) -> None:
    response = Client().get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_every_response_carries_a_request_id(db: None) -> None:
    response = Client().get("/healthz", HTTP_X_REQUEST_ID="trace-12345678")

    assert response["X-Request-Id"] == "trace-12345678"
    assert len(Client().get("/healthz")["X-Request-Id"]) == 16


@pytest.mark.urls("tests.core.echo_urls")
def test_unexpected_errors_are_a_500_that_echoes_nothing(api_client: Client, caplog) -> None:
    query = 'mutation { explode(secret: "hunter2-secret") }'
    with caplog.at_level(logging.ERROR):
        response = api_client.post(
            "/graphql", data=json.dumps({"query": query}), content_type="application/json"
        )

    body = response.json()
    assert body["errors"][0]["message"] == "Internal server error."
    assert "hunter2" not in response.content.decode()
    assert "unhandled Boom" in caplog.text
    assert "hunter2" not in caplog.text


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/x"),
        ("post", "/api/v1/fill/abc.pdf"),
        ("post", "/graphql"),
        ("get", "/graphql"),
        ("post", "/graphql/member"),
        ("post", "/"),
        # A workflow's documents, which the API clients download with their key.
        ("get", "/download/0123456789abcdefghij.zip"),
        ("get", "/download/"),
    ],
)
def test_a_host_not_allowed_is_a_json_400_on_api_paths(db: None, method: str, path: str) -> None:
    response = getattr(Client(), method)(path, HTTP_HOST="evil.example.com")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"name": "BadRequestError", "message": "Bad request."}


def test_a_host_not_allowed_is_an_html_400_on_pages(db: None) -> None:
    response = Client().get("/verify", HTTP_HOST="evil.example.com")

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


def test_the_favicon_is_served(db: None) -> None:
    from django.contrib.staticfiles import finders

    response = Client().get("/favicon.ico")

    assert response.status_code == 302
    assert response["Location"].endswith("core/favicon.svg")
    assert "max-age=86400" in response["Cache-Control"]
    assert "<svg" in Path(finders.find("core/favicon.svg")).read_text()


def test_a_body_of_another_type_is_told_to_send_json(api_key: str, client_for) -> None:
    response = client_for(api_key).post(
        "/api/v1/generate-pdf", data="type=markdown", content_type="text/plain"
    )

    assert response.status_code == 415
    body = response.json()
    assert body["name"] == "UnsupportedMediaTypeError"
    assert body["message"].startswith('Unsupported media type "text/plain" in request.')
    assert "Send JSON (Content-Type: application/json)" in body["message"]
