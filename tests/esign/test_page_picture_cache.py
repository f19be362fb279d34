"""The signing page draws its first page's picture while the browser reads the HTML, and the
picture's request takes it drawn (esign.signing.page_pictures): on a busy machine drawing it was
what kept a phone from showing the first page of a long packet within 2 s."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.test import Client

from core.blobs import blob_read
from esign.engine.errors import PageUnavailable
from esign.engine.pages import render_page
from esign.models import PacketDocument
from esign.signing import page_pictures
from tests.esign.conftest import token_of

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_pictures(settings: Any, tmp_path: Any) -> None:
    """A picture kept by another test (of the same content) is not drawn here."""
    settings.DATA_DIR = tmp_path


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The pictures drawn, as (page, width), in this process."""
    calls: list[tuple[int, int]] = []

    def counting(pdf: bytes, *, index: int, width: int) -> bytes:
        calls.append((index, width))
        return render_page(pdf, index=index, width=width)

    monkeypatch.setattr(page_pictures, "render_page", counting)
    return calls


def wait_for_drawing_ahead() -> None:
    for thread in threading.enumerate():
        if thread.name == "page-picture":
            thread.join(timeout=60)


def test_the_first_pages_picture_is_drawn_while_the_html_is_read(
    create_packet: Any, sign_url: Any, drawn: list[tuple[int, int]]
) -> None:
    client = Client()
    signer = create_packet()["documentGroup"]["signers"][0]["eid"]
    token = token_of(sign_url(signer))
    document = PacketDocument.objects.get(packet__signers__eid=signer)

    assert client.get(f"/api/etch/verify/{signer}?token={token}").status_code == 200
    wait_for_drawing_ahead()
    assert drawn == [(0, 800)]  # before anyone asked for it

    url = f"/api/etch/sign/{signer}/documents/agreement/pages/0.webp"
    picture = client.get(f"{url}?w=800&token={token}")
    again = client.get(f"{url}?w=800&token={token}")
    other_width = client.get(f"{url}?w=1200&token={token}")

    assert drawn == [(0, 800), (0, 1200)]  # the 800 px one was kept, not drawn again
    assert picture.status_code == again.status_code == 200
    assert picture.content == again.content
    stored = blob_read(document.current_path, document.current_sha256)
    assert picture.content == render_page(stored, index=0, width=800)
    assert other_width.content != picture.content
    # A second visit finds it kept: nothing is drawn ahead again.
    assert client.get(f"/api/etch/verify/{signer}?token={token}").status_code == 200
    wait_for_drawing_ahead()
    assert drawn == [(0, 800), (0, 1200)]


def test_one_drawing_serves_requests_that_came_during_it(
    create_packet: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = PacketDocument.objects.get(
        packet__signers__eid=create_packet()["documentGroup"]["signers"][0]["eid"]
    )
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow(pdf: bytes, *, index: int, width: int) -> bytes:
        calls.append(index)
        started.set()
        assert release.wait(timeout=60)
        return render_page(pdf, index=index, width=width)

    monkeypatch.setattr(page_pictures, "render_page", slow)
    results: list[bytes] = []

    def ask() -> None:
        results.append(
            page_pictures.page_picture(
                path=document.current_path, sha256=document.current_sha256, page=0, width=600
            )
        )

    threads = [threading.Thread(target=ask) for _ in range(3)]
    threads[0].start()
    assert started.wait(timeout=60)
    for thread in threads[1:]:
        thread.start()
    release.set()
    for thread in threads:
        thread.join(timeout=60)

    assert calls == [0]
    assert len(results) == 3
    assert len(set(results)) == 1


def test_a_missing_page_is_refused_and_nothing_is_kept(
    create_packet: Any, drawn: list[tuple[int, int]]
) -> None:
    document = PacketDocument.objects.get(
        packet__signers__eid=create_packet()["documentGroup"]["signers"][0]["eid"]
    )
    for _ in range(2):
        with pytest.raises(PageUnavailable):
            page_pictures.page_picture(
                path=document.current_path, sha256=document.current_sha256, page=9, width=800
            )
    assert drawn == [(9, 800), (9, 800)]
