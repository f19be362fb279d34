"""The real-world HTML samples in ../shared/fixtures/html render, with their page features.

The CSS-WG and Paged.js samples are sent as they are (their inline styles carry everything).
The WeasyPrint samples link a stylesheet, fonts and images by relative URL; a generate request
has no base URL, so the test serves each sample's folder and sends the stylesheet as ``css``
with its relative URLs made absolute, as an integrator would.
"""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path

import pytest

from tests.fixtures import HTML
from tests.generate.conftest import (
    AssetServer,
    fonts,
    generate_pdf,
    layout_texts,
    page_image,
    page_sizes,
    reader,
    word,
    words,
)

pytestmark = pytest.mark.django_db

CSSWG = HTML / "csswg-test-paged"
A4 = (pytest.approx(595.28, abs=0.05), pytest.approx(841.89, abs=0.05))
LETTER = (612.0, 792.0)


def render(client, path: Path, css: str = "", *, base: str | None = None, **extra: object) -> bytes:  # noqa: ANN001
    """Generate a sample; with ``base``, its relative URLs (HTML and CSS) point there."""
    html = path.read_text()
    if base is not None:
        html, css = absolute(html, base), absolute(css, base)
    return generate_pdf(
        client,
        {"type": "html", "data": {"html": html, "css": css}, "title": path.name, **extra},
    )


# The WeasyPrint samples are made for WeasyPrint's default page, A4 (the service's is letter).
A4_PAGE = {"page": {"width": "210mm", "height": "297mm"}}


def page_size(width: float, height: float) -> tuple[object, object]:
    """A page size in points as the samples' references give it, to 0.05 pt."""
    return pytest.approx(width, abs=0.05), pytest.approx(height, abs=0.05)


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


# -- CSS working group paged media tests ----------------------------------------------------------


def test_csswg_leader(production_client) -> None:
    pdf = render(production_client, CSSWG / "css-gcpm-3__leader-001.html")

    assert re.search(r"Chapter One \.{20,} 1", layout_texts(pdf)[0])


@pytest.mark.parametrize(
    ("name", "running_head"),
    [
        ("css-gcpm-3__string-set-001.html", "hello, world"),
        ("css-gcpm-3__using-strings-001.html", "Section One"),
    ],
)
def test_csswg_named_strings_in_the_running_head(production_client, name, running_head) -> None:
    pdf = render(production_client, CSSWG / name)

    assert lines(layout_texts(pdf)[0])[0] == running_head
    assert word(pdf, running_head.split()[0]).y_max < 36  # in the top margin


def test_csswg_forced_page_break_for_a_named_page(production_client) -> None:
    pdf = render(production_client, CSSWG / "css-page-3__forced-page-breaks-002.xht")

    texts = layout_texts(pdf)
    assert len(texts) == 2
    assert "This sentence must appear on a new page." in texts[1]


def test_csswg_page_background_covers_the_page(production_client) -> None:
    pdf = render(production_client, CSSWG / "css-page-3__page-background-000.xht")

    image = page_image(pdf, dpi=20)
    assert image.getpixel((1, 1)) == (0xCC, 0xFF, 0xCC)
    assert image.getpixel((image.width - 2, image.height - 2)) == (0xCC, 0xFF, 0xCC)


def test_csswg_page_counter_and_page_break(production_client) -> None:
    pdf = render(production_client, CSSWG / "css-page-3__page-counters-000.xht")

    texts = layout_texts(pdf)
    assert len(texts) == 2
    assert lines(texts[0])[0] == "Chapter 0"
    assert "should appear on the second page" in texts[1]
    # WeasyPrint shows document counters in margin boxes with their value at the document's
    # start, so the second page also says "Chapter 0" (the reference wants 4): documented.
    assert lines(texts[1])[0].startswith("Chapter ")


def test_csswg_page_margin_in_em_of_the_page_font_size(production_client) -> None:
    pdf = render(production_client, CSSWG / "css-page-3__page-margin-003.xht")

    # 2em of 18pt = 36pt; the grey starts there (the body's own 8px margin is grey too).
    image = page_image(pdf, dpi=72)
    assert image.getpixel((30, 100)) == (255, 255, 255)
    assert image.getpixel((40, 100)) == (0xCC, 0xCC, 0xCC)
    assert word(pdf, "This").x_min == pytest.approx(36 + 6, abs=1)


@pytest.mark.parametrize(
    ("name", "size", "margin"),
    [
        (
            "css-page-3__page-size-000.xht",
            (pytest.approx(841.89, abs=0.05), pytest.approx(595.28, abs=0.05)),
            None,
        ),
        ("css-page-3__page-size-003.xht", A4, 56.69),
        ("css-page-3__page-size-007.xht", LETTER, 72.0),
    ],
)
def test_csswg_page_sizes(production_client, name, size, margin) -> None:
    pdf = render(production_client, CSSWG / name)

    assert page_sizes(pdf) == [size]
    if margin is not None:
        # The page's 2pt border sits inside the margin, the body's 8px (6pt) margin inside it.
        first = words(pdf)[0]
        assert first.x_min == pytest.approx(margin + 2 + 6, abs=1)


def test_csswg_first_page_is_a_right_page(production_client) -> None:
    pdf = render(production_client, CSSWG / "css21__page-box__first-page-selectors-001.xht")

    # :first puts the top margin at 50%, :right the left margin: the box starts at the centre
    # (the text then sits inside its borders, padding and the body's margin).
    assert 306 < word(pdf, "When").x_min < 330
    assert 396 < word(pdf, "When").y_min < 420


# -- Paged.js spec pages --------------------------------------------------------------------------


