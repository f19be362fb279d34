"""The OpenAPI document at /api/openapi.json and Swagger UI at /api/docs: a valid OpenAPI 3
document, generated from the views, that names every REST route, the request bodies, every
error shape and the limits; served from local files only."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from rest_framework.views import APIView

from core.graphql.views import GraphQLApi
from generate.engine.request import PAGE_COUNT_BOXES


@pytest.fixture
def document(db: None) -> dict[str, Any]:
    response = Client().get("/api/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()


def rest_routes(
    patterns: list[URLPattern | URLResolver] | None = None, prefix: str = ""
) -> Iterator[tuple[str, type[APIView]]]:
    """Every route of the URLconf served by a DRF view, as an OpenAPI path ("/api/v1/x/{id}")."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from rest_routes(pattern.url_patterns, route)
            continue
        view = getattr(pattern.callback, "cls", None)
        if view is None or not issubclass(view, APIView):
            continue
        yield "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route), view


def schema_for(document: dict[str, Any], name: str) -> dict[str, Any]:
    """A validator schema for component ``name`` that resolves the document's references."""
    return {"$ref": f"#/components/schemas/{name}", "components": document["components"]}


def assert_valid(document: dict[str, Any], name: str, instance: Any) -> None:
    OAS31Validator(schema_for(document, name)).validate(instance)


def test_the_document_is_a_valid_openapi_3_document(document: dict[str, Any]) -> None:
    validate(document)

    assert document["openapi"] == "3.1.0"
    assert document["info"]["title"] == "Document automation API"


def test_every_rest_route_is_in_the_document(document: dict[str, Any]) -> None:
    routes = {
        path: view
        for path, view in rest_routes()
        # GraphQL has its own schema; the reference does not describe itself.
        if not issubclass(view, GraphQLApi) and path not in ("/api/openapi.json", "/api/docs")
    }

    assert {"/api/v1/fill/{template_eid}.pdf", "/api/v1/generate-pdf"} <= set(routes)
    for path, view in routes.items():
        assert path in document["paths"], path
        methods = {m for m in view.http_method_names if hasattr(view, m)} - {"options", "head"}
        assert set(document["paths"][path]) == methods, path
    assert not {"/", "/graphql", "/api/openapi.json", "/api/docs"} & set(document["paths"])


def test_the_document_is_public_and_plain_json() -> None:
    response = Client(HTTP_AUTHORIZATION="Basic bm90LWEta2V5Og==").get("/api/openapi.json")

    assert response.status_code == 200
    assert 'filename="openapi.json"' in response["Content-Disposition"]
    assert json.loads(response.content)["paths"]


def test_the_fill_operation(document: dict[str, Any]) -> None:
    fill = document["paths"]["/api/v1/fill/{template_eid}.pdf"]["post"]

    assert fill["operationId"] == "fillPdf"
    body = fill["requestBody"]["content"]
    assert set(body) == {"application/json", "multipart/form-data"}
    assert body["application/json"]["schema"] == {"$ref": "#/components/schemas/FillRequest"}
    assert [p["name"] for p in fill["parameters"]] == [
        "template_eid",
        "versionNumber",
        "Idempotency-Key",
    ]
    assert fill["responses"]["200"]["content"] == {
        "application/pdf": {"schema": {"type": "string", "format": "binary"}}
    }
    assert set(fill["responses"]) == {
        "200", "400", "401", "404", "409", "413", "415", "429", "500", "503"
    }  # fmt: skip
    assert "2000 pages" in fill["description"]  # FILL_MAX_PAGES
    request = document["components"]["schemas"]["FillRequest"]
    assert request["required"] == ["data"]
    assert {"data", "title", "fontFamily", "useInteractiveFields", "defaultReadOnly"} <= set(
        request["properties"]
    )
    for example in body["application/json"]["examples"].values():
        assert_valid(document, "FillRequest", example["value"])


