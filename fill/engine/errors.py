"""Errors of the fill engine. Each has a stable ``code``; problems carry dotted paths."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    path: str
    message: str


class FillError(Exception):
    code = "fill_error"


class FillInvalid(FillError):
    """The request does not fit the template: wrong shapes, unknown fonts, bad styles."""

    code = "invalid"

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))

    @classmethod
    def single(cls, path: str, message: str) -> FillInvalid:
        return cls([Problem(path, message)])


class FillLimitExceeded(FillError):
    """The document would exceed a configured limit (pages, array length, data URLs)."""

    code = "limit_exceeded"

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(message)


class DataUrlsTooLarge(FillLimitExceeded):
    code = "data_urls_too_large"
