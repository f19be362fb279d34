"""The wire descriptions of bulk sends' GraphQL (esign/bulk/schema.py, an extension): one
packet shape, many rows."""

from __future__ import annotations

from esign.engine.bulk_rows import ROWS_DESCRIPTION

BULK_SHAPE = """createEtchPacket's arguments (name, files, signers, data, isTest,
signatureEmailSubject...), as a JSON object in their wire form, whose strings may hold
`{{column}}` placeholders. Each row's packet is this object with the row's values put in
(a string that is one placeholder becomes the value; a column a row lacks is blank), read and
made exactly as createEtchPacket would:

```
{
  "name": "Lease for {{name}}",
  "files": [{"id": "lease", "castEid": "<template eid>"}],
  "data": {"payloads": {"lease": {"data": {"tenantName": "{{name}}", "rent": "{{rent}}"}}}},
  "signers": [{"id": "tenant", "name": "{{name}}", "email": "{{email}}",
               "fields": [{"fileId": "lease", "fieldId": "signature"}]}]
}
```

A placeholder no row has is a ValidationError at `packet.<path>`. So is a `castEid` that is not a
template of the caller's organization (another organization's reads as an unknown one), at
`packet.files.<index>.castEid`, or at `rows.<row>.files.<index>.castEid` when a row's value names
it: the batch is refused then, not its rows at send time."""

# type -> field -> description; a field's argument as "field(argument)". Merged with the other
# apps' in config.graphql_docs and set on the root schema (core.graphql.descriptions).
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "Query": {
        "etchPacketBatch": "Extension. A bulk send of the caller's organization, by eid: its "
        "progress and each row's outcome (NotFoundError otherwise).",
        "etchPacketBatch(eid)": "The bulk send's eid (createEtchPacketBatch's answer).",
    },
    "Mutation": {
        "createEtchPacketBatch": "Extension. One packet per row from one shape (a bulk send), "
        "made by a background task: status `sending`, then `completed` once every row has its "
        "outcome (`etchPacketBatch`). Every row is read first, as createEtchPacket reads its "
        "arguments: any problem refuses the whole batch, with a ValidationError naming "
        "`rows.<index>.<argument>` (e.g. `rows.3.signers.0.email`), and nothing is stored; "
        "a template the organization does not have (another organization's included) is "
        "one such problem. "
        "A row whose documents cannot be made (a fill value its template refuses) fails alone: "
        "its `errors` say why. Rows are sent in order, paced by the outgoing mail "
        "(BULK_SEND_EMAILS_PER_SECOND); each packet sends its usual webhook events; a task "
        "resumed after a crash never sends a row twice. At most BULK_SEND_MAX_ROWS rows.",
        "createEtchPacketBatch(packet)": BULK_SHAPE,
        # As the rows' model describes them.
        "createEtchPacketBatch(rows)": ROWS_DESCRIPTION,
        "createEtchPacketBatch(name)": "The bulk send's name (default: the shape's name).",
        "cancelEtchPacketBatch": "Extension. Stop a bulk send that is sending: the rows still "
        "waiting stay `pending`, the packets made are kept. A finished one is a ConflictError.",
        "cancelEtchPacketBatch(eid)": "The bulk send's eid.",
    },
    "EtchPacketBatch": {
        "id": "The bulk send's eid.",
        "eid": "The bulk send's id.",
        "name": "The bulk send's name.",
        "createdAt": "When it was created (ISO 8601).",
        "rows(offset)": "Rows to skip, from the first (default 0).",
        "rows(limit)": "The most rows to return (default 100, at most 500).",
        "rows(status)": "Only the rows of this status: pending, created or failed.",
        "status": "sending, completed (every row created or failed) or cancelled.",
        "columns": "The rows' columns, in the order they first appear.",
        "rowsTotal": "How many rows.",
        "rowsCreated": "Rows whose packet was created.",
        "rowsFailed": "Rows that failed (see their errors).",
        "rowsPending": "Rows still waiting.",
        "rows": "The rows in order, `limit` (at most 500) from `offset`, optionally only those "
        "of a `status` (pending, created, failed).",
        "finishedAt": "When every row had its outcome, or it was cancelled (ISO 8601).",
    },
    "EtchPacketBatchRow": {
        "index": "The row's index, from 0 (as in `rows.<index>`).",
        "status": "pending, created or failed.",
        "values": "The row's values by column.",
        "packetEid": "The packet created for the row (etchPacket(eid)).",
        "errors": "Why the row failed: `{property, message}` as in a ValidationError.",
        "finishedAt": "When the row's packet was created or it failed (ISO 8601).",
    },
    "EtchPacketBatchRowError": {
        "property": "The argument of the row's packet at fault (`signers.0.email`), or empty.",
        "message": "What is wrong with it.",
    },
}
