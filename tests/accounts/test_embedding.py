"""Allowed embedding origins: validation, canonical form, storage and the reading helper."""

from __future__ import annotations

import pytest

from accounts.embedding import embed_origins, embed_origins_set, normalize_origin, parse_origins
from accounts.models import Organization
from core.errors import ValidationFailed


@pytest.mark.parametrize(
    ("text", "origin"),
    [
        ("https://app.example.com", "https://app.example.com"),
        ("  HTTPS://App.Example.COM/ ", "https://app.example.com"),
        ("https://app.example.com:443", "https://app.example.com"),
        ("https://app.example.com:8443", "https://app.example.com:8443"),
        ("https://*.example.com", "https://*.example.com"),
        ("http://localhost:3000", "http://localhost:3000"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("https://[2001:db8::1]", "https://[2001:db8::1]"),
    ],
)
def test_normalize_origin_gives_the_canonical_origin(text: str, origin: str) -> None:
    assert normalize_origin(text) == origin


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("app.example.com", "Use https"),
        ("http://app.example.com", "Use https"),
        ("ftp://app.example.com", "Use https"),
        ("https://app.example.com/path", "no path"),
        ("https://app.example.com?x=1", "no path"),
        ("https://user:pw@app.example.com", "no path"),
        ("https://app example.com", "scheme and a host"),
        ("https://-bad-.example.com", "not a valid host"),
        ("https://app.example.com:99999", "port"),
        ("https://", "not a valid host"),
        ("https://*.com", "not a valid host"),
    ],
)
def test_normalize_origin_refuses_what_is_not_an_origin(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        normalize_origin(text)


def test_parse_origins_drops_blank_lines_and_duplicates_keeping_order() -> None:
    lines = ["https://b.example.com", "", "https://a.example.com", "https://B.example.com/"]

    assert parse_origins(lines) == ["https://b.example.com", "https://a.example.com"]


def test_parse_origins_names_every_bad_line() -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_origins(["https://ok.example.com", "nope", "https://x.example.com/a"])

    (field,) = caught.value.fields
    assert field.property == "embedOrigins"
    assert field.message.startswith("nope: Use https")
    assert "https://x.example.com/a: An origin has no path" in field.message


@pytest.mark.django_db
def test_embed_origins_set_stores_them_and_a_refusal_changes_nothing(
    organization: Organization,
) -> None:
    stored = embed_origins_set(organization=organization, lines=["https://app.example.com/"])
    with pytest.raises(ValidationFailed):
        embed_origins_set(organization=organization, lines=["https://ok.example.com", "bad"])

    organization.refresh_from_db()
    assert stored == ["https://app.example.com"]
    assert embed_origins(organization) == ["https://app.example.com"]
