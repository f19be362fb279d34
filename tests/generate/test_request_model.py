"""The generate body declared once (generate.engine.request_model, issue 53 item 1): the parser
checks with it and the OpenAPI components are derived from it, so what the parser takes the
document allows; and what spans properties (the page's room) keeps the order of its problems."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from core.engine.wire_models import component_schemas
from generate.engine.errors import GenerateInvalid
from generate.engine.parse_request import parse_generate_request
from generate.engine.request import GenerateRequest as Parsed
from generate.engine.request import Logo, PageSettings
from generate.engine.request_model import GenerateRequest


def font_check(name: str) -> str | None:
    return None if name in ("Noto Sans", "Courier") else f'Unknown font family "{name}".'


def parse(body: dict[str, Any]) -> Parsed:
    return parse_generate_request(body, font_check=font_check, max_source_bytes=10**6)


def problems(body: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(GenerateInvalid) as caught:
        parse(body)
    return [(p.path, p.message) for p in caught.value.problems]


SCHEMAS = {
    **component_schemas(GenerateRequest),
    # core/openapi.py registers it; an encrypted string is decrypted before the parser sees it.
    "EncryptedData": {"type": "string", "pattern": "^:$"},
}
VALIDATOR = Draft202012Validator(
    {"$ref": "#/components/schemas/GenerateRequest", "components": {"schemas": SCHEMAS}}
)


MARKDOWN_ONLY = ("fontSize", "textColor", "fontFamily", "includeTimestamp", "logo")


def test_the_page_is_measured_with_what_did_read_and_its_counter_is_last() -> None:
    body = {
        "data": [{"content": "x"}],
        "page": {"width": "1mile", "marginLeft": "5in", "marginRight": "4in", "pageCount": "top"},
    }

    # The width that does not read is taken at its default (8.5in) to measure the margins.
    assert problems(body) == [
        ("page.width", 'Unit "mile" is not supported; use one of mm, cm, in, px, em, rem, pt, pc.'),
        ("page.margin", "The left and right margins leave no room on the page."),
        ("page.pageCount", 'Must be one of: "topLeft", "topCenter", "topRight", "bottomLeft", '
         '"bottomCenter", "bottomRight".'),
    ]  # fmt: skip


def test_a_page_of_zero_or_over_200in_and_side_margins_over_the_shorthand() -> None:
    assert problems({"data": [], "page": {"width": "0", "height": "201in"}}) == [
        ("page.width", "Must be greater than zero."),
        ("page.height", "Must be at most 200in (the largest PDF page)."),
    ]
    page = parse({"data": [], "page": {"marginLeft": "1in", "margin": "2in 3in"}}).page
    assert (page.margin_top.css(), page.margin_right.css(), page.margin_left.css()) == (
        "2in",
        "3in",
        "1in",
    )
    assert page.width == PageSettings().width


def test_html_mode_ignores_markdown_properties_and_a_missing_data_stops_early() -> None:
    html = parse({"type": "html", "data": {"html": "<p>x</p>"}, "fontSize": "x", "logo": 3})

    assert (html.mode, html.html, html.css) == ("html", "<p>x</p>", "")
    assert problems({"title": 1, "fontSize": "x"}) == [
        ("title", "Must be a string."),
        ("data", "Required"),
    ]
    assert problems({"type": "pdf", "data": "x", "fontSize": "x"}) == [
        ("type", 'Must be "html" or "markdown".')
    ]


def test_values_come_out_normalised() -> None:
    request = parse(
        {
            "data": [
                {
                    "fontSize": 12.0,
                    "textColor": "abcdef",
                    "table": {"rows": [[1, None, 2.5, "a"]], "columnOptions": [None, {"width": 7}]},
                }
            ],
            "logo": {"src": " https://x.test/l.png ", "maxWidth": 50},
        }
    )

    element = request.elements[0]
    assert (element.style.font_size, element.style.text_color) == (12, "#ABCDEF")
    assert element.table is not None
    assert element.table.rows == (("1", "", "2.5", "a"),)
    assert [o.width for o in element.table.column_options] == [None, "7px"]
    assert request.logo == Logo(src="https://x.test/l.png", max_width=50.0, max_height=200.0)
    assert parse({"data": [], "logo": False}).logo is None
    assert parse({"data": [], "logo": None}).logo == "default"


def test_the_schema_refuses_what_the_parser_refuses_by_type_and_bounds() -> None:
    for body in (
        {"data": [{"fontSize": 31}]},
        {"data": [{"table": {}}]},
        {"data": [], "logo": {"src": "https://x.test", "maxWidth": 0}},
        {"data": [], "page": {"pageCount": "middle"}},
        {"data": [], "textColor": "red"},
    ):
        assert not VALIDATOR.is_valid(body), body
        with pytest.raises(GenerateInvalid):
            parse(body)


def _without_nulls(value: Any) -> Any:
    # The document says once that null means not given; its schemas describe the values.
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


_ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 600),
    st.sampled_from([12.0, 12.5, 0.5, "", "x", "12", "#123456", "Courier", "0", "25%"]),
)


def _bodies(valid: bool) -> st.SearchStrategy[dict[str, Any]]:
    """Generate bodies: with ``valid``, of values the parser takes (or null) only, so that most
    parse and every property's schema meets them; else mostly good values, some bad."""
    # Mostly null (not given), so that a good share of the bodies parse.
    any_ = st.none() if valid else st.one_of(*[st.none()] * 8, _ANY_VALUE)

    def pick(good: list[Any], bad: list[Any]) -> st.SearchStrategy[Any]:
        if valid:
            return st.sampled_from([*good, None])
        return st.one_of(*[st.sampled_from(good)] * 3, st.sampled_from(bad), any_)

    _LENGTH = pick(["8.5in", "0.5in", " 2cm ", "1pc", "3em"], ["0", "300in"])
    _CELL = pick(["a", 1, 2.5, None], [True, {}])
    _OPTION = st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {},
            optional={
                "align": pick(["left", "right"], ["justify"]),
                "width": pick([120, "120px", " 30 % ", ".5%"], ["150%", "12em", -5, 0]),
            },
        ),
    )
    _TABLE = st.fixed_dictionaries(
        {"rows": st.lists(st.lists(_CELL, max_size=3), max_size=3)},
        optional={
            "verticalAlign": pick(["top", "center"], ["middle"]),
            "firstRowHeaders": any_,
            "columnOptions": st.one_of(st.lists(_OPTION, max_size=3), any_),
        },
    )
    _STYLE = {
        "fontSize": pick([5, 12.0, 30], [31, 12.5]),
        "textColor": pick(["#123456", "abcdef"], ["#ABCDEF0"]),
        "fontFamily": pick(["Noto Sans"], ["noto sans"]),
    }
    _BLOCK = st.fixed_dictionaries(
        {},
        optional={"content": st.just("x"), "label": any_, "table": st.one_of(_TABLE, any_)}
        | _STYLE,
    )
    _PAGE = st.fixed_dictionaries(
        {},
        optional={
            "width": _LENGTH,
            "height": _LENGTH,
            "margin": pick(["1in", "1in 2in 3in"], ["5in", "1 2"]),
            "marginTop": _LENGTH,
            "pageCount": pick(["topLeft", "bottomRight"], ["nope"]),
        },
    )
    _LOGO = st.one_of(
        st.just(False),
        st.fixed_dictionaries(
            {"src": pick(["https://x.test/l.png", "data:x"], ["ftp://x"])},
            optional={"maxWidth": pick([1, 500], [500.5, 0]), "maxHeight": any_},
        ),
        any_,
    )
    _OPTIONS = {
        "title": pick(["T"], [1]),
        "fieldTags": pick([True, False], ["yes"]),
        "page": st.one_of(_PAGE, any_),
        "includeTimestamp": pick([True, False], ["yes"]),
        "logo": _LOGO,
    } | _STYLE
    # Each mode with its own data, and now and then a type that is neither.
    return st.one_of(
        st.fixed_dictionaries(
            {"data": st.lists(st.one_of(_BLOCK, _BLOCK, _BLOCK, any_), max_size=3)},
            optional={"type": pick(["markdown"], ["pdf"])} | _OPTIONS,
        ),
        st.fixed_dictionaries(
            {
                "type": st.just("html"),
                "data": st.fixed_dictionaries(
                    {"html": st.just("<p>x</p>")}, optional={"css": any_}
                ),
            },
            optional=_OPTIONS,
        ),
    )


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(_bodies(valid=True), _bodies(valid=False)))
def test_every_body_the_parser_takes_the_schema_allows(body: dict[str, Any]) -> None:
    try:
        parse(body)
    except GenerateInvalid:
        return
    errors = {
        e.path[0] if e.path else "": e.message for e in VALIDATOR.iter_errors(_without_nulls(body))
    }
    # HTML mode ignores the Markdown-only properties, whatever they hold; the schema has one
    # shape for both modes (as before it was derived), so there only those may differ.
    if body.get("type") == "html":
        assert set(errors) <= set(MARKDOWN_ONLY), body
    else:
        assert errors == {}, body
