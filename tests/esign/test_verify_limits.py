"""Verification is bounded: the security report's 24 MB file whose one signature holds 12 MB of
hexadecimal digits is refused quickly by POST /api/v1/verify and by /verify, without the web
process growing; past the structural limits (test_verify_structure.py), the verify worker's time
and memory limits.

The attacker audit's files of issue 32 too, each once 15 to 33 s: six signatures of 4 MB of
digits in compressed object streams (a 28 KB file), eleven signatures of 1 MB (23 MB), and a
20 MB literal-string /Contents. The structural limits refuse each at once; past them, the worker
reads such strings at once (esign.engine.pdf_strings) or stops at its deadline. And one client
address holds at most VERIFY_MAX_PER_ADDRESS verifications at once (esign.verify.slots).

Time and memory are checked with generous bounds (a shared, noisy machine): before the fix the
report's file took 33 s and 2.37 GB in the web process; the bounds are 10 s (what a visitor may
wait for any answer) and +200 MB.
"""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client

from esign.engine.verify_limits import PdfOverLimit, VerifyLimits, check_pdf_limits
from esign.engine.verify_pool import VerifyBusy, VerifyPool
from esign.verify import signatures as esign_verify
from esign.verify.slots import verify_slot_release, verify_slot_take
from tests.esign.hostile_pdf import (
    literal_contents_pdf,
    many_signatures_pdf,
    object_stream_signatures_pdf,
    oversized_signature_pdf,
)
from tests.esign.test_seal_engine import three_pages
from tests.memory import web_process_growth

MB = 1_048_576
# CPU seconds of the test process and the verify workers it started (tests/memory.py): a bound
# on work, which a loaded machine does not stretch as it stretches the wall time.
SECONDS_BOUND = 10.0
GROWTH_BOUND = 200 * MB


def refusal(pdf: bytes, **limits: int) -> str:
    """The first problem check_pdf_limits finds in ``pdf`` under ``limits`` (it must find one)."""
    with pytest.raises(PdfOverLimit) as refused:
        check_pdf_limits(pdf, VerifyLimits(**limits))
    return refused.value.problems[0].message


@pytest.fixture(scope="module")
def attack() -> bytes:
    pdf = oversized_signature_pdf()
    assert 23_000_000 < len(pdf) < 25 * MB
    return pdf


def post(client: Client, path: str, data: bytes, address: str = "127.0.0.1") -> Any:
    upload = io.BytesIO(data)
    upload.name = "attack.pdf"
    return client.post(path, {"file": upload}, REMOTE_ADDR=address)


CONTENTS_REFUSED = "A signature's contents are 5.7 MB; the limit is 1 MB."


def assert_refused_by_the_api(api_client: Client, pdf: bytes, message: str) -> None:
    """The API refuses ``pdf`` with ``message``, within the web process's time and memory."""
    with web_process_growth() as figures:
        response = post(api_client, "/api/v1/verify", pdf)

    assert response.status_code == 422
    assert response.json() == {
        "name": "ValidationError",
        "fields": [{"message": message, "property": "file"}],
    }
    assert figures["cpu_seconds"] < SECONDS_BOUND
    assert figures["growth"] < GROWTH_BOUND


def assert_refused_by_the_page(client: Client, pdf: bytes, message: str, times: int = 1) -> None:
    """The page refuses ``pdf`` ``times`` over, showing ``message``, within the web process's
    time (for each) and memory (for all)."""
    with web_process_growth() as figures:
        answers = [post(client, "/verify", pdf) for _ in range(times)]

    assert [a.status_code for a in answers] == [422] * times
    assert message.replace("'", "&#x27;") in answers[0].content.decode()
    assert figures["cpu_seconds"] < times * SECONDS_BOUND
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_the_oversized_signature_attack_is_refused_by_the_api(
    attack: bytes, api_client: Client
) -> None:
    assert_refused_by_the_api(api_client, attack, CONTENTS_REFUSED)


@pytest.mark.django_db
def test_the_oversized_signature_attack_is_refused_by_the_page(
    attack: bytes, client: Client
) -> None:
    assert_refused_by_the_page(client, attack, CONTENTS_REFUSED, times=2)


# --- past the structural limits: the worker's memory and time limits ---------------------------


