"""generate-pdf with ``fieldTags: true``: a generated contract's text tags become its form fields.

Each document is generated twice, without and with ``fieldTags``: poppler's boxes of the tag
words in the first are where the fields of the second must be (within 2 pt); the text of the
second (pypdf, pdftotext) has no tag left; its fields (pypdf) have the tags' names and types.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures import HTML
from tests.generate.conftest import (
    AssetServer,
    generate_pdf,
    layout_texts,
    page_texts,
    post,
    reader,
    words,
)
from tests.generate.test_fixtures import absolute, serve_sample
from tests.generate.test_jobs import post_async, run_queued_jobs
from tests.pdfcheck import PopplerWord
from tests.pdfsound import assert_sound

pytestmark = pytest.mark.django_db

CONTRACT = """
<h1>Residential lease</h1>
<p style="font-family: 'Noto Serif'; font-size: 11pt">The tenant {{Tenant Name}} rents the flat.</p>
<p style="font-size: 16pt">Tenant: {{Signature;role=Tenant}}</p>
<p style="font-family: 'Courier'; font-size: 9pt">Signed on {{date;type=date;signer=1}}</p>
<p style="width: 110pt; font-size: 10pt">Landlord's signature here: {{Landlord signature;type=signature;role=Landlord}}</p>
<table style="border-collapse: collapse; font-size: 12pt">
  <tr><th style="border: 1px solid black">Clause</th><th style="border: 1px solid black">Initials</th></tr>
  <tr><td style="border: 1px solid black">Pets</td><td style="border: 1px solid black">{{initials;type=initial}}</td></tr>
  <tr><td style="border: 1px solid black">I agree</td><td style="border: 1px solid black">{{agree;type=checkbox}}</td></tr>
