"""The admin's bulk send upload without a browser: XLSX as well as CSV, what a file may not be
(too large, too many rows, not a table, no signer columns; the form says why and nothing is
stored), and who may see or send a batch (another organization's is a 404; a member who does
not manage it sees it and may not send it). The pages and their problems in the browser's
language, in each shipped language."""

from __future__ import annotations

import io
from datetime import datetime

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation
from openpyxl import Workbook

from accounts.models import Organization
from esign.models import BulkBatch, BulkRow, Packet
from templates_app.models import PdfTemplate
from tests.esign.conftest import esign_staff_client
from tests.esign.test_bulk_admin_browser import signable_template

ADD = "/admin/esign/bulkbatch/add/"


def staff_client(organization: Organization, role: str = "admin", name: str = "sender") -> Client:
    return esign_staff_client(organization, role=role, username=name)


@pytest.fixture
def template(organization: Organization) -> PdfTemplate:
    return signable_template(organization)


def xlsx(rows: list[list[object]]) -> bytes:
    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def upload(client: Client, template: PdfTemplate, name: str, data: bytes) -> object:
    return client.post(
        ADD, {"template": template.pk, "file": SimpleUploadedFile(name, data), "name": ""}
    )


def test_a_spreadsheet_makes_a_draft_and_sends_nothing(organization, template) -> None:
    client = staff_client(organization)
    data = xlsx(
        [
            ["name", "email", "amount", "birthDate"],
            # A spreadsheet's dates have no time zone.
            ["Ada Lovelace", "ada@example.com", 1234.5, datetime(1815, 12, 10)],  # noqa: DTZ001
            [None, None, None, None],  # a blank line is skipped
            ["Charles Babbage", "charles@example.com", 10.0, "1791-12-26"],
        ]
    )
    response = upload(client, template, "rows.xlsx", data)
    batch = BulkBatch.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/admin/esign/bulkbatch/{batch.pk}/change/"
    assert batch.status == "draft"
    assert batch.columns == ["name", "email", "amount", "birthDate"]
    values = [row.values for row in batch.rows.order_by("index")]
    assert values == [
        {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "amount": "1234.5",
            "birthDate": "1815-12-10",
        },
        {
            "name": "Charles Babbage",
            "email": "charles@example.com",
            "amount": "10",
            "birthDate": "1791-12-26",
        },
    ]
    assert batch.shape["data"]["payloads"]["document"]["data"] == {
        "amount": "{{amount}}",
        "birthDate": "{{birthDate}}",
    }
    assert batch.shape["signers"][0]["fields"] == [{"fileId": "document", "fieldId": "signature"}]
    page = client.get(response["Location"])
    assert b"Send 2 packets" in page.content
    assert Packet.objects.count() == 0


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("rows.pdf", b"%PDF-1.7", "Upload a .csv or .xlsx file."),
        ("rows.csv", b"name,email\n", "The file has no rows under its column names."),
        ("rows.csv", b"name,title\nAda,Boss\n", "The file needs the columns name and email"),
        ("rows.csv", b"name,email,email\nA,a@example.com,b\n", "Every column needs a name"),
        ("rows.csv", b"\xff\xfe\x00n", "A CSV file must be UTF-8 text."),
        ("rows.xlsx", b"PK\x03\x04 broken", "The spreadsheet cannot be read."),
        ("rows.csv", b"name,email\n" + b"A,a@example.com\n" * 4, "At most 3 rows"),
        ("rows.csv", b"name,email\n" + b"A" * 2000, "The file is larger than 1 KB."),
    ],
)
def test_a_file_that_is_not_rows_is_refused(
    organization, template, settings, name, data, message
) -> None:
    settings.BULK_SEND_MAX_ROWS = 3
    settings.BULK_SEND_MAX_FILE_BYTES = 1024
    response = upload(staff_client(organization), template, name, data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert BulkBatch.objects.count() == BulkRow.objects.count() == 0


def test_a_template_without_a_signature_field_is_refused(organization, demo_template) -> None:
    response = upload(staff_client(organization), demo_template, "r.csv", b"name,email\nA,a@b.co\n")
    assert "The template has no signature field" in response.content.decode()
    assert BulkBatch.objects.count() == 0


def test_another_organizations_template_is_not_offered(
    organization, other_organization, template
) -> None:
    response = upload(staff_client(other_organization, name="other"), template, "r.csv", b"x")
    assert "Select a valid choice" in response.content.decode()
    assert BulkBatch.objects.count() == 0


def test_who_sees_and_who_sends(organization, other_organization, template) -> None:
    upload(staff_client(organization), template, "r.csv", b"name,email\nAda,ada@example.com\n")
    batch = BulkBatch.objects.get()
    base = f"/admin/esign/bulkbatch/{batch.pk}"
    outsider = staff_client(other_organization, name="outsider")
    # Django's own answer for an object one may not see: back to the admin's index.
    assert outsider.get(f"{base}/change/")["Location"] == "/admin/"
    for url in (f"{base}/progress.json", f"{base}/results.csv"):
        assert outsider.get(url).status_code == 404
    assert outsider.post(f"{base}/send/").status_code == 404
    member = staff_client(organization, role="member", name="member")
    page = member.get(f"{base}/change/")
    assert page.status_code == 200
    assert b"Send 1 packet" not in page.content
    assert member.post(f"{base}/send/").status_code == 403
    assert BulkBatch.objects.get().status == "draft"
    assert member.get(f"{base}/progress.json").json() == {
        "status": "draft",
        "total": 1,
        "created": 0,
        "failed": 0,
        "done": 0,
    }


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("rows.pdf", b"%PDF-1.7", "Suba un archivo .csv o .xlsx."),
        ("rows.csv", b"name,title\nAda,Boss\n", "El archivo necesita las columnas name y email"),
        ("rows.csv", b"name,email\n" + b"A,a@example.com\n" * 4, "Como máximo 3 filas"),
    ],
)
def test_a_spanish_browser_reads_the_file_problems_in_spanish(
    organization, template, settings, name, data, message
) -> None:
    """The admin is a page: it follows Accept-Language (core.middleware.PageLanguageMiddleware)."""
    settings.BULK_SEND_MAX_ROWS = 3
    client = staff_client(organization)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "es"
    response = upload(client, template, name, data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert "Subir y previsualizar" in response.content.decode()
    assert BulkBatch.objects.count() == 0


def test_a_second_send_or_a_late_stop_says_why_in_the_readers_language(
    organization, template
) -> None:
    client = staff_client(organization)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "es"
    upload(client, template, "r.csv", b"name,email\nAda,ada@example.com\n")
    batch = BulkBatch.objects.get()
    base = f"/admin/esign/bulkbatch/{batch.pk}"
    page = client.get(f"{base}/change/").content.decode()
    assert "Enviar 1 paquete<" in page
    assert "Sin problemas: se pueden enviar todas las filas." in page
    client.post(f"{base}/send/")
    page = client.post(f"{base}/send/", follow=True).content.decode()
    assert "Este envío masivo no se puede enviar de nuevo. Su estado: Enviando." in page
    BulkBatch.objects.filter(pk=batch.pk).update(status=BulkBatch.Status.COMPLETED)
    page = client.post(f"{base}/cancel/", follow=True).content.decode()
    assert "Este envío masivo ya no se está enviando. Su estado: Completado." in page
    assert BulkBatch.objects.get().status == "completed"


@pytest.mark.parametrize(
    "language", [code for code, _name in django_settings.LANGUAGES if code != "en"]
)
def test_every_shipped_language_draws_the_upload_and_the_preview(
    organization, template, language
) -> None:
    """Each catalogue's words reach the pages (the plural forms of the counts included), and no
    English of ours is left on them."""
    client = staff_client(organization)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    rows = b"name,email\nAda,ada@example.com\nBob,not-an-email\nCy,cy@example.com\n"
    upload(client, template, "r.csv", rows)
    page = client.get(f"/admin/esign/bulkbatch/{BulkBatch.objects.get().pk}/change/")
    with translation.override(language):
        wanted = [
            translation.gettext("Preview: the first rows"),
            translation.ngettext("Send %(count)s packet", "Send %(count)s packets", 2)
            % {"count": 2},
            translation.pgettext("status", "Draft"),
        ]
    text = page.content.decode()
    for words in wanted:
        assert words in text
    for english in ("Preview: the first rows", "Send 2 packets", "cannot be sent", ">Ready<"):
        assert english not in text
    assert "Must be an email address." in text  # the API's words, as the API says them


def test_a_sample_csv_for_a_template_is_for_those_who_may_bulk_send_with_it(
    organization, other_organization, template
) -> None:
    url = f"/admin/esign/bulkbatch/sample/{template.pk}.csv"
    answer = staff_client(organization).get(url)
    assert answer.status_code == 200
    lines = answer.content.decode("utf-8-sig").splitlines()
    header = lines[0].split(",")
    assert header[:2] == ["name", "email"]
    assert {"title", "amount"} <= set(header)
    assert header.count("name") == header.count("email") == 1
    assert "signature" not in header
    assert lines[1].startswith("Ada Lovelace,ada@example.com,")
    assert staff_client(organization, role="member", name="m").get(url).status_code == 403
    assert staff_client(other_organization, name="outsider").get(url).status_code == 404


def test_the_upload_page_lists_each_templates_columns(organization, template) -> None:
    page = staff_client(organization).get(ADD).content.decode()

    assert "The file's columns" in page
    assert f'data-template="{template.pk}"' in page
    assert "<code>amount</code>" in page
    assert f'href="/admin/esign/bulkbatch/sample/{template.pk}.csv"' in page


def test_row_problems_name_the_column_and_the_results_csv_too(organization, template) -> None:
    client = staff_client(organization)
    upload(client, template, "r.csv", b"name,email\nAda,ada@example.com\nBob,not-an-email\n")
    batch = BulkBatch.objects.get()

    page = client.get(f"/admin/esign/bulkbatch/{batch.pk}/change/").content.decode()
    results = client.get(f"/admin/esign/bulkbatch/{batch.pk}/results.csv").content.decode()

    assert "Row 2, column email</strong>: <bdi>Must be an email address.</bdi>" in page
    assert "signers.0.email" not in page
    assert '"column email: Must be an email address."' in results
    assert "signers.0" not in results
