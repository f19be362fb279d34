"""One fill has one deadline for all its images (FILL_IMAGE_DEADLINE_SECONDS): images still
loading then are left out, like any image that cannot be loaded, and the PDF is made."""

from __future__ import annotations

import io
from http.server import BaseHTTPRequestHandler

from PIL import Image

from tests.fill.conftest import spec_field
from tests.pdfcheck import dark_pixels, render


def black_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (30, 10), (0, 0, 0)).save(buffer, "PNG")
    return buffer.getvalue()


def test_slow_images_share_one_deadline(demo_template, fill, fetch_http_server, settings) -> None:
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    settings.FETCH_DEADLINE_SECONDS = 3.0
    settings.FILL_IMAGE_DEADLINE_SECONDS = 1.5
    fetch_http_server.respond("/fast.png", black_png(), content_type="image/png")

    def never_answers(request: BaseHTTPRequestHandler) -> None:
        fetch_http_server.stopping.wait(10)

    fetch_http_server.route("/slow.png", never_answers)
    # A whole-PDF repeat: one page per document, the first with an image that loads at once,
    # then 60 slow ones. Eight at a time, three seconds each, they would take 23 seconds.
    documents = [{"photo": fetch_http_server.url("/fast.png")}]
    documents += [{"photo": fetch_http_server.url(f"/slow.png?n={n}")} for n in range(60)]

    response = fill(demo_template, {"data": documents})

    assert response.status_code == 200, response.content[:300]
    # Not timed (the 61-page fill itself takes seconds on a loaded machine): counted. Those not
    # started by the deadline were never asked for: the first eight (a second eight only if the
    # first took their 3 s, on a machine too loaded to start the fill in time), not all 60.
    slow_requests = [r for r in fetch_http_server.requests if r["path"].startswith("/slow.png")]
    assert len(slow_requests) <= 16
    rect = spec_field(demo_template, "photo")["rect"]
    pages = [render(response.content, page=index) for index in (0, 1)]
    assert dark_pixels(pages[0], rect, 792) > 200  # the fast image is drawn
    assert dark_pixels(pages[1], rect, 792) == 0  # a slow one is left out
