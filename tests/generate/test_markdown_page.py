"""Markdown mode's page, in the PDF: the service logo (default, custom, from a data URI, broken),
the timestamp, page settings and page count, the title, and a real README rendered whole."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

from tests.fixtures import MARKDOWN
from tests.generate.conftest import (
    fonts,
    generate_pdf,
    layout_texts,
    page_image,
    page_sizes,
    page_texts,
    reader,
    word,
)
from tests.generate.test_markdown import data_uri, png

pytestmark = pytest.mark.django_db


# -- logo, timestamp, page ----------------------------------------------------------------------


def _blue_in_top_right(pdf: bytes) -> int:
    image = page_image(pdf, dpi=50)
    width, height = image.size
    corner = image.crop((int(width * 0.6), 0, width, int(height * 0.15)))
    return sum(1 for r, g, b in corner.get_flattened_data() if b > 120 and r < 80 and g < 110)


def test_service_logo_in_the_top_right_corner_by_default_and_removed_by_false(
    production_client,
) -> None:
    with_logo = generate_pdf(production_client, {"data": [{"content": "Logo test"}]})
    without = generate_pdf(production_client, {"data": [{"content": "Logo test"}], "logo": False})

    assert _blue_in_top_right(with_logo) > 50
    assert _blue_in_top_right(without) == 0
    assert "Logo test" in page_texts(without)[0]


def test_custom_logo_is_fetched_and_fits_its_maximum_size(production_client, asset_server) -> None:
    url = asset_server.serve("/logo.png", png((255, 0, 0), 400, 100), "image/png")
    pdf = generate_pdf(
        production_client,
        {"data": [{"content": "x"}], "logo": {"src": url, "maxWidth": 120, "maxHeight": 80}},
    )

    assert len(reader(pdf).pages[0].images) == 1
    image = page_image(pdf, dpi=96)  # 1 CSS px per pixel
    red = [
        (x, y)
        for y in range(image.height)
        for x in range(image.width)
        if image.getpixel((x, y))[0] > 200 and image.getpixel((x, y))[1] < 60
    ]
    xs, ys = [x for x, _ in red], [y for _, y in red]
    assert max(xs) - min(xs) + 1 == pytest.approx(120, abs=2)  # 400x100 scaled to fit 120 wide
    assert max(ys) - min(ys) + 1 == pytest.approx(30, abs=2)
    assert max(xs) > image.width * 0.75  # right-hand side
    assert max(ys) < image.height * 0.2  # top of the first page


def test_logo_from_a_data_uri_with_default_size(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        {"data": [{"content": "x"}], "logo": {"src": data_uri(png((255, 0, 0), 600, 600))}},
    )

    image = page_image(pdf, dpi=96)
    red = [
        x
        for x in range(image.width)
        if image.getpixel((x, 120))[0] > 200 and image.getpixel((x, 120))[1] < 60
    ]
    assert len(red) == pytest.approx(200, abs=2)  # maxWidth and maxHeight default to 200


def test_a_broken_logo_is_skipped(production_client, asset_server) -> None:
    url = asset_server.serve("/logo.png", b"not an image", "image/png")
    pdf = generate_pdf(
        production_client, {"data": [{"content": "Still here"}], "logo": {"src": url}}
    )

    assert "Still here" in page_texts(pdf)[0]
    assert len(reader(pdf).pages[0].images) == 0


def test_timestamp_at_the_bottom_by_default(production_client) -> None:
    before = timezone.now().replace(second=0, microsecond=0)
    stamped = generate_pdf(production_client, {"data": [{"content": "Stamped"}]})
    after = timezone.now()
    unstamped = generate_pdf(
        production_client, {"data": [{"content": "Stamped"}], "includeTimestamp": False}
    )

    match = re.search(r"Generated (\d{4}-\d\d-\d\d \d\d:\d\d) UTC", page_texts(stamped)[-1])
    assert match is not None
    when = datetime.datetime.strptime(match.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=datetime.UTC)
    assert before <= when <= after
    assert word(stamped, "Generated").y_min > word(stamped, "Stamped").y_max
    assert "Generated" not in page_texts(unstamped)[-1]


def test_markdown_page_settings_and_page_count(production_client) -> None:
    data = [{"content": f"Paragraph {i} " + "text " * 30} for i in range(40)]
    pdf = generate_pdf(
        production_client,
        {
            "data": data,
            "page": {
                "width": "148mm",
                "height": "210mm",
                "margin": "15mm",
                "pageCount": "bottomRight",
            },
        },
    )

    sizes = page_sizes(pdf)
    assert len(sizes) > 2
    assert sizes[0] == (pytest.approx(419.53, abs=0.05), pytest.approx(595.28, abs=0.05))
    for number, text in enumerate(layout_texts(pdf), 1):
        assert f"Page {number} of {len(sizes)}" in text
    assert word(pdf, "Paragraph").x_min == pytest.approx(42.52, abs=1)


def test_title_in_markdown_mode(production_client) -> None:
    pdf = generate_pdf(production_client, {"data": [{"content": "x"}], "title": "Report 7"})

    assert reader(pdf).metadata.title == "Report 7"


def test_real_readme_renders_with_its_tables_and_code(production_client) -> None:
    readme = (MARKDOWN / "pdfplumber-README.md").read_text()
    pdf = generate_pdf(
        production_client,
        {"data": [{"heading": "pdfplumber", "content": readme}], "title": "README"},
    )

    texts = layout_texts(pdf)  # poppler: pypdf misreads the custom encoding of a large subset
    joined = "\n".join(texts)
    assert len(texts) > 10
    assert "Plumb a PDF for detailed information" in joined
    assert "Visual debugging" in joined
    assert "Liberation-Mono" in fonts(pdf)  # the fenced code blocks
    # Remote badges cannot be reached here and the relative screenshot has no base URL: both
    # are skipped without failing the document.
    assert sum(len(page.images) for page in reader(pdf).pages) == 0
