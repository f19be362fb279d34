"""Image loading: real images come back with their size; anything else is None, not an error."""

from __future__ import annotations

import base64
import io
import logging
import struct
import zlib
from typing import Any

import pytest
from PIL import Image

from core.engine.fetch import FetchPolicy
from core.engine.images import LoadedImage, load_image

LOCAL = FetchPolicy(allow_networks=("127.0.0.0/8",))


def image_bytes(image_format: str, size: tuple[int, int] = (3, 2)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, format=image_format)
    return buffer.getvalue()


def data_url(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"


def png_header_only(width: int, height: int) -> bytes:
    """A structurally valid PNG that claims a size without carrying the pixels."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload))
        return struct.pack(">I", len(payload)) + kind + payload + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )


def test_load_image_returns_size_of_served_png(fetch_http_server: Any) -> None:
    png = image_bytes("PNG")
    fetch_http_server.respond("/logo.png", png, content_type="image/png")

    loaded = load_image(fetch_http_server.url("/logo.png"), LOCAL)

    assert loaded == LoadedImage(
        data=png, format="PNG", width=3, height=2, content_type="image/png"
    )
    assert fetch_http_server.requests[0]["accept"] == "image/*"


@pytest.mark.parametrize(
    ("image_format", "content_type"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_load_image_from_data_url(image_format: str, content_type: str) -> None:
    data = image_bytes(image_format, size=(5, 4))

    loaded = load_image(data_url(content_type, data), FetchPolicy())

    assert loaded == LoadedImage(
        data=data, format=image_format, width=5, height=4, content_type=content_type
    )


def test_load_image_reports_actual_format_not_served_type(fetch_http_server: Any) -> None:
    jpeg = image_bytes("JPEG")
    fetch_http_server.respond("/photo", jpeg, content_type="image/png")

    loaded = load_image(fetch_http_server.url("/photo"), LOCAL)

    assert loaded is not None
    assert (loaded.format, loaded.content_type) == ("JPEG", "image/jpeg")


def test_load_image_returns_none_for_non_image_served_as_png(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/fake.png", b"<html>not an image</html>", content_type="image/png")

    assert load_image(fetch_http_server.url("/fake.png"), LOCAL) is None


def test_load_image_returns_none_for_html(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/page", image_bytes("PNG"), content_type="text/html")

    assert load_image(fetch_http_server.url("/page"), LOCAL) is None


def test_load_image_returns_none_for_truncated_png() -> None:
    png = image_bytes("PNG", size=(40, 40))

    assert load_image(data_url("image/png", png[: len(png) // 2]), FetchPolicy()) is None


def test_load_image_returns_none_when_bytes_reach_cap(fetch_http_server: Any) -> None:
    png = image_bytes("PNG")
    fetch_http_server.respond("/logo.png", png, content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_bytes=len(png))

    assert load_image(fetch_http_server.url("/logo.png"), policy) is None


def test_load_image_returns_none_over_pixel_cap() -> None:
    url = data_url("image/png", image_bytes("PNG", size=(3, 2)))

    assert load_image(url, FetchPolicy(), max_pixels=5) is None
    assert load_image(url, FetchPolicy(), max_pixels=6) is not None


@pytest.mark.parametrize("side", [8_000, 20_000])  # 64 MP: our cap; 400 MP: Pillow's bomb guard
def test_load_image_returns_none_for_decompression_bomb(side: int) -> None:
    assert load_image(data_url("image/png", png_header_only(side, side)), FetchPolicy()) is None


def test_load_image_returns_none_for_format_not_embeddable() -> None:
    assert load_image(data_url("image/tiff", image_bytes("TIFF")), FetchPolicy()) is None


def test_load_image_refuses_svg_unless_asked() -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'
    url = data_url("image/svg+xml", svg)

    assert load_image(url, FetchPolicy()) is None
    assert load_image(url, FetchPolicy(), allow_svg=True) == LoadedImage(
        data=svg, format="SVG", width=None, height=None, content_type="image/svg+xml"
    )


def test_load_image_refuses_svg_type_without_svg_content() -> None:
    url = data_url("image/svg+xml", b"plain text")

    assert load_image(url, FetchPolicy(), allow_svg=True) is None


def test_load_image_returns_none_for_private_address_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="core.engine")

    loaded = load_image("http://169.254.169.254/latest/meta-data/", FetchPolicy())

    assert loaded is None
    assert [(r.name, r.levelno) for r in caplog.records if r.name.startswith("core.engine")] == [
        ("core.engine.fetch", logging.WARNING),
        ("core.engine.images", logging.WARNING),
    ]
