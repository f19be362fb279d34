"""HTML mode: what the spec's HTML and CSS list promises, checked in the PDF."""

from __future__ import annotations

import base64
import io

import pytest
from fontTools.ttLib import TTFont

from tests.fixtures import HTML
from tests.generate.conftest import (
    fonts,
    generate_pdf,
    layout_texts,
    page_image,
    page_sizes,
    page_texts,
    reader,
    word,
    words,
)

pytestmark = pytest.mark.django_db

PACIFICO = HTML / "weasyprint-letter" / "fonts" / "Pacifico-Regular.ttf"


def html(body: str, css: str = "", **extra: object) -> dict[str, object]:
    return {"type": "html", "data": {"html": body, "css": css}, **extra}


def paragraphs(count: int, prefix: str = "Paragraph") -> str:
    return "".join(
        f"<p>{prefix} {i}: lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>"
        for i in range(count)
    )


def long_table(rows: int = 120, *, table_attributes: str = "") -> str:
    body = "".join(f"<tr><td>row{i}</td><td>value {i}</td></tr>" for i in range(rows))
    return (
        f"<table{table_attributes}><thead><tr><th>HEADCELL</th><th>Second</th></tr></thead>"
        f"<tbody>{body}</tbody><tfoot><tr><td>FOOTCELL</td><td></td></tr></tfoot></table>"
    )


def acroform_names(pdf: bytes) -> list[str]:
    """Names of the fields in the AcroForm's field list, in order."""
    fields = reader(pdf).trailer["/Root"]["/AcroForm"]["/Fields"]
    return [str(field.get_object()["/T"]) for field in fields]


# -- pages --------------------------------------------------------------------------------------


def test_default_page_is_letter_and_page_count_follows_the_content(production_client) -> None:
    short = generate_pdf(production_client, html("<p>One page</p>"))
    long = generate_pdf(production_client, html(paragraphs(200)))

    assert page_sizes(short) == [(612.0, 792.0)]
    # 200 one-line paragraphs of about 24pt each, 720pt of usable height: seven or eight pages.
    assert len(page_sizes(long)) > 5
    assert set(page_sizes(long)) == {(612.0, 792.0)}
    assert "Paragraph 199" in page_texts(long)[-1]


@pytest.mark.parametrize(
    ("page", "size"),
    [
        ({"width": "210mm", "height": "297mm"}, (595.28, 841.89)),
        ({"width": "11in", "height": "8.5in"}, (792.0, 612.0)),
        ({"width": "20cm", "height": "10cm"}, (566.93, 283.46)),
        ({"width": "600px", "height": "50pc"}, (450.0, 600.0)),
        ({"width": "30em", "height": "40rem"}, (360.0, 480.0)),
        ({"width": "300pt", "height": "400pt"}, (300.0, 400.0)),
    ],
)
def test_page_width_and_height_in_every_allowed_unit(production_client, page, size) -> None:
    pdf = generate_pdf(production_client, html("<p>Sized</p>", page=page))

    ((width, height),) = page_sizes(pdf)
    assert width == pytest.approx(size[0], abs=0.05)
    assert height == pytest.approx(size[1], abs=0.05)


def test_margins_place_the_text(production_client) -> None:
    default = generate_pdf(production_client, html("<p>Marker</p>"))
    shorthand = generate_pdf(production_client, html("<p>Marker</p>", page={"margin": "1in 2in"}))
    overridden = generate_pdf(
        production_client,
        html("<p>Marker</p>", page={"marginLeft": "3cm", "marginTop": "72pt", "margin": "2in"}),
    )

    # Default margin 0.5in (36pt), plus the body's own 8px (6pt) margin; a paragraph's top
    # margin (1em, 12pt) collapses with the body's.
    assert word(default, "Marker").x_min == pytest.approx(36 + 6, abs=1)
    assert word(shorthand, "Marker").x_min == pytest.approx(144 + 6, abs=1)
    assert word(shorthand, "Marker").y_min == pytest.approx(72 + 12, abs=4)
    # Side properties win over the shorthand, whatever their order in the object.
    assert word(overridden, "Marker").x_min == pytest.approx(85.04 + 6, abs=1)
    assert word(overridden, "Marker").y_min == pytest.approx(72 + 12, abs=4)


def test_css_page_rules_take_precedence_over_page_settings(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        html("<p>Marker</p>", "@page { size: A5; margin: 2cm }", page={"margin": "1in"}),
    )

    assert page_sizes(pdf) == [(pytest.approx(419.53, abs=0.05), pytest.approx(595.28, abs=0.05))]
    assert word(pdf, "Marker").x_min == pytest.approx(56.69 + 6, abs=1)


