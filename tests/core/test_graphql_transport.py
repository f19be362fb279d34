import base64
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

pytestmark = pytest.mark.urls("tests.core.echo_urls")

MUTATION = """
mutation Describe($files: [Upload!]!) {
  describeUploads(files: $files) { filename mimetype size isPdf }
}
"""
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


@pytest.mark.parametrize("first_key", [0, 1])
@pytest.mark.parametrize("path", ["/graphql", "/"])
def test_multipart_uploads_follow_the_map(api_client: Client, first_key: int, path: str) -> None:
    operations = {"query": MUTATION, "variables": {"files": [None, None]}}
    keys = [str(first_key), str(first_key + 1)]
    file_map = {keys[0]: ["variables.files.0"], keys[1]: ["variables.files.1"]}
    response = api_client.post(
        path,
        data={
            "operations": json.dumps(operations),
            "map": json.dumps(file_map),
            keys[0]: SimpleUploadedFile("dummy.pdf", PDF, content_type="application/octet-stream"),
            keys[1]: SimpleUploadedFile("notes.txt", b"hello", content_type="text/plain"),
        },
    )

    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "data": {
            "describeUploads": [
                {
                    "filename": "dummy.pdf",
                    "mimetype": "application/octet-stream",
                    "size": len(PDF),
                    "isPdf": True,
                },
                {"filename": "notes.txt", "mimetype": "text/plain", "size": 5, "isPdf": False},
            ]
        }
    }


def test_multipart_with_an_empty_map_and_inline_files(api_client: Client) -> None:
    """python-anvil sends multipart with ``map: {}`` and the files inline as base64."""
    inline = {
        "data": base64.b64encode(PDF).decode(),
        "filename": "document.pdf",
        "mimetype": "application/pdf",
    }
    operations = {"query": MUTATION, "variables": {"files": [inline]}}
    response = api_client.post("/graphql", data={"operations": json.dumps(operations), "map": "{}"})

    assert response.status_code == 200, response.content
    assert response.json()["data"]["describeUploads"] == [
        {"filename": "document.pdf", "mimetype": "application/pdf", "size": len(PDF), "isPdf": True}
    ]


def test_inline_uploads_in_a_json_body(api_client: Client) -> None:
    inline = {
        "data": base64.b64encode(b"abc").decode(),
        "filename": "a.bin",
        "mimetype": "application/x-thing",
    }
    body = {"query": MUTATION, "variables": {"files": [inline], "undeclared": 1}}
    response = api_client.post("/graphql", data=json.dumps(body), content_type="application/json")

    assert response.status_code == 200
    assert response.json()["data"]["describeUploads"][0] == {
        "filename": "a.bin",
        "mimetype": "application/x-thing",
        "size": 3,
        "isPdf": False,
    }


def test_a_map_naming_a_missing_part_is_a_validation_error(api_client: Client) -> None:
    operations = {"query": MUTATION, "variables": {"files": [None]}}
    response = api_client.post(
        "/graphql",
        data={"operations": json.dumps(operations), "map": '{"1": ["variables.files.0"]}'},
    )

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [
            {"message": "The map names a file part '1' that is missing.", "property": "map"}
        ],
    }


def test_syntax_errors_are_graphql_errors(api_client: Client) -> None:
    response = api_client.post(
        "/graphql", data=json.dumps({"query": "{ currentUser { "}), content_type="application/json"
    )

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "Syntax Error" in response.json()["errors"][0]["message"]


def test_anonymous_shorthand_and_operation_name(api_client: Client) -> None:
    query = "query A { currentUser { eid } } query B { currentUser { name } }"
    response = api_client.post(
        "/graphql",
        data=json.dumps({"query": query, "operationName": "B"}),
        content_type="application/json",
    )

    assert response.status_code == 200
    assert set(response.json()["data"]["currentUser"]) == {"name"}


def test_missing_query_is_required(api_client: Client) -> None:
    response = api_client.post("/graphql", data="{}", content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [{"message": "Required", "property": "query"}],
    }
