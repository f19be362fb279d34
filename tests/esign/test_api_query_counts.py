"""A fixed, small number of database queries per API call whatever the packet's size (issue 38):
createEtchPacket with 1 or 10 signers and files, the etchPacket query, a signer's finish."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django.fixtures import Settings

from tests.esign.conftest import CREATE, PACKET, SIGN_URL, contract_pdf, sign, token_of

pytestmark = pytest.mark.django_db


def packet_of(signers: int, files: int) -> dict[str, Any]:
    """createEtchPacket's variables: ``files`` PDFs, ``signers`` embedded signers, each with a
    signature field on every file."""
    pdf = base64.b64encode(contract_pdf(1)).decode()
    return {
        "name": f"{signers} signers, {files} files",
        "files": [
            {
                "id": f"f{f}",
                "title": f"File {f}",
                "file": {"data": pdf, "filename": f"f{f}.pdf", "mimetype": "application/pdf"},
                "fields": [
                    {
                        "id": f"sig{s}",
                        "type": "signature",
                        "pageNum": 0,
                        "rect": {"x": 72, "y": 60 + 60 * s, "width": 150, "height": 40},
                    }
                    for s in range(signers)
                ],
            }
            for f in range(files)
        ],
        "signers": [
            {
                "id": f"s{s}",
                "name": f"Signer {s}",
                "email": f"s{s}@example.com",
                "signerType": "embedded",
                "routingOrder": s + 1,
                "signatureMode": "text",
                "fields": [{"fileId": f"f{f}", "fieldId": f"sig{s}"} for f in range(files)],
            }
            for s in range(signers)
        ],
    }


def queries(call: Callable[[], Any]) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as captured:
        result = call()
    return len(captured), result


@pytest.fixture
def counted(api_client: Client) -> Callable[..., tuple[int, dict[str, Any]]]:
    def graphql(query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        def post() -> Any:
            return api_client.post(
                "/graphql",
                data=json.dumps({"query": query, "variables": variables}),
                content_type="application/json",
            )

        count, response = queries(post)
        body = response.json()
        assert "errors" not in body, body
        return count, body["data"]

    return graphql


def test_create_and_query_a_packet_in_the_same_queries_for_1_or_10_signers_and_files(
    counted: Callable[..., tuple[int, dict[str, Any]]], settings: Settings
) -> None:
    settings.RATE_LIMIT_ENABLED = False  # counted on their own (accounts tests)
    # The keys' usage counts are written every few seconds, whatever request is running then.
    settings.API_KEY_USAGE_FLUSH_SECONDS = 3600
    counted(CREATE, packet_of(signers=1, files=1))  # the organization's first: its settings rows
    created = {size: counted(CREATE, packet_of(signers=size, files=size)) for size in (1, 10)}
    read = {
        size: counted(PACKET, {"eid": created[size][1]["createEtchPacket"]["eid"]})
        for size in (1, 10)
    }

    assert created[10][0] == created[1][0] <= 40, created
    assert read[10][0] == read[1][0] <= 6, read


def test_a_signers_finish_costs_the_same_queries_in_a_packet_of_2_or_10_signers(
    counted: Callable[..., tuple[int, dict[str, Any]]], settings: Settings
) -> None:
    settings.RATE_LIMIT_ENABLED = False
    settings.API_KEY_USAGE_FLUSH_SECONDS = 3600  # as above
    counted(CREATE, packet_of(signers=1, files=1))
    finished = {}
    for size in (2, 10):
        packet = counted(CREATE, packet_of(signers=size, files=1))[1]["createEtchPacket"]
        first = packet["documentGroup"]["signers"][0]["eid"]
        url = counted(SIGN_URL, {"signerEid": first, "clientUserId": "u"})[1]
        token = token_of(url["generateEtchSignURL"])
        count, response = queries(
            lambda first=first, token=token: sign(
                Client(), first, token, {"signature": {"typed": "Signer Zero"}}
            )
        )
        assert response.status_code == 200, response.content
        finished[size] = count

    # (Each document the signer stamps costs two more: its stamped file compared and set.)
    assert finished[10] == finished[2] <= 40, finished
