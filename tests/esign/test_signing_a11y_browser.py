"""axe on every state of the signing page (open, the adopt dialog, signed, done, declined, an
error), on a desktop (1366x900) and a phone (390x844, touch): WCAG 2.x A and AA, and besides
three rules axe leaves out of those tags: label-content-name-mismatch (WCAG 2.5.3, label in
name: a field box's name starts with what it shows, "Sign here", "AL"), region (every part of
the page in a landmark, the test banner too) and landmark-one-main (a <main> in every state,
done too)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from tests.axe import TAGS, _source
from tests.browser import Tab
from tests.esign.conftest import two_signer_packet
from tests.esign.test_signing_browser import EXPIRE, SHOTS, refused_request, signers_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = {
    "desktop": ({"width": 1366, "height": 900}, {}),
    "phone": ({"width": 390, "height": 844}, {"is_mobile": True, "has_touch": True}),
}
MORE_RULES = ("label-content-name-mismatch", "region", "landmark-one-main")


def violations(tab: Tab) -> list[dict[str, Any]]:
    tab.page.evaluate(_source())
    return tab.page.evaluate(
        """async ([tags, more]) => {
          const rules = Object.fromEntries(more.map((id) => [id, { enabled: true }]));
          const found = await axe.run(document, {
            runOnly: { type: "tag", values: [...tags, "best-practice", "experimental"] },
            rules,
          });
          return found.violations
            .filter((v) => v.tags.some((tag) => tags.includes(tag)) || more.includes(v.id))
            .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }));
        }""",
        [TAGS, list(MORE_RULES)],
    )


def checked(tab: Tab, name: str, state: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"a11y-{state}-{name}.png"))
    assert violations(tab) == [], state


def packet(create_packet: Any) -> dict[str, str]:
    """A test packet (its banner shows); signer 1 has a signature, initials and a text."""
    variables = two_signer_packet()
    variables["files"][0]["fields"].append(
        {
            "id": "init1",
            "type": "initial",
            "pageNum": 0,
            "rect": {"x": 450, "y": 600, "width": 60, "height": 30},
        }
    )
    variables["signers"][0]["fields"].append({"fileId": "agreement", "fieldId": "init1"})
    made = create_packet(files=variables["files"], signers=variables["signers"], isTest=True)
    return signers_of(made)


def new_signer_in_a_tab(
    browser, live_server, create_packet, sign_url, viewport, device, **tab_options
) -> tuple[str, Tab]:
    """A new packet's first signer, and a tab of ``viewport`` on their signing page, ready."""
    signer = packet(create_packet)["client"]
    tab = Tab(browser, viewport, **tab_options, **device)
    tab.page.goto(sign_url(signer).replace(settings.PUBLIC_BASE_URL, live_server.url))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    return signer, tab


def adopt_and_give_the_title(tab: Tab) -> None:
    """With the signature box's adopt dialog open: adopt, then type the title."""
    tab.page.click("#sg-adopt-ok")
    tab.page.wait_for_selector("#sg-adopt", state="hidden")
    tab.page.click(".sg-field[data-key='agreement/title1']")
    tab.page.fill("#sg-value", "Chief Analyst")


@pytest.mark.parametrize("name", SCREENS)
def test_every_state_of_the_signing_page_passes_axe(
    browser, live_server, create_packet, sign_url, graphql, name
) -> None:
    viewport, device = SCREENS[name]
    _, tab = new_signer_in_a_tab(browser, live_server, create_packet, sign_url, viewport, device)
    tab.page.wait_for_selector(".sg-page.is-rendered")
    # A box's name starts with what it shows.
    boxes = tab.page.get_by_role("button", name="Sign here, Signature, field 3 of 3, to do")
    assert boxes.get_attribute("data-key") == "agreement/sig1"
    checked(tab, name, "open")
    tab.page.click(".sg-field[data-key='agreement/sig1']")
    tab.page.wait_for_selector("#sg-adopt[open]")
    checked(tab, name, "adopt")
    adopt_and_give_the_title(tab)
    initials = tab.page.get_by_role("button", name="AL, Initials, field 1 of 3, completed")
    assert initials.get_attribute("data-key") == "agreement/init1"
    checked(tab, name, "signed")
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=done]")
    checked(tab, name, "done")
    tab.close()

    # Declined: the signer of another packet declines.
    _, tab = new_signer_in_a_tab(browser, live_server, create_packet, sign_url, viewport, device)
    tab.page.click("#sg-decline-open")
    tab.page.fill("#sg-decline-reason", "The terms are wrong.")
    tab.page.click("#sg-decline-ok")
    tab.page.wait_for_selector("#signing[data-state=declined]")
    checked(tab, name, "declined")
    tab.close()

    # An error: the link expires while the page is open, and Finish is refused.
    signer, tab = new_signer_in_a_tab(
        browser, live_server, create_packet, sign_url, viewport, device, expected=refused_request
    )
    assert "errors" not in graphql(EXPIRE, {"s": signer})
    tab.page.click(".sg-field[data-key='agreement/sig1']")
    adopt_and_give_the_title(tab)
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=error]")
    checked(tab, name, "error")
    tab.close()