@pytest.mark.parametrize(
    ("position", "left_of_center", "at_top"),
    [
        ("topLeft", True, True),
        ("topCenter", None, True),
        ("topRight", False, True),
        ("bottomLeft", True, False),
        ("bottomCenter", None, False),
        ("bottomRight", False, False),
    ],
)
def test_page_count_in_each_of_the_six_positions(
    production_client, position, left_of_center, at_top
) -> None:
    pdf = generate_pdf(production_client, html(paragraphs(100), page={"pageCount": position}))

    texts = layout_texts(pdf)
    assert len(texts) > 1
    for number, text in enumerate(texts, 1):
        assert f"Page {number} of {len(texts)}" in text
    of = [w for w in words(pdf) if w.text == "of" and w.page == 1][0]
    if left_of_center is None:
        assert 250 < of.x_min < 362
    elif left_of_center:
        assert of.x_min < 150
    else:
        assert of.x_min > 450
    assert (of.y_min < 36) if at_top else (of.y_min > 792 - 36)


def test_title_goes_into_the_metadata(production_client) -> None:
    titled = generate_pdf(production_client, html("<p>x</p>", title="Quarterly report"))
    from_html = generate_pdf(
        production_client, html("<html><head><title>From HTML</title></head><body>x</body></html>")
    )

    assert reader(titled).metadata.title == "Quarterly report"
    assert reader(from_html).metadata.title == "From HTML"


def test_page_break_before_starts_a_new_page(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        html(
            "<p>First</p><h2>Chapter</h2><p>Second</p>",
            "h2 { page-break-before: always }",
        ),
    )

    texts = page_texts(pdf)
    assert len(texts) == 2
    assert "First" in texts[0]
    assert "Chapter" not in texts[0]
    assert "Chapter" in texts[1]
    assert "Second" in texts[1]


# -- tables ---------------------------------------------------------------------------------------


def test_table_header_and_footer_repeat_on_every_page(production_client) -> None:
    pdf = generate_pdf(production_client, html(long_table()))

    texts = page_texts(pdf)
    assert len(texts) >= 3
    assert all(text.count("HEADCELL") == 1 for text in texts)
    assert all(text.count("FOOTCELL") == 1 for text in texts)


@pytest.mark.parametrize(
    ("markup", "css"),
    [
        (long_table(), "table { -fs-table-paginate: none; }"),
        (
            long_table(table_attributes=' class="plain"'),
            "@media print { .plain { -fs-table-paginate: none } }",
        ),
        (long_table(table_attributes=' style="-fs-table-paginate: none"'), ""),
        (f'<div class="report">{long_table()}</div>', ".report { -fs-table-paginate: none }"),
        (
            f'<div class="report">{long_table()}</div>',
            ".report { color: black; & table { -fs-table-paginate: none } }",
        ),
        (f"<style>table {{ -fs-table-paginate: none }}</style>{long_table()}", ""),
    ],
    ids=["css-rule", "media-rule", "inline-style", "ancestor", "nested-css", "style-element"],
)
def test_fs_table_paginate_none_draws_header_and_footer_once(
    production_client, markup, css
) -> None:
    pdf = generate_pdf(production_client, html(markup, css))

    texts = page_texts(pdf)
    assert len(texts) >= 3
    assert [text.count("HEADCELL") for text in texts] == [1] + [0] * (len(texts) - 1)
    assert [text.count("FOOTCELL") for text in texts] == [0] * (len(texts) - 1) + [1]


def test_a_table_without_thead_repeats_nothing(production_client) -> None:
    rows = "".join(f"<tr><td>row{i}</td></tr>" for i in range(120))
    pdf = generate_pdf(production_client, html(f"<table><tr><th>HEADCELL</th></tr>{rows}</table>"))

    counts = [text.count("HEADCELL") for text in page_texts(pdf)]
    assert len(counts) > 1
    assert counts == [1] + [0] * (len(counts) - 1)


def test_only_the_marked_table_stops_repeating(production_client) -> None:
    marked = long_table(table_attributes=' class="once"')
    other = long_table().replace("HEADCELL", "OTHERHEAD")
    pdf = generate_pdf(
        production_client, html(marked + other, ".once { -fs-table-paginate: none }")
    )

    texts = page_texts(pdf)
    assert sum(text.count("HEADCELL") for text in texts) == 1
    other_pages = [text for text in texts if "row" in text and "OTHERHEAD" in text]
    assert len(other_pages) >= 3


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


# -- forms --------------------------------------------------------------------------------------

