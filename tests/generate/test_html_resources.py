"""What an HTML-mode document loads, checked in the PDF: the default font stack, TrueType fonts
from a server (and the fonts it ignores), relative URLs skipped, images from a server, data URIs
and inline SVG, and the images it does not load (redirects, slow, broken, private addresses,
local files)."""

from __future__ import annotations

import base64
import io

import pytest
from fontTools.ttLib import TTFont

from tests.fixtures import HTML
from tests.generate.conftest import (
    fonts,
    generate_pdf,
    layout_texts,
    page_image,
    page_texts,
    reader,
)
from tests.generate.test_html import html

pytestmark = pytest.mark.django_db

PACIFICO = HTML / "weasyprint-letter" / "fonts" / "Pacifico-Regular.ttf"


# -- fonts --------------------------------------------------------------------------------------


def test_default_font_stack_is_noto_sans_with_cjk(production_client) -> None:
    pdf = generate_pdf(production_client, html("<p>Hello 日本語 中文 한국어</p>"))

    assert fonts(pdf) == {"Noto-Sans", "Noto-Sans-CJK-SC"}
    assert "日本語 中文 한국어" in page_texts(pdf)[0]


def _woff(ttf: bytes) -> bytes:
    font = TTFont(io.BytesIO(ttf))
    font.flavor = "woff"
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def test_ttf_font_face_from_a_server_is_used(production_client, asset_server) -> None:
    url = asset_server.serve("/pacifico.ttf", PACIFICO.read_bytes(), "font/ttf")
    css = f'@font-face {{ font-family: Fancy; src: url("{url}") }} p {{ font-family: Fancy }}'
    pdf = generate_pdf(production_client, html("<p>Fancy text</p>", css))

    # WeasyPrint names an embedded font after its @font-face family.
    assert fonts(pdf) == {"Fancy"}
    assert "/pacifico.ttf" in asset_server.requests


def test_ttf_served_as_x_font_ttf_through_import_is_used(production_client, asset_server) -> None:
    font_url = asset_server.serve("/f.ttf", PACIFICO.read_bytes(), "application/x-font-ttf")
    sheet = f'@font-face {{ font-family: Fancy; src: url("{font_url}") format("truetype") }}'
    css_url = asset_server.serve("/fonts.css", sheet.encode(), "text/css")
    css = f'@import url("{css_url}"); p {{ font-family: Fancy, "Noto Sans" }}'
    pdf = generate_pdf(production_client, html("<p>Imported</p>", css))

    assert fonts(pdf) == {"Fancy"}


@pytest.mark.parametrize(
    ("path", "content_type", "transform"),
    [
        ("/font.woff", "font/woff", _woff),
        ("/woff-labelled-ttf.ttf", "font/ttf", _woff),
        ("/octet.ttf", "application/octet-stream", lambda data: data),
        ("/font.otf", "font/otf", lambda data: data),
    ],
    ids=["woff", "woff-claiming-ttf", "wrong-content-type", "otf-type"],
)
def test_fonts_that_are_not_ttf_served_right_are_ignored(
    production_client, asset_server, path, content_type, transform
) -> None:
    url = asset_server.serve(path, transform(PACIFICO.read_bytes()), content_type)
    css = f'@font-face {{ font-family: Fancy; src: url("{url}") }} p {{ font-family: Fancy, "Noto Sans" }}'
    pdf = generate_pdf(production_client, html("<p>Plain text</p>", css))

    assert path in asset_server.requests
    assert fonts(pdf) == {"Noto-Sans"}
    assert "Plain text" in page_texts(pdf)[0]


# -- relative URLs ------------------------------------------------------------------------------

# The document has no address, so none of these can load; like a browser, the renderer skips each
# and renders the rest.
RELATIVE_HTML = """<html><head>
<link rel="stylesheet" href="style.css">
<style>
@import "common.css";
@import url(more.css);
.shout { text-transform: uppercase }
.lead { background: #ff0000 url(bg.jpg); font-style: italic }
.lead::before { content: "Before " }
a::after { content: " (page " target-counter(attr(href url), page) ")" }
</style></head><body>
<p class="shout">loud words</p>
<p class="lead">lead text</p>
<img src="logo.png" alt="Company logo">
<p style="background-image: url(bg.jpg)">Tail paragraph <a href="other.html">elsewhere</a></p>
</body></html>"""
RELATIVE_CSS = "@import url(extra.css); .tail { text-transform: uppercase }"


