"""GraphQL of the embedded builders: generateEmbedURL (the hosted API's name and shape:
``{url, requestTokenEid}``) and the extension expireEmbedURL."""

from __future__ import annotations

from typing import Any

import graphene

from accounts.identity import ApiIdentity
from builders.tokens import embed_token_revoke, embed_url_generate
from core.graphql.mutations import ServiceMutation
from core.graphql.scalars import JSON


class EmbedURLType(graphene.ObjectType):
    class Meta:
        name = "EmbedURL"

    url = graphene.String(required=True)
    request_token_eid = graphene.String(required=True)


class GenerateEmbedURL(ServiceMutation):
    class Arguments:
        eid = graphene.String(required=True)
        type = graphene.String(required=True)
        valid_for_seconds = graphene.Int()
        metadata = JSON()
        options = JSON()
        # Extension: what the embedded user may do (all the builder offers when absent).
        permissions = graphene.List(graphene.NonNull(graphene.String))

    Output = EmbedURLType

    @classmethod
    def perform(
        cls,
        identity: ApiIdentity,
        *,
        eid: str,
        type: str,
        valid_for_seconds: Any = None,
        metadata: Any = None,
        options: Any = None,
        permissions: Any = None,
    ) -> dict[str, str]:
        row, url = embed_url_generate(
            identity=identity,
            eid=eid,
            embed_type=type,
            valid_for_seconds=valid_for_seconds,
            permissions=permissions,
            metadata=metadata,
            options=options,
        )
        return {"url": url, "request_token_eid": row.eid}


class ExpireEmbedURL(ServiceMutation):
    class Arguments:
        request_token_eid = graphene.String(required=True)

    Output = graphene.Boolean

    @classmethod
    def perform(cls, identity: ApiIdentity, *, request_token_eid: str) -> bool:
        return embed_token_revoke(identity=identity, request_token_eid=request_token_eid)


class Mutation(graphene.ObjectType):
    generate_embed_url = GenerateEmbedURL.Field(name="generateEmbedURL")
    expire_embed_url = ExpireEmbedURL.Field(name="expireEmbedURL")
