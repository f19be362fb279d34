"""Markdown mode's table elements, in the PDF: the first row a header repeated on every page,
gridline options, column alignment and width, vertical alignment."""

from __future__ import annotations

import pytest

from tests.generate.conftest import fonts, generate_pdf, page_image, page_texts, word, words

pytestmark = pytest.mark.django_db


# -- tables -------------------------------------------------------------------------------------


def table_payload(table: dict[str, object], **extra: object) -> dict[str, object]:
    return {"data": [{"table": table}], "logo": False, "includeTimestamp": False, **extra}


def test_table_first_row_is_a_header_repeated_on_every_page(production_client) -> None:
    rows = [["Customer", "Amount"]] + [[f"name{i}", f"{i}.00"] for i in range(150)]
    with_header = generate_pdf(production_client, table_payload({"rows": rows}))
    without = generate_pdf(
        production_client, table_payload({"rows": rows, "firstRowHeaders": False})
    )

    texts = page_texts(with_header)
    assert len(texts) > 2
    assert all(text.count("Customer") == 1 for text in texts)
    assert [text.count("Customer") for text in page_texts(without)] == [1] + [0] * (
        len(page_texts(without)) - 1
    )
    assert "Noto-Sans-Bold" in fonts(with_header)
    assert "Noto-Sans-Bold" not in fonts(without)


def _line_counts(pdf: bytes) -> tuple[int, int]:
    """(horizontal, vertical) lines drawn across the table: runs of non-white pixels longer
    than most of the table's width or height, on a 100 dpi rendering of page 1."""
    image = page_image(pdf, dpi=100).convert("L")
    width, height = image.size
    pixels = image.load()
    dark = [[pixels[x, y] < 200 for x in range(width)] for y in range(height)]
    horizontal = sum(1 for y in range(height) if sum(dark[y]) > 0.8 * (width - 100))
    table_rows = [y for y in range(height) if any(dark[y])]
    top, bottom = min(table_rows), max(table_rows)
    vertical = sum(
        1
        for x in range(width)
        if sum(dark[y][x] for y in range(top, bottom + 1)) > 0.8 * (bottom - top)
    )
    return horizontal, vertical


def test_table_gridline_options(production_client) -> None:
    rows = [["Alpha", "Beta", "Gamma"], ["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]]
    plain = generate_pdf(production_client, table_payload({"rows": rows}))
    row_lines = generate_pdf(production_client, table_payload({"rows": rows, "rowGridlines": True}))
    column_lines = generate_pdf(
        production_client, table_payload({"rows": rows, "columnGridlines": True})
    )
    both = generate_pdf(
        production_client,
        table_payload({"rows": rows, "rowGridlines": True, "columnGridlines": True}),
    )

    assert _line_counts(plain) == (0, 0)
    horizontal, vertical = _line_counts(row_lines)
    assert horizontal >= 5  # above and below each of the four rows
    assert vertical == 0
    horizontal, vertical = _line_counts(column_lines)
    assert horizontal == 0
    assert vertical >= 2  # between the three columns
    assert all(count > 0 for count in _line_counts(both))


def test_table_column_alignment_and_width(production_client) -> None:
    rows = [["Left", "Centre", "Right"], ["a", "bb", "ccc"], ["aaaaaa", "b", "c"]]
    pdf = generate_pdf(
        production_client,
        table_payload(
            {
                "rows": rows,
                "columnOptions": [
                    {"width": "50%"},
                    {"align": "center", "width": "100px"},
                    {"align": "right"},
                ],
            }
        ),
    )

    found = {w.text: w for w in words(pdf)}
    # Left column: same left edge. Centre: same middle. Right: same right edge.
    assert found["a"].x_min == pytest.approx(found["aaaaaa"].x_min, abs=0.5)
    middle = [(found[t].x_min + found[t].x_max) / 2 for t in ("Centre", "bb", "b")]
    assert max(middle) - min(middle) < 1
    rights = [found[t].x_max for t in ("Right", "ccc", "c")]
    assert max(rights) - min(rights) < 1
    # Widths: the table spans the 540pt between the margins; column 1 is half of it, column 2
    # 100px (75pt); each cell has 0.5em (6pt) of padding. The right column ends at the margin.
    assert found["Left"].x_min == pytest.approx(36 + 6, abs=1)
    assert (found["Centre"].x_min + found["Centre"].x_max) / 2 == pytest.approx(306 + 37.5, abs=1)
    assert found["Right"].x_max == pytest.approx(576 - 6, abs=1)


def test_an_empty_column_option_means_no_override(production_client) -> None:
    rows = [["h1", "h2"], ["x", "y"]]
    overridden = generate_pdf(
        production_client, table_payload({"rows": rows, "columnOptions": [{}, {"align": "right"}]})
    )
    default = generate_pdf(production_client, table_payload({"rows": rows}))

    assert word(overridden, "x").x_min == pytest.approx(word(default, "x").x_min, abs=0.5)
    assert word(overridden, "y").x_max > word(default, "y").x_max + 100


@pytest.mark.parametrize(("align", "expected_line"), [("top", 0), ("center", 1), ("bottom", 2)])
def test_table_vertical_alignment(production_client, align, expected_line) -> None:
    rows = [["Tall", "Short"], ["line1\nline2\nline3", "single"]]
    pdf = generate_pdf(production_client, table_payload({"rows": rows, "verticalAlign": align}))

    lines = [word(pdf, f"line{n}") for n in (1, 2, 3)]
    assert word(pdf, "single").y_min == pytest.approx(lines[expected_line].y_min, abs=1.5)
