"""Page repeating: whole-PDF, overflow, explicit, combined; page-number variables; caps."""

import io

from pypdf import PdfReader

from tests.fill.conftest import spec_field
from tests.pdfcheck import text_in_rect, words


def page_count(pdf: bytes) -> int:
    return len(PdfReader(io.BytesIO(pdf)).pages)


def item_rows(demo_template, page_words) -> list[str]:
    return [
        text_in_rect(page_words, spec_field(demo_template, f"item{row}")["rect"])
        for row in range(5)
    ]


def footer(demo_template, page_words, page_index: int) -> str:
    field_id = "footer" if page_index == 0 else "footer2"
    return text_in_rect(page_words, spec_field(demo_template, field_id)["rect"])


NUMBERS = "{{pageNumber}}/{{totalPages}} {{pageIndex}} r{{pageRepeatNumber}}/{{pageRepeatTotal}}"


def footers(demo_template, pdf: bytes) -> list[str]:
    """The footer of every output page (both template pages have it in the same rectangle)."""
    return [footer(demo_template, page, 0) for page in words(pdf)]


def test_whole_pdf_repeat_fills_once_per_element_and_merges(demo_template, fill) -> None:
    people = [{"email": f"person{i}@example.com", "footer": NUMBERS} for i in range(3)]
    pdf = fill(demo_template, {"data": people}).content
    pages = words(pdf)

    assert page_count(pdf) == 6
    for i in range(3):
        assert (
            text_in_rect(pages[2 * i], spec_field(demo_template, "email")["rect"])
            == f"person{i}@example.com"
        )
    # Page numbers count in the whole PDF; each element's document is one repeat loop.
    assert footers(demo_template, pdf) == [
        "1/6 0 r1/2",
        "2/6 1 r2/2",
        "3/6 2 r1/2",
        "4/6 3 r2/2",
        "5/6 4 r1/2",
        "6/6 5 r2/2",
    ]


def test_a_page_repeating_inside_a_whole_pdf_repeat_numbers_within_its_own_loop(
    demo_template, fill
) -> None:
    body = {
        "data": [
            {"footer": NUMBERS, "title": ["Only"]},  # an explicit repeat of one: its own loop
            {"footer": NUMBERS, "items": [f"i{n}" for n in range(7)]},  # two overflow copies
        ]
    }
    pdf = fill(demo_template, body).content

    assert footers(demo_template, pdf) == [
        "1/5 0 r1/1",
        "2/5 1 r2/2",
        "3/5 2 r1/3",
        "4/5 3 r1/2",
        "5/5 4 r2/2",
    ]


def test_an_array_of_one_object_is_a_whole_pdf_repeat_of_one(demo_template, fill) -> None:
    alone = fill(demo_template, {"data": {"footer": NUMBERS}}).content
    repeated = fill(demo_template, {"data": [{"footer": NUMBERS}]}).content

    assert footers(demo_template, alone) == ["1/2 0 r1/1", "2/2 1 r1/1"]
    assert footers(demo_template, repeated) == ["1/2 0 r1/2", "2/2 1 r2/2"]


def test_overflow_repeats_the_page_and_the_first_surplus_value_starts_the_next(
    demo_template, fill
) -> None:
    items = [f"Item-{i}" for i in range(12)]
    body = {
        "data": {
            "items": items,
            "prices": [1, 2],
            "footer": "{{pageRepeatNumber}}/{{pageRepeatTotal}} p{{pageNumber}}/{{totalPages}}",
        }
    }
    pdf = fill(demo_template, body).content
    pages = words(pdf)

    assert page_count(pdf) == 4  # page 1, then ceil(12 / 5) = 3 copies of the items page
    assert item_rows(demo_template, pages[1]) == items[0:5]
    # the first surplus value: first row, next page
    assert item_rows(demo_template, pages[2]) == items[5:10]
    assert item_rows(demo_template, pages[3]) == ["Item-10", "Item-11", "", "", ""]
    assert [footer(demo_template, pages[i], i) for i in range(4)] == [
        "1/1 p1/4",
        "1/3 p2/4",
        "2/3 p3/4",
        "3/3 p4/4",
    ]
    prices = [
        text_in_rect(pages[1], spec_field(demo_template, f"price{r}")["rect"]) for r in range(2)
    ]
    assert prices == ["$1.00", "$2.00"]


def test_the_page_count_follows_the_longest_array(demo_template, fill) -> None:
    pdf = fill(demo_template, {"data": {"items": ["a"], "prices": list(range(11))}}).content

    assert page_count(pdf) == 1 + 3


def test_explicit_repeat_gives_one_page_per_element(demo_template, fill) -> None:
    body = {
        "data": {
            "title": ["First", "Second", "Third"],
            "email": "same@example.com",
            "footer": "{{pageRepeatNumber}} of {{pageRepeatTotal}}",
        }
    }
    pdf = fill(demo_template, body).content
    pages = words(pdf)

    assert page_count(pdf) == 4
    assert [
        text_in_rect(pages[i], spec_field(demo_template, "title")["rect"]) for i in range(3)
    ] == [
        "First",
        "Second",
        "Third",
    ]
    assert {
        text_in_rect(pages[i], spec_field(demo_template, "email")["rect"]) for i in range(3)
    } == {"same@example.com"}
    assert [footer(demo_template, pages[i], 0) for i in range(3)] == ["1 of 3", "2 of 3", "3 of 3"]


def test_array_of_arrays_repeats_per_group_and_overflows_within(demo_template, fill) -> None:
    groups = [["a1", "a2"], ["b1", "b2", "b3", "b4", "b5", "b6", "b7"]]
    body = {"data": {"items": groups, "footer": "{{pageRepeatNumber}}/{{pageRepeatTotal}}"}}
    pdf = fill(demo_template, body).content
    pages = words(pdf)

    assert page_count(pdf) == 1 + 1 + 2
    assert item_rows(demo_template, pages[1]) == ["a1", "a2", "", "", ""]
    assert item_rows(demo_template, pages[2]) == ["b1", "b2", "b3", "b4", "b5"]
    assert item_rows(demo_template, pages[3]) == ["b6", "b7", "", "", ""]
    assert [footer(demo_template, pages[i], i) for i in (1, 2, 3)] == ["1/1", "1/2", "2/2"]


def test_array_elements_take_their_own_style(demo_template, fill) -> None:
    from tests.pdfcheck import text_styles

    body = {
        "data": {
            "items": {"value": ["plain", {"data": "big", "fontSize": 13}], "textColor": "#FF0000"}
        }
    }
    styles = text_styles(fill(demo_template, body).content, page=1)

    assert [(s.size, s.color) for s in styles] == [(10.0, (1.0, 0.0, 0.0)), (13.0, (1.0, 0.0, 0.0))]


def test_page_and_array_caps_are_clear_400s(demo_template, fill, settings) -> None:
    settings.FILL_MAX_PAGES = 10
    settings.FILL_MAX_ARRAY_LENGTH = 50
    too_many_pages = fill(demo_template, {"data": {"items": [str(i) for i in range(49)]}})
    too_long = fill(demo_template, {"data": {"items": [str(i) for i in range(51)]}})
    too_many_documents = fill(demo_template, {"data": [{"title": "x"}] * 6})

    assert too_many_pages.status_code == 400
    assert too_many_pages.json()["fields"] == [
        {"message": "The filled document would have more than 10 pages.", "property": "data"}
    ]
    assert too_long.status_code == 400
    assert too_long.json()["fields"] == [
        {"message": "At most 50 elements per array.", "property": "data.items"}
    ]
    assert too_many_documents.status_code == 400
