"""``signatureLevel`` on the wire (issue 51, items 1 and 3): createEtchPacket keeps it, refuses
anything else with the wire's ValidationError and nothing stored, and a packet with an advanced
signer ends up with their own signature, named with its certificate by the audit trail,
POST /api/v1/verify, the /verify page and the etchPacketSealed webhook."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any
from unittest import mock

import pytest
from django.test import Client

from esign.models import Packet
from esign.sealing.config import signer_trust_roots, trust_roots
from esign.sealing.seal import packet_seal
from esign.signature_models import SignerCertificate, SignerLevel
from tests.esign.conftest import CREATE, two_signer_packet
from tests.esign.signerpki import signature_statuses
from tests.esign.test_seal_packets import zip_url
from tests.esign.test_verify import page_text, post_file

pytestmark = pytest.mark.django_db


def with_levels(*levels: Any) -> dict[str, Any]:
    variables = two_signer_packet()
    for signer, level in zip(variables["signers"], levels, strict=True):
        if level is not None:
            signer["signatureLevel"] = level
    return variables


def test_the_level_is_kept_for_the_signers_who_have_one(graphql: Any) -> None:
    result = graphql(CREATE, with_levels("advanced", "simple"))

    assert "errors" not in result, result
    eid = result["data"]["createEtchPacket"]["eid"]
    assert dict(
        SignerLevel.objects.filter(signer__packet__eid=eid).values_list("signer__alias_id", "level")
    ) == {"client": "advanced"}
    shown = graphql(
        "query($eid: String!) { etchPacket(eid: $eid) { documentGroup { signers { aliasId "
        "signatureLevel } } } }",
        {"eid": eid},
    )
    signers = shown["data"]["etchPacket"]["documentGroup"]["signers"]
    assert {s["aliasId"]: s["signatureLevel"] for s in signers} == {
        "client": "advanced",
        "provider": "simple",
    }


@pytest.mark.parametrize(
    ("levels", "path", "message"),
    [
        (("gold", None), "signers.0.signatureLevel", "Must be simple, advanced or qualified."),
        ((None, 3), "signers.1.signatureLevel", "Must be simple, advanced or qualified."),
        (("ADVANCED", None), "signers.0.signatureLevel", "Must be simple, advanced or qualified."),
    ],
)
def test_a_bad_level_is_refused_with_nothing_stored(
    graphql: Any, levels: tuple[Any, Any], path: str, message: str
) -> None:
    result = graphql(CREATE, with_levels(*levels))

    (error,) = result["errors"]
    assert error["message"] == f"{path}: {message}"
    fields = error.get("fields") or error["extensions"]["fields"]
    assert {"property": path, "message": message} in [
        {"property": f["property"], "message": f["message"]} for f in fields
    ]
    assert Packet.objects.count() == 0


def test_an_advanced_signer_needs_an_email_or_phone_for_the_certificate(graphql: Any) -> None:
    variables = with_levels("advanced", None)
    variables["signers"][0]["email"] = ""

    result = graphql(CREATE, variables)

    fields = result["errors"][0].get("fields") or result["errors"][0]["extensions"]["fields"]
    assert "signers.0.signatureLevel" in [f["property"] for f in fields]
    assert Packet.objects.count() == 0


def test_an_advanced_packet_is_signed_sealed_and_named_with_its_certificates(
    complete: Any, api_client: Client
) -> None:
    created, packet = complete(signers=with_levels("advanced", None)["signers"])
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    sealed = archive.read("agreement.pdf")
    statuses = signature_statuses(sealed, [*trust_roots(), *signer_trust_roots()])
    assert list(statuses) == ["Signature1_client", "DocumentSeal"]
    assert all(s.bottom_line for s in statuses.values())
    certificate = SignerCertificate.objects.get(signer__packet=packet)
    assert certificate.serial == format(
        statuses["Signature1_client"].signing_cert.serial_number, "x"
    )

    # POST /api/v1/verify: each signer's level, and the advanced one's certificate.
    answer = post_file(api_client, sealed).json()
    assert answer["verdict"] == "valid_development"
    signers = {s["name"]: s for s in answer["signers"]}
    assert signers["Charles Babbage"]["signatureLevel"] == "simple"
    assert signers["Charles Babbage"]["certificates"] == []
    assert signers["Ada Lovelace"]["signatureLevel"] == "advanced"
    assert signers["Ada Lovelace"]["certificates"] == [
        {
            "subject": certificate.subject,
            "issuer": certificate.issuer,
            "serial": certificate.serial,
            "document": "Services agreement",
        }
    ]
    assert "ada@example.com" in certificate.subject

    # The page says the same to people.
    browser = Client(enforce_csrf_checks=True)
    token = browser.get("/verify").cookies["csrftoken"].value
    upload = io.BytesIO(sealed)
    upload.name = "agreement.pdf"
    html = page_text(browser.post("/verify", {"file": upload, "csrfmiddlewaretoken": token}))
    assert "Signature level: <strong>advanced</strong>" in html
    assert f'<code class="cert-serial">{certificate.serial}</code>' in html
    assert "Signature level: <strong>simple</strong>" in html

    # The audit trail PDF names the certificate in Ada's events.
    from tests.pdfcheck import words

    trail = " ".join(w.text for page in words(archive.read("audit-trail.pdf")) for w in page)
    assert "advanced electronic signature" in trail
    # Each signer's entry names their level, the simple one's too.
    assert trail.count("Signature level") == 2
    assert "simple electronic signature" in trail
    assert certificate.serial in trail.replace(" ", "")


def test_the_sealed_webhook_names_each_signers_level_and_certificate(
    complete: Any, settings: Any
) -> None:
    from esign.packets import lifecycle

    created, packet = complete(signers=with_levels("advanced", None)["signers"])
    sent: list[dict[str, Any]] = []
    with mock.patch.object(
        lifecycle, "_emit", side_effect=lambda packet, name, data: sent.append({name: data})
    ):
        packet_seal(packet_id=packet.pk)

    (event,) = [e["etchPacketSealed"] for e in sent if "etchPacketSealed" in e]
    signers = {s["aliasId"]: s for s in json.loads(json.dumps(event["signers"]))}
    assert signers["client"]["signatureLevel"] == "advanced"
    (certificate,) = signers["client"]["certificates"]
    assert certificate["serial"] == SignerCertificate.objects.get(signer__packet=packet).serial
    assert signers["provider"] == {
        "aliasId": "provider",
        "name": "Charles Babbage",
        "signatureLevel": "simple",
        "certificates": [],
    }


def test_a_merged_packet_carries_the_advanced_signature_too(
    complete: Any, api_client: Client
) -> None:
    variables = with_levels("advanced", None)
    second = dict(variables["files"][0], id="annex", title="Annex")
    second["fields"] = []
    created, packet = complete(
        signers=variables["signers"], files=[variables["files"][0], second], mergePDFs=True
    )

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"

    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    merged = archive.read("Services agreement.pdf")
    statuses = signature_statuses(merged, [*trust_roots(), *signer_trust_roots()])
    assert list(statuses) == ["Signature1_client", "DocumentSeal"]
    assert all(s.bottom_line for s in statuses.values())
