"""Text and whole numbers are checked where requests enter (core.engine.input_checks), so what
PostgreSQL refuses is refused the same way on SQLite, before anything is stored: NUL and other
control characters in JSON bodies and URL paths, numbers past a column's end.

The property test (test_no_input_is_a_500.py) throws every kind at every path; these name the
answers to the cases the audit found.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import ApiKey
from esign.models import Packet
from tests.esign.conftest import CREATE, two_signer_packet
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    [
        "/api/document-group/%00.zip",
        "/download/%00.zip",
        "/api/v1/fill/%00.pdf",
        "/api/v1/fill/abc.pdf",
        "/api/v1/fill/AAAAAAAAAAAAAAAAAAAAA.pdf",  # 21 characters: no eid
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_path_that_names_no_eid_is_a_404_in_the_wire_shape(
    api_client: Client, path: str, method: str
) -> None:
    response = getattr(api_client, method)(path)

    assert response.status_code == 404, response.content[:300]
    assert response.json() == {"name": "NotFoundError", "message": "Not found."}


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("signatureEmailBody", "Hello\x00"),
        ("name", "Agree\x01ment"),
        ("replyToName", "\x1b[31mAda"),
    ],
)
def test_a_control_character_in_a_create_etch_packet_text_is_refused_as_read(
    api_client: Client, argument: str, value: str
) -> None:
    query = CREATE.replace("$isTest: Boolean", f"$isTest: Boolean, ${argument}: String").replace(
        "isTest: $isTest", f"isTest: $isTest, {argument}: ${argument}"
    )
    variables = two_signer_packet(**{argument: value})

    response = api_client.post(
        "/graphql",
        data=json.dumps({"query": query, "variables": variables}),
        content_type="application/json",
    )

    assert response.status_code == 400, response.content
    assert response.json()["fields"] == [
        {
            "property": f"variables.{argument}",
            "message": "Must not contain control characters (NUL and the like); only tab and "
            "line breaks are allowed in text.",
        }
    ]
    assert Packet.objects.count() == 0


@pytest.mark.parametrize("name", ["billing\x00", "esc\x1b[2J", "two\nlines"])
def test_an_api_key_name_on_one_line_only(owner, name: str) -> None:
    client = Client()
    client.force_login(owner)

    response = client.post(
        reverse("settings:key-create", args=["acme"]), {"kind": "production", "name": name}
    )

    assert response.status_code == 400
    assert "Must be one line" in response.content.decode()
    assert ApiKey.objects.count() == 0


@pytest.mark.parametrize("url", ["https://example.com/\x00", "https://example.com/a\x1bb"])
def test_a_webhook_url_with_a_control_character_is_refused(owner, url: str) -> None:
    client = Client()
    client.force_login(owner)

    response = client.post(reverse("settings:webhook-url", args=["acme"]), {"url": url})

    assert response.status_code == 400
    assert "Must be one line" in response.content.decode()
    assert not WebhookEndpoint.objects.exclude(url="").exists()
