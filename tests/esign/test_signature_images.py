"""A signer's drawn signature is a PNG of a signing pad's size (issue 32): refused by its declared
size before it is decoded, and a PNG that does not decode (the magic bytes, then junk) is a 400
in the wire shape with nothing stored, where it used to be a 500 from the stamping after the
signature was stored."""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from PIL import Image, ImageDraw

from esign.engine.signature_image import (
    EMPTY,
    TOO_LARGE,
    UNREADABLE,
    SignatureImageUnusable,
    signature_image,
)
from tests.esign.conftest import sign
from tests.esign.test_signing_limits import GOOD, assert_nothing_stored, first_signer  # noqa: F401
from tests.image_bombs import png_bomb
from tests.memory import web_process_growth

MB = 1_048_576
GROWTH_BOUND = 200 * MB
JUNK = b"\x89PNG\r\n\x1a\n" + b"junk" * 50


def drawn(data: bytes) -> dict[str, Any]:
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    return {"signature": {"drawn": url}, "values": GOOD}


def pad_export(width: int, height: int) -> bytes:
    """What the signing page's pad exports: ink on transparency."""
    image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    ImageDraw.Draw(image).line([(5, height - 5), (width - 5, 5)], fill=(0, 0, 0, 255), width=6)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def assert_no_signature_stored() -> None:
    assert not default_storage.exists("signatures") or default_storage.listdir("signatures") == (
        [],
        [],
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (JUNK, UNREADABLE),
        (png_bomb(7600, 7600, "RGB"), TOO_LARGE),
        (png_bomb(7000, 7000, "RGBA"), TOO_LARGE),
    ],
    ids=["junk after the magic bytes", "RGB 7600x7600", "RGBA 7000x7000"],
)
def test_an_unusable_drawn_signature_is_a_400_with_nothing_stored(
    first_signer: tuple[str, str],  # noqa: F811 - the fixture imported above
    data: bytes,
    message: str,
) -> None:
    eid, token = first_signer

    with web_process_growth(tree=True) as figures:
        response = sign(Client(), eid, token, drawn(data))

    assert response.status_code == 400, response.content
    assert response.json() == {
        "name": "ValidationError",
        "fields": [{"property": "signature.drawn", "message": message}],
    }
    assert_nothing_stored(eid)
    assert_no_signature_stored()
    assert figures["growth"] < GROWTH_BOUND


@pytest.mark.django_db
def test_the_largest_pad_export_is_taken(first_signer: tuple[str, str]) -> None:  # noqa: F811
    eid, token = first_signer

    response = sign(Client(), eid, token, drawn(pad_export(1600, 730)))

    assert response.status_code == 200, response.content


def test_a_signature_is_refused_by_its_declared_size_before_decoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_decoding(*args: Any) -> None:
        raise AssertionError("decoded")

    monkeypatch.setattr(Image.Image, "load", no_decoding)
    for width, height in ((2001, 1000), (4001, 10), (7600, 7600)):
        with pytest.raises(SignatureImageUnusable, match=TOO_LARGE):
            signature_image(png_bomb(width, height, "L"))


def test_a_signature_is_cropped_to_its_ink_or_refused() -> None:
    image = Image.new("RGBA", (2000, 1000), (0, 0, 0, 0))  # at the cap: 2 MP
    ImageDraw.Draw(image).rectangle([10, 20, 1909, 969], fill=(0, 0, 0, 255))
    out = io.BytesIO()
    image.save(out, format="PNG")

    cropped = signature_image(out.getvalue())

    assert (cropped.format, cropped.width, cropped.height) == ("PNG", 1900, 950)
    for data, message in ((JUNK, UNREADABLE), (png_bomb(300, 100, "RGBA"), EMPTY)):
        with pytest.raises(SignatureImageUnusable, match=message):
            signature_image(data)
