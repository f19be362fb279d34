"""The admin's bulk send upload: a CSV or XLSX file read into rows, and a template's packet shape
for them (esign.bulk.sends).

The first line names the columns. ``name`` and ``email`` name the signer; every other column
that is a field of the template (its id or alias) fills that field. The signer signs every
signer field of the template (signature, initial, signature date, name).

Its problems are the admin's, not the API's: they are said in the reader's language.

An XLSX file is read in an upload-check worker (esign.upload_checks), within limits checked
before it is parsed: its zip directory (BULK_SPREADSHEET_MAX_UNZIPPED_BYTES,
BULK_SPREADSHEET_MAX_COMPRESSION_RATIO), XML entities (refused), the sheet's cells
(BULK_SPREADSHEET_MAX_CELLS): esign.engine.spreadsheets.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from core.errors import RequestTooLarge, ValidationFailed
from esign.engine import spreadsheets
from esign.engine.upload_pool import SpreadsheetJob, UploadTooComplex
from esign.upload_checks import run_upload_check
from templates_app.engine.describe import example_value
from templates_app.models import PdfTemplate
from templates_app.services import template_version_select, version_spec

NAME_COLUMN = "name"
EMAIL_COLUMN = "email"
FILE_ID = "document"
MAX_COLUMNS = 200
XLSX_MAGIC = b"PK\x03\x04"


def _too_many_rows() -> ValidationFailed:
    return ValidationFailed.single(
        "file",
        _("At most %(count)s rows in one bulk send.") % {"count": settings.BULK_SEND_MAX_ROWS},
    )


def _table(lines: Any) -> list[dict[str, Any]]:
    """Rows by column from an iterator of lines (lists of cells), the first naming the columns;
    blank lines are skipped."""
    header = next(lines, None)
    if header is None:
        raise ValidationFailed.single("file", _("The file is empty."))
    columns = [str(cell or "").strip() for cell in header]
    while columns and not columns[-1]:
        columns.pop()
    if not columns:
        raise ValidationFailed.single("file", _("The first line must name the columns."))
    if len(columns) > MAX_COLUMNS:
        raise ValidationFailed.single(
            "file", _("At most %(count)s columns.") % {"count": MAX_COLUMNS}
        )
    if "" in columns or len(set(columns)) != len(columns):
        raise ValidationFailed.single("file", _("Every column needs a name of its own."))
    rows: list[dict[str, Any]] = []
    for line in lines:
        cells = list(line)[: len(columns)]
        if not any(cell not in (None, "") for cell in cells):
            continue
        if len(rows) >= settings.BULK_SEND_MAX_ROWS:
            raise _too_many_rows()
        rows.append(dict(zip(columns, cells + [""] * (len(columns) - len(cells)), strict=True)))
    if not rows:
        raise ValidationFailed.single("file", _("The file has no rows under its column names."))
    return rows


def _csv_rows(data: bytes) -> list[dict[str, Any]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationFailed.single("file", _("A CSV file must be UTF-8 text.")) from None
    try:
        dialect: Any = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        return _table(iter(csv.reader(io.StringIO(text), dialect)))
    except csv.Error as error:
        raise ValidationFailed.single(
            "file", _("The CSV file cannot be read (%(error)s).") % {"error": error}
        ) from None


def spreadsheet_limits() -> spreadsheets.SpreadsheetLimits:
    return spreadsheets.SpreadsheetLimits(
        max_unzipped_bytes=settings.BULK_SPREADSHEET_MAX_UNZIPPED_BYTES,
        max_compression_ratio=settings.BULK_SPREADSHEET_MAX_COMPRESSION_RATIO,
        max_cells=settings.BULK_SPREADSHEET_MAX_CELLS,
    )


def _refusal_message(refused: spreadsheets.SpreadsheetRefused) -> str:
    reason, limit = refused.reason, refused.limit
    if reason == spreadsheets.TOO_LARGE_UNZIPPED:
        return _("The spreadsheet is larger than %(size)s MB once unzipped.") % {
            "size": f"{limit / 1_048_576:g}"
        }
    if reason == spreadsheets.OVER_COMPRESSED:
        return _(
            "The spreadsheet cannot be read: a part of it is compressed more than %(ratio)s to 1,"
            " as no real spreadsheet is."
        ) % {"ratio": limit}
    if reason == spreadsheets.TOO_MANY_PARTS:
        return _("The spreadsheet cannot be read: its zip holds more than %(count)s files.") % {
            "count": f"{limit:,}"
        }
    if reason == spreadsheets.ENTITIES:
        return _("The spreadsheet declares XML entities, which a spreadsheet never needs.")
    if reason == spreadsheets.TOO_MANY_CELLS:
        return _("The first sheet of the spreadsheet has more than %(count)s cells.") % {
            "count": f"{limit:,}"
        }
    return _("The spreadsheet cannot be read.")


def _xlsx_rows(data: bytes) -> list[dict[str, Any]]:
    job = SpreadsheetJob(data=data, limits=spreadsheet_limits())
    try:
        lines = run_upload_check(
            job, busy_message=_("Other spreadsheets are being read; upload again in a moment.")
        )
    except spreadsheets.SpreadsheetRefused as refused:
        raise ValidationFailed.single("file", _refusal_message(refused)) from None
    except UploadTooComplex:
        raise ValidationFailed.single(
            "file", _("The spreadsheet is too complex to read within the limits.")
        ) from None
    return _table(iter(lines))


def rows_from_file(filename: str, data: bytes) -> list[dict[str, Any]]:
    """The rows of an uploaded CSV or XLSX file (the first sheet), by column."""
    if len(data) > settings.BULK_SEND_MAX_FILE_BYTES:
        raise RequestTooLarge(
            _("The file is larger than %(size)s KB.")
            % {"size": settings.BULK_SEND_MAX_FILE_BYTES // 1024}
        )
    if filename.lower().endswith(".xlsx") or data.startswith(XLSX_MAGIC):
        return _xlsx_rows(data)
    if filename.lower().endswith((".csv", ".txt", ".tsv")):
        return _csv_rows(data)
    raise ValidationFailed.single("file", _("Upload a .csv or .xlsx file."))


def template_shape(
    *, template: PdfTemplate, columns: list[str], name: str, email_subject: str
) -> tuple[dict[str, Any], list[str]]:
    """createEtchPacket's arguments for one row (with placeholders) from the template, and the
    columns that fill nothing (neither the signer's nor a field of the template)."""
    version = template_version_select(template=template, version_number=None)
    spec = version_spec(version)
    by_key: dict[str, str] = {}
    for field in spec.fields:
        by_key.setdefault(field.id, field.id)
        if field.alias:
            by_key.setdefault(field.alias, field.id)
    signer_fields = [field for field in spec.fields if field.is_signer]
    if not signer_fields:
        raise ValidationFailed.single(
            "template", _("The template has no signature field: add one in its editor first.")
        )
    missing = [c for c in (NAME_COLUMN, EMAIL_COLUMN) if c not in columns]
    if missing:
        raise ValidationFailed.single(
            "file", _("The file needs the columns name and email (the signer's).")
        )
    values = {
        column: f"{{{{{column}}}}}"
        for column in columns
        if column not in (NAME_COLUMN, EMAIL_COLUMN) and column in by_key
    }
    unused = [c for c in columns if c not in (NAME_COLUMN, EMAIL_COLUMN) and c not in by_key]
    shape: dict[str, Any] = {
        "name": name or template.title,
        "files": [{"id": FILE_ID, "castEid": template.eid}],
        "signers": [
            {
                "id": "signer",
                "name": "{{name}}",
                "email": "{{email}}",
                "signerType": "email",
                "fields": [{"fileId": FILE_ID, "fieldId": f.id} for f in signer_fields],
            }
        ],
    }
    if values:
        shape["data"] = {"payloads": {FILE_ID: {"data": values}}}
    if email_subject:
        shape["signatureEmailSubject"] = email_subject
    return shape, unused


def template_columns(template: PdfTemplate) -> list[dict[str, Any]]:
    """The columns a file for ``template`` has after name and email: one per field a row fills
    (signer fields are the signer's), named by its alias (else its id), with what it is and an
    example value (blank for one that is not one cell of text: a name, an address...)."""
    spec = version_spec(template_version_select(template=template, version_number=None))
    columns: list[dict[str, Any]] = []
    seen: set[str] = set()
    for field in spec.fields:
        name = field.alias or field.id
        # name and email are the signer's: a field of that alias is not filled from them.
        if field.is_signer or name in seen or name in (NAME_COLUMN, EMAIL_COLUMN):
            continue
        seen.add(name)
        example = example_value(field) if field.type != "imageFile" else ""
        if isinstance(example, bool):
            example = "true" if example else "false"
        elif not isinstance(example, str | int | float):
            example = ""
        columns.append({"name": name, "label": field.label or field.type, "example": example})
    return columns


def sample_csv(template: PdfTemplate) -> bytes:
    """A file to start from: the columns ``template`` takes and one row of example values
    (UTF-8 with a BOM, which spreadsheets read as UTF-8)."""
    columns = template_columns(template)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([NAME_COLUMN, EMAIL_COLUMN, *(c["name"] for c in columns)])
    writer.writerow(["Ada Lovelace", "ada@example.com", *(c["example"] for c in columns)])
    return ("\ufeff" + out.getvalue()).encode()
