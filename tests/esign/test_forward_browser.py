"""Forwarding one's turn on the signing page (esign.signing.forwarding) in Chromium, at 1366×900 and on
a phone (390×844), in English and in the signer's Spanish: the Forward dialog with its labelled
fields, a problem shown under the field it is about, the page's result, the new signer's own
signing page (from their email), and the original link, which now says it was handed on.
Screenshots in test-artifacts/esign/; axe finds nothing on any of them."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core import mail

from accounts.models import Organization, User
from accounts.services import member_add
from esign.models import Signer
from tests.axe import axe_violations
from tests.browser import DESKTOP, SIZES, Tab, admin_log_in
from tests.esign.conftest import send_queued_emails
from tests.esign.test_forward import CREATE_FORWARD, email_packet
from tests.esign.test_packet_admin_browser import PASSWORD, change_url
from tests.esign.test_signing_browser import SHOTS, refused_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "": {
        "forward": "Forward",
        "title": "Forward to someone else",
        "name": "Their full name",
        "email": "Their email address",
        "need_name": "Enter the name of the person who will sign.",
        "taken": "This person is already a signer of these documents.",
        "done": "Forwarded",
        "handed": "This signature request was handed to someone else to sign.",
        "in_place": "in place of Ada Lovelace",
        "nothing_more": "There is nothing more for you to do here.",
    },
    "es": {
        "forward": "Reenviar",
        "title": "Reenviar a otra persona",
        "name": "Nombre completo de esa persona",
        "email": "Correo electrónico de esa persona",
        "need_name": "Introduzca el nombre de la persona que firmará.",
        "taken": "Esta persona ya es firmante de estos documentos.",
        "done": "Reenviada",
        "handed": "Esta solicitud de firma se entregó a otra persona para que la firme.",
        "in_place": "en lugar de Ada Lovelace",
        "nothing_more": "Aquí no tiene nada más que hacer.",
    },
}


def link_in(message: Any) -> str:
    """The signing link of an email (absolute: PUBLIC_BASE_URL is the live server's)."""
    return next(line for line in message.body.splitlines() if "/api/etch/verify/" in line)


@pytest.fixture
def first_link(graphql, settings, live_server) -> Any:
    """A new forwarding packet whose first signer (in ``language``) was emailed: their link."""
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str) -> str:
        variables = email_packet(allowForward=True)
        if language:
            variables["signers"][0]["language"] = language
        created = graphql(CREATE_FORWARD, variables)
        assert "errors" not in created, created
        assert send_queued_emails() == ["sent"]
        return link_in(mail.outbox[-1])

    return make


def shot(tab: Tab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


@pytest.mark.parametrize("language", ["", "es"])
def test_a_signer_forwards_and_the_new_signer_gets_their_own_page(
    browser, first_link, language: str
) -> None:
    words = WORDS[language]
    tag = language or "en"
    for size, viewport, options in SIZES:
        link = first_link(language)
        tab = Tab(browser, viewport, expected=refused_request, **options)
        page = tab.page
        page.goto(link)
        page.wait_for_selector("#signing[data-state=ready]")
        page.get_by_role("button", name=words["forward"], exact=True).click()
        dialog = page.get_by_role("dialog", name=words["title"])
        assert dialog.is_visible()
        assert page.evaluate("document.activeElement.id") == "sg-forward-name"

        # Nothing typed: each field says what it needs, and the first one has the focus.
        dialog.get_by_role("button", name=words["forward"], exact=True).click()
        assert page.inner_text("#sg-forward-name-error") == words["need_name"]
        assert page.get_attribute("#sg-forward-name", "aria-invalid") == "true"
        # An address that is already a signer's: the server's problem, under the email field.
        page.get_by_label(words["name"], exact=True).fill("Grace Hopper")
        page.get_by_label(words["email"], exact=True).fill("charles@example.com")
        dialog.get_by_role("button", name=words["forward"], exact=True).click()
        page.wait_for_selector("#sg-forward-email-error:not([hidden])")
        assert page.inner_text("#sg-forward-email-error") == words["taken"]
        shot(tab, f"forward-dialog-{tag}-{size}")
        assert axe_violations(page) == []

        page.get_by_label(words["email"], exact=True).fill("grace@example.com")
        dialog.get_by_role("button", name=words["forward"], exact=True).click()
        page.wait_for_selector("#signing[data-state=forwarded]")
        assert page.inner_text("#sg-result-title") == words["done"]
        assert "Grace Hopper (grace@example.com)" in page.inner_text("#sg-result-text")
        shot(tab, f"forward-done-{tag}-{size}")
        assert axe_violations(page) == []

        # The new signer's email and page, in the same language, without a Forward of her own.
        assert send_queued_emails() == ["sent"]
        message = mail.outbox[-1]
        assert message.to == ["grace@example.com"]
        assert words["in_place"] in message.body
        page.goto(link_in(message))
        page.wait_for_selector("#signing[data-state=ready]")
        assert "Grace Hopper" in page.inner_text(".sg-subtitle")
        assert page.locator("#sg-forward-open").count() == 0
        shot(tab, f"forward-new-signer-{tag}-{size}")
        assert axe_violations(page) == []

        # The original link says it was handed on.
        page.goto(link)
        assert words["handed"] in page.inner_text("body")
        assert words["nothing_more"] in page.inner_text("body")
        shot(tab, f"forward-old-link-{tag}-{size}")
        assert axe_violations(page) == []
        tab.close()


def test_an_admin_reassigns_a_signer_from_the_packets_page(
    browser, first_link, live_server, organization: Organization
) -> None:
    """The packet page's "Reassign a signer": the form, a refusal shown on it, then the packet's
    page with the signers' new row and the trail's entries."""
    first_link("")
    ada = Signer.objects.get(alias_id="client")
    staff = User.objects.create_user(username="sender", password=PASSWORD, is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(content_type__app_label="esign"))
    member_add(organization=organization, user=staff, role="admin")
    tab = Tab(browser, DESKTOP, expected=refused_request)  # the refused form answers 400
    page = tab.page
    admin_log_in(page, live_server, staff.username, PASSWORD)
    page.goto(change_url(live_server, ada.packet))
    page.click("text=Reassign a signer")
    page.wait_for_selector("form.reassign-form")
    page.select_option("#id_signer", str(ada.pk))
    page.fill("#id_name", "Grace Hopper")
    page.fill("#id_email", "charles@example.com")
    page.click("input[type=submit][value=Reassign]")
    page.wait_for_selector("text=This address is already a signer of the packet.")
    shot(tab, "admin-reassign-refused-desktop")
    assert axe_violations(page) == []
    assert not Signer.objects.filter(forwarded_from=ada).exists()

    page.fill("#id_email", "grace@example.com")
    page.click("input[type=submit][value=Reassign]")
    page.wait_for_selector("text=Ada Lovelace's turn was handed to Grace Hopper.")
    assert Signer.objects.get(forwarded_from=ada).name == "Grace Hopper"
    events = page.locator(".field-what").all_inner_texts()
    assert "Request handed to another person" in events
    assert "Asked to sign in another signer's place" in events
    assert "in place of Ada Lovelace" in page.inner_text("body")
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "admin-reassign-done-desktop.png"), full_page=True)
    assert axe_violations(page) == []
    tab.close()
