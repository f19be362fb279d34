"""The signing page's documents: pages drawn on the server as pictures (esign.engine.pages),
served only to the link's signer, in the widths the page offers, named by the document's
version; and the page that lays them out, with no PDF reader."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.test import Client
from PIL import Image

from esign.engine.errors import PageUnavailable
from esign.engine.pages import PAGE_WIDTHS, page_boxes, page_width, render_page
from esign.models import PacketDocument
from tests.esign.conftest import contract_pdf, token_of

pytestmark = pytest.mark.django_db


def test_page_boxes_and_pictures_follow_the_page_rotation() -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(contract_pdf())))
    writer.pages[0].rotate(90)
    out = io.BytesIO()
    writer.write(out)
    turned = out.getvalue()
    first, second = page_boxes(turned)
    assert (first.view, first.rotate, first.width, first.height) == ((0, 0, 612, 792), 90, 792, 612)
    assert (second.rotate, second.width, second.height) == (0, 612, 792)
    image = Image.open(io.BytesIO(render_page(turned, index=0, width=800)))
    assert (image.format, image.size) == ("WEBP", (800, 619))
    with pytest.raises(PageUnavailable):
        render_page(turned, index=2, width=800)
    with pytest.raises(PageUnavailable):
        page_boxes(b"%PDF-1.7 not really")


def test_widths_are_rounded_up_to_those_offered() -> None:
    assert [page_width(w) for w in (1, 480, 481, 800, 1199, 5000)] == [
        480,
        480,
        800,
        800,
        1200,
        PAGE_WIDTHS[-1],
    ]


def _page(client: Client, create_packet: Any, sign_url: Any) -> tuple[str, str, Any]:
    packet = create_packet()
    signer = packet["documentGroup"]["signers"][0]["eid"]
    token = token_of(sign_url(signer))
    response = client.get(f"/api/etch/verify/{signer}?token={token}")
    assert response.status_code == 200
    return signer, token, response


def test_the_page_lays_out_every_page_as_a_picture_and_loads_no_pdf_reader(
    create_packet: Any, sign_url: Any
) -> None:
    client = Client()
    signer, token, response = _page(client, create_packet, sign_url)
    html = response.content.decode()
    assert "pdfjs" not in html
    assert "pdf.worker" not in html
    version = PacketDocument.objects.get(packet__signers__eid=signer).current_sha256[:16]
    sources = re.findall(r'<img class="sg-canvas" alt="" src="([^"]+)"', html)
    assert [s.split("?")[0] for s in sources] == [
        f"/api/etch/sign/{signer}/documents/agreement/pages/0.webp",
        f"/api/etch/sign/{signer}/documents/agreement/pages/1.webp",
    ]
    assert sources[0].replace("&amp;", "&").endswith(f"?w=800&v={version}&token={token}")
    assert html.count('fetchpriority="high"') == 1  # the first page, at once
    assert html.count('loading="lazy"') == 1  # the others when near the view
    assert html.count(" 1760w") == 2

    picture = client.get(sources[1].replace("&amp;", "&").replace("w=800", "w=700"))
    assert picture.status_code == 200
    assert picture["Content-Type"] == "image/webp"
    assert picture["Cache-Control"] == "private, max-age=86400"
    assert Image.open(io.BytesIO(picture.content)).size == (800, 1036)


def test_pictures_need_the_signers_own_valid_link(create_packet: Any, sign_url: Any) -> None:
    client = Client()
    signer, token, _ = _page(client, create_packet, sign_url)
    url = f"/api/etch/sign/{signer}/documents/agreement/pages/0.webp"
    refused = client.get(f"{url}?token=not-the-token")
    assert (refused.status_code, refused.json()["errorType"]) == (403, "tokenInvalid")
    assert client.get(url).status_code == 403
    missing = client.get(f"/api/etch/sign/{signer}/documents/agreement/pages/2.webp?token={token}")
    assert (missing.status_code, missing.json()["errorType"]) == (404, "notFound")
    other = client.get(f"/api/etch/sign/{signer}/documents/nope/pages/0.webp?token={token}")
    assert other.status_code == 404
    bad_width = client.get(f"{url}?token={token}&w=wide")
    assert bad_width.status_code == 404
    assert client.get(f"{url}?token={token}").status_code == 200
