"""Qualified signers (issue 51): createEtchPacket takes ``signatureLevel: "qualified"`` for the
last signer of an organization with a CSC provider; their finish sends them to the provider's
consent (the local CSC v2 service, tests.esign.cscserver), back to a PIN and one-time code form,
and their signature, made by ``signatures/signHash``, joins the advanced signer's before the seal
and its archive timestamp; the provider's errors reach the signer as clear messages."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from esign.models import Packet, Signer
from esign.sealing.config import signer_trust_roots, trust_roots
from esign.sealing.seal import packet_seal
from esign.signature_models import QualifiedProvider, SignerCertificate
from tests.esign import cscserver
from tests.esign.conftest import CREATE, DRAWN, sign, token_of, two_signer_packet
from tests.esign.sealpki import asn1, shared_pki
from tests.esign.signerpki import pdfsig_verdicts, signature_statuses
from tests.esign.test_csc_remote_signing import consent
from tests.esign.test_seal_packets import seal_tasks, zip_url
from tests.esign.test_verify import post_file

pytestmark = pytest.mark.django_db

RETURN_PATH = "/api/etch/qualified/return"


@pytest.fixture
def csc(settings: Any) -> Iterator[cscserver.CscTestService]:
    service = cscserver.CscTestService()
    settings.FETCH_ALLOW_HOSTS = ["127.0.0.1"]
    yield service
    service.close()


def qualified_packet(**signer: Any) -> dict[str, Any]:
    variables = two_signer_packet()
    variables["signers"][0]["signatureLevel"] = "advanced"
    variables["signers"][1]["signatureLevel"] = "qualified"
    variables["signers"][1].update(signer)
    return variables


def set_up_provider(organization_id: int, service: cscserver.CscTestService) -> None:
    QualifiedProvider.objects.create(
        organization_id=organization_id,
        name="Local test QTSP",
        base_url=service.api_url,
        oauth_url=service.base_url,
        client_id=cscserver.CLIENT_ID,
        client_secret=cscserver.CLIENT_SECRET,
    )


@pytest.fixture
def provider(csc: cscserver.CscTestService, organization: Any, settings: Any) -> None:
    """The API key's organization uses the local CSC service; links name the test server."""
    settings.PUBLIC_BASE_URL = "http://testserver"
    set_up_provider(organization.pk, csc)


