"""Probes of the language parameter (issue 46, item 12), on SQLite and PostgreSQL: createEtchPacket's
``language`` (the packet's and a signer's), the pages' ``?lang=`` (the language menu) on the
signing page and a webform, the language cookie and Accept-Language.

Hostile values (NUL and other control characters, lone surrogates, 5,000 characters, ``../``,
``en-US-x-`` junk, a list or an object instead of a string, a header or a cookie smuggled in) are
a 4xx in the wire shape from the API, with no packet stored; a page is served in the language it
would have had without them, never a 500, and no response carries the raw value in a header, a
cookie or a redirect (the menu is a GET form to the same page: it follows no ``next``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from esign.models import Packet, Signer
from tests.esign.conftest import token_of, two_signer_packet
from tests.esign.test_signer_language import create, signers_of
from tests.workflows.order_workflow import order_workflow

pytestmark = pytest.mark.django_db

SHIPPED = {code for code, _name in settings.LANGUAGES}
COOKIE = settings.LANGUAGE_COOKIE_NAME
SMUGGLED = "es\r\nSet-Cookie: smuggled=1"

HOSTILE_VALUES = {
    "NUL": "\x00",
    "NUL after a code": "es\x00",
    "a control character": "es\x1b",
    "a lone surrogate": "\ud800",
    "5,000 characters": "e" * 5000,
    "a path": "../es",
    "a path out": "../../../etc/passwd",
    "private-use junk": "en-US-x-" + "junk-" * 40 + "x",
    "a header smuggled": SMUGGLED,
    "a list": ["es"],
    "an object": {"code": "es"},
    "a number": 1,
    "true": True,
    "a fraction": 1.5,
}


def page_language(html: str) -> str:
    found = re.search(r'<html lang="([^"]*)"', html)
    assert found, html[:300]
    return found.group(1)


def assert_nothing_echoed(response: Any) -> None:
    """No header, cookie or redirect carries what the request smuggled."""
    assert "Location" not in response, response["Location"]
    assert "smuggled" not in response.cookies
    for name, value in response.items():
        assert "smuggled" not in value, name
        assert "\n" not in value, name
        assert "\x00" not in value, name
    if COOKIE in response.cookies:
        assert response.cookies[COOKIE].value in SHIPPED
    assert response.get("Content-Language", "en") in SHIPPED


# --- createEtchPacket's language ---------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(HOSTILE_VALUES))
def test_a_hostile_packet_language_is_a_4xx_in_the_wire_shape_and_stores_nothing(
    api_client: Client, graphql: Any, case: str
) -> None:
    value = HOSTILE_VALUES[case]

    result = create(graphql, language=value)

    if "errors" not in result:  # refused as the body was read: the REST wire shape
        assert result["name"] == "ValidationError", result
        assert [f["property"] for f in result["fields"]] == ["variables.language"]
    elif not isinstance(value, str):  # `language: String`: GraphQL's own request error
        [error] = result["errors"]
        assert error["message"].startswith("Variable '$language' got invalid value"), error
        assert result["data"] is None
    else:
        [error] = result["errors"]
        assert error["extensions"]["code"] == "ValidationError", error
        assert [f["property"] for f in error["extensions"]["fields"]] == ["language"]
        assert result["data"] == {"createEtchPacket": None}
    assert Packet.objects.count() == 0


@pytest.mark.parametrize("case", sorted(HOSTILE_VALUES))
def test_a_hostile_signer_language_is_a_validation_error_naming_it(graphql: Any, case: str) -> None:
    variables = two_signer_packet()
    variables["signers"][1]["language"] = HOSTILE_VALUES[case]

    result = create(graphql, signers=variables["signers"])

    if "errors" in result:
        [error] = result["errors"]
        assert error["extensions"]["code"] == "ValidationError", error
        fields = error["extensions"]["fields"]
    else:
        assert result["name"] == "ValidationError", result
        fields = result["fields"]
    assert [f["property"] for f in fields] in (
        ["signers.1.language"],
        ["variables.signers.1.language"],
    )
    assert Packet.objects.count() == 0


# --- the pages' ?lang= ---------------------------------------------------------------------

HOSTILE_QUERIES = {
    "NUL": "%00",
    "NUL after a code": "es%00",
    "a control character": "es%1b",
    "a lone surrogate": "%ED%A0%80",
    "not UTF-8": "%FF%FE",
    "5,000 characters": "e" * 5000,
    "a path": "../es",
    "private-use junk": "en-US-x-" + "junk-" * 40 + "x",
    "a header smuggled": "es%0d%0aSet-Cookie:%20smuggled=1",
    "a list of two, the last wrong": "es&lang=../x",
    "an empty choice": "",
}


@pytest.fixture
def signing_page(graphql: Any, sign_url: Any) -> tuple[Signer, str]:
    """The first signer of a packet in Spanish, and their signing page."""
    result = create(graphql, language="es", signers=two_signer_packet()["signers"])
    signer = Signer.objects.get(eid=signers_of(result)["client"])
    return signer, f"/api/etch/verify/{signer.eid}?token={token_of(sign_url(signer.eid))}"


@pytest.mark.parametrize("case", sorted(HOSTILE_QUERIES))
def test_a_hostile_choice_on_the_signing_page_keeps_its_language_and_changes_nothing(
    signing_page: tuple[Signer, str], case: str
) -> None:
    signer, page = signing_page

    response = Client(HTTP_ACCEPT_LANGUAGE="de").get(f"{page}&lang={HOSTILE_QUERIES[case]}")

    assert response.status_code == 200
    assert page_language(response.content.decode()) == "es"  # the packet's
    assert_nothing_echoed(response)
    signer.refresh_from_db()
    assert signer.language == ""


@pytest.mark.parametrize("case", sorted(HOSTILE_QUERIES))
def test_a_hostile_choice_on_a_webform_is_the_browsers_language_and_sets_no_cookie(
    organization: Any, demo_template: Any, case: str
) -> None:
    order_workflow(organization, demo_template)

    response = Client(HTTP_ACCEPT_LANGUAGE="fr").get(
        f"/form/acme/order?lang={HOSTILE_QUERIES[case]}"
    )

    assert response.status_code == 200
    assert page_language(response.content.decode()) == "fr"
    assert COOKIE not in response.cookies
    assert_nothing_echoed(response)


def test_the_menu_follows_no_next_and_echoes_the_query_escaped(
    organization: Any, demo_template: Any
) -> None:
    """The menu is a GET form to the page itself: a ``next`` (an absolute URL to another host)
    is never followed, only carried back as text in the form, escaped."""
    order_workflow(organization, demo_template)
    hostile = "https://evil.example/%22%3E%3Cscript%3Ealert(1)%3C/script%3E"

    for query in (f"lang=es&next={hostile}", "next=//evil.example/&lang=de"):
        response = Client().get(f"/form/acme/order?{query}")

        assert response.status_code == 200
        assert_nothing_echoed(response)
        html = response.content.decode()
        assert "<script>alert(1)" not in html
        menu = re.search(r'<form class="lang-menu" method="get" action="">.*?</form>', html, re.S)
        assert menu, "no language menu"
        assert "evil.example" not in html.replace(menu.group(0), "")


# --- the language cookie and Accept-Language -----------------------------------------------

HOSTILE_COOKIES = {
    "NUL": "\x00",
    "a control character": "es\x07",
    "a path": "../../es",
    "5,000 characters": "e" * 5000,
    "attributes smuggled": '"es; Path=/; Domain=evil.example"',
}
HOSTILE_ACCEPT_LANGUAGES = {
    "a header smuggled": SMUGGLED,
    "5,000 characters": "e" * 5000,
    "a quality that is no number": "es;q=NaN, de;q=1e999",
    "NUL": "\x00",
    "only separators": ",,,;;;q=",
    "many tags": "es-" * 2000,
    "private-use junk": "en-US-x-" + "junk-" * 40 + "x",
    "a lone surrogate": "\udc80es",
}


@pytest.mark.parametrize("case", sorted(HOSTILE_COOKIES))
def test_a_hostile_language_cookie_is_ignored(
    organization: Any, demo_template: Any, signing_page: tuple[Signer, str], case: str
) -> None:
    order_workflow(organization, demo_template)
    signer, page = signing_page
    browser = Client(HTTP_COOKIE=f"{COOKIE}={HOSTILE_COOKIES[case]}", HTTP_ACCEPT_LANGUAGE="fr")

    form = browser.get("/form/acme/order")
    signing = browser.get(page)

    assert form.status_code == signing.status_code == 200
    assert page_language(form.content.decode()) == "fr"
    assert page_language(signing.content.decode()) == "es"
    for response in (form, signing):
        assert_nothing_echoed(response)
    signer.refresh_from_db()
    assert signer.language == ""


def test_a_cookie_of_a_tag_with_junk_names_its_language(
    organization: Any, demo_template: Any
) -> None:
    """``en-US-x-...`` is English with private-use junk: Django takes its language, English."""
    order_workflow(organization, demo_template)
    junk = "en-US-x-" + "junk-" * 40 + "x"

    form = Client(HTTP_COOKIE=f"{COOKIE}={junk}", HTTP_ACCEPT_LANGUAGE="fr").get("/form/acme/order")

    assert page_language(form.content.decode()) == "en"
    assert_nothing_echoed(form)


@pytest.mark.parametrize("case", sorted(HOSTILE_ACCEPT_LANGUAGES))
def test_a_hostile_accept_language_is_the_default_language(
    organization: Any, demo_template: Any, api_client: Client, case: str
) -> None:
    order_workflow(organization, demo_template)
    header = HOSTILE_ACCEPT_LANGUAGES[case]

    form = Client(HTTP_ACCEPT_LANGUAGE=header).get("/form/acme/order")
    api = api_client.get("/api/v1/does-not-exist", HTTP_ACCEPT_LANGUAGE=header)

    assert form.status_code == 200
    assert page_language(form.content.decode()) in ("en", "es")  # "es-es-...": Spanish
    assert_nothing_echoed(form)
    assert api.status_code == 404
    assert api.json()["name"] == "NotFoundError"  # the API's words, whatever the header
    assert_nothing_echoed(api)
