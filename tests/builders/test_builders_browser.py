"""The embedded builders in an integrator's app on another origin (127.0.0.1 beside the live
server's localhost), framed by the published @anvilco/anvil-embed-frame 2.2.2 exactly as
docs/embedding-builders.md shows it (the page takes its props from the document), with a URL
from generateEmbedURL: the template editor saves and publishes, the packet builder sends a
packet, and the app's onEvent hears castEdit, castPublish and etchPacketSent. axe finds nothing
in either builder; screenshots at desktop and tablet sizes go to test-artifacts/builders/."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from django.test import Client

from accounts.models import Organization
from core.engine.template_spec import FieldSpec, PageSpec, Rect, TemplateSpec
from esign.models import Packet
from templates_app import services
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf, template_create_with_spec
from tests.axe import axe_violations
from tests.browser import ARTIFACTS, AppPages, Tab, app_fixture
from tests.builders.conftest import GENERATE
from tests.conftest import graphql_answer
from tests.esign.conftest import contract_pdf
from tests.esign.test_embed_frames_browser import REACT_BODY, documented_props, node_module
from tests.pdfcheck import blank_pdf
from workflows.demo import demo_workflow_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "builders"
DESKTOP = {"width": 1366, "height": 900}
TABLET = {"width": 820, "height": 1180}
TABLET_LANDSCAPE = {"width": 1180, "height": 820}
PHONE = {"width": 390, "height": 844}
LANDLORD_SIG = Rect(320, 120, 200, 40)

# The integrator's page: React's UMD builds, the component's CommonJS file, and the documented
# example's props; ``embedURL`` and ``BASE_URL`` come from the query. The test's additions: a
# size, and window.__events, which handleEvent fills.
APP_PAGE = (
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Integrator app</title><link rel="icon" href="data:,">
<style>body { margin: 0; } h1 { font: 600 16px sans-serif; margin: 8px; }</style></head>
"""
    + REACT_BODY
    + """<script src="/nm/@anvilco/anvil-embed-frame/dist/index.js"></script>
<script>
const params = new URLSearchParams(location.search);
const AnvilEmbedFrame = module.exports.default;
const embedURL = params.get("src");
const BASE_URL = params.get("anvil");
window.__events = [];
function handleEvent(event) { window.__events.push(event); }
const props = Object.assign({PROPS}, {
  style: { width: "100%", height: "calc(100vh - 40px)", border: "0", display: "block" },
});
ReactDOM.render(React.createElement(AnvilEmbedFrame, props), document.getElementById("root"));
</script></body></html>
"""
)


class _App(AppPages):
    def page(self, path: str, query: str) -> tuple[bytes, str] | None:
        if path == "/app.html":
            props = documented_props("AnvilEmbedFrame", "embedding-builders.md")
            return APP_PAGE.replace("{PROPS}", props).encode(), "text/html; charset=utf-8"
        return node_module(path)


app = app_fixture(_App)


@pytest.fixture
def allowed(organization: Organization, app: str, settings: Any, live_server: Any) -> str:
    """The app may frame the organization's pages; links are the live server's."""
    settings.PUBLIC_BASE_URL = live_server.url
    organization.embed_origins = [app]
    organization.save()
    return app


def generate(api_client: Client, **variables: Any) -> str:
    result = graphql_answer(api_client, GENERATE, variables)
    assert "errors" not in result, result
    return result["data"]["generateEmbedURL"]["url"]


def open_in_app(tab: Tab, app: str, url: str, live_server: Any, ready: str) -> Any:
    tab.page.goto(f"{app}/app.html?src={quote(url, safe='')}&anvil={quote(live_server.url)}")
    frame = tab.page.wait_for_selector("iframe").content_frame()
    frame.wait_for_selector(ready)
    return frame


def events(tab: Tab, count: int) -> list[dict[str, Any]]:
    tab.page.wait_for_function(f"window.__events.length >= {count}")
    return tab.page.evaluate("window.__events")


def shoot(tab: Tab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / name))


def assert_axe_clean(frame: Any) -> None:
    assert axe_violations(frame) == []


