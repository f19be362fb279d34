"""The root GraphQL schema, composed of what each app contributes: its Query fields and its share
of the wire types several apps add fields to (Organization: accounts' own fields, templates_app's
``casts``, workflows' ``welds``). Those types, and the fields returning them, are built here, the
one place that sees every app; an app below cannot name a type composed above it."""

import graphene

from accounts.schema import OrganizationFields, UserFields, resolve_current_user
from builders.schema import Mutation as BuildersMutation
from config.graphql_docs import DESCRIPTIONS
from core.graphql.descriptions import describe
from esign.bulk import Mutation as BulkMutation
from esign.bulk import Query as BulkQuery
from esign.schema import Mutation as EsignMutation
from esign.schema import Query as EsignQuery
from templates_app.schema import OrganizationCasts
from templates_app.schema import Query as TemplatesQuery
from webhooks.schema import Mutation as WebhooksMutation
from workflows.schema import Mutation as WorkflowsMutation
from workflows.schema import OrganizationWelds
from workflows.schema import Query as WorkflowsQuery


# graphene takes the fields of the last base first: the organization's own fields lead.
class Organization(OrganizationWelds, OrganizationCasts, OrganizationFields):
    class Meta:
        name = "Organization"


class User(UserFields):
    """The member an API key acts for; a key with no member answers as the organization's API."""

    class Meta:
        name = "User"

    organizations = graphene.List(graphene.NonNull(Organization), required=True)


class Query(WorkflowsQuery, EsignQuery, BulkQuery, TemplatesQuery, graphene.ObjectType):
    current_user = graphene.Field(User, resolver=resolve_current_user)


class Mutation(
    WorkflowsMutation,
    EsignMutation,
    BulkMutation,
    WebhooksMutation,
    BuildersMutation,
    graphene.ObjectType,
):
    pass


schema = graphene.Schema(query=Query, mutation=Mutation, auto_camelcase=True)
# The wire descriptions, kept beside each app's schema (<app>/graphql_docs.py).
describe(schema.graphql_schema, DESCRIPTIONS)
