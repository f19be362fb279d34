"""The CSC API v2 client (esign.engine.csc_client) and remote PAdES signing
(esign.engine.remote_pades) against the local CSC service (tests.esign.cscserver): consent,
token, credentials, one SAD for several documents' hashes, signHash, and the signatures pyHanko
and pdfsig validate; a wrong PIN, a wrong OTP, an expired SAD, a revoked credential and a refused
consent each end in the error the signer is shown."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit
from urllib.request import urlopen

import pytest

from core.engine.fetch import FetchPolicy
from esign.engine import csc_client
from esign.engine.csc_client import CscError, CscProvider
from esign.engine.remote_pades import finish_remote, prepare_remote
from tests.esign import cscserver
from tests.esign.conftest import contract_pdf
from tests.esign.sealpki import asn1, shared_pki
from tests.esign.signerpki import pdfsig_verdicts, signature_statuses

POLICY = FetchPolicy(deadline_seconds=20, allow_hosts=frozenset({"127.0.0.1"}))
REDIRECT = "https://sign.example.com/api/etch/qualified/return"


@pytest.fixture
def csc() -> Iterator[cscserver.CscTestService]:
    service = cscserver.CscTestService()
    yield service
    service.close()


def provider(service: cscserver.CscTestService) -> CscProvider:
    return CscProvider(
        base_url=service.api_url,
        client_id=cscserver.CLIENT_ID,
        client_secret=cscserver.CLIENT_SECRET,
        oauth_url=service.base_url,
    )


def consent(url: str, decision: str = "allow", redirect: str = REDIRECT) -> dict[str, str]:
    """What a person does on the consent page: open it, press a button; the redirect's query."""
    with urlopen(url, timeout=20) as page:  # noqa: S310 - the local test service
        html = page.read().decode()
    assert "asks to use your signing credential" in html
    form = dict(parse_qs(urlsplit(url).query, keep_blank_values=True))
    fields = {k: v[0] for k, v in form.items()} | {"decision": decision}
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
    connection.request(
        "POST",
        "/oauth2/authorize",
        body=urlencode(fields),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    response = connection.getresponse()
    assert response.status == 302
    location = response.getheader("Location") or ""
    assert location.startswith(redirect)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def access_token(service: cscserver.CscTestService) -> str:
    asked = csc_client.authorization_url(provider(service), redirect_uri=REDIRECT)
    back = consent(asked.url)
    assert back["state"] == asked.state
    return csc_client.token(
        provider(service),
        code=back["code"],
        verifier=asked.verifier,
        redirect_uri=REDIRECT,
        policy=POLICY,
    )


def test_two_documents_signed_with_one_authorization(
    csc: cscserver.CscTestService, tmp_path: Path
) -> None:
    assert csc_client.info(provider(csc), policy=POLICY)["specs"].startswith("2.")
    access = access_token(csc)
    (credential_id,) = csc_client.credentials_list(provider(csc), access, policy=POLICY)
    credential = csc_client.credentials_info(provider(csc), access, credential_id, policy=POLICY)
    assert (credential.pin, credential.otp) == (True, True)
    documents = [contract_pdf(1), contract_pdf(3)]
    at = datetime.now(UTC).replace(microsecond=0)
    pending = [
        prepare_remote(
            pdf,
            certificate=credential.certificate,
            chain=credential.chain,
            signing_time=at,
            field_name="Signature1_grace",
        )
        for pdf in documents
    ]
    hashes = [p.to_sign for p in pending]

    sad = csc_client.authorize(
        provider(csc),
        access,
        credential,
        hashes,
        pin=cscserver.PIN,
        otp=cscserver.OTP,
        policy=POLICY,
    )
    values = csc_client.sign_hash(provider(csc), access, credential, sad, hashes, policy=POLICY)
    signed = [finish_remote(p, v) for p, v in zip(pending, values, strict=True)]

    assert csc.signed == 2
    root = asn1(shared_pki().certificate)
    for original, pdf in zip(documents, signed, strict=True):
        assert pdf.startswith(original)  # an incremental update
        (status,) = signature_statuses(pdf, [root]).values()
        assert (status.intact, status.valid, status.trusted) == (True, True, True)
        assert status.signing_cert.subject.native["email_address"] == cscserver.SIGNER_EMAIL
        assert status.signer_reported_dt == at
        assert pdfsig_verdicts(pdf, tmp_path) == ["Signature is Valid."]


def test_a_wrong_pin_or_otp_is_the_signers_to_type_again(csc: cscserver.CscTestService) -> None:
    access = access_token(csc)
    credential = csc_client.credentials_info(
        provider(csc), access, cscserver.CREDENTIAL_ID, policy=POLICY
    )
    digest = [bytes(32)]
    with pytest.raises(CscError) as wrong_pin:
        csc_client.authorize(
            provider(csc),
            access,
            credential,
            digest,
            pin="0000",
            otp=cscserver.OTP,
            policy=POLICY,
        )
    assert wrong_pin.value.kind == "wrong_pin"
    assert str(wrong_pin.value).startswith("The PIN was not accepted")
    with pytest.raises(CscError) as wrong_otp:
        csc_client.authorize(
            provider(csc),
            access,
            credential,
            digest,
            pin=cscserver.PIN,
            otp="111111",
            policy=POLICY,
        )
    assert wrong_otp.value.kind == "wrong_otp"


def test_an_expired_sad_signs_nothing(csc: cscserver.CscTestService) -> None:
    access = access_token(csc)
    credential = csc_client.credentials_info(
        provider(csc), access, cscserver.CREDENTIAL_ID, policy=POLICY
    )
    digest = [bytes(range(32))]
    sad = csc_client.authorize(
        provider(csc),
        access,
        credential,
        digest,
        pin=cscserver.PIN,
        otp=cscserver.OTP,
        policy=POLICY,
    )
    later = datetime.now(UTC) + timedelta(seconds=csc.sad_seconds + 1)
    csc.now = lambda: later

    with pytest.raises(CscError) as expired:
        csc_client.sign_hash(provider(csc), access, credential, sad, digest, policy=POLICY)

    assert expired.value.kind == "sad_expired"
    assert csc.signed == 0


def test_a_revoked_credential_is_refused_before_anything_is_signed(
    csc: cscserver.CscTestService,
) -> None:
    access = access_token(csc)
    csc.revoked = True

    with pytest.raises(CscError) as revoked:
        csc_client.credentials_info(provider(csc), access, cscserver.CREDENTIAL_ID, policy=POLICY)

    assert revoked.value.kind == "credential_revoked"
    assert "revoked or disabled" in str(revoked.value)


def test_a_refused_consent_gives_no_code_and_a_forged_code_no_token(
    csc: cscserver.CscTestService,
) -> None:
    asked = csc_client.authorization_url(provider(csc), redirect_uri=REDIRECT)
    back = consent(asked.url, decision="deny")
    assert back == {"error": "access_denied", "state": asked.state}

    with pytest.raises(CscError) as forged:
        csc_client.token(
            provider(csc),
            code="forged",
            verifier=asked.verifier,
            redirect_uri=REDIRECT,
            policy=POLICY,
        )
    assert forged.value.kind == "consent"


def test_an_unreachable_provider_is_unavailable() -> None:
    gone = CscProvider(base_url="http://127.0.0.1:9/csc/v2", client_id="x")
    with pytest.raises(CscError) as unavailable:
        csc_client.info(gone, policy=POLICY)
    assert unavailable.value.kind == "unavailable"
