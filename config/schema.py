"""The root GraphQL schema: each app contributes its Query (and later Mutation) class."""

import graphene

from accounts.schema import Query as AccountsQuery
from templates_app.schema import Query as TemplatesQuery


class Query(AccountsQuery, TemplatesQuery, graphene.ObjectType):
    pass


schema = graphene.Schema(query=Query, auto_camelcase=True)
