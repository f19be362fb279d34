"""A link that stops working while its signing page is open: the page's action is refused in the
API's error shape (``{"name", "message"}``, its name the link's errorType: LinkRefused,
esign/signing/views.py), and the page reads it as the error page would have: the signer sees
why, the embedding app hears ``signerError`` with the link's errorType and the server's
message."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings

from accounts.models import Organization
from esign.models import Signer
from tests.browser import Tab
from tests.esign.test_embed_frames_browser import sign_first
from tests.esign.test_signing_browser import (
    DESKTOP,
    EXPIRE,
    embedded_first_signer,
    events,
    live,
    open_embedded,
    refused_request,
    signer_error,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expired_while_open(
    browser, live_server, embedder, organization, create_packet, sign_url, graphql
) -> tuple[Tab, Any, str]:
    """A first signer's page framed by ``embedder``, ready, whose link then expires: the tab, the
    signing page's frame and the signer's eid."""
    first = embedded_first_signer(organization, embedder, create_packet)
    tab = Tab(browser, DESKTOP, expected=refused_request)
    frame = open_embedded(tab, embedder, live(sign_url(first), live_server))
    frame.wait_for_selector("#signing[data-state=ready]")
    assert "errors" not in graphql(EXPIRE, {"s": first})
    return tab, frame, first


def test_a_link_expired_while_open_refuses_the_decline_and_posts_signer_error(
    browser, live_server, embedder, organization: Organization, create_packet, sign_url, graphql
) -> None:
    tab, frame, first = expired_while_open(
        browser, live_server, embedder, organization, create_packet, sign_url, graphql
    )

    frame.click("#sg-decline-open")
    frame.fill("#sg-decline-reason", "The terms are wrong.")
    frame.click("#sg-decline-ok")

    frame.wait_for_selector("#signing[data-state=error]")
    assert frame.inner_text("#sg-result-title") == "This signing link cannot be used"
    # tokenExpired's words, not those of a refusal the page could not read (tokenInvalid's).
    assert frame.inner_text("#sg-result-text") == "This signing link has expired."
    [as_object, as_string] = events(tab, 2)
    event = signer_error("tokenExpired", "This signing link has expired.", first)
    assert as_object == {"origin": live_server.url, "data": event}
    # The legacy string: the service's completion page with the same keys.
    string = urlsplit(as_string["data"])
    assert f"{string.scheme}://{string.netloc}{string.path}" == (
        f"{settings.PUBLIC_BASE_URL}/etch-complete"
    )
    assert {key: value for key, [value] in parse_qs(string.query).items()} == event
    assert Signer.objects.get(eid=first).status != "declined"
    tab.close()


def test_a_link_expired_while_open_refuses_the_finish_and_shows_why(
    browser, live_server, embedder, organization: Organization, create_packet, sign_url, graphql
) -> None:
    tab, frame, first = expired_while_open(
        browser, live_server, embedder, organization, create_packet, sign_url, graphql
    )

    sign_first(frame)

    frame.wait_for_selector("#signing[data-state=error]")
    assert frame.inner_text("#sg-result-title") == "This signing link cannot be used"
    assert frame.inner_text("#sg-result-text") == "This signing link has expired."
    [as_object, _] = events(tab, 2)
    assert as_object["data"] == signer_error(
        "tokenExpired", "This signing link has expired.", first
    )
    assert Signer.objects.get(eid=first).status != "completed"
    tab.close()
