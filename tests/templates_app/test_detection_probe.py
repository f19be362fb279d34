"""Probes of the flat-PDF upload and field detection (issue 46, item 12), on SQLite and PostgreSQL.

A hostile file given to the admin's "Add template" (the import runs in the web process) is a
clear message on the form and stores nothing; one that imports (a huge page, a picture of 400
million pixels) is looked for fields in a detection worker that bounds it. The editor's "Detect
fields" endpoint answers hostile bodies with a 4xx in the wire shape and changes nothing; it is
reached by members of the template's organization with the change permission, in any role, and
by nobody else. ``manage.py detect_fields`` answers a bad argument with a message, not a
traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from accounts.models import Organization, User
from accounts.services import member_add
from templates_app import services
from templates_app.engine.pdf_import import PAGE_TREE_MAX_ENTRIES
from templates_app.models import PdfTemplate, TemplateVersion
from templates_app.services import template_create_from_pdf
from tests.templates_app.conftest import locked_form, logged_in, make_staff
from tests.templates_app.hostile_pdfs import (
    nested_repetition,
    one_page,
    pixel_bomb,
    repeated_page,
)
from tests.templates_app.test_editor_detect import flat_form

pytestmark = pytest.mark.django_db

ADD = "admin:templates_app_pdftemplate_add"


def stored_files(settings: Any) -> list[Path]:
    return sorted(p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file())


def upload(client: Client, organization: Organization, data: bytes, name: str = "form.pdf") -> Any:
    return client.post(
        reverse(ADD),
        {"organization": organization.pk, "title": "", "pdf": SimpleUploadedFile(name, data)},
    )


def form_errors(response: Any) -> list[str]:
    """The messages the admin's form shows for the PDF."""
    assert response.status_code == 200, response.status_code
    return list(response.context["adminform"].form.errors.get("pdf", []))


TOO_MANY = "A template has at most 500 pages."

REFUSED_UPLOADS = {
    "not a PDF": (b"GIF89a\x01\x00\x01\x00" + bytes(64), "The file is not a PDF."),
    "truncated": (flat_form()[:200], "The PDF is damaged and cannot be read."),
    "encrypted": (
        locked_form(user_password="secret"),
        "The PDF needs a password to open; remove its password protection and upload again.",
    ),
    "many pages": (repeated_page(501), TOO_MANY),
    # The page tree is walked no further than a template's pages could need, and the file is
    # refused for what it is, not as "damaged" at pypdf's own limit (100,000 entries).
    "one page 90,000 times": (repeated_page(90_000), TOO_MANY),
    # pypdf reads no array of more than 100,000 elements.
    "one page 300,000 times": (repeated_page(300_000), "The PDF is damaged and cannot be read."),
    "10^10 pages in 300 bytes": (nested_repetition(10, 10), TOO_MANY),
    "a MediaBox past any number": (
        one_page(b"[0 0 " + b"9" * 400 + b" 792]"),
        "The PDF is damaged and cannot be read.",
    ),
    "a MediaBox that is no rectangle": (
        one_page(b"(612 792)"),
        "The PDF is damaged and cannot be read.",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED_UPLOADS))
def test_a_hostile_upload_is_a_clear_message_and_stores_nothing(
    member_client: Client, organization: Organization, settings: Any, case: str
) -> None:
    data, message = REFUSED_UPLOADS[case]

    response = upload(member_client, organization, data)

    assert form_errors(response) == [message]
    assert PdfTemplate.objects.count() == TemplateVersion.objects.count() == 0
    assert stored_files(settings) == []


