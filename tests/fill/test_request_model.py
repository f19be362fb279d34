"""The fill body's root declared once (fill.engine.request_model, issue 53 item 1): the parser
checks it with the model and the OpenAPI components are derived from it. Its style properties
are read by core.engine.style.parse_style, the one reading of a style: the schema the model
derives for them allows exactly what parse_style takes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from core.engine.problems import Problem
from core.engine.style import parse_style
from core.engine.template_spec import Style
from core.engine.wire_models import component_schemas
from fill.engine.errors import FillInvalid, FillLimitExceeded
from fill.engine.payload import parse_fill_request
from fill.engine.request_model import FillRequest

SCHEMAS = {**component_schemas(FillRequest), "EncryptedData": {"type": "string", "pattern": "^:$"}}
STYLE_KEYS = ("fontFamily", "fontSize", "textColor", "alignment", "fontWeight")


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(
        {"$ref": f"#/components/schemas/{name}", "components": {"schemas": SCHEMAS}}
    )


def problems(body: Any) -> list[tuple[str, str]]:
    with pytest.raises(FillInvalid) as caught:
        parse_fill_request(body, max_documents=3)
    return [(p.path, p.message) for p in caught.value.problems]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, [("data", "Required")]),
        ({"data": None}, [("data", "Required")]),
        ({"data": ""}, [("data", "Required")]),
        ({"data": []}, [("data", "Required")]),
        ({"data": {}}, [("data", "Required")]),
        ({"data": 5}, [("data", "Must be an object, an array of objects or an encrypted string.")]),
        ({"data": [{}, 1, "x"]}, [("data.1", "Must be an object of field values."),
                                  ("data.2", "Must be an object of field values.")]),
        ({"data": {"a": 1}, "title": 1, "fontSize": 0, "textColor": "red", "alignment": "top",
          "fontWeight": "heavy", "fontFamily": " ", "useInteractiveFields": "yes",
          "defaultReadOnly": 1},
         [("title", "Must be a string."), ("fontFamily", "Must be a font name."),
          ("fontSize", "Must be a number from 1 to 200."),
          ("textColor", "Must be a 6-digit hex colour such as #3E3E57."),
          ("alignment", "Must be left, center or right."),
          ("fontWeight", "Must be normal, bold, italic or boldItalic."),
          ("useInteractiveFields", "Must be true or false."),
          ("defaultReadOnly", "Must be true or false.")]),
    ],
)  # fmt: skip
def test_root_problems_keep_their_paths_messages_and_order(body: Any, expected: list) -> None:
    assert problems(body) == expected


def test_too_many_documents_is_the_limit_before_any_other_problem() -> None:
    with pytest.raises(FillLimitExceeded) as caught:
        parse_fill_request({"data": [{}, {}, {}, {}], "title": 1}, max_documents=3)

    assert caught.value.path == "data"


def test_a_valid_root_becomes_the_engines_request() -> None:
    body = {"data": [{"a": 1}, {}], "fontSize": 9, "textColor": "abcdef", "alignment": "right"}

    request = parse_fill_request({**body, "useInteractiveFields": True}, max_documents=3)

    assert request.documents == ({"a": 1}, {})
    assert request.paths == ("data.0", "data.1")
    assert request.whole_pdf_repeat is True
    assert request.options.style == Style(font_size=9.0, text_color="#ABCDEF", alignment="right")
    assert request.options.use_interactive_fields is True
    assert request.options.default_read_only is False
    single = parse_fill_request({"data": {"a": None}, "title": "T"}, max_documents=3)
    assert (single.documents, single.paths, single.options.title) == (
        ({"a": None},),
        ("data",),
        "T",
    )


def test_the_schema_takes_an_empty_document_only_inside_an_array() -> None:
    request = validator("FillRequest")

    assert request.is_valid({"data": [{}]})
    assert not request.is_valid({"data": {}})
    assert not request.is_valid({"data": []})
    assert problems({"data": {}}) == [("data", "Required")]
    assert parse_fill_request({"data": [{}]}, max_documents=3).documents == ({},)


_STYLE_VALUE = st.one_of(
    st.booleans(),
    st.integers(-5, 250),
    # NaN is no JSON number (JSON Schema cannot speak of it); parse_style refuses it.
    st.floats(allow_nan=False, allow_infinity=True),
    st.sampled_from(
        ["", " ", "Courier", " a ", "#123456", "abcdef", "#ABCDEF0", "red", "12", "left",
         "center", "right", "justify", "normal", "bold", "italic", "boldItalic", "Bold"]
    ),
    st.just([]),
    st.just({}),
)  # fmt: skip


@given(st.sampled_from(STYLE_KEYS), _STYLE_VALUE)
def test_the_derived_style_schema_takes_what_parse_style_takes(key: str, value: Any) -> None:
    found: list[Problem] = []
    parse_style({key: value}, "", found)
    schema_ok = validator("FillRequest").is_valid({"data": {"a": 1}, key: value})
    model_problems = [] if not found else problems({"data": {"a": 1}, key: value})

    assert schema_ok == (not found), (key, value, found)
    assert model_problems == [(p.path, p.message) for p in found]
