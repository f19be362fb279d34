"""The fill endpoint: versions, tenancy, limits, encryption, multipart, images by URL, privacy."""

import base64
import io
import json
import logging
from pathlib import Path
from urllib.parse import quote

import pytest
from django.apps import apps
from django.test import Client
from PIL import Image

from accounts.payload_keys import payload_key_create
from core.engine.payload_crypto import encrypt_payload
from templates_app import services
from tests.fill.conftest import spec_field
from tests.pdfcheck import dark_pixels, render, text_in_rect, words


def title_of(demo_template, response) -> str:
    assert response.status_code == 200, response.content[:500]
    return text_in_rect(words(response.content)[0], spec_field(demo_template, "title")["rect"])


def rename_alias(template, field_id: str, alias: str) -> None:
    spec = services.working_version(template).spec
    next(f for f in spec["fields"] if f["id"] == field_id)["alias"] = alias
    services.template_update_working(template=template, spec=spec)


def test_version_number_selects_working_published_or_numbered(demo_template, fill) -> None:
    rename_alias(demo_template, "title", "headline")
    services.template_publish(template=demo_template)  # version 2 uses "headline"
    rename_alias(demo_template, "title", "caption")  # the working version uses "caption"
    body = {"data": {"title": "T", "headline": "H", "caption": "C"}}

    assert title_of(demo_template, fill(demo_template, body, "?versionNumber=-1")) == "C"
    assert title_of(demo_template, fill(demo_template, body)) == "H"
    assert title_of(demo_template, fill(demo_template, body, "?versionNumber=-2")) == "H"
    assert title_of(demo_template, fill(demo_template, body, "?versionNumber=1")) == "T"
    assert title_of(demo_template, fill(demo_template, body, "?versionNumber=2")) == "H"


@pytest.mark.parametrize(
    "query",
    [
        "?versionNumber=3",
        "?versionNumber=0",
        "?versionNumber=-3",
        "?versionNumber=10000",
        "?versionNumber=99999999999999999999",
    ],
)
def test_an_unknown_version_is_a_404(demo_template, fill, query: str) -> None:
    response = fill(demo_template, {"data": {"title": "x"}}, query)

    assert response.status_code == 404
    assert response.json()["name"] == "NotFoundError"


@pytest.mark.parametrize("value", ["abc", "latest", "1.5", "1e3", "+1", " 1", "1_0", "--1", "-"])
def test_a_version_number_that_is_not_an_integer_is_a_400(demo_template, fill, value) -> None:
    response = fill(demo_template, {"data": {"title": "x"}}, f"?versionNumber={quote(value)}")

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [
            {
                "message": "Must be an integer: a published version's number, -1 for the working"
                " version or -2 for the latest published version.",
                "property": "versionNumber",
            }
        ],
    }


def test_an_empty_version_number_is_the_default_version(demo_template, fill) -> None:
    response = fill(demo_template, {"data": {"title": "Default"}}, "?versionNumber=")

    assert title_of(demo_template, response) == "Default"


def test_another_organizations_template_is_a_404(
    demo_template, fill, client_for, other_api_key
) -> None:
    response = fill(demo_template, {"data": {"title": "x"}}, client=client_for(other_api_key))
    missing = fill("AAAAAAAAAAAAAAAAAAAA", {"data": {"title": "x"}})

    assert response.status_code == missing.status_code == 404
    assert response.json() == {
        "name": "NotFoundError",
        "message": f"No template with eid '{demo_template.eid}'.",
    }


def test_unauthenticated_is_a_401(demo_template) -> None:
    response = Client().post(
        f"/api/v1/fill/{demo_template.eid}.pdf", data="{}", content_type="application/json"
    )

    assert response.status_code == 401
    assert response.json()["name"] == "AuthorizationError"


def test_json_body_limit_is_1_mib(demo_template, api_client) -> None:
    def body_of(size: int) -> bytes:
        skeleton = json.dumps({"data": {"title": "fits", "padding": ""}}).encode()
        return json.dumps(
            {"data": {"title": "fits", "padding": "p" * (size - len(skeleton))}}
        ).encode()

    url = f"/api/v1/fill/{demo_template.eid}.pdf"
    at_limit = api_client.post(url, data=body_of(1_048_576), content_type="application/json")
    over = api_client.post(url, data=body_of(1_048_577), content_type="application/json")

    assert at_limit.status_code == 200
    assert over.status_code == 413
    assert over.json() == {
        "name": "RequestTooLarge",
        "message": "The request body is 1,048,577 bytes (1.0 MB); the limit is 1,048,576 bytes "
        "(1 MiB). Send a larger payload as multipart/form-data.",
    }


