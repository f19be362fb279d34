"""POST /api/v1/generate-pdf when a document cannot be made: the page and time caps, and the
renderer's failures as the service reports them (the wire shape, a 422 naming the part, a dead
worker, a catalog font that cannot be fetched)."""

from __future__ import annotations

import pytest

from generate.engine import (
    RenderBusy,
    RenderCrashed,
    RenderFailed,
    RenderOutOfMemory,
    RenderUnavailable,
)
from tests.generate.conftest import generate_pdf, page_texts, post
from tests.generate.test_api import HTML_PAYLOAD, MARKDOWN_PAYLOAD

pytestmark = pytest.mark.django_db


# -- caps ---------------------------------------------------------------------------------------


def test_a_document_over_the_page_cap_is_refused(production_client, settings) -> None:
    settings.GENERATE_MAX_PAGES = 3
    body = "".join(f"<p style='page-break-before: always'>Page {i}</p>" for i in range(50))
    response = post(production_client, {"type": "html", "data": {"html": body}})

    assert response.status_code == 422
    assert response.json() == {
        "name": "UnprocessableDocumentError",
        "message": "The document would have 4 pages; the limit is 3.",
    }
    settings.GENERATE_MAX_PAGES = 50
    assert (
        len(page_texts(generate_pdf(production_client, {"type": "html", "data": {"html": body}})))
        == 50
    )


def test_a_document_over_the_time_cap_is_stopped(production_client, settings, asset_server) -> None:
    # Waiting for images costs no CPU time: the wall-clock backstop stops it.
    settings.GENERATE_WALL_TIMEOUT_SECONDS = 1.0
    for index in range(3):
        asset_server.serve(f"/slow{index}.png", b"", "image/png", delay=1.5)
    body = "".join(f'<img src="{asset_server.url(f"/slow{index}.png")}">' for index in range(3))

    response = post(production_client, {"type": "html", "data": {"html": body}})

    assert response.status_code == 422
    assert response.json() == {
        "name": "UnprocessableDocumentError",
        "message": "The document took longer than 1 seconds to render and was stopped.",
    }
    # The killed worker is replaced: the next document renders.
    assert "Hello HTML" in page_texts(generate_pdf(production_client, HTML_PAYLOAD))[0]


# -- renderer failures, as the service reports them ---------------------------------------------


class _FailingPool:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def run(self, job: object, *, timeout: float, queue_timeout: float, **_: object) -> object:
        raise self.error

    render = run


@pytest.mark.parametrize(
    ("error", "status", "body"),
    [
        (RenderBusy(30), 503, {"name": "ServiceBusyError", "message": "Every PDF renderer is busy; try again shortly."}),
        (RenderOutOfMemory(512 * 2**20), 422, {"name": "UnprocessableDocumentError", "message": "The document needs more memory to render than is allowed (512 MB); large images and very long tables need the most."}),
        (RenderOutOfMemory(), 422, {"name": "UnprocessableDocumentError", "message": "The document needs more memory to render than is allowed; large images and very long tables need the most."}),
        (RenderFailed("ZeroDivisionError\n  File ...", "while writing the PDF"), 422, {"name": "UnprocessableDocumentError", "message": "The document could not be rendered: the renderer failed while writing the PDF."}),
        (RenderFailed("ZeroDivisionError\n  File ..."), 422, {"name": "UnprocessableDocumentError", "message": "The document could not be rendered: the renderer failed on something in its HTML or CSS."}),
        (RenderCrashed("the render worker was killed by signal 11"), 422, {"name": "UnprocessableDocumentError", "message": "The document could not be rendered: the renderer stopped while rendering it, most likely out of memory. Very long tables and large images need the most."}),
        (RenderUnavailable("the render worker did not start in time"), 503, {"name": "ServiceBusyError", "message": "The PDF renderer could not be started; try again shortly."}),
    ],
)  # fmt: skip
def test_render_failures_in_the_wire_shape(
    production_client, monkeypatch, error, status, body
) -> None:
    monkeypatch.setattr("generate.services.render_pool", lambda: _FailingPool(error))

    response = post(production_client, MARKDOWN_PAYLOAD)

    assert response.status_code == status
    assert response.json() == body


@pytest.mark.parametrize(
    ("body", "css", "message"),
    [
        # WeasyPrint 70 fails on attr() as an image URL, and on a table cell as a running element.
        (
            '<p data-logo="https://example.com/logo.png">Text</p>',
            "p { color: #333; background-image: attr(data-logo url) }",
            "The document could not be rendered: the renderer failed on the CSS declaration "
            "`background-image: attr(data-logo url)`.",
        ),
        (
            '<p style="break-after: page">One</p><table><tr><td id="total">9</td></tr></table>',
            "td { position: running(total) } @page { @top-right { content: element(total) } }",
            "The document could not be rendered: the renderer failed while laying out a "
            '<td id="total"> element on page 2.',
        ),
    ],
)
def test_a_document_the_renderer_fails_on_is_a_422_naming_the_part(
    production_client, caplog, body, css, message
) -> None:
    response = post(production_client, {"type": "html", "data": {"html": body, "css": css}})

    assert response.status_code == 422
    assert response.json() == {"name": "UnprocessableDocumentError", "message": message}
    for internal in ("Error", "Traceback", ".py", "weasyprint", "site-packages"):
        assert internal not in message
    assert "document refused (render_failed)" in caplog.text  # the frames go to the log
    # The worker that failed is replaced: the next document renders.
    assert "Hello HTML" in page_texts(generate_pdf(production_client, HTML_PAYLOAD))[0]


def test_a_dead_worker_is_a_422_and_how_it_died_is_logged(
    production_client, monkeypatch, caplog
) -> None:
    # A real worker's death: tests/generate/test_render_crashes.py.
    monkeypatch.setattr(
        "generate.services.render_pool",
        lambda: _FailingPool(RenderCrashed("the render worker was killed by signal 9")),
    )

    response = post(production_client, MARKDOWN_PAYLOAD)

    assert response.status_code == 422
    assert response.json()["name"] == "UnprocessableDocumentError"
    assert "signal" not in response.json()["message"]
    assert "killed by signal 9" in caplog.text


def test_a_catalog_font_that_cannot_be_fetched_is_a_503(
    production_client, settings, tmp_path, asset_server
) -> None:
    settings.FONT_CACHE_DIR = tmp_path / "fonts"
    settings.FONT_CATALOG_BASE_URL = asset_server.url("/")  # serves nothing: every file is a 404

    response = post(production_client, {"data": [{"content": "x"}], "fontFamily": "Fira Sans"})

    assert response.status_code == 503
    assert response.json() == {
        "name": "FontUnavailableError",
        "message": 'Font family "Fira Sans" could not be fetched.',
    }
