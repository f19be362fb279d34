"""Images in fill data are checked by the size and mode their header declares before anything
decodes them (issue 32): the PDF writer decodes every image it draws whole, in the process that
fills, at three to four times its decoded size (a 62 KB PNG declaring 4000x4000 RGBA took
260 MB), so an image over what a page needs is left out, as the spec leaves out any image that
cannot be used. A webform's documents are filled this way when its last page is posted."""

from __future__ import annotations

import base64

import pytest

from core.engine.images import (
    DEFAULT_MAX_DECODED_BYTES,
    TOO_LARGE,
    UNREADABLE,
    decoded_bytes,
    image_refusal,
)
from tests.core.engine.test_images import image_bytes, png_header_only
from tests.fill.conftest import spec_field
from tests.image_bombs import png_bomb
from tests.memory import web_process_growth
from tests.pdfcheck import dark_pixels, render

MB = 1_048_576
GROWTH_BOUND = 200 * MB


@pytest.mark.parametrize(("width", "height", "mode"), [(4000, 4000, "RGBA"), (7000, 7000, "L")])
def test_a_pixel_bomb_in_fill_data_is_left_out_undecoded(
    demo_template, fill, width: int, height: int, mode: str
) -> None:
    bomb = png_bomb(width, height, mode)
    assert len(bomb) < 64 * 1024  # a data: URL the fill endpoint takes
    url = "data:image/png;base64," + base64.b64encode(bomb).decode()

    with web_process_growth() as figures:
        response = fill(demo_template, {"data": {"photo": url, "title": "Still filled"}})

    assert response.status_code == 200
    image = render(response.content)
    assert dark_pixels(image, spec_field(demo_template, "photo")["rect"], 792) == 0
    assert figures["growth"] < GROWTH_BOUND


def test_decoded_size_by_mode() -> None:
    assert decoded_bytes(100, 10, "L") == 1_000
    assert decoded_bytes(100, 10, "RGB") == 3_000
    assert decoded_bytes(100, 10, "RGBA") == 4_000
    assert decoded_bytes(100, 10, "P") == 4_000  # a palette is expanded to draw it


def test_a_phone_photo_passes_and_declared_sizes_over_the_cap_do_not() -> None:
    assert DEFAULT_MAX_DECODED_BYTES == 40 * MB
    assert image_refusal(png_header_only(4000, 3000)) is None  # RGB, 12 MP: 36 MB
    assert image_refusal(png_header_only(4000, 4000)) == TOO_LARGE  # RGB, 16 MP: 48 MB
    assert image_refusal(png_bomb(3000, 3000, "RGBA")) is None  # 36 MB
    assert image_refusal(png_bomb(3300, 3300, "RGBA")) == TOO_LARGE  # 43.6 MB
    assert image_refusal(png_bomb(6400, 6400, "L")) is None  # 41 MP of grey: 39 MiB
    assert image_refusal(png_bomb(7000, 7000, "L")) == TOO_LARGE
    assert image_refusal(image_bytes("JPEG")) is None
    assert image_refusal(b"\x89PNG\r\n\x1a\njunk") == UNREADABLE
