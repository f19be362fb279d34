"""The spec's data rules, style precedence, fonts and validation errors."""

import pytest

from core.engine.template_spec import FieldSpec, PageSpec, Rect, Style, TemplateSpec
from templates_app.services import template_create_with_spec
from tests.fill.conftest import spec_field
from tests.pdfcheck import TextStyle, blank_pdf, fonts, page_text, text_in_rect, text_styles, words

GREY = (round(0x3E / 255, 3), round(0x3E / 255, 3), round(0x57 / 255, 3))


def rgb(hex_color: str) -> tuple[float, float, float]:
    return tuple(round(int(hex_color[i : i + 2], 16) / 255, 3) for i in (1, 3, 5))


@pytest.fixture
def styled(organization):
    """One page, fields a..d; b has an editor style, the document has an editor style."""
    pdf = blank_pdf(2)
    fields = [
        FieldSpec(id=k, alias=k, type="shortText", page=0, rect=Rect(54, 700 - i * 40, 300, 24))
        for i, k in enumerate("abcd")
    ]
    fields[1] = FieldSpec(
        id="b",
        alias="b",
        type="shortText",
        page=0,
        rect=Rect(54, 660, 300, 24),
        style=Style(font_family="Times New Roman", font_size=13, text_color="#00AA00"),
    )
    spec = TemplateSpec(
        pages=(PageSpec(612, 792, 0, (0, 0, 612, 792)), PageSpec(612, 792, 0, (0, 0, 612, 792))),
        fields=tuple(fields),
        style=Style(font_family="Courier", font_size=11, text_color="#0000FF"),
    )
    return template_create_with_spec(
        organization=organization, title="Styled", pdf=pdf, spec=spec, publish=True
    )


@pytest.fixture
def plain(organization):
    pdf = blank_pdf(2)
    spec = TemplateSpec(
        pages=(PageSpec(612, 792, 0, (0, 0, 612, 792)), PageSpec(612, 792, 0, (0, 0, 612, 792))),
        fields=(
            FieldSpec(id="a", alias="a", type="shortText", page=0, rect=Rect(54, 700, 300, 24)),
        ),
    )
    return template_create_with_spec(
        organization=organization, title="Plain", pdf=pdf, spec=spec, publish=True
    )


def test_defaults_are_noto_sans_10_and_3e3e57(plain, fill) -> None:
    pdf = fill(plain, {"data": {"a": "Default"}}).content

    assert text_styles(pdf) == [TextStyle("NotoSans-Regular", 10.0, GREY)]


def test_style_precedence_has_five_levels(styled, fill) -> None:
    body = {
        "data": {
            "a": "document editor style",
            "b": "field editor style",
            "c": {
                "value": "field payload style",
                "fontFamily": "Helvetica",
                "fontSize": 15,
                "textColor": "#AA0000",
                "fontWeight": "bold",
            },
            "d": "document payload style",
        },
        "fontFamily": "Noto Sans",
        "fontSize": 9,
        "textColor": "#123456",
    }
    with_payload_doc = text_styles(fill(styled, body).content)
    without = text_styles(fill(styled, {"data": {"a": "x", "b": "y"}}).content)

    assert without == [
        TextStyle("Courier", 11.0, rgb("#0000FF")),  # document style of the editor
        TextStyle("Times-Roman", 13.0, rgb("#00AA00")),  # field style of the editor
    ]
    assert with_payload_doc == [
        TextStyle("NotoSans-Regular", 9.0, rgb("#123456")),  # document style of the payload wins
        TextStyle("Times-Roman", 13.0, rgb("#00AA00")),  # ... but not over the editor's field style
        TextStyle(
            "Helvetica-Bold", 15.0, rgb("#AA0000")
        ),  # the payload's field style wins over all
        TextStyle("NotoSans-Regular", 9.0, rgb("#123456")),
    ]


def test_alignment(plain, fill) -> None:
    rect = {"x": 54, "y": 700, "width": 300, "height": 24}
    for alignment, check in (
        ("left", lambda w: abs(w.x0 - 56) < 2),
        ("right", lambda w: abs(w.x1 - 352) < 2),
        ("center", lambda w: abs((w.x0 + w.x1) / 2 - 204) < 2),
    ):
        page = words(fill(plain, {"data": {"a": "Word"}, "alignment": alignment}).content)[0]
        word = next(w for w in page if w.text == "Word")
        assert check(word), alignment
        assert text_in_rect(page, rect) == "Word"


