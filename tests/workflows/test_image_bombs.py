"""Pixel bombs posted to a public webform (issue 32, item 1): a PNG of a few kilobytes that
declares tens of megapixels is refused by its declared size before anything decodes it, on the
page (an uploaded file, or a data: URL the page carries) and through forgeSubmit, and the
serving process (with any worker it starts) does not grow for it: before the fix a 7600x7600 PNG
took the web process from ~320 MB to ~1 GB. What is decoded (a phone's photo, scaled for its
field) is decoded in an image worker, within its memory and time limits."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from accounts.models import Organization
from templates_app.models import PdfTemplate
from tests.image_bombs import png_bomb
from tests.memory import web_process_growth
from tests.workflows.conftest import FORGE_SUBMIT
from tests.workflows.test_pages import value_of
from tests.workflows.test_phone_photos import phone_photo
from tests.workflows.test_public_uploads import BADGE, assert_refused, badge_create, page
from workflows.engine.image_pool import ImageBusy, ImagePool
from workflows.engine.photos import TOO_LARGE, UNREADABLE, photo_refusal
from workflows.engine.rules import IMAGE_MAX_BYTES
from workflows.models import Submission, WebformSubmission, Workflow

MB = 1_048_576
GROWTH_BOUND = 200 * MB
TOO_MANY_PIXELS = "This image has too many pixels to be used here; choose a smaller one."
NOT_PROCESSED = "This image could not be processed; choose a smaller one."
BUSY = "Too many images are being processed right now; send the page again in a moment."


@pytest.fixture
def badge(organization: Organization, demo_template: PdfTemplate) -> Workflow:
    """One page: a required photo and an email; its one document is filled with the photo."""
    return badge_create(organization, demo_template)


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    return {
        "RGB 7600x7600": png_bomb(7600, 7600, "RGB"),  # the report's: 168 KB
        "L 7600x7600": png_bomb(7600, 7600, "L"),  # 56 KB: fits in a data: URL
        "RGBA 7000x7000": png_bomb(7000, 7000, "RGBA"),
        "L 7000x7000": png_bomb(7000, 7000, "L"),  # 47 KB: fits in a data: URL
    }


def upload(data: bytes, mime: str = "image/png") -> SimpleUploadedFile:
    return SimpleUploadedFile("photo.png", data, content_type=mime)


def data_url(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


@pytest.mark.parametrize("name", ["RGB 7600x7600", "RGBA 7000x7000"])
def test_a_pixel_bomb_uploaded_on_the_page_is_refused_undecoded(
    badge: Workflow, bombs: dict[str, bytes], name: str
) -> None:
    with web_process_growth(tree=True) as figures:
        response = Client().post(BADGE, page(badge, **{"photo.file": upload(bombs[name])}))

    assert_refused(response, TOO_MANY_PIXELS)
    assert figures["growth"] < GROWTH_BOUND


def test_a_pixel_bomb_carried_by_the_page_as_a_data_url_is_refused(
    badge: Workflow, bombs: dict[str, bytes]
) -> None:
    """The data: URL a refused page carries is the person's to change: 49 megapixels in 47 KB
    used to be kept, and decoded in full when the documents were filled."""
    with web_process_growth(tree=True) as figures:
        response = Client().post(BADGE, page(badge, photo=data_url(bombs["L 7000x7000"])))

    assert_refused(response, TOO_MANY_PIXELS)
    assert figures["growth"] < GROWTH_BOUND


def test_a_page_carries_no_more_pixels_than_an_upload_is_made_into(
    badge: Workflow, graphql: Callable[..., dict[str, Any]]
) -> None:
    """10 MP of RGBA (40 KB) is within what an API caller's image may be, but the data: URL a
    public page carries is what an upload became: 1600 px a side at most."""
    bomb = data_url(png_bomb(3200, 3200, "RGBA"))

    with web_process_growth(tree=True) as figures:
        response = Client().post(BADGE, page(badge, photo=bomb))

    assert_refused(response, TOO_MANY_PIXELS)
    assert figures["growth"] < GROWTH_BOUND
    fitted = data_url(png_bomb(1600, 1600, "RGBA"))
    assert Client().post(BADGE, page(badge, photo=fitted)).status_code == 200
    forge_eid = badge.webforms.get().eid
    taken = graphql(FORGE_SUBMIT, forgeEid=forge_eid, payload={"photo": bomb})
    assert taken["data"]["forgeSubmit"]["payloadValue"]["photo"] == bomb


@pytest.mark.parametrize("name", ["L 7600x7600", "L 7000x7000"])
def test_a_pixel_bomb_given_to_forge_submit_is_refused(
    badge: Workflow, bombs: dict[str, bytes], graphql: Callable[..., dict[str, Any]], name: str
) -> None:
    forge_eid = badge.webforms.get().eid
    payload = {"photo": data_url(bombs[name]), "email": "a@b.co"}

    with web_process_growth(tree=True) as figures:
        result = graphql(FORGE_SUBMIT, forgeEid=forge_eid, payload=payload, complete=True)

    assert result["errors"][0]["extensions"]["code"] == "ValidationError"
    assert result["errors"][0]["extensions"]["fields"] == [
        {"property": "payload.photo", "message": TOO_MANY_PIXELS}
    ]
    assert Submission.objects.count() == 0
    assert figures["growth"] < GROWTH_BOUND


def test_a_phone_photo_is_still_taken_and_scaled(badge: Workflow) -> None:
    photo = phone_photo(4000, 3000, orientation=1)

    with web_process_growth() as figures:
        response = Client().post(BADGE, page(badge, **{"photo.file": upload(photo, "image/jpeg")}))

    assert response.status_code == 200, response.content.decode()[:2000]
    kept = WebformSubmission.objects.get().payload["photo"]
    assert kept.startswith("data:image/jpeg;base64,")
    fitted = base64.b64decode(kept.split(",", 1)[1])
    assert len(fitted) <= IMAGE_MAX_BYTES
    width, height = Image.open(io.BytesIO(fitted)).size
    assert width <= 1600
    assert width * 3 == height * 4
    assert figures["growth"] < GROWTH_BOUND


def test_the_photo_is_decoded_in_a_worker_not_in_the_web_process(
    badge: Workflow, monkeypatch: pytest.MonkeyPatch
) -> None:
    photo = phone_photo(4000, 3000, orientation=1)

    def not_here(*args: Any) -> None:
        raise AssertionError("decoded in the web process")

    monkeypatch.setattr(Image.Image, "load", not_here)  # this process's only: not the worker's
    # Another field refused: the page comes back with the fitted photo, and nothing is filled.
    refused = Client().post(
        BADGE, {**page(badge, **{"photo.file": upload(photo, "image/jpeg")}), "email": "ada@"}
    )
    monkeypatch.undo()

    assert refused.status_code == 400
    kept = value_of(refused, "photo")
    assert kept.startswith("data:image/jpeg;base64,")
    width, height = Image.open(io.BytesIO(base64.b64decode(kept.split(",", 1)[1]))).size
    assert width <= 1600
    assert width * 3 == height * 4


# --- what passes the declared size meets the worker's limits ------------------------------------


def test_an_image_the_worker_cannot_decode_within_its_memory_is_refused(
    badge: Workflow, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A PNG of 16 megapixels (the cap for a PNG) in a worker allowed 64 MB: out of memory."""
    settings.IMAGE_WORKER_MEMORY_MB = 64
    bomb = png_bomb(4000, 4000, "RGBA")

    with web_process_growth() as figures:
        response = Client().post(BADGE, page(badge, **{"photo.file": upload(bomb)}))

    assert_refused(response, NOT_PROCESSED)
    assert "image upload not fitted: the image needed more than 64 MB" in caplog.messages
    assert figures["growth"] < GROWTH_BOUND


