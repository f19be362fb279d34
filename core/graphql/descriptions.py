"""Wire descriptions set on a built GraphQL schema from tables kept apart from the type
definitions.

The published clients fix the argument types (``signers: [JSON!]`` stays JSON), so the shape of
a JSON argument can only be told in words. Each app keeps those words in a table beside its
schema (``<app>/graphql_docs.py``: type -> field -> description, a field's argument as
``"field(argument)"``), which keeps its schema module free of wire prose; config merges the
tables and sets them on the root schema. A name in a table that the schema does not have is an
error at import, so the two cannot drift apart. A description already given where a field is
defined is kept.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphql import GraphQLInputObjectType, GraphQLObjectType, GraphQLSchema

Descriptions = Mapping[str, Mapping[str, str]]


def merged(*tables: Descriptions) -> dict[str, dict[str, str]]:
    """One table of several apps' (a type such as Organization or Mutation gets entries from
    several); a name described twice is an error, as only one of the texts would show."""
    out: dict[str, dict[str, str]] = {}
    for table in tables:
        for type_name, entries in table.items():
            into = out.setdefault(type_name, {})
            for key, text in entries.items():
                if key in into:
                    raise LookupError(f"graphql_docs: {type_name}.{key} is described twice")
                into[key] = text
    return out


def describe(schema: GraphQLSchema, table: Descriptions) -> None:
    """Set the table's descriptions on ``schema`` where none was given at the definition."""
    for type_name, entries in table.items():
        graphql_type = schema.get_type(type_name)
        if not isinstance(graphql_type, GraphQLObjectType | GraphQLInputObjectType):
            raise LookupError(f"graphql_docs: no type {type_name}")
        for key, text in entries.items():
            field_name, _, rest = key.partition("(")
            field = graphql_type.fields.get(field_name)
            if field is None:
                raise LookupError(f"graphql_docs: no field {type_name}.{field_name}")
            target = field
            if rest:
                target = field.args.get(rest.rstrip(")"))
                if target is None:
                    raise LookupError(f"graphql_docs: no argument {type_name}.{key}")
            if not target.description:
                target.description = text
