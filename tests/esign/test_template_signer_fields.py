"""A packet file given by ``castEid`` carries its template's signer fields: signers get them by
``fieldId`` (the template field's id), sign them on the signing page, and the sealed PDF carries
the stamps at the template's rects. Templates made from real forms with /Sig fields."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from esign.models import Packet
from esign.sealing.seal import packet_seal
from templates_app import services as templates
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf
from tests.esign.conftest import CREATE, DRAWN, sign, token_of
from tests.fixtures import LOCAL_PDFS
from tests.pdfcheck import dark_pixels, render, text_in_rect, words
from tests.pdfsound import assert_sound, qpdf_check

SAMPLE_FORM = "pdflib-sample-form-sig.pdf"
# Two more signer fields drawn in the editor's way on the sample form's free corner.
NAME_RECT = {"x": 430, "y": 52, "width": 150, "height": 16}
DATE_RECT = {"x": 430, "y": 30, "width": 150, "height": 16}


def form_template(organization, name: str = SAMPLE_FORM, extra: list[dict] = ()) -> PdfTemplate:
    """The real form imported (its /Sig field is a signature field), with ``extra`` fields added
    to the working version, published."""
    template = template_create_from_pdf(
        organization=organization, title="Employee record", pdf=(LOCAL_PDFS / name).read_bytes()
    )
    spec = templates.working_version(template).spec
    spec["fields"].extend(extra)
    templates.template_update_working(template=template, spec=spec)
    templates.template_publish(template=template)
    return template


def field_of(template: PdfTemplate, kind: str) -> dict[str, Any]:
    return next(f for f in templates.working_version(template).spec["fields"] if f["type"] == kind)


def signer_fields_sample(organization) -> PdfTemplate:
    return form_template(
        organization,
        extra=[
            {"id": "nm1", "alias": "signerName1", "type": "signerName", "page": 0,
             "rect": NAME_RECT},
            {"id": "dt1", "alias": "signatureDate1", "type": "signatureDate", "page": 0,
             "rect": DATE_RECT},
        ],
    )  # fmt: skip


def packet_variables(template: PdfTemplate, field_ids: list[str], **extra: Any) -> dict[str, Any]:
    variables: dict[str, Any] = {
        "name": "Employee record",
        "files": [{"id": "record", "castEid": template.eid}],
        "signers": [
            {
                "id": "employee",
                "name": "Ada Lovelace",
                "email": "ada@example.com",
                "signerType": "embedded",
                "signatureMode": "text",
                "fields": [{"fileId": "record", "fieldId": fid} for fid in field_ids],
            }
        ],
        "data": {"payloads": {"record": {"data": {"nameLast": "Lovelace", "city": "London"}}}},
    }
    variables.update(extra)
    return variables


def signing_config(client: Client, signer_eid: str, token: str) -> dict[str, Any]:
    page = client.get(f"/api/etch/verify/{signer_eid}?token={token}")
    assert page.status_code == 200
    return config_in(page)


def config_in(page: Any) -> dict[str, Any]:
    """The signing page's configuration (its script#signing-config)."""
    found = re.search(
        r'<script id="signing-config" type="application/json">(.*?)</script>',
        page.content.decode(),
        re.S,
    )
    assert found is not None
    return json.loads(found.group(1))


def ada_signs(client: Client, signer_eid: str, token: str) -> Any:
    """Ada finishes: her typed signature and her name in the template's name field (nm1)."""
    body = {"signature": {"typed": "Ada Lovelace"}, "values": {"record/nm1": "Ada Lovelace"}}
    done = sign(client, signer_eid, token, body)
    assert done.status_code == 200, done.content
    return done


def sealed_document(api_client: Client, packet: dict[str, Any]) -> bytes:
    packet_seal(packet_id=Packet.objects.get(eid=packet["eid"]).pk)
    url = packet["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")
    response = api_client.get(url)
    assert response.status_code == 200, response.content
    return zipfile.ZipFile(io.BytesIO(response.content)).read("record.pdf")


