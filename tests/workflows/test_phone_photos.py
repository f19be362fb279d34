"""Uploads from a phone (issue 24, item 4): a photo as a phone takes it (megabytes, turned by its
EXIF orientation) is made small enough for its image field on the server, and the chosen image
is kept when another field of the page is refused."""

from __future__ import annotations

import base64
import io
import os

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from tests.workflows.test_pages import value_of
from tests.workflows.test_public_uploads import BADGE, badge  # noqa: F401 - a fixture
from workflows.engine.photos import fit_image
from workflows.engine.rules import IMAGE_MAX_BYTES
from workflows.models import Submission, WebformSubmission, Workflow


def phone_photo(width: int = 4032, height: int = 3024, orientation: int = 6) -> bytes:
    """A JPEG the size a phone makes (noise compresses badly, as a real photo's detail does),
    stored sideways with an EXIF orientation, as phone cameras do."""
    image = Image.frombytes("RGB", (width // 4, height // 4), os.urandom(width * height * 3 // 16))
    image = image.resize((width, height))
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=92, exif=exif.tobytes())
    return buffer.getvalue()


def test_a_phone_photo_is_made_small_enough_and_upright() -> None:
    photo = phone_photo()
    assert len(photo) > 2_000_000

    fitted = fit_image(photo, "image/jpeg", max_bytes=IMAGE_MAX_BYTES)

    assert fitted is not None
    assert fitted.scaled
    assert len(fitted.data) <= IMAGE_MAX_BYTES
    assert fitted.mime == "image/jpeg"
    assert fitted.height > fitted.width  # orientation 6: stored landscape, shown portrait
    assert Image.open(io.BytesIO(fitted.data)).format == "JPEG"


def test_small_images_are_kept_as_they_are_and_non_images_refused() -> None:
    buffer = io.BytesIO()
    Image.new("RGBA", (20, 10), (0, 0, 0, 0)).save(buffer, "PNG")
    small = buffer.getvalue()

    kept = fit_image(small, "image/png", max_bytes=IMAGE_MAX_BYTES)

    assert kept is not None
    assert kept.data == small
    assert not kept.scaled
    assert fit_image(b"<html>" * 30_000, "image/png", max_bytes=IMAGE_MAX_BYTES) is None
    assert fit_image(small, "image/jpeg", max_bytes=IMAGE_MAX_BYTES) is None  # not what it claims
    assert fit_image(small, "image/svg+xml", max_bytes=IMAGE_MAX_BYTES) is None


def test_the_page_takes_a_phone_photo_and_keeps_it_after_another_fields_error(
    badge: Workflow,  # noqa: F811
) -> None:
    client = Client()
    photo = SimpleUploadedFile("IMG_0001.jpg", phone_photo(), content_type="image/jpeg")
    forge_eid = badge.webforms.get().eid

    refused = client.post(
        BADGE, {"forge": forge_eid, "page": "0", "photo.file": photo, "email": "ada@"}
    )

    assert refused.status_code == 400
    html = refused.content.decode()
    assert "Enter an email address" in html
    assert "Photo:" not in html  # the photo is not a problem
    kept = value_of(refused, "photo")
    assert kept.startswith("data:image/jpeg;base64,")
    assert len(base64.b64decode(kept.split(",", 1)[1])) <= IMAGE_MAX_BYTES
    assert 'class="wf-image"' in html
    assert Submission.objects.count() == 0

    done = client.post(
        BADGE, {"forge": forge_eid, "page": "0", "photo": kept, "email": "ada@example.com"}
    )

    assert "Thank you" in done.content.decode()
    assert WebformSubmission.objects.get().payload["photo"] == kept
