"""core.graphql.arguments: a resolver's arguments back under the names the client sent."""

from typing import Any

import graphene

from core.graphql.arguments import arguments_as_sent
from core.graphql.scalars import JSON


class FileInput(graphene.InputObjectType):
    id = graphene.String(required=True)
    cast_eid = graphene.String()
    font_size = graphene.Int()
    base64_file = graphene.String(name="base64File")


class Query(graphene.ObjectType):
    echo = graphene.Field(
        JSON,
        files=graphene.List(graphene.NonNull(FileInput)),
        webhook_url=graphene.String(name="webhookURL"),
        is_draft=graphene.Boolean(),
        signers=graphene.List(JSON),
    )

    @staticmethod
    def resolve_echo(root: Any, info: graphene.ResolveInfo, **arguments: Any) -> Any:
        return arguments_as_sent(info, arguments)


SCHEMA = graphene.Schema(query=Query)


def test_names_come_back_as_sent_at_every_depth() -> None:
    result = SCHEMA.execute(
        """query ($files: [FileInput!]) {
          echo(files: $files, webhookURL: "https://example.com/hook", isDraft: null,
               signers: [{signerType: "embedded"}])
        }""",
        variables={"files": [{"id": "a", "castEid": "c1", "fontSize": 9}, {"id": "b"}]},
    )

    assert result.errors is None
    assert result.data == {
        "echo": {
            # An input field left out stays out; JSON values are not renamed.
            "files": [{"id": "a", "castEid": "c1", "fontSize": 9}, {"id": "b"}],
            "webhookURL": "https://example.com/hook",
            "isDraft": None,  # an explicit null is kept, an argument left out is absent
            "signers": [{"signerType": "embedded"}],
        }
    }


def test_a_single_value_for_a_list_is_a_list_and_names_are_renamed_inside() -> None:
    result = SCHEMA.execute('{ echo(files: {id: "x", base64File: "abc"}) }')

    assert result.errors is None
    assert result.data == {"echo": {"files": [{"id": "x", "base64File": "abc"}]}}