def test_pagedjs_counter_pages(production_client) -> None:
    pdf = render(production_client, HTML / "pagedjs-counter-pages" / "counter-pages.html")

    texts = layout_texts(pdf)
    assert len(texts) > 3
    assert set(page_sizes(pdf)) == {(432.0, 576.0)}  # 6in x 8in
    for number, text in enumerate(texts, 1):
        assert lines(text)[-1] == f"{number}/{len(texts)}"


def test_pagedjs_long_table_repeats_its_header(production_client) -> None:
    pdf = render(production_client, HTML / "pagedjs-long-table-thead" / "long-table.html")

    texts = layout_texts(pdf)
    assert all(size == page_size(396.85, 425.2) for size in page_sizes(pdf))
    table_pages = [text for text in texts if re.search(r"^\s*1\s*[a-z]\s*$", text, re.M)]
    assert len(table_pages) >= 2
    assert all(lines(text)[0] == "# Name" for text in table_pages)


def test_pagedjs_all_margin_boxes(production_client) -> None:
    pdf = render(production_client, HTML / "pagedjs-margin-boxes-all16" / "dimension.html")

    texts = layout_texts(pdf)
    assert set(page_sizes(pdf)) == {(432.0, 576.0)}
    assert "Header in Left Cell (top-left)" in texts[0]
    assert "Header in Center Cell (top-center)" in texts[1]
    for number, text in enumerate(texts, 1):
        assert lines(text)[-1].endswith(str(number))


def test_pagedjs_named_chapter_pages(production_client) -> None:
    pdf = render(production_client, HTML / "pagedjs-named-page" / "named-page.html")

    texts = layout_texts(pdf)
    assert all(size == page_size(419.53, 595.28) for size in page_sizes(pdf))
    chapter = [i for i, text in enumerate(texts) if "this is a chapter" in text]
    assert 0 not in chapter  # the introduction is not a chapter page
    assert len(chapter) >= 3
    assert page_image(pdf, chapter[0] + 1, dpi=20).getpixel((2, 2)) == (255, 255, 0)
    assert page_image(pdf, 1, dpi=20).getpixel((2, 2)) == (255, 255, 255)


# -- WeasyPrint samples, served with their fonts and images ---------------------------------------


def serve_sample(server: AssetServer, folder: Path) -> str:
    """Serve every file of ``folder``; return the base URL of the folder."""
    types = {".ttf": "font/ttf", ".css": "text/css", ".svg": "image/svg+xml"}
    for path in folder.rglob("*"):
        if path.is_file():
            media_type = types.get(path.suffix) or mimetypes.guess_type(path.name)[0]
            server.serve(
                f"/{folder.name}/{path.relative_to(folder)}",
                path.read_bytes(),
                media_type or "application/octet-stream",
            )
    return server.url(f"/{folder.name}/")


def render_sample(client, server: AssetServer, sample: str, html: str, css: str) -> bytes:  # noqa: ANN001
    """The WeasyPrint sample in HTML/``sample`` (its ``html`` page and ``css`` stylesheet),
    rendered on an A4 page with its fonts and images served from ``server``."""
    folder = HTML / sample
    base = serve_sample(server, folder)
    return render(client, folder / html, (folder / css).read_text(), base=base, **A4_PAGE)


def absolute(text: str, base: str) -> str:
    """Relative ``url(...)`` and ``src="..."`` references made absolute against ``base``."""
    text = re.sub(
        r"url\((['\"]?)(?!data:|https?:|#)([^)'\"]+)\1\)",
        lambda m: f'url("{base}{m.group(2)}")',
        text,
    )
    return re.sub(r'src="(?!data:|https?:|#)([^"]+)"', lambda m: f'src="{base}{m.group(1)}"', text)


@pytest.mark.parametrize("stylesheet", ["invoice.css", "invoice.pre-nesting.css"])
def test_weasyprint_invoice(production_client, asset_server, stylesheet) -> None:
    pdf = render_sample(
        production_client, asset_server, "weasyprint-invoice", "invoice.html", stylesheet
    )

    text = layout_texts(pdf)[0]
    assert page_sizes(pdf) == [A4]
    assert "♥ Thank you!" in text
    assert "contact@courtbouillon.org" in text
    assert word(pdf, "contact@courtbouillon.org").y_min > 841.89 - 72  # @bottom-right
    assert {"Pacifico", "Source-Sans-Pro", "Source-Sans-Pro-Bold"} <= fonts(pdf)


def test_weasyprint_report(production_client, asset_server) -> None:
    pdf = render_sample(
        production_client, asset_server, "weasyprint-report", "report.html", "report.css"
    )

    texts = layout_texts(pdf)
    assert len(texts) == 8  # as the sample's reference PDF
    assert all(size == A4 for size in page_sizes(pdf))
    assert len(reader(pdf).pages[0].images) == 1  # the cover photo, on the :first page only
    assert "Fira-Sans" in "".join(sorted(fonts(pdf)))
    assert texts[1].strip() == ""  # a blank page: the contents start on a right page
    assert "Table of contents" in texts[2]
    assert re.search(r"Big title on left page, with text on columns\s+\d", texts[2])


def test_weasyprint_letter_form(production_client, asset_server) -> None:
    pdf = render_sample(
        production_client, asset_server, "weasyprint-letter", "letter.html", "style.css"
    )

    fields = reader(pdf).get_fields()
    assert fields is not None
    assert sorted(fields) == ["address", "firstname", "name", "products"]
    assert "None 0 R" not in pdf.decode("latin-1")  # its submit button did not break the form
    assert sum(len(page.images) for page in reader(pdf).pages) >= 1
    assert {"pacifico", "soon"} <= fonts(pdf)  # the stylesheet's @font-face family names