def test_the_template_editor_in_another_origins_app_saves_and_publishes(
    browser: Any, live_server: Any, allowed: str, organization: Organization, api_client: Client
) -> None:
    template = template_create_from_pdf(organization=organization, title="Lease", pdf=blank_pdf())
    url = generate(api_client, eid=template.eid, type="edit-pdf-template", metadata={"u": 1})
    tab = Tab(browser, DESKTOP)
    frame = open_in_app(tab, allowed, url, live_server, "#editor[data-state=ready]")
    frame.wait_for_selector(".ed-page[data-page='0'].is-rendered")
    # No admin around it: no header, no breadcrumbs, no link into the admin.
    assert frame.query_selector("#header, .breadcrumbs, a[href*='/admin/']") is None

    overlay = frame.locator(".ed-overlay[data-page='0']").bounding_box()
    frame.click("[data-action=tool-draw]")
    mouse = tab.page.mouse
    mouse.move(overlay["x"] + 90, overlay["y"] + 120)
    mouse.down()
    mouse.move(overlay["x"] + 390, overlay["y"] + 150, steps=8)
    mouse.up()
    frame.locator(".ed-panel [data-prop='alias']").fill("tenant_name")
    frame.click("[data-action=save]")
    [edit] = events(tab, 1)
    frame.click("[data-action=publish]")
    [_, publish] = events(tab, 2)

    ids = {"requestTokenEid": edit["requestTokenEid"], "organizationEid": organization.eid}
    assert edit == {"action": "castEdit", "castEid": template.eid, **ids}
    assert publish == {"action": "castPublish", "castEid": template.eid, "versionNumber": 1, **ids}
    [field] = services.working_version(template).spec["fields"]
    assert field["alias"] == "tenant_name"
    assert services.version_summary(template).published_number == 1
    assert_axe_clean(frame)
    shoot(tab, "editor-desktop.png")
    # Preview: fill's own preview of the working version, through the link.
    frame.click("[data-action=preview]")
    frame.wait_for_selector("#ed-preview[open] .ed-preview-pages canvas")
    shoot(tab, "editor-desktop-preview.png")
    frame.click("[data-action=preview-close]")
    tab.page.set_viewport_size(TABLET_LANDSCAPE)
    frame.wait_for_selector(".ed-page[data-page='0'].is-rendered")
    shoot(tab, "editor-tablet-landscape.png")
    tab.close()


def touch_tab(browser: Any, viewport: dict[str, int], *, refused_status: int) -> Tab:
    """A tab of a touch device (a finger, a mobile browser) whose page may log the browser's
    note on a request refused with ``refused_status``, the one a test asks for."""
    return Tab(
        browser,
        viewport,
        expected=lambda message: f"status of {refused_status}" in message.text,
        has_touch=True,
        is_mobile=True,
    )


def test_on_a_touch_tablet_an_edit_only_link_places_and_saves_but_cannot_publish(
    browser: Any, live_server: Any, allowed: str, organization: Organization, api_client: Client
) -> None:
    template = template_create_from_pdf(organization=organization, title="Lease", pdf=blank_pdf())
    url = generate(api_client, eid=template.eid, type="edit-pdf-template", permissions=["edit"])
    tab = touch_tab(browser, TABLET, refused_status=403)
    frame = open_in_app(tab, allowed, url, live_server, "#editor[data-state=ready]")
    frame.wait_for_selector(".ed-page[data-page='0'].is-rendered")

    # A finger: the draw tool, then a tap on the page places a field of the type's usual size.
    frame.tap("[data-action=tool-draw]")
    overlay = frame.locator(".ed-overlay[data-page='0']").bounding_box()
    tab.page.touchscreen.tap(overlay["x"] + 120, overlay["y"] + 160)
    frame.wait_for_selector(".ed-field")
    frame.tap("[data-action=save]")
    [edit] = events(tab, 1)
    assert frame.query_selector("[data-action=publish]") is None
    refused = frame.evaluate(
        """async (url) => (await fetch(url, {method: "POST", body: "{}",
             headers: {"Content-Type": "application/json"}})).status""",
        f"{urlsplit(url).path}publish/",
    )

    assert edit["action"] == "castEdit"
    [field] = services.working_version(template).spec["fields"]
    assert field["page"] == 0
    assert refused == 403
    assert services.version_summary(template).published_number is None
    shoot(tab, "editor-tablet-edit-only.png")
    tab.close()