def test_relative_urls_are_skipped_and_the_rest_renders(production_client) -> None:
    body = RELATIVE_HTML.replace("<p style", '<p class="tail" style')
    pdf = generate_pdf(production_client, html(body, RELATIVE_CSS))

    lines = [line.strip() for line in layout_texts(pdf)[0].splitlines() if line.strip()]
    # The <style> rules after the <link> and both @imports apply, ::before included; the rule
    # whose background image cannot load keeps its colour and its other declarations; the image
    # gives way to its alt text; data.css applies after its @import; a target-counter() of a link
    # to another document counts nothing (WeasyPrint drops the rest of that content).
    assert lines == [
        "LOUD WORDS",
        "Before lead text",
        "Company logo",
        "TAIL PARAGRAPH ELSEWHERE (PAGE",
    ]
    assert _red_pixels(pdf) > 100
    assert any("Italic" in name for name in fonts(pdf))
    assert len(reader(pdf).pages[0].images) == 0


# -- images -------------------------------------------------------------------------------------

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" fill="#ff0000"/></svg>'


def _red_pixels(pdf: bytes) -> int:
    image = page_image(pdf, dpi=30)
    return sum(1 for r, g, b in image.get_flattened_data() if r > 200 and g < 60 and b < 60)


def _png(color: tuple[int, int, int] = (255, 0, 0), size: int = 60) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (size, size), color).save(out, "PNG")
    return out.getvalue()


def test_inline_svg_with_xmlns_and_svg_data_uri_are_drawn(production_client) -> None:
    data_uri = "data:image/svg+xml;base64," + base64.b64encode(SVG.encode()).decode()
    inline = generate_pdf(production_client, html(SVG))
    as_image = generate_pdf(production_client, html(f'<img src="{data_uri}">'))
    nothing = generate_pdf(production_client, html("<p>no image</p>"))

    assert _red_pixels(inline) > 100
    assert _red_pixels(as_image) > 100
    assert _red_pixels(nothing) == 0


def test_images_load_from_a_server_and_from_data_uris(production_client, asset_server) -> None:
    url = asset_server.serve("/red.png", _png(), "image/png")
    data_uri = "data:image/png;base64," + base64.b64encode(_png((0, 0, 255))).decode()
    pdf = generate_pdf(production_client, html(f'<img src="{url}"><img src="{data_uri}">'))

    assert len(reader(pdf).pages[0].images) == 2


def test_redirects_slow_and_broken_images_are_skipped(production_client, asset_server) -> None:
    target = asset_server.serve("/real.png", _png(), "image/png")
    asset_server.serve("/moved.png", b"", "text/plain", status=302, headers={"Location": target})
    asset_server.serve("/slow.png", _png(), "image/png", delay=2.5)
    asset_server.serve("/html.png", b"<html>nope</html>", "text/html")
    asset_server.serve("/garbage.png", b"not a png at all", "image/png")
    body = "".join(
        f'<img src="{asset_server.url(path)}">'
        for path in ("/moved.png", "/slow.png", "/html.png", "/garbage.png", "/missing.png")
    )
    pdf = generate_pdf(production_client, html(f"<p>Still rendered</p>{body}"))

    assert "/moved.png" in asset_server.requests
    assert "/real.png" not in asset_server.requests  # the redirect was not followed
    assert len(reader(pdf).pages[0].images) == 0
    assert "Still rendered" in page_texts(pdf)[0]


def test_private_addresses_and_local_files_are_not_loaded(
    production_client, asset_server, settings
) -> None:
    settings.FETCH_ALLOW_NETWORKS = []  # the default: loopback is refused
    url = asset_server.serve("/red.png", _png(), "image/png")
    body = f'<img src="{url}"><img src="file:///etc/passwd"><img src="/etc/hostname">'
    css = "@import url('file:///etc/passwd'); body { background: url('file:///etc/passwd') }"
    pdf = generate_pdf(production_client, html(f"<p>Rendered</p>{body}", css))

    assert asset_server.requests == []
    assert len(reader(pdf).pages[0].images) == 0
    assert "root:" not in page_texts(pdf)[0]
