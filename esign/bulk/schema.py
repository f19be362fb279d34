"""GraphQL of bulk sends (an extension, esign.bulk.sends): createEtchPacketBatch, etchPacketBatch
and cancelEtchPacketBatch."""

from __future__ import annotations

from typing import Any

import graphene

from accounts.identity import ApiIdentity
from core.graphql.fields import by_eid
from core.graphql.mutations import ServiceMutation
from core.graphql.resolvers import or_none
from core.graphql.scalars import JSON, DateTime
from esign.bulk import sends as bulk
from esign.bulk_models import BulkBatch, BulkRow

MAX_ROWS_PAGE = 500


class BulkRowErrorType(graphene.ObjectType):
    class Meta:
        name = "EtchPacketBatchRowError"

    property = graphene.String()
    message = graphene.String()

    @staticmethod
    def resolve_property(error: dict[str, str], info: Any) -> str:
        return error.get("property", "")

    @staticmethod
    def resolve_message(error: dict[str, str], info: Any) -> str:
        return error.get("message", "")


class BulkRowType(graphene.ObjectType):
    class Meta:
        name = "EtchPacketBatchRow"

    index = graphene.Int()
    status = graphene.String()
    values = JSON()
    packet_eid = graphene.String(resolver=or_none("packet_eid"))
    errors = graphene.List(graphene.NonNull(BulkRowErrorType))
    finished_at = DateTime()


class BulkBatchType(graphene.ObjectType):
    class Meta:
        name = "EtchPacketBatch"

    id = graphene.ID(source="eid")
    eid = graphene.String()
    name = graphene.String()
    status = graphene.String()
    columns = graphene.List(graphene.NonNull(graphene.String))
    rows_total = graphene.Int()
    rows_created = graphene.Int()
    rows_failed = graphene.Int()
    rows_pending = graphene.Int()
    created_at = DateTime()
    finished_at = DateTime()
    rows = graphene.List(
        graphene.NonNull(BulkRowType),
        offset=graphene.Int(default_value=0),
        limit=graphene.Int(default_value=100),
        status=graphene.String(),
    )

    @staticmethod
    def resolve_rows_pending(batch: BulkBatch, info: Any) -> int:
        return batch.rows_total - batch.rows_done

    @staticmethod
    def resolve_rows(
        batch: BulkBatch,
        info: Any,
        offset: int | None,
        limit: int | None,
        status: str | None = None,
    ) -> list[BulkRow]:
        rows = batch.rows.order_by("index")
        if status:
            rows = rows.filter(status=status)
        # An explicit null (`rows(limit: null)`) arrives as None, not as the default.
        offset = max(offset or 0, 0)
        limit = 100 if limit is None else limit
        return list(rows[offset : offset + min(max(limit, 0), MAX_ROWS_PAGE)])


class Query(graphene.ObjectType):
    etch_packet_batch = by_eid(BulkBatchType, bulk.batch_get)


class CreateEtchPacketBatch(ServiceMutation):
    class Arguments:
        packet = JSON(required=True)
        rows = graphene.List(graphene.NonNull(JSON), required=True)
        name = graphene.String()

    Output = BulkBatchType

    @classmethod
    def perform(
        cls, identity: ApiIdentity, *, packet: Any, rows: list[Any], name: str | None = None
    ) -> BulkBatch:
        return bulk.batch_create(
            organization=identity.organization,
            watermark=identity.is_development,
            name=name or "",
            shape=packet,
            raw_rows=rows,
            created_by=f"API key {identity.api_key.prefix}",
        )


class CancelEtchPacketBatch(ServiceMutation):
    class Arguments:
        eid = graphene.String(required=True)

    Output = BulkBatchType

    @classmethod
    def perform(cls, identity: ApiIdentity, *, eid: str) -> BulkBatch:
        batch = bulk.batch_get(organization=identity.organization, eid=eid)
        return bulk.batch_cancel(batch=batch)


class Mutation(graphene.ObjectType):
    create_etch_packet_batch = CreateEtchPacketBatch.Field()
    cancel_etch_packet_batch = CancelEtchPacketBatch.Field()
