"""POST /api/v1/generate-pdf: the edge (bodies, keys, multipart, encrypted data, errors in the wire
shapes) and the development keys' watermark.

Validation with property paths is in test_api_validation.py; the caps and the renderer's
failures in test_api_failures.py. The payloads and helpers here are shared with them."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.payload_keys import payload_key_create
from core.engine.payload_crypto import encrypt_payload
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
