"""Schemathesis over /api/openapi.json with every check finds nothing (issue 49, item 15): each
operation answers only the statuses it lists, with the bodies, headers and content types the
document gives, and no request is a server error. The exceptions, each with its reason, are in
tests/core/schemathesis.toml.

It runs as a developer would against `scripts/run.sh`'s server: the live server with a demo
organization, its development key and its demo template, whose eid the document gives as the
example of fill's `template_eid` (so the examples and the coverage phase fill a real template
instead of meeting a 404). Bounded to stay under a minute: few examples per operation, a fixed
seed, no example database.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from core.eids import EID_PATTERN
from core.openapi import (
    CONTROL_CHARACTERS,
    DEMO_OBJECTS_FILE_NAME,
    PLACEHOLDER_TEMPLATE_EID,
    registered_schema,
)
from idempotency.views import _VALID_KEY
from workflows.management.commands import demo_setup

SCHEMATHESIS = Path(sys.executable).with_name("st")
CONFIG = Path(__file__).with_name("schemathesis.toml")


@pytest.fixture
def demo_data_dir(settings: Any, tmp_path: Path, demo_template: Any) -> Any:
    """DATA_DIR with the demo objects' file, as `manage.py demo_setup` leaves it."""
    settings.DATA_DIR = tmp_path / "data"
    demo_setup.write_demo_objects(
        Path(settings.DATA_DIR) / demo_setup.DEMO_OBJECTS_FILE_NAME,
        {"template": demo_template.eid, "packet": ""},
    )
    return demo_template


def fill_parameters(document: dict[str, Any]) -> dict[str, Any]:
    operation = document["paths"]["/api/v1/fill/{template_eid}.pdf"]["post"]
    return {parameter["name"]: parameter for parameter in operation["parameters"]}


def test_the_template_eid_example_is_the_demo_template(db: None, demo_data_dir: Any) -> None:
    assert demo_setup.DEMO_OBJECTS_FILE_NAME == DEMO_OBJECTS_FILE_NAME

    parameter = fill_parameters(Client().get("/api/openapi.json").json())["template_eid"]

    assert parameter["example"] == demo_data_dir.eid
    assert parameter["schema"] == {"type": "string", "pattern": f"^{EID_PATTERN}$"}


@pytest.mark.parametrize("content", [None, "{", '{"template": "../x"}', "[]"])
def test_without_a_demo_the_example_is_a_placeholder(
    db: None, settings: Any, tmp_path: Path, content: str | None
) -> None:
    settings.DATA_DIR = tmp_path
    if content is not None:
        (tmp_path / DEMO_OBJECTS_FILE_NAME).write_text(content)

    parameter = fill_parameters(Client().get("/api/openapi.json").json())["template_eid"]

    assert parameter["example"] == PLACEHOLDER_TEMPLATE_EID


def test_every_path_eid_has_its_shape_and_multipart_parts_are_json(db: None) -> None:
    document = Client().get("/api/openapi.json").json()

    for path, operations in document["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    assert parameter["schema"]["pattern"] == f"^{EID_PATTERN}$", path
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                encoding = content["multipart/form-data"]["encoding"]
                assert {part["contentType"] for part in encoding.values()} == {
                    "application/json"
                }, path


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_schemathesis_with_every_check_finds_nothing(
    live_server: Any, api_key: str, demo_data_dir: Any, settings: Any
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        f"{live_server.url}/api/openapi.json",
        "--url",
        live_server.url,
        "--auth",
        f"{api_key}:",
        "--max-examples",
        "5",
        "--seed",
        "49",
        "--generation-database",
        "none",
        "--workers",
        "1",
        "--request-timeout",
        "60",
    ]

    # A guard against a hang, not a measure: about a minute quiet, several at load 20.
    run = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)

    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "6 selected / 6 total" in run.stdout, run.stdout[-3000:]
    # The examples reached the demo template: fill is not among the operations that met only
    # 404s ("Missing test data"), as it was before the document gave its example.
    warnings = run.stdout.partition("=== WARNINGS ===")[2]
    only_404s = warnings.partition("Missing test data")[2].partition("\U0001f4a1")[0]
    assert "/api/v1/fill/" not in only_404s, warnings


