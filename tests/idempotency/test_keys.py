"""Idempotency-Key on fill, generate-pdf and GraphQL: the first answer again, 409 on another
request, nothing kept on a refusal, per organization, forgotten after its time."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from esign.models import Packet
from generate import api as generate_api
from idempotency.models import IdempotencyKey
from idempotency.sweeps import idempotency_sweep
from tests.esign.conftest import CREATE, two_signer_packet
from tests.workflows.conftest import ABOUT_YOU_1, FORGE_SUBMIT, forges
from workflows.demo import demo_workflow_create
from workflows.models import WebformSubmission

HTML = {"type": "html", "title": "t", "data": {"html": "<p>Invoice 7</p>"}}


def post_json(client: Client, path: str, body: Any, key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post(
        path, data=json.dumps(body), content_type="application/json", headers=headers
    )


@pytest.fixture
def generate_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the generate service ran."""
    calls: list[int] = []
    real = generate_api.pdf_generate

    def counted(**kwargs: Any) -> bytes:
        calls.append(1)
        return real(**kwargs)

    monkeypatch.setattr(generate_api, "pdf_generate", counted)
    return calls


@pytest.mark.django_db
def test_generate_with_the_same_key_and_body_answers_the_first_pdf_again(
    api_client, generate_calls
) -> None:
    first = post_json(api_client, "/api/v1/generate-pdf", HTML, key="order-7")
    second = post_json(api_client, "/api/v1/generate-pdf", HTML, key="order-7")

    assert first.status_code == second.status_code == 200
    assert second["Content-Type"] == "application/pdf"
    assert second.content == first.content
    assert second["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert len(generate_calls) == 1


@pytest.mark.django_db
def test_the_key_with_another_body_is_a_409_naming_the_key(api_client, generate_calls) -> None:
    post_json(api_client, "/api/v1/generate-pdf", HTML, key="order-7")
    other = post_json(
        api_client, "/api/v1/generate-pdf", {**HTML, "title": "another"}, key="order-7"
    )

    assert other.status_code == 409
    assert other.json()["name"] == "ConflictError"
    assert "'order-7'" in other.json()["message"]
    assert "different request" in other.json()["message"]
    assert len(generate_calls) == 1


@pytest.mark.django_db
def test_without_a_key_every_request_runs(api_client, generate_calls) -> None:
    post_json(api_client, "/api/v1/generate-pdf", HTML)
    post_json(api_client, "/api/v1/generate-pdf", HTML)

    assert len(generate_calls) == 2
    assert IdempotencyKey.objects.count() == 0


@pytest.mark.django_db
def test_a_refusal_keeps_nothing_and_the_corrected_request_runs(api_client, generate_calls) -> None:
    refused = post_json(api_client, "/api/v1/generate-pdf", {"type": "html"}, key="k-1")
    assert refused.status_code == 400
    assert IdempotencyKey.objects.count() == 0

    fixed = post_json(api_client, "/api/v1/generate-pdf", HTML, key="k-1")
    assert fixed.status_code == 200
    assert "Idempotent-Replayed" not in fixed


@pytest.mark.django_db
def test_keys_are_the_organizations(api_client, client_for, other_api_key, generate_calls) -> None:
    post_json(api_client, "/api/v1/generate-pdf", HTML, key="shared")
    other = post_json(
        client_for(other_api_key), "/api/v1/generate-pdf", {**HTML, "title": "x"}, key="shared"
    )

    assert other.status_code == 200
    assert "Idempotent-Replayed" not in other
    assert len(generate_calls) == 2


@pytest.mark.django_db
def test_a_malformed_key_is_refused_in_the_wire_shape(api_client, generate_calls) -> None:
    response = post_json(api_client, "/api/v1/generate-pdf", HTML, key="has space")

    assert response.status_code == 400
    assert response.json()["fields"][0]["property"] == "Idempotency-Key"
    assert generate_calls == []


@pytest.mark.django_db
def test_a_key_still_running_is_a_409_and_a_dead_runner_is_taken_over(
    api_client, organization, generate_calls, settings
) -> None:
    now = timezone.now()
    row = IdempotencyKey.objects.create(
        organization=organization,
        key="busy",
        request_hash="0" * 64,
        created_at=now,
        expires_at=now + timedelta(hours=24),
    )
    # The hash of the same request: the running row is this very request.
    post_json(api_client, "/api/v1/generate-pdf", HTML, key="probe")
    row.request_hash = IdempotencyKey.objects.get(key="probe").request_hash
    row.save()

    busy = post_json(api_client, "/api/v1/generate-pdf", HTML, key="busy")
    assert busy.status_code == 409
    assert "still being processed" in busy.json()["message"]
    assert busy["Retry-After"] == "1"  # waiting helps: say how long
    assert len(generate_calls) == 1

    IdempotencyKey.objects.filter(pk=row.pk).update(
        created_at=now - timedelta(seconds=settings.IDEMPOTENCY_RUNNING_SECONDS + 1)
    )
    taken_over = post_json(api_client, "/api/v1/generate-pdf", HTML, key="busy")
    assert taken_over.status_code == 200
    assert len(generate_calls) == 2
    assert IdempotencyKey.objects.get(pk=row.pk).state == "done"


@pytest.mark.django_db
def test_an_answer_over_the_cap_is_not_kept_and_not_made_again(
    api_client, generate_calls, settings
) -> None:
    settings.IDEMPOTENCY_MAX_STORED_BYTES = 100
    first = post_json(api_client, "/api/v1/generate-pdf", HTML, key="big")
    again = post_json(api_client, "/api/v1/generate-pdf", HTML, key="big")

    assert first.status_code == 200
    assert again.status_code == 409
    assert "larger than the 100 bytes kept" in again.json()["message"]
    assert IdempotencyKey.objects.get(key="big").body is None
    assert len(generate_calls) == 1


@pytest.mark.django_db
def test_after_its_hours_a_key_is_new_again_and_the_sweep_deletes_it(
    api_client, generate_calls, monkeypatch, settings
) -> None:
    post_json(api_client, "/api/v1/generate-pdf", HTML, key="old")
    later = timezone.now() + timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS, seconds=1)

    assert idempotency_sweep(now=later - timedelta(seconds=2)) == 0
    assert IdempotencyKey.objects.count() == 1
    monkeypatch.setattr(timezone, "now", lambda: later)
    again = post_json(api_client, "/api/v1/generate-pdf", {**HTML, "title": "new"}, key="old")
    assert again.status_code == 200
    assert len(generate_calls) == 2

    idempotency_sweep(now=later + timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS))
    assert IdempotencyKey.objects.count() == 0


