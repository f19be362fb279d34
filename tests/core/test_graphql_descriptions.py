"""core.graphql.descriptions: the apps' description tables, merged and set on a schema."""

import graphene
import pytest

from core.graphql.descriptions import describe, merged


class Query(graphene.ObjectType):
    hello = graphene.String(who=graphene.String())
    given = graphene.String(description="Given where it is defined.")


def test_tables_of_several_apps_merge_by_type() -> None:
    table = merged({"Query": {"hello": "Says hello."}}, {"Query": {"hello(who)": "Whom to."}})

    assert table == {"Query": {"hello": "Says hello.", "hello(who)": "Whom to."}}


def test_a_name_described_by_two_apps_is_an_error() -> None:
    with pytest.raises(LookupError, match="Query.hello is described twice"):
        merged({"Query": {"hello": "One."}}, {"Query": {"hello": "Another."}})


def test_descriptions_are_set_unless_given_at_the_definition() -> None:
    schema = graphene.Schema(query=Query).graphql_schema

    describe(
        schema,
        {"Query": {"hello": "Says hello.", "hello(who)": "Whom to.", "given": "Not this."}},
    )

    hello = schema.query_type.fields["hello"]
    assert hello.description == "Says hello."
    assert hello.args["who"].description == "Whom to."
    assert schema.query_type.fields["given"].description == "Given where it is defined."


@pytest.mark.parametrize("key", ["nothing", "hello(nobody)"])
def test_a_name_the_schema_lacks_is_an_error(key: str) -> None:
    schema = graphene.Schema(query=Query).graphql_schema

    with pytest.raises(LookupError):
        describe(schema, {"Query": {key: "Stale."}})