@pytest.fixture
def no_structural_limits(settings: Any) -> Any:
    settings.VERIFY_MAX_SIGNATURE_CONTENTS_BYTES = 100 * MB
    settings.VERIFY_MAX_TOTAL_SIGNATURE_CONTENTS_BYTES = 100 * MB
    return settings


@pytest.fixture(scope="module")
def heavy() -> bytes:
    """What still costs the worker time and memory past the structural limits: a 20 MB literal
    /Contents, read at once (esign.engine.pdf_strings) but then decoded by pyHanko a character
    at a time (some 5 s, and some hundreds of MB)."""
    return literal_contents_pdf()


@pytest.mark.django_db
def test_a_file_that_needs_too_much_memory_is_refused_by_the_worker(
    heavy: bytes, api_client: Client, no_structural_limits: Any
) -> None:
    no_structural_limits.VERIFY_WORKER_MEMORY_MB = 300  # the report's 24 MB file verifies in it
    no_structural_limits.VERIFY_TIMEOUT_SECONDS = 120

    with web_process_growth() as figures:
        response = post(api_client, "/api/v1/verify", heavy)

    assert response.status_code == 422
    assert response.json() == {
        "name": "ValidationError",
        "fields": [
            {
                "message": "The file is too complex to verify: it needs more memory than a"
                " verification may use (300 MB).",
                "property": "file",
            }
        ],
    }
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_a_file_that_takes_too_long_is_stopped(
    heavy: bytes, client: Client, no_structural_limits: Any
) -> None:
    no_structural_limits.VERIFY_TIMEOUT_SECONDS = 1

    with web_process_growth() as figures:
        response = post(client, "/verify", heavy)

    assert response.status_code == 422
    assert "The file took longer than 1 second to verify and was stopped." in (
        response.content.decode()
    )
    assert figures["cpu_seconds"] < SECONDS_BOUND
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_a_normal_file_still_verifies_after_a_refusal(
    heavy: bytes, api_client: Client, no_structural_limits: Any
) -> None:
    no_structural_limits.VERIFY_TIMEOUT_SECONDS = 1
    assert post(api_client, "/api/v1/verify", heavy).status_code == 422
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


# --- the attacker audit's files (issue 32) ------------------------------------------------------

OBJECT_STREAM_REFUSED = "The file holds a string longer than a signature's contents may be (1 MB)."
MANY_REFUSED = "The file's signatures hold more than 8 MB of contents; the limit is 8 MB."
LITERAL_REFUSED = "A signature's contents are longer than 1 MB; the limit is 1 MB."


@pytest.fixture(scope="module")
def audit_files() -> dict[str, bytes]:
    files = {
        "object streams": object_stream_signatures_pdf(),
        "eleven signatures": many_signatures_pdf(),
        "literal contents": literal_contents_pdf(),
    }
    assert len(files["object streams"]) < 40_000
    assert 22 * MB < len(files["eleven signatures"]) < 23 * MB
    assert 19 * MB < len(files["literal contents"]) < 20 * MB
    return files


AUDIT_CASES = [
    ("object streams", OBJECT_STREAM_REFUSED),
    ("eleven signatures", MANY_REFUSED),
    ("literal contents", LITERAL_REFUSED),
]


@pytest.mark.parametrize(("name", "message"), AUDIT_CASES)
def test_the_structural_limits_refuse_the_audit_files(
    audit_files: dict[str, bytes], name: str, message: str
) -> None:
    refused = refusal(audit_files[name])

    assert refused == message


@pytest.mark.django_db
@pytest.mark.parametrize("door", ["api", "page"])
@pytest.mark.parametrize(("name", "message"), AUDIT_CASES)
def test_the_audit_files_are_refused_by_the_api_and_the_page(
    audit_files: dict[str, bytes],
    api_client: Client,
    client: Client,
    name: str,
    message: str,
    door: str,
) -> None:
    if door == "api":
        assert_refused_by_the_api(api_client, audit_files[name], message)
    else:
        assert_refused_by_the_page(client, audit_files[name], message)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "signatures", "verdict"),
    # the object streams' six signature dictionaries hold only zeros: unsigned placeholders
    [("object streams", 0, "not_signed"), ("eleven signatures", 11, "untrusted")],
)
def test_past_the_structural_limits_the_worker_reads_long_strings_at_once(
    audit_files: dict[str, bytes],
    api_client: Client,
    no_structural_limits: Any,
    name: str,
    signatures: int,
    verdict: str,
) -> None:
    """The cause, not only the symptom: pyHanko's parse of these took 34 and 40 s (a digit at a
    time); the worker's own string readers take about a second, within the default deadline."""
    with web_process_growth() as figures:
        response = post(api_client, "/api/v1/verify", audit_files[name])

    assert response.status_code == 200
    body = response.json()
    assert (len(body["signatures"]), body["verdict"]) == (signatures, verdict)
    assert figures["cpu_seconds"] < SECONDS_BOUND


