"""The OpenAPI document names every status generate and fill answer (issue 49, item 15), and the
`async` flag is a boolean: a value that is neither is refused, not taken for false."""

from __future__ import annotations

import json

import pytest

from generate.models import GenerateJob

pytestmark = pytest.mark.django_db

BODY = {"type": "markdown", "data": [{"content": "x"}]}


@pytest.mark.parametrize("value", ["-1", "yes", "2", ""])
def test_an_async_flag_that_is_no_boolean_is_refused(api_client, value: str) -> None:
    response = api_client.post(
        f"/api/v1/generate-pdf?async={value}",
        data=json.dumps(BODY),
        content_type="application/json",
    )

    assert response.status_code == 400, response.content[:300]
    assert response.json()["fields"] == [{"property": "async", "message": "Must be true or false."}]
    assert GenerateJob.objects.count() == 0


def test_async_false_renders_at_once(api_client) -> None:
    response = api_client.post(
        "/api/v1/generate-pdf?async=false", data=json.dumps(BODY), content_type="application/json"
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"


def test_the_document_names_every_answer(client) -> None:
    paths = client.get("/api/openapi.json").json()["paths"]
    generate = paths["/api/v1/generate-pdf"]["post"]
    fill = next(p["post"] for path, p in paths.items() if path.startswith("/api/v1/fill/"))

    assert {"200", "202", "400", "409", "413", "422", "429", "503"} <= set(generate["responses"])
    assert "GeneratePdfJob" in json.dumps(generate["responses"]["202"])
    assert {"200", "400", "404", "409", "429"} <= set(fill["responses"])
    parameter = next(p for p in generate["parameters"] if p["name"] == "async")
    assert parameter["schema"]["type"] == "boolean"
