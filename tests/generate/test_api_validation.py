"""POST /api/v1/generate-pdf's validation, with property paths: wrong shapes and bad values name
their property (or element), unknown fonts name the font, every problem is reported at once,
HTML mode ignores the Markdown-only properties, and valid edge values are accepted."""

from __future__ import annotations

import pytest

from tests.generate.conftest import generate_pdf, page_texts, post, reader
from tests.generate.test_api import HTML_PAYLOAD, fields, properties

pytestmark = pytest.mark.django_db


# -- validation, with property paths ------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"type": "pdf", "data": []}, [("type", 'Must be "html" or "markdown".')]),
        ({"type": "html", "data": [{"html": "x"}]}, [("data", 'In HTML mode, data must be an object with "html" and "css" strings.')]),
        ({"type": "markdown", "data": {"html": "x"}}, [("data", "In Markdown mode, data must be an array of objects.")]),
        ({"data": {"content": "x"}}, [("data", "In Markdown mode, data must be an array of objects.")]),
        ({"type": "html", "data": {"css": "p {}"}}, [("data.html", "Required")]),
        ({"type": "html", "data": {"html": 5, "css": ["x"]}}, [("data.html", "Must be a string."), ("data.css", "Must be a string.")]),
        ({"data": ["text"]}, [("data.0", "Must be an object.")]),
        ({"data": [{}, {"label": 5, "heading": [], "content": {}}]}, [("data.1.label", "Must be a string."), ("data.1.heading", "Must be a string."), ("data.1.content", "Must be a string.")]),
        ({"data": [{"content": "x"}], "title": 7}, [("title", "Must be a string.")]),
    ],
)  # fmt: skip
def test_wrong_shapes_name_their_property(api_client, payload, expected) -> None:
    response = post(api_client, payload)

    assert [(f["property"], f["message"]) for f in fields(response)] == expected


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"fontSize": 4}, "fontSize"),
        ({"fontSize": 31}, "fontSize"),
        ({"fontSize": 12.5}, "fontSize"),
        ({"fontSize": "12"}, "fontSize"),
        ({"fontSize": True}, "fontSize"),
        ({"textColor": "#12345"}, "textColor"),
        ({"textColor": "red"}, "textColor"),
        ({"textColor": "#GG0000"}, "textColor"),
        ({"textColor": 0x123456}, "textColor"),
        ({"includeTimestamp": "yes"}, "includeTimestamp"),
        ({"logo": True}, "logo"),
        ({"logo": "https://example.com/logo.png"}, "logo"),
        ({"logo": {}}, "logo.src"),
        ({"logo": {"src": "ftp://example.com/logo.png"}}, "logo.src"),
        ({"logo": {"src": "file:///etc/passwd"}}, "logo.src"),
        ({"logo": {"src": "https://x.test/l.png", "maxWidth": 501}}, "logo.maxWidth"),
        ({"logo": {"src": "https://x.test/l.png", "maxHeight": 0}}, "logo.maxHeight"),
        ({"logo": {"src": "https://x.test/l.png", "maxHeight": "100"}}, "logo.maxHeight"),
        ({"page": "A4"}, "page"),
        ({"page": {"width": "10furlongs"}}, "page.width"),
        ({"page": {"width": 612}}, "page.width"),
        ({"page": {"height": "0in"}}, "page.height"),
        ({"page": {"height": "300in"}}, "page.height"),
        ({"page": {"margin": "10%"}}, "page.margin"),
        ({"page": {"margin": "1in 2in 3in 4in 5in"}}, "page.margin"),
        ({"page": {"margin": "1in; } body { display: none"}}, "page.margin"),
        ({"page": {"marginTop": "-1in"}}, "page.marginTop"),
        ({"page": {"marginRight": "1vw"}}, "page.marginRight"),
        ({"page": {"marginBottom": "auto"}}, "page.marginBottom"),
        ({"page": {"marginLeft": "1"}}, "page.marginLeft"),
        ({"page": {"margin": "5in"}}, "page.margin"),
        ({"page": {"pageCount": "middle"}}, "page.pageCount"),
        ({"page": {"pageCount": True}}, "page.pageCount"),
    ],
)
def test_bad_values_are_400_on_their_property(api_client, payload, path) -> None:
    response = post(api_client, {"data": [{"content": "x"}], **payload})

    assert path in properties(response)