def test_the_config_keeps_every_check_on() -> None:
    import tomllib

    config = tomllib.loads(CONFIG.read_text())

    assert config["checks"] == {"enabled": True}
    assert config["phases"] == {"stateful": {"max-steps": 3}}
    for operation in config["operations"]:
        assert set(operation) <= {"include-operation-id", "checks", "phases"}
        assert operation["checks"] == {"positive_data_acceptance": {"enabled": False}}
    assert json.dumps(sorted(o["include-operation-id"] for o in config["operations"])) == (
        '["fillPdf", "generatePdf", "verifyPdf"]'
    )


@pytest.mark.parametrize("path", ["/download/%C2%84.zip", "/download/.zip", "/api/x"])
def test_a_path_no_route_takes_is_the_wire_404_with_debug_on(
    db: None, settings: Any, path: str
) -> None:
    # scripts/run.sh serves with DEBUG on: Django's HTML page would be an undocumented type.
    settings.DEBUG = True

    response = Client().get(path)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["name"] == "NotFoundError"


def test_verify_lists_the_pdf_report_it_answers(api_client: Client) -> None:
    # Found by Schemathesis's fuzzing phase: `format=pdf` answered a type the 200 did not list.
    document = api_client.get("/api/openapi.json").json()
    listed = document["paths"]["/api/v1/verify"]["post"]["responses"]["200"]["content"]
    pdf = (
        b"%PDF-1.4\n1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n2 0 obj\n"
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>\nendobj\n3 0 obj\n"
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 1 1]>>\nendobj\nxref\n0 4\n"
        b"0000000000 65535 f \n0000000009 00000 n \n0000000054 00000 n \n"
        b"0000000105 00000 n \ntrailer\n<</Size 4/Root 1 0 R>>\nstartxref\n166\n%%EOF\n"
    )
    upload = SimpleUploadedFile("file.pdf", pdf, content_type="application/pdf")

    response = api_client.post("/api/v1/verify?format=pdf", {"file": upload})

    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] in listed
    assert listed[response["Content-Type"]]["schema"] == {"type": "string", "format": "binary"}


def test_an_async_generate_links_to_its_job(api_client: Client) -> None:
    document = api_client.get("/api/openapi.json").json()
    operations = {
        operation["operationId"]: operation
        for item in document["paths"].values()
        for operation in item.values()
    }
    accepted = api_client.post(
        "/api/v1/generate-pdf?async=true",
        data=json.dumps({"data": [{"content": "x"}]}),
        content_type="application/json",
    )

    (link,) = operations["generatePdf"]["responses"]["202"]["links"].values()
    assert link["operationId"] == "getGeneratePdfJob"
    assert link["parameters"] == {"eid": "$response.body#/id"}
    assert accepted.status_code == 202
    job = api_client.get(f"/api/v1/generate-pdf/jobs/{accepted.json()['id']}")
    assert job.status_code in (200, 202)


@pytest.mark.parametrize("key", ["a", "order-7", "x" * 255, "", " a", "a b", "é", "x" * 256, "\t"])
def test_the_idempotency_key_schema_is_the_services_rule(db: None, key: str) -> None:
    # Found by Schemathesis: a key the schema allowed (a space in it) was a 400.
    document = Client().get("/api/openapi.json").json()
    operation = document["paths"]["/api/v1/fill/{template_eid}.pdf"]["post"]
    (parameter,) = [p for p in operation["parameters"] if p["name"] == "Idempotency-Key"]
    schema = parameter["schema"]

    allowed = (
        schema["minLength"] <= len(key) <= schema["maxLength"]
        and re.search(schema["pattern"], key) is not None
    )

    assert allowed == bool(_VALID_KEY.match(key))


def test_request_text_refuses_control_characters_in_the_document(db: None) -> None:
    # Found by Schemathesis: text with NUL (or a property name with one) was allowed by the
    # schemas and refused by the parsers, which refuse it in every string of a request.
    document = Client().get("/api/openapi.json").json()
    schemas = document["components"]["schemas"]
    door = {"pattern": CONTROL_CHARACTERS}

    assert schemas["FillRequest"]["properties"]["title"]["not"] == door
    assert schemas["FillRequest"]["propertyNames"] == {"not": door}
    assert schemas["FillData"]["propertyNames"] == {"not": door}
    assert schemas["GenerateRequest"]["properties"]["title"]["not"] == door
    assert "not" not in schemas["Error"]["properties"]["message"]  # an answer, not a request
    assert re.search(CONTROL_CHARACTERS, "a\x00b")
    assert not re.search(CONTROL_CHARACTERS, "tab\tline\nreturn\r")
    # The MCP tools' schemas come from the same registry, which the document leaves as it is.
    assert "not" not in registered_schema("FillRequest")["properties"]["title"]
