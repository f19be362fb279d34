"""The descriptions of the root GraphQL schema, and the API reference's GraphQL section.

Each app describes its own operations, their arguments (with the shapes inside JSON ones) and
the types they return in a table beside its schema (``<app>/graphql_docs.py``); they are merged
here, the one place that sees every app, and set on the root schema by ``config.schema``
(``core.graphql.descriptions.describe``). What stays here is what spans the apps: which
operations /api/docs lists, in which order, and the markdown of that section.
"""

from __future__ import annotations

from graphql import GraphQLObjectType, GraphQLSchema

from accounts.graphql_docs import DESCRIPTIONS as ACCOUNTS
from builders.graphql_docs import DESCRIPTIONS as BUILDERS
from core.graphql.descriptions import merged
from esign.bulk import DESCRIPTIONS as BULK
from esign.graphql_docs import DESCRIPTIONS as ESIGN
from templates_app.graphql_docs import DESCRIPTIONS as TEMPLATES
from webhooks.graphql_docs import DESCRIPTIONS as WEBHOOKS
from workflows.graphql_docs import DESCRIPTIONS as WORKFLOWS

# Every app's table, type -> field -> description (a field's argument as "field(argument)").
DESCRIPTIONS = merged(ESIGN, WORKFLOWS, TEMPLATES, ACCOUNTS, WEBHOOKS, BULK, BUILDERS)

# What the API reference's GraphQL section lists, in this order.
REFERENCE_OPERATIONS = [
    ("Mutation", "createEtchPacket"),
    ("Mutation", "generateEtchSignURL"),
    ("Query", "etchPacket"),
    ("Mutation", "voidDocumentGroup"),
    ("Mutation", "removeEtchPacket"),
    ("Mutation", "sendEtchPacket"),
    ("Mutation", "expireSignerTokens"),
    ("Mutation", "resendEtchSignerEmail"),
    ("Mutation", "extendEtchPacket"),
    ("Mutation", "reassignEtchSigner"),
    ("Mutation", "forgeSubmit"),
    ("Query", "weldData"),
    ("Query", "weld"),
    ("Mutation", "removeWeldData"),
    ("Query", "cast"),
    ("Query", "currentUser"),
    ("Mutation", "webhookTest"),
    ("Mutation", "retryWebhookLog"),
    ("Mutation", "replayWebhookEvents"),
    ("Mutation", "createEtchPacketBatch"),
    ("Query", "etchPacketBatch"),
    ("Mutation", "cancelEtchPacketBatch"),
    ("Mutation", "generateEmbedURL"),
]


# --- the API reference's GraphQL section ---------------------------------------------------------


def _argument_lines(name: str, argument: object) -> list[str]:
    description = (getattr(argument, "description", None) or "").strip()
    type_name = str(getattr(argument, "type", ""))
    first, _, more = description.partition("\n")
    lines = [f"  - `{name}: {type_name}`" + (f": {first}" if first else "")]
    if more.strip():
        lines += ["", *[f"    {line}" if line else "" for line in more.strip().splitlines()], ""]
    return lines


def graphql_reference_markdown(schema: GraphQLSchema) -> str:
    """The GraphQL section of /api/docs: each operation of REFERENCE_OPERATIONS with its
    description and arguments, from the schema itself."""
    out = [
        "",
        "## GraphQL",
        "",
        "`POST /graphql` (also `POST /`) with the same API keys, a JSON body `{query, variables}` "
        "or a GraphQL multipart request for uploads. The whole schema, with every type's fields "
        "described, is [/graphql/schema.graphql](/graphql/schema.graphql); members signed in "
        "explore it in [GraphiQL](/graphql). The operations integrators use most:",
    ]
    for root, field_name in REFERENCE_OPERATIONS:
        root_type = schema.get_type(root)
        assert isinstance(root_type, GraphQLObjectType)
        field = root_type.fields[field_name]
        keyword = "mutation" if root == "Mutation" else "query"
        out += ["", f"### {keyword} `{field_name}` → `{field.type}`", ""]
        out += [(field.description or "").strip() or "(undescribed)", ""]
        for name, argument in field.args.items():
            out += _argument_lines(name, argument)
    return "\n".join(out) + "\n"
