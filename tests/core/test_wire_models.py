"""core.engine.wire_models: a wire input's problems in the wire shape (dotted camelCase paths,
the messages the compatible clients know, never pydantic's wording) and its OpenAPI components
as the document writes them (issue 53, item 1)."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import AfterValidator, Field, TypeAdapter

from core.engine.problems import Problem
from core.engine.wire_models import (
    WireModel,
    component_schemas,
    one_of,
    refusal,
    says,
    validate,
    validate_as,
)


def _braces(value: str) -> str:
    if value != "ok":
        raise refusal('Unknown "{name}" value.')
    return value


class Inner(WireModel):
    """A part.
    Its second line."""

    kind: Annotated[Literal["a", "b"], says(one_of(["a", "b"]))] = "a"
    size: Annotated[int, Field(ge=1, le=3), says("Must be 1 to 3.")] | None = None


class Outer(WireModel):
    font_name: str | None = Field(None, description="A name.")
    enabled: bool = True
    inner: Inner
    items: Annotated[list[Inner], says("Must be an array of parts.")] | None = None
    odd: Annotated[str, AfterValidator(_braces)] | None = None


def problems(value: object, prefix: str = "") -> list[tuple[str, str]]:
    model, found = validate(Outer, value, prefix=prefix)
    assert (model is None) == bool(found)
    return [(p.path, p.message) for p in found]


def test_a_valid_body_is_a_model_with_its_defaults() -> None:
    model, found = validate(Outer, {"fontName": "x", "inner": {}, "unknown": [1]})

    assert found == []
    assert model == Outer.model_validate({"fontName": "x", "inner": {"kind": "a"}})
    assert model is not None
    assert model.enabled is True
    assert model.inner.size is None


def test_null_is_not_given_and_a_required_null_is_required() -> None:
    model, found = validate(Outer, {"fontName": None, "enabled": None, "inner": {"size": None}})

    assert found == []
    assert model is not None
    assert model.font_name is None
    assert model.enabled is True
    assert problems({"inner": None}) == [("inner", "Required")]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"inner": {}, "fontName": 5}, [("fontName", "Must be a string.")]),
        ({"inner": {}, "enabled": 1}, [("enabled", "Must be true or false.")]),
        ({"inner": {}, "enabled": "true"}, [("enabled", "Must be true or false.")]),
        ({"inner": "x"}, [("inner", "Must be an object.")]),
        ({}, [("inner", "Required")]),
        ({"inner": {"size": "2"}}, [("inner.size", "Must be 1 to 3.")]),
        ({"inner": {"size": 4}}, [("inner.size", "Must be 1 to 3.")]),
        ({"inner": {"kind": "c"}}, [("inner.kind", 'Must be one of: "a", "b".')]),
        ({"inner": {}, "items": {}}, [("items", "Must be an array of parts.")]),
        ({"inner": {}, "odd": "no"}, [("odd", 'Unknown "{name}" value.')]),
    ],
)
def test_each_problem_has_its_path_and_the_wire_message(body: object, expected: list) -> None:
    assert problems(body) == expected


def test_says_words_the_value_only_and_problems_inside_keep_their_paths() -> None:
    body = {"inner": {"size": 0}, "items": [{}, "x", {"kind": 1, "size": 9}], "fontName": 1}

    assert problems(body) == [
        ("fontName", "Must be a string."),
        ("inner.size", "Must be 1 to 3."),
        ("items.1", "Must be an object."),
        ("items.2.kind", 'Must be one of: "a", "b".'),
        ("items.2.size", "Must be 1 to 3."),
    ]


def test_paths_go_below_a_prefix_and_the_whole_value_is_the_prefix() -> None:
    assert problems({"inner": {"size": 9}}, prefix="data") == [
        ("data.inner.size", "Must be 1 to 3.")
    ]
    assert problems([], prefix="data") == [("data", "Must be an object.")]
    assert problems([]) == [("", "Must be an object.")]


def test_a_type_adapter_is_checked_the_same_way() -> None:
    adapter: TypeAdapter[list[Inner]] = TypeAdapter(
        Annotated[list[Inner], says("Must be an array.")]
    )

    assert validate_as(adapter, [{"size": 2}]) == ([Inner(size=2)], [])
    assert validate_as(adapter, "x", prefix="data") == (
        None,
        [Problem("data", "Must be an array.")],
    )
    assert validate_as(adapter, [{"size": 0}], prefix="data")[1] == [
        Problem("data.0.size", "Must be 1 to 3.")
    ]


def test_a_type_without_a_wire_message_keeps_pydantics_wording() -> None:
    class Loose(WireModel):
        count: int = 0

    # A model mistake (no says() on a number) shows in its tests, not as a silent message.
    model, found = validate(Loose, {"count": "x"})

    assert model is None
    assert found == [Problem("count", "Input should be a valid integer")]


def test_component_schemas_as_the_document_writes_them() -> None:
    schemas = component_schemas(Outer)

    assert set(schemas) == {"Outer", "Inner"}
    outer = schemas["Outer"]
    assert "title" not in outer
    assert "description" not in outer
    assert outer["required"] == ["inner"]
    assert outer["properties"]["fontName"] == {"type": "string", "description": "A name."}
    assert outer["properties"]["enabled"] == {"type": "boolean", "default": True}
    assert outer["properties"]["inner"] == {"$ref": "#/components/schemas/Inner"}
    assert outer["properties"]["items"] == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/Inner"},
    }
    inner = schemas["Inner"]
    assert inner["description"] == "A part. Its second line."
    assert inner["properties"]["size"] == {"type": "integer", "minimum": 1, "maximum": 3}
    assert "title" not in inner["properties"]["kind"]
