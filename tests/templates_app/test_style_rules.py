"""One style rule and one font check for template saves, the admin's forms and fill payloads."""

from __future__ import annotations

import json

import pytest

from core.engine.problems import Problem
from core.engine.style import parse_style
from core.errors import ValidationFailed
from templates_app.field_forms import StyleForm
from templates_app.models import PdfTemplate
from templates_app.services import (
    default_version_of,
    template_publish,
    template_update_working,
    working_version,
)

BAD_STYLE = {"fontSize": 0, "textColor": "red", "alignment": "middle", "fontWeight": "heavy"}
EXPECTED = [
    ("fontSize", "Must be a number from 1 to 200."),
    ("textColor", "Must be a 6-digit hex colour such as #3E3E57."),
    ("alignment", "Must be left, center or right."),
    ("fontWeight", "Must be normal, bold, italic or boldItalic."),
]


def test_colours_are_read_with_or_without_the_hash() -> None:
    problems: list[Problem] = []

    assert parse_style({"textColor": "3e3e57"}, "", problems).text_color == "#3E3E57"
    assert parse_style({"textColor": "#3E3E57"}, "", problems).text_color == "#3E3E57"
    assert problems == []


def test_a_template_save_and_a_fill_refuse_the_same_style_the_same_way(
    demo_template: PdfTemplate, api_client
) -> None:
    spec = dict(working_version(demo_template).spec)
    with pytest.raises(ValidationFailed) as caught:
        template_update_working(template=demo_template, spec={**spec, "style": BAD_STYLE})
    saved = [(f.property, f.message) for f in caught.value.fields]

    response = api_client.post(
        f"/api/v1/fill/{demo_template.eid}.pdf",
        data=json.dumps({"data": {"name": "Ada"}, **BAD_STYLE}),
        content_type="application/json",
    )
    filled = [(f["property"], f["message"]) for f in response.json()["fields"]]

    assert saved == [(f"style.{key}", message) for key, message in EXPECTED]
    assert filled == EXPECTED


def test_a_colour_without_hash_is_saved_normalized(demo_template: PdfTemplate) -> None:
    spec = dict(working_version(demo_template).spec)

    version = template_update_working(
        template=demo_template, spec={**spec, "style": {"textColor": "aa00cc"}}
    )

    assert version.spec["style"] == {"textColor": "#AA00CC"}


def test_the_admin_style_form_follows_the_same_rules(db: None) -> None:
    form = StyleForm(
        data={"style-fontFamily": "helvetica", "style-textColor": "3e3e57", "style-fontSize": "0"},
        prefix="style",
    )

    assert not form.is_valid()
    assert form.errors["fontFamily"] == [
        'Unknown font family "helvetica". Font names are case-sensitive: did you mean "Helvetica"?'
    ]
    assert form.errors["fontSize"] == ["Must be a number from 1 to 200."]
    assert "textColor" not in form.errors
    good = StyleForm(data={"style-textColor": "3e3e57"}, prefix="style")
    assert good.is_valid()
    assert good.style_json() == {"textColor": "#3E3E57"}


def test_the_fill_names_the_font_hint_like_a_save(demo_template: PdfTemplate, api_client) -> None:
    response = api_client.post(
        f"/api/v1/fill/{demo_template.eid}.pdf",
        data=json.dumps({"data": {"name": "Ada"}, "fontFamily": "helvetica"}),
        content_type="application/json",
    )

    assert response.status_code == 400
    assert response.json()["fields"] == [
        {
            "property": "fontFamily",
            "message": 'Unknown font family "helvetica". Font names are case-sensitive: '
            'did you mean "Helvetica"?',
        }
    ]


def test_the_default_version_is_the_latest_published_else_the_working_one(
    demo_template: PdfTemplate,
) -> None:
    working = working_version(demo_template)
    published = list(demo_template.versions.filter(number__isnull=False))
    assert default_version_of(demo_template.versions.all()).number == max(
        v.number for v in published
    )
    newer = template_publish(template=demo_template)
    assert default_version_of(demo_template.versions.all()) == newer
    assert default_version_of([working]) == working
