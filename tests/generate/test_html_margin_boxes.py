"""HTML mode's margin boxes, page selectors and named pages, checked in the PDF: running headers
and footers, page n of m, running elements in each of the ten margin boxes, first, left and
right pages, a named page in landscape."""

from __future__ import annotations

import pytest

from tests.generate.conftest import generate_pdf, layout_texts, page_sizes, page_texts, word, words
from tests.generate.test_html import html, paragraphs

pytestmark = pytest.mark.django_db


# -- margin boxes, page selectors, named pages -----------------------------------------------------

RUNNING_CSS = """
@page {
  @top-center { content: element(header) }
  @bottom-center { content: element(footer) }
  @bottom-right { content: "Page " counter(page) " of " counter(pages) }
}
.header { position: running(header) }
.footer { position: running(footer) }
"""


def test_running_header_footer_and_page_n_of_m_on_every_page(production_client) -> None:
    body = (
        '<div class="header">Acme Running Header</div><div class="footer">Confidential Footer</div>'
        + paragraphs(150)
    )
    pdf = generate_pdf(production_client, html(body, RUNNING_CSS))

    texts = layout_texts(pdf)
    assert len(texts) > 3
    for number, text in enumerate(texts, 1):
        assert "Acme Running Header" in text
        assert "Confidential Footer" in text
        assert f"Page {number} of {len(texts)}" in text
        lines = [line for line in text.splitlines() if line.strip()]
        assert "Acme Running Header" in lines[0]
        assert "Confidential Footer" in lines[-1]


def test_a_running_element_applies_from_the_page_where_it_appears(production_client) -> None:
    body = paragraphs(60) + '<div class="footer">Late Footer</div>' + paragraphs(60, "More")
    pdf = generate_pdf(production_client, html(body, RUNNING_CSS))

    texts = layout_texts(pdf)
    first_with = next(i for i, text in enumerate(texts) if "Late Footer" in text)
    assert first_with >= 1
    assert all("Late Footer" not in text for text in texts[:first_with])
    assert all("Late Footer" in text for text in texts[first_with:])


@pytest.mark.parametrize(
    "box",
    [
        "top-left-corner", "top-left", "top-center", "top-right", "top-right-corner",
        "bottom-left-corner", "bottom-left", "bottom-center", "bottom-right", "bottom-right-corner",
    ],
)  # fmt: skip
def test_running_elements_in_each_of_the_ten_margin_boxes(production_client, box) -> None:
    css = f"@page {{ margin: 1in; @{box} {{ content: element(mark) }} }} .m {{ position: running(mark) }}"
    pdf = generate_pdf(production_client, html(f'<div class="m">BOX</div>{paragraphs(80)}', css))

    placed = [w for w in words(pdf) if w.text == "BOX"]
    pages = len(page_sizes(pdf))
    assert pages > 1
    assert [w.page for w in placed] == list(range(1, pages + 1))
    mark = placed[0]
    assert (mark.y_max < 72) if box.startswith("top") else (mark.y_min > 792 - 72)
    if "corner" in box:
        assert (mark.x_max <= 72.5) if "left" in box else (mark.x_min >= 612 - 72.5)
    elif box.endswith("left"):
        assert 72 <= mark.x_min < 200
    elif box.endswith("right"):
        assert 412 < mark.x_max <= 540.5
    else:
        assert 250 < mark.x_min < 362


FALLBACK_CSS = """
@page {
  margin: 1in;
  @top-center { content: "Fallback"; content: element(header) " extra"; }
  @bottom-center { content: element(footer) }
}
.header { position: running(header) }
.footer { position: running(footer) }
"""


@pytest.mark.parametrize("where", ["data.css", "style element"])
def test_element_combined_with_other_content_is_invalid_so_the_earlier_content_applies(
    production_client, where
) -> None:
    body = '<div class="header">RunningHead</div><div class="footer">RunningFoot</div><p>Body</p>'
    if where == "data.css":
        payload = html(body, FALLBACK_CSS)
    else:
        payload = html(f"<style>{FALLBACK_CSS}</style>{body}")
    pdf = generate_pdf(production_client, payload)

    # css-gcpm: element() "cannot be combined with any other values", so that declaration is
    # invalid and the earlier one is used; the running element is out of the flow either way.
    fallback = word(pdf, "Fallback")
    assert fallback.y_max < 72
    assert 250 < fallback.x_min < 362
    assert [w.text for w in words(pdf)] == ["Fallback", "Body", "RunningFoot"]
    assert word(pdf, "RunningFoot").y_min > 792 - 72  # element() on its own still works


def test_first_left_and_right_page_selectors(production_client) -> None:
    css = """
    @page { @top-left { content: "Every page" } }
    @page :first { @top-left { content: "Title page" } }
    @page :right { @top-right { content: "Right side" } }
    @page :left { @top-right { content: "Left side" } }
    """
    pdf = generate_pdf(production_client, html(paragraphs(150), css))

    texts = layout_texts(pdf)
    assert len(texts) > 3
    assert "Title page" in texts[0]
    assert "Every page" not in texts[0]
    assert all("Every page" in t and "Title page" not in t for t in texts[1:])
    # The first page of a left-to-right document is a right page.
    assert ["Right side" in t for t in texts] == [i % 2 == 0 for i in range(len(texts))]
    assert ["Left side" in t for t in texts] == [i % 2 == 1 for i in range(len(texts))]


def test_a_named_page_in_landscape(production_client) -> None:
    css = "@page wide { size: 11in 8.5in } #appendix { page: wide }"
    body = "<p>Portrait</p><section id='appendix'><p>Landscape table</p></section>"
    pdf = generate_pdf(production_client, html(body, css))

    assert page_sizes(pdf) == [(612.0, 792.0), (792.0, 612.0)]
    assert "Portrait" in page_texts(pdf)[0]
    assert "Landscape table" in page_texts(pdf)[1]
