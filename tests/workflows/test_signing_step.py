"""A workflow with a signing step: completing the webform fills the template into an e-signature
packet whose signer is the person who filled it (name and email from the webform); they sign
right after, come back to the workflow page, and the submission completes with weldComplete;
the zip is the packet's sealed archive."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from accounts.models import Organization
from esign.models import Packet, Signer
from esign.sealing.seal import packet_seal
from templates_app.models import PdfTemplate
from tests.esign.conftest import sign
from tests.pdfcheck import words
from webhooks.models import WebhookEvent
from workflows.definitions.versions import workflow_import
from workflows.models import Submission, Workflow

SIGNATURE = {"x": 318, "y": 300, "width": 200, "height": 40}


@pytest.fixture(autouse=True)
def _development_seal(settings: Any, tmp_path: Path) -> None:
    settings.SEAL_DEV_DIR = tmp_path / "seal-dev"
    settings.SEAL_PKCS11_MODULE = ""
    settings.SEAL_TSA_URLS = []
    settings.SEAL_TRUST_ROOTS_FILE = ""
    settings.SEAL_CERT_CHAIN_FILE = ""


def nda(organization: Organization, template: PdfTemplate) -> Workflow:
    workflow, _ = workflow_import(
        organization=organization,
        data={
            "slug": "nda",
            "name": "NDA",
            "webforms": [{"slug": "you", "name": "You", "pages": [{"title": "You", "fields": [
                {"key": "name", "type": "fullName", "label": "Name", "required": True},
                {"key": "email", "type": "email", "label": "Email", "required": True},
            ]}]}],
            "documents": [{"template": {"eid": template.eid}, "title": "NDA",
                           "filename": "nda.pdf", "mappings": [
                {"alias": "name", "forge": "you", "field": "name"},
                {"alias": "email", "forge": "you", "field": "email"},
            ]}],
            "signers": [{"id": "signer1", "nameField": {"forge": "you", "field": "name"},
                         "emailField": {"forge": "you", "field": "email"},
                         "signerType": "embedded", "routingOrder": 1,
                         "fields": [{"id": "sig1", "type": "signature", "document": 0,
                                     "page": 0, "rect": SIGNATURE}]}],
        },
        publish=True,
    )  # fmt: skip
    return workflow


def submit_nda(client: Client, workflow: Workflow, *, embedded: bool = False) -> Any:
    """Ada Lovelace (ada@example.com) sends the nda webform's page, embedded or not: the
    answer."""
    data = {
        "forge": workflow.webforms.get().eid,
        "page": "0",
        "name.firstName": "Ada",
        "name.lastName": "Lovelace",
        "email": "ada@example.com",
    }
    if embedded:
        return client.post("/form/acme/nda?embedded=true", {**data, "embedded": "true"})
    return client.post("/form/acme/nda", data)


def config(response: Any) -> dict[str, Any]:
    match = re.search(
        r'<script id="wf-config" type="application/json">(.*?)</script>',
        response.content.decode(),
    )
    assert match
    return json.loads(match.group(1))


def test_the_person_signs_right_after_the_webform(
    organization: Organization, demo_template: PdfTemplate, api_client: Client
) -> None:
    workflow = nda(organization, demo_template)
    client = Client()
    done = submit_nda(client, workflow, embedded=True)

    submission = Submission.objects.get()
    assert submission.status == "ready-to-sign"
    packet = Packet.objects.get()
    assert submission.packet == packet
    assert (packet.status, packet.name) == ("sent", "NDA: Ada Lovelace")
    signer = Signer.objects.get()
    assert (signer.name, signer.email, signer.signer_type) == (
        "Ada Lovelace",
        "ada@example.com",
        "embedded",
    )
    assert [e.action for e in WebhookEvent.objects.filter(action__startswith="w")] == ["weldCreate"]
    assert WebhookEvent.objects.filter(action="forgeComplete").count() == 1
    assert not WebhookEvent.objects.filter(action="weldComplete").exists()
    html = done.content.decode()
    assert "Your documents are ready to sign" in html
    sign_url = config(done)["signUrl"]
    assert sign_url.startswith(f"http://127.0.0.1:8000/api/etch/verify/{signer.eid}?token=")
    assert sign_url.endswith("&embedded=true")  # not withinIframe: the legacy frame's flag
    assert [e["action"] for e in config(done)["events"]] == ["forgeSubmitPage", "forgeComplete"]
    # The document to sign is already filled with the webform's values.
    prepared = " ".join(w.text for page in words(_current_pdf(packet)) for w in page)
    assert "Ada Lovelace" in prepared

    # The weldData says where it stands, with its signer.
    weld_data = api_client.post(
        "/graphql",
        data=json.dumps({"query": f'{{ weldData(eid: "{submission.eid}") {{ status agents }} }}'}),
        content_type="application/json",
    ).json()["data"]["weldData"]
    assert weld_data["status"] == "ready-to-sign"
    assert weld_data["agents"][0]["name"] == "Ada Lovelace"

    # Signing, as the signing page does it; then back to the workflow's page.
    token = parse_qs(urlsplit(sign_url).query)["token"][0]
    signed = sign(client, signer.eid, token, {"signature": {"typed": "Ada Lovelace"}})
    assert signed.status_code == 200, signed.content
    # The submission follows its packet at once: weldComplete is written in the transaction of
    # the last signature, before anyone looks at the submission again.
    assert Submission.objects.get(pk=submission.pk).status == "completed"
    assert WebhookEvent.objects.filter(action="weldComplete").count() == 1
    back = signed.json()["redirectURL"]
    assert back.startswith(f"http://127.0.0.1:8000/form/acme/nda/{submission.eid}?token=")
    assert "embedded=true" in back
    returned = client.get(back.removeprefix("http://127.0.0.1:8000"))

    submission.refresh_from_db()
    assert submission.status == "completed"
    assert "Thank you" in returned.content.decode()
    [event] = config(returned)["events"]
    assert event["action"] == "weldComplete"
    assert event["weldDataEid"] == submission.eid
    complete = WebhookEvent.objects.get(action="weldComplete").data
    assert complete["isComplete"] is True
    assert complete["documents"][0]["url"].endswith(f"/download/{submission.eid}.zip")

    # The zip is the packet's sealed archive, once sealed; so is each document's own link
    # (sealed or nothing: before, it served the unsealed PDF).
    pending = api_client.get(f"/download/{submission.eid}.zip")
    assert pending.status_code == 503
    assert pending["Retry-After"]
    token = parse_qs(urlsplit(back).query)["token"][0]
    one = f"/form/acme/nda/{submission.eid}/documents/0.pdf?token={token}"
    early = client.get(one)
    assert early.status_code == 503
    assert early["Retry-After"]
    assert early["Content-Type"].startswith("text/html")
    assert packet_seal(packet_id=packet.pk).startswith("sealed")
    sealed = client.get(one)
    assert sealed.status_code == 200
    assert hashlib.sha256(sealed.content).hexdigest() == packet.documents.get().sealed_sha256
    response = api_client.get(f"/download/{submission.eid}.zip")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert "nda.pdf" in archive.namelist()
    assert len(archive.namelist()) == 2  # and the audit trail
    text = " ".join(w.text for page in words(archive.read("nda.pdf")) for w in page)
    assert "Ada Lovelace" in text
    assert "ada@example.com" in text


def _current_pdf(packet: Packet) -> bytes:
    from esign.packets.documents import document_pdf

    return document_pdf(packet.documents.get())


def test_an_email_signer_without_an_email_stops_the_completion(
    organization: Organization, demo_template: PdfTemplate
) -> None:
    workflow = nda(organization, demo_template)
    signer = workflow.signers.get()
    signer.signer_type = "email"
    signer.save()
    field = workflow.webforms.get().fields.get(key="email")
    field.required = False
    field.save()
    from workflows.definitions.versions import workflow_publish

    workflow_publish(workflow=workflow)

    response = Client().post(
        "/form/acme/nda",
        {
            "forge": workflow.webforms.get().eid,
            "page": "0",
            "name.firstName": "Ada",
            "name.lastName": "Lovelace",
        },
    )

    assert response.status_code == 400
    assert "An email is needed for signing." in response.content.decode()
    assert 'value="Ada"' in response.content.decode()
    assert not Packet.objects.exists()
    assert not Submission.objects.exists()


def test_a_signing_steps_signer_cannot_be_reassigned(
    organization: Organization, demo_template: PdfTemplate, api_client: Client
) -> None:
    """The workflow's page hands the step's signing link to the person filling the webform: a
    new signer there would be signed for by them. The reassignment is refused, nothing written."""
    from tests.esign.test_forward import REASSIGN

    workflow = nda(organization, demo_template)
    submit_nda(Client(), workflow, embedded=True)
    signer = Signer.objects.get()

    answer = api_client.post(
        "/graphql",
        data=json.dumps(
            {
                "query": REASSIGN,
                "variables": {"s": signer.eid, "name": "Mallory", "email": "m@example.com"},
            }
        ),
        content_type="application/json",
    ).json()

    (error,) = answer["errors"]
    assert error["extensions"]["code"] == "ConflictError"
    assert "signing step of workflow submission" in error["message"]
    assert list(Signer.objects.values_list("name", "status")) == [("Ada Lovelace", "sent")]
