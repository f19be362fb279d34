"""A fill answers which keys of ``data`` it ignored (they name no field of the template), in
``X-Ignored-Keys`` with their count in ``X-Ignored-Keys-Count`` (docs/fill.md, issue 49 item 20)."""

from __future__ import annotations

from urllib.parse import unquote

from accounts.payload_keys import payload_key_create
from core.engine.payload_crypto import encrypt_payload
from fill.openapi import IGNORED_KEYS_HEADER_LIMIT


def test_keys_that_name_no_field_are_listed_in_the_order_sent(demo_template, fill) -> None:
    response = fill(
        demo_template,
        {"data": {"nmae": "Ada", "title": "T", "emial": "a@example.com", "agree": True}},
    )

    assert response.status_code == 200
    assert response["X-Ignored-Keys"] == "nmae, emial"
    assert response["X-Ignored-Keys-Count"] == "2"


def test_a_fill_that_uses_every_key_has_no_header(demo_template, fill) -> None:
    # A null value names a field too: it leaves that field empty.
    response = fill(demo_template, {"data": {"title": "T", "email": None}})

    assert response.status_code == 200
    assert "X-Ignored-Keys" not in response
    assert "X-Ignored-Keys-Count" not in response


def test_whole_pdf_repeat_lists_each_key_once(demo_template, fill) -> None:
    response = fill(demo_template, {"data": [{"title": "A", "extra": 1}, {"extra": 2, "other": 3}]})

    assert response.status_code == 200
    assert response["X-Ignored-Keys"] == "extra, other"


def test_keys_are_percent_encoded_and_a_long_list_is_cut(demo_template, fill) -> None:
    odd = ["a, b", "naïve", "line\nbreak", "名前"]
    many = [f"unknown_{index:04d}" for index in range(200)]
    response = fill(demo_template, {"data": dict.fromkeys([*odd, *many], "x")})

    assert response.status_code == 200
    header = response["X-Ignored-Keys"]
    assert header.isascii()
    assert "\n" not in header
    assert len(header) <= IGNORED_KEYS_HEADER_LIMIT
    listed = [unquote(part) for part in header.split(", ")]
    assert listed[:4] == odd
    assert listed[4:] == many[: len(listed) - 4]
    assert response["X-Ignored-Keys-Count"] == str(len(odd) + len(many))


def test_an_encrypted_payload_is_read_for_its_keys(organization, demo_template, fill) -> None:
    pair = payload_key_create(organization=organization)
    text = encrypt_payload({"title": "T", "secretTypo": "x"}, pair.public_pem.encode())

    response = fill(demo_template, {"data": text})

    assert response.status_code == 200
    assert response["X-Ignored-Keys"] == "secretTypo"
