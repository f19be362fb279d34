"""Office documents are taken wherever a PDF is: the admin's template upload, `manage.py
import_template`, and a file of createEtchPacket. The PDF a document became is stored as the
template's (the packet's) and the document itself is kept beside it; a refused document is the
usual validation error, naming it, and stores nothing."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from core.blobs import blob_read
from esign.models import Packet
from templates_app import services
from templates_app.models import PdfTemplate
from tests.esign.conftest import CREATE, graphql, two_signer_packet  # noqa: F401 - a fixture
from tests.office.documents import (
    OFFICE,
    docx,
    fixture,
    lease_docx,
    needs_fixtures,
    paragraph,
    pdf_text,
    source_words,
    zip_bomb_docx,
)
from tests.templates_app.conftest import member, member_client  # noqa: F401 - fixtures

pytestmark = pytest.mark.slow

WORD = "tika-testWORD_numbered_list.docx"  # written by others: three pages of numbered lists


def _text(pdf: bytes) -> str:
    return " ".join(pdf_text(pdf).split())


def _upload(member_client: Client, organization, name: str, data: bytes, **extra):  # noqa: F811
    return member_client.post(
        reverse("admin:templates_app_pdftemplate_add"),
        {
            "organization": organization.pk,
            "title": "",
            "is_template": "on",
            "pdf": SimpleUploadedFile(name, data, "application/octet-stream"),
            **extra,
        },
    )


@needs_fixtures
def test_the_admin_makes_a_template_from_a_word_document(
    member_client: Client,  # noqa: F811
    organization,
) -> None:
    data = (OFFICE / WORD).read_bytes()
    response = _upload(member_client, organization, WORD, data, publish="on")

    assert response.status_code == 302, response.content.decode()[:2000]
    template = PdfTemplate.objects.get()
    assert template.title == Path(WORD).stem
    working = services.working_version(template)
    pdf = services.version_pdf(working)
    assert pdf.startswith(b"%PDF-")
    assert len(working.spec["pages"]) == 3
    assert "A multi ii) Level Intervening table" in _text(pdf)
    # The Word document is kept beside the PDF it became, and published with it.
    assert working.source_name == WORD
    assert working.source_path.endswith(".docx")
    assert blob_read(working.source_path, working.source_sha256) == data
    published = template.versions.get(number=1)
    assert (published.source_path, published.source_name) == (working.source_path, WORD)


@needs_fixtures
def test_the_admin_names_a_refused_document_and_stores_nothing(
    member_client: Client,  # noqa: F811
    organization,
    settings,
) -> None:
    name = "tika-testODTMacro.odt"
    response = _upload(member_client, organization, name, (OFFICE / name).read_bytes())

    assert response.status_code == 200
    assert f"{name} contains macros" in response.content.decode()
    assert PdfTemplate.objects.count() == 0
    media = Path(settings.MEDIA_ROOT)
    assert not [p for p in media.rglob("*") if p.is_file() and "templates" in p.parts]


def test_a_pdf_upload_keeps_no_source(member_client: Client, organization) -> None:  # noqa: F811
    from tests.fixtures import PDFS

    response = _upload(
        member_client, organization, "fw9.pdf", (PDFS / "irs-fw9-2018.pdf").read_bytes()
    )

    assert response.status_code == 302
    working = services.working_version(PdfTemplate.objects.get())
    assert (working.source_path, working.source_name) == ("", "")


@needs_fixtures
def test_import_template_converts_an_opendocument(organization, tmp_path: Path, capsys) -> None:
    name = "tika-testODTStyles2.odt"
    path = tmp_path / name
    path.write_bytes((OFFICE / name).read_bytes())

    call_command("import_template", organization.slug, str(path))

    template = PdfTemplate.objects.get(eid=capsys.readouterr().out.strip())
    working = services.working_version(template)
    assert working.source_path.endswith(".odt")
    assert working.source_name == name
    text = "".join(pdf_text(services.version_pdf(working)).casefold().split())
    assert all(word in text for word in source_words(name))


def test_create_etch_packet_takes_a_word_document(graphql, organization) -> None:  # noqa: F811
    # Two pages, as the packet's fields ask.
    contract = docx(
        paragraph("Services agreement between the client and the provider.", page_break_after=True)
        + paragraph("Signatures of both parties follow.")
    )
    variables = two_signer_packet()
    variables["files"][0]["file"] = {
        "data": base64.b64encode(contract).decode(),
        "filename": "agreement.docx",
        "mimetype": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    }

    result = graphql(CREATE, variables)

    assert "errors" not in result, result
    packet = Packet.objects.get(eid=result["data"]["createEtchPacket"]["eid"])
    document = packet.documents.get()
    assert document.filename == "agreement.pdf"
    assert document.page_count == 2
    pdf = blob_read(document.prepared_path, document.prepared_sha256)
    assert "Services agreement between the client and the provider." in _text(pdf)
    # The Word document is kept in the packet's folder, beside its PDFs.
    folder = f"packets/{organization.eid}/{packet.eid}"
    sources = [n for n in default_storage.listdir(folder)[1] if n.endswith("-source-1.docx")]
    assert len(sources) == 1
    with default_storage.open(f"{folder}/{sources[0]}") as stored:
        assert stored.read() == contract


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("zip bomb", "bomb.docx unpacks to far more than its size"),
        pytest.param(
            "tika-testODTEncrypted.odt", "bomb.docx is password-protected", marks=needs_fixtures
        ),
    ],
)
def test_create_etch_packet_refuses_a_hostile_document_by_name(
    graphql,  # noqa: F811
    data: str,
    message: str,
) -> None:
    document = zip_bomb_docx() if data == "zip bomb" else fixture(data)
    variables = two_signer_packet()
    variables["files"][0]["file"] = {
        "data": base64.b64encode(document).decode(),
        "filename": "bomb.docx",
    }

    result = graphql(CREATE, variables)

    assert result["data"]["createEtchPacket"] is None
    error = result["errors"][0]["extensions"]["fields"][0]
    assert error["property"] == "files.0.file"
    assert message in error["message"]
    assert Packet.objects.count() == 0
    # The next request is served.
    variables["files"][0]["file"]["data"] = base64.b64encode(
        docx(paragraph("Page one", page_break_after=True) + paragraph("Page two"))
    ).decode()
    assert "errors" not in graphql(CREATE, variables)


def test_a_file_that_is_neither_is_still_refused(graphql) -> None:  # noqa: F811
    variables = two_signer_packet()
    variables["files"][0]["file"]["data"] = base64.b64encode(b"GIF89a not a pdf").decode()

    result = graphql(CREATE, variables)

    error = result["errors"][0]["extensions"]["fields"][0]
    assert error["property"] == "files.0.file"
    assert "not a PDF, nor a Word, OpenDocument or RTF document" in error["message"]


def test_lease_from_a_word_document_in_calibri(member_client: Client, organization) -> None:  # noqa: F811
    response = _upload(member_client, organization, "lease.docx", lease_docx())

    assert response.status_code == 302
    template = PdfTemplate.objects.get()
    assert template.title == "lease"
    assert "Residential Lease Agreement" in _text(
        services.version_pdf(services.working_version(template))
    )


def test_no_converter_free_is_busy_and_nothing_is_stored(graphql, monkeypatch) -> None:  # noqa: F811
    from core import office
    from core.engine.office import OfficeConverter

    taken = OfficeConverter(workers=1, queue_timeout=0.05)
    taken._slots.get()  # the one converter is busy with another document
    monkeypatch.setattr(office, "office_converter", lambda: taken)
    variables = two_signer_packet()
    variables["files"][0]["file"] = {
        "data": base64.b64encode(lease_docx()).decode(),
        "filename": "lease.docx",
    }

    result = graphql(CREATE, variables)

    assert result["data"]["createEtchPacket"] is None
    assert result["errors"][0]["extensions"]["code"] == "ServiceBusyError"
    assert "Every document converter is busy" in result["errors"][0]["message"]
    assert Packet.objects.count() == 0
    taken.close()
