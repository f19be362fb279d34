"""Errors of the fill engine. Each has a stable ``code``; problems carry dotted paths."""

from __future__ import annotations

from typing import ClassVar

from core.engine.problems import EngineError, ErrorKind, InvalidInput


class FillError(EngineError):
    code = "fill_error"


class FillInvalid(InvalidInput, FillError):
    """The request does not fit the template: wrong shapes, unknown fonts, bad styles."""


class FillLimitExceeded(FillError):
    """The document would exceed a configured limit (pages, array length, data URLs)."""

    code = "limit_exceeded"
    kind: ClassVar[ErrorKind] = "invalid"  # more than a fill may make: a 400 naming what

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(message)


class DataUrlsTooLarge(FillLimitExceeded):
    code = "data_urls_too_large"
    kind = "too_large"