@pytest.mark.django_db
def test_fill_keeps_only_the_hash_and_fills_again_on_a_retry(
    api_client, demo_template, monkeypatch
) -> None:
    from fill import api as fill_api

    calls: list[int] = []
    real = fill_api.fill_template

    def counted(**kwargs: Any) -> bytes:
        calls.append(1)
        return real(**kwargs)

    monkeypatch.setattr(fill_api, "fill_template", counted)
    path = f"/api/v1/fill/{demo_template.eid}.pdf"
    body = {"data": {"title": "Ada Lovelace"}}

    first = post_json(api_client, path, body, key="fill-1")
    again = post_json(api_client, path, body, key="fill-1")
    other = post_json(api_client, path, {"data": {"title": "Someone Else"}}, key="fill-1")

    assert first.status_code == again.status_code == 200
    assert len(calls) == 2  # nothing of the filled PDF was kept: it is made again
    assert other.status_code == 409
    row = IdempotencyKey.objects.get(key="fill-1")
    assert (row.kept, row.body, row.status_code) == ("nothing", None, 200)
    assert b"Ada" not in row.request_hash.encode()


@pytest.mark.django_db
def test_create_etch_packet_twice_with_one_key_makes_one_packet(api_client) -> None:
    body = {"query": CREATE, "variables": two_signer_packet()}
    first = post_json(api_client, "/graphql", body, key="packet-1")
    second = post_json(api_client, "/graphql", body, key="packet-1")

    assert first.status_code == second.status_code == 200
    assert second.json() == first.json()
    assert second["Content-Type"] == "application/json"
    assert Packet.objects.count() == 1
    assert first.json()["data"]["createEtchPacket"]["eid"] == Packet.objects.get().eid


