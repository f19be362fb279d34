"""Verification is bounded: the security report's 24 MB file whose one signature holds 12 MB of
hexadecimal digits is refused quickly by POST /api/v1/verify and by /verify, without the web
process growing; past the structural limits (test_verify_structure.py), the verify worker's time
and memory limits.

Time and memory are checked with generous bounds (a shared, noisy machine): before the fix the
file took 33 s and 2.37 GB in the web process, the bounds are 10 s and +300 MB.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client

from esign.engine.verify_pool import VerifyBusy, VerifyPool
from tests.esign.hostile_pdf import oversized_signature_pdf
from tests.esign.test_seal_engine import three_pages
from tests.memory import web_process_growth

MB = 1_048_576
SECONDS_BOUND = 10.0
GROWTH_BOUND = 300 * MB


@pytest.fixture(scope="module")
def attack() -> bytes:
    pdf = oversized_signature_pdf()
    assert 23_000_000 < len(pdf) < 25 * MB
    return pdf


def post(client: Client, path: str, data: bytes) -> Any:
    upload = io.BytesIO(data)
    upload.name = "attack.pdf"
    return client.post(path, {"file": upload})


CONTENTS_REFUSED = "A signature's contents are 5.7 MB; the limit is 1 MB."


@pytest.mark.django_db
def test_the_oversized_signature_attack_is_refused_by_the_api(
    attack: bytes, api_client: Client
) -> None:
    with web_process_growth() as figures:
        response = post(api_client, "/api/v1/verify", attack)

    assert response.status_code == 422
    assert response.json() == {
        "name": "ValidationError",
        "fields": [{"message": CONTENTS_REFUSED, "property": "file"}],
    }
    assert figures["seconds"] < SECONDS_BOUND
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_the_oversized_signature_attack_is_refused_by_the_page(
    attack: bytes, client: Client
) -> None:
    with web_process_growth() as figures:
        answers = [post(client, "/verify", attack) for _ in range(2)]

    assert [a.status_code for a in answers] == [422, 422]
    assert CONTENTS_REFUSED.replace("'", "&#x27;") in answers[0].content.decode()
    assert figures["seconds"] < 2 * SECONDS_BOUND
    assert figures["growth"] < GROWTH_BOUND


# --- past the structural limits: the worker's memory and time limits ---------------------------


@pytest.fixture
def no_structural_limits(settings: Any) -> Any:
    settings.VERIFY_MAX_SIGNATURE_CONTENTS_BYTES = 100 * MB
    return settings


@pytest.mark.django_db
def test_a_file_that_needs_too_much_memory_is_refused_by_the_worker(
    attack: bytes, api_client: Client, no_structural_limits: Any
) -> None:
    no_structural_limits.VERIFY_WORKER_MEMORY_MB = 600
    no_structural_limits.VERIFY_TIMEOUT_SECONDS = 120

    with web_process_growth() as figures:
        response = post(api_client, "/api/v1/verify", attack)

    assert response.status_code == 422
    assert response.json() == {
        "name": "ValidationError",
        "fields": [
            {
                "message": "The file is too complex to verify: it needs more memory than a"
                " verification may use (600 MB).",
                "property": "file",
            }
        ],
    }
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_a_file_that_takes_too_long_is_stopped(
    attack: bytes, client: Client, no_structural_limits: Any
) -> None:
    no_structural_limits.VERIFY_TIMEOUT_SECONDS = 1

    with web_process_growth() as figures:
        response = post(client, "/verify", attack)

    assert response.status_code == 422
    assert "The file took longer than 1 second to verify and was stopped." in (
        response.content.decode()
    )
    assert figures["seconds"] < SECONDS_BOUND
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_a_normal_file_still_verifies_after_a_refusal(
    attack: bytes, api_client: Client, no_structural_limits: Any
) -> None:
    no_structural_limits.VERIFY_TIMEOUT_SECONDS = 1
    assert post(api_client, "/api/v1/verify", attack).status_code == 422
    no_structural_limits.VERIFY_TIMEOUT_SECONDS = 30

    response = post(api_client, "/api/v1/verify", three_pages())

    assert response.status_code == 200
    body = response.json()
    assert (body["signatures"], body["sealedByUs"], body["verdict"]) == ([], False, "not_signed")


@pytest.mark.django_db
def test_every_verifier_busy_is_a_503_with_retry_after(
    api_client: Client, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def busy(*args: Any, **kwargs: Any) -> None:
        raise VerifyBusy(10.0)

    monkeypatch.setattr(VerifyPool, "run", busy)

    api = post(api_client, "/api/v1/verify", three_pages())
    page = post(client, "/verify", three_pages())

    assert (api.status_code, api["Retry-After"]) == (503, "5")
    assert api.json() == {
        "name": "ServiceBusyError",
        "message": "Every verifier is busy; try again shortly.",
    }
    assert (page.status_code, page["Retry-After"]) == (503, "5")
    assert "Every verifier is busy; try again shortly." in page.content.decode()
