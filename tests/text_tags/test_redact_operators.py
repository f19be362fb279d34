"""The glyph remover reads every text operator: spacing (Tc, Tw), scaling (Tz), leading (TL,
T*, ', "), kerning in TJ arrays, the CTM; the words after a removed tag stay where they were.
A tag drawn inside a form XObject is out of its reach, and said to be.

The pages' content streams are written here by hand (on a reportlab page for the font).
"""

from __future__ import annotations

import io

import pikepdf
import pytest
from reportlab.pdfgen import canvas

from templates_app.engine.text_tags import apply_text_tags
from tests.pdfcheck import poppler_words

CONTENT = b"""
q 1 0 0 1 10 -20 cm
BT /F1 12 Tf 16 TL 72 700 Td 1.5 Tc 4 Tw 120 Tz
(Name: {{name}} end) Tj
T* ({{sig;type=signature}} tail) '
2 0.5 (x {{date;type=date}} yy) "
0 Tc 0 Tw 100 Tz 0 -20 Td
[(A ) -50 ({{agree;) 30 (type=checkbox}}) 100 ( B)] TJ
ET Q
"""


def _pdf(content: bytes, xobject: bytes | None = None) -> bytes:
    buffer = io.BytesIO()
    drawing = canvas.Canvas(buffer, pagesize=(612, 792))
    drawing.setFont("Helvetica", 12)
    drawing.drawString(72, 100, "font")  # the page gets Helvetica as /F1
    drawing.save()
    pdf = pikepdf.open(io.BytesIO(buffer.getvalue()))
    page = pdf.pages[0]
    font = page.Resources.Font
    name = next(iter(font.keys()))
    page.obj.Contents = pdf.make_stream(content.replace(b"/F1", name.encode()))
    if xobject is not None:
        form = pdf.make_stream(
            xobject.replace(b"/F1", name.encode()),
            Type=pikepdf.Name.XObject,
            Subtype=pikepdf.Name.Form,
            BBox=[0, 0, 612, 792],
            Resources=pikepdf.Dictionary(Font=font),
        )
        page.Resources.XObject = pikepdf.Dictionary(Fm1=form)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def _positions(pdf: bytes) -> dict[str, tuple[float, float]]:
    return {w.text: (round(w.x_min, 2), round(w.y_min, 2)) for w in poppler_words(pdf)}


def test_spacing_scaling_leading_and_kerning_are_followed() -> None:
    source = _pdf(CONTENT)

    tagged = apply_text_tags(source)

    assert [(f.alias, f.type) for f in tagged.fields] == [
        ("name", "shortText"),
        ("sig", "signature"),
        ("date", "date"),
        ("agree", "checkbox"),
    ]
    assert tagged.problems == ()
    before, after = _positions(source), _positions(tagged.pdf)
    assert not [text for text in after if "{{" in text or "}}" in text]
    for text in ("Name:", "end", "tail", "x", "yy", "A", "B"):
        assert after[text] == pytest.approx(before[text], abs=0.01), text
    # The fields are where the tags were: a tag's box starts where poppler read it.
    assert tagged.fields[0].rect.x == pytest.approx(before["{{name}}"][0], abs=2)
    assert tagged.fields[2].rect.x == pytest.approx(before["{{date;type=date}}"][0], abs=2)


def test_a_tag_inside_a_form_xobject_is_said_to_be_left() -> None:
    xobject = b"BT /F1 12 Tf 72 500 Td ({{hidden}}) Tj ET"
    source = _pdf(b"q /Fm1 Do Q BT /F1 12 Tf 72 600 Td ({{seen}}) Tj ET", xobject)

    tagged = apply_text_tags(source)

    assert [(p.page, p.text, p.message) for p in tagged.problems] == [
        (0, "{{hidden}}", "The tag's text could not be removed.")
    ]
    texts = {w.text for w in poppler_words(tagged.pdf)}
    assert "{{seen}}" not in texts
    assert "{{hidden}}" in texts
