"""The root GraphQL schema: each app contributes its Query (and later Mutation) class."""

import graphene

from accounts.schema import Query as AccountsQuery


class Query(AccountsQuery, graphene.ObjectType):
    pass


schema = graphene.Schema(query=Query, auto_camelcase=True)
