"""core.json_views: the one way the JSON views outside DRF read a body and answer an error."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.test import RequestFactory
from pytest_django.fixtures import Settings
from rest_framework import exceptions

from core.api_errors import exception_handler
from core.errors import Conflict
from core.json_views import json_view


@json_view(methods=("GET", "POST"), prefix="body")
def echo(request: HttpRequest, body: dict[str, Any]) -> HttpResponse:
    if body.get("clash"):
        raise Conflict("Somebody else changed it.")
    return JsonResponse({"method": request.method, "body": body})


@json_view()
def bodiless(request: HttpRequest) -> HttpResponse:
    return HttpResponse(request.body, content_type="text/plain")


def post(view: Any, raw: bytes, **extra: Any) -> HttpResponse:
    return view(RequestFactory().post("/x", data=raw, content_type="application/json", **extra))


def test_the_body_reaches_the_view_as_an_object_and_a_get_gets_an_empty_one() -> None:
    assert json.loads(post(echo, b'{"a": [1]}').content) == {"method": "POST", "body": {"a": [1]}}
    answer = echo(RequestFactory().get("/x"))
    assert json.loads(answer.content) == {"method": "GET", "body": {}}


def test_a_method_not_taken_is_drfs_405() -> None:
    answer = echo(RequestFactory().delete("/x"))
    # What DRF's handler answers an API view for the same method, body and all.
    drf = exception_handler(exceptions.MethodNotAllowed("DELETE"), {})
    assert (answer.status_code, json.loads(answer.content)) == (405, drf.data)
    assert drf.data == {"name": "MethodNotAllowedError", "message": 'Method "DELETE" not allowed.'}
    assert answer["Allow"] == "GET, POST"
    assert bodiless(RequestFactory().get("/x"))["Allow"] == "POST"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{nope", "The body is not valid JSON."),
        (b"[1]", "The body must be a JSON object."),
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    ],
)
def test_a_body_that_is_no_json_object_is_a_400_naming_the_body(raw: bytes, message: str) -> None:
    answer = post(echo, raw)
    assert answer.status_code == 400
    (field,) = json.loads(answer.content)["fields"]
    assert field["property"] == "body"
    assert message in field["message"]


def test_text_that_is_no_text_is_named_under_the_prefix() -> None:
    answer = post(echo, b'{"a": {"b": "x\\u0000"}}')
    assert answer.status_code == 400
    assert json.loads(answer.content)["fields"][0]["property"] == "body.a.b"


def test_a_body_over_the_cap_is_a_413_before_it_is_read(settings: Settings) -> None:
    settings.API_JSON_BODY_LIMIT = 64
    declared = post(echo, b"{}", CONTENT_LENGTH="65")
    assert declared.status_code == 413
    assert "64 bytes" in json.loads(declared.content)["message"]
    assert post(echo, b'{"a": "' + b"x" * 80 + b'"}').status_code == 413


def test_a_service_error_is_rendered_in_the_wire_shape_with_its_status() -> None:
    answer = post(echo, b'{"clash": true}')
    assert (answer.status_code, json.loads(answer.content)) == (
        409,
        {"name": "ConflictError", "message": "Somebody else changed it."},
    )


def test_a_view_without_a_body_parameter_reads_nothing() -> None:
    assert post(bodiless, b"not json").content == b"not json"
