"""What a signer reads, in their language: the ``language`` extension of createEtchPacket (packet
and signer), else the browser's Accept-Language, for the signing page, the link's error pages,
the completion page and the emails; the audit trail in the packet's language."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client

from esign.models import Language, Packet, Signer
from esign.sealing.seal import packet_seal
from esign.sending.packets import packet_void_now
from tests.esign.conftest import send_queued_emails, sign, signing_post, token_of, two_signer_packet
from tests.esign.test_seal_packets import zip_url
from tests.pdfcheck import joined_words, words

pytestmark = pytest.mark.django_db
BASE = settings.PUBLIC_BASE_URL

CREATE = """
mutation Create($name: String, $files: [EtchFile!], $signers: [JSON!], $language: String) {
  createEtchPacket(name: $name, files: $files, signers: $signers, language: $language) {
    eid documentGroup { eid signers { eid aliasId } }
  }
}
"""


def create(graphql: Any, *, language: Any = None, **overrides: Any) -> dict[str, Any]:
    variables = two_signer_packet(**overrides)
    return graphql(CREATE, {**variables, "language": language})


def signers_of(result: dict[str, Any]) -> dict[str, str]:
    group = result["data"]["createEtchPacket"]["documentGroup"]
    return {s["aliasId"]: s["eid"] for s in group["signers"]}


def page_strings(html: str) -> dict[str, str]:
    found = re.search(r'<script id="page-strings" type="application/json">(.*?)</script>', html)
    assert found, "no page-strings"
    return json.loads(found.group(1))


def test_the_language_is_stored_and_a_signer_may_override_it(graphql) -> None:
    variables = two_signer_packet()
    variables["signers"][1]["language"] = "EN"
    result = create(graphql, language="es", signers=variables["signers"])
    assert "errors" not in result, result
    packet = Packet.objects.get(eid=result["data"]["createEtchPacket"]["eid"])
    assert packet.language == "es"
    by_alias = {s.alias_id: s.language for s in packet.signers.all()}
    assert by_alias == {"client": "", "provider": "en"}


SHIPPED = "en, es, fr, de, pt-br, it, nl, pl, tr, sv, uk, zh-hans, ja, ko, ar, he"


def test_an_unknown_language_is_the_wire_validation_error_and_stores_nothing(graphql) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["language"] = "eo"
    result = create(graphql, language="fr-CA", signers=variables["signers"])
    assert result["data"] == {"createEtchPacket": None}
    [error] = result["errors"]
    assert error["extensions"]["code"] == "ValidationError"
    assert error["extensions"]["fields"] == [
        {"message": f"Must be one of {SHIPPED}.", "property": "signers.0.language"},
        {"message": f"Must be one of {SHIPPED}.", "property": "language"},
    ]
    assert Packet.objects.count() == 0
    assert create(graphql, language="Spanish")["errors"][0]["extensions"]["fields"] == [
        {"message": f"Must be one of {SHIPPED}.", "property": "language"}
    ]


def test_every_shipped_language_is_taken_for_the_packet_and_each_signer(graphql) -> None:
    shipped = [code for code, _name in settings.LANGUAGES]
    assert ", ".join(shipped) == SHIPPED
    assert sorted(shipped) == sorted(Language.values)
    for code in shipped:
        variables = two_signer_packet()
        variables["signers"][1]["language"] = code.upper()  # "PT-BR", "ZH-HANS": any case
        result = create(graphql, language=code, signers=variables["signers"])
        assert "errors" not in result, (code, result)
        packet = Packet.objects.get(eid=result["data"]["createEtchPacket"]["eid"])
        assert packet.language == code
        assert packet.signers.get(alias_id="provider").language == code


def open_page(graphql, sign_url, client: Client, signer: str) -> Any:
    return client.get(f"/api/etch/verify/{signer}?token={token_of(sign_url(signer))}")


def test_the_signing_page_in_spanish_by_the_packet_language(graphql, sign_url) -> None:
    result = create(graphql, language="es")
    page = open_page(graphql, sign_url, Client(), signers_of(result)["client"])
    html = page.content.decode()
    assert page.status_code == 200
    assert page["Content-Language"] == "es"
    assert '<html lang="es" dir="ltr">' in html
    assert "Firmando como <strong><bdi>Ada Lovelace</bdi></strong>" in html
    assert ">Terminar</button>" in html
    assert "Adopte su firma" in html
    strings = page_strings(html)
    assert strings["placeholder.signature"] == "Firme aquí"
    assert strings["count"] == "{done} de {total} completados"
    assert 'aria-label="Services agreement, página 1 de 2"' in html


def test_accept_language_chooses_unless_a_language_was_given(graphql, sign_url) -> None:
    variables = two_signer_packet()
    variables["signers"][1]["language"] = "en"
    signers = signers_of(create(graphql, signers=variables["signers"]))
    spanish = Client(HTTP_ACCEPT_LANGUAGE="es-MX,es;q=0.9,en;q=0.5")

    by_browser = open_page(graphql, sign_url, spanish, signers["client"])
    assert by_browser["Content-Language"] == "es"
    assert "Accept-Language" in by_browser["Vary"]
    assert "Firmando como" in by_browser.content.decode()
    english = open_page(graphql, sign_url, Client(), signers["client"])
    assert "Signing as <strong><bdi>Ada Lovelace</bdi></strong>" in english.content.decode()
    # The signer's own language wins over the browser's.
    given = open_page(graphql, sign_url, spanish, signers["provider"])
    assert given["Content-Language"] == "en"
    assert "Signing as <strong><bdi>Charles Babbage</bdi></strong>" in given.content.decode()


def test_the_signing_email_in_the_signers_language(graphql) -> None:
    variables = two_signer_packet()
    variables["signers"][0].update(signerType="email", language="es")
    result = create(graphql, signers=variables["signers"])
    assert "errors" not in result, result
    assert send_queued_emails() == ["sent"]
    [message] = mail.outbox
    assert message.subject == "Por favor, firme: Services agreement"
    assert message.body.startswith("Ada Lovelace:\n\nSe le pide firmar «Services agreement».")
    assert "Abra este enlace para revisar y firmar (vence en 24 horas)" in message.body


def test_a_voided_packets_link_says_so_in_spanish_and_may_be_framed_by_anyone(
    graphql, sign_url
) -> None:
    result = create(graphql, language="es")
    signer = signers_of(result)["client"]
    url = sign_url(signer)
    packet_void_now(packet=Packet.objects.get(eid=result["data"]["createEtchPacket"]["eid"]))

    page = Client().get(f"/api/etch/verify/{signer}?token={token_of(url)}")
    html = page.content.decode()
    assert page.status_code == 403
    assert page["Content-Security-Policy"].startswith("frame-ancestors *;")
    assert "X-Frame-Options" not in page
    assert 'data-error-type="notFound" data-reason="packetVoided"' in html
    assert "Esta solicitud de firma se canceló." in html
    event = json.loads(re.search(r'id="signing-error" [^>]*>(.*?)</script>', html).group(1))
    assert event == {
        "action": "signerError",
        "errorType": "notFound",
        "error": "notFound",
        "message": "This signature request was cancelled.",
        "signerEid": signer,
        "reason": "packetVoided",
    }
    # The page's scripts hear the same reason.
    refused = sign(Client(), signer, token_of(url), {"signature": {"typed": "Ada"}})
    assert refused.status_code == 403
    assert refused.json()["reason"] == "packetVoided"


def test_an_unknown_link_is_framed_by_anyone_in_the_browsers_language(db) -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE="es").get("/api/etch/verify/nope?token=nope")
    assert page.status_code == 403
    assert page["Content-Security-Policy"].startswith("frame-ancestors *;")
    assert "Este enlace de firma no es válido." in page.content.decode()


def test_the_completion_page_shows_the_outcome_and_the_download(graphql, sign_url) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["language"] = "es"
    signers = signers_of(create(graphql, signers=variables["signers"]))
    token = token_of(sign_url(signers["client"]))
    body = {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}}
    finished = sign(Client(), signers["client"], token, body).json()
    assert finished["redirectURL"] is None
    legacy = finished["legacyURL"]
    assert legacy.startswith(f"{BASE}/etch-complete?action=signerComplete&")

    page = Client().get(legacy.removeprefix(BASE))
    html = page.content.decode()
    assert (page.status_code, page["Content-Language"]) == (200, "es")
    assert "<h1>Listo</h1>" in html
    assert "Ya firmó. Descargue su copia aquí abajo." in html
    href = re.search(
        r'<a href="([^"]+)"><span>Descargar «<bdi>Services agreement</bdi>» \(PDF\)</span></a>',
        html,
    )
    download = Client().get(href.group(1).replace("&amp;", "&"))
    assert download.status_code == 200
    assert download["Content-Type"] == "application/pdf"
    assert "Ada Lovelace" in " ".join(w.text for w in words(download.content)[1])

    # A key of another signer, or none, shows no documents; nothing is a 404.
    forged = legacy.replace(signers["client"], signers["provider"]).removeprefix(BASE)
    assert "Descargar" not in Client().get(forged).content.decode()
    assert Client().get("/etch-complete").status_code == 200
    wrong_key = f"/api/etch/sign/{signers['provider']}/documents/agreement.pdf?key=x"
    assert Client().get(wrong_key).status_code == 403


def test_the_completion_page_of_a_decline_and_of_an_error(graphql, sign_url) -> None:
    signers = signers_of(create(graphql))
    token = token_of(sign_url(signers["client"]))
    declined = signing_post(
        Client(), signers["client"], token, "decline", {"reason": "Wrong amount"}
    )
    page = Client().get(declined.json()["legacyURL"].removeprefix(BASE))
    assert "<h1>You declined to sign</h1>" in page.content.decode()
    error = Client(HTTP_ACCEPT_LANGUAGE="es").get(
        "/etch-complete?action=signerError&errorType=tokenExpired&message=x"
    )
    assert error.status_code == 200
    assert "Este enlace de firma ya venció." in error.content.decode()


def test_with_a_redirect_url_the_legacy_string_is_the_redirect(graphql, sign_url) -> None:
    signers = signers_of(create(graphql))
    sign(
        Client(),
        signers["client"],
        token_of(sign_url(signers["client"])),
        {"signature": {"typed": "Ada"}, "values": {"agreement/title1": "CTO"}},
    )
    finished = sign(
        Client(),
        signers["provider"],
        token_of(sign_url(signers["provider"])),
        {"signature": {"typed": "Charles"}},
    ).json()
    assert finished["legacyURL"] == finished["redirectURL"]
    assert finished["redirectURL"].startswith("https://app.example.com/done?from=esign&action=")


def test_the_audit_trail_in_the_packets_language(complete, api_client: Client) -> None:
    created, packet = complete()
    Packet.objects.filter(pk=packet.pk).update(language="es")
    assert packet_seal(packet_id=packet.pk).startswith("sealed")
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    text = joined_words(archive.read("audit-trail.pdf"))
    for spanish in (
        "Certificado de finalización",
        "Firmantes",
        "Firma adoptada",
        "Abrió el enlace de firma",
        "Orden de firma",
        "completado",
        "Historial del paquete",
        "1 documento",  # the packet's creation, its detail
    ):
        assert spanish in text, spanish
    assert "Certificate of completion" not in text
    assert "Signers" not in text
    assert Signer.objects.filter(packet=packet, language="").count() == 2


def test_every_kind_of_signer_email_in_spanish(graphql) -> None:
    from esign.links.emails import _message
    from esign.models import SignerEmail

    variables = two_signer_packet()
    variables["signers"][0].update(signerType="email", language="es")
    result = create(graphql, signers=variables["signers"])
    signer = Signer.objects.get(eid=signers_of(result)["client"])
    url = "https://example.test/link"
    texts = {
        kind: _message(SignerEmail(signer=signer, kind=kind), url)
        for kind in (SignerEmail.Kind.RESEND, SignerEmail.Kind.REMINDER, SignerEmail.Kind.COPY)
    }
    assert texts[SignerEmail.Kind.RESEND][1].startswith(
        "Ada Lovelace:\n\nAquí tiene un nuevo enlace para firmar «Services agreement»."
    )
    assert (
        texts[SignerEmail.Kind.REMINDER][0] == "Recordatorio: Por favor, firme: Services agreement"
    )
    assert "Le recordamos que aún tiene pendiente firmar" in texts[SignerEmail.Kind.REMINDER][1]
    subject, body = texts[SignerEmail.Kind.COPY]
    assert subject == "Firmado: Services agreement"
    assert "Todos firmaron «Services agreement»" in body
    assert "(el enlace funciona durante 90 días)" in body
    # The other signer was given no language: English.
    other = Signer.objects.get(eid=signers_of(result)["provider"])
    assert _message(SignerEmail(signer=other, kind=SignerEmail.Kind.COPY), url)[0] == (
        "Signed: Services agreement"
    )


def _finish(signer: str, token: str, body: dict[str, Any], **headers: Any) -> Any:
    return sign(Client(**headers), signer, token, body)


def test_a_refused_finish_says_why_in_the_signers_language(graphql, sign_url) -> None:
    signers = signers_of(create(graphql, language="es"))
    first = token_of(sign_url(signers["client"]))
    unadopted = _finish(signers["client"], first, {"values": {}})
    assert unadopted.status_code == 400
    messages = [field["message"] for field in unadopted.json()["fields"]]
    assert "Primero adopte una firma." in messages
    second = token_of(sign_url(signers["provider"]))
    early = _finish(signers["provider"], second, {"signature": {"typed": "Charles Babbage"}})
    assert early.status_code == 409
    assert early.json()["message"] == "Los firmantes anteriores aún no han terminado."


def test_a_refused_finish_follows_the_browser_without_a_language(graphql, sign_url) -> None:
    signers = signers_of(create(graphql))
    token = token_of(sign_url(signers["provider"]))
    body = {"signature": {"typed": "Charles Babbage"}}
    english = _finish(signers["provider"], token, body)
    assert english.json()["message"] == "Earlier signers have not finished yet."
    spanish = _finish(signers["provider"], token, body, HTTP_ACCEPT_LANGUAGE="es-MX,es;q=0.9")
    assert spanish.json()["message"] == "Los firmantes anteriores aún no han terminado."


def test_the_schema_describes_language_with_every_shipped_code(db: None) -> None:
    """GraphiQL and /graphql/schema.graphql list the codes createEtchPacket's `language` takes:
    all of settings.LANGUAGES, not the two there were once."""
    from config.schema import schema

    mutation = schema.graphql_schema.mutation_type
    assert mutation is not None
    described = mutation.fields["createEtchPacket"].args["language"].description or ""

    codes = [code for code, _name in settings.LANGUAGES]
    assert len(codes) == 16
    for code in codes:
        assert f"`{code}`" in described, code