def signed_in_turn(
    graphql: Any, sign_url: Any, variables: dict[str, Any]
) -> tuple[dict[str, Any], Any]:
    """Create the packet and have both sign; the qualified signer's finish answer."""
    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    created = result["data"]["createEtchPacket"]
    signers = {s["aliasId"]: s["eid"] for s in created["documentGroup"]["signers"]}
    answers = {}
    for alias, body in (
        ("client", {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CEO"}}),
        ("provider", {"signature": {"drawn": DRAWN}}),
    ):
        token = token_of(sign_url(signers[alias]))
        answers[alias] = sign(Client(), signers[alias], token, body)
        assert answers[alias].status_code == 200, answers[alias].content
    return created, answers["provider"].json()


def through_consent(browser: Client, start: str) -> Any:
    """The signer's browser: the start link, the provider's consent page (Allow), and back."""
    leaving = browser.get(start)
    assert leaving.status_code == 302
    back = consent(leaving["Location"], redirect=f"http://testserver{RETURN_PATH}")
    return browser.get(RETURN_PATH, back)


def consented(graphql: Any, sign_url: Any) -> tuple[dict[str, Any], Client, Any]:
    """Both signed in turn, then the qualified signer's browser through the provider's consent:
    the created packet, that browser, and the page it came back to (the PIN form)."""
    created, finished = signed_in_turn(graphql, sign_url, qualified_packet())
    browser = Client()
    start = urlsplit(finished["redirectURL"])
    return created, browser, through_consent(browser, f"{start.path}?{start.query}")


def form_state(form: Any) -> str:
    return form.content.decode().split('name="state" value="')[1].split('"')[0]


def sign_at_provider(
    browser: Client, signer_eid: str, state: str, pin: str = cscserver.PIN, otp: str = cscserver.OTP
) -> Any:
    """The PIN form posted: the signature the qualified signer authorizes at the provider."""
    return browser.post(
        f"/api/etch/qualified/{signer_eid}/sign", {"state": state, "pin": pin, "otp": otp}
    )


def test_a_qualified_signer_signs_at_their_provider_after_the_advanced_one(
    provider: None,
    csc: cscserver.CscTestService,
    graphql: Any,
    sign_url: Any,
    api_client: Client,
    tmp_path: Path,
) -> None:
    created, finished = signed_in_turn(graphql, sign_url, qualified_packet())
    packet = Packet.objects.get(eid=created["eid"])
    assert packet.status == "completed"
    # Not sealed yet: the seal waits for the qualified signature.
    assert packet_seal(packet_id=packet.pk) == "waiting for a qualified signer's signature"
    start = finished["redirectURL"]
    assert start.startswith("http://testserver/api/etch/qualified/")

    browser = Client()
    form = through_consent(browser, urlsplit(start).path + "?" + urlsplit(start).query)
    assert form.status_code == 200
    html = form.content.decode()
    assert 'name="pin"' in html
    assert 'name="otp"' in html
    signer_eid = created["documentGroup"]["signers"][1]["eid"]
    assert len(seal_tasks()) == 1  # at completion (it waits)
    done = sign_at_provider(browser, signer_eid, form_state(form))
    assert done.status_code == 302, done.content
    # On to where the signing page would have sent them: the signer's redirect URL.
    assert done["Location"].startswith("https://app.example.com/done?from=esign&")
    assert "signerStatus=completed" in done["Location"]
    assert csc.signed == 1
    assert len(seal_tasks()) == 2  # the seal, enqueued again now

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    sealed = archive.read("agreement.pdf")
    roots = [*trust_roots(), *signer_trust_roots(), asn1(shared_pki().certificate)]
    statuses = signature_statuses(sealed, roots)
    assert list(statuses) == ["Signature1_client", "Signature2_provider", "DocumentSeal"]
    for name, status in statuses.items():
        assert (status.intact, status.valid, status.trusted, status.docmdp_ok) == (
            True,
            True,
            True,
            True,
        ), name
    qualified_cert = statuses["Signature2_provider"].signing_cert
    assert qualified_cert.subject.native["common_name"] == cscserver.SIGNER_NAME
    assert pdfsig_verdicts(sealed, tmp_path) == ["Signature is Valid."] * 3
    levels = {
        r.signer.alias_id: r.level for r in SignerCertificate.objects.filter(signer__packet=packet)
    }
    assert levels == {"client": "advanced", "provider": "qualified"}

    answer = post_file(api_client, sealed).json()
    signers = {s["name"]: s for s in answer["signers"]}
    assert signers["Charles Babbage"]["signatureLevel"] == "qualified"
    (certificate,) = signers["Charles Babbage"]["certificates"]
    assert certificate["serial"] == format(qualified_cert.serial_number, "x")
    assert certificate["subject"] == qualified_cert.subject.human_friendly
    assert signers["Ada Lovelace"]["signatureLevel"] == "advanced"


@pytest.mark.parametrize(
    ("change", "message", "again"),
    [
        ({"pin": "0000"}, "The PIN was not accepted by your signature provider.", False),
        ({"otp": "999999"}, "The one-time code was not accepted", False),
        ({"sad_seconds": 0}, "Your authorization to sign expired", True),
    ],
)
def test_the_providers_refusals_are_the_signers_to_read(
    provider: None,
    csc: cscserver.CscTestService,
    graphql: Any,
    sign_url: Any,
    change: dict[str, Any],
    message: str,
    again: bool,
) -> None:
    created, browser, form = consented(graphql, sign_url)
    state = form_state(form)
    if "sad_seconds" in change:
        csc.sad_seconds = change["sad_seconds"]
    signer_eid = created["documentGroup"]["signers"][1]["eid"]

    refused = sign_at_provider(
        browser,
        signer_eid,
        state,
        pin=change.get("pin", cscserver.PIN),
        otp=change.get("otp", cscserver.OTP),
    )

    assert refused.status_code == 400
    html = refused.content.decode()
    assert message in html
    assert ('name="pin"' in html) is not again  # typed again, or started again
    assert ("Start again" in html) is again
    assert csc.signed == 0
    assert not SignerCertificate.objects.filter(signer__eid=signer_eid).exists()
    assert Packet.objects.get(eid=created["eid"]).documents.get().sealed_sha256 == ""


def test_a_revoked_credential_is_told_before_the_pin(
    provider: None, csc: cscserver.CscTestService, graphql: Any, sign_url: Any
) -> None:
    _, finished = signed_in_turn(graphql, sign_url, qualified_packet())
    csc.revoked = True
    start = urlsplit(finished["redirectURL"])

    page = through_consent(Client(), f"{start.path}?{start.query}")

    assert page.status_code == 400
    assert "revoked or disabled" in page.content.decode()


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        (
            {"routingOrder": 1},
            "A qualified signer signs last: alone at the highest routingOrder.",
        ),
    ],
)
def test_a_qualified_signer_who_would_not_sign_last_is_refused(
    provider: None,
    csc: cscserver.CscTestService,
    graphql: Any,
    api_client: Client,
    variables: dict[str, Any],
    message: str,
) -> None:
    result = graphql(CREATE, qualified_packet(**variables))

    fields = result["errors"][0].get("fields") or result["errors"][0]["extensions"]["fields"]
    assert {"property": "signers.1.signatureLevel", "message": message} in [
        {"property": f["property"], "message": f["message"]} for f in fields
    ]
    assert Packet.objects.count() == 0
    assert Signer.objects.count() == 0