def test_a_templates_signer_fields_are_assigned_by_id_signed_and_sealed_at_their_rects(
    graphql: Callable[..., dict[str, Any]],
    sign_url: Callable[..., str],
    client: Client,
    api_client: Client,
    organization,
    django_capture_on_commit_callbacks,
) -> None:
    template = signer_fields_sample(organization)
    signature = field_of(template, "signature")  # the form's own /Sig field
    assert signature["name"] == "EMPLOYEE SIGNATURE"
    ids = [signature["id"], "nm1", "dt1"]

    result = graphql(CREATE, packet_variables(template, ids))

    assert "errors" not in result, result
    packet = result["data"]["createEtchPacket"]
    [signer] = packet["documentGroup"]["signers"]
    token = token_of(sign_url(signer["eid"]))
    config = signing_config(client, signer["eid"], token)
    # The signing page shows the template's fields where the template has them.
    assert [(f["fileId"], f["fieldId"], f["type"], f["page"]) for f in config["fields"]] == [
        ("record", signature["id"], "signature", 0),
        ("record", "nm1", "fullName", 0),  # the signer's name: offered filled in on the page
        ("record", "dt1", "signatureDate", 0),
    ]
    assert config["fields"][0]["rect"] == signature["rect"]

    with django_capture_on_commit_callbacks(execute=True):
        done = ada_signs(client, signer["eid"], token)
    assert done.json()["event"]["documentGroupStatus"] == "completed"

    pdf = sealed_document(api_client, packet)
    prepared = Packet.objects.get(eid=packet["eid"]).documents.get(alias_id="record")
    assert prepared.template_version.number == 1
    assert_sound(pdf, template=templates.version_pdf(prepared.template_version))
    assert qpdf_check(pdf).returncode == 0
    page = words(pdf)[0]
    assert "Ada" in text_in_rect(page, signature["rect"], tolerance=2)  # the typed signature
    assert text_in_rect(page, NAME_RECT) == "Ada Lovelace"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", text_in_rect(page, DATE_RECT))
    assert "Lovelace" in " ".join(w.text for w in page)  # the payload filled the form too
    # The base had nothing drawn in the signature's box: the stamp is what is there now.
    base = templates.version_pdf(prepared.template_version)
    image, before = render(pdf), render(base)
    assert dark_pixels(image, signature["rect"], 792) > dark_pixels(before, signature["rect"], 792)


def test_a_drawn_signature_lands_in_acrobats_signature_field(
    graphql, sign_url, client: Client, api_client: Client, organization
) -> None:
    template = form_template(organization, "pdflib-with-signature.pdf")
    signature = field_of(template, "signature")
    variables = packet_variables(template, [signature["id"]], data={})
    variables["signers"][0]["signatureMode"] = "draw"

    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    packet = result["data"]["createEtchPacket"]
    [signer] = packet["documentGroup"]["signers"]
    done = sign(
        client, signer["eid"], token_of(sign_url(signer["eid"])), {"signature": {"drawn": DRAWN}}
    )
    assert done.status_code == 200, done.content

    pdf = sealed_document(api_client, packet)
    assert qpdf_check(pdf).returncode == 0
    rect = signature["rect"]
    inside = dark_pixels(render(pdf), rect, 792)
    assert inside > 200  # the drawn line, scaled into the 337×119 box
    outside = {**rect, "y": rect["y"] - rect["height"] - 10}  # the same box lower down: empty
    assert dark_pixels(render(pdf), outside, 792) == 0
    assert "Ada Lovelace" in text_in_rect(words(pdf)[0], rect, tolerance=2)  # the caption


@pytest.mark.parametrize(
    ("field_id", "message"),
    [
        (
            "nope",
            "File 'record' has no field 'nope' for a signer: give the id of one of its "
            "template's signature, initial, signatureDate or signerName fields, or a field of "
            "its own.",
        ),
        (
            "f12",  # nameLast: a field the payload fills, not one a signer signs
            "File 'record' has no field 'f12' for a signer: give the id of one of its "
            "template's signature, initial, signatureDate or signerName fields, or a field of "
            "its own.",
        ),
    ],
)
def test_a_field_id_the_template_has_no_signer_field_for_is_refused(
    graphql, organization, field_id: str, message: str
) -> None:
    template = signer_fields_sample(organization)
    assert (
        next(f for f in templates.working_version(template).spec["fields"] if f["id"] == "f12")[
            "alias"
        ]
        == "nameLast"
    )
    ids = [field_of(template, "signature")["id"], field_id]

    result = graphql(CREATE, packet_variables(template, ids))

    assert result["data"]["createEtchPacket"] is None
    assert result["errors"][0]["extensions"]["fields"] == [
        {"property": "signers.0.fields.1.fieldId", "message": message}
    ]
    assert Packet.objects.count() == 0


