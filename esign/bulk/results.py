"""A bulk send's results as CSV (esign.bulk.sends): each row's number, status, packet eid or
errors, then its values, in a file that no spreadsheet runs as a formula.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (a tab or carriage return
before one too), and it may split a line on another separator than the file's comma: a value
``a;=1+1`` opened by one that splits on ``;`` is two cells, the second a formula, whatever the
comma-separated quoting says (the quote is no longer at the start of a cell then). So, after
OWASP's rule on CSV injection, a ``'`` goes before every such character that starts the value or
follows any separator a spreadsheet may split on (``,`` ``;`` tab ``|`` a line break, with spaces
or double quotes between), and every cell is quoted: whatever the separator, no cell starts with
a formula's character.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from typing import Any

from esign.bulk.sends import shape_columns
from esign.bulk_models import BulkBatch

# A formula's first character (a tab or carriage return before one also starts a formula).
FORMULA_START = "=+-@\t\r"
# What a spreadsheet may split a line on, whatever the file's own delimiter.
SEPARATORS = ",;\t|\r\n"
# A formula's character at the value's start or at a piece's start (after a separator, with any
# spaces or double quotes between: some spreadsheets trim the first, the second open a quoted
# cell): the ' goes right before it. The lookahead leaves the character itself to be matched
# again, since a tab or carriage return is a separator as well.
_PIECE_FORMULA = re.compile(
    rf'(^|[{re.escape(SEPARATORS)}])([ "]*)(?=[{re.escape(FORMULA_START)}])'
)


def csv_safe(value: str) -> str:
    """``value`` as a spreadsheet shows it and never runs it: a ``'`` before a formula's first
    character wherever a cell could start (``=1`` is ``'=1``, ``a;=1`` is ``a;'=1``)."""
    return _PIECE_FORMULA.sub(r"\1\2'", value)


def row_problems(shape: Mapping[str, Any], errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A row's problems as the people who wrote the file read them: each message with the
    column whose value it is about (``{"column": "email", "message": ...}``), found by where
    the shape puts the column (``signers.0.email`` is the column ``email``'s); None when the
    problem is no column's (a template that is gone), whose ``property`` is then all there is."""
    paths = sorted(
        ((path, column) for column, path in shape_columns(shape).items()),
        key=lambda pair: -len(pair[0]),
    )

    def column_of(where: str) -> str | None:
        for path, column in paths:
            if where == path or where.startswith(f"{path}."):
                return column
        return None

    return [
        {
            "column": column_of(str(error.get("property") or "")),
            "property": str(error.get("property") or ""),
            "message": error.get("message", ""),
        }
        for error in errors
    ]


def results_csv(batch: BulkBatch) -> bytes:
    """Every row's outcome as CSV (UTF-8 with a BOM, for spreadsheets): its number, status,
    packet eid or errors (each naming its column), then its values; every cell quoted and made
    safe (:func:`csv_safe`)."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    columns = list(batch.columns)
    writer.writerow([csv_safe(c) for c in ["row", "status", "packetEid", "errors", *columns]])
    for row in batch.rows.order_by("index").iterator(chunk_size=500):
        errors = "; ".join(
            f"column {e['column']}: {e['message']}"
            if e["column"]
            else f"{e['property']}: {e['message']}"
            if e["property"]
            else e["message"]
            for e in row_problems(batch.shape, row.errors)
        )
        cells = [str(row.index + 1), row.status, row.packet_eid, errors]
        cells += [row.values.get(column, "") for column in columns]
        writer.writerow([csv_safe(cell) for cell in cells])
    return ("\ufeff" + out.getvalue()).encode()
