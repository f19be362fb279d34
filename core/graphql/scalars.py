"""Scalars of the compatible API: JSON (any JSON value, passed through), Upload and DateTime."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphene.types.generic import GenericScalar
from graphene.types.scalars import Scalar
from graphql import GraphQLError, StringValueNode

from core.errors import ServiceError
from core.uploads import UploadedBlob, blob_from_inline


class JSON(GenericScalar):
    """Any JSON value. Clients declare variables as ``JSON``, so the name matters."""

    class Meta:
        name = "JSON"


class Upload(Scalar):
    """A file: a multipart part (GraphQL multipart request spec) or inline base64.

    Inline uploads are ``{data, filename, mimetype}``, as python-anvil sends them.
    """

    @staticmethod
    def serialize(value: Any) -> None:
        raise GraphQLError("Upload is an input-only type.")

    @staticmethod
    def parse_value(value: Any) -> UploadedBlob:
        if isinstance(value, UploadedBlob):
            return value
        if isinstance(value, dict):
            try:
                return blob_from_inline(value)
            except ServiceError as exc:
                raise GraphQLError(exc.message) from None
        raise GraphQLError("Upload expects a multipart file part or {data, filename, mimetype}.")

    @staticmethod
    def parse_literal(node: Any, _variables: Any = None) -> None:
        raise GraphQLError("Upload values must be sent as variables.")


def iso_ms(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with milliseconds and Z, the date shape of the compatible API."""
    if value is None:
        return None
    return (
        value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    )


class DateTime(Scalar):
    """A moment, as the compatible API writes dates: ISO 8601 in UTC with milliseconds and Z.

    A field of this type reads the attribute of its name (``completedAt`` reads
    ``completed_at``), so types need no ``resolve_*_at`` method each. As an argument
    (createEtchPacket's ``expiresAt``) it takes a string, passed on as sent: the mutation's own
    parser (core.moments) reads it, so a date that does not exist is a ValidationError naming
    the argument, as every other problem of the packet is.
    """

    @staticmethod
    def serialize(value: datetime) -> str | None:
        return iso_ms(value)

    @staticmethod
    def parse_value(value: Any) -> str:
        if not isinstance(value, str):
            raise GraphQLError("DateTime takes an ISO 8601 date and time as a string.")
        return value

    @staticmethod
    def parse_literal(node: Any, _variables: Any = None) -> str:
        if not isinstance(node, StringValueNode):
            raise GraphQLError("DateTime takes an ISO 8601 date and time as a string.")
        return node.value