# --- the object streams' own limits ---------------------------------------------------------


def test_object_streams_are_inflated_within_a_bound() -> None:
    pdf = object_stream_signatures_pdf(signatures=3, hex_digits=1_000_000)  # 3 MB inflated
    assert len(pdf) < 20_000

    check_pdf_limits(pdf, VerifyLimits(max_object_stream_bytes=4 * MB))
    refused = refusal(pdf, max_object_stream_bytes=2 * MB)

    assert refused == (
        "The file's object streams hold more than 2 MB once inflated; that is the limit."
    )


def test_object_streams_are_counted() -> None:
    pdf = object_stream_signatures_pdf(signatures=3, hex_digits=2_000)

    check_pdf_limits(pdf, VerifyLimits(max_object_streams=3))
    refused = refusal(pdf, max_object_streams=2)

    assert refused == ("The file has more than 2 object streams; that is the limit.")


def test_signatures_in_object_streams_count_towards_the_limits() -> None:
    pdf = object_stream_signatures_pdf(signatures=3, hex_digits=4_000)

    signatures = refusal(pdf, max_signatures=2)
    total = refusal(pdf, max_total_signature_contents_bytes=5_000)

    assert signatures == "The file has 3 signatures; the limit is 2."
    assert total == (
        "The file's signatures hold more than 5,000 bytes of contents; the limit is 5,000 bytes."
    )


def test_an_object_stream_compressed_otherwise_is_refused() -> None:
    pdf = object_stream_signatures_pdf(signatures=1, hex_digits=2_000)
    recoded = pdf.replace(b"/Filter /FlateDecode", b"/Filter /LZWDecode ", 1)
    assert recoded != pdf

    refused = refusal(recoded)

    assert refused == (
        "The file has an object stream compressed in a way the verifier does not read."
    )


def test_an_object_stream_with_decode_parameters_is_inflated_and_scanned() -> None:
    pdf = object_stream_signatures_pdf(signatures=1)  # one signature of 4 MB of digits
    with_parameters = pdf.replace(
        b"/Filter /FlateDecode", b"/Filter /FlateDecode /DecodeParms << /Predictor 1 >>", 1
    )
    assert with_parameters != pdf

    refused = refusal(with_parameters)

    assert refused == OBJECT_STREAM_REFUSED


def test_an_object_stream_whose_data_is_far_from_its_dictionary_is_refused() -> None:
    """Its dictionary padded to push the data out of the window the scan looks in (as every
    /Type /ObjStm would otherwise search the rest of the file)."""
    pdf = object_stream_signatures_pdf(signatures=1, hex_digits=2_000)
    padded = pdf.replace(b"/Type /ObjStm", b"/Type /ObjStm /Pad (" + b"x" * 5_000 + b")", 1)

    refused = refusal(padded)

    assert refused == ("The file has an object stream this verifier cannot find the data of.")


def test_a_literal_string_is_measured_to_its_own_end_past_nested_parentheses() -> None:
    # 1,200 bytes: six a pair, an escaped parenthesis in each nested pair.
    pdf = three_pages() + b"<< /Contents (" + b"(a\\)b)" * 200 + b") >>"

    check_pdf_limits(pdf, VerifyLimits(max_signature_contents_bytes=1_200))
    over = refusal(pdf, max_signature_contents_bytes=1_199)
    total = refusal(
        pdf, max_signature_contents_bytes=2_000, max_total_signature_contents_bytes=1_199
    )

    assert over == "A signature's contents are longer than 1,199 bytes; the limit is 1,199 bytes."
    assert total == (
        "The file's signatures hold more than 1,199 bytes of contents; the limit is 1,199 bytes."
    )


def test_literal_contents_within_the_limit_count_towards_the_total() -> None:
    pdf = literal_contents_pdf(length=3_000)

    check_pdf_limits(pdf, VerifyLimits(max_signature_contents_bytes=3_000))
    refused = refusal(
        pdf, max_signature_contents_bytes=3_000, max_total_signature_contents_bytes=2_999
    )

    assert refused == (
        "The file's signatures hold more than 2,999 bytes of contents; the limit is 2,999 bytes."
    )