def test_a_field_of_the_file_itself_may_not_take_a_template_fields_id(
    graphql, organization
) -> None:
    template = signer_fields_sample(organization)
    variables = packet_variables(template, ["nm1"])
    variables["files"][0]["fields"] = [
        {"id": "nm1", "type": "signature", "pageNum": 0,
         "rect": {"x": 72, "y": 72, "width": 100, "height": 30}},
    ]  # fmt: skip

    result = graphql(CREATE, variables)

    assert result["errors"][0]["extensions"]["fields"] == [
        {
            "property": "files.0.fields.0.id",
            "message": "The template has a field 'nm1' already: use another id.",
        }
    ]
    assert Packet.objects.count() == 0


def test_a_payload_may_not_fill_a_signer_field_or_repeat_its_pages(graphql, organization) -> None:
    template = signer_fields_sample(organization)
    ids = [field_of(template, "signature")["id"]]
    filling = packet_variables(
        template, ids, data={"payloads": {"record": {"data": {"employeeSignature": "forged"}}}}
    )
    repeating = packet_variables(
        template, ids, data={"payloads": {"record": {"data": [{"city": "A"}, {"city": "B"}]}}}
    )

    filled = graphql(CREATE, filling)
    repeated = graphql(CREATE, repeating)

    assert filled["errors"][0]["extensions"]["fields"] == [
        {
            "property": "data.payloads.record.data.employeeSignature",
            "message": "A signer field: it is signed in a packet, not filled.",
        }
    ]
    assert repeated["errors"][0]["extensions"]["fields"] == [
        {
            "property": "data.payloads.record",
            "message": "The template has signer fields on its 1 page(s): a payload that "
            "repeats pages (2 here) cannot be signed.",
        }
    ]
    assert Packet.objects.count() == 0


def aliased_signature_sample(organization: Any, alias: str) -> tuple[Any, dict[str, Any]]:
    """signer_fields_sample published with ``alias`` as its signature field's Field Alias: the
    template and that field."""
    template = signer_fields_sample(organization)
    signature = field_of(template, "signature")
    spec = templates.working_version(template).spec
    for field in spec["fields"]:
        if field["id"] == signature["id"]:
            field["alias"] = alias
    templates.template_update_working(template=template, spec=spec)
    templates.template_publish(template=template)
    return template, signature


def test_a_templates_signer_fields_may_be_named_by_their_alias(
    graphql: Callable[..., dict[str, Any]],
    sign_url: Callable[..., str],
    client: Client,
    api_client: Client,
    organization,
) -> None:
    """The spec: every field has an id used as its key, and the id can be set as the Field
    Alias (cast shows it, fill takes it): a signer's fieldId may be the alias too."""
    template, signature = aliased_signature_sample(organization, "signatureOfUsPerson")
    assert signature["id"] != "signatureOfUsPerson"

    result = graphql(CREATE, packet_variables(template, ["signatureOfUsPerson", "signerName1"]))

    assert "errors" not in result, result
    packet = result["data"]["createEtchPacket"]
    [signer] = packet["documentGroup"]["signers"]
    token = token_of(sign_url(signer["eid"]))
    # The page, the values and the stamps know the fields by their ids.
    config = signing_config(client, signer["eid"], token)
    assert [(f["fieldId"], f["type"]) for f in config["fields"]] == [
        (signature["id"], "signature"),
        ("nm1", "fullName"),
    ]
    ada_signs(client, signer["eid"], token)
    page = words(sealed_document(api_client, packet))[0]
    assert "Ada" in text_in_rect(page, signature["rect"], tolerance=2)
    assert text_in_rect(page, NAME_RECT) == "Ada Lovelace"


def test_a_field_named_by_its_id_and_by_its_alias_is_still_one_signers(
    graphql: Callable[..., dict[str, Any]], organization
) -> None:
    template = signer_fields_sample(organization)
    variables = packet_variables(template, ["nm1"])
    variables["signers"].append(
        {
            **variables["signers"][0],
            "id": "witness",
            "email": "witness@example.com",
            "fields": [{"fileId": "record", "fieldId": "signerName1"}],
        }
    )

    result = graphql(CREATE, variables)

    assert result["errors"][0]["extensions"]["fields"] == [
        {
            "message": "The field is already given to signer 'employee'.",
            "property": "signers.1.fields.0",
        }
    ]
    assert Packet.objects.count() == 0
