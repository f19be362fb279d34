"""createEtchPacket's ``data``, the fill data of its template files, declared once: what it
takes, its message and its description (issue 53, item 1).

esign.packets.inputs checks ``data`` with `PacketData` (through core.engine.wire_models'
`validate`) and that each payload names a template file; each payload is checked against its
template when the file's document is made (esign.sending.packets, as fill's request). The
create_packet tool's ``data`` is `data_schema` (mcp_server/schemas.py, through
esign.graphql_docs). A ``data`` that is no object is read as none, as before.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, SkipValidation, WithJsonSchema

from core.engine.wire_models import WireModel, component_schemas, says

# One template file's payload: fill's request body ({data: {<field alias>: <value>}, ...}), or
# its data alone; checked against the template when the document is made.
Payload = Annotated[
    Any,
    SkipValidation,
    WithJsonSchema(
        {
            "type": "object",
            "description": "What POST /api/v1/fill/<castEid>.pdf takes: {data: {<field "
            "alias>: <value>, ...}} (or the data alone).",
        }
    ),
]


class PacketData(WireModel):
    """Fill data for the template files (files with castEid): {payloads: {<file id>: {data:
    {...}}}}. A template file without a payload is used as it is; a payload may not fill a
    signer field."""

    payloads: Annotated[dict[str, Payload], says("Must be an object keyed by file id.")] = Field(
        default_factory=dict, description="Each template file's payload, by its id (files[].id)."
    )


def data_schema() -> dict[str, Any]:
    """The JSON schema of ``data`` (components, named by class)."""
    return component_schemas(PacketData)
