"""GraphQL for a signed-in member in GraphiQL, with their session: POST /graphql/member.

The API at /graphql authenticates API keys only; a member who opens GraphiQL has a session but
maybe no key at hand (keys are shown once). Here their session runs **queries** as one of their
organizations, named by ``?organization=<slug>`` (GraphiQL shows which); a mutation (packets
made, emails sent) is refused with a message saying to paste an API key, which GraphiQL then
sends to /graphql like any client. The session is CSRF-checked like every form of the site.
"""

from __future__ import annotations

from typing import Any

from graphql import OperationType, get_operation_ast, parse
from graphql.error import GraphQLError
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.identity import MemberIdentity
from accounts.models import Membership
from core.errors import NotFound
from core.graphql.execution import run_graphql
from core.graphql.transport import graphql_request_from
from core.graphql.views import GraphQLApi, GraphQLContext

NEEDS_KEY = (
    "Mutations run with an API key only: paste one in the bar above (settings page, API keys), "
    "and GraphiQL sends this one as that key's organization."
)


class MemberSessionAuthentication(SessionAuthentication):
    """The session's user (CSRF enforced) as a member of ``?organization=<slug>``."""

    def authenticate(self, request: Request) -> tuple[MemberIdentity, None] | None:
        found = super().authenticate(request)
        if found is None:
            return None
        user = found[0]
        membership = (
            Membership.objects.select_related("organization")
            .filter(user=user, organization__slug=request.query_params.get("organization", ""))
            .first()
        )
        if membership is None:
            raise NotFound("You are not a member of that organization.")
        return MemberIdentity(organization=membership.organization, member=user), None

    def authenticate_header(self, request: Request) -> str:
        return "Session"  # a 401, not a 403, without a session


class MemberGraphQLApi(GraphQLApi):
    authentication_classes = [MemberSessionAuthentication]
    # Rate limits are per API key; a member's exploring is bounded by the query cost rules.
    throttle_classes: list[Any] = []

    def post(self, request: Request) -> Response:
        if not isinstance(request.user, MemberIdentity):
            raise NotAuthenticated()
        graphql_request = graphql_request_from(request.data, request.FILES)
        try:
            operation = get_operation_ast(
                parse(graphql_request.query), graphql_request.operation_name
            )
        except GraphQLError:
            operation = None  # run_graphql reports the syntax error
        if operation is not None and operation.operation != OperationType.QUERY:
            return Response(
                {"errors": [{"message": NEEDS_KEY, "extensions": {"code": "ApiKeyRequired"}}]},
                status=200,
            )
        outcome = run_graphql(self.schema.graphql_schema, graphql_request, GraphQLContext(request))
        return Response(outcome.body, status=200 if outcome.executed else 400)
