"""A public webform's image fields and the size of what a page may post.

An image field of the public page takes an uploaded file only (a link would make the service
fetch whatever an anonymous visitor names); bytes that claim to be an image must be one, on the
page and through forgeSubmit; a post over its cap is refused with 413 before its body is read,
and an upload is never written to a temporary file."""

from __future__ import annotations

import base64
import io
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files import uploadhandler
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from PIL import Image

from accounts.models import Organization
from tests.core.engine.conftest import FetchTestServer, fetch_http_server  # noqa: F401
from tests.workflows.conftest import FORGE_SUBMIT
from workflows.definitions.versions import workflow_import
from workflows.models import Submission, WebformSubmission, Workflow

BADGE = "/form/acme/badge"
LINK_REFUSED = "Upload the image as a file; a link to an image is not accepted here."
NOT_AN_IMAGE = "This file is not a readable image of the type it claims (PNG, JPEG or GIF)."
HTML = b"<!doctype html><html><body><script>alert(document.cookie)</script></body></html>"


def image(kind: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 20, 20)).save(buffer, format=kind)
    return buffer.getvalue()


def data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def badge_create(organization: Organization, demo_template: Any) -> Workflow:
    """One page: a required photo (the demo template's image field) and an email."""
    workflow, _ = workflow_import(
        organization=organization,
        data={
            "slug": "badge",
            "name": "Badge",
            "webforms": [
                {
                    "slug": "photo",
                    "name": "Photo",
                    "pages": [
                        {"title": "Photo", "fields": [
                            {"key": "photo", "type": "imageFile", "label": "Photo",
                             "required": True},
                            {"key": "email", "type": "email", "label": "Email", "required": True},
                        ]}
                    ],
                }
            ],
            "documents": [{"template": {"eid": demo_template.eid}, "mappings": [
                {"alias": "photo", "forge": "photo", "field": "photo"},
                {"alias": "email", "forge": "photo", "field": "email"},
            ]}],
        },
        publish=True,
    )  # fmt: skip
    return workflow


@pytest.fixture
def badge(organization: Organization, demo_template: Any) -> Workflow:
    return badge_create(organization, demo_template)


def page(workflow: Workflow, **values: Any) -> dict[str, Any]:
    return {"forge": workflow.webforms.get().eid, "page": "0", "email": "a@b.co", **values}


def assert_refused(response: Any, message: str) -> None:
    html = response.content.decode()
    assert response.status_code == 400
    assert "There is a problem" in html  # the page's error summary
    assert f'<a href="#f-photo"><bdi>Photo</bdi>: {message}</a>' in html
    assert f'<p class="wf-error" id="f-photo-error">{message}</p>' in html
    assert Submission.objects.count() == 0


# --- an image is an uploaded file, and an image -------------------------------------------------


def test_a_link_given_as_the_image_is_refused_and_not_fetched(
    badge: Workflow,
    fetch_http_server: FetchTestServer,  # noqa: F811 - the fixture imported above
    settings,
) -> None:
    # Loopback allowed, so that only the page's rule stops the fetch.
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    fetch_http_server.respond("/x.png", image("PNG"), content_type="image/png")

    response = Client().post(BADGE, page(badge, photo=fetch_http_server.url("/x.png")))

    assert_refused(response, LINK_REFUSED)
    assert fetch_http_server.requests == []


def test_html_uploaded_as_a_png_is_refused(badge: Workflow) -> None:
    upload = SimpleUploadedFile("x.png", HTML, content_type="image/png")

    assert_refused(Client().post(BADGE, page(badge, **{"photo.file": upload})), NOT_AN_IMAGE)
    # Nor as the kept image a refused page carries.
    kept = data_url("image/png", HTML)
    assert_refused(Client().post(BADGE, page(badge, photo=kept)), NOT_AN_IMAGE)


def test_an_image_of_another_type_than_it_claims_is_refused(badge: Workflow) -> None:
    upload = SimpleUploadedFile("x.png", image("JPEG"), content_type="image/png")

    assert_refused(Client().post(BADGE, page(badge, **{"photo.file": upload})), NOT_AN_IMAGE)