def test_an_image_that_takes_too_long_is_stopped(
    badge: Workflow, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.IMAGE_TIMEOUT_SECONDS = 0.01
    bomb = png_bomb(4000, 4000, "RGBA")

    response = Client().post(BADGE, page(badge, **{"photo.file": upload(bomb)}))

    assert_refused(response, NOT_PROCESSED)
    assert "image upload not fitted: the image took longer than 0.01 s and was stopped" in (
        caplog.messages
    )


def test_every_image_worker_busy_is_a_field_error(
    badge: Workflow, monkeypatch: pytest.MonkeyPatch
) -> None:
    def busy(*args: Any, **kwargs: Any) -> None:
        raise ImageBusy(5.0)

    monkeypatch.setattr(ImagePool, "run", busy)

    response = Client().post(
        BADGE, page(badge, **{"photo.file": upload(phone_photo(2000, 1500), "image/jpeg")})
    )

    assert_refused(response, BUSY)


# --- the caps by format, on the header alone ---------------------------------------------------


def jpeg_declaring(width: int, height: int) -> bytes:
    """A small real JPEG whose frame header claims ``width`` x ``height``."""
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16)).save(buffer, "JPEG")
    data = bytearray(buffer.getvalue())
    frame = data.index(b"\xff\xc0")  # SOF0: length, precision, height, width
    data[frame + 5 : frame + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return bytes(data)


def test_the_pixel_cap_is_by_format() -> None:
    # A JPEG decodes at a fraction of its size: a phone's 50 MP photo passes.
    assert photo_refusal(jpeg_declaring(8160, 6120), "image/jpeg") is None
    assert photo_refusal(jpeg_declaring(8000, 8000), "image/jpeg") == TOO_LARGE
    # A PNG decodes whole: 16 MP.
    assert photo_refusal(png_bomb(4000, 4000, "RGBA"), "image/png") is None
    assert photo_refusal(png_bomb(4001, 4000, "L"), "image/png") == TOO_LARGE
    assert photo_refusal(png_bomb(4000, 4000), "image/jpeg") == UNREADABLE
