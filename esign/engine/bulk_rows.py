"""The rows of a bulk send (createEtchPacketBatch's ``rows``, or a spreadsheet's lines), declared
once: what a row takes, its messages and its description (issue 53, item 1).

A row is an object of values by column: each value is text, a number or a boolean (read as text,
as a spreadsheet shows it), and fills the shape's ``{{column}}`` placeholders (esign.bulk.sends).
`read_rows` checks the rows with `Rows` (through core.engine.wire_models' `validate_as`) and
keeps, of a row refused, the values that are good: the packet each row makes is still read, so
that every problem of the batch is told at once. How many rows a batch may have is the service's
setting, in `validate_as`'s context (`MAX_ROWS`). esign/bulk/graphql_docs.py describes ``rows``
with `ROWS_DESCRIPTION`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from core.engine.input_checks import text_problem
from core.engine.problems import Problem
from core.engine.wire_models import refusal, validate_as

# {{column}}, spaces inside allowed: {{ email }}. A column's name holds none.
PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
MAX_COLUMN_LENGTH = 100
MAX_VALUE_LENGTH = 10_000
# `validate_as`'s context: the most rows one batch may have (BULK_SEND_MAX_ROWS).
MAX_ROWS = "max_rows"

ROWS_DESCRIPTION = (
    "The rows, JSON objects of values by column "
    '(`{"name": "Ada Lovelace", "email": "ada@example.com", "rent": "1200"}`): text, '
    "numbers or booleans (read as text). A wrong value is a ValidationError at "
    "`rows.<index>.<column>`."
)
NOT_A_VALUE = "Must be text, a number or a boolean."
NO_COLUMN_NAME = f"A column needs a name (at most {MAX_COLUMN_LENGTH} characters)."


def cell_text(value: object) -> str:
    """A row's value as text: a spreadsheet's number or date as it reads, null as blank."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    elif isinstance(value, str | int | float):
        text = str(value).strip()
    elif isinstance(value, datetime):
        midnight = value.time() == datetime.min.time()
        text = value.date().isoformat() if midnight else value.isoformat()
    else:
        raise refusal(NOT_A_VALUE)
    if len(text) > MAX_VALUE_LENGTH:
        raise refusal(f"At most {MAX_VALUE_LENGTH} characters.")
    if problem := text_problem(text):
        raise refusal(problem)
    return text


def column_name(column: object) -> str:
    """A column's name, stripped: not empty, short, and no placeholder of its own."""
    name = str(column).strip()
    if not name or len(name) > MAX_COLUMN_LENGTH or PLACEHOLDER.search(name):
        raise refusal(NO_COLUMN_NAME)
    return name


def row_read(value: Mapping[Any, Any]) -> tuple[dict[str, str], list[InitErrorDetails]]:
    """The row's good values by column, and the errors of the others: a column's name refused
    is the row's problem (its value is not read), a value refused its column's."""
    row: dict[str, str] = {}
    errors: list[InitErrorDetails] = []
    for column, cell in value.items():
        try:
            name = column_name(column)
        except PydanticCustomError as error:
            errors.append({"type": error, "loc": (), "input": column})
            continue
        try:
            row[name] = cell_text(cell)
        except PydanticCustomError as error:
            errors.append({"type": error, "loc": (name,), "input": cell})
    return row, errors


def _row(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise refusal("Must be an object of values by column.")
    row, errors = row_read(value)
    if errors:
        # Raised from a validator, its errors are the row's, each at its own place.
        raise ValidationError.from_exception_data("row", errors)
    return row


def _bounds(value: object, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    # A batch that is no list of rows, or too long a one, is refused before any row is read.
    limit = (info.context or {})[MAX_ROWS]
    if not isinstance(value, list) or not value:
        raise refusal("Give at least one row.")
    if len(value) > limit:
        raise refusal(f"At most {limit} rows in one batch.")
    return handler(value)


CELL_SCHEMA = {
    "anyOf": [
        {"type": "string", "maxLength": MAX_VALUE_LENGTH},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "null"},
    ]
}
Row = Annotated[
    dict[str, str],
    PlainValidator(_row),
    WithJsonSchema(
        {
            "type": "object",
            "additionalProperties": CELL_SCHEMA,
            "propertyNames": {"minLength": 1, "maxLength": MAX_COLUMN_LENGTH},
        }
    ),
]
Rows = Annotated[
    list[Row], Field(min_length=1, description=ROWS_DESCRIPTION), WrapValidator(_bounds)
]
ROWS: TypeAdapter[list[dict[str, str]]] = TypeAdapter(Rows)


def read_rows(raw: object, max_rows: int) -> tuple[list[dict[str, str]], list[Problem]]:
    """The rows as {column: text}, and their problems (``rows``, ``rows.N``, ``rows.N.column``).
    A row refused keeps its good values. Rows that are no batch (none, too many) leave none, and
    so does a value that is no row among them: the packet checks that follow name a row by its
    place in the list they are given, which would not be its own."""
    rows, problems = validate_as(ROWS, raw, prefix="rows", context={MAX_ROWS: max_rows})
    if rows is not None:
        return rows, problems
    if any(problem.path == "rows" for problem in problems):
        return [], problems
    assert isinstance(raw, list)  # the bounds have passed
    if not all(isinstance(item, Mapping) for item in raw):
        return [], problems
    return [row_read(item)[0] for item in raw], problems