def png_data_url(size_bytes_target: int) -> str:
    """A data: URL of a noisy PNG of roughly the given decoded size."""
    import os

    side = 16
    while True:
        buffer = io.BytesIO()
        Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(buffer, "PNG")
        if len(buffer.getvalue()) >= size_bytes_target:
            return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
        side += 8


def test_data_urls_over_100k_in_total_are_a_413(demo_template, fill) -> None:
    big = png_data_url(60 * 1024)
    one = fill(demo_template, {"data": {"photo": big}})
    two = fill(demo_template, {"data": [{"photo": big}, {"photo": big}]})

    assert one.status_code == 200
    assert two.status_code == 413
    assert two.json()["name"] == "RequestTooLarge"


def bytes_data_url(size: int, scheme: str = "data:") -> str:
    """A data: URL that decodes to exactly ``size`` bytes (not an image: the limit counts all)."""
    return f"{scheme}application/octet-stream;base64," + base64.b64encode(b"\x07" * size).decode()


TOO_LARGE = {
    "name": "RequestTooLarge",
    "message": "The data: URLs of this payload total 122880 bytes; the limit is 102400.",
}


def test_data_urls_count_under_every_key_not_only_image_fields(demo_template, fill) -> None:
    url = bytes_data_url(60 * 1024)
    # Upper-case scheme with surrounding space: the fetcher and browsers accept it, so it counts.
    other = bytes_data_url(60 * 1024, scheme=" DATA:")
    under_unknown_keys = fill(
        demo_template, {"data": {"title": "x", "attachment": url, "misc": {"a": [other]}}}
    )
    in_a_wrapper = fill(
        demo_template, {"data": {"title": {"value": "x", "extra": url}, "attachment": other}}
    )

    assert under_unknown_keys.status_code == in_a_wrapper.status_code == 413
    assert under_unknown_keys.json() == in_a_wrapper.json() == TOO_LARGE
    assert url[40:80].encode() not in under_unknown_keys.content + in_a_wrapper.content


def test_data_urls_count_across_the_documents_of_a_whole_pdf_repeat(demo_template, fill) -> None:
    url = bytes_data_url(60 * 1024)
    response = fill(
        demo_template,
        {"data": [{"title": "a", "attachment": url}, {"title": "b", "attachment": url}]},
    )

    assert response.status_code == 413
    assert response.json() == TOO_LARGE


def test_one_data_url_under_the_limit_on_an_unknown_key_fills(demo_template, fill) -> None:
    body = {"data": {"title": "Data: kept", "attachment": bytes_data_url(60 * 1024)}}

    # a text value is no data URL
    assert title_of(demo_template, fill(demo_template, body)) == "Data: kept"


def test_multipart_is_filled_like_json(demo_template, api_client) -> None:
    response = api_client.post(
        f"/api/v1/fill/{demo_template.eid}.pdf",
        data={"data": json.dumps({"title": "From multipart"}), "title": "Doc", "fontSize": "12"},
    )

    assert title_of(demo_template, response) == "From multipart"


def test_encrypted_data_is_decrypted_with_the_organizations_key(
    demo_template, fill, organization
) -> None:
    pair = payload_key_create(organization=organization)
    encrypted = encrypt_payload({"title": "Secret title"}, pair.public_pem.encode())

    assert (
        title_of(demo_template, fill(demo_template, {"data": encrypted, "title": "Clear"}))
        == "Secret title"
    )
    broken = fill(demo_template, {"data": encrypted[:-10] + "0" * 10})
    assert broken.status_code == 400
    assert broken.json()["fields"][0]["property"] == "data"


def test_images_by_http_url_go_through_the_safe_fetcher(
    demo_template, fill, fetch_http_server, settings
) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (30, 10), (0, 0, 0)).save(buffer, "PNG")
    fetch_http_server.respond("/sig.png", buffer.getvalue(), content_type="image/png")
    fetch_http_server.respond("/huge.png", b"\x89PNG" + b"0" * 2048, content_type="image/png")
    rect = spec_field(demo_template, "photo")["rect"]

    refused = fill(demo_template, {"data": {"photo": fetch_http_server.url("/sig.png")}})
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    allowed = fill(demo_template, {"data": {"photo": fetch_http_server.url("/sig.png")}})
    settings.FETCH_IMAGE_MAX_BYTES = 1024
    too_large = fill(demo_template, {"data": {"photo": fetch_http_server.url("/huge.png")}})

    assert refused.status_code == allowed.status_code == too_large.status_code == 200
    assert dark_pixels(render(refused.content), rect, 792) == 0  # loopback refused: unfilled
    assert dark_pixels(render(allowed.content), rect, 792) > 500
    assert dark_pixels(render(too_large.content), rect, 792) == 0


