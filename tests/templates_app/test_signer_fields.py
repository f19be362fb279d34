"""Signer fields in templates (signature, initial, signatureDate, signerName): imported from a
real form's /Sig fields, valid in a template, listed by ``cast``, and left alone by fill."""

from __future__ import annotations

import io
import json

import pikepdf
import pytest
from django.test import Client

from core.engine.template_spec import SIGNER_TYPES
from templates_app import services
from templates_app.engine.pdf_import import import_pdf
from templates_app.engine.validation import validate_template_json
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf
from tests.fixtures import LOCAL_PDFS, SIGNATURE_FORMS
from tests.pdfcheck import fields, text_in_rect, words
from tests.pdfsound import assert_sound
from tests.templates_app.test_fields_page import Page, field_of

SAMPLE_FORM = "pdflib-sample-form-sig.pdf"


def form_bytes(name: str) -> bytes:
    return (LOCAL_PDFS / name).read_bytes()


def signature_template(organization, name: str = SAMPLE_FORM) -> PdfTemplate:
    return template_create_from_pdf(
        organization=organization, title="Employee record", pdf=form_bytes(name), publish=True
    )


def post_json(client: Client, url: str, body: dict):
    return client.post(url, data=json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("name", sorted(SIGNATURE_FORMS))
def test_a_forms_sig_field_becomes_a_signature_field_at_its_rect(name: str) -> None:
    full_name, page, (x0, y0, x1, y1) = SIGNATURE_FORMS[name]

    imported = import_pdf(form_bytes(name))

    [signature] = [f for f in imported.spec.fields if f.type == "signature"]
    assert signature.name == full_name
    assert signature.page == page
    assert signature.rect.to_json() == pytest.approx(
        {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}, abs=0.001
    )
    assert signature.is_signer
    # The stored base has no interactive form left: no /Sig widget for a viewer to offer.
    with pikepdf.open(io.BytesIO(imported.pdf)) as base:
        assert "/AcroForm" not in base.Root
        subtypes = {a.get("/Subtype") for p in base.pages for a in p.obj.get("/Annots", [])}
        assert "/Widget" not in subtypes
    assert validate_template_json(imported.spec.to_json()) == []


def test_the_sample_forms_other_fields_are_imported_as_before() -> None:
    imported = import_pdf(form_bytes(SAMPLE_FORM))

    by_alias = {f.alias: f for f in imported.spec.fields}
    assert by_alias["employeeSignature"].type == "signature"
    assert by_alias["employeeSignature"].label == "EMPLOYEE SIGNATURE"
    # 29 fields: 1 print button (no data), 27 fields to fill, the signature.
    assert len(imported.spec.fields) == 28
    assert sum(f.type == "signature" for f in imported.spec.fields) == 1


def test_acrobats_default_signature_name_gives_the_alias_signature() -> None:
    [field] = import_pdf(form_bytes("pdflib-with-signature.pdf")).spec.fields

    assert (field.alias, field.type, field.name) == ("signature", "signature", "Signature1")


def test_every_signer_type_is_valid_in_a_template_but_not_in_an_array() -> None:
    page = {"width": 612, "height": 792, "rotate": 0, "mediaBox": [0, 0, 612, 792]}
    spec = {
        "pages": [page],
        "fields": [
            {
                "id": f"s{n}",
                "alias": kind,
                "type": kind,
                "page": 0,
                "rect": {"x": 72, "y": 100 + 40 * n, "width": 160, "height": 30},
            }
            for n, kind in enumerate(SIGNER_TYPES)
        ],
    }
    assert SIGNER_TYPES == ("signature", "initial", "signatureDate", "signerName")
    assert validate_template_json(spec) == []

    spec["arrays"] = [{"id": "a1", "alias": "signatures", "fieldIds": ["s0"]}]
    problems = validate_template_json(spec)
    assert [(p.path, p.message) for p in problems] == [
        (
            "arrays.0.fieldIds",
            "Field 's0' is signed in a packet: only filled fields make arrays.",
        )
    ]


def test_cast_lists_the_signature_field_with_its_id_and_type(
    api_client: Client, organization
) -> None:
    template = signature_template(organization)
    query = "query($eid: String!) { cast(eid: $eid) { fieldInfo exampleData } }"

    body = post_json(api_client, "/graphql", {"query": query, "variables": {"eid": template.eid}})

    cast = body.json()["data"]["cast"]
    [info] = [f for f in cast["fieldInfo"]["fields"] if f["type"] == "signature"]
    stored = next(
        f for f in services.working_version(template).spec["fields"] if f["id"] == info["id"]
    )
    assert info == {
        "id": stored["id"],
        "alias": "employeeSignature",
        "type": "signature",
        "name": "EMPLOYEE SIGNATURE",
        "pageNum": 0,
        "rect": {"x": 338.593, "y": 83.52, "width": 240.444, "height": 18.72},
        "array": None,
        "readOnly": False,
    }
    # The example payload is one the fill accepts: signer fields take no value.
    assert "employeeSignature" not in cast["exampleData"]
    assert cast["exampleData"]["nameLast"] == "Sample text"


def test_fill_draws_nothing_in_a_signature_field(api_client: Client, organization) -> None:
    template = signature_template(organization)
    query = "query($eid: String!) { cast(eid: $eid) { fieldInfo exampleData } }"
    cast = post_json(
        api_client, "/graphql", {"query": query, "variables": {"eid": template.eid}}
    ).json()["data"]["cast"]
    rect = next(f["rect"] for f in cast["fieldInfo"]["fields"] if f["type"] == "signature")
    base = services.version_pdf(template.versions.get(number=1))

    for interactive in (False, True):
        response = post_json(
            api_client,
            f"/api/v1/fill/{template.eid}.pdf",
            {"data": cast["exampleData"], "useInteractiveFields": interactive},
        )
        assert response.status_code == 200, response.content
        filled = response.content
        assert_sound(filled, template=base)
        # Only what the form prints there (its caption), nothing the fill drew.
        assert text_in_rect(words(filled)[0], rect) == text_in_rect(words(base)[0], rect)
        assert "Sample text" in " ".join(w.text for w in words(filled)[0])
        # With interactive fields, every filled field is a widget again: not the signature.
        names = set(fields(filled))
        assert not any("ignature" in name for name in names)
        if interactive:
            assert len(names) > 10


def test_fill_refuses_a_value_for_a_signer_field_and_ignores_null(
    api_client: Client, organization
) -> None:
    template = signature_template(organization)
    url = f"/api/v1/fill/{template.eid}.pdf"

    refused = post_json(api_client, url, {"data": {"employeeSignature": "Jane Doe", "city": "X"}})
    empty = post_json(api_client, url, {"data": {"employeeSignature": "", "city": "X"}})
    ignored = post_json(api_client, url, {"data": {"employeeSignature": None, "city": "Oslo"}})

    for response in (refused, empty):
        assert response.status_code == 400
        assert response.json() == {
            "name": "ValidationError",
            "fields": [
                {
                    "property": "data.employeeSignature",
                    "message": "A signer field: it is signed in a packet, not filled.",
                }
            ],
        }
    assert ignored.status_code == 200
    assert "Oslo" in " ".join(w.text for w in words(ignored.content)[0])


def test_the_admin_fields_page_adds_an_initials_field_and_keeps_the_signature(
    member_client: Client, organization
) -> None:
    template = signature_template(organization)
    page = Page(member_client, template)
    assert '<option value="initial">Initials</option>' in page.html
    new = page.new_row
    page.data.update(
        {
            f"fields-{new}-id": "init1",
            f"fields-{new}-type": "initial",
            f"fields-{new}-x": "300",
            f"fields-{new}-y": "60",
            f"fields-{new}-width": "48",
            f"fields-{new}-height": "28",
        }
    )

    assert page.post().status_code == 302
    assert field_of(template, "init1")["type"] == "initial"
    assert field_of(template, "f11")["type"] == "signature"
    assert field_of(template, "f11")["rect"]["x"] == 338.593
