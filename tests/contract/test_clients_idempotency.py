"""Idempotency-Key from the published clients: @anvilco/anvil's own requestREST takes fetch
options with headers. python-anvil's methods cannot send one (``headers=`` in their kwargs also
reaches its response parser, which raises a TypeError), and neither client's GraphQL call takes a
header: those are sent as raw HTTP in the clients' wire shape (the captures in
shared/spec/wire-captures.md) plus the header, as docs/clients.md shows."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from esign.models import Packet
from idempotency.models import IdempotencyKey
from tests.esign.conftest import CREATE, two_signer_packet

HTML = {"type": "html", "title": "Receipt", "data": {"html": "<p>Paid</p>"}}


def _post(url: str, headers: dict[str, str], body: Any) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(  # noqa: S310 - the test's own live server
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def _as_python_anvil(base: str, api_key: str, path: str, key: str, body: Any) -> Any:
    """python-anvil's REST request as the wire captures show it, plus the key."""
    headers = {
        "User-Agent": "python-requests/2.34.2",
        "Accept": "*/*",
        "Content-Type": "application/json",
        "Authorization": "Basic " + base64.b64encode(f"{api_key}:".encode()).decode(),
        "Idempotency-Key": key,
    }
    return _post(f"{base}{path}", headers, body)


@pytest.mark.django_db(transaction=True)
def test_python_anvil_generate_pdf_twice_with_one_key(live_server, api_key) -> None:
    send = lambda body: _as_python_anvil(  # noqa: E731
        live_server.url, api_key, "/api/v1/generate-pdf", "py-gen-1", body
    )
    first, second, other = send(HTML), send(HTML), send({**HTML, "title": "x"})

    assert first[0] == second[0] == 200
    assert second[2] == first[2]
    assert second[1]["Idempotent-Replayed"] == "true"
    assert other[0] == 409
    assert json.loads(other[2])["name"] == "ConflictError"
    assert "'py-gen-1'" in json.loads(other[2])["message"]


@pytest.mark.django_db(transaction=True)
def test_python_anvil_fill_pdf_with_a_key(live_server, api_key, demo_template) -> None:
    path = f"/api/v1/fill/{demo_template.eid}.pdf"
    send = lambda body: _as_python_anvil(live_server.url, api_key, path, "py-fill-1", body)  # noqa: E731
    first, second = send({"data": {"title": "Keyed"}}), send({"data": {"title": "Keyed"}})
    other = send({"data": {"title": "Other"}})

    assert first[0] == second[0] == 200
    assert other[0] == 409
    assert "'py-fill-1'" in json.loads(other[2])["message"]
    assert IdempotencyKey.objects.get().body is None  # fill keeps nothing of its answer


@pytest.mark.django_db(transaction=True)
def test_node_request_rest_generate_twice_with_one_key(node_anvil, tmp_path) -> None:
    args = {"url": "/api/v1/generate-pdf", "payload": HTML, "headers": {"Idempotency-Key": "n-1"}}
    a = node_anvil("requestREST", out=str(tmp_path / "a.pdf"), **args)
    b = node_anvil("requestREST", out=str(tmp_path / "b.pdf"), **args)
    c = node_anvil(
        "requestREST",
        out=str(tmp_path / "c.pdf"),
        **{**args, "payload": {**HTML, "title": "other"}},
        dataType="json",
    )

    assert a["statusCode"] == b["statusCode"] == 200
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()
    assert c["statusCode"] == 409
    assert c["errors"][0]["name"] == "ConflictError"
    assert "'n-1'" in c["errors"][0]["message"]


def _graphql_as_the_clients_send_it(url: str, key: str, body: dict[str, Any]) -> Any:
    """@anvilco/anvil's GraphQL request as the wire captures show it, plus the key."""
    headers = {
        "accept": "*/*",
        "content-type": "application/json",
        "authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode(),
        "user-agent": "Anvil API Client/3.3.2",
        "Idempotency-Key": "gql-1",
    }
    status, response_headers, content = _post(f"{url}/graphql", headers, body)
    return status, response_headers, json.loads(content)


@pytest.mark.django_db(transaction=True)
def test_graphql_create_etch_packet_twice_with_one_key(live_server, api_key) -> None:
    body = {"query": CREATE, "variables": two_signer_packet()}
    status, _, first = _graphql_as_the_clients_send_it(live_server.url, api_key, body)
    status_again, headers, second = _graphql_as_the_clients_send_it(live_server.url, api_key, body)

    assert status == status_again == 200
    assert second == first
    assert headers["Idempotent-Replayed"] == "true"
    assert Packet.objects.count() == 1