def _row_counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models()}


def _dump_database() -> str:
    from django.core import serializers

    return "".join(serializers.serialize("json", m.objects.all()) for m in apps.get_models())


def _files(*roots: Path) -> list[Path]:
    return sorted(path for root in roots for path in Path(root).rglob("*"))


def test_nothing_of_the_request_is_stored_or_logged(
    demo_template, fill, caplog, settings, tmp_path
) -> None:
    marker = "Zq7-UNIQUE-MARKER-4412"
    settings.FONT_CACHE_DIR = tmp_path / "fonts"  # the only other place a fill may write
    # The key's usage counter (a count per key and day, no request data: accounts.usage) is
    # written every 5 s, which the fills below took at load 15: held for the test.
    settings.API_KEY_USAGE_FLUSH_SECONDS = 3600
    fill(demo_template, {"data": {"title": "warm up"}})  # first use of the key writes last_used_at
    before_rows = _row_counts()
    before_files = _files(settings.MEDIA_ROOT, settings.FONT_CACHE_DIR)

    with caplog.at_level(logging.DEBUG):
        ok = fill(demo_template, {"data": {"title": marker, "email": marker}, "title": marker})
        bad = fill(demo_template, {"data": {"ssn": marker, "birthDate": marker}})
        worse = fill(demo_template, {"data": {"title": {"value": marker, "fontFamily": marker}}})

    assert ok.status_code == 200
    assert bad.status_code == worse.status_code == 400
    assert _row_counts() == before_rows
    assert marker not in _dump_database()
    assert marker not in caplog.text
    assert _files(settings.MEDIA_ROOT, settings.FONT_CACHE_DIR) == before_files


def test_rate_limit_headers_come_with_the_pdf(demo_template, fill) -> None:
    response = fill(demo_template, {"data": {"title": "x"}})

    assert response["X-RateLimit-Limit"] == "100000"
    assert response["X-RateLimit-Interval-Ms"] == "1000"


def _serve_catalog_family(server, family: str, font_file: Path) -> None:
    from core.engine.fonts import load_catalog

    for paths in load_catalog().family(family).slots.values():
        for path in paths:
            server.respond("/" + path, font_file.read_bytes(), content_type="font/ttf")


def test_a_catalog_font_is_downloaded_once_and_used(
    demo_template, fill, fetch_http_server, settings, tmp_path
) -> None:
    from tests.fixtures import HTML
    from tests.pdfcheck import fonts

    _serve_catalog_family(
        fetch_http_server, "Fira Sans", HTML / "weasyprint-report" / "FiraSans-Regular.ttf"
    )
    settings.FONT_CATALOG_BASE_URL = fetch_http_server.url("/")
    settings.FONT_CACHE_DIR = tmp_path / "fonts"
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]

    first = fill(demo_template, {"data": {"title": "Fira"}, "fontFamily": "Fira Sans"})
    requests_after_first = len(fetch_http_server.requests)
    second = fill(demo_template, {"data": {"title": "Again"}, "fontFamily": "Fira Sans"})

    assert first.status_code == second.status_code == 200
    assert any(name.startswith("FiraSans") for name in fonts(first.content))
    assert requests_after_first > 0
    assert len(fetch_http_server.requests) == requests_after_first  # the second fill used the cache


def test_a_catalog_font_that_cannot_be_fetched_is_a_clear_503(
    demo_template, fill, fetch_http_server, settings, tmp_path
) -> None:
    settings.FONT_CATALOG_BASE_URL = fetch_http_server.url("/")  # answers 404 for every font
    settings.FONT_CACHE_DIR = tmp_path / "fonts"
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]

    response = fill(demo_template, {"data": {"title": "x"}, "fontFamily": "Roboto"})

    assert response.status_code == 503
    assert response.json() == {
        "name": "FontUnavailableError",
        "message": 'Font family "Roboto" could not be fetched.',
    }
