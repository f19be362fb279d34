"""The OpenAPI document's GraphQL section: a drf-spectacular postprocessing hook.

It reads the root schema, which imports every app and config.graphql_docs (for the descriptions
it sets); a module of its own keeps config free of import cycles (the descriptions do not need
the schema).
"""

from __future__ import annotations

from config.graphql_docs import graphql_reference_markdown
from config.schema import schema


def add_graphql_section(
    result: dict[str, object], generator: object = None, request: object = None, public: bool = True
) -> dict[str, object]:
    """After core.openapi.describe_document: the GraphQL operations under the REST introduction
    of /api/docs."""
    info = result.setdefault("info", {})
    assert isinstance(info, dict)
    info["description"] = (
        str(info.get("description", "")) + "\n" + graphql_reference_markdown(schema.graphql_schema)
    )
    return result