FORM = """
<form action="https://example.com/submit" method="post">
  <input type="text" name="full_name" value="Ada">
  <input type="email" name="email">
  <input name="no_type">
  <input type="checkbox" name="agree" checked>
  <input type="radio" name="plan" value="basic"><input type="radio" name="plan" value="pro">
  <select name="country"><option>FR</option><option selected>DE</option></select>
  <textarea name="notes">Hello</textarea>
  <input type="text" value="no name">
  <input type="text" name="">
  <input type="banana" name="bad_type">
  <input type="hidden" name="secret" value="x">
  <input type="submit" value="Send it">
  <input type="reset">
  <button name="go">Go button</button>
</form>
<input type="text" name="outside_form" value="Outside value">
"""


def test_inputs_inside_a_form_become_fillable_fields(production_client) -> None:
    pdf = generate_pdf(production_client, html(FORM))

    assert acroform_names(pdf) == [
        "full_name", "email", "no_type", "agree", "plan", "country", "notes",
    ]  # fmt: skip
    fields = reader(pdf).get_fields()
    assert fields is not None
    assert fields["full_name"]["/FT"] == "/Tx"
    assert fields["full_name"]["/V"] == "Ada"
    assert fields["agree"]["/FT"] == "/Btn"
    assert fields["country"]["/FT"] == "/Ch"
    assert fields["notes"]["/FT"] == "/Tx"
    # Buttons, inputs outside the form and inputs without a valid name or type are drawn only.
    text = page_texts(pdf)[0]
    assert "Send it" in text
    assert "Go button" in text
    assert "Outside value" in text


def test_a_form_with_only_a_submit_button_reads_cleanly(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        html('<form><input name="a"><input type="submit"><button>b</button></form>'),
    )

    raw = pdf.decode("latin-1")
    assert "None 0 R" not in raw
    assert acroform_names(pdf) == ["a"]
    assert sorted(reader(pdf).get_fields()) == ["a"]


# -- fonts --------------------------------------------------------------------------------------


def test_default_font_stack_is_noto_sans_with_cjk(production_client) -> None:
    pdf = generate_pdf(production_client, html("<p>Hello 日本語 中文 한국어</p>"))

    assert fonts(pdf) == {"Noto-Sans", "Noto-Sans-CJK-SC"}
    assert "日本語 中文 한국어" in page_texts(pdf)[0]


def _woff(ttf: bytes) -> bytes:
    font = TTFont(io.BytesIO(ttf))
    font.flavor = "woff"
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def test_ttf_font_face_from_a_server_is_used(production_client, asset_server) -> None:
    url = asset_server.serve("/pacifico.ttf", PACIFICO.read_bytes(), "font/ttf")
    css = f'@font-face {{ font-family: Fancy; src: url("{url}") }} p {{ font-family: Fancy }}'
    pdf = generate_pdf(production_client, html("<p>Fancy text</p>", css))

    # WeasyPrint names an embedded font after its @font-face family.
    assert fonts(pdf) == {"Fancy"}
    assert "/pacifico.ttf" in asset_server.requests


def test_ttf_served_as_x_font_ttf_through_import_is_used(production_client, asset_server) -> None:
    font_url = asset_server.serve("/f.ttf", PACIFICO.read_bytes(), "application/x-font-ttf")
    sheet = f'@font-face {{ font-family: Fancy; src: url("{font_url}") format("truetype") }}'
    css_url = asset_server.serve("/fonts.css", sheet.encode(), "text/css")
    css = f'@import url("{css_url}"); p {{ font-family: Fancy, "Noto Sans" }}'
    pdf = generate_pdf(production_client, html("<p>Imported</p>", css))

    assert fonts(pdf) == {"Fancy"}


@pytest.mark.parametrize(
    ("path", "content_type", "transform"),
    [
        ("/font.woff", "font/woff", _woff),
        ("/woff-labelled-ttf.ttf", "font/ttf", _woff),
        ("/octet.ttf", "application/octet-stream", lambda data: data),
        ("/font.otf", "font/otf", lambda data: data),
    ],
    ids=["woff", "woff-claiming-ttf", "wrong-content-type", "otf-type"],
)
def test_fonts_that_are_not_ttf_served_right_are_ignored(
    production_client, asset_server, path, content_type, transform
) -> None:
    url = asset_server.serve(path, transform(PACIFICO.read_bytes()), content_type)
    css = f'@font-face {{ font-family: Fancy; src: url("{url}") }} p {{ font-family: Fancy, "Noto Sans" }}'
    pdf = generate_pdf(production_client, html("<p>Plain text</p>", css))

    assert path in asset_server.requests
    assert fonts(pdf) == {"Noto-Sans"}
    assert "Plain text" in page_texts(pdf)[0]


# -- relative URLs ------------------------------------------------------------------------------

