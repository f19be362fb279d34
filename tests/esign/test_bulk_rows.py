"""A bulk send's rows are declared once (esign.engine.bulk_rows, issue 53 item 1): read with
today's problems (paths, messages and their order), a row refused keeping its good values for
the packet checks that follow, and createEtchPacketBatch's ``rows`` described by the model."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from config.schema import schema
from core.engine.input_checks import CONTROL_MESSAGE
from esign.engine.bulk_rows import ROWS, ROWS_DESCRIPTION, read_rows
from esign.models import BulkBatch
from tests.esign.test_bulk_send import CREATE_BATCH, uploaded_shape


def read(raw: Any, max_rows: int = 3) -> tuple[list[dict[str, str]], list[tuple[str, str]]]:
    rows, problems = read_rows(raw, max_rows)
    return rows, [(problem.path, problem.message) for problem in problems]


def test_values_are_read_as_text() -> None:
    # A spreadsheet's dates are naive, as openpyxl reads them.
    signed, at = datetime(2026, 1, 2), datetime(2026, 1, 2, 9, 30)  # noqa: DTZ001
    rows, problems = read(
        [
            {" name ": " Ada ", "rent": 1200.0, "share": 0.5, "ok": True, "no": False,
             "blank": None, "count": 3},
            {"signed": signed, "at": at},
        ]
    )  # fmt: skip
    assert problems == []
    assert rows == [
        {"name": "Ada", "rent": "1200", "share": "0.5", "ok": "true", "no": "false",
         "blank": "", "count": "3"},
        {"signed": "2026-01-02", "at": "2026-01-02T09:30:00"},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ([], [("rows", "Give at least one row.")]),
        ({"name": "Ada"}, [("rows", "Give at least one row.")]),
        ([{"a": "1"}] * 4, [("rows", "At most 3 rows in one batch.")]),
    ],
)
def test_no_batch_of_rows_leaves_none(raw: Any, expected: list) -> None:
    assert read(raw) == ([], expected)


def test_a_row_refused_keeps_its_good_values_and_each_problem_is_named() -> None:
    rows, problems = read(
        [
            {"name": "Ada", "note": {"nested": 1}, "  ": "x", "{{a}}": "y", "c" * 101: "z"},
            {" mail ": ["a"], "long": "x" * 10_001, "bell": "a\x07b", "email": "b@example.com"},
        ]
    )

    assert problems == [
        ("rows.0.note", "Must be text, a number or a boolean."),
        ("rows.0", "A column needs a name (at most 100 characters)."),
        ("rows.0", "A column needs a name (at most 100 characters)."),
        ("rows.0", "A column needs a name (at most 100 characters)."),
        ("rows.1.mail", "Must be text, a number or a boolean."),
        ("rows.1.long", "At most 10000 characters."),
        ("rows.1.bell", CONTROL_MESSAGE),
    ]
    # What the packet checks that follow read.
    assert rows == [{"name": "Ada"}, {"email": "b@example.com"}]


def test_a_value_that_is_no_row_leaves_no_rows() -> None:
    rows, problems = read(["not a row", {"name": "", "note": [1]}])

    assert problems == [
        ("rows.0", "Must be an object of values by column."),
        ("rows.1.note", "Must be text, a number or a boolean."),
    ]
    assert rows == []


def test_a_batch_with_a_value_that_is_no_row_names_no_packet_problem_at_another_row(
    graphql: Any,
) -> None:
    """Before, the rows after it were read for their packets one place too early: the second
    row's empty name was told at rows.0.signers.0.name."""
    rows = ["not a row", {"name": "", "email": "charles@example.com"}]
    result = graphql(CREATE_BATCH, {"packet": uploaded_shape(), "rows": rows})

    fields = result["errors"][0]["extensions"]["fields"]
    assert fields == [{"property": "rows.0", "message": "Must be an object of values by column."}]
    assert BulkBatch.objects.count() == 0


def test_the_graphql_rows_argument_is_described_by_the_model() -> None:
    batch = schema.graphql_schema.get_type("Mutation").fields["createEtchPacketBatch"]
    assert batch.args["rows"].description == ROWS_DESCRIPTION
    described = ROWS.json_schema()
    assert described["description"] == ROWS_DESCRIPTION
    assert described["minItems"] == 1
    assert described["items"]["additionalProperties"]["anyOf"][0] == {
        "type": "string",
        "maxLength": 10_000,
    }
