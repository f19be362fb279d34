"""Signer fields in the visual editor, in a real browser: the real form's own signature field is
shown as one, the toolbar offers the signer types apart from the filled ones, and a signature
field placed with the mouse is saved with its rect."""

from __future__ import annotations

import pytest

from templates_app import services
from templates_app.services import template_create_from_pdf
from tests.fixtures import LOCAL_PDFS
from tests.templates_app.conftest import ARTIFACTS
from tests.templates_app.test_editor_browser import (
    assert_rect,
    drag,
    page,  # noqa: F401 - the fixture
    panel,
    rect_from_screen,
    working_spec,
    zoom,
)
from tests.templates_app.test_editor_browser import edit as edit  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_place_a_signature_field_on_a_real_form_and_save(
    page,  # noqa: F811 - the fixture imported above
    edit,
    organization,
) -> None:
    template = template_create_from_pdf(
        organization=organization,
        title="Employee record",
        pdf=(LOCAL_PDFS / "pdflib-sample-form-sig.pdf").read_bytes(),
    )
    edit(template)
    z = zoom(page)

    # The form's own /Sig field, imported as a signature field, in the signer colour.
    imported = page.locator(".ed-field.cat-signer")
    assert imported.count() == 1
    groups = page.evaluate(
        """() => [...document.querySelectorAll("#ed-new-type optgroup")].map(
            (g) => [g.label, [...g.querySelectorAll("option")].map((o) => o.value)])"""
    )
    assert groups[1] == [
        "Signed in a packet",
        ["signature", "initial", "signatureDate", "signerName"],
    ]
    assert groups[0][0] == "Filled from data"
    assert "shortText" in groups[0][1]
    assert "signature" not in groups[0][1]

    # Choose "Signature" for new fields (that also picks the draw tool) and drag a box in the
    # empty space above the form's signature line (PDF x 360..560, y 112..150).
    page.select_option("#ed-new-type", "signature")
    overlay = page.locator(".ed-overlay[data-page='0']")
    overlay.evaluate("(el) => el.scrollIntoView({block: 'end'})")
    box = overlay.bounding_box()
    left, top, right, bottom = 360 * z, (792 - 150) * z, 560 * z, (792 - 112) * z
    drag(page, (box["x"] + left, box["y"] + top), (box["x"] + right, box["y"] + bottom))
    assert page.locator(".ed-field.cat-signer").count() == 2
    assert panel(page, "type").input_value() == "signature"
    assert panel(page, "alias").input_value() == "signature1"
    # Nothing to style or lock: a signer's stamp fills the box.
    assert panel(page, "style.fontFamily").count() == 0
    assert panel(page, "readOnly").count() == 0
    assert page.locator(".ed-panel :text('a signer gets it by this field')").count() == 1
    page.wait_for_timeout(300)  # let the page's canvas settle for the picture
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "editor-signature-field.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 50_000

    page.keyboard.press("Control+s")
    page.wait_for_selector("#ed-status[data-status=saved]")

    signatures = [f for f in working_spec(template)["fields"] if f["type"] == "signature"]
    assert [f["alias"] for f in signatures] == ["employeeSignature", "signature1"]
    placed = signatures[1]
    assert placed["page"] == 0
    assert_rect(placed["rect"], rect_from_screen(left, top, right, bottom, z))
    assert_rect(placed["rect"], {"x": 360, "y": 112, "width": 200, "height": 38})
    # Saved as a valid template: it publishes, and cast would list both by id.
    services.template_publish(template=template)