@pytest.mark.django_db
def test_forge_submit_twice_with_one_key_starts_one_submission(
    api_client, organization, demo_template
) -> None:
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    body = {
        "query": FORGE_SUBMIT,
        "variables": {"forgeEid": forges(workflow)["about-you"], "payload": ABOUT_YOU_1},
    }
    first = post_json(api_client, "/graphql", body, key="forge-1")
    second = post_json(api_client, "/graphql", body, key="forge-1")

    assert "errors" not in first.json(), first.json()
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert WebformSubmission.objects.count() == 1


@pytest.mark.django_db
def test_the_openapi_document_names_the_header_on_fill_and_generate(client) -> None:
    document = client.get("/api/openapi.json").json()
    names = {
        operation["operationId"]: [p["name"] for p in operation.get("parameters", [])]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }

    assert "Idempotency-Key" in names["fillPdf"]
    assert "Idempotency-Key" in names["generatePdf"]
    assert "Idempotency-Key" not in names.get("verifyPdf", [])
    assert "**Safe retries**" in document["info"]["description"]


def _multipart(boundary: str) -> bytes:
    """generate-pdf's fields as multipart parts, framed by ``boundary``."""
    parts = [("type", "html"), ("title", "t"), ("data", '{"html": "<p>Invoice 7</p>"}')]
    body = b""
    for name, value in parts:
        body += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        ).encode()
    return body + f"--{boundary}--\r\n".encode()


@pytest.mark.django_db
def test_a_multipart_retry_with_a_new_boundary_is_the_same_request(
    api_client, generate_calls
) -> None:
    answers = [
        api_client.post(
            "/api/v1/generate-pdf",
            data=_multipart(boundary),
            content_type=f"multipart/form-data; boundary={boundary}",
            headers={"Idempotency-Key": "mp-1"},
        )
        for boundary in ("----first7522447975807170526983794425", "556e2a3fa791427d95ba17d2")
    ]

    assert [a.status_code for a in answers] == [200, 200], answers[0].content
    assert answers[1]["Idempotent-Replayed"] == "true"
    assert answers[1].content == answers[0].content
    assert len(generate_calls) == 1


@pytest.mark.django_db
def test_a_kept_answer_holding_a_signing_link_is_stored_encrypted(api_client) -> None:
    # generateEtchSignURL's answer is the signing link and its token, which are otherwise
    # stored only hashed: the kept answer is encrypted with FIELD_ENCRYPTION_KEYS.
    from django.db import connection

    from tests.esign.conftest import SIGN_URL, token_of

    created = post_json(api_client, "/graphql", {"query": CREATE, "variables": two_signer_packet()})
    signer = created.json()["data"]["createEtchPacket"]["documentGroup"]["signers"][0]["eid"]
    body = {"query": SIGN_URL, "variables": {"signerEid": signer, "clientUserId": "u"}}

    first = post_json(api_client, "/graphql", body, key="link-1")
    again = post_json(api_client, "/graphql", body, key="link-1")

    url = first.json()["data"]["generateEtchSignURL"]
    token = token_of(url)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["data"]["generateEtchSignURL"] == url
    with connection.cursor() as cursor:
        cursor.execute("SELECT body FROM idempotency_idempotencykey WHERE key = %s", ["link-1"])
        (stored,) = cursor.fetchone()
    stored = bytes(stored)
    assert stored.startswith(b"fernet:")
    assert token.encode() not in stored
    assert b"/api/etch/" not in stored
    assert IdempotencyKey.objects.get(key="link-1").body == first.content


@pytest.mark.django_db
def test_a_graphql_refusal_keeps_nothing_and_the_corrected_request_runs(api_client) -> None:
    # As with REST: a request that did nothing (every root field null, with errors) is not
    # kept, so the corrected request may be sent with the same key, as the docs promise.
    bad = two_signer_packet()
    bad["signers"][0]["email"] = "not an address"
    refused = post_json(api_client, "/graphql", {"query": CREATE, "variables": bad}, key="k-1")
    assert refused.json()["errors"][0]["extensions"]["code"] == "ValidationError"
    assert not IdempotencyKey.objects.filter(key="k-1").exists()

    good = {"query": CREATE, "variables": two_signer_packet()}
    created = post_json(api_client, "/graphql", good, key="k-1")
    again = post_json(api_client, "/graphql", good, key="k-1")

    assert created.json()["data"]["createEtchPacket"]["eid"]
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == created.content
    assert Packet.objects.count() == 1