def test_cjk_and_accented_text_are_present_with_fonts_that_have_them(plain, fill) -> None:
    text = "Zoë Ångström — 東京 서울 Привет"
    pdf = fill(plain, {"data": {"a": text}}).content

    assert page_text(pdf).strip().replace("  ", " ") == text
    used = fonts(pdf)
    assert "NotoSans-Regular" in used
    assert "DroidSansFallback" in used  # the CJK characters
    assert "NanumGothic" in used  # the Hangul


def test_a_base14_font_falls_back_for_what_it_lacks(plain, fill) -> None:
    pdf = fill(plain, {"data": {"a": "Helvetica Привет"}, "fontFamily": "Helvetica"}).content

    assert "Привет" in page_text(pdf)
    assert {"Helvetica", "NotoSans-Regular"} <= fonts(pdf)


def test_unknown_keys_and_nulls_are_ignored(demo_template, fill) -> None:
    response = fill(demo_template, {"data": {"nope": "x", "title": None, "email": "e@x.io"}})

    assert response.status_code == 200
    page = words(response.content)[0]
    assert text_in_rect(page, spec_field(demo_template, "title")["rect"]) == ""
    assert text_in_rect(page, spec_field(demo_template, "email")["rect"]) == "e@x.io"


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, [{"message": "Required", "property": "data"}]),
        (
            {"data": 5},
            [
                {
                    "message": "Must be an object, an array of objects or an encrypted string.",
                    "property": "data",
                }
            ],
        ),
        (
            {"data": {"a": "x"}, "fontSize": "big"},
            [{"message": "Must be a number from 1 to 200.", "property": "fontSize"}],
        ),
        (
            {"data": {"a": "x"}, "textColor": "red"},
            [{"message": "Must be a 6-digit hex colour such as #3E3E57.", "property": "textColor"}],
        ),
        (
            {"data": {"a": "x"}, "alignment": "middle"},
            [{"message": "Must be left, center or right.", "property": "alignment"}],
        ),
        (
            {"data": {"a": "x"}, "fontWeight": "heavy"},
            [{"message": "Must be normal, bold, italic or boldItalic.", "property": "fontWeight"}],
        ),
        (
            {"data": {"a": "x"}, "useInteractiveFields": "yes"},
            [{"message": "Must be true or false.", "property": "useInteractiveFields"}],
        ),
        ({"data": {"a": "x"}, "title": 3}, [{"message": "Must be a string.", "property": "title"}]),
        (
            {"data": {"a": {"value": "x", "fontSize": 0}}},
            [{"message": "Must be a number from 1 to 200.", "property": "data.a.fontSize"}],
        ),
        (
            {"data": {"a": ["x", {"data": "y", "textColor": "#12"}]}},
            [
                {
                    "message": "Must be a 6-digit hex colour such as #3E3E57.",
                    "property": "data.a.1.textColor",
                }
            ],
        ),
        (
            {"data": [{"a": "x"}, {"a": True}]},
            [{"message": "Must be a string.", "property": "data.1.a"}],
        ),
    ],
)
def test_bad_input_is_a_400_naming_the_property(plain, fill, body, fields) -> None:
    response = fill(plain, body)

    assert response.status_code == 400
    assert response.json() == {"name": "ValidationError", "fields": fields}


@pytest.mark.parametrize(
    ("body", "path", "font"),
    [
        ({"data": {"a": "x"}, "fontFamily": "helvetica"}, "fontFamily", "helvetica"),
        ({"data": {"a": "x"}, "fontFamily": "Comic Sanz"}, "fontFamily", "Comic Sanz"),
        ({"data": {"a": {"value": "x", "fontFamily": "Arial"}}}, "data.a.fontFamily", "Arial"),
    ],
)
def test_an_unknown_font_is_a_400_naming_the_font(plain, fill, body, path: str, font: str) -> None:
    response = fill(plain, body)

    assert response.status_code == 400
    error = response.json()["fields"][0]
    assert error["property"] == path
    assert f'"{font}"' in error["message"]


def test_six_digit_colours_with_or_without_the_hash(plain, fill) -> None:
    pdf = fill(plain, {"data": {"a": "x"}, "textColor": "ff0000"}).content

    assert text_styles(pdf)[0].color == (1.0, 0.0, 0.0)


def test_title_goes_into_the_document_metadata(plain, fill) -> None:
    import io

    from pypdf import PdfReader

    pdf = fill(plain, {"data": {"a": "x"}, "title": "Quarterly Report — Q3"}).content

    assert PdfReader(io.BytesIO(pdf)).metadata.title == "Quarterly Report — Q3"
