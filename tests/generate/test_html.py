"""HTML mode: what the spec's HTML and CSS list promises, checked in the PDF: pages (size,
margins, page rules, page count, title, breaks), tables (headers and footers repeated or not)
and forms (inputs become fillable fields).

Margin boxes, page selectors and named pages are in test_html_margin_boxes.py; what the
document loads (fonts, relative URLs, images) in test_html_resources.py. The helpers here are
shared with them."""

from __future__ import annotations

import pytest

from tests.generate.conftest import (
    generate_pdf,
    layout_texts,
    page_sizes,
    page_texts,
    reader,
    word,
    words,
)

pytestmark = pytest.mark.django_db


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