def annex_template(organization: Organization) -> PdfTemplate:
    """A one-page template with the landlord's signature field of its own."""
    field = FieldSpec(
        id="landlordSig", alias="landlordSig", type="signature", page=0, rect=LANDLORD_SIG
    )
    page = PageSpec(width=612, height=792, media_box=(0, 0, 612, 792))
    return template_create_with_spec(
        organization=organization,
        title="Annex",
        pdf=blank_pdf(),
        spec=TemplateSpec(pages=(page,), fields=(field,)),
        publish=True,
    )


def test_the_packet_builder_sends_a_packet_placed_where_tapped(
    browser: Any,
    live_server: Any,
    allowed: str,
    organization: Organization,
    api_client: Client,
    tmp_path: Any,
) -> None:
    upload = tmp_path / "lease.pdf"
    upload.write_bytes(contract_pdf(1))
    annex = annex_template(organization)
    options = {"castEids": [annex.eid], "pageTitle": "Send the lease"}
    url = generate(api_client, eid=organization.eid, type="edit-etch-packet", options=options)
    tab = Tab(browser, TABLET)
    frame = open_in_app(tab, allowed, url, live_server, "#packet-builder[data-state=ready]")

    frame.fill("#pb-name", "Lease for Ada")
    frame.set_input_files("#pb-upload", str(upload))
    frame.wait_for_selector(".pb-page[data-page='0'] canvas")
    signer_inputs = frame.locator(".pb-signer").nth(0)
    signer_inputs.locator("input[type=text]").fill("Ada Tenant")
    signer_inputs.locator("input[type=email]").fill("ada@example.com")
    frame.click("#pb-add-signer")
    second = frame.locator(".pb-signer").nth(1)
    second.locator("input[type=text]").fill("Bob Landlord")
    second.locator("input[type=email]").fill("bob@example.com")
    second.locator("select").select_option("embedded")
    # Ada's signature where tapped; Bob's date signed in the middle of the page, by keyboard.
    frame.locator("#pb-field-signer").select_option(index=0)
    frame.locator("#pb-field-type").select_option("signature")
    page_box = frame.locator(".pb-page[data-page='0']").bounding_box()
    tab.page.mouse.click(page_box["x"] + 200, page_box["y"] + 300)
    frame.locator("#pb-field-signer").select_option(index=1)
    frame.locator("#pb-field-type").select_option("signatureDate")
    frame.focus(".pb-place[data-page='0']")
    tab.page.keyboard.press("Enter")
    # The new field has the focus: three steps of 1 pt to the right.
    for _ in range(3):
        tab.page.keyboard.press("ArrowRight")
    assert frame.locator(".pb-field").count() == 2
    # Ada's signature dragged 50 px to the right.
    signature_box = frame.locator(".pb-field[data-type=signature]").bounding_box()
    centre = (
        signature_box["x"] + signature_box["width"] / 2,
        signature_box["y"] + signature_box["height"] / 2,
    )
    tab.page.mouse.move(*centre)
    tab.page.mouse.down()
    tab.page.mouse.move(centre[0] + 50, centre[1], steps=5)
    tab.page.mouse.up()
    shoot(tab, "packet-tablet-placed.png")
    # The annex (a template the link names) comes with its own signature field: Bob's.
    frame.click("#pb-add-template")
    frame.wait_for_selector(".pb-page .pb-field.is-template")
    frame.get_by_label("Annex: landlordSig", exact=False).select_option(label="Bob Landlord")
    shoot(tab, "packet-tablet.png")
    assert_axe_clean(frame)
    frame.click("#pb-send")
    [sent] = events(tab, 1)

    packet = Packet.objects.get(eid=sent["etchPacketEid"])
    assert sent["action"] == "etchPacketSent"
    assert sent["organizationEid"] == organization.eid
    assert sent["documentGroupEid"] == packet.document_group.eid
    assert [(s["aliasId"], s["routingOrder"]) for s in sent["signers"]] == [
        ("signer1", 1),
        ("signer2", 2),
    ]
    assert packet.organization == organization
    assert packet.status == Packet.Status.SENT
    assert packet.name == "Lease for Ada"
    document, annex_document = packet.documents.order_by("position")
    assert annex_document.title == "Annex"
    assert [f["rect"] for f in annex_document.fields] == [LANDLORD_SIG.to_json()]
    by_type = {f["type"]: f for f in document.fields}
    scale = page_box["width"] / 612
    signature = by_type["signature"]["rect"]
    # The tap was the signature's centre, then it moved 50 px right: in PDF points, y up.
    assert signature["x"] + signature["width"] / 2 == pytest.approx(250 / scale, abs=1)
    assert signature["y"] + signature["height"] / 2 == pytest.approx(792 - 300 / scale, abs=1)
    date = by_type["signatureDate"]["rect"]
    assert date["x"] + date["width"] / 2 == pytest.approx(306 + 3, abs=0.5)
    signers = {s.alias_id: s for s in packet.signers.all()}
    assert (signers["signer1"].email, signers["signer2"].routing_order) == ("ada@example.com", 2)
    # Bob signs the date on the lease and the annex's own field; Ada her signature only.
    assert sorted(f["fieldId"] for f in signers["signer2"].fields) == ["field2", "landlordSig"]
    assert frame.inner_text("#pb-message").startswith("Sent")
    assert frame.is_disabled("#pb-send")  # no second packet from a second tap
    tab.page.set_viewport_size(DESKTOP)
    frame.wait_for_function(
        "(width) => document.querySelector('.pb-page').getBoundingClientRect().width > width",
        arg=page_box["width"] + 24,
    )
    shoot(tab, "packet-desktop-sent.png")
    tab.close()


