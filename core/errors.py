"""Domain errors: each knows its wire name and HTTP status, without importing the web framework.

Services raise these; one DRF exception handler (core.api_errors) renders them in the wire shapes
of the compatible API: ``{"name", "message"}``, or for validation
``{"name": "ValidationError", "fields": [{"message", "property"}]}``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NoReturn

from core.engine.problems import EngineError, InvalidInput

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FieldError:
    property: str
    message: str

    def as_wire(self) -> dict[str, str]:
        return {"message": self.message, "property": self.property}


class ServiceError(Exception):
    """Base of every error the API reports on purpose."""

    name = "ServiceError"
    status = 500
    default_message = "The request could not be completed."

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)

    def as_wire(self) -> dict[str, object]:
        return {"name": self.name, "message": self.message}


class ValidationFailed(ServiceError):
    name = "ValidationError"
    status = 400
    default_message = "The request is not valid."

    def __init__(self, fields: Iterable[FieldError]) -> None:
        self.fields = list(fields)
        super().__init__("; ".join(f"{f.property}: {f.message}" for f in self.fields))

    @classmethod
    def from_problems(cls, problems: Iterable[Any], prefix: str = "") -> ValidationFailed:
        """From an engine's problems (anything with ``path`` and ``message``)."""
        return cls(
            FieldError(
                property=".".join(p for p in (prefix, problem.path) if p), message=problem.message
            )
            for problem in problems
        )

    @classmethod
    def single(cls, property: str, message: str) -> ValidationFailed:
        return cls([FieldError(property=property, message=message)])

    def as_wire(self) -> dict[str, object]:
        return {"name": self.name, "fields": [f.as_wire() for f in self.fields]}


class BadRequest(ServiceError):
    """A request Django refuses before any view: a Host not in ALLOWED_HOSTS, a malformed
    body or header (SuspiciousOperation)."""

    name = "BadRequestError"
    status = 400
    default_message = "Bad request."


class AuthorizationError(ServiceError):
    name = "AuthorizationError"
    status = 401
    default_message = "Not logged in."


class NotFound(ServiceError):
    name = "NotFoundError"
    status = 404
    default_message = "Not found."


class Conflict(ServiceError):
    name = "ConflictError"
    status = 409
    default_message = "The object is not in a state that allows this."


class RequestTooLarge(ServiceError):
    name = "RequestTooLarge"
    status = 413
    default_message = "Request Too Large"


class RetryLater(ServiceError):
    """An error whose answer tells the client when to try again: ``retry_after_seconds`` (the
    Retry-After header, read by core.api_errors and the GraphQL view)."""

    def __init__(self, retry_after_seconds: int, message: str | None = None) -> None:
        self.retry_after_seconds = retry_after_seconds
        super().__init__(message)


class RateLimited(RetryLater):
    name = "RateLimitError"
    status = 429
    default_message = "Rate limit exceeded."


class FontUnavailableError(ServiceError):
    """A supported font of the web catalog whose files could not be fetched right now."""

    name = "FontUnavailableError"
    status = 503
    default_message = "A font of the web font catalog could not be fetched; try again later."


class UnprocessableDocument(ServiceError):
    """The input parsed but the document cannot be produced (limits, broken source PDF...)."""

    name = "UnprocessableDocumentError"
    status = 422
    default_message = "The document could not be produced."


class ServiceBusy(ServiceError):
    name = "ServiceBusyError"
    status = 503
    default_message = "The service is busy; try again shortly."

    def __init__(self, message: str | None = None, retry_after_seconds: int = 5) -> None:
        self.retry_after_seconds = retry_after_seconds
        super().__init__(message)


def raise_for_engine_error(error: EngineError) -> NoReturn:
    """Raise the wire error for an engine's error, by the kind the error declares; log it.

    Every service calls this from one ``except EngineError`` clause. An "internal" error is
    raised as it is: the API's handler logs its frames and answers a 500 with a request id.
    """
    detail = f": {error.log_detail}" if error.log_detail else ""
    if error.kind == "invalid":
        if isinstance(error, InvalidInput):
            raise ValidationFailed.from_problems(error.problems) from None
        raise ValidationFailed.single(error.path, str(error)) from None
    if error.kind == "too_large":
        logger.info("refused as too large (%s)", error.code)
        raise RequestTooLarge(str(error)) from None
    if error.kind == "unprocessable":
        # With a detail, the renderer itself failed: the caller's to change, but worth a look.
        level = logging.ERROR if error.log_detail else logging.INFO
        logger.log(level, "document refused (%s)%s", error.code, detail)
        raise UnprocessableDocument(str(error)) from None
    if error.kind == "busy":
        logger.warning("busy (%s)%s", error.code, detail)
        raise ServiceBusy(str(error), retry_after_seconds=error.retry_after_seconds or 5) from None
    if error.kind == "unavailable":
        logger.warning("unavailable (%s)%s", error.code, detail)
        raise FontUnavailableError(str(error)) from None
    logger.error("internal error (%s)%s", error.code, detail)
    raise error
