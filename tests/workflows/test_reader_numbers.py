"""Numbers on a webform page follow the page's language (issue 35, item 5): "15,5" is fifteen and
a half on a Spanish page, "1.234,5" on a German one, "1 234,5" on a French one; the stored value
is the same number whatever the language; the canonical "12.50" is still read everywhere, and an
English page still refuses "15,5". The engine takes the conventions as a parameter
(workflows.engine.numbers); the page gives them to its script (wf-rules' numberFormat)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from tests.browser import Tab
from tests.workflows.order_workflow import order_workflow
from workflows.engine.numbers import ENGLISH, NumberFormat, canonical_number
from workflows.models import Submission
from workflows.submissions.links import continue_token
from workflows.submissions.reads import payloads_of

START = "/form/acme/order"
NAMES = {"name.firstName": "Ada", "name.lastName": "Lovelace", "deliver": "on"}
SPANISH = NumberFormat.of(",", "\xa0")
GERMAN = NumberFormat.of(",", ".")


@pytest.mark.parametrize(
    ("written", "number_format", "read"),
    [
        ("15,5", SPANISH, "15.5"),
        ("1 234,5", SPANISH, "1234.5"),
        ("1\u202f234,5", SPANISH, "1234.5"),
        ("-0,25", SPANISH, "-0.25"),
        ("1.234,5", GERMAN, "1234.5"),
        ("1.234", GERMAN, "1234"),
        ("15.5", GERMAN, "15.5"),  # not German, left for the rules' canonical form
        ("١٥٫٥", NumberFormat.of(",", "."), "15.5"),  # Arabic-Indic digits and separator
        ("15,5", ENGLISH, "15,5"),  # English: as typed (the rules refuse it)
        ("abc", SPANISH, "abc"),
    ],
)
def test_a_number_as_the_reader_writes_it(written, number_format, read) -> None:
    assert canonical_number(written, number_format) == read


def test_a_locale_without_a_grouping_separator_groups_by_comma() -> None:
    assert NumberFormat.of(".", "") == ENGLISH  # Chinese, in Django's formats
    assert NumberFormat.of(",", "\xa0") == NumberFormat(",", " ")


def items_page(client: Client, workflow: Any) -> tuple[str, str]:
    forge = workflow.webforms.get().eid
    client.post(START, {"forge": forge, "page": "0", "action": "next", **NAMES})
    submission = Submission.objects.get()
    return forge, f"{START}/{submission.eid}?token={continue_token(submission)}"


def post_price(client: Client, workflow: Any, price: str) -> str:
    forge, resume = items_page(client, workflow)
    response = client.post(
        resume,
        {"forge": forge, "page": "1", "action": "next", "items.entries": "1",
         "items.0.description": "Lamp", "items.0.price": price},
    )  # fmt: skip
    return response.content.decode()


@pytest.mark.parametrize(
    ("language", "price", "stored"),
    [
        ("es-MX", "15,5", 15.5),
        ("de-DE", "1.234,50", 1234.5),
        ("fr-FR", "1 234,5", 1234.5),
        ("ar", "١٢٫٥", 12.5),
        ("es-MX", "12.50", 12.5),  # the canonical form, on any page
        ("en-US", "1,234.5", 1234.5),
    ],
)
def test_a_price_typed_the_readers_way_is_stored_as_the_number(
    organization, demo_template, language, price, stored
) -> None:
    workflow = order_workflow(organization, demo_template)

    post_price(Client(HTTP_ACCEPT_LANGUAGE=language), workflow, price)

    [payload] = payloads_of(Submission.objects.get()).values()
    assert payload["items"][0]["price"] == stored


def test_an_english_page_still_refuses_a_decimal_comma(organization, demo_template) -> None:
    workflow = order_workflow(organization, demo_template)

    html = post_price(Client(HTTP_ACCEPT_LANGUAGE="en-US"), workflow, "15,5")

    assert "Enter a number, like 1234.56." in html
    [payload] = payloads_of(Submission.objects.get()).values()
    assert "items" not in payload


def test_the_page_tells_its_script_how_numbers_are_written(organization, demo_template) -> None:
    order_workflow(organization, demo_template)

    for language, expected in (
        ("de", {"decimal": ",", "group": "."}),
        ("fr", {"decimal": ",", "group": " "}),
        ("ja", {"decimal": ".", "group": ","}),
    ):
        html = Client(HTTP_ACCEPT_LANGUAGE=language).get(START).content.decode()
        found = re.search(r'<script id="wf-rules" type="application/json">(.*?)</script>', html)
        assert found
        assert json.loads(found.group(1))["numberFormat"] == expected, language


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_browser_takes_a_german_number_and_the_server_stores_it(
    browser, live_server, organization, demo_template
) -> None:
    order_workflow(organization, demo_template)
    tab = Tab(browser, {"width": 1366, "height": 900}, locale="de-DE")
    tab.page.goto(f"{live_server.url}{START}")
    tab.page.fill("[name='name.firstName']", "Ada")
    tab.page.fill("[name='name.lastName']", "Lovelace")
    tab.page.click("#wf-next")
    tab.page.wait_for_selector("[name='items.0.price']")
    tab.page.fill("[name='items.0.description']", "Lampe")
    tab.page.fill("[name='items.0.price']", "1.234,5")
    # The browser's own check reads it the German way: no message, the page is sent.
    tab.page.click("#wf-next")
    tab.page.wait_for_load_state()
    tab.page.wait_for_timeout(300)
    assert "Geben Sie eine Zahl ein" not in tab.page.inner_text("body")
    tab.close()

    [payload] = payloads_of(Submission.objects.get()).values()
    assert payload["items"][0]["price"] == 1234.5
