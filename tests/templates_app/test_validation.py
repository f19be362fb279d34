"""The template validator's rules that no import or editor test reaches."""

from __future__ import annotations

import pytest

from templates_app.engine.validation import validate_template_json

PAGE = {"width": 612, "height": 792, "rotate": 0, "mediaBox": [0, 0, 612, 792]}


def spec_with(**field) -> dict:
    base = {"id": "f1", "alias": "name", "type": "shortText", "page": 0}
    base["rect"] = {"x": 50, "y": 50, "width": 100, "height": 20}
    return {"pages": [PAGE], "fields": [{**base, **field}]}


@pytest.mark.parametrize("value", [0, -3, True, "5", 2.5])
def test_max_length_of_any_type_is_a_positive_integer(value) -> None:
    problems = validate_template_json(spec_with(maxLength=value))

    assert [(p.path, p.message) for p in problems] == [
        ("fields.0.maxLength", "Must be a positive integer.")
    ]


def test_a_positive_max_length_is_accepted() -> None:
    assert validate_template_json(spec_with(maxLength=20)) == []
