"""Deliveries to a real local receiver: every event kind signed (checked with the
``standardwebhooks`` library) and carrying the token, retries with the same webhook-id, a receiver
that is down then up, 410, Retry-After, redirects, per-object URLs, encryption, rotation."""

from __future__ import annotations

import base64
import contextlib
import json
import time
from datetime import timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.padding import MGF1, OAEP
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from pytest_django.fixtures import Settings
from standardwebhooks import Webhook, WebhookVerificationError

from accounts.models import Organization
from tests.webhooks.conftest import TEST_DELAYS, Receiver, run_tasks
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import (
    delivery_resend,
    endpoint_get,
    endpoint_public_key_set,
    endpoint_url_set,
    event_emit,
    secret_rotate,
    secrets_current,
)

pytestmark = pytest.mark.django_db(transaction=True)

Status = WebhookDelivery.Status

# Sample data of each kind, in the shapes esign and workflows will send.
SAMPLES: dict[str, dict[str, Any]] = {
    "webhookTest": {"message": "This is a test delivery."},
    "weldCreate": {"eid": "w" * 20, "slug": "onboarding", "name": "Onboarding"},
    "forgeComplete": {"eid": "f" * 20, "weldDataEid": "d" * 20, "submissionEid": "s" * 20},
    "weldComplete": {
        "isComplete": True,
        "isTest": False,
        "eid": "d" * 20,
        "documents": [{"type": "application/zip", "url": "https://x.test/download/d.zip"}],
        "weld": {"eid": "w" * 20, "slug": "onboarding"},
        "forges": {"intake": {"eid": "f" * 20, "name": "Intake"}},
        "submissions": {
            "intake": {
                "eid": "s" * 20,
                "resolvedPayload": {"name": {"type": "shortText", "value": "Ada", "label": "Name"}},
            }
        },
    },
    "signerUpdateStatus": {"signerEid": "g" * 20, "status": "viewed", "etchPacketEid": "e" * 20},
    "signerComplete": {"signerEid": "g" * 20, "status": "completed", "etchPacketEid": "e" * 20},
    "etchPacketComplete": {"eid": "e" * 20, "name": "Lease", "status": "completed"},
    "documentGroupCreate": {"eid": "c" * 20, "status": "sent", "etchPacketEid": "e" * 20},
}


def verify(organization: Organization, request: Any) -> Any:
    """The body as the standardwebhooks library returns it after checking the signature."""
    secret = secrets_current(organization=organization)[0].secret
    return Webhook(secret).verify(request.body, request.headers)


def deliveries() -> list[WebhookDelivery]:
    return list(WebhookDelivery.objects.order_by("id"))


def attempts(delivery: WebhookDelivery) -> list[WebhookAttempt]:
    return list(delivery.attempts.order_by("number"))


def settled() -> bool:
    return not WebhookDelivery.objects.filter(status=Status.PENDING).exists()


