"""A URLconf for testing the API edge on its own: an endpoint that echoes what it parsed."""

from __future__ import annotations

import graphene
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.schema import Query
from core.errors import ValidationFailed
from core.graphql.scalars import Upload
from core.graphql.views import GraphQLApi
from core.uploads import UploadedBlob


class EchoApi(APIView):
    """Echoes the parsed body, requiring ``data`` like fill and generate do."""

    def post(self, request: Request) -> Response:
        if request.data.get("data") in (None, ""):
            raise ValidationFailed.single("data", "Required")
        return Response({"echo": request.data})


class Boom(Exception):
    pass


class UploadInfo(graphene.ObjectType):
    filename = graphene.String()
    mimetype = graphene.String()
    size = graphene.Int()
    is_pdf = graphene.Boolean()


class Mutation(graphene.ObjectType):
    describe_uploads = graphene.List(
        UploadInfo, files=graphene.List(graphene.NonNull(Upload), required=True)
    )
    explode = graphene.String(secret=graphene.String())

    @staticmethod
    def resolve_describe_uploads(root: object, info: object, files: list[UploadedBlob]) -> list:
        return [
            UploadInfo(
                filename=f.filename,
                mimetype=f.content_type,
                size=len(f.data),
                is_pdf=f.looks_like_pdf,
            )
            for f in files
        ]

    @staticmethod
    def resolve_explode(root: object, info: object, secret: str = "") -> str:
        raise Boom(f"internal detail {secret}")


test_schema = graphene.Schema(query=Query, mutation=Mutation)

urlpatterns = [
    path("api/v1/echo", EchoApi.as_view()),
    path("graphql", GraphQLApi.as_view(schema=test_schema)),
    path("", GraphQLApi.as_view(schema=test_schema)),
]
