import json

import pytest
from django.test import Client

pytestmark = pytest.mark.urls("tests.core.echo_urls")

LIMIT = 1_048_576


def json_body_of_size(size: int) -> bytes:
    """A JSON object {"data": {"pad": "xxx..."}} of exactly ``size`` bytes."""
    skeleton = json.dumps({"data": {"pad": ""}}).encode()
    body = json.dumps({"data": {"pad": "x" * (size - len(skeleton))}}).encode()
    assert len(body) == size
    return body


def test_json_body_of_exactly_the_limit_is_accepted(api_client: Client) -> None:
    response = api_client.post(
        "/api/v1/echo", data=json_body_of_size(LIMIT), content_type="application/json"
    )

    assert response.status_code == 200
    assert len(response.json()["echo"]["data"]["pad"]) > LIMIT - 40


def test_json_body_one_byte_over_the_limit_is_413(api_client: Client) -> None:
    response = api_client.post(
        "/api/v1/echo", data=json_body_of_size(LIMIT + 1), content_type="application/json"
    )

    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "name": "RequestTooLarge",
        "message": f"The request body is {LIMIT + 1:,} bytes (1.0 MB); the limit is {LIMIT:,} "
        "bytes (1 MiB). Send a larger payload as multipart/form-data.",
    }


def test_multipart_reaches_the_view_as_the_same_dict_as_json(api_client: Client) -> None:
    payload = {
        "data": {"name": "Ada", "items": [1, 2]},
        "title": "Contract",
        "fontSize": 12,
        "useInteractiveFields": True,
    }
    as_json = api_client.post(
        "/api/v1/echo", data=json.dumps(payload), content_type="application/json"
    )
    as_multipart = api_client.post(
        "/api/v1/echo",
        data={
            key: json.dumps(value) if not isinstance(value, str) else value
            for key, value in payload.items()
        },
    )

    assert as_multipart.status_code == 200
    assert as_multipart.json() == as_json.json() == {"echo": payload}


def test_multipart_has_its_own_larger_limit(api_client: Client, settings) -> None:
    big = {"data": {"pad": "y" * (LIMIT + 10)}}
    response = api_client.post("/api/v1/echo", data={"data": json.dumps(big["data"])})
    assert response.status_code == 200

    settings.API_MULTIPART_BODY_LIMIT = LIMIT
    refused = api_client.post("/api/v1/echo", data={"data": json.dumps(big["data"])})
    assert refused.status_code == 413
    assert refused.json()["name"] == "RequestTooLarge"


def test_malformed_json_is_a_400_validation_error(api_client: Client) -> None:
    response = api_client.post(
        "/api/v1/echo", data=b'{"data": {"a": }', content_type="application/json"
    )

    assert response.status_code == 400
    body = response.json()
    assert body["name"] == "ValidationError"
    assert body["fields"][0]["property"] == ""
    assert "Malformed JSON" in body["fields"][0]["message"]


def test_empty_body_gives_required_for_data(api_client: Client) -> None:
    response = api_client.post("/api/v1/echo", data=b"", content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [{"message": "Required", "property": "data"}],
    }


def test_unsupported_content_type_is_415_json(api_client: Client) -> None:
    response = api_client.post("/api/v1/echo", data=b"data=1", content_type="text/plain")

    assert response.status_code == 415
    assert response.json()["name"] == "UnsupportedMediaTypeError"


def test_wrong_method_is_405_json(api_client: Client) -> None:
    response = api_client.get("/api/v1/echo")

    assert response.status_code == 405
    assert response.json()["name"] == "MethodNotAllowedError"
