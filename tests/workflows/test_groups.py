"""Repeating groups and conditional pages (issue 24, item 2): the definition's checks, forgeSubmit
with groupArrayId/groupArrayIndex, the webform pages' posts (with and without the script's Add
and Remove), and the filled PDF: a group fills the template's arrays, a row per entry, and the
page repeats when the entries overflow its rows."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pypdf
import pytest
from django.test import Client

from accounts.models import Organization
from core.engine.problems import InvalidInput
from core.errors import ValidationFailed
from templates_app.models import PdfTemplate
from tests.pdfcheck import text_in_rect, words
from tests.workflows.conftest import FORGE_SUBMIT
from tests.workflows.order_workflow import (
    GROUP,
    item_rect,
    order_definition,
    order_workflow,
    price_rect,
)
from workflows.definitions.versions import workflow_export, workflow_import
from workflows.engine.definition import parse_definition
from workflows.engine.resolve import check_payload, hidden_pages, missing_required
from workflows.models import Submission, WebformGroup, WebformSubmission, Workflow
from workflows.submissions.files import documents_zip
from workflows.submissions.links import continue_token

START = "/form/acme/order"
NAME = {"name.firstName": "Ada", "name.lastName": "Lovelace"}


@pytest.fixture
def order(organization: Organization, demo_template: PdfTemplate) -> Workflow:
    return order_workflow(organization, demo_template)


def forge_eid(workflow: Workflow) -> str:
    return workflow.webforms.get().eid


def pdf_of(submission: Submission) -> bytes:
    data, _ = documents_zip(submission)
    return zipfile.ZipFile(io.BytesIO(data)).read("order-form.pdf")


# --- the definition ---------------------------------------------------------------------------


def test_a_group_and_a_page_condition_survive_import_and_export(
    order: Workflow, demo_template: PdfTemplate
) -> None:
    exported = workflow_export(workflow=order)

    [webform] = exported["webforms"]
    assert webform["pages"][1]["groups"] == [GROUP]
    assert webform["pages"][1]["fields"] == []
    assert webform["pages"][2]["showWhen"] == {"field": "deliver", "hasValue": True}
    group = WebformGroup.objects.get()
    assert (group.key, group.min_entries, group.max_entries, group.fields.count()) == (
        "items", 1, 8, 2
    )  # fmt: skip
    assert exported == order.versions.get().definition


def problems_without_documents(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """The (path, message) of each problem that parse_definition refuses ``raw`` for, its
    documents left out."""
    raw["documents"] = []
    with pytest.raises(InvalidInput) as refused:
        parse_definition(raw)
    return [(p.path, p.message) for p in refused.value.problems]


@pytest.mark.parametrize(
    ("change", "path", "message"),
    [
        ({"maxEntries": 51}, "groups.0.maxEntries", "Must be from 1 to 50."),
        ({"maxEntries": 0}, "groups.0.maxEntries", "Must be from 1 to 50."),
        ({"minEntries": 9}, "groups.0.minEntries", "Must not be above the maximum."),
        ({"fields": []}, "groups.0.fields", "A repeating group needs at least one field."),
        ({"key": "name"}, "groups.0.key", "Another field has the key 'name'."),
        ({"fields": [{"key": "photo", "type": "imageFile", "label": "Photo"}]},
         "groups.0.fields.0.type", "An image cannot be in a repeating group."),
        ({"fields": [{"key": "x", "type": "shortText", "label": "X",
                      "showWhen": {"field": "name", "hasValue": True}}]},
         "groups.0.fields.0.showWhen", "A field of a repeating group has none."),
    ],
)  # fmt: skip
def test_a_group_is_checked(
    demo_template: PdfTemplate, change: dict[str, Any], path: str, message: str
) -> None:
    raw = order_definition(demo_template)
    raw["webforms"][0]["pages"][1]["groups"] = [{**GROUP, **change}]
    assert problems_without_documents(raw) == [(f"webforms.0.pages.1.{path}", message)]


@pytest.mark.parametrize(
    ("page", "key", "message"),
    [
        (2, "address", "No field on an earlier page has the key 'address'."),
        (2, "description", "No field on an earlier page has the key 'description'."),
        (0, "deliver", "No field on an earlier page has the key 'deliver'."),
    ],
)
def test_a_page_condition_names_a_field_of_an_earlier_page(
    demo_template: PdfTemplate, page: int, key: str, message: str
) -> None:
    raw = order_definition(demo_template)
    raw["webforms"][0]["pages"][page]["showWhen"] = {"field": key, "hasValue": True}
    assert problems_without_documents(raw) == [(f"webforms.0.pages.{page}.showWhen.field", message)]


@pytest.mark.parametrize(
    ("alias", "field", "message"),
    [
        ("footer", "description",
         "A field of a repeating group fills an array of the template (one row per entry)."),
        ("items", "name", "An array of the template is filled by a field of a repeating group."),
        ("prices", "description", "A shortText field cannot fill a dollar field."),
    ],
)  # fmt: skip
def test_a_group_field_fills_an_array_and_only_it_does(
    organization: Organization, demo_template: PdfTemplate, alias: str, field: str, message: str
) -> None:
    raw = order_definition(demo_template)
    raw["documents"][0]["mappings"] = [{"alias": alias, "forge": "order", "field": field}]

    with pytest.raises(ValidationFailed) as refused:
        workflow_import(organization=organization, data=raw)

    assert [(f.property, f.message) for f in refused.value.fields] == [
        ("documents.0.mappings.0", message)
    ]
    assert not Workflow.objects.exists()


def test_the_rules_of_entries_and_of_a_hidden_page(order: Workflow) -> None:
    webform = parse_definition(order.versions.get().definition).webforms[0]
    entries = [{"description": "Lamp", "price": "$12.50"}, {"description": "", "price": "x"}]

    checked = check_payload(webform, {"items": entries}, only_given=True)
    whole = missing_required(webform, {"name": {"firstName": "A", "lastName": "B"}})

    assert {k: str(m) for k, m in checked.errors.items()} == {
        "items.1.price": "Enter a number, like 1234.56."
    }
    # Nothing given: at least one entry; the delivery page is hidden, its address not required.
    assert {k: str(m) for k, m in whole.errors.items()} == {"items": "Entries needed: at least 1."}
    assert hidden_pages(webform, {}) == {2}
    assert hidden_pages(webform, {"deliver": True}) == set()
    too_many = check_payload(webform, {"items": [{}] * 9}, only_given=True)
    assert {k: str(m) for k, m in too_many.errors.items()} == {
        "items": "Entries allowed: at most 8."
    }


# --- forgeSubmit ------------------------------------------------------------------------------


def submit(graphql: Any, **variables: Any) -> dict[str, Any]:
    body = graphql(FORGE_SUBMIT, **variables)
    assert "errors" not in body, body
    return body["data"]["forgeSubmit"]


def refusal(graphql: Any, **variables: Any) -> list[tuple[str, str]]:
    body = graphql(FORGE_SUBMIT, **variables)
    return [(f["property"], f["message"]) for f in body["errors"][0]["extensions"]["fields"]]


def test_forge_submit_places_entries_by_group_array_id_and_index(
    order: Workflow, graphql: Any
) -> None:
    forge = forge_eid(order)
    first = submit(
        graphql, forgeEid=forge, payload={"description": "Lamp", "price": 12.5},
        groupArrayId="items", groupArrayIndex=0,
    )  # fmt: skip
    submission = first["eid"]
    submit(
        graphql, forgeEid=forge, submissionEid=submission, payload={"description": "Desk"},
        groupArrayId="items", groupArrayIndex=1,
    )  # fmt: skip
    changed = submit(
        graphql, forgeEid=forge, submissionEid=submission, payload={"price": "$300"},
        groupArrayId="items", groupArrayIndex=1,
    )  # fmt: skip

    assert changed["payloadValue"]["items"] == [
        {"description": "Lamp", "price": 12.5},
        {"description": "Desk", "price": 300},
    ]
    assert changed["resolvedPayload"]["items"] == {
        "type": "group",
        "label": "Items",
        "value": [
            {"description": {"type": "shortText", "value": "Lamp", "label": "Description"},
             "price": {"type": "dollar", "value": 12.5, "label": "Price"}},
            {"description": {"type": "shortText", "value": "Desk", "label": "Description"},
             "price": {"type": "dollar", "value": 300, "label": "Price"}},
        ],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"groupArrayId": "items", "groupArrayIndex": 1},
         [("groupArrayIndex", "Must be an entry index from 0 to 0 (the next entry).")]),
        ({"groupArrayId": "items", "groupArrayIndex": -1},
         [("groupArrayIndex", "Must be an entry index from 0 to 0 (the next entry).")]),
        ({"groupArrayId": "items"}, [("groupArrayIndex", "Required with groupArrayId.")]),
        ({"groupArrayId": "name", "groupArrayIndex": 0},
         [("groupArrayId", "Must be the key of a repeating group of the webform ('items').")]),
        ({"groupArrayId": "items", "groupArrayIndex": 0, "payload": {"name": "Ada"}},
         [("payload.name", "Not a field of 'items'.")]),
        ({"groupArrayId": "items", "groupArrayIndex": 0, "payload": {"price": "cheap"}},
         [("payload.price", "Enter a number, like 1234.56.")]),
        ({"payload": {"items": [{"price": 1}] * 9}}, [("payload.items", "Entries allowed: at most 8.")]),
        ({"payload": {"items": {"price": 1}}},
         [("payload.items", "Must be a list of entries, each an object keyed by field key.")]),
    ],
)  # fmt: skip
def test_forge_submit_refuses_a_bad_entry_and_stores_nothing(
    order: Workflow, graphql: Any, variables: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    arguments = {"forgeEid": forge_eid(order), "payload": {"description": "Lamp"}, **variables}

    assert refusal(graphql, **arguments) == expected
    assert not Submission.objects.exists()


def test_at_most_max_entries_one_at_a_time(order: Workflow, graphql: Any) -> None:
    forge = forge_eid(order)
    items = [{"description": f"Thing {n}", "price": n} for n in range(8)]
    eid = submit(graphql, forgeEid=forge, payload={"items": items})["eid"]

    refused = refusal(
        graphql, forgeEid=forge, submissionEid=eid, payload={"description": "One more"},
        groupArrayId="items", groupArrayIndex=8,
    )  # fmt: skip

    assert refused == [("groupArrayIndex", "The group takes at most 8 entries.")]
    assert len(WebformSubmission.objects.get().payload["items"]) == 8


def test_entries_beyond_the_rows_repeat_the_page_of_the_array(
    order: Workflow, graphql: Any
) -> None:
    items = [{"description": f"Thing {n}", "price": 10 + n} for n in range(7)]
    result = submit(
        graphql, forgeEid=forge_eid(order), complete=True,
        payload={"name": {"firstName": "Ada", "lastName": "Lovelace"}, "items": items},
    )  # fmt: skip

    assert result["weldData"]["isComplete"] is True
    pdf = pdf_of(Submission.objects.get())
    assert len(pypdf.PdfReader(io.BytesIO(pdf)).pages) == 3  # page 2 and its copy for rows 6-7
    pages = words(pdf)
    assert [text_in_rect(pages[1], item_rect(row)) for row in range(5)] == [
        f"Thing {n}" for n in range(5)
    ]
    assert [text_in_rect(pages[1], price_rect(row)) for row in range(5)] == [
        "$10.00", "$11.00", "$12.00", "$13.00", "$14.00"
    ]  # fmt: skip
    assert [text_in_rect(pages[2], item_rect(row)) for row in range(3)] == [
        "Thing 5",
        "Thing 6",
        "",
    ]
    assert text_in_rect(pages[2], price_rect(1)) == "$16.00"


def test_a_hidden_page_is_not_required_and_its_values_are_dropped(
    order: Workflow, graphql: Any
) -> None:
    address = {"street1": "1 Main St", "city": "Boston", "state": "MA", "zip": "02110"}
    base = {"name": {"firstName": "Ada", "lastName": "L"}, "items": [{"description": "Lamp",
                                                                      "price": 1}]}  # fmt: skip

    needs = refusal(graphql, forgeEid=forge_eid(order), complete=True,
                    payload={**base, "deliver": True})  # fmt: skip
    done = submit(graphql, forgeEid=forge_eid(order), complete=True,
                  payload={**base, "deliver": False, "address": address})  # fmt: skip

    assert needs == [("payload.address", "This field is required.")]
    assert done["status"] == "completed"
    assert "address" not in done["payloadValue"]


# --- the pages --------------------------------------------------------------------------------


def post(client: Client, path: str, data: dict[str, str], forge: str) -> Any:
    return client.post(path, {"action": "next", **data, "forge": forge})


def resume_path(submission: Submission) -> str:
    return f"{START}/{submission.eid}?token={continue_token(submission)}"


def entries(n: int) -> dict[str, str]:
    data = {"page": "1", "items.entries": str(n)}
    for i in range(n):
        data |= {f"items.{i}.description": f"Thing {i}", f"items.{i}.price": f"{i + 1}.50"}
    return data


def test_the_pages_skip_a_hidden_page_and_fill_the_rows(order: Workflow) -> None:
    client, forge = Client(), forge_eid(order)
    first = post(client, START, {"page": "0", **NAME}, forge)
    submission = Submission.objects.get()

    assert "Step 2 of 2: <bdi>Items</bdi>" in first.content.decode()  # the delivery page is no step
    assert 'id="wf-next">Finish</button>' in first.content.decode()
    done = post(client, resume_path(submission), entries(2), forge)

    assert done.status_code == 200
    html = done.content.decode()
    assert "Thank you" in html
    assert (
        "\u2068Items\u2069, entry 1</bdi></dt><dd><bdi>\u2068Description\u2069: \u2068Thing 0\u2069 · "
        "\u2068Price\u2069: \u2068$1.50\u2069"
    ) in html
    assert WebformSubmission.objects.get().payload["items"] == [
        {"description": "Thing 0", "price": 1.5},
        {"description": "Thing 1", "price": 2.5},
    ]
    pages = words(pdf_of(Submission.objects.get()))
    assert [text_in_rect(pages[1], item_rect(r)) for r in range(3)] == ["Thing 0", "Thing 1", ""]


def test_a_page_shown_by_an_answer_is_a_step(order: Workflow) -> None:
    client, forge = Client(), forge_eid(order)
    post(client, START, {"page": "0", **NAME, "deliver": "on"}, forge)
    submission = Submission.objects.get()

    items = post(client, resume_path(submission), entries(1), forge)

    html = items.content.decode()
    assert "Step 3 of 3: <bdi>Delivery</bdi>" in html
    assert Submission.objects.get().status == "in-progress"
    back = client.post(resume_path(submission), {"action": "back", "page": "2", "forge": forge})
    assert "Step 2 of 3: <bdi>Items</bdi>" in back.content.decode()


def test_a_page_without_script_adds_and_removes_entries_by_posting(order: Workflow) -> None:
    client, forge = Client(), forge_eid(order)
    post(client, START, {"page": "0", **NAME}, forge)
    submission = Submission.objects.get()

    added = post(client, resume_path(submission), {**entries(2), "action": "add:items"}, forge)
    removed = post(
        client, resume_path(submission), {**entries(3), "action": "remove:items:0"}, forge
    )

    assert added.status_code == 200
    assert 'name="items.entries" value="3"' in added.content.decode()
    assert 'name="items.1.description" value="Thing 1"' in added.content.decode()
    assert 'name="items.2.description" value=""' in added.content.decode()
    assert 'name="items.entries" value="2"' in removed.content.decode()
    assert 'name="items.0.description" value="Thing 1"' in removed.content.decode()
    assert "items" not in WebformSubmission.objects.get().payload  # nothing saved by either


def test_a_page_refuses_an_entry_and_says_which(order: Workflow) -> None:
    client, forge = Client(), forge_eid(order)
    post(client, START, {"page": "0", **NAME}, forge)
    submission = Submission.objects.get()
    data = {**entries(2), "items.1.price": "cheap"}

    refused = post(client, resume_path(submission), data, forge)
    none = post(client, resume_path(submission), {"page": "1", "items.entries": "0"}, forge)

    assert refused.status_code == 400
    html = refused.content.decode()
    assert (
        '<a href="#f-items.1.price"><bdi>\u2068Items\u2069, entry 2: \u2068Price\u2069</bdi>: '
        "Enter a number, like 1234.56.</a>" in html
    )
    assert re.search(r'name="items.1.price" value="cheap"[^>]*aria-invalid="true"', html)
    # At least one entry: with none, the page shows one blank entry and says so.
    assert none.status_code == 400
    assert (
        '<a href="#f-items"><bdi>Items</bdi>: Entries needed: at least 1.</a>'
        in none.content.decode()
    )
    assert "items" not in WebformSubmission.objects.get().payload


def test_a_post_never_reads_more_entries_than_the_maximum(order: Workflow) -> None:
    client, forge = Client(), forge_eid(order)
    post(client, START, {"page": "0", **NAME}, forge)
    submission = Submission.objects.get()

    post(client, resume_path(submission), {**entries(20), "items.entries": "100000"}, forge)

    assert len(WebformSubmission.objects.get().payload["items"]) == 8


def test_an_answer_that_hides_a_page_drops_its_values_from_the_summary(order: Workflow) -> None:
    client, forge = Client(), forge_eid(order)
    post(client, START, {"page": "0", **NAME, "deliver": "on"}, forge)
    submission = Submission.objects.get()
    post(client, resume_path(submission), entries(1), forge)
    address = {"address.street1": "1 Main St", "address.city": "Boston", "address.state": "MA",
               "address.zip": "02110"}  # fmt: skip
    client.post(resume_path(submission), {"action": "back", "page": "2", "forge": forge, **address})
    assert WebformSubmission.objects.get().payload["address"]["city"] == "Boston"

    # Back on the first page, delivery is no longer wanted: the delivery page and its address go.
    post(client, resume_path(submission), {"page": "0", **NAME}, forge)
    done = post(client, resume_path(submission), entries(1), forge)

    html = done.content.decode()
    assert "Thank you" in html
    assert "Address" not in html
    assert "Boston" not in html
    assert "address" not in WebformSubmission.objects.get().payload
    pdf = pdf_of(Submission.objects.get())
    assert "Boston" not in " ".join(w.text for w in words(pdf)[0])


def test_back_keeps_a_half_typed_entry_and_shows_it_again(order: Workflow) -> None:
    client, forge = Client(), forge_eid(order)
    post(client, START, {"page": "0", **NAME}, forge)
    submission = Submission.objects.get()

    back = client.post(
        resume_path(submission),
        {**entries(2), "items.1.price": "cheap", "action": "back", "forge": forge},
    )
    again = post(client, resume_path(submission), {"page": "0", **NAME}, forge)

    assert back.status_code == 200
    assert "Step 1 of 2: <bdi>You</bdi>" in back.content.decode()
    row = WebformSubmission.objects.get()
    assert "items" not in row.payload  # not a value: kept as typed
    assert row.draft["items"]["items.1.price"] == "cheap"
    html = again.content.decode()
    assert 'name="items.entries" value="2"' in html
    assert 'name="items.1.price" value="cheap"' in html
    assert "wf-summary-title" not in html


def test_a_continue_link_never_lands_on_a_hidden_page(order: Workflow, graphql: Any) -> None:
    saved = submit(
        graphql, forgeEid=forge_eid(order), currentStep=2,
        payload={"name": {"firstName": "Ada", "lastName": "Lovelace"}},
    )  # fmt: skip

    page = Client().get(resume_path(Submission.objects.get(eid=saved["weldData"]["eid"])))

    assert saved["currentStep"] == 2
    assert "Step 2 of 2: <bdi>Items</bdi>" in page.content.decode()
