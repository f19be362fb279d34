"""The GraphQL operations integrators use most are described in the schema itself (GraphiQL's
documentation and the SDL show it): the operation, every argument (with the shape inside each
JSON one) and every field they return; /api/docs has a GraphQL section made from it."""

from __future__ import annotations

import pytest
from django.test import Client
from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, get_named_type

from config.graphql_docs import DESCRIPTIONS, REFERENCE_OPERATIONS
from config.schema import schema

MOST_USED = [
    ("Mutation", "createEtchPacket"),
    ("Mutation", "generateEtchSignURL"),
    ("Query", "etchPacket"),
    ("Mutation", "forgeSubmit"),
    ("Query", "weldData"),
    ("Query", "cast"),
    ("Mutation", "voidDocumentGroup"),
    ("Mutation", "removeEtchPacket"),
]


def described(text: str | None) -> bool:
    return bool(text and len(text.strip()) >= 8)


@pytest.mark.parametrize(("root", "name"), MOST_USED)
def test_the_operation_and_every_argument_is_described(root: str, name: str) -> None:
    field = schema.graphql_schema.get_type(root).fields[name]

    assert described(field.description), name
    for argument_name, argument in field.args.items():
        assert described(argument.description), f"{name}({argument_name})"


@pytest.mark.parametrize(("root", "name"), MOST_USED)
def test_every_field_they_return_is_described(root: str, name: str) -> None:
    """The object they return and the objects inside it, one level down, and every input."""
    field = schema.graphql_schema.get_type(root).fields[name]
    returned = get_named_type(field.type)
    types = [returned]
    if isinstance(returned, GraphQLObjectType):
        for inner in returned.fields.values():
            named = get_named_type(inner.type)
            if isinstance(named, GraphQLObjectType) and named not in types:
                types.append(named)
    for argument in field.args.values():
        named = get_named_type(argument.type)
        if hasattr(named, "fields") and named not in types:
            types.append(named)
    for graphql_type in types:
        if not hasattr(graphql_type, "fields") or graphql_type.name in ("Cast", "Weld", "Forge"):
            continue  # described where they are defined, or not among the most used
        for field_name, inner in graphql_type.fields.items():
            assert described(inner.description), f"{graphql_type.name}.{field_name}"


def test_the_json_arguments_say_their_shape() -> None:
    create = schema.graphql_schema.get_type("Mutation").fields["createEtchPacket"]
    signers = create.args["signers"]
    assert isinstance(signers.type, GraphQLList)  # still [JSON!]: the clients fix the type
    assert isinstance(signers.type.of_type, GraphQLNonNull)
    for key in ("signerType", "routingOrder", "fileId", "fieldId", "signatureMode", "redirectURL"):
        assert key in signers.description
    assert "payloads" in create.args["data"].description
    etch_file = schema.graphql_schema.get_type("EtchFile")
    assert "pageNum" in etch_file.fields["fields"].description
    assert "rect" in etch_file.fields["fields"].description
    forge_payload = schema.graphql_schema.get_type("Mutation").fields["forgeSubmit"].args["payload"]
    assert "field key" in forge_payload.description


def test_every_name_in_the_table_is_in_the_schema() -> None:
    """describe() raises on a name the schema lacks; the table is not silently stale."""
    for type_name, entries in DESCRIPTIONS.items():
        fields = schema.graphql_schema.get_type(type_name).fields
        for key in entries:
            name, _, argument = key.partition("(")
            assert name in fields, key
            if argument:
                assert argument.rstrip(")") in fields[name].args, key


def test_the_sdl_shows_the_descriptions(db: None) -> None:
    sdl = Client().get("/graphql/schema.graphql").content.decode()

    assert '"signerType": "email"' in sdl
    assert "A signing link for an embedded signer" in sdl


def test_the_api_reference_has_a_graphql_section(db: None) -> None:
    document = Client().get("/api/openapi.json").json()
    description = document["info"]["description"]

    assert "## GraphQL" in description
    for _root, name in REFERENCE_OPERATIONS:
        assert f"`{name}`" in description, name
    assert "`signers: [JSON!]`" in description
    assert '"signerType": "email"' in description


def test_every_type_field_and_argument_of_the_schema_is_described() -> None:
    from graphql import GraphQLInputObjectType

    missing = []
    for name, graphql_type in schema.graphql_schema.type_map.items():
        if name.startswith("__") or not isinstance(
            graphql_type, GraphQLObjectType | GraphQLInputObjectType
        ):
            continue
        for field_name, field in graphql_type.fields.items():
            if not described(field.description):
                missing.append(f"{name}.{field_name}")
            for argument_name, argument in getattr(field, "args", {}).items():
                if not described(argument.description):
                    missing.append(f"{name}.{field_name}({argument_name})")
    assert missing == []
