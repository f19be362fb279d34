"""useInteractiveFields: real AcroForm fields with values, appearances and read-only flags."""

import io

from pypdf import PdfReader

from tests.fill.conftest import spec_field
from tests.pdfcheck import dark_pixels, fields, render, text_in_rect, words

READ_ONLY = 1


def flags(field: dict) -> int:
    return int(field.get("/Ff", 0))


def raw_field(pdf: bytes, name: str) -> dict:
    reader = PdfReader(io.BytesIO(pdf))
    return next(
        f.get_object()
        for f in reader.trailer["/Root"]["/AcroForm"]["/Fields"]
        if f.get_object()["/T"] == name
    )


def test_without_it_the_output_is_flat(demo_template, fill) -> None:
    pdf = fill(demo_template, {"data": {"title": "Flat", "agree": True}}).content

    assert "/AcroForm" not in PdfReader(io.BytesIO(pdf)).trailer["/Root"]
    assert fields(pdf) == {}


def test_fields_of_the_right_kinds_with_their_values(demo_template, fill) -> None:
    body = {
        "useInteractiveFields": True,
        "data": {
            "title": "Interactive",
            "comments": "Line one\nLine two",
            "agree": True,
            "colour": "blue",
            "ssn": "123456789",
            "account": "XYZ",
            "notes": ["n1", "n2"],
            "name": {"firstName": "Ada", "lastName": "Lovelace"},
        },
    }
    pdf = fill(demo_template, body).content
    found = fields(pdf)

    assert found["title"]["/FT"] == "/Tx"
    assert found["title"]["/V"] == "Interactive"
    assert found["comments"]["/V"] == "Line one\nLine two"
    assert flags(found["comments"]) & (1 << 12)  # multiline
    assert found["ssn"]["/V"] == "123-45-6789"
    assert found["account"]["/V"] == "XYZ"
    assert flags(found["account"]) & (1 << 24)  # comb
    assert raw_field(pdf, "account")["/MaxLen"] == 9
    assert (found["notes_0"]["/V"], found["notes_1"]["/V"], found["notes_2"]["/V"]) == (
        "n1",
        "n2",
        "",
    )
    assert found["agree"]["/FT"] == "/Btn"
    assert found["agree"]["/V"] == "/Yes"
    assert found["colour"]["/FT"] == "/Btn"
    assert flags(found["colour"]) & (1 << 15)  # radio
    assert found["colour"]["/V"] == "/blue"
    # fullName: one box shows the whole name; the same alias in parts gives one field per part
    assert found["name"]["/V"] == "Ada Lovelace"
    assert (
        found["name_firstName"]["/V"],
        found["name_mi"]["/V"],
        found["name_lastName"]["/V"],
    ) == ("Ada", "", "Lovelace")


def test_a_comb_field_keeps_only_the_characters_its_boxes_show(demo_template, fill) -> None:
    """Characters beyond a charList's boxes are dropped, from the drawing and from the comb
    field's value alike: a value longer than its /MaxLen would be read back by form software
    as data nobody saw on the page."""
    body = {"useInteractiveFields": True, "data": {"account": "1234567890AB"}}
    pdf = fill(demo_template, body).content

    assert raw_field(pdf, "account")["/MaxLen"] == 9
    assert fields(pdf)["account"]["/V"] == "123456789"


def test_appearance_streams_show_the_values(demo_template, fill) -> None:
    pdf = fill(
        demo_template, {"useInteractiveFields": True, "data": {"title": "Shown", "agree": True}}
    ).content
    reader = PdfReader(io.BytesIO(pdf))

    widgets = [a.get_object() for a in reader.pages[0]["/Annots"]]
    assert all("/AP" in w for w in widgets)
    assert reader.trailer["/Root"]["/AcroForm"]["/NeedAppearances"] == False  # noqa: E712
    assert text_in_rect(words(pdf)[0], spec_field(demo_template, "title")["rect"]) == "Shown"
    assert dark_pixels(render(pdf), spec_field(demo_template, "agree")["rect"], 792) > 12


def test_radio_kids_select_the_chosen_option(demo_template, fill) -> None:
    pdf = fill(demo_template, {"useInteractiveFields": True, "data": {"colour": "green"}}).content
    field = raw_field(pdf, "colour")

    # A dictionary's key order has no meaning in PDF: compare the appearance states as sets.
    states = [
        (set(k.get_object()["/AP"]["/N"].keys()), k.get_object()["/AS"]) for k in field["/Kids"]
    ]
    assert states == [
        ({"/red", "/Off"}, "/Off"),
        ({"/green", "/Off"}, "/green"),
        ({"/blue", "/Off"}, "/Off"),
    ]


def test_read_only_flags(demo_template, fill) -> None:
    body = {
        "useInteractiveFields": True,
        "defaultReadOnly": True,
        "data": {
            "title": "locked by default",
            "email": {"value": "free@example.com", "readOnly": False},
            "name": {"value": {"firstName": "A", "lastName": "B"}, "readOnly": True},
            "agree": {"value": False, "readOnly": False},
        },
    }
    found = fields(fill(demo_template, body).content)

    assert flags(found["title"]) & READ_ONLY
    assert not flags(found["email"]) & READ_ONLY
    assert not flags(found["agree"]) & READ_ONLY
    assert found["agree"]["/V"] == "/Off"
    assert all(flags(found[f"name_{p}"]) & READ_ONLY for p in ("firstName", "mi", "lastName"))


def test_read_only_on_a_complex_field_applies_to_every_part(demo_template, fill) -> None:
    body = {
        "useInteractiveFields": True,
        "data": {"name": {"value": {"firstName": "A"}, "readOnly": True}},
    }
    found = fields(fill(demo_template, body).content)

    assert all(flags(found[f"name_{p}"]) & READ_ONLY for p in ("firstName", "mi", "lastName"))
    assert flags(found["name"]) & READ_ONLY


def test_an_empty_string_gives_an_empty_interactive_field_of_any_type(demo_template, fill) -> None:
    data = dict.fromkeys(
        ("title", "birthDate", "amount", "agree", "colour", "phone", "address", "account"), ""
    )
    response = fill(demo_template, {"useInteractiveFields": True, "data": data})

    assert response.status_code == 200
    found = fields(response.content)
    assert found["title"]["/V"] == found["birthDate"]["/V"] == found["amount"]["/V"] == ""
    assert found["address"]["/V"] == found["account"]["/V"] == ""
    assert found["agree"]["/V"] == "/Off"
    assert found["colour"]["/V"] == "/Off"


def test_repeated_pages_get_distinct_field_names(demo_template, fill) -> None:
    body = {
        "useInteractiveFields": True,
        "data": {"items": [f"i{n}" for n in range(7)], "footer": "p{{pageNumber}}"},
    }
    found = fields(fill(demo_template, body).content)

    assert [found[f"items[{n}]"]["/V"] for n in range(7)] == [f"i{n}" for n in range(7)]
    footers = sorted(v["/V"] for k, v in found.items() if k.startswith("footer"))
    assert footers == ["p1", "p2", "p3"]