# --- one address, one worker ---------------------------------------------------------------


@pytest.fixture
def two_workers_one_each(settings: Any) -> Any:
    settings.VERIFY_WORKERS = 2
    settings.VERIFY_MAX_PER_ADDRESS = None  # half the workers: 1
    settings.TRUST_X_FORWARDED_FOR = False
    return settings


SLOT_TAKEN = "A file from your address is already being verified; try again when it is done."


@pytest.mark.django_db
def test_an_address_with_a_verification_under_way_is_refused_at_once(
    two_workers_one_each: Any,
    api_client: Client,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first verification of 10.0.0.1 holds its slot (taken as pdf_verify takes it, in the
    shared cache): its second, on the API or the page, is a 429 with Retry-After at once, never
    scanned nor queued for a worker; 10.0.0.2 is served meanwhile."""
    scanned: list[int] = []
    real_check = esign_verify.check_pdf_limits

    def counted_check(pdf: bytes, limits: VerifyLimits) -> None:
        scanned.append(len(pdf))
        real_check(pdf, limits)

    monkeypatch.setattr(esign_verify, "check_pdf_limits", counted_check)
    under_way = verify_slot_take("10.0.0.1")
    try:
        api = post(api_client, "/api/v1/verify", three_pages(), address="10.0.0.1")
        page = post(client, "/verify", three_pages(), address="10.0.0.1")
        refused_scans = len(scanned)
        other = post(api_client, "/api/v1/verify", three_pages(), address="10.0.0.2")
    finally:
        verify_slot_release(under_way)
    again = post(api_client, "/api/v1/verify", three_pages(), address="10.0.0.1")

    assert (api.status_code, api["Retry-After"]) == (429, "8")
    assert api.json() == {"name": "RateLimitError", "message": SLOT_TAKEN}
    assert (page.status_code, page["Retry-After"]) == (429, "8")
    assert SLOT_TAKEN in page.content.decode()
    assert (refused_scans, len(scanned)) == (0, 2)  # only 10.0.0.2's and the later one
    assert (other.status_code, other.json()["verdict"]) == (200, "not_signed")
    assert (again.status_code, again.json()["verdict"]) == (200, "not_signed")


@pytest.mark.django_db
def test_a_slot_is_given_back_after_a_refusal(
    two_workers_one_each: Any, api_client: Client, audit_files: dict[str, bytes]
) -> None:
    refused = post(api_client, "/api/v1/verify", audit_files["literal contents"], "10.0.0.3")
    served = post(api_client, "/api/v1/verify", three_pages(), address="10.0.0.3")

    assert (refused.status_code, served.status_code) == (422, 200)


@pytest.mark.django_db
def test_a_slot_left_by_a_dead_process_expires(
    two_workers_one_each: Any, api_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server process killed mid-verification never gives its slot back: it expires after
    the longest verification (2 + 6 s) and a margin (10 s), by the cache's clock."""
    import django.core.cache.backends.db as db_cache

    verify_slot_take("10.0.0.4")  # never released
    assert post(api_client, "/api/v1/verify", three_pages(), "10.0.0.4").status_code == 429
    real_now = db_cache.tz_now

    monkeypatch.setattr(db_cache, "tz_now", lambda: real_now() + timedelta(seconds=17))
    assert post(api_client, "/api/v1/verify", three_pages(), "10.0.0.4").status_code == 429
    monkeypatch.setattr(db_cache, "tz_now", lambda: real_now() + timedelta(seconds=19))
    assert post(api_client, "/api/v1/verify", three_pages(), "10.0.0.4").status_code == 200


@pytest.mark.django_db
def test_more_slots_per_address_when_configured(
    two_workers_one_each: Any, api_client: Client
) -> None:
    two_workers_one_each.VERIFY_MAX_PER_ADDRESS = 2
    first = verify_slot_take("10.0.0.5")
    try:
        served = post(api_client, "/api/v1/verify", three_pages(), address="10.0.0.5")
        second = verify_slot_take("10.0.0.5")
        refused = post(api_client, "/api/v1/verify", three_pages(), address="10.0.0.5")
        verify_slot_release(second)
    finally:
        verify_slot_release(first)

    assert (served.status_code, refused.status_code) == (200, 429)
