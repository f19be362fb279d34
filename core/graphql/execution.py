"""Running a GraphQL request against a schema, with errors shaped and internals masked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import GraphQLError, GraphQLSchema, execute_sync, parse, validate

from core.api_errors import log_unexpected
from core.errors import ServiceError, ValidationFailed
from core.graphql.cost import validation_rules
from core.graphql.literals import TextLiteralRule
from core.graphql.transport import GraphQLRequest

MAX_QUERY_LENGTH = 100_000


@dataclass(frozen=True)
class GraphQLOutcome:
    body: dict[str, Any]
    executed: bool
    # The longest wait an error asks for (RateLimited, ServiceBusy): the response's Retry-After.
    retry_after_seconds: int | None = None


def _retry_after(error: GraphQLError) -> int | None:
    wait = getattr(error.original_error, "retry_after_seconds", None)
    return int(wait) if isinstance(wait, int | float) else None


def format_error(error: GraphQLError) -> dict[str, Any]:
    original = error.original_error
    formatted = error.formatted
    if original is None or isinstance(original, GraphQLError):
        return dict(formatted)
    if isinstance(original, ServiceError):
        extensions: dict[str, Any] = {"code": original.name, "status": original.status}
        if isinstance(original, ValidationFailed):
            extensions["fields"] = [f.as_wire() for f in original.fields]
        wait = _retry_after(error)
        if wait is not None:  # as the REST answer's Retry-After: whole seconds
            extensions["retryAfter"] = wait
        return {**formatted, "message": original.message, "extensions": extensions}
    # Anything else is a bug: log it by type and frames, tell the client nothing about it.
    log_unexpected(original)
    return {
        **formatted,
        "message": "Internal server error.",
        "extensions": {"code": "InternalServerError"},
    }


def run_graphql(schema: GraphQLSchema, request: GraphQLRequest, context: Any) -> GraphQLOutcome:
    if len(request.query) > MAX_QUERY_LENGTH:
        return GraphQLOutcome({"errors": [{"message": "The query is too long."}]}, executed=False)
    try:
        document = parse(request.query)
    except GraphQLError as error:
        return GraphQLOutcome({"errors": [error.formatted]}, executed=False)
    validation_errors = validate(schema, document, rules=(*validation_rules(), TextLiteralRule))
    if validation_errors:
        return GraphQLOutcome({"errors": [e.formatted for e in validation_errors]}, executed=False)
    result = execute_sync(
        schema,
        document,
        context_value=context,
        variable_values=request.variables,
        operation_name=request.operation_name,
    )
    body: dict[str, Any] = {"data": result.data}
    if result.errors:
        body["errors"] = [format_error(e) for e in result.errors]
    waits = [w for w in (_retry_after(e) for e in result.errors or []) if w is not None]
    return GraphQLOutcome(body, executed=True, retry_after_seconds=max(waits, default=None))
