"""Bulk sends and what a caller must not get from them (issue 46): a batch naming another
organization's template is refused when it is created, in the words of an unknown template, with
nothing stored; and the results CSV never runs a formula, whatever separator a spreadsheet splits
its lines on (OWASP's rule on CSV injection)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import pytest
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from core.errors import ValidationFailed
from esign.bulk.results import FORMULA_START, SEPARATORS, csv_safe, results_csv
from esign.bulk.sends import batch_create
from esign.models import BulkBatch, BulkRow, Packet
from templates_app.models import PdfTemplate
from tests.esign.test_bulk_admin_browser import signable_template
from tests.esign.test_bulk_send import CREATE_BATCH, ROWS, send_all, template_shape

CREATE_PACKET = """
mutation P($files: [EtchFile!], $signers: [JSON!]) {
  createEtchPacket(name: "One", files: $files, signers: $signers) { eid }
}
"""
UNKNOWN_EID = "tmplunknown0000000000"
# The rows of tests.esign.test_bulk_send with the template's amount.
INVOICE_ROWS = [{**row, "amount": "1"} for row in ROWS]


def stored() -> tuple[int, int, int, int]:
    """What a batch would leave behind: batches, rows, packets and the send task."""
    tasks = DBTaskResult.objects.filter(task_path="esign.tasks.bulk_batch_send_task")
    return BulkBatch.objects.count(), BulkRow.objects.count(), Packet.objects.count(), tasks.count()


@pytest.fixture
def foreign_template(other_organization: Organization) -> PdfTemplate:
    return signable_template(other_organization)


def batch_fields(graphql: Callable[..., dict[str, Any]], shape: dict[str, Any], rows: Any) -> Any:
    result = graphql(CREATE_BATCH, {"packet": shape, "rows": rows})
    assert result["data"]["createEtchPacketBatch"] is None, result
    [error] = result["errors"]
    assert error["extensions"]["code"] == "ValidationError"
    assert error["extensions"]["status"] == 400
    return error["extensions"]["fields"]


# --- another organization's template ------------------------------------------------------------


def test_a_shape_naming_another_organizations_template_is_refused_as_an_unknown_one(
    graphql, demo_template, foreign_template
) -> None:
    before = stored()

    foreign = batch_fields(graphql, template_shape(foreign_template), INVOICE_ROWS)
    unknown_shape = template_shape(demo_template)
    unknown_shape["files"][0]["castEid"] = UNKNOWN_EID
    unknown = batch_fields(graphql, unknown_shape, INVOICE_ROWS)

    message = f"No template with eid '{foreign_template.eid}'."
    assert foreign == [{"property": "packet.files.0.castEid", "message": message}]
    # The same answer as for a template that does not exist: nothing tells the two apart.
    assert unknown == [
        {"property": "packet.files.0.castEid", "message": f"No template with eid '{UNKNOWN_EID}'."}
    ]
    # And createEtchPacket's own words for the same template.
    shape = template_shape(foreign_template)
    signers = [{**shape["signers"][0], "id": "s", "name": "Ada", "email": "ada@example.com"}]
    packet = graphql(CREATE_PACKET, {"files": shape["files"], "signers": signers})
    assert packet["errors"][0]["extensions"]["fields"] == [
        {"property": "files.0.castEid", "message": message}
    ]
    assert stored() == before == (0, 0, 0, 0)


def test_a_row_naming_another_organizations_template_refuses_the_batch(
    graphql, demo_template, foreign_template
) -> None:
    """The template's eid from a row's value: that row is named, and nothing is stored for the
    rows whose template is the organization's either."""
    shape = template_shape(demo_template)
    shape["files"][0]["castEid"] = "{{template}}"
    rows = [
        {**ROWS[0], "amount": "1", "template": demo_template.eid},
        {**ROWS[1], "amount": "2", "template": foreign_template.eid},
        {**ROWS[2], "amount": "3", "template": demo_template.eid},
    ]

    fields = batch_fields(graphql, shape, rows)

    assert fields == [
        {
            "property": "rows.1.files.0.castEid",
            "message": f"No template with eid '{foreign_template.eid}'.",
        }
    ]
    assert stored() == (0, 0, 0, 0)


