"""The certificate of completion draws a typed signature in the handwriting face it was stamped
in (esign.engine.handwriting, issue 49 item 6): Kristi for a Latin name, Noto Naskh Arabic for an
Arabic one (it fell back to the plain Noto Sans Arabic inside Kristi), and no handwriting face
for a script none covers. The packets are signed over HTTP, as a signing page does; no browser."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client

from esign.models import Packet
from esign.sealing.certificate import audit_trail_pdf
from tests.esign.conftest import DRAWN, USER_AGENT, sign, token_of, two_signer_packet
from tests.esign.test_typed_signature_faces_browser import (
    HANDWRITING_PDF_FONTS,
    NAMES,
    PDF_FONTS,
    pdf_fonts,
)
from tests.pdfcheck import words

pytestmark = pytest.mark.django_db


def signed(
    create_packet: Callable[..., dict[str, Any]],
    sign_url: Callable[[str], str],
    capture: Callable[..., Any],
    typed: str,
    second_typed: str = "",
) -> Packet:
    """The two-signer packet, the first signer typing ``typed``, the second drawing (or typing
    ``second_typed``)."""
    variables = two_signer_packet()
    if second_typed:
        variables["signers"][1]["signatureMode"] = "text"
    created = create_packet(signers=variables["signers"])
    signers = {s["aliasId"]: s["eid"] for s in created["documentGroup"]["signers"]}
    second = {"typed": second_typed} if second_typed else {"drawn": DRAWN}
    bodies = {
        "client": {"signature": {"typed": typed}, "values": {"agreement/title1": "Analyst"}},
        "provider": {"signature": second},
    }
    for alias, body in bodies.items():
        browser = Client(HTTP_USER_AGENT=USER_AGENT)
        token = token_of(sign_url(signers[alias]))
        assert browser.get(f"/api/etch/verify/{signers[alias]}?token={token}").status_code == 200
        with capture(execute=True):
            done = sign(browser, signers[alias], token, body)
        assert done.status_code == 200, done.content
    return Packet.objects.get(eid=created["eid"])


@pytest.mark.parametrize("language", ["en", "ar", "ja"])
def test_the_audit_trail_draws_a_typed_name_in_the_face_of_its_script(
    create_packet: Callable[..., dict[str, Any]],
    sign_url: Callable[[str], str],
    django_capture_on_commit_callbacks: Callable[..., Any],
    language: str,
) -> None:
    name = NAMES[language]
    packet = signed(create_packet, sign_url, django_capture_on_commit_callbacks, name)
    assert packet.signers.get(routing_order=1).signature_text == name

    pdf = audit_trail_pdf(packet, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]

    fonts = pdf_fonts(pdf)
    expected = PDF_FONTS[language]
    if expected is not None:
        assert expected in fonts, fonts
        assert not (HANDWRITING_PDF_FONTS - {expected}) & fonts, fonts
    else:
        assert not HANDWRITING_PDF_FONTS & fonts, fonts  # the plain fonts, as the stamp
    if language == "en":
        # The typed name is drawn (as text) once in the signer's box, beside their name.
        drawn = [word.text for page in words(pdf) for word in page]
        assert drawn.count("Lovelace") >= 2, drawn


def test_each_typed_signature_of_a_packet_is_drawn_in_the_face_of_its_own_script(
    create_packet: Callable[..., dict[str, Any]],
    sign_url: Callable[[str], str],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    """A Latin and an Arabic name in one packet: each in its own face, as each was stamped."""
    packet = signed(
        create_packet, sign_url, django_capture_on_commit_callbacks, NAMES["en"], NAMES["ar"]
    )

    pdf = audit_trail_pdf(packet, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]

    fonts = pdf_fonts(pdf)
    assert {PDF_FONTS["en"], PDF_FONTS["ar"]} <= fonts, fonts
    assert "NotoSansArabic-Regular" not in fonts, fonts  # the Arabic name's letters in Naskh
