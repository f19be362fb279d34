"""What integrators see of sealing, at the wire: etchPacket's sealStatus, sealLevel, sealedAt,
sealError and sealRetryAt (GraphQL extensions), the etchPacketSealed and etchPacketSealFailed
webhook events (signed deliveries like the spec's events), and the reason in the zip's 503
SealFailedError."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django_tasks_db.models import DBTaskResult
from standardwebhooks import Webhook

from accounts.models import Organization
from esign.models import Packet
from esign.sealing.seal import packet_seal
from tests.esign.sealpki import shared_pki
from tests.esign.test_seal_packets import zip_url
from tests.webhooks.conftest import (  # noqa: F401 - fixtures
    Receiver,
    endpoint_org,
    receiver,
    run_tasks,
)
from webhooks.models import WebhookDelivery
from webhooks.services import secrets_current

pytestmark = pytest.mark.django_db

SEAL_QUERY = """
query Packet($eid: String!) {
  etchPacket(eid: $eid) { eid status sealStatus sealLevel sealedAt sealRetryAt
    sealError { code message } }
}
"""


@pytest.fixture
def tsa(settings: Any) -> Any:
    """Seals timestamped by the shared test PKI's TSA (whose root is trusted)."""
    pki = shared_pki()
    settings.SEAL_TSA_URLS = [pki.tsa_url]
    roots_file = Path(settings.SEAL_DEV_DIR).parent / "tsa-roots.pem"
    roots_file.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots_file)
    yield pki
    pki.tsa_available = True


def seal_of(graphql: Callable[..., dict[str, Any]], eid: str) -> dict[str, Any]:
    return graphql(SEAL_QUERY, {"eid": eid})["data"]["etchPacket"]


def test_etch_packet_shows_the_seal_pending_retrying_then_sealed(
    complete, graphql: Callable[..., dict[str, Any]], tsa: Any
) -> None:
    created, packet = complete()
    pending = seal_of(graphql, created["eid"])
    assert pending == {
        "eid": created["eid"],
        "status": "completed",
        "sealStatus": "pending",
        "sealLevel": None,
        "sealedAt": None,
        "sealRetryAt": None,
        "sealError": None,
    }

    tsa.tsa_available = False
    assert packet_seal(packet_id=packet.pk).startswith("retrying at ")
    retrying = seal_of(graphql, created["eid"])
    assert retrying["sealStatus"] == "retrying"
    assert retrying["sealError"] == {
        "code": "timestamp_unavailable",
        "message": "No timestamp authority answered; the document is sealed once one does.",
    }
    assert retrying["sealRetryAt"] is not None
    assert "HTTP status 503" not in str(retrying)  # the operators' detail stays in the admin

    tsa.tsa_available = True
    assert packet_seal(packet_id=packet.pk, attempt=2) == "sealed (PAdES-B-LTA)"
    sealed = seal_of(graphql, created["eid"])
    assert (sealed["sealStatus"], sealed["sealLevel"]) == ("sealed", "PAdES-B-LTA")
    assert sealed["sealError"] is None
    assert sealed["sealRetryAt"] is None
    assert sealed["sealedAt"].startswith(packet.completed_at.strftime("%Y-%m-%d"))


def test_a_draft_packet_has_no_seal_yet(
    create_packet: Callable[..., dict[str, Any]], graphql: Callable[..., dict[str, Any]]
) -> None:
    created = create_packet()

    assert seal_of(graphql, created["eid"])["sealStatus"] is None


def delivered(got: Receiver, organization: Organization, action: str) -> dict[str, Any]:
    """The one delivery of ``action`` the receiver got, its signature checked."""
    secret = secrets_current(organization=organization)[0].secret
    bodies = [Webhook(secret).verify(r.body, r.headers) for r in got.requests]
    (body,) = [b for b in bodies if b["action"] == action]
    return body


def seal_tasks_done() -> None:
    DBTaskResult.objects.filter(task_path="esign.tasks.packet_seal_task").delete()


def settled() -> bool:
    return not WebhookDelivery.objects.filter(status="pending").exists()


def test_a_sealed_packet_sends_etch_packet_sealed(
    complete,
    endpoint_org: Organization,  # noqa: F811
    receiver: Receiver,  # noqa: F811
) -> None:
    created, packet = complete()
    packet_seal(packet_id=packet.pk)

    run_tasks(settled)

    body = delivered(receiver, endpoint_org, "etchPacketSealed")
    packet.refresh_from_db()
    assert body["data"]["etchPacket"]["eid"] == created["eid"]
    assert body["data"]["documentGroup"]["eid"] == created["documentGroup"]["eid"]
    assert body["data"]["seal"] == {
        "status": "sealed",
        "level": "PAdES-B-B",
        "sealedAt": packet.sealed_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "attempts": 0,
        "error": None,
    }


def test_a_seal_that_fails_for_good_sends_etch_packet_seal_failed_and_the_zip_says_why(
    complete,
    endpoint_org: Organization,  # noqa: F811
    receiver: Receiver,  # noqa: F811
    tsa: Any,
    settings: Any,
    api_client: Client,
) -> None:
    settings.SEAL_RETRY_DELAYS = [1.0]
    created, packet = complete()
    tsa.tsa_available = False
    assert packet_seal(packet_id=packet.pk, attempt=1).startswith("retrying")
    assert not any(b"etchPacketSealFailed" in r.body for r in receiver.requests)
    assert packet_seal(packet_id=packet.pk, attempt=2) == "failed"
    tsa.tsa_available = True
    seal_tasks_done()  # the attempts above stand for the queued seal tasks

    run_tasks(settled)

    body = delivered(receiver, endpoint_org, "etchPacketSealFailed")
    assert body["data"]["etchPacket"]["eid"] == created["eid"]
    assert body["data"]["seal"] == {
        "status": "failed",
        "level": None,
        "sealedAt": None,
        "attempts": 2,
        "error": {
            "code": "timestamp_unavailable",
            "message": "No timestamp authority answered; the document is sealed once one does.",
        },
    }
    response = api_client.get(zip_url(created))
    assert response.status_code == 503
    assert response.json() == {
        "name": "SealFailedError",
        "message": "The documents could not be sealed: No timestamp authority answered; the "
        "document is sealed once one does (timestamp_unavailable). The service's operators "
        "have been told and will seal them again.",
    }
    assert Packet.objects.get(pk=packet.pk).seal_status == "failed"
