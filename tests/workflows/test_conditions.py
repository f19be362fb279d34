"""Conditional fields (``showWhen``): declared in the definition, kept through the admin's JSON
export and import, and enforced by the server's rules: a hidden field is not required and its
value is dropped."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Organization
from core.engine.problems import InvalidInput
from tests.workflows.conftest import FORGE_SUBMIT
from workflows.definitions import versions
from workflows.definitions.rows import definition_of
from workflows.engine.definition import parse_definition
from workflows.engine.resolve import check_fields, drop_hidden, missing_required
from workflows.engine.rules import has_value
from workflows.models import WebformField, WebformSubmission, Workflow

FIELDS = [
    {"key": "name", "type": "shortText", "label": "Name", "required": True},
    {"key": "pets", "type": "checkbox", "label": "I have pets"},
    {"key": "petName", "type": "shortText", "label": "Pet's name", "required": True,
     "showWhen": {"field": "pets", "hasValue": True}},
    {"key": "petAge", "type": "integer", "label": "Pet's age",
     "showWhen": {"field": "petName", "hasValue": True}},
]  # fmt: skip


def raw_definition(fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "format": "workflow/1",
        "slug": "pets",
        "name": "Pets",
        "webforms": [
            {"slug": "you", "name": "You", "pages": [{"title": "You", "fields": FIELDS[:2]},
                                                     {"title": "Pet", "fields": FIELDS[2:]}]}
        ],
    }  # fmt: skip


def test_show_when_round_trips_through_json() -> None:
    definition = parse_definition(raw_definition())
    webform = definition.webforms[0]

    assert webform.field("petName").show_when == "pets"  # type: ignore[union-attr]
    assert webform.field("name").show_when == ""  # type: ignore[union-attr]
    assert definition.to_json()["webforms"][0]["pages"][1]["fields"][0]["showWhen"] == {
        "field": "pets",
        "hasValue": True,
    }
    assert "showWhen" not in definition.to_json()["webforms"][0]["pages"][0]["fields"][0]
    assert parse_definition(definition.to_json()) == definition


@pytest.mark.parametrize(
    ("show_when", "path", "message"),
    [
        ({"field": "later", "hasValue": True}, "showWhen.field", "No earlier field has the key 'later'."),
        ({"field": "petAge", "hasValue": True}, "showWhen.field", "No earlier field has the key 'petAge'."),
        ({"field": "pets"}, "showWhen", "Give the field and one of: hasValue, equals, notEquals, oneOf, lt, lte, gt, gte."),
        ({"field": "pets", "hasValue": False}, "showWhen.hasValue", "Must be true."),
        ("pets", "showWhen", "Must be an object."),
        ({"field": "no such", "hasValue": True}, "showWhen.field", "Must be the key of an earlier field."),
    ],
)  # fmt: skip
def test_a_show_when_names_an_earlier_field(show_when: Any, path: str, message: str) -> None:
    fields = [dict(f) for f in FIELDS]
    fields[3]["showWhen"] = show_when
    raw = raw_definition()
    raw["webforms"][0]["pages"][1]["fields"] = fields[2:]

    with pytest.raises(InvalidInput) as refused:
        parse_definition(raw)

    assert [(p.path, p.message) for p in refused.value.problems] == [
        (f"webforms.0.pages.1.fields.1.{path}", message)
    ]


def test_has_value_is_anything_but_blank_or_an_unticked_box() -> None:
    assert [has_value(v) for v in (None, "", "  ", False, {"num": "", "region": "US"})] == [
        False
    ] * 5
    assert [has_value(v) for v in (True, 0, "x", {"firstName": "A"}, [1])] == [True] * 5


def test_a_hidden_field_is_not_required_and_its_value_is_dropped() -> None:
    webform = parse_definition(raw_definition()).webforms[0]
    fields = webform.pages[1].fields

    hidden = check_fields(fields, {"petName": "", "petAge": "3"}, known={"pets": False})
    shown = check_fields(fields, {"petName": "", "petAge": "3"}, known={"pets": True})
    chained = check_fields(fields, {"petName": "Rex", "petAge": "3"}, known={"pets": True})

    assert (hidden.values, hidden.errors) == ({"petName": None, "petAge": None}, {})
    assert {k: str(m) for k, m in shown.errors.items()} == {"petName": "This field is required."}
    assert shown.values == {"petAge": None}  # what shows it failed: dropped
    assert (chained.values, chained.errors) == ({"petName": "Rex", "petAge": 3}, {})


def test_completing_needs_only_the_fields_shown() -> None:
    webform = parse_definition(raw_definition()).webforms[0]

    assert missing_required(webform, {"name": "Ada", "pets": False}).ok
    assert {
        k: str(m)
        for k, m in missing_required(webform, {"name": "Ada", "pets": True}).errors.items()
    } == {"petName": "This field is required."}


def test_clearing_an_answer_drops_what_it_showed() -> None:
    webform = parse_definition(raw_definition()).webforms[0]

    kept = drop_hidden(webform, {"name": "Ada", "pets": True, "petName": "Rex", "petAge": 3})
    dropped = drop_hidden(webform, {"name": "Ada", "pets": False, "petName": "Rex", "petAge": 3})

    assert kept == {"name": "Ada", "pets": True, "petName": "Rex", "petAge": 3}
    assert dropped == {"name": "Ada", "pets": False}


@pytest.fixture
def pets_workflow(organization: Organization) -> Workflow:
    workflow, _ = versions.workflow_import(organization=organization, data=raw_definition())
    return workflow


def test_show_when_is_kept_by_the_import_and_the_export(pets_workflow: Workflow) -> None:
    assert WebformField.objects.get(key="petName").show_when == "pets"
    assert WebformField.objects.get(key="name").show_when == ""
    exported = definition_of(pets_workflow).to_json()
    assert exported["webforms"][0]["pages"][1]["fields"][1]["showWhen"] == {
        "field": "petName",
        "hasValue": True,
    }


def test_forge_submit_drops_hidden_values_and_completes_without_them(
    pets_workflow: Workflow, graphql: Any
) -> None:
    forge = pets_workflow.webforms.get().eid

    body = graphql(
        FORGE_SUBMIT,
        forgeEid=forge,
        payload={"name": "Ada", "pets": False, "petName": "Rex", "petAge": 3},
        complete=True,
    )

    assert "errors" not in body, body
    assert body["data"]["forgeSubmit"]["payloadValue"] == {"name": "Ada", "pets": False}
    assert body["data"]["forgeSubmit"]["status"] == "completed"


def test_forge_submit_requires_a_shown_field_and_stores_nothing(
    pets_workflow: Workflow, graphql: Any
) -> None:
    forge = pets_workflow.webforms.get().eid
    first = graphql(FORGE_SUBMIT, forgeEid=forge, payload={"name": "Ada", "pets": True})
    row_eid = first["data"]["forgeSubmit"]["eid"]

    refused = graphql(FORGE_SUBMIT, forgeEid=forge, submissionEid=row_eid, payload={},
                      complete=True)  # fmt: skip
    cleared = graphql(FORGE_SUBMIT, forgeEid=forge, submissionEid=row_eid,
                      payload={"petName": "Rex"})  # fmt: skip
    unticked = graphql(FORGE_SUBMIT, forgeEid=forge, submissionEid=row_eid,
                       payload={"pets": False})  # fmt: skip

    assert refused["errors"][0]["extensions"]["fields"] == [
        {"message": "This field is required.", "property": "payload.petName"}
    ]
    assert cleared["data"]["forgeSubmit"]["payloadValue"]["petName"] == "Rex"
    assert unticked["data"]["forgeSubmit"]["payloadValue"] == {"name": "Ada", "pets": False}
    assert WebformSubmission.objects.get().payload == {"name": "Ada", "pets": False}
