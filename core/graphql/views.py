"""The GraphQL endpoint, at /graphql and /, behind the same authentication as REST."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.graphql.execution import run_graphql
from core.graphql.transport import graphql_request_from


@dataclass(frozen=True)
class GraphQLContext:
    """What resolvers see as ``info.context``."""

    request: Request

    @property
    def identity(self) -> Any:
        return self.request.user


class GraphQLApi(APIView):
    schema: Any = None  # a graphene.Schema, set by the URLconf

    @property
    def json_body_limit(self) -> int:
        # GraphQL bodies may carry inline base64 uploads: they get the multipart limit.
        return settings.API_MULTIPART_BODY_LIMIT

    def post(self, request: Request) -> Response:
        graphql_request = graphql_request_from(request.data, request.FILES)
        outcome = run_graphql(self.schema.graphql_schema, graphql_request, GraphQLContext(request))
        response = Response(outcome.body, status=200 if outcome.executed else 400)
        if outcome.retry_after_seconds is not None:
            response["Retry-After"] = str(outcome.retry_after_seconds)
        return response

    def get(self, request: Request) -> Response:
        return Response({"graphql": "POST a JSON body {query, variables} here."})