def test_the_generate_operation_has_page_and_markdown_blocks(document: dict[str, Any]) -> None:
    generate = document["paths"]["/api/v1/generate-pdf"]["post"]
    schemas = document["components"]["schemas"]

    assert generate["operationId"] == "generatePdf"
    assert set(generate["responses"]) == {
        "200", "202", "400", "401", "409", "413", "415", "422", "429", "500", "503",
    }  # fmt: skip
    request = schemas["GenerateRequest"]
    assert request["properties"]["page"]["$ref"] == "#/components/schemas/PageSettings"
    assert schemas["PageSettings"]["properties"]["pageCount"]["enum"] == list(PAGE_COUNT_BOXES)
    assert set(schemas["MarkdownBlock"]["properties"]) == {
        "label", "heading", "content", "table", "fontFamily", "fontSize", "textColor",
    }  # fmt: skip
    assert schemas["MarkdownTable"]["required"] == ["rows"]
    for example in generate["requestBody"]["content"]["application/json"]["examples"].values():
        assert_valid(document, "GenerateRequest", example["value"])
    assert_valid(document, "GenerateRequest", {"data": [{"content": "- a\n  - b"}]})
    with pytest.raises(Exception, match="is not valid"):
        assert_valid(document, "GenerateRequest", {"data": [{"fontSize": 31}]})
    with pytest.raises(Exception, match="does not match"):
        assert_valid(document, "PageSettings", {"marginTop": "2 furlongs"})


def test_every_error_shape_and_the_rate_limit_headers(document: dict[str, Any]) -> None:
    responses = document["paths"]["/api/v1/generate-pdf"]["post"]["responses"]

    def schema(status: str) -> dict[str, Any]:
        return responses[status]["content"]["application/json"]["schema"]

    assert schema("400") == {"$ref": "#/components/schemas/ValidationError"}
    for status in ("401", "413", "415", "422", "429", "500", "503"):
        assert schema(status) == {"$ref": "#/components/schemas/Error"}, status
    assert "Retry-After" in responses["429"]["headers"]
    for status, response in responses.items():
        assert {"X-RateLimit-Limit", "X-RateLimit-Interval-Ms"} <= set(response["headers"]), status
    description = document["info"]["description"]
    assert "development keys 100000 and production keys 100000 requests per 1000 ms" in description
    assert "1048576 bytes" in description
    assert document["components"]["securitySchemes"]["apiKey"] == {
        "type": "http",
        "scheme": "basic",
        "description": document["components"]["securitySchemes"]["apiKey"]["description"],
    }


def test_real_error_bodies_match_their_schemas(
    document: dict[str, Any], api_client: Client, demo_template
) -> None:
    url = f"/api/v1/fill/{demo_template.eid}.pdf"
    invalid = api_client.post(url, data="{}", content_type="application/json")
    unauthenticated = Client().post(url, data="{}", content_type="application/json")
    missing = api_client.post("/api/v1/fill/nope.pdf", data="{}", content_type="application/json")
    wrong_type = api_client.post(url, data="x", content_type="text/plain")

    assert invalid.status_code == 400
    assert_valid(document, "ValidationError", invalid.json())
    for response, status in ((unauthenticated, 401), (missing, 404), (wrong_type, 415)):
        assert response.status_code == status
        assert_valid(document, "Error", response.json())


def test_swagger_ui_is_served_from_local_files(db: None) -> None:
    response = Client().get("/api/docs")

    assert response.status_code == 200
    page = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    # Swagger UI starts from a script file of its own (no inline script: the page's CSP), which
    # names the OpenAPI document.
    assert "/api/docs?script=" in sources
    start = Client().get("/api/docs?script=")
    assert start.status_code == 200
    assert "/api/openapi.json" in start.content.decode()
    sources.remove("/api/docs?script=")
    assert sources
    for source in sources:
        assert source.startswith("/static/drf_spectacular_sidecar/"), source
        assert finders.find(source.removeprefix("/static/")), source
    assert "http://" not in page.replace("http://www.w3.org", "")
    assert "https://" not in page
    assert Client().get("/api/docs/").url == "/api/docs"
