"""generateEmbedURL through both published clients, with the mutation docs/embedding-builders.md
shows (python-anvil's ``mutate``, @anvilco/anvil's ``requestGraphQL``): the URL each gets opens
its builder, without any session."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from accounts.models import Organization
from templates_app.models import PdfTemplate

pytestmark = pytest.mark.django_db(transaction=True)

DOC = Path(__file__).resolve().parents[2] / "docs" / "embedding-builders.md"


def documented_mutation() -> str:
    """The mutation of the document's GraphQL block, which its Python example repeats."""
    text = DOC.read_text()
    block = re.search(r"```graphql\n(.*?)```", text, re.S)
    assert block is not None
    mutation = block.group(1).strip()
    python = re.search(r'GENERATE_EMBED_URL = """\n(.*?)"""', text, re.S)
    assert python is not None
    assert python.group(1).strip() == mutation
    return mutation


def opened(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (the live server)
        assert response.status == 200
        return response.read().decode()


def test_python_anvil_mutate_gets_a_url_that_opens_the_template_editor(
    python_anvil: Callable[..., dict[str, Any]],
    demo_template: PdfTemplate,
    live_server: Any,
    settings: Any,
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    variables = {
        "eid": demo_template.eid,
        "type": "edit-pdf-template",
        "validForSeconds": 600,
        "permissions": ["edit"],
        "metadata": {"myUserId": "1234"},
    }

    report = python_anvil("mutate", query=documented_mutation(), variables=variables)

    made = report["result"]["generateEmbedURL"]
    assert made["url"].startswith(f"{live_server.url}/embed/edit-pdf-template/")
    page = opened(made["url"])
    assert 'id="editor"' in page
    assert 'data-action="publish"' not in page


def test_the_node_client_gets_a_url_that_opens_the_packet_builder(
    node_anvil: Callable[..., dict[str, Any]],
    organization: Organization,
    demo_template: PdfTemplate,
    live_server: Any,
    settings: Any,
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    variables = {
        "eid": organization.eid,
        "type": "edit-etch-packet",
        "options": {"castEids": [demo_template.eid], "pageTitle": "Send the lease"},
    }

    answer = node_anvil("requestGraphQL", query=documented_mutation(), variables=variables)
    refused = node_anvil(
        "requestGraphQL",
        query=documented_mutation(),
        variables={**variables, "permissions": ["publish"]},
    )

    assert answer.get("errors") is None, answer
    page = opened(answer["data"]["data"]["generateEmbedURL"]["url"])
    assert 'id="packet-builder"' in page
    assert "Send the lease" in page
    [error] = refused["errors"]
    assert error["extensions"]["fields"] == [
        {
            "property": "permissions",
            "message": "Not an action of edit-etch-packet: publish (one or more of edit, send).",
        }
    ]
