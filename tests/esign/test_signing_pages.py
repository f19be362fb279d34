"""The signing page's documents: pages drawn on the server as pictures (esign.engine.pages),
served only to the link's signer, in the widths the page offers, named by the document's
version; and the page that lays them out, with no PDF reader."""

from __future__ import annotations

import base64
import gzip
import io
import json
import posixpath
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from PIL import Image

from esign.engine.errors import PageUnavailable
from esign.engine.pages import PAGE_WIDTHS, page_boxes, page_width, render_page
from esign.models import PacketDocument
from tests.esign.conftest import contract_pdf, token_of, two_signer_packet

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
    assert "{#" not in html  # no template comment shown as text
    version = PacketDocument.objects.get(packet__signers__eid=signer).current_sha256[:16]
    # Only the first page's picture is in the HTML (asked for before any script runs), at most
    # twice the column's width on a phone of DPR 3 (the sizes' "* 2 / 3"); the script lays out
    # the others from the config's runs of equal pages.
    sources = re.findall(r'<img class="sg-canvas" alt="" src="([^"]+)"', html)
    assert [s.split("?")[0] for s in sources] == [
        f"/api/etch/sign/{signer}/documents/agreement/pages/0.webp",
    ]
    assert sources[0].replace("&amp;", "&").endswith(f"?w=800&v={version}&token={token}")
    assert html.count('fetchpriority="high"') == 1
    assert html.count(" 1760w") == 1
    assert 'sizes="(min-resolution: 2.01dppx) and (min-width: 912px) 587px' in html
    [document] = config_of(html)["documents"]
    assert document["pagesUrl"] == f"/api/etch/sign/{signer}/documents/agreement/pages/"
    assert document["version"] == version
    assert document["pageCount"] == 2
    assert document["pages"] == [{"view": [0, 0, 612, 792], "rotate": 0, "count": 2}]

    second = f"{document['pagesUrl']}1.webp?w=700&v={version}&token={token}"
    picture = client.get(second)
    assert picture.status_code == 200
    assert picture["Content-Type"] == "image/webp"
    assert picture["Cache-Control"] == "private, max-age=86400"
    assert Image.open(io.BytesIO(picture.content)).size == (800, 1036)


def config_of(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="signing-config" type="application/json">(.*?)</script>', html)
    assert found
    return json.loads(found.group(1))


def test_a_200_page_packets_page_is_as_small_as_a_2_page_ones_and_compressed(
    create_packet: Any, sign_url: Any
) -> None:
    sizes = {}
    for pages in (2, 200):
        packet = create_packet(files=[{**two_signer_packet()["files"][0], "file": upload(pages)}])
        signer = packet["documentGroup"]["signers"][0]["eid"]
        url = f"/api/etch/verify/{signer}?token={token_of(sign_url(signer))}"
        plain = Client().get(url)
        assert "Content-Encoding" not in plain
        html = plain.content.decode()
        assert config_of(html)["documents"][0]["pageCount"] == pages
        sizes[pages] = len(plain.content)
        compressed = Client().get(url, HTTP_ACCEPT_ENCODING="gzip")
        assert compressed["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in compressed["Vary"]
        assert gzip.decompress(compressed.content).decode().count('class="sg-canvas"') == 1
        assert len(compressed.content) < len(plain.content) / 2
    # The same but for two more digits in four places: "200 pages", "page 1 of 200", the
    # config's pageCount and its run's count.
    assert sizes[200] - sizes[2] == 8


def upload(pages: int) -> dict[str, str]:
    return {
        "data": base64.b64encode(contract_pdf(pages)).decode(),
        "filename": "agreement.pdf",
        "mimetype": "application/pdf",
    }


def test_pictures_need_the_signers_own_valid_link(create_packet: Any, sign_url: Any) -> None:
    client = Client()
    signer, token, _ = _page(client, create_packet, sign_url)
    url = f"/api/etch/sign/{signer}/documents/agreement/pages/0.webp"
    refused = client.get(f"{url}?token=not-the-token")
    assert (refused.status_code, refused.json()["name"]) == (403, "tokenInvalid")
    assert client.get(url).status_code == 403
    missing = client.get(f"/api/etch/sign/{signer}/documents/agreement/pages/2.webp?token={token}")
    assert (missing.status_code, missing.json()) == (
        404,
        {"name": "NotFoundError", "message": "No such page."},
    )
    other = client.get(f"/api/etch/sign/{signer}/documents/nope/pages/0.webp?token={token}")
    assert other.status_code == 404
    bad_width = client.get(f"{url}?token={token}&w=wide")
    assert bad_width.status_code == 404
    assert client.get(f"{url}?token={token}").status_code == 200


def test_the_page_preloads_every_module_sign_js_imports(create_packet: Any, sign_url: Any) -> None:
    """A module is otherwise found only once the one importing it has arrived: a round trip
    per level of imports before the page can show its first page."""
    static = Path(settings.BASE_DIR) / "static"
    roots = {"esign": Path(settings.BASE_DIR) / "esign" / "static" / "esign"}
    graph, todo = set(), ["esign/sign.js"]
    while todo:
        module = todo.pop()
        if module in graph:
            continue
        graph.add(module)
        folder, name = module.split("/", 1)
        source = (roots.get(folder, static / folder) / name).read_text()
        for imported in re.findall(
            r'^import .* from "(\.\.?/[^"]+|#[^"]+)";$', source, re.MULTILINE
        ):
            # "#common/dom.js": a shared module named through the import map (core.importmap).
            shared = imported.startswith("#")
            todo.append(
                imported[1:] if shared else posixpath.normpath(posixpath.join(folder, imported))
            )
    html = _page(Client(), create_packet, sign_url)[2].content.decode()
    preloaded = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)">', html)
    assert sorted(preloaded) == sorted(graph)