@pytest.mark.parametrize(
    ("element", "path"),
    [
        ({"fontSize": 5.5}, "data.0.fontSize"),
        ({"fontSize": 100}, "data.0.fontSize"),
        ({"textColor": "#ABCDEF0"}, "data.0.textColor"),
        ({"fontFamily": 3}, "data.0.fontFamily"),
        ({"table": []}, "data.0.table"),
        ({"table": {}}, "data.0.table.rows"),
        ({"table": {"rows": "a,b"}}, "data.0.table.rows"),
        ({"table": {"rows": [["a"], "b"]}}, "data.0.table.rows.1"),
        ({"table": {"rows": [["a", {"b": 1}]]}}, "data.0.table.rows.0.1"),
        ({"table": {"rows": [["a"]], "firstRowHeaders": "no"}}, "data.0.table.firstRowHeaders"),
        ({"table": {"rows": [["a"]], "rowGridlines": 1}}, "data.0.table.rowGridlines"),
        ({"table": {"rows": [["a"]], "columnGridlines": "true"}}, "data.0.table.columnGridlines"),
        ({"table": {"rows": [["a"]], "verticalAlign": "middle"}}, "data.0.table.verticalAlign"),
        ({"table": {"rows": [["a"]], "columnOptions": {}}}, "data.0.table.columnOptions"),
        ({"table": {"rows": [["a"]], "columnOptions": [{}, "x"]}}, "data.0.table.columnOptions.1"),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{}, {"align": "justify"}]}},
            "data.0.table.columnOptions.1.align",
        ),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{"width": "12em"}]}},
            "data.0.table.columnOptions.0.width",
        ),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{"width": "150%"}]}},
            "data.0.table.columnOptions.0.width",
        ),
        (
            {"table": {"rows": [["a"]], "columnOptions": [{"width": -5}]}},
            "data.0.table.columnOptions.0.width",
        ),
    ],
)
def test_bad_element_values_name_the_element(api_client, element, path) -> None:
    response = post(api_client, {"data": [element]})

    assert path in properties(response)


def test_unknown_fonts_are_400_naming_the_font(api_client) -> None:
    response = post(
        api_client,
        {
            "data": [{"content": "x"}, {"content": "y", "fontFamily": "noto sans"}],
            "fontFamily": "Comic Nope",
        },
    )

    assert fields(response) == [
        {"message": 'Unknown font family "Comic Nope".', "property": "fontFamily"},
        {
            "message": 'Unknown font family "noto sans". Font names are case-sensitive: did you mean "Noto Sans"?',
            "property": "data.1.fontFamily",
        },
    ]


def test_every_problem_is_reported_at_once(api_client) -> None:
    response = post(
        api_client,
        {
            "data": [{"fontSize": 2, "table": {"rows": [[1, None, True]]}}],
            "textColor": "blue",
            "page": {"width": "1mile", "pageCount": "top"},
            "logo": {"src": "x", "maxWidth": 900},
        },
    )

    assert properties(response) == [
        "page.width",
        "page.pageCount",
        "textColor",
        "logo.src",
        "logo.maxWidth",
        "data.0.table.rows.0.2",
        "data.0.fontSize",
    ]


def test_html_mode_ignores_the_markdown_only_properties(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        {
            **HTML_PAYLOAD,
            "fontFamily": "Not A Font",
            "fontSize": 99,
            "textColor": "purple",
            "includeTimestamp": "sometimes",
            "logo": {"src": "ftp://nope"},
        },
    )

    assert "Hello HTML" in page_texts(pdf)[0]
    assert "Generated" not in page_texts(pdf)[0]


def test_valid_edge_values_are_accepted(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        {
            "data": [
                {"content": "small", "fontSize": 5, "textColor": "#abcdef"},
                {"content": "large", "fontSize": 30.0, "textColor": "ABCDEF"},
                {
                    "table": {
                        "rows": [["1", 2, 3.5, None]],
                        "columnOptions": [None, {"width": 120}, {"width": "25%"}, {}],
                    }
                },
            ],
            "logo": {"src": "https://example.invalid/logo.png", "maxWidth": 500, "maxHeight": 0.5},
            "page": {
                "width": "0.5in",
                "height": "200in",
                "margin": "0",
                "marginTop": ".1in",
                "pageCount": None,
            },
            "includeTimestamp": None,
            "title": None,
            "extraUnknownProperty": {"ignored": True},
        },
    )

    assert reader(pdf).pages[0].mediabox.height == 14400
