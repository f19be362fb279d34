"""Every field type through the endpoint: the formatted value lands inside its rectangle."""

import base64
import io

from PIL import Image

from tests.fill.conftest import spec_field
from tests.pdfcheck import dark_pixels, render, text_in_rect, words


def png_data_url(width: int, height: int, color: tuple[int, int, int]) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


DATA = {
    "name": {"firstName": "Ada", "mi": "B", "lastName": "Lovelace"},
    "email": "ada@example.com",
    "ssn": "123456789",
    "ein": "987654321",
    "birthDate": "1815-12-10",
    "phone": {"num": "5551234567", "region": "US", "baseRegion": "MX"},
    "address": {
        "street1": "1 Main St",
        "street2": "Apt 4",
        "city": "Austin",
        "state": "TX",
        "zip": "78701",
    },
    "amount": 1234.5,
    "quantity": 42,
    "rate": 2.5,
    "discount": 12.5,
    "account": "ABC123DEF",
    "agree": True,
    "colour": "green",
    "notes": ["First line", "Second line"],
    "comments": "Analytical engine notes " * 12,
    "title": "Countess",
    "footer": "Footer text",
}
EXPECTED_TEXT = {
    "email": "ada@example.com",
    "ssn": "123-45-6789",
    "ein": "98-7654321",
    "birthDate": "December 10, 1815",
    "phone": "+1 (555) 123-4567",
    "address": "1 Main St, Austin, TX 78701",
    "amount": "$1,234.50",
    "quantity": "42",
    "rate": "2.500",
    "discount": "12.5%",
    "title": "Countess",
    "footer": "Footer text",
}


def test_each_type_formatted_inside_its_rect(demo_template, fill) -> None:
    response = fill(demo_template, {"data": DATA})

    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/pdf"
    page = words(response.content)[0]
    for field_id, expected in EXPECTED_TEXT.items():
        assert text_in_rect(page, spec_field(demo_template, field_id)["rect"]) == expected, field_id
    # fullName in one box and, for the same alias, in three part boxes
    assert text_in_rect(page, spec_field(demo_template, "name")["rect"]) == "Ada B Lovelace"
    parts = spec_field(demo_template, "nameParts")["parts"]
    assert [text_in_rect(page, parts[p]) for p in ("firstName", "mi", "lastName")] == [
        "Ada",
        "B",
        "Lovelace",
    ]


def test_char_list_puts_one_character_per_box(demo_template, fill) -> None:
    page = words(fill(demo_template, {"data": {"account": "ABC123DEF"}}).content)[0]
    boxes = spec_field(demo_template, "account")["boxes"]

    assert [text_in_rect(page, box) for box in boxes] == list("ABC123DEF")


def test_text_wrap_puts_one_line_per_box(demo_template, fill) -> None:
    page = words(fill(demo_template, {"data": {"notes": "One\nTwo\nThree\nFour"}}).content)[0]
    boxes = spec_field(demo_template, "notes")["boxes"]

    assert [text_in_rect(page, box) for box in boxes] == ["One", "Two", "Three"]


def test_long_text_wraps_inside_its_box(demo_template, fill) -> None:
    text = "Analytical engine notes " * 12
    page = words(fill(demo_template, {"data": {"comments": text}}).content)[0]
    rect = spec_field(demo_template, "comments")["rect"]

    inside = text_in_rect(page, rect)
    assert inside == text.strip()
    lines = {round(w.y0) for w in page if w.text == "Analytical"}
    assert len(lines) >= 2  # wrapped onto several lines


def test_short_text_shrinks_or_is_cut_never_spilling(demo_template, fill) -> None:
    long_title = "An extremely long title that cannot possibly fit in this small box at ten points"
    page = words(fill(demo_template, {"data": {"title": long_title}}).content)[0]
    rect = spec_field(demo_template, "title")["rect"]

    title_words = [
        w
        for w in page
        if w.y0 >= rect["y"] - 1
        and w.y1 <= rect["y"] + rect["height"] + 1
        and w.x0 < rect["x"] + rect["width"]
        and w.x1 > rect["x"]
    ]
    assert title_words, "the title is drawn"
    assert all(w.x1 <= rect["x"] + rect["width"] + 1 for w in title_words)
    assert text_in_rect(page, rect) == long_title  # shrunk enough to fit entirely


def test_checkbox_is_a_drawn_check_mark(demo_template, fill) -> None:
    rect = spec_field(demo_template, "agree")["rect"]
    checked = render(fill(demo_template, {"data": {"agree": True}}).content)
    unchecked = render(fill(demo_template, {"data": {"agree": False}}).content)

    assert dark_pixels(checked, rect, 792) > 12
    assert dark_pixels(unchecked, rect, 792) == 0


def test_radio_group_selects_the_child_by_id(demo_template, fill) -> None:
    options = {o["id"]: o["rect"] for o in spec_field(demo_template, "colour")["options"]}
    image = render(fill(demo_template, {"data": {"colour": "green"}}).content, dpi=144)

    def dot(rect: dict) -> int:  # the inner area, inside the printed circle outline
        inner = {
            "x": rect["x"] + 3,
            "y": rect["y"] + 3,
            "width": rect["width"] - 6,
            "height": rect["height"] - 6,
        }
        return dark_pixels(image, inner, 792, dpi=144)

    assert dot(options["green"]) > 10
    assert dot(options["red"]) == dot(options["blue"]) == 0


def test_a_radio_value_that_is_no_option_is_a_400(demo_template, fill) -> None:
    response = fill(demo_template, {"data": {"colour": "purple"}})

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [
            {
                "message": "Must be the id of one of the options: blue, green, red.",
                "property": "data.colour",
            }
        ],
    }


def test_image_is_drawn_inside_its_box_keeping_its_aspect_ratio(demo_template, fill) -> None:
    rect = spec_field(demo_template, "photo")["rect"]  # 200 x 68 points
    pdf = fill(demo_template, {"data": {"photo": png_data_url(40, 20, (220, 0, 0))}}).content
    image = render(pdf)

    def red(px: int, py: int) -> bool:
        r, g, b = image.getpixel((px, py))
        return r > 180 and g < 80 and b < 80

    top = 792 - rect["y"] - rect["height"]
    reds = [
        (x, y)
        for x in range(int(rect["x"]), int(rect["x"] + rect["width"]))
        for y in range(int(top), int(top + rect["height"]))
        if red(x, y)
    ]
    xs, ys = [x for x, _ in reds], [y for _, y in reds]
    # 2:1 image in a 200x68 box: 136 x 68 points, centred horizontally
    assert 130 <= max(xs) - min(xs) + 1 <= 138
    assert 62 <= max(ys) - min(ys) + 1 <= 69
    assert abs((min(xs) + max(xs)) / 2 - (rect["x"] + rect["width"] / 2)) <= 2
    assert not any(red(x, y) for x in range(0, 612, 4) for y in range(0, int(top) - 2, 4))


def test_an_invalid_image_leaves_the_field_unfilled(demo_template, fill) -> None:
    not_an_image = "data:image/png;base64," + base64.b64encode(b"definitely not a png").decode()
    response = fill(demo_template, {"data": {"photo": not_an_image, "title": "Still filled"}})

    assert response.status_code == 200
    image = render(response.content)
    assert dark_pixels(image, spec_field(demo_template, "photo")["rect"], 792) == 0
    assert (
        text_in_rect(words(response.content)[0], spec_field(demo_template, "title")["rect"])
        == "Still filled"
    )