def test_rows_naming_the_organizations_own_templates_are_sent(graphql, demo_template) -> None:
    shape = template_shape(demo_template)
    shape["files"][0]["castEid"] = "{{template}}"
    rows = [{**row, "amount": "5", "template": demo_template.eid} for row in ROWS]

    result = graphql(CREATE_BATCH, {"packet": shape, "rows": rows})

    assert "errors" not in result, result
    send_all(result["data"]["createEtchPacketBatch"]["eid"])
    assert BulkBatch.objects.get().rows_created == 3


def test_the_admins_draft_of_another_organizations_template_is_refused(
    organization, foreign_template
) -> None:
    """The admin's upload (a draft) keeps its rows' problems on its rows, but a shape naming a
    template that is not the organization's is refused whole, as the API's is."""
    with pytest.raises(ValidationFailed) as refused:
        batch_create(
            organization=organization,
            watermark=False,
            name="Foreign",
            shape=template_shape(foreign_template),
            raw_rows=INVOICE_ROWS,
            created_by="admin test",
            draft=True,
        )

    assert [f.as_wire() for f in refused.value.fields] == [
        {
            "property": "packet.files.0.castEid",
            "message": f"No template with eid '{foreign_template.eid}'.",
        }
    ]
    assert stored() == (0, 0, 0, 0)


# --- the results CSV ----------------------------------------------------------------------------

HOSTILE = ["a;=1+1", "b;@SUM(1)", "=1+1", "+1", "-1", "@x", "\t=1", "c|-2", "d,=3", 'e; "=4']


def batch_of(organization: Organization, values: list[str]) -> BulkBatch:
    """A batch whose rows hold ``values`` as they are (no reading strips them), one failed with
    an error that holds a formula too."""
    batch = BulkBatch.objects.create(
        organization=organization, name="CSV", shape={}, columns=["note"], rows_total=len(values)
    )
    for index, value in enumerate(values):
        BulkRow.objects.create(batch=batch, index=index, values={"note": value})
    BulkRow.objects.filter(batch=batch, index=0).update(
        status="failed", errors=[{"property": "note", "message": "Bad; =cmd|' /C calc'!A0"}]
    )
    return batch


def test_no_cell_of_the_results_csv_starts_a_formula_on_any_separator(organization) -> None:
    batch = batch_of(organization, [*HOSTILE, "plain value", "e-mail"])

    text = results_csv(batch).decode("utf-8-sig")

    table = list(csv.reader(io.StringIO(text)))
    notes = [line[4] for line in table[1:]]
    assert notes == [
        "a;'=1+1",
        "b;'@SUM(1)",
        "'=1+1",
        "'+1",
        "'-1",
        "'@x",
        "'\t'=1",
        "c|'-2",
        "d,'=3",
        "e; \"'=4",
        "plain value",  # a value with nothing to run is as it was
        "e-mail",
    ]
    assert table[1][3] == "note: Bad; '=cmd|' /C calc'!A0"
    # Every cell quoted: a spreadsheet splitting on commas sees no bare value.
    assert all(line.startswith('"') for line in text.splitlines() if line)
    # Split on any separator a spreadsheet may use, no piece starts a formula.
    for separator in SEPARATORS:
        pieces = [p for line in text.splitlines() for p in line.split(separator)]
        assert not [p for p in pieces if p.lstrip(' "').startswith(tuple(FORMULA_START))], separator


@pytest.mark.parametrize(
    ("value", "safe"),
    [("plain", "plain"), ("a==b", "a==b"), ("x-1", "x-1"), ("\r\n=1", "'\r\n'=1")],
)
def test_what_csv_safe_changes(value: str, safe: str) -> None:
    assert csv_safe(value) == safe