</table>
<p style="font-family: 'Times New Roman'; font-size: 8pt">Witness: {{signature, r3}}</p>
"""


def _payload(html: str, css: str = "", **extra: Any) -> dict[str, Any]:
    return {"type": "html", "data": {"html": html, "css": css}, **extra}


def _tag_words(pdf: bytes) -> list[PopplerWord]:
    return [w for w in words(pdf) if "{{" in w.text or "}}" in w.text or w.text.endswith(";")]


def _widgets(pdf: bytes) -> dict[str, Any]:
    return {
        str(annot.get_object()["/T"]): (number, annot.get_object())
        for number, page in enumerate(reader(pdf).pages)
        for annot in page.get("/Annots", [])
        if "/T" in annot.get_object()
    }


def _rect(widget: Any) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = (float(v) for v in widget["/Rect"])
    return x0, y0, x1, y1


def _assert_at_word(widget: Any, word: PopplerWord) -> None:
    """The widget covers the word poppler read where the tag was, within 2 pt each way."""
    x0, y0, x1, y1 = _rect(widget)
    top, bottom = word.page_height - word.y_min, word.page_height - word.y_max
    assert x0 == pytest.approx(word.x_min, abs=2)
    assert x1 == pytest.approx(word.x_max, abs=2)
    assert y0 == pytest.approx(bottom, abs=2)
    assert y1 == pytest.approx(top, abs=2)


def test_a_contracts_tags_become_its_fields(client_for, production_key) -> None:
    client = client_for(production_key)
    plain = generate_pdf(client, _payload(CONTRACT))
    pdf = generate_pdf(client, _payload(CONTRACT, fieldTags=True))

    assert_sound(pdf)
    fields = reader(pdf).get_fields()
    assert {name: str(field["/FT"]) for name, field in fields.items()} == {
        "tenantName": "/Tx",
        "signature": "/Sig",
        "date": "/Tx",
        "landlordSignature": "/Sig",
        "initials": "/Sig",
        "agree": "/Btn",
        "signature2": "/Sig",
    }
    widgets = _widgets(pdf)
    assert str(widgets["tenantName"][1]["/TU"]) == "Tenant Name"
    assert str(widgets["landlordSignature"][1]["/TU"]) == "Landlord signature"

    # Where each tag was printed (poppler, in the PDF without fieldTags).
    tag_words = {w.text: w for w in _tag_words(plain)}
    _assert_at_word(widgets["tenantName"][1], _union(tag_words["{{Tenant"], tag_words["Name}}"]))
    _assert_at_word(widgets["signature"][1], tag_words["{{Signature;role=Tenant}}"])
    _assert_at_word(widgets["date"][1], tag_words["{{date;type=date;signer=1}}"])
    # In a table cell.
    _assert_at_word(widgets["initials"][1], tag_words["{{initials;type=initial}}"])
    # The checkbox: square, where the tag starts, as tall as its line.
    x0, y0, x1, y1 = _rect(widgets["agree"][1])
    agree = tag_words["{{agree;type=checkbox}}"]
    assert x0 == pytest.approx(agree.x_min, abs=2)
    assert x1 - x0 == pytest.approx(y1 - y0, abs=0.01)
    assert y0 == pytest.approx(agree.page_height - agree.y_max, abs=2)
    # Broken over two lines: at the wider of its pieces.
    pieces = [w for w in _tag_words(plain) if "Landlord" in w.text or "signature;" in w.text]
    assert len({round(w.y_min) for w in pieces}) >= 2, pieces
    _assert_at_word(widgets["landlordSignature"][1], max(pieces, key=lambda w: w.x_max - w.x_min))

    # The tags' text is gone; the rest of the contract is there.
    for text in ("\n".join(page_texts(pdf)), "\n".join(layout_texts(pdf))):
        assert "{{" not in text
        assert "}}" not in text
        assert "role=" not in text
        assert "The tenant" in text
        assert "rents the flat." in text
        assert "Pets" in text
        assert "I agree" in text
        assert "Witness:" in text


def _union(a: PopplerWord, b: PopplerWord) -> PopplerWord:
    """Two words of one tag (poppler splits at spaces) as one box."""
    return PopplerWord(
        a.page, a.page_height, a.text + " " + b.text,
        min(a.x_min, b.x_min), min(a.y_min, b.y_min), max(a.x_max, b.x_max), max(a.y_max, b.y_max),
    )  # fmt: skip


def test_malformed_tags_are_a_400_naming_each_with_its_page(client_for, production_key) -> None:
    html = (
        "<p>{{name}}</p><p style='break-before: page'>{{x;type=zzz}}</p>"
        "<p>{{Signature;role=Tenant</p>"
    )
    response = post(client_for(production_key), _payload(html, fieldTags=True))

    assert response.status_code == 400
    body = response.json()
    assert body["name"] == "ValidationError"
    assert body["fields"] == [
        {
            "property": "data",
            "message": 'Text tag {{x;type=zzz}} on page 2: "zzz" is not a field type.',
        },
        {
            "property": "data",
            "message": "Text tag {{Signature;role=Tenant on page 2: This {{ is never closed by }}.",
        },
    ]


def test_without_field_tags_the_tags_are_text(client_for, production_key) -> None:
    pdf = generate_pdf(client_for(production_key), _payload("<p>{{name}} {{x;type=zzz}}</p>"))

    assert "{{name}} {{x;type=zzz}}" in page_texts(pdf)[0]
    assert not reader(pdf).get_fields()


def test_field_tags_must_be_a_boolean(api_client) -> None:
    response = post(api_client, _payload("<p>x</p>", fieldTags="yes"))

    assert response.status_code == 400
    assert response.json()["fields"] == [{"property": "fieldTags", "message": "Must be true or false."}]  # fmt: skip


def test_markdown_documents_take_tags_too(client_for, production_key) -> None:
    payload = {
        "data": [{"heading": "Agreement"}, {"content": "Signed: {{signature, r1}}"}],
        "fieldTags": True,
    }
    pdf = generate_pdf(client_for(production_key), payload)

    assert {name: str(f["/FT"]) for name, f in reader(pdf).get_fields().items()} == {
        "signature": "/Sig"
    }
    assert "{{" not in page_texts(pdf)[0]


def test_a_real_letter_with_its_own_form_keeps_it_beside_the_tags(
    client_for, production_key, asset_server: AssetServer
) -> None:
    """WeasyPrint's letter sample (its fonts, stylesheet and logo, and an HTML form WeasyPrint
    writes as AcroForm fields), with tags written into its text."""
    folder = HTML / "weasyprint-letter"
    base = serve_sample(asset_server, folder)
    html = (folder / "letter.html").read_text()
    html = html.replace(
        "<p>Estelle Carotte</p>",
        "<p>Estelle Carotte {{Signature;role=Sender}}</p><p>Le {{Date;type=datenow}}</p>",
    )
    assert "{{Signature" in html
    html, css = absolute(html, base), absolute((folder / "style.css").read_text(), base)
    page = {"page": {"width": "210mm", "height": "297mm"}}
    plain = generate_pdf(client_for(production_key), _payload(html, css, **page))
    pdf = generate_pdf(client_for(production_key), _payload(html, css, fieldTags=True, **page))

    fields = reader(pdf).get_fields()
    # The letter's own form fields are still there, beside the tags'.
    assert {"name", "firstname", "address", "products"} <= set(fields)
    assert str(fields["signature"]["/FT"]) == "/Sig"
    assert str(fields["date"]["/FT"]) == "/Tx"
    tag_words = {w.text: w for w in _tag_words(plain)}
    widgets = _widgets(pdf)
    _assert_at_word(widgets["signature"][1], tag_words["{{Signature;role=Sender}}"])
    _assert_at_word(widgets["date"][1], tag_words["{{Date;type=datenow}}"])
    text = "\n".join(layout_texts(pdf))
    assert "{{" not in text
    assert "Estelle Carotte" in text
    assert "Cher Aurélien Leno," in text


def test_the_development_watermark_crossing_a_tag_is_kept(api_client) -> None:
    """A development key's diagonal watermark runs across the middle of the page, over the
    tags written there: its letters are not the tags' and stay."""
    lines = "".join(
        "<p style='margin: 0; font-size: 14pt'>" + f"{{{{field{n}}}}} " * 4 + "</p>"
        for n in range(1, 31)
    )
    plain = generate_pdf(api_client, _payload(lines))
    pdf = generate_pdf(api_client, _payload(lines, fieldTags=True))

    assert "DEVELOPMENT" in page_texts(plain)[0]
    assert "DEVELOPMENT" in page_texts(pdf)[0]
    assert "{{" not in page_texts(pdf)[0]
    assert len(reader(pdf).get_fields()) == 120


def test_an_async_generate_places_the_tags_or_fails_with_the_400s_body(
    client_for, production_key
) -> None:
    client = client_for(production_key)
    good = post_async(client, _payload("<p>Sign: {{Signature;role=Tenant}}</p>", fieldTags=True))
    bad = post_async(client, _payload("<p>{{x;type=zzz}}</p>", fieldTags=True))

    assert sorted(run_queued_jobs()) == ["done", "failed"]

    pdf = client.get(good.json()["statusURL"]).content
    assert {name: str(f["/FT"]) for name, f in reader(pdf).get_fields().items()} == {
        "signature": "/Sig"
    }
    failed = client.get(bad.json()["statusURL"]).json()
    assert failed["status"] == "failed"
    assert failed["error"] == {
        "name": "ValidationError",
        "fields": [
            {
                "property": "data",
                "message": 'Text tag {{x;type=zzz}} on page 1: "zzz" is not a field type.',
            }
        ],
    }