# The document has no address, so none of these can load; like a browser, the renderer skips each
# and renders the rest.
RELATIVE_HTML = """<html><head>
<link rel="stylesheet" href="style.css">
<style>
@import "common.css";
@import url(more.css);
.shout { text-transform: uppercase }
.lead { background: #ff0000 url(bg.jpg); font-style: italic }
.lead::before { content: "Before " }
a::after { content: " (page " target-counter(attr(href url), page) ")" }
</style></head><body>
<p class="shout">loud words</p>
<p class="lead">lead text</p>
<img src="logo.png" alt="Company logo">
<p style="background-image: url(bg.jpg)">Tail paragraph <a href="other.html">elsewhere</a></p>
</body></html>"""
RELATIVE_CSS = "@import url(extra.css); .tail { text-transform: uppercase }"


def test_relative_urls_are_skipped_and_the_rest_renders(production_client) -> None:
    body = RELATIVE_HTML.replace("<p style", '<p class="tail" style')
    pdf = generate_pdf(production_client, html(body, RELATIVE_CSS))

    lines = [line.strip() for line in layout_texts(pdf)[0].splitlines() if line.strip()]
    # The <style> rules after the <link> and both @imports apply, ::before included; the rule
    # whose background image cannot load keeps its colour and its other declarations; the image
    # gives way to its alt text; data.css applies after its @import; a target-counter() of a link
    # to another document counts nothing (WeasyPrint drops the rest of that content).
    assert lines == [
        "LOUD WORDS",
        "Before lead text",
        "Company logo",
        "TAIL PARAGRAPH ELSEWHERE (PAGE",
    ]
    assert _red_pixels(pdf) > 100
    assert any("Italic" in name for name in fonts(pdf))
    assert len(reader(pdf).pages[0].images) == 0


# -- images -------------------------------------------------------------------------------------

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" fill="#ff0000"/></svg>'


def _red_pixels(pdf: bytes) -> int:
    image = page_image(pdf, dpi=30)
    return sum(1 for r, g, b in image.get_flattened_data() if r > 200 and g < 60 and b < 60)


def _png(color: tuple[int, int, int] = (255, 0, 0), size: int = 60) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (size, size), color).save(out, "PNG")
    return out.getvalue()


def test_inline_svg_with_xmlns_and_svg_data_uri_are_drawn(production_client) -> None:
    data_uri = "data:image/svg+xml;base64," + base64.b64encode(SVG.encode()).decode()
    inline = generate_pdf(production_client, html(SVG))
    as_image = generate_pdf(production_client, html(f'<img src="{data_uri}">'))
    nothing = generate_pdf(production_client, html("<p>no image</p>"))

    assert _red_pixels(inline) > 100
    assert _red_pixels(as_image) > 100
    assert _red_pixels(nothing) == 0


def test_images_load_from_a_server_and_from_data_uris(production_client, asset_server) -> None:
    url = asset_server.serve("/red.png", _png(), "image/png")
    data_uri = "data:image/png;base64," + base64.b64encode(_png((0, 0, 255))).decode()
    pdf = generate_pdf(production_client, html(f'<img src="{url}"><img src="{data_uri}">'))

    assert len(reader(pdf).pages[0].images) == 2


def test_redirects_slow_and_broken_images_are_skipped(production_client, asset_server) -> None:
    target = asset_server.serve("/real.png", _png(), "image/png")
    asset_server.serve("/moved.png", b"", "text/plain", status=302, headers={"Location": target})
    asset_server.serve("/slow.png", _png(), "image/png", delay=2.5)
    asset_server.serve("/html.png", b"<html>nope</html>", "text/html")
    asset_server.serve("/garbage.png", b"not a png at all", "image/png")
    body = "".join(
        f'<img src="{asset_server.url(path)}">'
        for path in ("/moved.png", "/slow.png", "/html.png", "/garbage.png", "/missing.png")
    )
    pdf = generate_pdf(production_client, html(f"<p>Still rendered</p>{body}"))

    assert "/moved.png" in asset_server.requests
    assert "/real.png" not in asset_server.requests  # the redirect was not followed
    assert len(reader(pdf).pages[0].images) == 0
    assert "Still rendered" in page_texts(pdf)[0]


def test_private_addresses_and_local_files_are_not_loaded(
    production_client, asset_server, settings
) -> None:
    settings.FETCH_ALLOW_NETWORKS = []  # the default: loopback is refused
    url = asset_server.serve("/red.png", _png(), "image/png")
    body = f'<img src="{url}"><img src="file:///etc/passwd"><img src="/etc/hostname">'
    css = "@import url('file:///etc/passwd'); body { background: url('file:///etc/passwd') }"
    pdf = generate_pdf(production_client, html(f"<p>Rendered</p>{body}", css))

    assert asset_server.requests == []
    assert len(reader(pdf).pages[0].images) == 0
    assert "root:" not in page_texts(pdf)[0]
