"""The HTTP SMS backend (esign.links.sms, ESIGN_SMS_BACKEND=http) against a fake provider on
127.0.0.1: the code goes out as JSON with the token, through the outbound client's address guard
(loopback allowed only here); a provider that refuses leaves no usable code and no send in the
trail."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import Client

from esign.models import AuditEvent, SignerCode
from tests.esign.conftest import CREATE, token_of, two_signer_packet

pytestmark = pytest.mark.django_db


class FakeProvider:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 202
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers["Content-Length"])
                provider.requests.append(
                    {
                        "authorization": self.headers.get("Authorization"),
                        "type": self.headers.get("Content-Type"),
                        "json": json.loads(self.rfile.read(length)),
                    }
                )
                self.send_response(provider.status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/messages"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def provider(settings) -> Iterator[FakeProvider]:
    fake = FakeProvider()
    settings.ESIGN_SMS_BACKEND = "http"
    settings.ESIGN_SMS_URL = fake.url
    settings.ESIGN_SMS_TOKEN = "sms-token-for-tests"
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    yield fake
    fake.stop()


def sms_signer(graphql, sign_url) -> tuple[str, str]:
    variables = two_signer_packet()
    variables["signers"][0]["verify"] = {"method": "sms", "phone": "+44 20 7946 0958"}
    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    signer_eid = result["data"]["createEtchPacket"]["documentGroup"]["signers"][0]["eid"]
    return signer_eid, token_of(sign_url(signer_eid))


def test_the_code_goes_to_the_provider_with_the_token(graphql, sign_url, provider) -> None:
    signer_eid, token = sms_signer(graphql, sign_url)
    code_page = f"/api/etch/sign/{signer_eid}/code"
    assert Client().post(code_page, {"token": token, "action": "send"}).status_code == 200

    [request] = provider.requests
    assert request["authorization"] == "Bearer sms-token-for-tests"
    assert request["type"] == "application/json"
    assert request["json"]["to"] == "+442079460958"
    code = re.search(r"\b(\d{6})\b", request["json"]["body"])
    assert code
    assert Client().post(code_page, {"token": token, "code": code.group(1)}).status_code == 302


def test_a_refusing_provider_leaves_no_code_and_no_send(graphql, sign_url, provider) -> None:
    provider.status = 500
    signer_eid, token = sms_signer(graphql, sign_url)
    code_page = f"/api/etch/sign/{signer_eid}/code"
    failed = Client().post(code_page, {"token": token, "action": "send"})
    assert failed.status_code == 503
    assert "could not be sent" in failed.content.decode()
    assert len(provider.requests) == 1
    code = re.search(r"\b(\d{6})\b", provider.requests[0]["json"]["body"])
    assert code
    refused = Client().post(code_page, {"token": token, "code": code.group(1)})
    assert refused.status_code == 400
    assert not AuditEvent.objects.filter(action="signerCodeSent").exists()
    assert SignerCode.objects.count() == 1


def test_the_guard_refuses_loopback_unless_allowed(graphql, sign_url, provider, settings) -> None:
    settings.FETCH_ALLOW_NETWORKS = []
    signer_eid, token = sms_signer(graphql, sign_url)
    failed = Client().post(f"/api/etch/sign/{signer_eid}/code", {"token": token, "action": "send"})
    assert failed.status_code == 503
    assert provider.requests == []
