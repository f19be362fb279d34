import io
import json

import pytest
from django.core.management import CommandError, call_command

from templates_app import services
from templates_app.models import PdfTemplate
from tests.fixtures import PDFS
from tests.templates_app.conftest import locked_form


def test_import_template_prints_the_eid(organization) -> None:
    out = io.StringIO()
    call_command(
        "import_template",
        "acme",
        str(PDFS / "libreoffice-form.pdf"),
        "--title",
        "LO",
        "--publish",
        stdout=out,
    )

    template = PdfTemplate.objects.get()
    assert out.getvalue() == template.eid + "\n"
    assert template.title == "LO"
    assert services.version_summary(template).published_number == 1


def test_import_template_reports_a_refused_pdf(organization, tmp_path) -> None:
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"not a pdf")

    with pytest.raises(CommandError, match="not a PDF"):
        call_command("import_template", "acme", str(bad))
    assert PdfTemplate.objects.count() == 0


def test_import_template_opens_a_form_locked_only_by_permissions(organization, tmp_path) -> None:
    permit = tmp_path / "permit.pdf"
    permit.write_bytes(locked_form(algorithm="RC4-128"))

    call_command("import_template", "acme", str(permit), stdout=io.StringIO())

    template = PdfTemplate.objects.get()
    fields = services.working_version(template).spec["fields"]
    assert [f["alias"] for f in fields] == ["fullName", "agree"]


def test_import_template_refuses_a_form_that_needs_a_password(
    organization, tmp_path, settings
) -> None:
    secret = tmp_path / "secret.pdf"
    secret.write_bytes(locked_form(user_password="secret"))

    with pytest.raises(CommandError, match="needs a password"):
        call_command("import_template", "acme", str(secret))
    assert PdfTemplate.objects.count() == 0
    assert not settings.MEDIA_ROOT.exists()


def test_detect_fields_prints_the_field_info_of_the_pages_asked_for(tmp_path) -> None:
    from tests.templates_app.test_editor_detect import flat_form

    path = tmp_path / "flat.pdf"
    path.write_bytes(flat_form())
    out = io.StringIO()

    call_command("detect_fields", str(path), "--pages", "1", stdout=out)

    info = json.loads(out.getvalue())
    assert [(f["id"], f["alias"], f["type"], f["pageNum"]) for f in info["fields"]] == [
        ("f1", "fullName", "shortText", 0),
        ("f2", "iAgree", "checkbox", 0),
    ]
    assert info["pages"][0]["width"] == 612
    with pytest.raises(CommandError, match="The PDF has 1 pages."):
        call_command("detect_fields", str(path), "--pages", "2", stdout=out)
    with pytest.raises(CommandError, match="--pages: 'x' is not a page or range."):
        call_command("detect_fields", str(path), "--pages", "x", stdout=out)
