"""POST /api/v1/generate-pdf: the edge (bodies, keys, errors in the wire shapes), watermark, caps."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.payload_keys import payload_key_create
from core.engine.payload_crypto import encrypt_payload
from generate.engine import (
    RenderBusy,
    RenderCrashed,
    RenderFailed,
    RenderOutOfMemory,
    RenderUnavailable,
)
from tests.generate.conftest import URL, generate_pdf, page_image, page_texts, post, reader

pytestmark = pytest.mark.django_db

HTML_PAYLOAD = {"type": "html", "data": {"html": "<p>Hello HTML</p>", "css": "p { color: #333 }"}}
MARKDOWN_PAYLOAD = {"data": [{"label": "Hello", "content": "Markdown **body**"}]}


def fields(response) -> list[dict[str, str]]:  # noqa: ANN001
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["name"] == "ValidationError"
    return body["fields"]


def properties(response) -> list[str]:  # noqa: ANN001
    return [field["property"] for field in fields(response)]


# -- the edge -----------------------------------------------------------------------------------


def test_empty_body_is_required_data_exactly(api_client) -> None:
    for body in (b"", b"{}"):
        response = api_client.post(URL, data=body, content_type="application/json")

        assert response.status_code == 400
        assert response["Content-Type"] == "application/json"
        assert response.content == (
            b'{"name":"ValidationError","fields":[{"message":"Required","property":"data"}]}'
        )


@pytest.mark.parametrize("data", [None, ""])
def test_null_or_empty_data_is_required(api_client, data) -> None:
    response = post(api_client, {"data": data, "title": "x"})

    assert fields(response) == [{"message": "Required", "property": "data"}]


def test_a_body_that_is_not_an_object_is_refused(api_client) -> None:
    response = api_client.post(URL, data=b"[1, 2]", content_type="application/json")

    assert fields(response) == [
        {"message": "The request body must be a JSON object.", "property": ""}
    ]


def test_without_an_api_key_the_answer_is_401(client: Client) -> None:
    response = post(client, MARKDOWN_PAYLOAD)

    assert response.status_code == 401
    assert response.json() == {"name": "AuthorizationError", "message": "Not logged in."}


def test_only_post_is_allowed(api_client) -> None:
    response = api_client.get(URL)

    assert response.status_code == 405
    assert response.json()["name"] == "MethodNotAllowedError"


@pytest.mark.parametrize("accept", ["application/pdf", "*/*", None])
def test_html_and_markdown_with_the_accept_headers_clients_send(api_client, accept) -> None:
    extra = {"HTTP_ACCEPT": accept} if accept else {}
    for payload, text in ((HTML_PAYLOAD, "Hello HTML"), (MARKDOWN_PAYLOAD, "Markdown body")):
        response = post(api_client, payload, **extra)

        assert response.status_code == 200, response.content
        assert response["Content-Type"] == "application/pdf"
        assert response["X-RateLimit-Limit"]
        assert text in page_texts(response.content)[0]


def test_type_defaults_to_markdown(production_client) -> None:
    pdf = generate_pdf(production_client, {"data": [{"heading": "Default type"}]})

    assert "Default type" in page_texts(pdf)[0]


def test_multipart_body_with_each_property_a_part(production_client) -> None:
    response = production_client.post(
        URL,
        data={
            "type": "html",
            "title": "From parts",
            "data": json.dumps({"html": "<p>Multipart HTML</p>", "css": ""}),
            "page": json.dumps({"margin": "1in"}),
        },
        HTTP_ACCEPT="application/pdf",
    )

    assert response.status_code == 200, response.content
    assert "Multipart HTML" in page_texts(response.content)[0]
    assert reader(response.content).metadata.title == "From parts"


def test_large_payload_over_multipart_beyond_the_json_limit(production_client) -> None:
    text = "word " * 250_000  # 1.25 MB: over the JSON limit, fine as multipart
    json_body = json.dumps({"data": [{"content": text}]})
    json_response = post(production_client, {"data": [{"content": text}]})
    response = production_client.post(
        URL, data={"data": json.dumps([{"content": text[:2000]}, {"content": "x" * 1_200_000}])}
    )

    assert json_response.status_code == 413
    assert json_response.json() == {
        "name": "RequestTooLarge",
        "message": f"The request body is {len(json_body):,} bytes (1.3 MB); the limit is "
        "1,048,576 bytes (1 MiB). Send a larger payload as multipart/form-data.",
    }
    assert response.status_code == 200


def test_source_over_the_configured_cap_is_413(production_client, settings) -> None:
    settings.GENERATE_MAX_SOURCE_BYTES = 1000
    response = post(
        production_client, {"type": "html", "data": {"html": "x" * 600, "css": "y" * 600}}
    )

    assert response.status_code == 413
    assert response.json()["name"] == "RequestTooLarge"
    assert "1200 bytes" in response.json()["message"]


def test_encrypted_data_is_decrypted_with_the_organizations_key(
    production_client, organization
) -> None:
    pair = payload_key_create(organization=organization)
    secret = encrypt_payload({"html": "<p>Secret HTML</p>", "css": ""}, pair.public_pem.encode())
    response = post(production_client, {"type": "html", "data": secret, "title": "Encrypted"})

    assert response.status_code == 200, response.content
    assert "Secret HTML" in page_texts(response.content)[0]

    markdown = encrypt_payload([{"content": "Secret markdown"}], pair.public_pem.encode())
    assert "Secret markdown" in page_texts(generate_pdf(production_client, {"data": markdown}))[0]


def test_data_that_does_not_decrypt_is_a_400_on_data(production_client, organization) -> None:
    payload_key_create(organization=organization)
    response = post(production_client, {"type": "html", "data": "not:an:encrypted string"})

    assert properties(response) == ["data"]


# -- validation, with property paths ------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"type": "pdf", "data": []}, [("type", 'Must be "html" or "markdown".')]),
        ({"type": "html", "data": [{"html": "x"}]}, [("data", 'In HTML mode, data must be an object with "html" and "css" strings.')]),
        ({"type": "markdown", "data": {"html": "x"}}, [("data", "In Markdown mode, data must be an array of objects.")]),
        ({"data": {"content": "x"}}, [("data", "In Markdown mode, data must be an array of objects.")]),
        ({"type": "html", "data": {"css": "p {}"}}, [("data.html", "Required")]),
        ({"type": "html", "data": {"html": 5, "css": ["x"]}}, [("data.html", "Must be a string."), ("data.css", "Must be a string.")]),
        ({"data": ["text"]}, [("data.0", "Must be an object.")]),
        ({"data": [{}, {"label": 5, "heading": [], "content": {}}]}, [("data.1.label", "Must be a string."), ("data.1.heading", "Must be a string."), ("data.1.content", "Must be a string.")]),
        ({"data": [{"content": "x"}], "title": 7}, [("title", "Must be a string.")]),
    ],
)  # fmt: skip
def test_wrong_shapes_name_their_property(api_client, payload, expected) -> None:
    response = post(api_client, payload)

    assert [(f["property"], f["message"]) for f in fields(response)] == expected


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"fontSize": 4}, "fontSize"),
        ({"fontSize": 31}, "fontSize"),
        ({"fontSize": 12.5}, "fontSize"),
        ({"fontSize": "12"}, "fontSize"),
        ({"fontSize": True}, "fontSize"),
        ({"textColor": "#12345"}, "textColor"),
        ({"textColor": "red"}, "textColor"),
        ({"textColor": "#GG0000"}, "textColor"),
        ({"textColor": 0x123456}, "textColor"),
        ({"includeTimestamp": "yes"}, "includeTimestamp"),
        ({"logo": True}, "logo"),
        ({"logo": "https://example.com/logo.png"}, "logo"),
        ({"logo": {}}, "logo.src"),
        ({"logo": {"src": "ftp://example.com/logo.png"}}, "logo.src"),
        ({"logo": {"src": "file:///etc/passwd"}}, "logo.src"),
        ({"logo": {"src": "https://x.test/l.png", "maxWidth": 501}}, "logo.maxWidth"),
        ({"logo": {"src": "https://x.test/l.png", "maxHeight": 0}}, "logo.maxHeight"),
        ({"logo": {"src": "https://x.test/l.png", "maxHeight": "100"}}, "logo.maxHeight"),
        ({"page": "A4"}, "page"),
        ({"page": {"width": "10furlongs"}}, "page.width"),
        ({"page": {"width": 612}}, "page.width"),
        ({"page": {"height": "0in"}}, "page.height"),
        ({"page": {"height": "300in"}}, "page.height"),
        ({"page": {"margin": "10%"}}, "page.margin"),
        ({"page": {"margin": "1in 2in 3in 4in 5in"}}, "page.margin"),
        ({"page": {"margin": "1in; } body { display: none"}}, "page.margin"),
        ({"page": {"marginTop": "-1in"}}, "page.marginTop"),
        ({"page": {"marginRight": "1vw"}}, "page.marginRight"),
        ({"page": {"marginBottom": "auto"}}, "page.marginBottom"),
        ({"page": {"marginLeft": "1"}}, "page.marginLeft"),
        ({"page": {"margin": "5in"}}, "page.margin"),
        ({"page": {"pageCount": "middle"}}, "page.pageCount"),
        ({"page": {"pageCount": True}}, "page.pageCount"),
    ],
)
def test_bad_values_are_400_on_their_property(api_client, payload, path) -> None:
    response = post(api_client, {"data": [{"content": "x"}], **payload})

    assert path in properties(response)


@pytest.mark.parametrize(
    ("element", "path"),
    [
        ({"fontSize": 5.5}, "data.0.fontSize"),
        ({"fontSize": 100}, "data.0.fontSize"),
        ({"textColor": "#ABCDEF0"}, "data.0.textColor"),
        ({"fontFamily": 3}, "data.0.fontFamily"),
        ({"table": []}, "data.0.table"),
        ({"table": {}}, "data.0.table.rows"),
        ({"table": {"rows": "a,b"}}, "data.0.table.rows"),
        ({"table": {"rows": [["a"], "b"]}}, "data.0.table.rows.1"),
        ({"table": {"rows": [["a", {"b": 1}]]}}, "data.0.table.rows.0.1"),
        ({"table": {"rows": [["a"]], "firstRowHeaders": "no"}}, "data.0.table.firstRowHeaders"),
        ({"table": {"rows": [["a"]], "rowGridlines": 1}}, "data.0.table.rowGridlines"),
        ({"table": {"rows": [["a"]], "columnGridlines": "true"}}, "data.0.table.columnGridlines"),
        ({"table": {"rows": [["a"]], "verticalAlign": "middle"}}, "data.0.table.verticalAlign"),
        ({"table": {"rows": [["a"]], "columnOptions": {}}}, "data.0.table.columnOptions"),
        ({"table": {"rows": [["a"]], "columnOptions": [{}, "x"]}}, "data.0.table.columnOptions.1"),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{}, {"align": "justify"}]}},
            "data.0.table.columnOptions.1.align",
        ),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{"width": "12em"}]}},
            "data.0.table.columnOptions.0.width",
        ),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{"width": "150%"}]}},
            "data.0.table.columnOptions.0.width",
        ),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{"width": -5}]}},
            "data.0.table.columnOptions.0.width",
        ),
    ],
)
def test_bad_element_values_name_the_element(api_client, element, path) -> None:
    response = post(api_client, {"data": [element]})

    assert path in properties(response)


def test_unknown_fonts_are_400_naming_the_font(api_client) -> None:
    response = post(
        api_client,
        {
            "data": [{"content": "x"}, {"content": "y", "fontFamily": "noto sans"}],
            "fontFamily": "Comic Nope",
        },
    )

    assert fields(response) == [
        {"message": 'Unknown font family "Comic Nope".', "property": "fontFamily"},
        {
            "message": 'Unknown font family "noto sans". Font names are case-sensitive: did you mean "Noto Sans"?',
            "property": "data.1.fontFamily",
        },
    ]


def test_every_problem_is_reported_at_once(api_client) -> None:
    response = post(
        api_client,
        {
            "data": [{"fontSize": 2, "table": {"rows": [[1, None, True]]}}],
            "textColor": "blue",
            "page": {"width": "1mile", "pageCount": "top"},
            "logo": {"src": "x", "maxWidth": 900},
        },
    )

    assert properties(response) == [
        "page.width",
        "page.pageCount",
        "textColor",
        "logo.src",
        "logo.maxWidth",
        "data.0.table.rows.0.2",
        "data.0.fontSize",
    ]


def test_html_mode_ignores_the_markdown_only_properties(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        {
            **HTML_PAYLOAD,
            "fontFamily": "Not A Font",
            "fontSize": 99,
            "textColor": "purple",
            "includeTimestamp": "sometimes",
            "logo": {"src": "ftp://nope"},
        },
    )

    assert "Hello HTML" in page_texts(pdf)[0]
    assert "Generated" not in page_texts(pdf)[0]


def test_valid_edge_values_are_accepted(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        {
            "data": [
                {"content": "small", "fontSize": 5, "textColor": "#abcdef"},
                {"content": "large", "fontSize": 30.0, "textColor": "ABCDEF"},
                {
                    "table": {
                        "rows": [["1", 2, 3.5, None]],
                        "columnOptions": [None, {"width": 120}, {"width": "25%"}, {}],
                    }
                },
            ],
            "logo": {"src": "https://example.invalid/logo.png", "maxWidth": 500, "maxHeight": 0.5},
            "page": {
                "width": "0.5in",
                "height": "200in",
                "margin": "0",
                "marginTop": ".1in",
                "pageCount": None,
            },
            "includeTimestamp": None,
            "title": None,
            "extraUnknownProperty": {"ignored": True},
        },
    )

    assert reader(pdf).pages[0].mediabox.height == 14400


# -- watermark ----------------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [HTML_PAYLOAD, MARKDOWN_PAYLOAD], ids=["html", "markdown"])
def test_development_keys_watermark_every_page(api_client, production_client, payload) -> None:
    long = json.loads(json.dumps(payload))
    if "type" in long:
        long["data"]["html"] += "<p>more</p>" * 120
    else:
        long["data"].extend({"content": f"paragraph {i}"} for i in range(80))

    development = generate_pdf(api_client, long)
    production = generate_pdf(production_client, long)

    texts = page_texts(development)
    assert len(texts) > 1
    assert all("DEVELOPMENT" in text for text in texts)
    assert not any("DEVELOPMENT" in text for text in page_texts(production))


def test_the_watermark_is_drawn_over_full_page_backgrounds(api_client, production_client) -> None:
    css = "@page { margin: 0; background: #000080 } html { background: #000080 }"
    payload = {"type": "html", "data": {"html": "<p>x</p>", "css": css}}

    def middle(pdf: bytes) -> list[tuple[int, int, int]]:
        image = page_image(pdf, dpi=30)
        x, y = image.width // 2, image.height // 2
        return list(image.crop((x - 12, y - 12, x + 12, y + 12)).get_flattened_data())

    # The translucent red letters tint the background where they cross it; the document's own
    # CSS (a full-page background) cannot cover them.
    tinted = middle(generate_pdf(api_client, payload))
    plain = middle(generate_pdf(production_client, payload))
    assert set(plain) == {(0, 0, 128)}
    assert sum(1 for r, g, b in tinted if r > 20) > 20


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