def test_without_a_provider_qualified_is_refused(graphql: Any) -> None:
    result = graphql(CREATE, qualified_packet())

    fields = result["errors"][0].get("fields") or result["errors"][0]["extensions"]["fields"]
    assert "No qualified signature provider is set up for this organization." in [
        f["message"] for f in fields
    ]
    assert Packet.objects.count() == 0


def test_the_seal_starts_once_the_qualified_signature_is_made(
    provider: None, graphql: Any, sign_url: Any
) -> None:
    created, _ = signed_in_turn(graphql, sign_url, qualified_packet())
    packet = Packet.objects.get(eid=created["eid"])

    assert packet_seal(packet_id=packet.pk).startswith("waiting")
    packet.refresh_from_db()
    assert packet.seal_status == "pending"
    # Due again only in QUALIFIED_RECHECK: the sweep (core.outbox) leaves it alone meanwhile.
    assert packet.seal_retry_at is not None
    assert packet.seal_retry_at - timezone.now() > timedelta(minutes=10)
    assert packet.documents.get().sealed_sha256 == ""


def test_a_qualified_signer_and_merged_pdfs_are_refused(provider: None, graphql: Any) -> None:
    variables = qualified_packet()
    variables["mergePDFs"] = True

    result = graphql(CREATE, variables)

    fields = result["errors"][0].get("fields") or result["errors"][0]["extensions"]["fields"]
    assert "mergePDFs" in [f["property"] for f in fields]
    assert Packet.objects.count() == 0


def test_a_timestamp_authority_that_is_down_signs_nothing_and_says_try_again(
    provider: None, csc: cscserver.CscTestService, graphql: Any, sign_url: Any, settings: Any
) -> None:
    pki = shared_pki()
    settings.SEAL_TSA_URLS = [pki.tsa_url]
    created, browser, form = consented(graphql, sign_url)
    state = form_state(form)
    signer_eid = created["documentGroup"]["signers"][1]["eid"]
    pki.tsa_available = False
    try:
        refused = sign_at_provider(browser, signer_eid, state)
    finally:
        pki.tsa_available = True

    assert refused.status_code == 400
    html = refused.content.decode()
    assert "Your signature could not be made just now. Nothing was signed" in html
    assert "Start again" in html
    assert csc.signed == 0
    assert not SignerCertificate.objects.filter(signer__packet__eid=created["eid"]).exists()
