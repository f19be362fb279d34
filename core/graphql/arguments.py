"""A field's arguments keyed as the client sent them.

graphene hands a resolver its arguments under their Python names (``webhookURL`` becomes
``webhook_url``, an input object's ``castEid`` its ``cast_eid``). A service that parses the same
shape from JSON given elsewhere too (createEtchPacket's, which createEtchPacketBatch's rows and
the MCP tool carry as JSON) reads the GraphQL names, and names its errors by them. This puts the
names back from the schema itself, at every depth, so no mutation spells a map of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLResolveInfo,
)


def arguments_as_sent(info: GraphQLResolveInfo, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` (what graphene passed the resolver of ``info``'s field) under their GraphQL
    names, input objects as dicts keyed so too; values stay as coerced (uploads as blobs)."""
    field = info.parent_type.fields[info.field_name]
    return _fields_as_sent(field.args, arguments)


def _fields_as_sent(
    definitions: Mapping[str, GraphQLArgument] | Mapping[str, GraphQLInputField],
    values: Mapping[str, Any],
) -> dict[str, Any]:
    # Only what was given: graphql-core leaves an argument (or input field) the client left out
    # out of the values, and a parser may tell "absent" from null.
    return {
        name: _value_as_sent(values[key], definition.type)
        for name, definition in definitions.items()
        if (key := definition.out_name or name) in values
    }


def _value_as_sent(value: Any, type_: GraphQLInputType) -> Any:
    if isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    if value is None:
        return None
    if isinstance(type_, GraphQLList):
        return [_value_as_sent(item, type_.of_type) for item in value]
    if isinstance(type_, GraphQLInputObjectType):
        return _fields_as_sent(type_.fields, value)
    return value