def test_the_page_tree_is_walked_only_as_far_as_a_template_may_go(
    member_client: Client, organization: Organization, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The work a hostile page tree costs the web process is bounded by the template's page
    limit, not by pypdf's (100,000 pages made, and each box read, before the count was
    compared)."""
    from pypdf import PageObject

    made = []
    original = PageObject.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(PageObject, "__init__", counting)

    response = upload(member_client, organization, repeated_page(90_000))

    assert form_errors(response) == [TOO_MANY]
    assert 500 < len(made) <= PAGE_TREE_MAX_ENTRIES  # the form's check stopped, once


def test_an_upload_past_the_size_limit_is_refused_before_it_is_read(
    member_client: Client, organization: Organization, settings: Any, monkeypatch: Any
) -> None:
    import templates_app.forms

    monkeypatch.setattr(templates_app.forms, "MAX_PDF_BYTES", 1_000)

    response = upload(member_client, organization, flat_form())

    assert form_errors(response) == ["The PDF is larger than 1000 bytes."]
    assert PdfTemplate.objects.count() == 0
    assert stored_files(settings) == []


@pytest.mark.parametrize(
    "name",
    ["nul\x00name.pdf", "bell\x07.pdf", "line\nbreak.pdf", "\u202eevil.pdf", "x" * 400 + ".pdf"],
)
def test_a_hostile_file_name_never_becomes_a_bad_title(
    member_client: Client, organization: Organization, name: str
) -> None:
    """Without a title the template is named after its file: a name Django passes through with
    control characters (PostgreSQL refuses NUL in text) is no 500, and the title is one line of
    text."""
    response = upload(member_client, organization, flat_form(), name=name)

    assert response.status_code == 302, response.content.decode()[:2000]
    title = PdfTemplate.objects.get().title
    assert title
    assert len(title) <= 255
    assert not any(ord(char) < 32 or ord(char) == 127 for char in title), repr(title)


def test_another_organizations_id_in_the_upload_form_is_refused(
    member_client: Client, other_organization: Organization, settings: Any
) -> None:
    response = upload(member_client, other_organization, flat_form())

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["organization"]
    assert PdfTemplate.objects.count() == 0
    # Only the PDF kept for this user's next try (templates_app.upload_stash), no template's.
    assert [path.parent.name for path in stored_files(settings)] == ["admin-uploads"]


# --- what imports, and is then looked for fields in a worker --------------------------------


def detect(client: Client, template: PdfTemplate, body: Any = None, raw: bytes | None = None):
    url = reverse("admin:templates_app_pdftemplate_editor_detect", args=[template.pk])
    data = raw if raw is not None else json.dumps(body if body is not None else {})
    return client.post(url, data=data, content_type="application/json")


def assert_wire_error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert isinstance(body["name"], str)
    if body["name"] == "ValidationError":
        assert body["fields"]
        assert all(set(f) == {"property", "message"} for f in body["fields"])
    else:
        assert isinstance(body["message"], str)
    return body


def unchanged(template: PdfTemplate) -> tuple[int, Any]:
    return TemplateVersion.objects.count(), services.working_version(template).spec


@pytest.mark.parametrize(
    "box",
    [b"[0 0 1000000 1000000]", b"[612 792 0 0]", b"[-500000 -500000 500000 500000]"],
    ids=["a page of 14 km", "corners given the other way", "around the origin"],
)
def test_a_huge_or_inverted_page_imports_and_is_looked_at_within_the_pixel_bound(
    member_client: Client, organization: Organization, box: bytes
) -> None:
    response = upload(member_client, organization, one_page(box))
    assert response.status_code == 302, form_errors(response)
    template = PdfTemplate.objects.get()
    [page] = services.working_version(template).spec["pages"]
    assert page["width"] > 0
    assert page["height"] > 0
    before = unchanged(template)

    found = detect(member_client, template)

    assert found.status_code == 200, found.content[:500]
    assert unchanged(template) == before


def test_a_zero_area_page_is_refused_at_upload(
    member_client: Client, organization: Organization, settings: Any
) -> None:
    """A page with no area has no place for a field: said when the file is chosen, not by every
    field the editor would later refuse."""
    response = upload(member_client, organization, one_page(b"[0 0 0 0]"))

    assert form_errors(response) == ["Page 1 has no area (its MediaBox is 0 x 0 points)."]
    assert PdfTemplate.objects.count() == 0
    assert stored_files(settings) == []


def test_a_pixel_bomb_is_drawn_within_the_detection_workers_memory(
    member_client: Client, organization: Organization, settings: Any
) -> None:
    """The page's picture (400 million grey pixels, black) needs more memory than a detection
    worker may have: pdfium, refused the memory in the worker, draws the page without it, so
    the line under the label is found (with the memory, the black picture hides it). The web
    process never decodes it; nothing changes."""
    bomb = template_create_from_pdf(organization=organization, title="Bomb", pdf=pixel_bomb())
    settings.DETECT_WORKER_MEMORY_MB = 350  # above a worker's own, below the picture's 400 MB
    before = unchanged(bomb)

    response = detect(member_client, bomb)

    assert response.status_code == 200, response.content[:500]
    assert [field["alias"] for field in response.json()["fields"]] == ["fullName"]
    assert unchanged(bomb) == before


def test_more_pages_than_detection_looks_at_is_a_400(
    member_client: Client, organization: Organization
) -> None:
    template = template_create_from_pdf(
        organization=organization, title="Long", pdf=repeated_page(60)
    )

    body = assert_wire_error(detect(member_client, template), 400)

    assert body["fields"] == [
        {"property": "pages", "message": "Fields are looked for on at most 50 pages."}
    ]
    assert detect(member_client, template, {"pages": list(range(50))}).status_code == 200


# --- the detect endpoint's body ------------------------------------------------------------

HOSTILE_BODIES = {
    "NUL in a page": ({"pages": ["\x00"]}, 400),
    "a page past a bigint": ({"pages": [2**64]}, 400),
    "a negative page": ({"pages": [-1]}, 400),
    "true as a page": ({"pages": [True]}, 400),
    "a fraction": ({"pages": [0.5]}, 400),
    "a list in a list": ({"pages": [[0]]}, 400),
    "an object as pages": ({"pages": {"0": 0}}, 400),
    "a string as onlyMissing": ({"onlyMissing": "true"}, 400),
    "null as onlyMissing": ({"onlyMissing": None}, 400),
}
RAW_BODIES = {
    "a lone surrogate": (b'{"pages": "\\ud800"}', 400),
    "NUL in a key": (b'{"pa\\u0000ges": [0]}', 400),
    "not JSON": (b"{", 400),
    "a list": (b"[0]", 400),
    "raw NUL": (b"\x00", 400),
    "nested too deep": (b'{"pages": ' + b"[" * 5000 + b"]" * 5000 + b"}", 400),
    "past the body limit": (b'{"pages": [' + b"0," * 600_000 + b"0]}", 413),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_BODIES) + sorted(RAW_BODIES))
def test_a_hostile_detect_body_is_a_4xx_in_the_wire_shape_and_changes_nothing(
    member_client: Client, organization: Organization, case: str
) -> None:
    template = template_create_from_pdf(organization=organization, title="Flat", pdf=flat_form())
    before = unchanged(template)
    if case in HOSTILE_BODIES:
        body, status = HOSTILE_BODIES[case]
        response = detect(member_client, template, body)
    else:
        raw, status = RAW_BODIES[case]
        response = detect(member_client, template, raw=raw)

    assert_wire_error(response, status)
    assert unchanged(template) == before


# --- who may ask ---------------------------------------------------------------------------


def staff_in_role(organization: Organization, role: str, *, can_change: bool = True) -> Client:
    user = make_staff(f"{role}-{can_change}", None, can_change=can_change)
    member_add(organization=organization, user=user, role=role)
    return logged_in(user)


@pytest.mark.parametrize("role", ["owner", "admin", "member"])
def test_every_role_with_the_change_permission_may_detect(
    organization: Organization, role: str
) -> None:
    """Templates are everyday work (accounts.staff): any member Django's permissions allow."""
    template = template_create_from_pdf(organization=organization, title="Flat", pdf=flat_form())

    assert detect(staff_in_role(organization, role), template).status_code == 200