def test_another_origin_cannot_frame_a_builder_and_a_dead_link_says_so(
    browser: Any,
    live_server: Any,
    organization: Organization,
    settings: Any,
    api_client: Client,
    embedder: str,
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    organization.embed_origins = ["https://app.example.com"]
    organization.save()
    template = template_create_from_pdf(organization=organization, title="Lease", pdf=blank_pdf())
    url = generate(api_client, eid=template.eid, type="edit-pdf-template")
    tab = Tab(browser, DESKTOP, expected=lambda m: "frame-ancestors" in m.text or "404" in m.text)

    # Chromium says why it shows the browser's own error page in the frame instead.
    with tab.page.expect_console_message(lambda m: "frame-ancestors" in m.text):
        tab.page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    frame = tab.page.wait_for_selector("iframe").content_frame()
    assert frame.query_selector("#editor") is None
    dead = url.rstrip("/")[:-4] + "dead/"
    tab.page.goto(f"{embedder}/embed.html?src={quote(dead, safe='')}")
    tab.page.wait_for_function("window.__events.length >= 1")
    [message] = tab.page.evaluate("window.__events")

    assert message["origin"] == live_server.url
    assert message["data"] == {
        "action": "embedError",
        "errorType": "NotFoundError",
        "message": "This link has expired or does not exist: ask for a new one.",
    }
    tab.close()


def test_the_webform_builder_in_another_origins_app_saves_and_publishes(
    browser: Any,
    live_server: Any,
    allowed: str,
    organization: Organization,
    demo_template: PdfTemplate,
    api_client: Client,
) -> None:
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    webform = workflow.webforms.first()
    url = generate(api_client, eid=workflow.eid, type="edit-workflow")
    tab = Tab(browser, DESKTOP)
    frame = open_in_app(tab, allowed, url, live_server, "#wfb[data-state=ready]")
    # The live preview, framed by the builder inside the app, shows the page as drafted.
    frame.wait_for_function("() => Number(document.getElementById('wfb').dataset.preview) >= 1")
    assert frame.query_selector("#header, .breadcrumbs, a[href*='/admin/']") is None

    frame.fill("#wfb-name", "Tenant application")
    frame.click("#wfb-save")
    [edit] = events(tab, 1)
    frame.click("#wfb-publish")
    [_, publish] = events(tab, 2)

    ids = {
        "requestTokenEid": edit["requestTokenEid"],
        "organizationEid": organization.eid,
        "weldEid": workflow.eid,
        "forgeEid": webform.eid,
    }
    assert edit == {"action": "weldEdit", **ids}
    assert publish == {"action": "weldPublish", "versionNumber": 2, **ids}
    webform.refresh_from_db()
    assert webform.name == "Tenant application"
    assert workflow.versions.count() == 2
    # The preview shown: the builder loads each draft in the spare frame, then swaps (preview.js).
    preview = frame.wait_for_selector(".wfb-frame:not([data-spare])").content_frame()
    assert preview.query_selector("form") is not None
    assert_axe_clean(frame)
    shoot(tab, "workflow-desktop.png")
    tab.page.set_viewport_size(TABLET_LANDSCAPE)
    shoot(tab, "workflow-tablet-landscape.png")
    tab.close()


def test_the_packet_builder_fits_a_phone(
    browser: Any, live_server: Any, allowed: str, organization: Organization, api_client: Client
) -> None:
    annex = annex_template(organization)
    options = {"castEids": [annex.eid]}
    url = generate(api_client, eid=organization.eid, type="edit-etch-packet", options=options)
    tab = touch_tab(browser, PHONE, refused_status=400)
    frame = open_in_app(tab, allowed, url, live_server, "#packet-builder[data-state=ready]")
    frame.tap("#pb-add-template")
    frame.wait_for_selector(".pb-page .pb-field.is-template")

    # One column, nothing wider than the phone; the pages under the settings.
    assert frame.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert_axe_clean(frame)
    shoot(tab, "packet-phone.png")
    # Sent without the signer's name: createEtchPacket's refusal, on the page and to the app.
    frame.tap("#pb-send")
    [refused] = events(tab, 1)
    assert refused["action"] == "etchPacketError"
    assert refused["errorType"] == "ValidationError"
    assert refused["status"] == 400
    assert "signers.0.name" in {f["property"] for f in refused["fields"]}
    assert frame.inner_text("#pb-message").startswith("Not sent: Check the boxes marked in red.")
    # The box at fault is marked and has the focus; typing in it clears the mark.
    name = frame.locator(".pb-signer input[type=text]").first
    assert name.get_attribute("aria-invalid") == "true"
    assert frame.evaluate("document.activeElement.id") == name.get_attribute("id")
    assert_axe_clean(frame)
    shoot(tab, "packet-phone-refused.png")
    name.fill("Ada Tenant")
    assert name.get_attribute("aria-invalid") is None
    assert not frame.is_disabled("#pb-send")  # corrected, it can be sent
    assert Packet.objects.count() == 0
    tab.close()


def test_a_save_the_link_does_not_allow_is_refused_and_the_app_told(
    browser: Any, live_server: Any, allowed: str, organization: Organization, api_client: Client
) -> None:
    template = template_create_from_pdf(organization=organization, title="Lease", pdf=blank_pdf())
    url = generate(api_client, eid=template.eid, type="edit-pdf-template", permissions=["publish"])
    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    frame = open_in_app(tab, allowed, url, live_server, "#editor[data-state=ready]")
    frame.wait_for_selector(".ed-page[data-page='0'].is-rendered")
    assert frame.query_selector("[data-action=save]") is None

    # Drawn on screen (nothing stops that), then Ctrl+S: the server refuses what the link lacks.
    overlay = frame.locator(".ed-overlay[data-page='0']").bounding_box()
    frame.click("[data-action=tool-draw]")
    tab.page.mouse.click(overlay["x"] + 100, overlay["y"] + 100)
    tab.page.keyboard.press("Control+s")
    [refused] = events(tab, 1)

    assert refused["action"] == "castError"
    assert refused["castEid"] == template.eid
    assert (refused["errorType"], refused["status"]) == ("ForbiddenError", 403)
    assert refused["error"] == "This link does not allow 'edit'."
    assert services.working_version(template).spec["fields"] == []
    tab.close()
