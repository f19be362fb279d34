"""Random payloads thrown at the endpoint: whatever arrives, the answer is a PDF or a 4xx in the
wire shape, never a 500. Hostile bodies (deep, lone surrogates, other encodings, many keys) come
from tests/hostile_json.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import basic_auth
from tests.generate.conftest import URL
from tests.hostile_json import (
    HOSTILE_SETTINGS,
    NESTED,
    NUMBERS,
    SURROGATE,
    Tally,
    hostile_body,
    tally_fixture,
)

pytestmark = pytest.mark.django_db

ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
MARKDOWN_TEXT = st.lists(
    st.sampled_from(
        [*"ab #*_-[]()!|<>&`\n>:/.1é日", "http://", "<script>", "&lt;", "| a |\n|---|\n"]
    ),
    max_size=40,
).map("".join)
HTML_FRAGMENTS = st.sampled_from(
    [
        "<p>text</p>", "<h1>Title</h1>", "<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>",
        "<form><input name=a><input type=submit><button>b</button><select name=s><option>x</option></select></form>",
        '<div class="r">running</div>', "<img src='http://127.0.0.1:9/x.png'>", "<img src='file:///etc/passwd'>",
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
        "<p style='page-break-before: always'>new page</p>", "<section id=w>wide</section>", "<", "</table>", "&#0;",
        "<input type=radio name=r><input type=radio name=r>", "<textarea name=t>x</textarea>", "日本語",
    ]
)  # fmt: skip
CSS_FRAGMENTS = st.sampled_from(
    [
        "@page { size: A5 }", "@page { margin: 1in; @top-center { content: element(hdr) } }",
        ".r { position: running(hdr) }", "table { -fs-table-paginate: none }", "@page :first { margin: 0 }",
        "@page w { size: landscape } #w { page: w }", "p { color: red; & b { color: blue } }",
        "@page { @bottom-right { content: counter(page) ' / ' counter(pages) } }",
        "@font-face { font-family: X; src: url(http://127.0.0.1:9/x.ttf) }", "@import url(file:///etc/passwd);",
        "div { display: flex } p { display: grid }", "}", "{", "p { font-size: 40px }", "body { columns: 2 }",
    ]
)  # fmt: skip
LENGTH = st.builds(
    lambda number, unit: f"{number}{unit}",
    st.sampled_from(["0", "1", "2.5", ".5", "-1", "20", "1e3"]),
    st.sampled_from(["mm", "cm", "in", "px", "em", "rem", "pt", "pc", "%", "vw", "", "IN"]),
)
PAGE = st.fixed_dictionaries(
    {},
    optional={
        "width": LENGTH | ANY_JSON,
        "height": LENGTH | ANY_JSON,
        "margin": st.lists(LENGTH, min_size=1, max_size=5).map(" ".join) | ANY_JSON,
        "marginTop": LENGTH | ANY_JSON,
        "marginLeft": LENGTH | ANY_JSON,
        "pageCount": st.sampled_from(["topLeft", "bottomCenter", "bottomRight", "middle"])
        | ANY_JSON,
    },
)
TABLE = st.fixed_dictionaries(
    {},
    optional={
        "rows": st.lists(st.lists(st.text(max_size=10) | ANY_JSON, max_size=4), max_size=5)
        | ANY_JSON,
        "firstRowHeaders": st.booleans() | ANY_JSON,
        "rowGridlines": st.booleans() | ANY_JSON,
        "columnGridlines": st.booleans() | ANY_JSON,
        "verticalAlign": st.sampled_from(["top", "center", "bottom", "middle"]) | ANY_JSON,
        "columnOptions": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "align": st.sampled_from(["left", "center", "right", "justify"]) | ANY_JSON,
                    "width": st.sampled_from(["50%", "120px", 80, "200%", "1em"]) | ANY_JSON,
                },
            )
            | ANY_JSON,
            max_size=4,
        )
        | ANY_JSON,
    },
)
ELEMENT = st.fixed_dictionaries(
    {},
    optional={
        "label": MARKDOWN_TEXT | ANY_JSON,
        "heading": MARKDOWN_TEXT | ANY_JSON,
        "content": MARKDOWN_TEXT | ANY_JSON,
        "table": TABLE | ANY_JSON,
        "fontFamily": st.sampled_from(["Noto Sans", "Courier", "Helvetica", "noto sans", "Nope"])
        | ANY_JSON,
        "fontSize": st.integers(min_value=0, max_value=40) | ANY_JSON,
        "textColor": st.sampled_from(["#112233", "ABCDEF", "#12345", "red"]) | ANY_JSON,
    },
)
HTML_DATA = st.fixed_dictionaries(
    {},
    optional={
        "html": st.lists(HTML_FRAGMENTS, max_size=6).map("".join) | ANY_JSON,
        "css": st.lists(CSS_FRAGMENTS, max_size=4).map("\n".join) | ANY_JSON,
    },
)
BODY = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["html", "markdown"]) | ANY_JSON,
        "data": HTML_DATA | st.lists(ELEMENT | ANY_JSON, max_size=4) | ANY_JSON,
        "title": st.text(max_size=30) | ANY_JSON,
        "page": PAGE | ANY_JSON,
        "fontSize": st.integers(min_value=0, max_value=40) | ANY_JSON,
        "textColor": st.sampled_from(["#3E3E57", "nope"]) | ANY_JSON,
        "fontFamily": st.sampled_from(["Noto Sans", "Times New Roman", "Comic"]) | ANY_JSON,
        "includeTimestamp": st.booleans() | ANY_JSON,
        "logo": st.just(False)
        | st.fixed_dictionaries(
            {
                "src": st.sampled_from(
                    ["data:image/png;base64,AAAA", "http://127.0.0.1:9/l.png", "x"]
                )
            },
            optional={"maxWidth": st.integers(-5, 600) | ANY_JSON, "maxHeight": ANY_JSON},
        )
        | ANY_JSON,
    },
)


# Bodies that are valid, or nearly so, so that most of them reach the renderer.
SMALL_LENGTH = st.builds(
    lambda number, unit: f"{number}{unit}",
    st.sampled_from(["0", "0.2", "1", "2.5", "12", "40"]),
    st.sampled_from(["mm", "cm", "in", "px", "em", "rem", "pt", "pc"]),
)
VALID_PAGE = st.fixed_dictionaries(
    {},
    optional={
        "width": st.sampled_from(["8.5in", "210mm", "100mm", "400pt", "30em"]),
        "height": st.sampled_from(["11in", "297mm", "80mm", "300pt", "40rem"]),
        "margin": st.lists(SMALL_LENGTH, min_size=1, max_size=4).map(" ".join),
        "marginTop": SMALL_LENGTH,
        "marginRight": SMALL_LENGTH,
        "pageCount": st.sampled_from(
            ["topLeft", "topCenter", "topRight", "bottomLeft", "bottomCenter", "bottomRight"]
        ),
    },
)
VALID_TABLE = st.fixed_dictionaries(
    {"rows": st.lists(st.lists(MARKDOWN_TEXT, min_size=1, max_size=4), max_size=6)},
    optional={
        "firstRowHeaders": st.booleans(),
        "rowGridlines": st.booleans(),
        "columnGridlines": st.booleans(),
        "verticalAlign": st.sampled_from(["top", "center", "bottom"]),
        "columnOptions": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "align": st.sampled_from(["left", "center", "right"]),
                    "width": st.sampled_from(["10%", "50%", "100%", "120px", 80, "1"]),
                },
            ),
            max_size=5,
        ),
    },
)
VALID_ELEMENT = st.fixed_dictionaries(
    {},
    optional={
        "label": MARKDOWN_TEXT,
        "heading": MARKDOWN_TEXT,
        "content": MARKDOWN_TEXT,
        "table": VALID_TABLE,
        "fontFamily": st.sampled_from(["Noto Sans", "Courier", "Helvetica", "Times New Roman"]),
        "fontSize": st.integers(min_value=5, max_value=30),
        "textColor": st.sampled_from(["#112233", "ABCDEF", "#ff0000"]),
    },
)
VALID_BODY = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("html"),
            "data": st.fixed_dictionaries(
                {"html": st.lists(HTML_FRAGMENTS, max_size=6).map("".join)},
                optional={"css": st.lists(CSS_FRAGMENTS, max_size=4).map("\n".join)},
            ),
        },
        optional={"title": st.text(max_size=30), "page": VALID_PAGE},
    ),
    st.fixed_dictionaries(
        {"data": st.lists(VALID_ELEMENT, max_size=4)},
        optional={
            "type": st.just("markdown"),
            "title": st.text(max_size=30),
            "page": VALID_PAGE,
            "fontSize": st.integers(min_value=5, max_value=30),
            "textColor": st.sampled_from(["#3E3E57", "000000"]),
            "fontFamily": st.sampled_from(["Noto Sans", "Times New Roman", "Courier"]),
            "includeTimestamp": st.booleans(),
            "logo": st.just(False)
            | st.fixed_dictionaries(
                {
                    "src": st.sampled_from(
                        ["data:image/png;base64,AAAA", "http://127.0.0.1:9/l.png"]
                    )
                },
                optional={"maxWidth": st.integers(1, 500), "maxHeight": st.floats(0.5, 500)},
            ),
        },
    ),
)


def _check(response: Any) -> None:
    assert response.status_code != 500, response.content[:500]
    assert response.status_code in (200, 400, 413, 422), response.content[:500]
    if response.status_code == 200:
        assert response["Content-Type"] == "application/pdf"
        assert response.content.startswith(b"%PDF-")
    else:
        body = response.json()
        assert body["name"]
        if body["name"] == "ValidationError":
            assert body["fields"]
            assert all({"message", "property"} <= set(f) for f in body["fields"])
        else:
            assert body["message"]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=BODY)
def test_random_json_bodies_never_cause_a_500(production_key: str, body: dict[str, Any]) -> None:
    client = Client(HTTP_AUTHORIZATION=basic_auth(production_key))
    response = client.post(URL, data=json.dumps(body), content_type="application/json")

    _check(response)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    parts=st.dictionaries(
        st.sampled_from(["data", "type", "title", "page", "logo", "fontSize"]),
        st.text(max_size=40) | ANY_JSON.map(json.dumps),
        max_size=5,
    )
)
def test_random_multipart_bodies_never_cause_a_500(
    production_key: str, parts: dict[str, str]
) -> None:
    client = Client(HTTP_AUTHORIZATION=basic_auth(production_key))
    response = client.post(URL, data=parts)

    _check(response)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_random_bytes_never_cause_a_500(production_key: str, raw: bytes) -> None:
    client = Client(HTTP_AUTHORIZATION=basic_auth(production_key))
    response = client.post(URL, data=raw, content_type="application/json")

    _check(response)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=VALID_BODY)
def test_plausible_bodies_render_or_are_refused_cleanly(
    production_key: str, body: dict[str, Any]
) -> None:
    client = Client(HTTP_AUTHORIZATION=basic_auth(production_key))
    response = client.post(URL, data=json.dumps(body), content_type="application/json")

    _check(response)


# --- hostile shapes: depth, lone surrogates, other and invalid encodings, many keys ----------

GENERATE_TEMPLATES = [
    "%s",
    '{"type": "markdown", "data": %s}',
    '{"type": "markdown", "title": %s, "data": [{"content": "x"}]}',
    '{"type": "markdown", "data": [{"label": %s, "content": "x"}]}',
    '{"type": "markdown", "data": [{"heading": "h", "content": %s}]}',
    '{"type": "markdown", "data": [{"table": {"rows": [["a", %s]]}}]}',
    '{"type": "markdown", "data": [{"table": {"rows": %s}}]}',
    '{"type": "html", "data": {"html": %s}}',
    '{"type": "html", "data": {"html": "<p>x</p>", "css": %s}}',
    '{"type": "markdown", "page": %s, "data": [{"content": "x"}]}',
    '{"type": "markdown", "fontSize": %s, "data": [{"content": "x"}]}',
    '{"type": "markdown", "logo": {"src": %s}, "data": [{"content": "x"}]}',
]


generate_tally = tally_fixture("generate")


@settings(HOSTILE_SETTINGS, max_examples=120)
@given(raw=hostile_body(GENERATE_TEMPLATES))
def test_hostile_bodies_are_a_pdf_or_a_4xx_in_the_wire_shape(
    production_key: str, generate_tally: Tally, raw: bytes
) -> None:
    client = Client(HTTP_AUTHORIZATION=basic_auth(production_key))
    response = client.post(URL, data=raw, content_type="application/json")
    generate_tally.count(response.status_code)

    _check(response)
    if response.status_code != 200:
        assert response["Content-Type"] == "application/json"


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=st.sampled_from(["data", "title", "page", "logo"]),
    value=st.one_of(NESTED, SURROGATE, NUMBERS),
)
def test_hostile_multipart_parts_are_a_4xx_in_the_wire_shape(
    production_key: str, generate_tally: Tally, name: str, value: str
) -> None:
    client = Client(HTTP_AUTHORIZATION=basic_auth(production_key))
    parts = {"type": "markdown", "data": json.dumps([{"content": "x"}]), name: value}
    response = client.post(URL, data=parts)
    generate_tally.count(response.status_code)

    _check(response)