def test_nobody_else_reaches_detection(
    organization: Organization, other_organization: Organization
) -> None:
    template = template_create_from_pdf(organization=organization, title="Flat", pdf=flat_form())
    before = unchanged(template)
    outsider = make_staff("outsider", other_organization)
    member_not_staff = User.objects.create_user(username="plain")
    member_add(organization=organization, user=member_not_staff, role="owner")

    assert (
        detect(staff_in_role(organization, "admin", can_change=False), template).status_code == 403
    )
    assert detect(logged_in(outsider), template).status_code == 404  # as if it did not exist
    assert detect(logged_in(member_not_staff), template).status_code == 302  # the admin's login
    assert detect(Client(), template).status_code == 302
    outsider.user_permissions.set(Permission.objects.all())  # every permission, still no tenancy
    assert detect(logged_in(outsider), template).status_code == 404
    assert unchanged(template) == before


@pytest.mark.parametrize("object_id", ["0", "abc", "9" * 30, "-1", "1%00", "%ED%A0%80"])
def test_a_template_id_that_names_nothing_is_a_404(member_client: Client, object_id: str) -> None:
    response = member_client.post(
        f"/admin/templates_app/pdftemplate/{object_id}/editor/detect/",
        data="{}",
        content_type="application/json",
    )

    assert response.status_code == 404


# --- manage.py detect_fields ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--pages", "1-1000000000000"], "--pages: at most 50 pages at once."),
        (["--pages", "0"], "--pages: '0' is not a page or range."),
        (["--pages", "2-1"], "--pages: '2-1' is not a page or range."),
        (["--pages", "\x00"], "--pages: '\\x00' is not a page or range."),
        (["--pages", "3"], "The PDF has 1 pages."),
    ],
)
def test_detect_fields_command_refuses_bad_pages_with_a_message(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    pdf = tmp_path / "flat.pdf"
    pdf.write_bytes(flat_form())

    with pytest.raises(CommandError) as refused:
        call_command("detect_fields", str(pdf), *arguments)

    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("nul\x00.pdf", "Cannot read 'nul\\x00.pdf': the path holds a NUL character."),
        ("missing.pdf", "Cannot read missing.pdf: No such file or directory"),
    ],
)
def test_detect_fields_command_refuses_a_path_it_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)

    with pytest.raises(CommandError) as refused:
        call_command("detect_fields", path)

    assert str(refused.value) == message


@pytest.mark.parametrize("junk", ["abc", "\x00", "9" * 30, "-1"])
def test_a_forged_selection_on_the_template_list_is_refused_whole(
    member_client: Client, organization: Organization, junk: str
) -> None:
    """The list's actions (publish, duplicate, delete) run on ids a forged post names as they
    came (core.admin_actions): one that cannot be a row refuses the action, never a 500."""
    from django.contrib.messages import get_messages

    from core.admin_actions import REFUSED

    template = template_create_from_pdf(organization=organization, title="Flat", pdf=flat_form())

    response = member_client.post(
        reverse("admin:templates_app_pdftemplate_changelist"),
        {"action": "duplicate_templates", "_selected_action": [str(template.pk), junk]},
    )

    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [REFUSED]
    assert PdfTemplate.objects.count() == 1