def test_every_event_kind_arrives_signed_with_the_token(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    for action, data in SAMPLES.items():
        with transaction.atomic():
            event_emit(organization=endpoint_org, action=action, data=data)

    run_tasks(settled)

    token = endpoint_get(organization=endpoint_org).token
    assert len(receiver.requests) == len(SAMPLES) == 8
    by_action = {}
    for request in receiver.requests:
        body = verify(endpoint_org, request)
        assert set(body) == {"action", "token", "data"}
        assert body["token"] == token
        assert request.headers["content-type"] == "application/json"
        by_action[body["action"]] = (body["data"], request.headers["webhook-id"])
    events = {e.action: e for e in WebhookEvent.objects.all()}
    assert {a: d for a, (d, _) in by_action.items()} == SAMPLES
    assert {a: i for a, (_, i) in by_action.items()} == {
        a: f"msg_{e.eid}" for a, e in events.items()
    }
    assert [d.status for d in deliveries()] == [Status.DELIVERED] * 8
    assert {(a.number, a.outcome, a.status_code) for a in WebhookAttempt.objects.all()} == {
        (1, "delivered", 200)
    }


def test_a_tampered_body_or_another_secret_fails_verification(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    event_emit(organization=endpoint_org, action="webhookTest", data={"a": 1})
    run_tasks(settled)

    (request,) = receiver.requests
    with pytest.raises(WebhookVerificationError):
        Webhook(secrets_current(organization=endpoint_org)[0].secret).verify(
            request.body.replace(b'"a":1', b'"a":2'), request.headers
        )
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + base64.b64encode(b"x" * 32).decode()).verify(
            request.body, request.headers
        )


def test_a_500_then_200_is_delivered_on_retry_with_the_same_webhook_id(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    receiver.answers = [(500, {})]
    event = event_emit(
        organization=endpoint_org, action="weldComplete", data=SAMPLES["weldComplete"]
    )

    run_tasks(settled)

    first, second = receiver.requests
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == event.message_id
    assert verify(endpoint_org, second)["data"] == SAMPLES["weldComplete"]
    (delivery,) = deliveries()
    assert (delivery.status, delivery.attempt_count, delivery.last_status_code) == (
        Status.DELIVERED,
        2,
        200,
    )
    failed, delivered = attempts(delivery)
    assert (failed.outcome, failed.status_code, failed.error) == (
        "retry",
        500,
        "HTTP 500 Internal Server Error",
    )
    assert failed.response_excerpt == "receiver says no"
    assert failed.duration_ms is not None
    assert failed.finished_at is not None
    assert (delivered.outcome, delivered.status_code, delivered.error) == ("delivered", 200, "")
    assert delivered.response_excerpt == '{"ok": true}'
    # The retry waited the first delay (0.2 s, give or take 10 %).
    assert delivered.started_at - failed.started_at >= timedelta(seconds=0.18)


def test_a_receiver_that_is_down_gets_the_delivery_after_it_recovers(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    receiver.stop()
    event_emit(organization=endpoint_org, action="signerComplete", data=SAMPLES["signerComplete"])

    run_tasks(lambda: WebhookAttempt.objects.count() >= 3)
    receiver.start()  # on the same port
    run_tasks(settled)

    (delivery,) = deliveries()
    outcomes = [(a.outcome, a.status_code, a.error.split(":")[0]) for a in attempts(delivery)]
    assert outcomes[:3] == [("retry", None, "connection_failed")] * 3
    assert outcomes[-1] == ("delivered", 200, "")
    assert delivery.status == Status.DELIVERED
    (request,) = receiver.requests
    assert verify(endpoint_org, request)["action"] == "signerComplete"


def test_retries_run_out_and_the_delivery_is_failed(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    receiver.answers = [(503, {})] * 20
    event_emit(organization=endpoint_org, action="webhookTest", data={})

    run_tasks(settled)

    (delivery,) = deliveries()
    assert delivery.status == Status.FAILED
    assert delivery.attempt_count == len(TEST_DELAYS) + 1 == 9
    assert [a.outcome for a in attempts(delivery)] == ["retry"] * 8 + ["failed"]
    assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1
    assert delivery.next_attempt_at is None


def test_retry_after_is_honoured(endpoint_org: Organization, receiver: Receiver) -> None:
    receiver.answers = [(429, {"Retry-After": "2"})]
    event_emit(organization=endpoint_org, action="webhookTest", data={})

    run_tasks(settled)

    first, second = attempts(deliveries()[0])
    assert first.status_code == 429
    assert second.started_at - first.started_at >= timedelta(seconds=2)


def test_410_disables_the_endpoint_and_later_events_are_kept_but_not_sent(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    receiver.answers = [(410, {})]
    event_emit(organization=endpoint_org, action="webhookTest", data={})
    run_tasks(settled)

    later = event_emit(organization=endpoint_org, action="weldCreate", data={})
    run_tasks(settled)

    gone, skipped = deliveries()
    assert (gone.status, gone.attempt_count, gone.last_status_code) == (Status.FAILED, 1, 410)
    assert WebhookEndpoint.objects.get().disabled_at is not None
    assert skipped.event == later
    assert skipped.status == Status.SKIPPED
    assert "410" in skipped.last_error
    assert len(receiver.requests) == 1

    endpoint_url_set(organization=endpoint_org, url=receiver.url)  # saving re-enables it
    delivery_resend(delivery=skipped, requested_by="test")
    run_tasks(settled)
    assert receiver.requests[-1].headers["webhook-id"] == later.message_id


def test_a_redirect_is_not_followed_and_counts_as_a_failure(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    receiver.answers = [(302, {"Location": "http://127.0.0.1:1/elsewhere"})]
    event_emit(organization=endpoint_org, action="webhookTest", data={})

    run_tasks(settled)

    redirected, delivered = attempts(deliveries()[0])
    assert (redirected.outcome, redirected.status_code) == ("retry", 302)
    assert delivered.status_code == 200
    assert [r.path for r in receiver.requests] == ["/hook", "/hook"]


def test_the_objects_own_url_takes_precedence(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    own = Receiver()
    own.start()
    try:
        event_emit(
            organization=endpoint_org,
            action="etchPacketComplete",
            data={"eid": "e"},
            webhook_url=own.url + "?packet=1",
        )
        run_tasks(settled)
    finally:
        own.stop()

    assert receiver.requests == []
    (request,) = own.requests
    assert request.path == "/hook?packet=1"
    assert verify(endpoint_org, request)["action"] == "etchPacketComplete"


def test_without_a_url_the_event_is_kept_and_can_be_resent_later(
    organization: Organization, receiver: Receiver
) -> None:
    event = event_emit(organization=organization, action="weldCreate", data={"eid": "w"})
    (skipped,) = deliveries()
    assert (skipped.status, skipped.last_error) == (Status.SKIPPED, "No webhook URL is set.")
    assert DBTaskResult.objects.count() == 0

    endpoint_url_set(organization=organization, url=receiver.url)
    resent = delivery_resend(delivery=skipped, requested_by="olivia")
    run_tasks(settled)

    resent.refresh_from_db()
    assert (resent.status, resent.requested_by) == (Status.DELIVERED, "olivia")
    (request,) = receiver.requests
    assert request.headers["webhook-id"] == event.message_id


def test_an_event_in_a_rolled_back_transaction_never_existed(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    with contextlib.suppress(RuntimeError), transaction.atomic():
        event_emit(organization=endpoint_org, action="webhookTest", data={})
        raise RuntimeError("the state change failed")

    assert WebhookEvent.objects.count() == 0
    assert WebhookDelivery.objects.count() == 0
    assert DBTaskResult.objects.count() == 0


def test_a_loopback_receiver_is_refused_without_the_allowlist(
    endpoint_org: Organization, receiver: Receiver, settings: Settings
) -> None:
    settings.FETCH_ALLOW_NETWORKS = []
    settings.WEBHOOK_RETRY_DELAYS = [0.05]
    event_emit(organization=endpoint_org, action="webhookTest", data={})

    run_tasks(settled)

    assert receiver.requests == []
    (delivery,) = deliveries()
    assert delivery.status == Status.FAILED
    assert {a.error.split(":")[0] for a in attempts(delivery)} == {"address_not_allowed"}


# --- encryption -----------------------------------------------------------------------------------


def decrypt_as_integrator(text: str, private_key: rsa.RSAPrivateKey) -> Any:
    """The documented format, decrypted independently of the service's own code."""
    rsa_part, _, rest = text.partition(":")
    iv_hex, _, ciphertext_hex = rest.partition(":")
    sha1 = hashes.SHA1()  # noqa: S303 - the documented format fixes SHA-1 OAEP
    oaep = OAEP(mgf=MGF1(algorithm=sha1), algorithm=sha1, label=None)
    key_hex = private_key.decrypt(base64.b64decode(rsa_part), oaep)
    assert len(key_hex) == 64  # the hex string of the AES key, not its bytes
    decryptor = Cipher(
        algorithms.AES(bytes.fromhex(key_hex.decode())), modes.CBC(bytes.fromhex(iv_hex))
    ).decryptor()
    padded = decryptor.update(bytes.fromhex(ciphertext_hex)) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return json.loads(unpadder.update(padded) + unpadder.finalize())


def test_with_a_public_key_registered_data_is_encrypted_for_the_integrator(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_pem = private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    endpoint_public_key_set(organization=endpoint_org, pem=public_pem.decode())
    event_emit(organization=endpoint_org, action="weldComplete", data=SAMPLES["weldComplete"])

    run_tasks(settled)

    (request,) = receiver.requests
    body = verify(endpoint_org, request)
    assert body["action"] == "weldComplete"
    assert body["token"] == endpoint_get(organization=endpoint_org).token
    assert isinstance(body["data"], str)
    assert body["data"].count(":") == 2
    assert "Ada" not in request.body.decode()
    assert decrypt_as_integrator(body["data"], private_key) == SAMPLES["weldComplete"]


# --- secret rotation ------------------------------------------------------------------------------


def test_after_a_rotation_both_secrets_verify_until_the_overlap_ends(
    endpoint_org: Organization, receiver: Receiver, settings: Settings
) -> None:
    old = secrets_current(organization=endpoint_org)[0].secret
    new = secret_rotate(organization=endpoint_org).secret
    event_emit(organization=endpoint_org, action="webhookTest", data={"n": 1})
    run_tasks(settled)

    settings.WEBHOOK_SECRET_OVERLAP_HOURS = 0
    newest = secret_rotate(organization=endpoint_org).secret
    time.sleep(0.01)
    event_emit(organization=endpoint_org, action="webhookTest", data={"n": 2})
    run_tasks(settled)

    during, after = receiver.requests
    assert len(during.headers["webhook-signature"].split(" ")) == 2
    assert Webhook(old).verify(during.body, during.headers)["data"] == {"n": 1}
    assert Webhook(new).verify(during.body, during.headers)["data"] == {"n": 1}
    # The second rotation had no overlap: only the newest secret signs.
    assert len(after.headers["webhook-signature"].split(" ")) == 1
    assert Webhook(newest).verify(after.body, after.headers)["data"] == {"n": 2}
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(after.body, after.headers)


def test_the_timestamp_is_the_attempts_own(endpoint_org: Organization, receiver: Receiver) -> None:
    event_emit(organization=endpoint_org, action="webhookTest", data={})
    run_tasks(settled)

    (request,) = receiver.requests
    sent = int(request.headers["webhook-timestamp"])
    assert abs(sent - timezone.now().timestamp()) < 10