@pytest.mark.parametrize(
    ("kind", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif")]
)
def test_real_images_are_taken(badge: Workflow, kind: str, mime: str) -> None:
    upload = SimpleUploadedFile(f"me.{kind.lower()}", image(kind), content_type=mime)

    response = Client().post(BADGE, page(badge, **{"photo.file": upload}))

    assert response.status_code == 200
    assert "Thank you" in response.content.decode()
    assert WebformSubmission.objects.get().payload["photo"] == data_url(mime, image(kind))


def test_forge_submit_keeps_the_spec_image_values_but_checks_the_bytes(
    badge: Workflow, graphql: Callable[..., dict[str, Any]]
) -> None:
    forge_eid = badge.webforms.get().eid

    html = graphql(FORGE_SUBMIT, forgeEid=forge_eid, payload={"photo": data_url("image/png", HTML)})
    assert html["errors"][0]["extensions"]["code"] == "ValidationError"
    assert html["errors"][0]["extensions"]["fields"] == [
        {"property": "payload.photo", "message": NOT_AN_IMAGE}
    ]
    assert Submission.objects.count() == 0

    png = data_url("image/png", image("PNG"))
    taken = graphql(FORGE_SUBMIT, forgeEid=forge_eid, payload={"photo": png})
    assert taken["data"]["forgeSubmit"]["payloadValue"]["photo"] == png

    # An http(s) URL stays what the spec makes it for an API caller: an image to load.
    url = "https://images.example.com/me.png"
    linked = graphql(FORGE_SUBMIT, forgeEid=forge_eid, payload={"photo": url})
    assert linked["data"]["forgeSubmit"]["payloadValue"]["photo"] == url


# --- the size of a page's post ------------------------------------------------------------------


class TemporaryFiles:
    """Counts the temporary upload files Django makes (TemporaryFileUploadHandler)."""

    def __init__(self) -> None:
        self.made = 0


@pytest.fixture
def temporary_files(monkeypatch: pytest.MonkeyPatch, settings) -> TemporaryFiles:
    spy = TemporaryFiles()
    original = uploadhandler.TemporaryUploadedFile

    def made(*args: Any, **kwargs: Any) -> Any:
        spy.made += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(uploadhandler, "TemporaryUploadedFile", made)
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 10_000  # Django's handlers spill above this
    return spy


def test_a_post_declared_over_the_cap_is_refused_unread(
    badge: Workflow, temporary_files: TemporaryFiles
) -> None:
    """The report's 120 MB post. The test client's stream fails any read past the few bytes it
    holds, so a 413 here was answered without reading the body."""
    body = encode_multipart(BOUNDARY, page(badge))

    response = Client().generic(
        "POST", BADGE, body, content_type=MULTIPART_CONTENT, CONTENT_LENGTH=str(120 * 1_048_576)
    )

    assert response.status_code == 413
    html = response.content.decode()
    assert "There is a problem" in html
    assert "What was sent is larger than this form takes (12 MB in all, 10 MB for an image)" in html
    assert 'name="photo.file"' in html  # the page again, to send a smaller image
    assert Submission.objects.count() == 0
    assert temporary_files.made == 0


def test_a_page_without_images_takes_only_its_fields(demo_workflow: Workflow) -> None:
    """No image field: the cap is WEBFORM_FIELDS_MAX_BYTES (2 MB), said above the form."""
    body = encode_multipart(BOUNDARY, {"page": "0"})

    response = Client().generic(
        "POST",
        "/form/acme/demo-onboarding",
        body,
        content_type=MULTIPART_CONTENT,
        CONTENT_LENGTH=str(3 * 1_048_576),
    )

    assert response.status_code == 413
    assert 'id="wf-form-error"' in response.content.decode()
    assert "(2 MB in all, 10 MB for an image)" in response.content.decode()
    assert Submission.objects.count() == 0


def test_a_post_to_a_continue_url_is_capped_by_its_submission(demo_workflow: Workflow) -> None:
    from tests.workflows.test_pages import STEP_1
    from workflows.submissions.links import continue_token

    client = Client()
    forge_eid = demo_workflow.webforms.get(slug="about-you").eid
    client.post("/form/acme/demo-onboarding", {**STEP_1, "forge": forge_eid})
    submission = Submission.objects.get()
    url = f"/form/acme/demo-onboarding/{submission.eid}?token={continue_token(submission)}"

    response = client.generic(
        "POST",
        url,
        encode_multipart(BOUNDARY, {"page": "1"}),
        content_type=MULTIPART_CONTENT,
        CONTENT_LENGTH=str(3 * 1_048_576),
    )

    assert response.status_code == 413
    assert "Step 2 of 3" in response.content.decode()  # where the person is
    submission.refresh_from_db()
    assert submission.webform_submissions.get().current_step == 1  # nothing changed


def test_an_image_over_its_cap_stops_the_reading_and_nothing_goes_to_disk(
    badge: Workflow, temporary_files: TemporaryFiles, settings
) -> None:
    settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES = 102_400
    big = SimpleUploadedFile("big.png", b"\x89PNG\r\n\x1a\n" + b"0" * 200_000, "image/png")

    response = Client().post(BADGE, page(badge, **{"photo.file": big}))

    assert response.status_code == 413
    assert "100 KB for an image" in response.content.decode()
    assert Submission.objects.count() == 0
    assert temporary_files.made == 0

    # Within the cap, above Django's memory threshold: kept in memory, then refused by the rule.
    junk = SimpleUploadedFile("junk.png", b"\x89PNG\r\n\x1a\n" + b"0" * 80_000, "image/png")
    refused = Client().post(BADGE, page(badge, **{"photo.file": junk}))
    assert_refused(refused, NOT_AN_IMAGE)
    assert temporary_files.made == 0


@pytest.mark.django_db(transaction=True)
def test_a_chunked_post_without_a_length_is_not_read(
    organization: Organization, demo_template: Any, live_server: Any
) -> None:
    """Without a Content-Length nothing of the body is read (Django reads up to the declared
    length, 0 here): the page answers while the client is still sending a 120 MB stream."""
    badge_create(organization, demo_template)
    host, port = live_server.url.removeprefix("http://").split(":")
    sent = {"bytes": 0}
    stop = threading.Event()
    chunk = b"0" * 65_536

    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(
            (
                f"POST {BADGE} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
                f"Content-Type: {MULTIPART_CONTENT}\r\nTransfer-Encoding: chunked\r\n\r\n"
            ).encode()
        )

        def stream() -> None:
            try:
                while not stop.is_set() and sent["bytes"] < 120 * 1_048_576:
                    connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    sent["bytes"] += len(chunk)
            except OSError:
                pass  # the server answered and closed

        sender = threading.Thread(target=stream, daemon=True)
        sender.start()
        answer = b""
        deadline = time.monotonic() + 10
        while b"</html>" not in answer and time.monotonic() < deadline:
            try:
                part = connection.recv(65_536)
            except ConnectionResetError:  # the server closed with the stream unread
                break
            if not part:
                break
            answer += part
        stop.set()
        sender.join(timeout=5)

    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"This field is required." in answer  # nothing of the body arrived
    assert sent["bytes"] < 120 * 1_048_576
    assert Submission.objects.count() == 0
